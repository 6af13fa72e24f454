/* The floor of the hot order-0 pair, a baseline bench_page_alloc times
 * beside mmlab's pair in every run.
 *
 * What an order-0 pair costs any allocator built on Linux's per-CPU lists,
 * whatever it looks up first: interrupts off and on again, this CPU's list
 * found, the page unlinked from a doubly linked list (without reading its
 * prev, as mmlab does) and linked back, the list's count (for its high
 * mark), the page's PG_pcp flag, reference and map counts and private
 * word, the NUMA hit counter. mmlab's fast paths (mm/page_alloc.c:
 * rmqueue_pcplist_fast and __free_pages) make exactly these operations on
 * the same structures, plus the lookups that choose the list: the GFP
 * flags, poisoning and fault injection, the node, its watermark and its
 * fallback order, the block's migrate type. Timed beside them, the model
 * says how much of the hot pair is the structure and how much the
 * lookups; Linux 6.1 adds a per-CPU list lock to the same operations. */
#include "kernel/spinlock.h"
#include "mm/page_alloc.h"
#include "tests/host/bench_page_alloc.h"
#include "tests/host/shim.h"

/* The functions start a cache line, as the naive list's do. */
static struct per_cpu_pages floor_pcp[NR_CPUS];
static struct per_cpu_nodestat floor_stats[NR_CPUS];
static struct page floor_pages[64] __attribute__((aligned(64)));

__attribute__((noinline, aligned(64))) static struct page *floor_alloc(void)
{
	unsigned long flags;
	struct page *page = NULL;
	local_irq_save(flags);
	unsigned cpu = smp_processor_id();
	struct per_cpu_pages *pcp = &floor_pcp[cpu];
	struct list_head *list = &pcp->lists[MIGRATE_MOVABLE];
	if (!list_empty(list)) {
		page = list_first_entry(list, struct page, lru);
		struct list_head *next = page->lru.next;
		list->next = next;
		next->prev = list;
		pcp->count--;
		page->flags &= ~(1ul << PG_pcp);
		page->_refcount = 1;
		page->_mapcount = -1;
		floor_stats[cpu].numa_events[NUMA_HIT]++;
	}
	local_irq_restore(flags);
	return page;
}

__attribute__((noinline, aligned(64))) static void floor_free(struct page *page)
{
	unsigned long flags;
	local_irq_save(flags);
	struct per_cpu_pages *pcp = &floor_pcp[smp_processor_id()];
	if (pcp->count < pcp->high) {
		page->private = 0;
		page->_refcount = 0;
		page->_mapcount = -1;
		page->flags |= 1ul << PG_pcp;
		list_add(&page->lru, &pcp->lists[MIGRATE_MOVABLE]);
		pcp->count++;
	}
	local_irq_restore(flags);
}

void floor_init(void)
{
	for (unsigned c = 0; c < NR_CPUS; c++) {
		INIT_LIST_HEAD(&floor_pcp[c].lists[MIGRATE_MOVABLE]);
		floor_pcp[c].high = ARRAY_SIZE(floor_pages); /* room for all */
	}
	for (unsigned i = 0; i < ARRAY_SIZE(floor_pages); i++)
		floor_free(&floor_pages[i]);
}

/* One timed pass of the floor model (the hot pair's shape): ns per pair. */
__attribute__((noinline)) double run_floor(long iters)
{
	u64 t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		struct page *p = floor_alloc();
		sink(p);
		floor_free(p);
	}
	return (double)(now_ns() - t0) / (double)iters;
}

