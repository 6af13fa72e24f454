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
	SCAN_PMD_NONE,
	SCAN_PMD_MAPPED,
	SCAN_EXCEED_NONE_PTE,
	SCAN_EXCEED_SWAP_PTE,
	SCAN_EXCEED_SHARED_PTE,
	SCAN_PTE_NON_PRESENT,
	SCAN_PTE_UFFD_WP,
	SCAN_PTE_MAPPED_HUGEPAGE,
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

/* Linux's find_pmd_or_thp_or_none (SCAN_PMD_NULL for a none PMD too, as
 * the anonymous scan has always taken it). */
enum scan_result find_pmd_or_thp_or_none(struct mm_struct *mm, unsigned long address, pmd_t **pmd);

/* --- file and shmem memory (mm/khugepaged_file.c) --- */

/* The shmem inode whose pages vma maps (a tmpfs file's or memfd's,
 * MAP_SHARED or MAP_PRIVATE, or shared anonymous memory's unnamed file:
 * Linux's shmem_file(vma->vm_file)), or NULL (anything else, a System V
 * segment too). */
struct inode *khugepaged_shmem_inode(struct vm_area_struct *vma);
/* The file behind vma's pages, with a reference (the object's for shared
 * anonymous memory: Linux's vm_file), for a scan done without the mmap
 * lock; NULL when vma has no shmem inode. */
struct file *khugepaged_vma_file(struct vm_area_struct *vma);
/* Linux's hpage_collapse_scan_file: the 512 page-cache slots of file from
 * start (aligned), and their collapse (collapse_file) and the retraction
 * of the PTE tables mapping them (retract_page_tables), entered without
 * the mmap lock; mm and addr are the caller's mapping of start. */
enum scan_result hpage_collapse_scan_file(struct mm_struct *mm, unsigned long addr, struct file *file,
					  unsigned long start, struct collapse_control *cc);
/* Linux's collapse_pte_mapped_thp, under the mmap write lock: the PTE
 * table at addr, whose entries map nothing but the huge page of the file
 * at that offset (each its own page), goes, and with install_pmd a PMD
 * maps the huge page. */
enum scan_result collapse_pte_mapped_thp(struct mm_struct *mm, unsigned long addr, bool install_pmd);
/* Linux's khugepaged_add_pte_mapped_thp: khugepaged retries that at addr
 * of mm when it next scans mm (a table it could not take: the mmap lock
 * was held); false when mm is not listed or its slot is full. */
bool khugepaged_add_pte_mapped_thp(struct mm_struct *mm, unsigned long addr);

#endif
