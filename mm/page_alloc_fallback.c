/* Grouping pages by mobility (Linux 6.1's anti-fragmentation, mm/page_alloc.c
 * by Mel Gorman): every pageblock (pageblock_order, 2 MiB) has a migrate
 * type, every free block sits on its type's list, and an allocation takes
 * from the lists of its own type first (__rmqueue). When those are empty it
 * falls back to another type's (__rmqueue_fallback), taking the largest
 * free block there so that the next requests of its type find the rest,
 * and claims the whole pageblock when the request is large or of a type
 * that pollutes (unmovable, reclaimable), or when enough of the block is
 * free or alike: so unmovable pages gather in few blocks and the movable
 * ones can be moved out of the others (compaction) to make 2 MiB whole.
 *
 * Also here: the pageblock flags' setters, the highatomic reserve
 * (reserve_highatomic_pageblock, unreserve_highatomic_pageblock) and the
 * isolation of a pageblock (Linux's mm/page_isolation.c,
 * set_migratetype_isolate). Under the node's lock, as the lists.
 *
 * Where mmlab differs: one zone per node, so no ALLOC_NOFRAGMENT (Linux
 * sets it only where a lower zone could serve the request instead), and no
 * watermark boost on a fallback (Linux's boost_watermark wakes kswapd,
 * which reclaims to high + boost). Linux reports each fallback through the
 * mm_page_alloc_extfrag tracepoint only; mmlab counts them per node
 * (pg_data_t) and prints them as its own /proc/vmstat lines
 * (extfrag_fallback, extfrag_change_ownership). */
#include "mm/page_alloc_internal.h"

const char *const migratetype_names[MIGRATE_TYPES] = {
	"Unmovable", "Movable", "Reclaimable", "HighAtomic", "Isolate",
};

/* --- pageblock flags ---------------------------------------------------- */

void set_pfnblock_migratetype(pg_data_t *pgdat, unsigned long pfn, int migratetype)
{
	u8 *f = pfnblock_flags(pgdat, pfn);
	int old = READ_ONCE(*f) & MIGRATETYPE_MASK;
	pgdat->nr_unmergeable_pageblocks += (unsigned long)!migratetype_is_mergeable(migratetype) -
					    (unsigned long)!migratetype_is_mergeable(old);
	WRITE_ONCE(*f, (u8)((READ_ONCE(*f) & ~MIGRATETYPE_MASK) | (unsigned)migratetype));
}

void set_pageblock_migratetype(struct page *page, int migratetype)
{
	set_pfnblock_migratetype(NODE_DATA(page_to_nid(page)), page_to_pfn(page), migratetype);
}

void set_pageblock_skip(struct page *page)
{
	__atomic_or_fetch(pfnblock_flags(NODE_DATA(page_to_nid(page)), page_to_pfn(page)), 1u << PB_migrate_skip,
			  __ATOMIC_RELAXED);
}

void clear_pageblock_skip(struct page *page)
{
	__atomic_and_fetch(pfnblock_flags(NODE_DATA(page_to_nid(page)), page_to_pfn(page)),
			   (u8)~(1u << PB_migrate_skip), __ATOMIC_RELAXED);
}

/* --- moving the free pages of a block ----------------------------------- */

/* What Linux's move_freepages counts as movable (PageLRU or __PageMovable):
 * a user page, anonymous or of a tmpfs file, mapped or in a page cache,
 * which mm/migrate*.c can move. Read without the page's owner's locks: a
 * hint for the stealing heuristics, as in Linux. */
bool page_is_movable_user(const struct page *page)
{
	const struct page *head = compound_head((struct page *)page);
	unsigned long kernel = BIT(PG_reserved) | BIT(PG_buddy) | BIT(PG_pcp) | BIT(PG_slab) | BIT(PG_table) |
			       BIT(PG_large_kmalloc) | BIT(PG_bad) | BIT(PG_hugetlb);
	return !(READ_ONCE(head->flags) & kernel) && READ_ONCE(head->_refcount) > 0 && READ_ONCE(head->mapping);
}

