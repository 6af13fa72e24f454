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
 * Two batches, as Linux's: data pages (pages[], each with its order: a
 * huge PMD's page is one order-9 entry) and page-table pages (tables[],
 * Linux's tlb_remove_table batch). Tables are kept apart because they will
 * be freed differently: a walker that holds no reference (pte_try_get
 * between its read of the PMD and its increment, get_user_pages_fast) may
 * still be reading one after the flush, so the table batch is freed after
 * an RCU grace period (call_rcu, Linux's tlb_remove_table_rcu), the data
 * pages right after the flush. A refcounted PTE table whose last put
 * happens inside a teardown joins the table batch (free_user_pte_table).
 *
 * Invariant: every page handed to the gather has been unmapped from the
 * page tables (every table unlinked from its parent); it is freed only
 * after flush_tlb_mm_range() has covered the gathered range on every CPU in
 * mm_cpumask(mm). */
#ifndef MM_MMU_GATHER_H
#define MM_MMU_GATHER_H

#include "mm/mm_types.h"

struct page;

#define MMU_GATHER_BUNDLE 64       /* data pages per batch (a flush when it fills) */
#define MMU_GATHER_TABLE_BUNDLE 32 /* page-table pages per batch (likewise) */

struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end;   /* the range to flush (end 0: nothing yet) */
	bool freed_tables;          /* page-table pages are waiting in tables[] */
	bool fullmm;                /* the whole mm goes (exit): flush it all */
	unsigned int nr;            /* data pages in pages[] */
	struct page *pages[MMU_GATHER_BUNDLE];
	unsigned char orders[MMU_GATHER_BUNDLE]; /* each page's allocation order */
	unsigned int nr_tables;     /* page-table pages in tables[] */
	struct page *tables[MMU_GATHER_TABLE_BUNDLE];
	unsigned long nr_flushes;   /* TLB flushes done (for tests, statistics) */
	unsigned long nr_freed;     /* data pages freed, in 4 KiB pages */
	unsigned long nr_tables_freed; /* page-table pages handed to RCU for freeing */
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
/* For exit: the address space is going away as a whole. */
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm);
/* Records that [address, address + size) changed (flush range). */
void tlb_flush_range_add(struct mmu_gather *tlb, unsigned long address, unsigned long size);
/* Queues a data page of 2^order pages unmapped at address; returns true
 * when the batch is full: the caller must tlb_flush_mmu() before queueing
 * more (after dropping its PTE lock: Linux's __tlb_remove_page_size). */
bool __tlb_remove_page_size(struct mmu_gather *tlb, struct page *page, unsigned long address,
			    unsigned int order);
/* Queues a page unmapped at address, flushing a full batch at once (for
 * callers that hold no PTE lock). */
void tlb_remove_page(struct mmu_gather *tlb, struct page *page, unsigned long address);
/* Queues a page-table page that covered [address, address + span), already
 * unlinked from its parent entry. */
void tlb_remove_table(struct mmu_gather *tlb, struct page *table, unsigned long address,
		      unsigned long span);
/* Flushes and frees what is queued; the gather can be used again. */
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_finish_mmu(struct mmu_gather *tlb);

#endif
