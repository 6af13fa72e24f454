/* Compaction's two scanners (Linux 6.1's mm/compaction.c:
 * isolate_migratepages, isolate_migratepages_block, isolate_freepages,
 * isolate_freepages_block and their suitability tests): the migration
 * scanner walks a node's pageblocks from the bottom and isolates the
 * movable pages in use there; the free scanner walks from the top and
 * takes free pages off the buddy lists as the places to move them to.
 * Both skip blocks whose skip bit is set (PB_migrate_skip: nothing to
 * isolate there the last time) unless told to ignore the hints, and set
 * it on a block they scanned whole and found nothing in.
 *
 * Which pages the migration scanner takes: 4 KiB pages on the LRU,
 * anonymous ones and those of a page cache (tmpfs files, shared
 * anonymous memory, System V segments: mm/migrate.c's
 * migrate_isolated_page moves them, every mapping through the reverse
 * map, the anon_vma's or the file's i_mmap), unevictable (mlocked) ones
 * only with vm.compact_unevictable_allowed, page-cache ones only when
 * the request may enter the file system (__GFP_FS). As in Linux,
 * compound pages (THPs, hugetlb pages) are skipped whole
 * (Linux 6.1 moves them only for alloc_contig_range), and there are no
 * non-LRU movable pages (Linux's movable_operations: zsmalloc,
 * balloons). Linux's fast_isolate_freepages and fast_find_migrateblock
 * (searching the free lists for a starting block) are not built: the
 * scanners walk every block from their cached positions, which on
 * mmlab's node sizes costs less than the rest of a compaction
 * (docs/compaction.md has the measurements).
 *
 * Locking: a page is isolated from the LRU under its node's lru_lock
 * with a reference taken only if its count is not 0 (a page being freed
 * is its freer's: put_page keeps the count 0 until the page is off the
 * lists); free blocks are taken under the node's lock. The scanners'
 * positions and skip bits are hints, read and written without a lock. */
#include "mm/compaction_internal.h"
#include "kernel/sched.h"
#include "mm/mm_inline.h"
#include "mm/page.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

/* The page of the block [start, end) when every page of it is present and
 * on cc's node (Linux's pageblock_pfn_to_page: a block that is not one
 * zone's whole is not scanned), else NULL. */
static struct page *pageblock_pfn_to_page(const struct compact_control *cc, unsigned long start, unsigned long end)
{
	if (start < cc->start_pfn || end > cc->end_pfn || !pfn_valid(start) || !pfn_valid(end - 1))
		return NULL;
	struct page *page = pfn_to_page(start);
	if (page_to_nid(page) != cc->pgdat->node_id || page_to_nid(pfn_to_page(end - 1)) != cc->pgdat->node_id)
		return NULL;
	return page;
}

/* Linux's isolation_suitable: the block's skip bit is clear, or the hints
 * are ignored. */
static bool isolation_suitable(const struct compact_control *cc, struct page *page)
{
	return cc->ignore_skip_hint || !get_pageblock_skip(page);
}

/* Linux's suitable_migration_source: a direct async compaction moves pages
 * only out of blocks of its request's type (movable's counting as one);
 * the others out of any block. */
static bool suitable_migration_source(const struct compact_control *cc, struct page *page)
{
	if (cc->mode != MIGRATE_ASYNC || !cc->direct_compaction)
		return true;
	int block_mt = get_pageblock_migratetype(page);
	return block_mt == cc->migratetype;
}

/* Linux's suitable_migration_target: free pages of a movable block (not
 * a whole free pageblock or more: that is what compaction makes), or of
 * any block when the priority says so. */
static bool suitable_migration_target(const struct compact_control *cc, struct page *page)
{
	if (PageBuddy(page) && READ_ONCE(page->private) >= pageblock_order)
		return false;
	if (cc->ignore_block_suitable)
		return get_pageblock_migratetype(page) != MIGRATE_ISOLATE;
	return get_pageblock_migratetype(page) == MIGRATE_MOVABLE;
}

/* The skip bit of a block scanned whole with nothing isolated (Linux's
 * update_pageblock_skip); a free-scanner block also brings the cached
 * free position down to it. */
static void update_pageblock_skip(struct compact_control *cc, struct page *page, unsigned long pfn, bool free)
{
	if (cc->no_set_skip_hint)
		return;
	set_pageblock_skip(page);
	if (free && pfn < cc->pgdat->compact_cached_free_pfn)
		cc->pgdat->compact_cached_free_pfn = pfn;
}

/* Linux's update_cached_migrate: the migration scanner's cached position
 * moves up to pfn (both modes' for a sync compaction). */
