/* What the pieces of the page allocator share, and only they include: the
 * free-list and buddy primitives, the per-CPU list take and put, the checks
 * made on every allocation and free, and the functions one piece calls in
 * another. Everyone else uses mm/page_alloc.h.
 *
 *   page_alloc.c        allocation policy, slow path, alloc/free entry points
 *   page_alloc_pcp.c    per-CPU lists: batch refill and drain, the IPI drain
 *   page_alloc_checks.c bad-page checks and reports, poisoning
 *   page_alloc_init.c   node setup, fallback lists, boot memory, watermarks
 *   page_alloc_fallback.c migrate types: pageblock flags, fallback and
 *                       stealing, the highatomic reserve, isolation
 *   page_alloc_stats.c  free counts, buddyinfo/numastat/free areas, failure report
 *   shrinker.c          the shrinkers the slow path calls
 *
 * The primitives are static inline here, not functions in one of the files,
 * because the hot paths are built from them (__alloc_pages, __free_pages,
 * put_page, the per-CPU refill and drain, boot-time freeing) and must inline
 * them across the files exactly as they did in one.
 *
 * Invariants kept here: under the node's lock, nr_free is the pages in the
 * node's free_area, free_area[k].nr_free the blocks on the lists of order k (one per
 * migrate type), and bit k of free_mask is set exactly when one of them is
 * not empty; a free block's first page is PG_buddy with private == its
 * order; nr_free counts the pages of every list but MIGRATE_ISOLATE's.
 * Every free block of a MIGRATE_ISOLATE pageblock is on an isolate list.
 * A page on a per-CPU list is PG_pcp with refcount 0, pcp->count is the
 * order-0 lists' length (thp_count the THP-order list's, in blocks), and
 * the lists are touched by their own CPU only, with interrupts off. */
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

/* The list primitives move blocks between lists and orders; the pages
 * counted free (pgdat->nr_free) are their callers' to change, as Linux's
 * __mod_zone_freepage_state beside them. */
static inline void add_to_free_list(struct page *page, pg_data_t *pgdat, unsigned int order, int migratetype)
{
	struct free_area *area = &pgdat->free_area[order];
	set_buddy_order(page, order);
	list_add(&page->lru, &area->free_list[migratetype]);
	area->nr_free++;
	pgdat->free_mask |= BIT(order);
}

static inline void del_page_from_free_list(struct page *page, pg_data_t *pgdat, unsigned int order)
{
	struct free_area *area = &pgdat->free_area[order];
	list_del(&page->lru);
	page->flags &= ~BIT(PG_buddy);
	page->private = 0;
	if (!--area->nr_free)
		pgdat->free_mask &= ~BIT(order);
}

/* Linux's move_to_free_list: a free block to the list of another type,
 * same order. */
static inline void move_to_free_list(struct page *page, pg_data_t *pgdat, unsigned int order, int migratetype)
{
	list_move(&page->lru, &pgdat->free_area[order].free_list[migratetype]);
}

static inline bool is_migrate_isolate(int migratetype)
{
	return migratetype == MIGRATE_ISOLATE;
}

/* Linux's migratetype_is_mergeable: blocks of these types may merge with
 * a buddy of another of them across a pageblock's edge. */
static inline bool migratetype_is_mergeable(int migratetype)
{
	return migratetype < MIGRATE_PCPTYPES;
}

/* --- the buddy layer ---------------------------------------------------- */

/* Puts the upper halves of a block of order high back on the lists of
 * migratetype until the lower part has order low (Linux's expand). */
static inline void expand(pg_data_t *pgdat, struct page *page, unsigned int low, unsigned int high, int migratetype)
{
	unsigned long size = 1ul << high;
	while (high > low) {
		high--;
		size >>= 1;
		add_to_free_list(page + size, pgdat, high, migratetype);
	}
}

/* expand where migratetype's lists of orders low to high - 1 are known to
 * be empty, as they are when the block came from the smallest non-empty
 * list of that type (rmqueue_smallest). Stores only, no loads: the
 * halves' flags are written, not read (the tail pages of a free block
 * hold only the node bits, and a read would miss the cache at every
 * level), and an empty list's head need not be read to link its one
 * block. So no level waits for another, and the lock taken after the
 * split waits for fewer stores. */
static __always_inline void expand_to_empty_lists(pg_data_t *pgdat, struct page *page, unsigned int low,
						  unsigned int high, int migratetype)
{
	unsigned long buddy_flags = (page->flags & ~PAGE_FLAGS_MASK) | BIT(PG_buddy);
	unsigned long size = 1ul << high;
	struct free_area *area = &pgdat->free_area[high];
	pgdat->free_mask |= size - BIT(low);
	while (high > low) {
		high--;
		area--;
		size >>= 1;
		struct page *half = page + size;
		struct list_head *list = &area->free_list[migratetype];
		half->private = high;
		half->flags = buddy_flags;
		half->lru.next = half->lru.prev = list;
		list->next = list->prev = &half->lru;
		area->nr_free++;
	}
}