/* Linux's move_freepages_block: every free block of page's pageblock to
 * migratetype's lists; returns the pages moved, and counts the movable
 * pages in use in *num_movable (when not NULL). 0 for a block not wholly
 * on the node. The block's type is the caller's to set. */
unsigned long move_freepages_block(pg_data_t *pgdat, struct page *page, int migratetype, unsigned long *num_movable)
{
	unsigned long start = page_to_pfn(page) & ~(pageblock_nr_pages - 1), end = start + pageblock_nr_pages;
	unsigned long moved = 0;

	if (num_movable)
		*num_movable = 0;
	if (start < pgdat->node_start_pfn || end > pgdat->node_start_pfn + pgdat->node_spanned_pages ||
	    !pfn_valid(start))
		return 0;
	for (unsigned long pfn = start; pfn < end;) {
		struct page *p = pfn_to_page(pfn);
		/* A pageblock may hold two nodes' pages (nodes need not be
		 * 2 MiB aligned, and their spans may interleave): the other
		 * node's free blocks are on its own lists. */
		if (page_to_nid(p) != pgdat->node_id) {
			pfn++;
			continue;
		}
		if (!PageBuddy(p)) {
			if (num_movable && page_is_movable_user(p))
				(*num_movable)++;
			pfn++;
			continue;
		}
		unsigned int order = (unsigned int)p->private;
		move_to_free_list(p, pgdat, order, migratetype);
		pfn += 1ul << order;
		moved += 1ul << order;
	}
	return moved;
}

/* --- fallback and stealing ---------------------------------------------- */

/* Linux 6.1's fallbacks[]: the types an allocation falls back to, in
 * order. */
static const int fallbacks[MIGRATE_PCPTYPES][MIGRATE_PCPTYPES - 1] = {
	[MIGRATE_UNMOVABLE] = { MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE },
	[MIGRATE_MOVABLE] = { MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE },
	[MIGRATE_RECLAIMABLE] = { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE },
};

/* Linux's can_steal_fallback: whether a fallback to a free block of this
 * order (the block found, not the request: Linux passes current_order)
 * may claim the whole pageblock for start_mt. A large free block is
 * mostly free already; an unmovable or reclaimable request had better
 * pollute one block than leave pages in many. */
static bool can_steal_fallback(unsigned int order, int start_mt)
{
	return order >= pageblock_order / 2 || start_mt == MIGRATE_RECLAIMABLE || start_mt == MIGRATE_UNMOVABLE;
}

/* Linux's find_suitable_fallback: the first type in fallbacks[migratetype]
 * with a free block of this order, or -1; *can_steal as above. With
 * only_stealable, only a type that may be stolen from. */
int find_suitable_fallback(const struct free_area *area, unsigned int order, int migratetype, bool only_stealable,
			   bool *can_steal)
{
	if (!area->nr_free)
		return -1;
	*can_steal = false;
	for (int i = 0; i < MIGRATE_PCPTYPES - 1; i++) {
		int fallback_mt = fallbacks[migratetype][i];
		if (list_empty(&area->free_list[fallback_mt]))
			continue;
		if (can_steal_fallback(order, migratetype))
			*can_steal = true;
		if (!only_stealable || *can_steal)
			return fallback_mt;
	}
	return -1;
}

/* Linux's change_pageblock_range: every pageblock of a free block of
 * order >= pageblock_order to migratetype. */
static void change_pageblock_range(pg_data_t *pgdat, struct page *page, unsigned int order, int migratetype)
{
	unsigned long pfn = page_to_pfn(page);
	for (unsigned long n = 1ul << (order - pageblock_order); n--; pfn += pageblock_nr_pages)
		set_pfnblock_migratetype(pgdat, pfn, migratetype);
}

/* Linux's steal_suitable_fallback: page, a free block of another type's
 * list, goes to start_type's list; with whole_block, so do the block's
 * other free pages, and the block becomes start_type's when at least half
 * of it is free or in use by pages alike (for a movable request, movable
 * ones; for another, the pages in a movable block that are not movable). */