static void update_cached_migrate(struct compact_control *cc, unsigned long pfn)
{
	pg_data_t *pgdat = cc->pgdat;
	if (cc->no_set_skip_hint)
		return;
	pfn = (pfn + pageblock_nr_pages - 1) & ~(pageblock_nr_pages - 1);
	if (pfn > pgdat->compact_cached_migrate_pfn[0])
		pgdat->compact_cached_migrate_pfn[0] = pfn;
	if (cc->mode != MIGRATE_ASYNC && pfn > pgdat->compact_cached_migrate_pfn[1])
		pgdat->compact_cached_migrate_pfn[1] = pfn;
}

/* The pages a compound page at page spans, read without its owner's
 * lock (Linux's "the check is racy, but we can consider only valid
 * values"): its order for a head, 1 for a tail. */
static unsigned long compound_pages_racy(const struct page *page)
{
	unsigned long flags = READ_ONCE(page->flags);
	if (flags & (1ul << PG_head)) {
		unsigned long order = READ_ONCE(page->private);
		return order && order <= MAX_PAGE_ORDER ? 1ul << order : 1;
	}
	return 1;
}

static bool page_is_compound(const struct page *page)
{
	unsigned long flags = READ_ONCE(page->flags);
	return flags & ((1ul << PG_head) | (1ul << PG_hugetlb) | (1ul << PG_hugetlb_tail) | (1ul << PG_anon_thp) |
			(1ul << PG_anon_tail) | (1ul << PG_shmem_thp) | (1ul << PG_shmem_tail));
}

/* Whether the migration scanner may isolate the page at pfn, read
 * without its owner's locks (Linux's checks before the lru_lock):
 * -1 for a free or compound block it skips whole (*skip: its pages less
 * one), 0 for a page it cannot take (a failure), 1 for a candidate. */
static int migrate_candidate(struct page *page, unsigned long pfn, unsigned long end_pfn, bool unevictable,
			     bool file, unsigned long *skip)
{
	*skip = 0;
	if (PageBuddy(page)) {
		/* Racy, as Linux's buddy_order_unsafe: a sane order lets
		 * the scan skip the block. */
		unsigned long order = READ_ONCE(page->private);
		if (order > 0 && order <= MAX_PAGE_ORDER && pfn + (1ul << order) <= end_pfn)
			*skip = (1ul << order) - 1;
		return -1;
	}
	if (page_is_compound(page)) {
		*skip = compound_pages_racy(page) - 1;
		return 0;
	}
	if (!page_test_flag(page, PG_lru))
		return 0;
	if (!unevictable && page_test_flag(page, PG_unevictable))
		return 0;
	if (page_in_page_cache(page)) {
		/* Linux: "Only allow to migrate anonymous pages in GFP_NOFS
		 * context"; a page of the swap cache too is left alone (a
		 * tmpfs page is never in it on mmlab). */
		if (!file || page_test_flag(page, PG_swapcache))
			return 0;
		/* Linux moves a file page held by a reader and fails it in
		 * migrate_pages; mmlab's get_user_pages takes plain
		 * references, so a reference beyond the cache's and the
		 * mappings' is treated as the pin it may be (racy, as the
		 * anonymous test below). */
		return page_ref_count(page) > page_mapcount(page) + 1 ? 0 : 1;
	}
	if (!page_anon_vma(page))
		return 0;
	/* Linux: "Migration will fail if an anonymous page is pinned in
	 * memory": more references than mappings (mmlab's get_user_pages
	 * takes plain references, so this is its folio_maybe_dma_pinned
	 * too). */
	return page_ref_count(page) > page_mapcount(page) ? 0 : 1;
}

/* Still a 4 KiB page the scanner takes, looked at again once held (it may
 * have been freed and reused meanwhile). */
static bool still_movable(struct page *page, bool file)
{
	if (page_is_compound(page))
		return false;
	return page_anon_vma(page) || (file && page_in_page_cache(page));
}

/* Linux's isolate_migratepages_block for [low_pfn, end_pfn) of one
 * pageblock: up to COMPACT_CLUSTER_MAX movable pages onto cc's list.
 * cc->migrate_pfn becomes where the scan stopped. A direct async
 * compaction gives up on an order-sized part at its first failure (Linux's
 * skip_on_failure): the part cannot become free, so what was isolated in
 * it goes back. */
static void isolate_migratepages_block(struct compact_control *cc, unsigned long low_pfn, unsigned long end_pfn,
				       struct page *valid_page)
{
	unsigned long nr_scanned = 0, nr_isolated = 0, next_skip_pfn = 0;
	bool unevictable = sysctl_compact_unevictable_allowed;
	bool file = (cc->gfp_mask & __GFP_FS) != 0;
	bool skip_on_failure = cc->direct_compaction && cc->mode == MIGRATE_ASYNC && cc->order > 0;
	unsigned long part = skip_on_failure ? 1ul << cc->order : 0;

