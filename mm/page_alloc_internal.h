/* What the pieces of the page allocator share, and only they include: the
 * free-list and buddy primitives, the per-CPU list take and put, the checks
 * made on every allocation and free, and the functions one piece calls in
 * another. Everyone else uses mm/page_alloc.h.
 *
 *   page_alloc.c        allocation policy, slow path, alloc/free entry points
 *   page_alloc_pcp.c    per-CPU lists: batch refill and drain, the IPI drain
 *   page_alloc_checks.c bad-page checks and reports, poisoning
 *   page_alloc_init.c   node setup, fallback lists, boot memory, watermarks
 *   page_alloc_stats.c  free counts, buddyinfo/numastat/free areas, failure report
 *   shrinker.c          the shrinkers the slow path calls
 *
 * The primitives are static inline here, not functions in one of the files,
 * because the hot paths are built from them (__alloc_pages, __free_pages,
 * put_page, the per-CPU refill and drain, boot-time freeing) and must inline
 * them across the files exactly as they did in one.
 *
 * Invariants kept here: under the node's lock, nr_free is the pages in the
 * node's free_area, free_area[k].nr_free the blocks on list k, and bit k of
 * free_mask is set exactly when list k is not empty; a free block's first
 * page is PG_buddy with private == its order. A page on a per-CPU list is
 * PG_pcp with refcount 0, pcp->count is the list's length (thp_count the
 * THP-order list's, in blocks), and the lists are touched by their own CPU
 * only, with interrupts off. */
#ifndef MM_PAGE_ALLOC_INTERNAL_H
#define MM_PAGE_ALLOC_INTERNAL_H

#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/page_alloc.h"

/* Per-CPU list sizes: big enough that alloc/free loops stay off the node
 * lock, small enough that little memory hides in them. */
#define PCP_BATCH 63
#define PCP_HIGH (6 * PCP_BATCH)
/* The THP-order list, in blocks. Linux 6.1 refills it with
 * max(batch >> order, 2) blocks and drains it by the pages of all the
 * CPU's lists against a high of thousands of pages; mmlab's nodes are
 * small (tens of MiB on some machines), so a CPU keeps at most one 2 MiB
 * block per node, and a refill takes only the one it hands out. */
#define PCP_BATCH_THP 1
#define PCP_HIGH_THP 1

#define BIT(n) (1ul << (n))
/* The fast paths are inlined into __alloc_pages and __free_pages; what
 * is rare stays out of line so the fast paths need no saved registers. */
#ifndef __always_inline /* glibc's <sys/cdefs.h> has one (host builds) */
#define __always_inline inline __attribute__((always_inline))
#endif

/* --- bad pages (page_alloc_checks.c) ------------------------------------ */

/* Reports a page that fails a check. The caller decides what happens to it;
 * the report says which. */
void bad_page(struct page *page, const char *reason, unsigned long caller, const char *fate);
/* Takes a free page that failed its check out of circulation for good. */
void retire_page(struct page *page, pg_data_t *pgdat);
/* What a page about to be freed must look like; returns the reason it is
 * not, or NULL. */
const char *free_page_problem(struct page *page, unsigned int order);
/* The same for the tail pages of a block (page_poison=on only); *bad is
 * the page that fails. */
const char *free_tail_problem(struct page *page, unsigned int order, struct page **bad);
/* Reports the first byte of a block that lost its PAGE_POISON pattern. */
void check_poison(struct page *page, unsigned int order);

/* --- free lists --------------------------------------------------------- */

static inline void set_buddy_order(struct page *page, unsigned int order)
{
	page->private = order;
	page->flags |= BIT(PG_buddy);
}

static inline void add_to_free_list(struct page *page, pg_data_t *pgdat, unsigned int order)
{
	struct free_area *area = &pgdat->free_area[order];
	set_buddy_order(page, order);
	list_add(&page->lru, &area->free_list);
	area->nr_free++;
	pgdat->nr_free += 1ul << order;
	pgdat->free_mask |= BIT(order);
}