/* Linux's __rmqueue_smallest: the smallest block of migratetype's lists
 * that fits, split down to order. nr_free is the caller's. */
static __always_inline struct page *rmqueue_smallest(pg_data_t *pgdat, unsigned int order, int migratetype)
{
	unsigned long mask = pgdat->free_mask >> order << order;
	while (mask) {
		unsigned int current_order = (unsigned int)__builtin_ctzl(mask);
		struct list_head *list = &pgdat->free_area[current_order].free_list[migratetype];
		mask &= mask - 1;
		if (list_empty(list))
			continue;
		struct page *page = list_first_entry(list, struct page, lru);
		del_page_from_free_list(page, pgdat, current_order);
		expand_to_empty_lists(pgdat, page, order, current_order, migratetype);
		return page;
	}
	return NULL;
}

/* Whether a block's type, or that of one of the node's blocks, can stop a
 * merge across a pageblock's edge. When not, no buddy's type is read. */
static inline bool types_may_not_merge(const pg_data_t *pgdat, int migratetype)
{
	return !migratetype_is_mergeable(migratetype) || pgdat->nr_unmergeable_pageblocks;
}

/* What a buddy of order >= pageblock_order needs besides being a free
 * block of its order on the node. Below section size the buddy is in
 * pfn's own section, so it has a struct page on the node's span; from
 * section size on it may be off the span, another node's page (or none),
 * whose struct page (and block type) is not read. Across a pageblock's
 * edge, the types must be the same or both mergeable (never
 * MIGRATE_ISOLATE or MIGRATE_HIGHATOMIC with another). */
static __always_inline bool buddy_may_merge(pg_data_t *pgdat, unsigned long buddy_pfn, unsigned int order,
					    int migratetype)
{
	if (order >= PFN_SECTION_SHIFT &&
	    (buddy_pfn - pgdat->node_start_pfn >= pgdat->node_spanned_pages || !pfn_valid(buddy_pfn)))
		return false;
	if (!types_may_not_merge(pgdat, migratetype))
		return true;
	int buddy_mt = get_pfnblock_migratetype(pgdat, buddy_pfn);
	return migratetype == buddy_mt || (migratetype_is_mergeable(migratetype) && migratetype_is_mergeable(buddy_mt));
}

/* Linux's __free_one_page: the block goes on migratetype's list after
 * merging with its free buddies. Within a pageblock buddies merge
 * whatever list they are on (a fallback that did not claim the block
 * leaves free pages of it on another type's list); across a pageblock's
 * edge, see buddy_may_merge. Pages of MIGRATE_ISOLATE are not counted in
 * nr_free. */
static __always_inline void free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order,
					  int migratetype)
{
	/* A free block's first page: its node bits and PG_buddy. */
	unsigned long buddy_flags = (page->flags & ~PAGE_FLAGS_MASK) | BIT(PG_buddy);
	unsigned long size = 1ul << order; /* the block's pages, and BIT(order) */
	struct free_area *area = &pgdat->free_area[order];
	/* The order from which buddy_may_merge has something to check: one
	 * test per level below it. */
	unsigned int check_from = types_may_not_merge(pgdat, migratetype) ? pageblock_order : PFN_SECTION_SHIFT;

	/* Merging moves pages between orders, not in or out: nr_free changes
	 * by this block only. */
	if (likely(!is_migrate_isolate(migratetype)))
		pgdat->nr_free += size;
	for (; order < MAX_PAGE_ORDER; order++, area++, size <<= 1) {
		unsigned long buddy_pfn = pfn ^ size;
		if (unlikely(order >= check_from) && !buddy_may_merge(pgdat, buddy_pfn, order, migratetype))
			break;
		struct page *buddy = pfn_to_page(buddy_pfn);
		/* Linux's page_is_buddy: the buddy must itself be a free block
		 * of this order on this node. (Written as the test for not:
		 * GCC 12 lays the loop out in 4 fewer instructions a level
		 * than for the negated page_is_buddy.) */
		if (buddy->flags != buddy_flags || buddy->private != order)
			break;
		/* del_page_from_free_list, without the writes the tail page's
		 * own make: a merged buddy becomes a tail page, only its node
		 * bits and private 0 (what a fresh page must show, and PTE
		 * tables reuse); its stale links are never read. */
		__list_del_entry(&buddy->lru);
		if (!--area->nr_free)
			pgdat->free_mask &= ~size;
		buddy->flags = buddy_flags & ~BIT(PG_buddy);
		buddy->private = 0;
		pfn &= buddy_pfn;
	}
	add_to_free_list(pfn_to_page(pfn), pgdat, order, migratetype);
}

/* --- migrate types (page_alloc_fallback.c) ------------------------------ */

/* What Linux's move_freepages counts as movable: a user page mm/migrate*.c
 * can move. */