static void steal_suitable_fallback(pg_data_t *pgdat, struct page *page, int start_type, bool whole_block)
{
	unsigned int current_order = (unsigned int)page->private;
	int old_block_type = get_pfnblock_migratetype(pgdat, page_to_pfn(page));
	unsigned long free_pages, movable_pages, alike_pages;

	/* "This can happen due to races and we want to prevent broken
	 * highatomic accounting." */
	if (old_block_type == MIGRATE_HIGHATOMIC)
		goto single_page;
	/* Take ownership for orders >= pageblock_order. */
	if (current_order >= pageblock_order) {
		change_pageblock_range(pgdat, page, current_order, start_type);
		pgdat->nr_extfrag_change_ownership++;
		goto single_page;
	}
	if (!whole_block)
		goto single_page;
	free_pages = move_freepages_block(pgdat, page, start_type, &movable_pages);
	/* Moving the whole block can fail at the node's edges. */
	if (!free_pages)
		goto single_page;
	if (start_type == MIGRATE_MOVABLE)
		alike_pages = movable_pages;
	else if (old_block_type == MIGRATE_MOVABLE)
		alike_pages = pageblock_nr_pages - (free_pages + movable_pages);
	else
		alike_pages = 0;
	if (free_pages + alike_pages >= (1ul << (pageblock_order - 1))) {
		set_pfnblock_migratetype(pgdat, page_to_pfn(page), start_type);
		pgdat->nr_extfrag_change_ownership++;
	}
	return;

single_page:
	move_to_free_list(page, pgdat, current_order, start_type);
}

bool __rmqueue_fallback(pg_data_t *pgdat, unsigned int order, int start_migratetype)
{
	int current_order, fallback_mt = -1;
	bool can_steal;

	/* The largest free block of a fallback type: the rest of it serves
	 * the next requests of this type, and no other block gets mixed. */
	for (current_order = MAX_PAGE_ORDER; current_order >= (int)order; current_order--) {
		fallback_mt = find_suitable_fallback(&pgdat->free_area[current_order], (unsigned int)current_order,
						     start_migratetype, false, &can_steal);
		if (fallback_mt == -1)
			continue;
		/* A movable request that may not steal the block takes the
		 * smallest block instead: "We cannot steal all free pages
		 * from the pageblock and the requested migratetype is
		 * movable. In that case it's better to steal and split the
		 * smallest available page instead of the largest available
		 * page, because even if the next movable allocation falls
		 * back into a different pageblock than this one, it won't
		 * cause permanent fragmentation." */
		if (!can_steal && start_migratetype == MIGRATE_MOVABLE && current_order > (int)order)
			goto find_smallest;
		goto do_steal;
	}
	return false;

find_smallest:
	for (current_order = (int)order; current_order <= MAX_PAGE_ORDER; current_order++) {
		fallback_mt = find_suitable_fallback(&pgdat->free_area[current_order], (unsigned int)current_order,
						     start_migratetype, false, &can_steal);
		if (fallback_mt != -1)
			break;
	}

do_steal:;
	struct page *page =
		list_first_entry(&pgdat->free_area[current_order].free_list[fallback_mt], struct page, lru);
	/* Linux's free lists end at order 10 (MAX_ORDER - 1, two pageblocks),
	 * so a fallback claims at most 4 MiB; mmlab's go to order 18, where
	 * all of a node's memory sits at boot. A block larger than both the
	 * request and a pageblock is split first, its upper halves staying
	 * on the fallback type's lists: one pageblock is claimed, not 512. */
	unsigned int target = order > pageblock_order ? order : pageblock_order;
	if ((unsigned int)current_order > target) {
		del_page_from_free_list(page, pgdat, (unsigned int)current_order);
		expand(pgdat, page, target, (unsigned int)current_order, fallback_mt);
		add_to_free_list(page, pgdat, target, fallback_mt);
	}
	steal_suitable_fallback(pgdat, page, start_migratetype, can_steal);
	pgdat->nr_extfrag_fallback++;
	return true;
}