static inline void del_page_from_free_list(struct page *page, pg_data_t *pgdat, unsigned int order)
{
	struct free_area *area = &pgdat->free_area[order];
	list_del(&page->lru);
	page->flags &= ~BIT(PG_buddy);
	page->private = 0;
	area->nr_free--;
	pgdat->nr_free -= 1ul << order;
	if (list_empty(&area->free_list))
		pgdat->free_mask &= ~BIT(order);
}

/* --- the buddy layer ---------------------------------------------------- */

/* Puts the upper halves of a block of order high back until the lower part
 * has order low. The caller took the block from the lowest non-empty list
 * at or above low (rmqueue_smallest), so every list from low to high - 1
 * is empty: each half becomes the only block of its list. */
static inline void expand(pg_data_t *pgdat, struct page *page, unsigned int low, unsigned int high)
{
	/* Stores only, no loads: the halves' flags are written, not read (the
	 * tail pages of a free block hold only the node bits; a read would
	 * miss the cache at every level), and an empty list's head need not be
	 * read to link its one block. So no level waits for another. nr_free
	 * is the caller's; every list from low to high - 1 gets a block, so
	 * their free_mask bits are set at once. */
	unsigned long buddy_flags = (page->flags & ~PAGE_FLAGS_MASK) | BIT(PG_buddy);
	unsigned long size = 1ul << high;
	struct free_area *area = &pgdat->free_area[high];
	pgdat->free_mask |= size - BIT(low);
	while (high > low) {
		high--;
		area--;
		size >>= 1;
		struct page *half = page + size;
		half->private = high;
		half->flags = buddy_flags;
		half->lru.next = half->lru.prev = &area->free_list;
		area->free_list.next = area->free_list.prev = &half->lru;
		area->nr_free = 1;
	}
}

static __always_inline struct page *rmqueue_smallest(pg_data_t *pgdat, unsigned int order)
{
	unsigned long mask = pgdat->free_mask >> order << order;
	if (!mask)
		return NULL;
	unsigned int current_order = (unsigned int)__builtin_ctzl(mask);
	struct page *page = list_first_entry(&pgdat->free_area[current_order].free_list, struct page, lru);
	struct free_area *area = &pgdat->free_area[current_order];
	__list_del_entry(&page->lru); /* the caller's to set */
	page->flags &= ~BIT(PG_buddy);
	page->private = 0;
	area->nr_free--;
	if (list_empty(&area->free_list))
		pgdat->free_mask &= ~BIT(current_order);
	expand(pgdat, page, order, current_order);
	pgdat->nr_free -= 1ul << order;
	return page;
}

/* The buddy of a free block may only be merged with when it is itself a free
 * block of the same order on the same node. */
static inline bool page_is_buddy(const struct page *buddy, unsigned int order, unsigned long node_bits)
{
	return buddy->flags == (node_bits | BIT(PG_buddy)) && buddy->private == order;
}