	if (skip_on_failure)
		next_skip_pfn = (low_pfn + part) & ~(part - 1);
	for (; low_pfn < end_pfn; low_pfn++) {
		if (skip_on_failure && low_pfn >= next_skip_pfn) {
			/* The part before was isolated whole: move it now. */
			if (nr_isolated)
				break;
			next_skip_pfn = (low_pfn + part) & ~(part - 1);
		}
		nr_scanned++;
		struct page *page = pfn_to_page(low_pfn);
		unsigned long skip;
		int candidate = migrate_candidate(page, low_pfn, end_pfn, unevictable, file, &skip);
		low_pfn += skip;
		if (candidate < 0)
			continue;
		if (candidate && get_page_unless_zero(page)) {
			/* Under the lru_lock: still on the LRU, still a 4 KiB
			 * page of its kind (it may have been freed and reused). */
			if (still_movable(page, file) && !isolate_lru_page(page)) {
				put_page(page); /* the isolation holds its own */
				cc->migratepages[cc->nr_migratepages++] = page;
				nr_isolated++;
				if (cc->nr_migratepages == COMPACT_CLUSTER_MAX) {
					low_pfn++;
					break;
				}
				if (!(nr_scanned % COMPACT_CLUSTER_MAX))
					cond_resched();
				continue;
			}
			put_page(page);
		}
		/* Linux's isolate_fail. */
		if (!skip_on_failure)
			continue;
		if (nr_isolated) {
			putback_movable_pages(cc);
			nr_isolated = 0;
		}
		if (low_pfn < next_skip_pfn) {
			low_pfn = next_skip_pfn - 1;
			next_skip_pfn += part;
		}
	}
	if (low_pfn > end_pfn)
		low_pfn = end_pfn;
	/* Linux: a block scanned whole with nothing isolated is skipped
	 * from now on, and the cached position moves past it. */
	if (low_pfn == end_pfn && !nr_isolated) {
		if (valid_page)
			update_pageblock_skip(cc, valid_page, low_pfn, false);
		update_cached_migrate(cc, low_pfn);
	}
	cc->total_migrate_scanned += nr_scanned;
	if (nr_isolated) {
		count_vm_events(COMPACTISOLATED, nr_isolated);
		cc->total_isolated += nr_isolated;
	}
	cc->migrate_pfn = low_pfn;
}

isolate_migrate_t isolate_migratepages(struct compact_control *cc)
{
	unsigned long low_pfn = cc->migrate_pfn;
	unsigned long block_start = low_pfn & ~(pageblock_nr_pages - 1);
	if (block_start < cc->start_pfn)
		block_start = cc->start_pfn;
	unsigned long block_end = (low_pfn | (pageblock_nr_pages - 1)) + 1;

	/* Linux: iterate over whole pageblocks until one is isolated from,
	 * or the free scanner's block is reached. */
	for (; block_end <= cc->free_pfn; low_pfn = block_end, block_start = block_end,
					  block_end += pageblock_nr_pages) {
		if (!(low_pfn % (COMPACT_CLUSTER_MAX * pageblock_nr_pages)))
			cond_resched();
		struct page *page = pageblock_pfn_to_page(cc, block_start, block_end);
		if (!page)
			continue;
		/* A block that was skipped once is skipped (only its first
		 * visit in this run honours the hint: Linux's "If isolation
		 * recently failed, do not retry", the block being rescanned
		 * when the scan stopped inside it). */
		if (low_pfn == block_start && !isolation_suitable(cc, page))
			continue;
		if (!suitable_migration_source(cc, page)) {
			update_cached_migrate(cc, block_end);
			continue;
		}
		isolate_migratepages_block(cc, low_pfn, block_end, page);
		/* Either something was isolated, and it moves now, or
		 * compact_zone decides whether to go on (Linux breaks after
		 * one block either way). */
		return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
	}
	cc->migrate_pfn = low_pfn;
	return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
}

/* Linux's isolate_freepages_block (not strict), for [*start_pfn, end_pfn)
 * of one block: free blocks onto freelist, split into their 4 KiB pages
 * each with a reference count of 1 (Linux's split_map_pages), until there
 * are as many as pages to move. *start_pfn becomes where it stopped. */