bool page_is_movable_user(const struct page *page);
/* set_pageblock_migratetype for a pfn of pgdat (which may be a test's
 * private pg_data_t). */
void set_pfnblock_migratetype(pg_data_t *pgdat, unsigned long pfn, int migratetype);
unsigned long move_freepages_block(pg_data_t *pgdat, struct page *page, int migratetype, unsigned long *num_movable);
int find_suitable_fallback(const struct free_area *area, unsigned int order, int migratetype, bool only_stealable,
			   bool *can_steal);
void reserve_highatomic_pageblock(struct page *page, pg_data_t *pgdat);
bool unreserve_highatomic_pageblock(gfp_t gfp, int nid, const nodemask_t *nodemask, bool force);

/* Linux's __rmqueue: the smallest block of the requested type, else one
 * taken from another type's lists (__rmqueue_fallback,
 * page_alloc_fallback.c), which may claim its whole pageblock. Under the
 * node's lock; nr_free is counted here. */
bool __rmqueue_fallback(pg_data_t *pgdat, unsigned int order, int start_migratetype);
static __always_inline struct page *__rmqueue(pg_data_t *pgdat, unsigned int order, int migratetype)
{
	struct page *page;
	for (;;) {
		page = rmqueue_smallest(pgdat, order, migratetype);
		if (likely(page) || !__rmqueue_fallback(pgdat, order, migratetype))
			break;
	}
	if (page)
		pgdat->nr_free -= 1ul << order;
	return page;
}

/* The free block of a pfn being freed goes to the list of its pageblock's
 * type (Linux's get_pfnblock_migratetype at free). */
static __always_inline void free_one_page_pfnblock(struct page *page, unsigned long pfn, pg_data_t *pgdat,
						   unsigned int order)
{
	free_one_page(page, pfn, pgdat, order, get_pfnblock_migratetype(pgdat, pfn));
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

/* The one flag a block being freed may hold beyond PG_head: PG_poison_kept,
 * with poisoning on, when it was allocated __GFP_UNTOUCHED (mm/gfp.h);
 * such a block keeps its pattern. 0 or that bit. */
static __always_inline unsigned long poison_kept_flag(const struct page *page)
{
	return unlikely(page_poisoning) ? page->flags & BIT(PG_poison_kept) : 0;
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
	/* Fast check: an order-0 page holds no flags; a head holds PG_head;
	 * either may hold PG_poison_kept. */
	unsigned long expect = (order ? BIT(PG_head) : 0) | poison_kept_flag(page);
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
	if (unlikely(page_poisoning) && !(expect & BIT(PG_poison_kept)))
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

/* Linux 6.1's order_to_pindex, for the orders pcp_allowed_order allows:
 * order 0 has a list per type, the THP order one list. */
static __always_inline unsigned int order_to_pindex(int migratetype, unsigned int order)
{
	return order ? PCP_THP_INDEX : (unsigned int)migratetype;
}

/* Refill and drain in batches (page_alloc_pcp.c); they take the node's
 * lock. count is in pages for order 0, in blocks for pageblock_order;
 * migratetype is the refill's request (the THP list takes blocks of any
 * type). */
int rmqueue_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order, int migratetype);
void free_pcppages_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count, unsigned int order);

/* Take and put, inlined into rmqueue and the free paths, for an order
 * pcp_allowed_order allows, a constant at every call. (The order-0 fast
 * paths in page_alloc.c repeat them on purpose.) A block on the THP-order
 * list is PG_pcp with private == its order, as a buddy block shows its
 * order; its tail pages are plain, as in a buddy block. */
static __always_inline struct page *rmqueue_pcplist(pg_data_t *pgdat, unsigned int order, int migratetype)
{
	unsigned long flags;
	struct page *page;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	struct list_head *list = &pcp->lists[order_to_pindex(migratetype, order)];
	for (;;) {
		if (unlikely(list_empty(list)) &&
		    !rmqueue_bulk(pgdat, pcp, order ? PCP_BATCH_THP : pcp->batch, order, migratetype)) {
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
			free_one_page_pfnblock(page + (1ul << o), page_to_pfn(page) + (1ul << o), pgdat, o);
		spin_unlock(&pgdat->lock);
	}
	local_irq_restore(flags);
	return page;
}

/* migratetype is the block's, < MIGRATE_PCPTYPES (Linux's free_unref_page
 * sends an isolated block's pages to the buddy lists and a highatomic
 * block's to the movable list). */
static __always_inline void free_unref_page(struct page *page, pg_data_t *pgdat, unsigned int order, int migratetype)
{
	unsigned long flags;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	page->flags |= BIT(PG_pcp);
	if (order) {
		page->private = order;
		list_add(&page->lru, &pcp->lists[PCP_THP_INDEX]);
		if (unlikely(++pcp->thp_count > PCP_HIGH_THP))
			free_pcppages_bulk(pgdat, pcp, PCP_BATCH_THP, order);
	} else {
		list_add(&page->lru, &pcp->lists[migratetype]);
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