static __always_inline void free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order)
{
	unsigned long node_bits = page->flags & ~PAGE_FLAGS_MASK, emptied = 0;
	unsigned long size = 1ul << order; /* the block's pages, and BIT(order) */
	struct free_area *area = &pgdat->free_area[order];

	/* Merging moves pages between orders, not in or out: nr_free changes
	 * by this block only. */
	pgdat->nr_free += size;
	for (; order < MAX_PAGE_ORDER; order++, area++, size <<= 1) {
		unsigned long buddy_pfn = pfn ^ size;
		/* Below section size the buddy is in pfn's own section, so
		 * it has a struct page on the node's span. Above, a buddy off
		 * the span is another node's page (or none): its struct page
		 * is not read. (It would be one line more in the L1 set where
		 * a large block's halves already meet: their struct pages lie
		 * 2^k * 64 bytes apart, all in one set from 4 KiB on.) */
		if (order >= PFN_SECTION_SHIFT &&
		    (buddy_pfn - pgdat->node_start_pfn >= pgdat->node_spanned_pages || !pfn_valid(buddy_pfn)))
			break;
		struct page *buddy = pfn_to_page(buddy_pfn);
		if (!page_is_buddy(buddy, order, node_bits))
			break;
		/* nr_free counts the list's blocks. A buddy alone on its list
		 * (as every half a split left is) is unlinked by emptying the
		 * head, without reading its links; the list's free_mask bit
		 * is cleared after the loop. */
		if (!--area->nr_free) {
			INIT_LIST_HEAD(&area->free_list);
			emptied |= size;
		} else {
			__list_del_entry(&buddy->lru);
		}
		/* A merged buddy becomes a tail page: only its node bits,
		 * private 0; its stale lru links are never read. */
		buddy->flags = node_bits;
		buddy->private = 0; /* what a fresh page must show (and PTE tables reuse) */
		pfn &= buddy_pfn;
	}
	page = pfn_to_page(pfn);
	set_buddy_order(page, order);
	list_add(&page->lru, &area->free_list);
	area->nr_free++;
	pgdat->free_mask = (pgdat->free_mask & ~emptied) | size;
}

/* --- the checks on every free and every allocation ---------------------- */

/* Linux's is_check_pages_enabled() (6.4 on): the struct page checks of
 * every allocation and free are debug checks, made with CONFIG_DEBUG_VM
 * (the kernel make test boots, and the host tests) or with page poisoning
 * on; a kernel built without CONFIG_DEBUG_VM (the benchmark boots) makes
 * them only with page_poison=on, as Linux makes them only under a debug
 * option. Without them a bad free goes unreported, as in Linux. */
static __always_inline bool is_check_pages_enabled(void)
{
#ifdef CONFIG_DEBUG_VM
	return true;
#else
	return page_poisoning;
#endif
}

/* What an order-0 page being freed must look like, the common case's test:
 * no flags, one reference, not mapped, in no page cache or anon_vma (a
 * NULL mapping, which the page-owner map relies on). */
static __always_inline bool free_page_looks_right(const struct page *page)
{
	return (page->flags & PAGE_FLAGS_MASK) == 0 && page->_refcount == 1 && page->_mapcount == -1 &&
	       !page->mapping;
}

/* The fast halves: inline in every free and allocation; what is found is
 * reported by page_alloc_checks.c. */
static inline bool free_pages_prepare(struct page *page, unsigned int order, unsigned long caller)
{
	/* Fast check: an order-0 page holds no flags; a head holds PG_head. */
	unsigned long expect = order ? BIT(PG_head) : 0;
	if (is_check_pages_enabled() &&
	    unlikely((page->flags & PAGE_FLAGS_MASK) != expect || page->_refcount != 1 ||
		     page->_mapcount != -1 || page->mapping || (order && page->private != order) ||
		     (page_to_pfn(page) & ((1ul << order) - 1)))) {
		const char *why = free_page_problem(page, order);
		if (why) {
			bad_page(page, why, caller, "the page was not freed");
			return false;
		}
	}
	if (unlikely(page_poisoning) && order) {
		struct page *tail;
		const char *why = free_tail_problem(page, order, &tail);
		if (why) {
			bad_page(tail, why, caller, "the block was not freed");
			return false;
		}
	}
	page->flags &= ~PAGE_FLAGS_MASK;
	page->private = 0;
	page->_refcount = 0;
	page->_mapcount = -1; /* with _refcount: see prep_new_page */
	if (is_check_pages_enabled())
		page->freed_by = caller; /* for the reports of the checks */
	if (unlikely(page_poisoning))
		memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	return true;
}

/* A page just taken from a free list: anything set that should not be means
 * memory corruption (or a use after free). */
static inline bool check_new_page(struct page *page)
{
	if (!is_check_pages_enabled())
		return true;
	if (likely((page->flags & PAGE_FLAGS_MASK) == 0 && page->_refcount == 0 &&
		   page->_mapcount == -1 && !page->mapping))
		return true;
	bad_page(page, "corrupted while free", 0, "it is taken out of circulation");
	return false;
}

