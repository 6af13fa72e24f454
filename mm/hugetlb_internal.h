/* What the two halves of hugetlb mappings share (mm/hugetlb_vma.c: mmap,
 * the reservation map, page tables, zap, mprotect, fork and readers;
 * mm/hugetlb_fault.c: the fault): mm/hugetlb_vma.h has the rules. */
#ifndef MM_HUGETLB_INTERNAL_H
#define MM_HUGETLB_INTERNAL_H

#include "kernel/mutex.h"
#include "kernel/spinlock.h"
#include "mm/mm_types.h"

struct hstate;
struct mmu_gather;
struct page;

/* Linux's struct resv_map for a private mapping, reduced to what a private
 * mapping needs: which of its huge pages still hold the reservation mmap
 * took for them. Linux records the consumed ones in a region list; a
 * bitmap of the unconsumed ones says the same for a mapping whose size is
 * fixed at mmap (mremap cannot grow a hugetlb mapping). */
struct resv_map {
	int refcount;          /* VMAs sharing it (the pieces of a split); atomic */
	struct hstate *h;
	unsigned long base;    /* huge-page index (vm_pgoff >> order) of the mapping's first page */
	unsigned long nr;      /* huge pages the mapping had at mmap */
	spinlock_t lock;       /* the bits */
	unsigned long *reserved; /* bit i: page base + i still holds its reservation;
				  * NULL: none was taken (MAP_NORESERVE, or a fork's copy) */
	bool unmapped;           /* Linux's HPAGE_RESV_UNMAPPED: the owner took a page
				  * back from this (child's) mapping */
};

/* Test and clear (take), set (give: false if it was set already) or test
 * the reservation bit of addr; take and test are false for a VMA with no
 * map or no bits (a shared mapping of a file, MAP_NORESERVE, a fork's
 * copy), and give is only for a bit take found set. */
bool resv_take(struct vm_area_struct *vma, unsigned long addr);
bool resv_give(struct vm_area_struct *vma, unsigned long addr);
bool resv_test(struct vm_area_struct *vma, unsigned long addr);

/* The entry that maps (or will map) the huge page at addr: a PMD entry for
 * 2 MiB, a PUD entry for 1 GiB (Linux's huge_pte_offset / huge_pte_alloc),
 * as a pointer to the 64-bit word; NULL when a table above it is missing
 * (and, for huge_pte_alloc, could not be allocated). */
u64 *huge_pte_offset(struct mm_struct *mm, unsigned long addr, const struct hstate *h);
u64 *huge_pte_alloc(struct mm_struct *mm, unsigned long addr, const struct hstate *h);
/* Linux's set_huge_pte_at: the fence rule of set_pmd_at too. */
void set_huge_pte_at(unsigned long addr, u64 *ptep, u64 entry);

/* Linux's hugetlb_fault_mutex_table entry of the huge page at haddr of
 * mm: its faults and its zap, one at a time (mm/hugetlb_fault.c). */
struct mutex *hugetlb_fault_mutex(struct mm_struct *mm, unsigned long haddr);
/* A page of a hugetlbfs file's page cache (a private mapping's own pages
 * are anonymous: they have no mapping). */
bool page_in_file(const struct page *page);
/* Linux's __unmap_hugepage_range with its ref_page: only entries that map
 * ref_page when it is not NULL. */
void unmap_hugepage_range_ref(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			      unsigned long end, struct page *ref_page);

#endif