/* --- the highatomic reserve --------------------------------------------- */

/* Linux's reserve_highatomic_pageblock: the pageblock a high-order atomic
 * allocation came from becomes MIGRATE_HIGHATOMIC, kept for such requests,
 * up to a block plus 1% of the node. */
void reserve_highatomic_pageblock(struct page *page, pg_data_t *pgdat)
{
	unsigned long max_managed = pgdat->managed_pages / 100 + pageblock_nr_pages, flags;

	if (READ_ONCE(pgdat->nr_reserved_highatomic) >= max_managed)
		return;
	spin_lock_irqsave(&pgdat->lock, flags);
	int mt = get_pfnblock_migratetype(pgdat, page_to_pfn(page));
	/* Only blocks that may merge with others. */
	if (pgdat->nr_reserved_highatomic < max_managed && migratetype_is_mergeable(mt)) {
		pgdat->nr_reserved_highatomic += pageblock_nr_pages;
		set_pfnblock_migratetype(pgdat, page_to_pfn(page), MIGRATE_HIGHATOMIC);
		move_freepages_block(pgdat, page, MIGRATE_HIGHATOMIC, NULL);
	}
	spin_unlock_irqrestore(&pgdat->lock, flags);
}

/* Linux's unreserve_highatomic_pageblock: gives one reserved block of a
 * node the request may use back to the request's type; unless force, each
 * node keeps its last reserved block. Whether a block was given back. */
bool unreserve_highatomic_pageblock(gfp_t gfp, int nid, const nodemask_t *nodemask, bool force)
{
	pg_data_t *pref = NODE_DATA(nid);
	int migratetype = gfp_migratetype(gfp);
	for (int i = 0; i < pref->nr_fallback; i++) {
		int n = (gfp & __GFP_THISNODE) ? nid : pref->fallback[i];
		pg_data_t *pgdat = NODE_DATA(n);
		unsigned long flags;
		if ((gfp & __GFP_THISNODE) && i)
			break;
		if ((nodemask && !node_isset(n, *nodemask)) ||
		    (!force && READ_ONCE(pgdat->nr_reserved_highatomic) <= pageblock_nr_pages))
			continue;
		spin_lock_irqsave(&pgdat->lock, flags);
		for (unsigned int order = 0; order <= MAX_PAGE_ORDER; order++) {
			struct list_head *list = &pgdat->free_area[order].free_list[MIGRATE_HIGHATOMIC];
			if (list_empty(list))
				continue;
			struct page *page = list_first_entry(list, struct page, lru);
			/* Counted once per block, however many of its free
			 * blocks this loop meets. */
			if (get_pfnblock_migratetype(pgdat, page_to_pfn(page)) == MIGRATE_HIGHATOMIC)
				pgdat->nr_reserved_highatomic -= min(pageblock_nr_pages, pgdat->nr_reserved_highatomic);
			set_pfnblock_migratetype(pgdat, page_to_pfn(page), migratetype);
			if (move_freepages_block(pgdat, page, migratetype, NULL)) {
				spin_unlock_irqrestore(&pgdat->lock, flags);
				return true;
			}
		}
		spin_unlock_irqrestore(&pgdat->lock, flags);
	}
	return false;
}

bool free_block_usable(const pg_data_t *pgdat, unsigned int order)
{
	for (; order <= MAX_PAGE_ORDER; order++)
		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++)
			if (!list_empty(&pgdat->free_area[order].free_list[mt]))
				return true;
	return false;
}

int free_block_for_migratetype(pg_data_t *pgdat, unsigned int order, int migratetype)
{
	for (; order <= MAX_PAGE_ORDER; order++) {
		const struct free_area *area = &pgdat->free_area[order];
		bool can_steal;
		/* Read without the lock, as Linux's __compact_finished. */
		if (!list_empty(&area->free_list[migratetype]))
			return FREE_BLOCK_OWN_TYPE;
		if (find_suitable_fallback(area, order, migratetype, true, &can_steal) != -1)
			return FREE_BLOCK_FALLBACK;
	}
	return FREE_BLOCK_NONE;
}

