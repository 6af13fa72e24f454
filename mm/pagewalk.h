/* Walking the page tables of an address range on behalf of a reader
 * (Linux's mm/pagewalk.c walk_page_range with pte_entry, pmd_entry and
 * pte_hole callbacks): mincore(2) (mm/mincore.c), /proc/<pid>/pagemap and
 * /proc/<pid>/smaps (fs/proc/task_mmu.c).
 *
 * The walk is the one place where these readers enter a PTE table, and so
 * the one place that keeps mm/pte_ref.h's contract for them: the caller
 * holds mmap_lock for READING (at least), the walk enters each PTE table
 * with pte_tryget_map_lock() and leaves it with pte_unmap_unlock() then
 * pte_put(), with no PTE lock held. A table it could not get (none, being
 * freed: its count is zero, so all its entries are none) is a hole; a huge
 * PMD (mm/pgtable.h's rule) is handed whole to huge_pmd_entry under the
 * PMD's lock, never entered as a PTE table. A walk leaves every count as
 * it found it. That is the refcount mode's story; in the other modes
 * pte_tryget_map_lock() takes no count (pte_put is a no-op) and the table
 * is kept by its PTE lock instead: in scan mode try_to_free_pte clears the
 * PMD only with the table's PTE lock held, and pte_offset_map_lock
 * re-reads the PMD under that lock (a table freed meanwhile is seen gone,
 * and the RCU-deferred free keeps the page a page table until the walk
 * let go of it, mm/pt_reclaim.c); in off mode a PTE table goes only under
 * the mmap write lock (munmap) or at exit, which no walker is beside.
 *
 * Callbacks run with a spinlock held (a PTE lock for pte_entry, the PMD
 * lock for huge_pmd_entry): they must not sleep or touch user memory; they
 * fill a kernel buffer, and the caller copies it out after the walk. A
 * callback's non-zero return stops the walk and is what the walk returns
 * (pagemap's "buffer full"). */
#ifndef MM_PAGEWALK_H
#define MM_PAGEWALK_H

#include "arch/x86_64/pgtable.h"
#include "mm/mm_types.h"

struct mm_walk;

struct mm_walk_ops {
	/* Each PTE of [addr, addr + PAGE_SIZE) inside a PTE table, none ones
	 * included, with the table's PTE lock held; pte is the value read
	 * under it. Required. */
	int (*pte_entry)(pte_t pte, unsigned long addr, struct mm_walk *walk);
	/* A huge PMD covering [addr, next) (part of its 2 MiB when the range
	 * starts or ends inside it), with the PMD lock held; pmd is the value
	 * read under it. Required: a walker that forgot huge PMDs would
	 * silently skip them. */
	int (*huge_pmd_entry)(pmd_t pmd, unsigned long addr, unsigned long next,
			      struct mm_walk *walk);
	/* The huge page of a hugetlb VMA (mm/hugetlb_vma.h) covering
	 * [addr, next), part of it when the range starts or ends inside it:
	 * pte is its PMD or PUD entry (0: not faulted in), hmask the page
	 * size's mask, with mm->page_table_lock held. Required: every reader
	 * must say what a hugetlb page is to it (Linux's walkers do). */
	int (*hugetlb_entry)(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			     struct mm_walk *walk);
	/* [addr, next) has no PTE table (depth: 0 no PUD table, 2 no PMD table,
	 * 3 no PTE table, as Linux's levels) or, when walk_page_range is
	 * given a range beyond the VMAs, no VMA at all (depth -1, walk->vma
	 * NULL). Optional: without it holes are skipped. */
	int (*pte_hole)(unsigned long addr, unsigned long next, int depth, struct mm_walk *walk);
};

struct mm_walk {
	const struct mm_walk_ops *ops;
	struct mm_struct *mm;
	struct vm_area_struct *vma; /* the VMA being walked; NULL in a gap */
	void *private;
};

/* Walks [start, end) of mm (page aligned), VMA by VMA: the parts no VMA
 * covers go to pte_hole with depth -1. mmap_lock held for reading. Returns
 * 0, or the first non-zero callback result. */
int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private);
/* [start, end) inside one VMA (Linux's walk_page_range_vma). */
int walk_page_range_vma(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			const struct mm_walk_ops *ops, void *private);
/* The whole of vma (Linux's walk_page_vma). */
int walk_page_vma(struct vm_area_struct *vma, const struct mm_walk_ops *ops, void *private);

/* mincore(2) for the current task's mm, with Linux's checks (mm/mincore.c);
 * vec is a user address. 0 or a negative errno. */
long ksys_mincore(unsigned long start, size_t len, unsigned char *vec);

#endif
