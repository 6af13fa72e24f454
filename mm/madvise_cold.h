/* MADV_COLD and MADV_PAGEOUT (mm/madvise_cold.c): each anonymous 4 KiB
 * page of [start, end) inside vma that only this mapping maps is taken
 * off the LRU, then put back on the inactive list unreferenced (COLD) or
 * swapped out whatever its references say (PAGEOUT: reclaim_pages,
 * mm/vmscan.h). A THP only this mapping maps is split when the range
 * covers part of it or PTEs map it, else taken whole (reclaim splits it
 * to swap it out); shared and file pages are left alone. -EINVAL for
 * a VM_LOCKED or hugetlb VMA (Linux's can_madv_lru_vma), else 0. Under
 * the mmap_lock for reading. */
#ifndef MM_MADVISE_COLD_H
#define MM_MADVISE_COLD_H

struct vm_area_struct;
int madvise_cold_or_pageout(struct vm_area_struct *vma, unsigned long start, unsigned long end, int behavior);

#endif
