/* mremap(2) (25): resizing and moving a mapping, with its pages and, where
 * a whole PTE table moves, the table itself (mm/mremap.c). */
#ifndef MM_MREMAP_H
#define MM_MREMAP_H

#include "mm/mm_types.h"

/* Linux's uapi flags (include/uapi/linux/mman.h). */
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2
#define MREMAP_DONTUNMAP 4

/* mremap(2) on mm (Linux's do_mremap): takes mm->mmap_lock for writing
 * (the caller must not hold it). Returns the address of the mapping after
 * the call, or a negative errno cast to unsigned long (IS_ERR_VALUE). */
unsigned long do_mremap(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
			unsigned long new_len, unsigned long flags, unsigned long new_addr);

/* Moves the page-table entries of [old_addr, old_addr + len) of vma to
 * new_addr (under new_vma), a whole PTE table at a time where both ranges
 * cover one (move_normal_pmd), else entry by entry (move_ptes). Returns
 * how many bytes from old_addr on were moved: len, or 0 when memory for
 * a table was short or a huge PMD was only partly covered (all or nothing:
 * everything is allocated before the first entry moves).
 * Under the mmap write lock. For mremap and its tests. */
unsigned long move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
			       struct vm_area_struct *new_vma, unsigned long new_addr,
			       unsigned long len);

/* What move_page_tables did, since boot (for tests): PTE tables moved
 * whole, huge PMDs moved, PTE tables walked entry by entry, entries moved
 * one by one. */
struct mremap_stats {
	unsigned long tables_moved;
	unsigned long huge_pmds_moved;
	unsigned long tables_walked;
	unsigned long ptes_moved;
};
void mremap_stats_read(struct mremap_stats *stats);

#endif
