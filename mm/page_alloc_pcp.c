/* Per-CPU lists of order-0 pages and of THP-order blocks: how pages move
 * in batches between a CPU's lists and its node's buddy lists, and how
 * every CPU is made to give its pages back (drain_all_pages, through an
 * IPI).
 *
 * Each node has one list per CPU (pgdat->pcp[cpu]). Allocation refills an
 * empty list with pcp->batch pages (rmqueue_bulk); freeing drains
 * pcp->batch of the coldest pages once the list holds more than pcp->high
 * (free_pcppages_bulk). The take and put themselves are inline in
 * page_alloc_internal.h, and the order-0 fast paths in page_alloc.c repeat
 * them.
 *
 * Invariant: a page on a per-CPU list is PG_pcp with refcount 0 and is not
 * on any buddy list; pcp->count is the list's length. A CPU's list is
 * touched only by that CPU with interrupts off, never by another CPU; the
 * node's lock is taken only for the buddy side of a batch. */
#include "kernel/smp.h"
#include "mm/page_alloc_internal.h"

/* Moves up to count blocks of the THP order from the buddy lists to the
 * CPU's THP-order list. */
static int rmqueue_bulk_thp(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order)
{
	int moved = 0;
	spin_lock(&pgdat->lock);
	for (; moved < count; moved++) {
		struct page *page = rmqueue_smallest(pgdat, order);
		if (!page)
			break;
		page->flags |= BIT(PG_pcp);
		page->private = order;
		list_add_tail(&page->lru, &pcp->thp_list);
	}
	spin_unlock(&pgdat->lock);
	pcp->thp_count += moved;
	return moved;
}

/* Moves up to count pages (blocks, for the THP order) from the buddy lists
 * to a per-CPU list. */
int rmqueue_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order)
{
	if (order)
		return rmqueue_bulk_thp(pgdat, pcp, count, order);
	int moved = 0;
	spin_lock(&pgdat->lock);
	/* Whole aligned blocks (up to the largest power of two in count) at a
	 * time: one split instead of one per page, and the pages go back
	 * together so they merge again when drained. Pages are checked when
	 * the per-CPU list hands them out. */
	order = (unsigned int)(8 * sizeof(long) - 1 - __builtin_clzl((unsigned long)count));
	while (moved < count) {
		while (order && ((1 << order) > count - moved || !(pgdat->free_mask >> order)))
			order--;
		struct page *page = rmqueue_smallest(pgdat, order);
		if (!page)
			break;
		for (unsigned long i = 0; i < (1ul << order); i++) {
			page[i].flags |= BIT(PG_pcp);
			list_add_tail(&page[i].lru, &pcp->list);
		}
		moved += 1 << order;
	}
	spin_unlock(&pgdat->lock);
	pcp->count += moved;
	return moved;
}

void free_pcppages_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order)
{
	spin_lock(&pgdat->lock);
	if (order) {
		while (count-- > 0 && !list_empty(&pcp->thp_list)) {
			struct page *page = list_entry(pcp->thp_list.prev, struct page, lru);
			list_del(&page->lru);
			pcp->thp_count--;
			page->flags &= ~BIT(PG_pcp);
			free_one_page(page, page_to_pfn(page), pgdat, order);
		}
		note_node_refilled(pgdat);
		spin_unlock(&pgdat->lock);
		return;
	}
	while (count-- > 0 && !list_empty(&pcp->list)) {
		/* The coldest pages (at the tail) go back first. */
		struct page *page = list_entry(pcp->list.prev, struct page, lru);
		list_del(&page->lru);
		pcp->count--;
		page->flags &= ~BIT(PG_pcp);
		free_one_page(page, page_to_pfn(page), pgdat, 0);
	}
	note_node_refilled(pgdat);
	spin_unlock(&pgdat->lock);
}

/* This CPU's lists only: a per-CPU list is touched by its own CPU alone,
 * with interrupts off, never by another CPU. */
void drain_local_pages(void *unused)
{
	(void)unused;
	unsigned long flags;
	local_irq_save(flags);
	unsigned cpu = smp_processor_id();
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		if (pgdat->pcp[cpu].count)
			free_pcppages_bulk(pgdat, &pgdat->pcp[cpu], pgdat->pcp[cpu].count, 0);
		if (pgdat->pcp[cpu].thp_count)
			free_pcppages_bulk(pgdat, &pgdat->pcp[cpu], pgdat->pcp[cpu].thp_count, pageblock_order);
	}
	local_irq_restore(flags);
}

/* Every CPU drains its own lists (through an IPI and a wait). Only for
 * callers that may block with interrupts on: waiting for another CPU with
 * interrupts off could wait for a CPU that waits for us. */
void drain_all_pages(void)
{
	if (irqs_disabled()) {
		drain_local_pages(NULL);
		return;
	}
	on_each_cpu(drain_local_pages, NULL, true);
}
