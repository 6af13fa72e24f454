/* Tearing down user mappings and page tables: zap (unmap_page_range,
 * zap_page_range: the pages) and free_pgtables (free_pgd_range: the
 * tables), both handing what they free to an mmu_gather. */
#ifndef MM_TEARDOWN_H
#define MM_TEARDOWN_H

#include "mm/interval_tree.h"
#include "mm/mm_types.h"
#include "mm/pgtable.h"

struct mmu_gather;

/* Unmaps the pages of [addr, end) (inside vma), handing them to tlb. Page
 * tables stay (free_pgd_range frees them). A huge PMD is zapped whole
 * (mm/pgtable.h's rule). */
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end);
/* The huge-PMD rule for a zap (mm/pgtable.h): clears the huge PMD *pmd,
 * frees its deposited table, uncounts its pages and gives its order-9 page
 * to tlb (the huge zero page: nothing to uncount or free); [addr, end)
 * must be all its 2 MiB (a part is split first). false, with nothing done,
 * when *pmd is no longer huge under its lock (split since the caller read
 * it: a PTE table, for the caller to zap entry by entry). */
bool zap_huge_pmd(struct mmu_gather *tlb, struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
		  unsigned long end);
/* MADV_DONTNEED: unmaps [start, start + size) of vma with a gather of its
 * own (TLB flushed, pages freed before it returns). */
void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long size);
/* zap_page_range for MADV_DONTNEED and MADV_DONTNEED_LOCKED (Linux's
 * madvise_dontneed_single_vma: zap_details.reclaim_pt): in scan mode the
 * PTE tables the zap emptied whole are freed too (mm/pt_reclaim.h). */
void zap_page_range_dontneed(struct vm_area_struct *vma, unsigned long start, unsigned long size);
/* Linux's unmap_mapping_range_vma: [start, end) of a VMA of a file
 * (mm/truncate.h) with a gather of its own, its caller holding the file's
 * i_mmap_rwsem for reading and maybe no lock of vma's mm. */
void unmap_mapping_range_vma(struct vm_area_struct *vma, unsigned long start, unsigned long end, bool even_cows);
/* Frees the page tables that cover only addresses in [addr, end) or in
 * the free gaps around it, as Linux's free_pgd_range: floor is the end of
 * the previous VMA (0: none) and ceiling the start of the next (0: none,
 * the top of the user half), and a table is freed only when every address
 * it covers lies in [floor, ceiling), so no neighbouring VMA loses a table
 * it still uses. The tables go to tlb. */
void free_pgd_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end,
		    unsigned long floor, unsigned long ceiling);
/* Linux's free_pgtables: frees the page tables under the VMAs from vma up
 * to (not including) end, a run being unmapped (in address order, linked
 * by vm_next, no other VMA between them), keeping what a VMA below floor
 * or from ceiling on still uses: free_pgd_range over the run. munmap
 * passes its neighbours' bounds, exit 0 and 0 (everything). */
static inline void free_pgtables(struct mmu_gather *tlb, struct vm_area_struct *vma,
				 struct vm_area_struct *end, unsigned long floor,
				 unsigned long ceiling)
{
	if (vma == end)
		return;
	unsigned long start = vma->vm_start, stop = vma->vm_end;
	/* Each leaves its file's i_mmap first (Linux's unlink_file_vma
	 * here): a walker of the tree (unmap_mapping_range, which holds no
	 * mmap_lock) is out of these tables before they go. */
	for (; vma != end; vma = vma->vm_next) {
		unlink_file_vma(vma);
		stop = vma->vm_end;
	}
	free_pgd_range(tlb, start, stop, floor, ceiling);
}

#endif