/* Frees brought the node back above its high watermark: kswapd may try
 * it again (mm/kswapd.c). Called under the node's lock by the frees that
 * take it (the per-CPU lists' batches, the blocks above their orders):
 * the per-page fast path pays nothing. */
static inline void note_node_refilled(pg_data_t *pgdat)
{
	if (unlikely(pgdat->kswapd_failures) && pgdat->nr_free > pgdat->watermark[WMARK_HIGH])
		pgdat->kswapd_failures = 0;
}

/* --- per-CPU lists ------------------------------------------------------ */

/* The orders with per-CPU lists (Linux 6.1's pcp_allowed_order keeps
 * orders up to PAGE_ALLOC_COSTLY_ORDER too; mmlab only 0 and the THP
 * order). */
static __always_inline bool pcp_allowed_order(unsigned int order)
{
	return order == 0 || order == pageblock_order;
}

/* Refill and drain in batches (page_alloc_pcp.c); they take the node's
 * lock. count is in pages for order 0, in blocks for pageblock_order. */
int rmqueue_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order);
void free_pcppages_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order);
/* Gives this CPU's per-CPU pages, on every node, back to the buddy lists. */
void drain_local_pages(void *unused);

/* Take and put, inlined into rmqueue and the free paths, for an order
 * pcp_allowed_order allows, a constant at every call. (The order-0 fast
 * paths in __alloc_pages and __free_pages repeat them on purpose.) A block
 * on the THP-order list is PG_pcp with private == its order, as a buddy
 * block shows its order; its tail pages are plain, as in a buddy block. */
static __always_inline struct page *rmqueue_pcplist(pg_data_t *pgdat, unsigned int order)
{
	unsigned long flags;
	struct page *page;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	struct list_head *list = order ? &pcp->thp_list : &pcp->list;
	for (;;) {
		if (unlikely(list_empty(list)) &&
		    !rmqueue_bulk(pgdat, pcp, order ? PCP_BATCH_THP : pcp->batch, order)) {
			local_irq_restore(flags);
			return NULL;
		}
		page = list_first_entry(list, struct page, lru);
		__list_del_entry(&page->lru); /* the new owner's to set */
		if (order) {
			pcp->thp_count--;
			page->private = 0;
		} else {
			pcp->count--;
		}
		page->flags &= ~BIT(PG_pcp);
		if (likely(check_new_page(page)))
			break;
		/* Only the head was checked: give back the rest, keep it out. */
		spin_lock(&pgdat->lock);
		retire_page(page, pgdat);
		for (unsigned int o = 0; o < order; o++)
			free_one_page(page + (1ul << o), page_to_pfn(page) + (1ul << o), pgdat, o);
		spin_unlock(&pgdat->lock);
	}
	local_irq_restore(flags);
	return page;
}

static __always_inline void free_unref_page(struct page *page, pg_data_t *pgdat, unsigned int order)
{
	unsigned long flags;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	page->flags |= BIT(PG_pcp);
	if (order) {
		page->private = order;
		list_add(&page->lru, &pcp->thp_list);
		if (unlikely(++pcp->thp_count > PCP_HIGH_THP))
			free_pcppages_bulk(pgdat, pcp, PCP_BATCH_THP, order);
	} else {
		list_add(&page->lru, &pcp->list);
		if (unlikely(++pcp->count > pcp->high))
			free_pcppages_bulk(pgdat, pcp, pcp->batch, 0);
	}
	local_irq_restore(flags);
}

/* --- reports (page_alloc_stats.c) --------------------------------------- */

/* "page allocation failure: ..." with the nodemask and the free pages of
 * every node. */
void warn_alloc(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask);
/* warn_alloc's rate limit (Linux's nopage_rs), for tests. */
struct ratelimit_state;
extern struct ratelimit_state nopage_rs;

#endif
