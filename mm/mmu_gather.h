/* mmu_gather: batching what an unmap frees, so that the TLB is flushed once
 * per batch instead of once per page, and nothing is freed while some CPU
 * may still reach it through a stale TLB entry.
 *
 *   struct mmu_gather tlb;
 *   tlb_gather_mmu(&tlb, mm);
 *   unmap_page_range(&tlb, vma, start, end);   // tlb_remove_page() each page
 *   free_pgd_range(&tlb, start, end, floor, ceiling); // tlb_remove_table()
 *   tlb_finish_mmu(&tlb);                      // flush, then free
 *
 * Invariant: every page handed to the gather has been unmapped from the
 * page tables; it is freed only after flush_tlb_mm_range() has covered the
 * gathered range on every CPU in mm_cpumask(mm). */
#ifndef MM_MMU_GATHER_H
#define MM_MMU_GATHER_H

#include "mm/mm_types.h"

struct page;

#define MMU_GATHER_BUNDLE 64 /* pages per batch (a flush when it fills) */

struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end;   /* the range to flush (end 0: nothing yet) */
	bool freed_tables;          /* page-table pages are among the pages */
	bool fullmm;                /* the whole mm goes (exit): flush it all */
	unsigned int nr;            /* pages in pages[] */
	struct page *pages[MMU_GATHER_BUNDLE];
	unsigned long nr_flushes;   /* TLB flushes done (for tests, statistics) */
	unsigned long nr_freed;     /* pages freed */
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
/* For exit: the address space is going away as a whole. */
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm);
/* Records that [address, address + size) changed (flush range). */
void tlb_flush_range_add(struct mmu_gather *tlb, unsigned long address, unsigned long size);
/* Queues a page unmapped at address (flushed, then freed, by the batch). */
void tlb_remove_page(struct mmu_gather *tlb, struct page *page, unsigned long address);
/* Queues a page-table page that covered [address, address + span). */
void tlb_remove_table(struct mmu_gather *tlb, struct page *table, unsigned long address,
		      unsigned long span);
/* Flushes and frees what is queued; the gather can be used again. */
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_finish_mmu(struct mmu_gather *tlb);

#endif