/* --- isolation (Linux's mm/page_isolation.c) ---------------------------- */

unsigned long __isolate_free_page(struct page *page, unsigned int order)
{
	pg_data_t *pgdat = NODE_DATA(page_to_nid(page));
	unsigned long pfn = page_to_pfn(page), nr = 1ul << order;
	int mt = get_pfnblock_migratetype(pgdat, pfn);

	if (!is_migrate_isolate(mt)) {
		/* Linux: "Obey watermarks as if the page was being
		 * allocated": the min watermark plus the block. */
		if (!node_watermark_ok(pgdat, 0, pgdat->watermark[WMARK_MIN] + nr))
			return 0;
		pgdat->nr_free -= nr;
	}
	del_page_from_free_list(page, pgdat, order);
	/* A block of half a pageblock or more: its pageblocks become
	 * movable (the pages will hold what compaction moves there). */
	if (order >= pageblock_order - 1) {
		for (unsigned long p = pfn; p < pfn + nr; p += pageblock_nr_pages) {
			int t = get_pfnblock_migratetype(pgdat, p);
			if (!is_migrate_isolate(t) && t != MIGRATE_HIGHATOMIC)
				set_pfnblock_migratetype(pgdat, p, MIGRATE_MOVABLE);
		}
	}
	return nr;
}

/* Linux's set_migratetype_isolate without has_unmovable_pages: mmlab
 * isolates a block only for its tests and for compaction's callers, which
 * move what is in use themselves. */
int set_migratetype_isolate(struct page *page)
{
	pg_data_t *pgdat = NODE_DATA(page_to_nid(page));
	unsigned long flags;
	int ret = -EBUSY;

	spin_lock_irqsave(&pgdat->lock, flags);
	int mt = get_pfnblock_migratetype(pgdat, page_to_pfn(page));
	if (!is_migrate_isolate(mt)) {
		/* The pages leave the free count (Linux's
		 * __mod_zone_freepage_state(zone, -nr_pages, mt)). */
		unsigned long moved = move_freepages_block(pgdat, page, MIGRATE_ISOLATE, NULL);
		set_pfnblock_migratetype(pgdat, page_to_pfn(page), MIGRATE_ISOLATE);
		pgdat->nr_isolate_pageblock++;
		pgdat->nr_free -= moved;
		ret = 0;
	}
	spin_unlock_irqrestore(&pgdat->lock, flags);
	/* Pages on per-CPU lists go to the isolate lists when drained. */
	if (!ret)
		drain_all_pages();
	return ret;
}

void unset_migratetype_isolate(struct page *page, int migratetype)
{
	pg_data_t *pgdat = NODE_DATA(page_to_nid(page));
	unsigned long flags, start = page_to_pfn(page) & ~(pageblock_nr_pages - 1);

	spin_lock_irqsave(&pgdat->lock, flags);
	if (!is_migrate_isolate(get_pfnblock_migratetype(pgdat, start))) {
		spin_unlock_irqrestore(&pgdat->lock, flags);
		return;
	}
	/* A free block of the whole pageblock could not merge past it while
	 * isolated: freed again, it merges now (Linux's isolate_page and
	 * __putback_isolated_page). */
	struct page *head = pfn_to_page(start);
	set_pfnblock_migratetype(pgdat, page_to_pfn(page), migratetype);
	pgdat->nr_isolate_pageblock--;
	if (PageBuddy(head) && head->private >= pageblock_order) {
		unsigned int order = (unsigned int)head->private;
		del_page_from_free_list(head, pgdat, order);
		free_one_page(head, start, pgdat, order, migratetype);
	} else {
		pgdat->nr_free += move_freepages_block(pgdat, page, migratetype, NULL);
	}
	spin_unlock_irqrestore(&pgdat->lock, flags);
}