static unsigned long isolate_freepages_block(struct compact_control *cc, unsigned long *start_pfn,
					     unsigned long end_pfn, unsigned long stride)
{
	pg_data_t *pgdat = cc->pgdat;
	unsigned long nr_scanned = 0, total_isolated = 0, pfn = *start_pfn, flags = 0;
	bool locked = false;

	for (; pfn < end_pfn; pfn += stride) {
		nr_scanned++;
		struct page *page = pfn_to_page(pfn);
		if (!PageBuddy(page))
			continue;
		if (!locked) {
			spin_lock_irqsave(&pgdat->lock, flags);
			locked = true;
		}
		if (!PageBuddy(page))
			continue; /* taken meanwhile */
		unsigned int order = (unsigned int)page->private;
		unsigned long isolated = __isolate_free_page(page, order);
		if (!isolated)
			break; /* the node is at its min watermark */
		for (unsigned long i = 0; i < isolated; i++) {
			page[i]._refcount = 1;
			list_add_tail(&page[i].lru, &cc->freepages);
		}
		nr_scanned += isolated - 1;
		total_isolated += isolated;
		cc->nr_freepages += isolated;
		if (cc->nr_migratepages <= cc->nr_freepages) {
			pfn += isolated;
			break;
		}
		pfn += isolated - 1;
	}
	if (locked)
		spin_unlock_irqrestore(&pgdat->lock, flags);
	/* A stride past the end counts as the end. */
	if (pfn > end_pfn)
		pfn = end_pfn;
	*start_pfn = pfn;
	cc->total_free_scanned += nr_scanned;
	if (total_isolated) {
		count_vm_events(COMPACTISOLATED, total_isolated);
		cc->total_isolated += total_isolated;
	}
	return total_isolated;
}

void isolate_freepages(struct compact_control *cc)
{
	unsigned long isolate_start_pfn = cc->free_pfn;
	unsigned long block_start = isolate_start_pfn & ~(pageblock_nr_pages - 1);
	unsigned long block_end = block_start + pageblock_nr_pages;
	/* Not below the block after the migration scanner's. */
	unsigned long low_pfn = (cc->migrate_pfn | (pageblock_nr_pages - 1)) + 1;
	/* Async compaction looks at every 32nd page only while it finds
	 * nothing (Linux's stride). */
	unsigned long stride = cc->mode == MIGRATE_ASYNC ? COMPACT_CLUSTER_MAX : 1;

	if (block_end > cc->end_pfn)
		block_end = cc->end_pfn;
	for (; block_start >= low_pfn && block_start >= cc->start_pfn;
	     block_end = block_start, block_start -= pageblock_nr_pages, isolate_start_pfn = block_start) {
		if (!(block_start % (COMPACT_CLUSTER_MAX * pageblock_nr_pages)))
			cond_resched();
		struct page *page = pageblock_pfn_to_page(cc, block_start, block_end);
		if (!page || !suitable_migration_target(cc, page) || !isolation_suitable(cc, page))
			continue;
		unsigned long nr = isolate_freepages_block(cc, &isolate_start_pfn, block_end, stride);
		/* The whole block scanned: it has nothing more to give. Not
		 * after a scan with a stride: its free pages may lie between
		 * the pages looked at (Linux marks it anyway, and finds such
		 * pages from the free lists with fast_isolate_freepages, which
		 * mmlab does not have). */
		if (isolate_start_pfn == block_end && stride == 1)
			update_pageblock_skip(cc, page, block_start, true);
		if (cc->nr_freepages >= cc->nr_migratepages) {
			/* Enough: the next round starts in this block again,
			 * or in the one below when this one is done. */
			if (isolate_start_pfn >= block_end)
				isolate_start_pfn = block_start - pageblock_nr_pages;
			break;
		} else if (isolate_start_pfn < block_end) {
			break; /* stopped early: the watermark */
		}
		/* Linux's stride adjustment: found something, look at every
		 * page of the next block. */
		if (nr)
			stride = 1;
		if (block_start < pageblock_nr_pages)
			break; /* pfn 0's block: no block below */
	}
	/* Where the free scanner starts next time: where it stopped, or
	 * (met) below the migration scanner. */
	cc->free_pfn = isolate_start_pfn;
}

unsigned long release_freepages(struct list_head *freelist)
{
	unsigned long high_pfn = 0;
	while (!list_empty(freelist)) {
		struct page *page = list_first_entry(freelist, struct page, lru);
		list_del(&page->lru);
		unsigned long pfn = page_to_pfn(page);
		if (pfn > high_pfn)
			high_pfn = pfn;
		__free_page(page);
	}
	return high_pfn;
}

void putback_movable_pages(struct compact_control *cc)
{
	for (unsigned long i = 0; i < cc->nr_migratepages; i++)
		putback_lru_page(cc->migratepages[i]);
	cc->nr_migratepages = 0;
}
