/* Per-CPU lists of order-0 pages and of THP-order blocks: how pages move
 * in batches between a CPU's lists and its node's buddy lists, and how
 * every CPU is made to give its pages back (drain_all_pages, through an
 * IPI).
 *
 * Each node has lists per CPU (pgdat->pcp[cpu]): one per migrate type with
 * per-CPU lists for order 0, one for the THP order (order_to_pindex).
 * Allocation refills an empty list with pcp->batch pages of its type
 * (rmqueue_bulk); freeing drains
 * pcp->batch of the coldest pages once the list holds more than pcp->high
 * (free_pcppages_bulk). The take and put themselves are inline in
 * page_alloc_internal.h, and the order-0 fast paths in page_alloc.c repeat
 * them.
 *
 * Invariant: a page on a per-CPU list is PG_pcp with refcount 0 and is not
 * on any buddy list; pcp->count is the order-0 lists' length. A CPU's list is
 * touched only by that CPU with interrupts off, never by another CPU; the
 * node's lock is taken only for the buddy side of a batch. */
#include "kernel/smp.h"
#include "mm/page_alloc_internal.h"

/* Moves up to count blocks of the THP order from the buddy lists to the
 * CPU's THP-order list. */
static int rmqueue_bulk_thp(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order,
			    int migratetype)
{
	int moved = 0;
	spin_lock(&pgdat->lock);
	for (; moved < count; moved++) {
		struct page *page = __rmqueue(pgdat, order, migratetype);
		if (!page)
			break;
		page->flags |= BIT(PG_pcp);
		page->private = order;
		list_add_tail(&page->lru, &pcp->lists[PCP_THP_INDEX]);
	}
	spin_unlock(&pgdat->lock);
	pcp->thp_count += moved;
	return moved;
}

/* Moves up to count pages (blocks, for the THP order) of migratetype from
 * the buddy lists to a per-CPU list (Linux's rmqueue_bulk: __rmqueue, so
 * with its fallback to other types). */
int rmqueue_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order, int migratetype)
{
	if (order)
		return rmqueue_bulk_thp(pgdat, pcp, count, order, migratetype);
	int moved = 0;
	struct list_head *list = &pcp->lists[migratetype];
	spin_lock(&pgdat->lock);
	/* Whole aligned blocks (up to the largest power of two in count) at a
	 * time: one split instead of one per page, and the pages go back
	 * together so they merge again when drained. Pages are checked when
	 * the per-CPU list hands them out. */
	order = (unsigned int)(8 * sizeof(long) - 1 - __builtin_clzl((unsigned long)count));
	while (moved < count) {
		while (order && ((1 << order) > count - moved || !(pgdat->free_mask >> order)))
			order--;
		struct page *page = __rmqueue(pgdat, order, migratetype);
		if (!page) {
			if (order) {
				order--;
				continue;
			}
			break;
		}
		for (unsigned long i = 0; i < (1ul << order); i++) {
			page[i].flags |= BIT(PG_pcp);
			list_add_tail(&page[i].lru, list);
		}
		moved += 1 << order;
	}
	spin_unlock(&pgdat->lock);
	pcp->count += moved;
	return moved;
}

/* A page leaving a per-CPU list for the buddy lists goes to the list it
 * was freed for (the per-CPU list's type; the THP list's blocks to their
 * block's), unless its pageblock was isolated meanwhile (Linux's
 * free_pcppages_bulk). */
static void free_pcppage(pg_data_t *pgdat, struct page *page, unsigned int order, int migratetype)
{
	unsigned long pfn = page_to_pfn(page);
	if (order || unlikely(pgdat->nr_isolate_pageblock))
		migratetype = get_pfnblock_migratetype(pgdat, pfn);
	page->flags &= ~BIT(PG_pcp);
	free_one_page(page, pfn, pgdat, order, migratetype);
}

void free_pcppages_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order)
{
	spin_lock(&pgdat->lock);
	if (order) {
		struct list_head *list = &pcp->lists[PCP_THP_INDEX];
		while (count-- > 0 && !list_empty(list)) {
			struct page *page = list_entry(list->prev, struct page, lru);
			list_del(&page->lru);
			pcp->thp_count--;
			free_pcppage(pgdat, page, order, 0);
		}
		note_node_refilled(pgdat);
		spin_unlock(&pgdat->lock);
		return;
	}
	/* The coldest pages (at the tails) go back first. Linux 6.1's round
	 * robin: the next type list that is not empty is emptied, while
	 * count lasts, before the next is taken. (pcp->count is the lists'
	 * length, so while it is not 0 some list has a page.) */
	int mt = MIGRATE_PCPTYPES - 1;
	while (count > 0 && pcp->count) {
		struct list_head *list;
		do {
			mt = mt + 1 == MIGRATE_PCPTYPES ? 0 : mt + 1;
			list = &pcp->lists[mt];
		} while (list_empty(list));
		do {
			struct page *page = list_entry(list->prev, struct page, lru);
			list_del(&page->lru);
			pcp->count--;
			count--;
			free_pcppage(pgdat, page, 0, mt);
		} while (count > 0 && !list_empty(list));
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

/* Linux's has_pcps: whether cpu's lists on some node hold pages. Read
 * without that CPU's interrupts off, as Linux reads it: a page it frees
 * onto a list just after the read waits for the next drain, as one freed
 * just after the IPI would. */
static bool cpu_has_pcps(unsigned cpu)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (pgdat && (__atomic_load_n(&pgdat->pcp[cpu].count, __ATOMIC_RELAXED) ||
			      __atomic_load_n(&pgdat->pcp[cpu].thp_count, __ATOMIC_RELAXED)))
			return true;
	}
	return false;
}

/* Every CPU whose lists hold pages drains them itself (through an IPI and
 * a wait), as Linux's __drain_all_pages asks only those (has_pcps): a
 * drain on a machine under pressure, where most lists are empty, costs
 * no interrupt on the CPUs with nothing to give. Only for callers that
 * may block with interrupts on: waiting for another CPU with interrupts
 * off could wait for a CPU that waits for us. */
void drain_all_pages(void)
{
	if (irqs_disabled()) {
		drain_local_pages(NULL);
		return;
	}
	struct cpumask mask = { 0 };
	unsigned cpu;
	for_each_online_cpu(cpu)
		if (cpu_has_pcps(cpu))
			mask.bits |= 1ull << cpu;
	if (mask.bits & ~(1ull << smp_processor_id()))
		smp_call_function_many(&mask, drain_local_pages, NULL, true);
	drain_local_pages(NULL);
}
