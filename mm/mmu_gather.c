/* mmu_gather (see mm/mmu_gather.h): pages and page-table pages unmapped by
 * a teardown wait here until the TLB of every CPU that may hold a
 * translation to them has been flushed; then they are freed. One flush per
 * batch of MMU_GATHER_BUNDLE pages (or per tlb_finish_mmu), not per page. */
#include "mm/mmu_gather.h"
#include "arch/x86_64/page.h"
#include "arch/x86_64/tlb.h"
#include "kernel/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

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

static void gather_page(struct mmu_gather *tlb, struct page *page)
{
	tlb->pages[tlb->nr++] = page;
	if (tlb->nr == MMU_GATHER_BUNDLE)
		tlb_flush_mmu(tlb);
}

void tlb_remove_page(struct mmu_gather *tlb, struct page *page, unsigned long address)
{
	tlb_flush_range_add(tlb, address, PAGE_SIZE);
	gather_page(tlb, page);
}

void tlb_remove_table(struct mmu_gather *tlb, struct page *table, unsigned long address,
		      unsigned long span)
{
	tlb_flush_range_add(tlb, address, span);
	tlb->freed_tables = true;
	gather_page(tlb, table);
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	if (tlb->end) {
		unsigned long start = tlb->start, end = tlb->end;
		if (tlb->fullmm) {
			start = 0;
			end = ~0ul; /* the whole mm: one full flush */
		}
		flush_tlb_user_range(mm_cpumask(tlb->mm), __pa(tlb->mm->pgd), start, end);
		tlb->nr_flushes++;
		tlb->start = ~0ul;
		tlb->end = 0;
	}
	/* Only now can no CPU reach these pages any more. */
	for (unsigned i = 0; i < tlb->nr; i++) {
		struct page *p = tlb->pages[i];
		if (PageTable(p))
			page_clear_flag(p, PG_table);
		__free_page(p);
	}
	tlb->nr_freed += tlb->nr;
	tlb->nr = 0;
	tlb->freed_tables = false;
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu(tlb);
}
