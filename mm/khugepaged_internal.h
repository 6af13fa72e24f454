/* What mm/khugepaged.c (the daemon, its mm_slots and sysfs files) and
 * mm/khugepaged_collapse.c (the scan of one PMD, the collapse,
 * MADV_COLLAPSE) share; Linux keeps both in mm/khugepaged.c. */
#ifndef MM_KHUGEPAGED_INTERNAL_H
#define MM_KHUGEPAGED_INTERNAL_H

#include "mm/khugepaged.h"
#include "mm/nodemask.h"

/* Linux 6.1's enum scan_result, the values this collapse can give. */
enum scan_result {
	SCAN_FAIL,
	SCAN_SUCCEED,
	SCAN_PMD_NULL,
	SCAN_PMD_MAPPED,
	SCAN_EXCEED_NONE_PTE,
	SCAN_EXCEED_SWAP_PTE,
	SCAN_EXCEED_SHARED_PTE,
	SCAN_PTE_NON_PRESENT,
	SCAN_PTE_UFFD_WP,
	SCAN_PAGE_RO,
	SCAN_LACK_REFERENCED_PAGE,
	SCAN_PAGE_NULL,
	SCAN_SCAN_ABORT,
	SCAN_PAGE_COUNT,
	SCAN_PAGE_LRU,
	SCAN_PAGE_LOCK,
	SCAN_PAGE_ANON,
	SCAN_PAGE_COMPOUND,
	SCAN_ANY_PROCESS,
	SCAN_VMA_NULL,
	SCAN_VMA_CHECK,
	SCAN_ADDRESS_RANGE,
	SCAN_DEL_PAGE_LRU,
	SCAN_ALLOC_HUGE_PAGE_FAIL,
	SCAN_CGROUP_CHARGE_FAIL,
	SCAN_TRUNCATED,
	SCAN_PAGE_HAS_PRIVATE,
};

/* Linux's struct collapse_control: who collapses (khugepaged applies the
 * max_ptes_* limits and the young check) and where the scanned pages
 * are, for the THP's node. */
struct collapse_control {
	bool is_khugepaged;
	unsigned int node_load[MAX_NUMNODES];
	nodemask_t alloc_nmask;
};

/* Linux's hpage_collapse_test_exit: the mm's last user is gone. */
static inline bool hpage_collapse_test_exit(struct mm_struct *mm)
{
	return __atomic_load_n(&mm->mm_users, __ATOMIC_ACQUIRE) == 0;
}

/* Linux's hpage_collapse_scan_pmd: scans the PTE table of the aligned
 * 2 MiB at address of vma under the mmap read lock and, when it may be
 * collapsed, collapses it (collapse_huge_page), which drops the lock
 * (*mmap_locked false then). */
enum scan_result hpage_collapse_scan_pmd(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long address,
					 bool *mmap_locked, struct collapse_control *cc);

#endif
