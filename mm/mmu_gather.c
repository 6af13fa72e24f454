/* mmu_gather (see mm/mmu_gather.h): pages and page-table pages unmapped by
 * a teardown wait here until the TLB of every CPU that may hold a
 * translation to them has been flushed; then they are freed. One flush per
 * full batch (or per tlb_finish_mmu), not per page.
 *
 * Invariant: pages[] and tables[] hold only pages no page table points to
 * any more; whatever is in them is freed by the next tlb_flush_mmu, after
 * its flush. Locking: a gather belongs to the task that opened it. */
#include "mm/mmu_gather.h"
#include "arch/x86_64/page.h"
#include "lib/string.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"

static void gather_init(struct mmu_gather *tlb, struct mm_struct *mm, bool fullmm)
{
	memset(tlb, 0, sizeof(*tlb));
	tlb->mm = mm;
	tlb->fullmm = fullmm;
	tlb->start = ~0ul;
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm) { gather_init(tlb, mm, false); }
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm) { gather_init(tlb, mm, true); }

void tlb_flush_range_add(struct mmu_gather *tlb, unsigned long address, unsigned long size)
{
	if (address < tlb->start)
		tlb->start = address;
	if (address + size > tlb->end)
		tlb->end = address + size;
}

bool __tlb_remove_page_size(struct mmu_gather *tlb, struct page *page, unsigned long address,
			    unsigned int order)
{
	tlb_flush_range_add(tlb, address, PAGE_SIZE << order);
	tlb->orders[tlb->nr] = (unsigned char)order;
	tlb->pages[tlb->nr++] = page;
	return tlb->nr == MMU_GATHER_BUNDLE;
}

void tlb_remove_page(struct mmu_gather *tlb, struct page *page, unsigned long address)
{
	if (__tlb_remove_page_size(tlb, page, address, 0))
		tlb_flush_mmu(tlb);
}

void tlb_remove_table(struct mmu_gather *tlb, struct page *table, unsigned long address,
		      unsigned long span)
{
	tlb_flush_range_add(tlb, address, span);
	tlb->freed_tables = true;
	tlb->tables[tlb->nr_tables++] = table;
	if (tlb->nr_tables == MMU_GATHER_TABLE_BUNDLE)
		tlb_flush_mmu(tlb);
}

/* The table batch, after the flush: each table waits for an RCU grace
 * period (Linux's MMU_GATHER_RCU_TABLE_FREE, which the series selects on
 * x86 for FREE_USER_PTE), since a walker that took no reference (a
 * pte_try_get between its read of the PMD and its increment, or a
 * lockless get_user_pages_fast) may still be reading a table no TLB maps
 * any more. The rcu_head lives in the table's own struct page (pt_pad), so
 * queueing cannot fail for want of memory (Linux allocates a batch page
 * and falls back to a synchronous one-by-one free). In every mode: the
 * lockless walker does not know the mode. Except at exit (below). */
static void tlb_table_flush(struct mmu_gather *tlb)
{
	/* The address space of exit_mmap (mm_users dropped to zero) has
	 * nobody left to walk it, locked or lockless (mmput frees its PGD
	 * at once too; its VMAs left the files' i_mmap before the zap, so
	 * no truncate walks it either): no grace period to wait for. */
	bool dead = tlb->fullmm && !__atomic_load_n(&tlb->mm->mm_users, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < tlb->nr_tables; i++) {
		if (dead)
			pagetable_free(tlb->tables[i]);
		else
			pagetable_free_deferred(tlb->tables[i]); /* tlb_remove_table_rcu */
	}
	tlb->nr_tables_freed += tlb->nr_tables;
	tlb->nr_tables = 0;
	tlb->freed_tables = false;
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	if (tlb->end) {
		unsigned long start = tlb->start, end = tlb->end;
		if (tlb->fullmm) {
			start = 0;
			end = ~0ul; /* the whole mm: one full flush */
		}
		flush_tlb_mm_range(tlb->mm, start, end);
		tlb->nr_flushes++;
		tlb->start = ~0ul;
		tlb->end = 0;
	}
	/* Only now can no CPU reach these pages any more. */
	for (unsigned i = 0; i < tlb->nr; i++) {
		/* put_page, not __free_pages: get_user_pages may hold a
		 * reference of its own (mm/gup.c), and then the page goes at
		 * its put_page instead (Linux's folio_put semantics). */
		put_page(tlb->pages[i]);
		tlb->nr_freed += 1ul << tlb->orders[i];
	}
	tlb->nr = 0;
	tlb_table_flush(tlb);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu(tlb);
}
