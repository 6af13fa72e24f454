/* Memory compaction (Linux 6.1's mm/compaction.c): compact_zone, which
 * runs the two scanners of mm/compaction_isolate.c against each other and
 * moves the pages one isolates to the free pages the other found; when
 * to stop (compact_finished) and whether to start at all
 * (compaction_suitable); the deferral of compaction that keeps failing;
 * direct compaction for an allocation (try_to_compact_pages, called from
 * the page allocator's slow path); and the compaction of whole nodes that
 * /proc/sys/vm/compact_memory and the node files ask for.
 *
 * Invariant: a page is moved only within its node; every page isolated is
 * moved or put back on the LRU, and every free page taken off the free
 * lists is used or given back, before compact_zone returns.
 *
 * Locking: none of its own. The scanners take the node's lru_lock and
 * lock as they isolate; the move takes the page's mappings' locks
 * (mm/migrate.c). The positions, skip bits and deferral state in
 * pg_data_t are hints, read and written without a lock, as Linux's: two
 * compactions of one node at once (a direct one and kcompactd) may each
 * scan a block the other did. */
#include "mm/compaction_internal.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/signal.h"
#include "mm/migrate.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

int sysctl_extfrag_threshold = 500;

/* --- deferral (Linux's, per zone: here per node) ------------------------ */

/* At most 2^6 - 1 attempts are skipped after failures. */
#define COMPACT_MAX_DEFER_SHIFT 6

void defer_compaction(pg_data_t *pgdat, int order)
{
	pgdat->compact_considered = 0;
	pgdat->compact_defer_shift++;
	if (order < pgdat->compact_order_failed)
		pgdat->compact_order_failed = order;
	if (pgdat->compact_defer_shift > COMPACT_MAX_DEFER_SHIFT)
		pgdat->compact_defer_shift = COMPACT_MAX_DEFER_SHIFT;
}

bool compaction_deferred(pg_data_t *pgdat, int order)
{
	unsigned long defer_limit = 1ul << pgdat->compact_defer_shift;
	if (order < pgdat->compact_order_failed)
		return false;
	/* Linux: "Avoid possible overflow". */
	if (++pgdat->compact_considered >= defer_limit) {
		pgdat->compact_considered = (unsigned int)defer_limit;
		return false;
	}
	return true;
}

void compaction_defer_reset(pg_data_t *pgdat, int order, bool alloc_success)
{
	if (alloc_success) {
		pgdat->compact_considered = 0;
		pgdat->compact_defer_shift = 0;
	}
	if (order >= pgdat->compact_order_failed)
		pgdat->compact_order_failed = order + 1;
}

bool compaction_restarting(pg_data_t *pgdat, int order)
{
	if (order < pgdat->compact_order_failed)
		return false;
	return pgdat->compact_defer_shift == COMPACT_MAX_DEFER_SHIFT &&
	       pgdat->compact_considered >= 1ul << pgdat->compact_defer_shift;
}

/* --- skip hints ---------------------------------------------------------- */

void reset_cached_positions(pg_data_t *pgdat)
{
	pgdat->compact_cached_migrate_pfn[0] = pgdat->compact_cached_migrate_pfn[1] = pgdat->node_start_pfn;
	pgdat->compact_cached_free_pfn = (node_end_pfn(pgdat) - 1) & ~(pageblock_nr_pages - 1);
}

void reset_isolation_suitable(pg_data_t *pgdat)
{
	if (pgdat->compact_blockskip_flush)
		__reset_isolation_suitable(pgdat);
}

void __reset_isolation_suitable(pg_data_t *pgdat)
{
	unsigned long start = pgdat->node_start_pfn, end = node_end_pfn(pgdat);
	/* Linux clears the bit of the blocks that have an LRU or a free page
	 * and starts the scanners at the first such block from each end;
	 * mmlab clears every block's and starts them at the node's ends. */
	for (unsigned long pfn = start & ~(pageblock_nr_pages - 1); pfn < end; pfn += pageblock_nr_pages) {
		unsigned long first = pfn < start ? start : pfn;
		if (pfn_valid(first) && page_to_nid(pfn_to_page(first)) == pgdat->node_id)
			clear_pageblock_skip(pfn_to_page(first));
	}
	pgdat->compact_init_migrate_pfn = pgdat->compact_cached_migrate_pfn[0] =
		pgdat->compact_cached_migrate_pfn[1] = start;
	pgdat->compact_init_free_pfn = pgdat->compact_cached_free_pfn = (end - 1) & ~(pageblock_nr_pages - 1);
	pgdat->compact_blockskip_flush = false;
}

/* --- when to compact ----------------------------------------------------- */

/* Linux's compact_gap: the free pages one round of compaction needs
 * beyond the watermark (the targets of the pages it moves). */
static unsigned long compact_gap(int order)
{
	return 2ul << order;
}

/* Linux's __compaction_suitable with the free pages free. */
static enum compact_result __compaction_suitable(pg_data_t *pgdat, int order, int alloc_flags,
						 unsigned long free)
{
	if (order < 0)
		return COMPACT_CONTINUE;
	/* A free block of the order above the request's watermark, on the
	 * lists it may take from (node_watermark_ok's free_mask counts the
	 * highatomic reserve's blocks too, which Linux's __zone_watermark_ok
	 * leaves to ALLOC_HARDER requests). */
	if (node_watermark_ok(pgdat, (unsigned int)order, pgdat->watermark[alloc_flags & 3]) &&
	    free_block_usable(pgdat, (unsigned int)order))
		return COMPACT_SUCCESS;
	unsigned long watermark = order > PAGE_ALLOC_COSTLY_ORDER ? pgdat->watermark[WMARK_LOW]
								  : pgdat->watermark[WMARK_MIN];
	watermark += compact_gap(order);
	/* node_watermark_ok at order 0 with the given free count. */
	if (free <= watermark)
		return COMPACT_SKIPPED;
	return COMPACT_CONTINUE;
}

enum compact_result compaction_suitable(pg_data_t *pgdat, int order, int alloc_flags)
{
	enum compact_result ret = __compaction_suitable(pgdat, order, alloc_flags, READ_ONCE(pgdat->nr_free));
	/* Linux: "Only compact if a failure would be due to
	 * fragmentation", for costly orders only. */
	if (ret == COMPACT_CONTINUE && order > PAGE_ALLOC_COSTLY_ORDER) {
		int fragindex = fragmentation_index(pgdat, (unsigned int)order);
		if (fragindex >= 0 && fragindex <= sysctl_extfrag_threshold)
			ret = COMPACT_NOT_SUITABLE_ZONE;
	}
	if (ret == COMPACT_NOT_SUITABLE_ZONE)
		ret = COMPACT_SKIPPED;
	return ret;
}

/* The i-th node of nid's fallback list when a request with gfp and
 * nodemask may use it, else -1 (Linux's for_each_zone_zonelist_nodemask). */
static int request_node(gfp_t gfp, int nid, const nodemask_t *nodemask, int i)
{
	int n = NODE_DATA(nid)->fallback[i];
	if (((gfp & __GFP_THISNODE) && n != nid) || (nodemask && !node_isset(n, *nodemask)))
		return -1;
	return n;
}

/* Linux's compaction_zonelist_suitable for should_compact_retry: whether
 * reclaim could make compaction worth trying on a node the request may
 * use (free plus reclaimable pages would pass). */
static bool compaction_zonelist_suitable(gfp_t gfp, int order, int alloc_flags, int nid, const nodemask_t *nodemask)
{
	for (int i = 0; i < NODE_DATA(nid)->nr_fallback; i++) {
		int n = request_node(gfp, nid, nodemask, i);
		if (n < 0)
			continue;
		pg_data_t *pgdat = NODE_DATA(n);
		unsigned long available = node_reclaimable_pages(pgdat) + READ_ONCE(pgdat->nr_free);
		if (__compaction_suitable(pgdat, order, alloc_flags, available) == COMPACT_CONTINUE)
			return true;
	}
	return false;
}

bool should_compact_retry(gfp_t gfp, unsigned int order, int alloc_flags, int nid, const nodemask_t *nodemask,
			  enum compact_result compact_result, enum compact_priority *compact_priority,
			  int *compaction_retries)
{
	/* Linux's MAX_COMPACT_RETRIES. */
	int max_retries = 16;
	if (!order || fatal_signal_pending(current))
		return false;
	if (compact_result == COMPACT_SUCCESS) /* compaction_made_progress */
		(*compaction_retries)++;
	/* compaction_failed: the whole node was compacted: only a higher
	 * priority may do better. */
	if (compact_result == COMPACT_COMPLETE)
		goto check_priority;
	/* compaction_needs_reclaim: too few free pages to work with; retry
	 * when reclaim could give them. */
	if (compact_result == COMPACT_SKIPPED)
		return compaction_zonelist_suitable(gfp, (int)order, alloc_flags, nid, nodemask);
	/* compaction_withdrawn: deferred, stopped early or partial: the next
	 * try at a higher priority. */
	if (compact_result == COMPACT_DEFERRED || compact_result == COMPACT_CONTENDED ||
	    compact_result == COMPACT_PARTIAL_SKIPPED)
		goto check_priority;
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		max_retries /= 4;
	if (*compaction_retries <= max_retries)
		return true;
check_priority:;
	enum compact_priority min_priority =
		order > PAGE_ALLOC_COSTLY_ORDER ? MIN_COMPACT_COSTLY_PRIORITY : MIN_COMPACT_PRIORITY;
	if (*compact_priority > min_priority) {
		(*compact_priority)--;
		*compaction_retries = 0;
		return true;
	}
	return false;
}

/* Linux's __compact_finished: the scanners met (the pass is over), or a
 * free block of the order is on a list the request may take it from. */
static enum compact_result __compact_finished(struct compact_control *cc)
{
	pg_data_t *pgdat = cc->pgdat;
	if (compact_scanners_met(cc)) {
		/* The next pass starts at the node's ends again (not after a
		 * test's range). */
		if (!cc->no_set_skip_hint)
			reset_cached_positions(pgdat);
		/* A direct compaction that went over everything clears the
		 * skip hints for the next one (when it is not deferred). */
		if (cc->direct_compaction)
			pgdat->compact_blockskip_flush = true;
		return cc->whole_zone ? COMPACT_COMPLETE : COMPACT_PARTIAL_SKIPPED;
	}
	if (cc->proactive_compaction) {
		/* kcompactd's proactive round: until the node's score is
		 * below its low mark (mm/kcompactd.c). */
		return fragmentation_score_node(pgdat) > fragmentation_score_wmark(false) ? COMPACT_CONTINUE
											   : COMPACT_SUCCESS;
	}
	if (cc->order < 0) /* Linux's is_via_compact_memory */
		return COMPACT_CONTINUE;
	/* Linux: "Always finish scanning a pageblock". */
	if (cc->migrate_pfn & (pageblock_nr_pages - 1))
		return COMPACT_CONTINUE;
	enum compact_result ret = COMPACT_NO_SUITABLE_PAGE;
	int found = free_block_for_migratetype(pgdat, (unsigned int)cc->order, cc->migratetype);
	if (found == FREE_BLOCK_OWN_TYPE)
		ret = COMPACT_SUCCESS;
	else if (found == FREE_BLOCK_FALLBACK)
		/* Linux: the request would take a block of another type:
		 * done for a movable one; an async compaction (or one at a
		 * pageblock's edge, which this is) stops too. */
		ret = COMPACT_SUCCESS;
	if (cc->contended || fatal_signal_pending(current))
		ret = COMPACT_CONTENDED;
	return ret;
}

static enum compact_result compact_finished(struct compact_control *cc)
{
	enum compact_result ret = __compact_finished(cc);
	return ret == COMPACT_NO_SUITABLE_PAGE ? COMPACT_CONTINUE : ret;
}

/* --- moving the isolated pages ------------------------------------------ */

/* Linux's compaction_alloc: a page of the free scanner's, which runs when
 * it has none left. */
static struct page *compaction_alloc(struct compact_control *cc)
{
	if (list_empty(&cc->freepages)) {
		isolate_freepages(cc);
		if (list_empty(&cc->freepages))
			return NULL;
	}
	struct page *page = list_first_entry(&cc->freepages, struct page, lru);
	list_del(&page->lru);
	cc->nr_freepages--;
	return page;
}

/* Linux's compaction_free: a target a move did not use goes back to the
 * free scanner's list. */
static void compaction_free(struct page *page, struct compact_control *cc)
{
	list_add(&page->lru, &cc->freepages);
	cc->nr_freepages++;
}

/* Passes over the pages of a round that were busy (Linux's
 * NR_MAX_MIGRATE_PAGES_RETRY). */
#define MIGRATE_PASSES 10

/* Linux's migrate_pages(&cc->migratepages, compaction_alloc,
 * compaction_free, ..., MR_COMPACTION): every isolated page moved to a
 * target, a busy one tried again on the next pass; what did not move goes
 * back to the LRU. -ENOMEM when the free scanner found no more targets. */
static int migrate_isolated(struct compact_control *cc)
{
	unsigned long n = cc->nr_migratepages;
	int err = 0;
	for (int pass = 0; pass < MIGRATE_PASSES && n && !err; pass++) {
		unsigned long busy = 0;
		for (unsigned long i = 0; i < n; i++) {
			struct page *old = cc->migratepages[i];
			struct page *new = compaction_alloc(cc);
			if (!new) {
				err = -ENOMEM;
				/* The rest stays for the putback below. */
				for (; i < n; i++)
					cc->migratepages[busy++] = cc->migratepages[i];
				break;
			}
			int r = migrate_isolated_page(old, new);
			if (!r) {
				cc->total_migrated++;
				continue;
			}
			compaction_free(new, cc);
			if (r == -EAGAIN)
				cc->migratepages[busy++] = old;
			else
				putback_lru_page(old);
		}
		n = busy;
		cond_resched();
	}
	cc->nr_migratepages = n;
	putback_movable_pages(cc);
	return err;
}

/* --- compact_zone ----------------------------------------------------------- */

void count_compact_scanned(const struct compact_control *cc, bool daemon)
{
	count_vm_events(COMPACTMIGRATE_SCANNED, cc->total_migrate_scanned);
	count_vm_events(COMPACTFREE_SCANNED, cc->total_free_scanned);
	if (daemon) {
		count_vm_events(KCOMPACTD_MIGRATE_SCANNED, cc->total_migrate_scanned);
		count_vm_events(KCOMPACTD_FREE_SCANNED, cc->total_free_scanned);
	}
}

enum compact_result compact_zone(struct compact_control *cc)
{
	pg_data_t *pgdat = cc->pgdat;
	unsigned long start_pfn = cc->start_pfn, end_pfn = cc->end_pfn;
	unsigned long last_migrated_pfn = 0;
	bool sync = cc->mode != MIGRATE_ASYNC;
	enum compact_result ret;

	INIT_LIST_HEAD(&cc->freepages);
	cc->nr_freepages = cc->nr_migratepages = 0;
	cc->migratetype = gfp_migratetype(cc->gfp_mask);
	if (cc->order >= 0) {
		ret = compaction_suitable(pgdat, cc->order, cc->alloc_flags);
		/* Compaction is likely to fail (SKIPPED), or the allocation
		 * can go ahead (SUCCESS). */
		if (ret == COMPACT_SUCCESS || ret == COMPACT_SKIPPED)
			return ret;
	}
	/* The full deferral has run: the skip hints are stale. (The other
	 * reset, after a direct compaction went over the whole node, is
	 * kcompactd's: reset_isolation_suitable.) */
	if (compaction_restarting(pgdat, cc->order))
		__reset_isolation_suitable(pgdat);

	if (cc->whole_zone) {
		cc->migrate_pfn = start_pfn;
		cc->free_pfn = (end_pfn - 1) & ~(pageblock_nr_pages - 1);
	} else {
		cc->migrate_pfn = pgdat->compact_cached_migrate_pfn[sync];
		cc->free_pfn = pgdat->compact_cached_free_pfn;
		if (cc->free_pfn < start_pfn || cc->free_pfn >= end_pfn) {
			cc->free_pfn = (end_pfn - 1) & ~(pageblock_nr_pages - 1);
			pgdat->compact_cached_free_pfn = cc->free_pfn;
		}
		if (cc->migrate_pfn < start_pfn || cc->migrate_pfn >= end_pfn) {
			cc->migrate_pfn = start_pfn;
			pgdat->compact_cached_migrate_pfn[0] = pgdat->compact_cached_migrate_pfn[1] = start_pfn;
		}
		if (cc->migrate_pfn <= pgdat->compact_init_migrate_pfn)
			cc->whole_zone = true;
	}

	while ((ret = compact_finished(cc)) == COMPACT_CONTINUE) {
		unsigned long iteration_start_pfn = cc->migrate_pfn;
		if (isolate_migratepages(cc) == ISOLATE_SUCCESS) {
			last_migrated_pfn = iteration_start_pfn;
			if (migrate_isolated(cc) == -ENOMEM && !compact_scanners_met(cc)) {
				/* Linux: no targets left short of the meeting. */
				ret = COMPACT_CONTENDED;
				break;
			}
		}
		/* Linux's check_drain: the pages freed from a block of the
		 * order sit on this CPU's lists; give them to the buddy lists
		 * once the scanner has left the block, so that they merge. */
		if (cc->order > 0 && last_migrated_pfn) {
			unsigned long current_block_start = cc->migrate_pfn & ~((1ul << cc->order) - 1);
			if (last_migrated_pfn < current_block_start) {
				drain_local_pages(NULL);
				last_migrated_pfn = 0;
			}
		}
	}
	if (cc->nr_freepages) {
		unsigned long free_pfn = release_freepages(&cc->freepages) & ~(pageblock_nr_pages - 1);
		cc->nr_freepages = 0;
		/* Linux: the free scanner starts there next time. */
		if (!cc->no_set_skip_hint && free_pfn > pgdat->compact_cached_free_pfn)
			pgdat->compact_cached_free_pfn = free_pfn;
	}
	return ret;
}

void compact_control_init(struct compact_control *cc, pg_data_t *pgdat, int order, enum migrate_mode mode)
{
	*cc = (struct compact_control){
		.order = order,
		.gfp_mask = GFP_KERNEL,
		.pgdat = pgdat,
		.start_pfn = pgdat->node_start_pfn,
		.end_pfn = node_end_pfn(pgdat),
		.mode = mode,
		.alloc_flags = WMARK_MIN,
	};
}

/* --- direct compaction ---------------------------------------------------- */

/* Linux's compact_zone_order: one node, for an allocation. */
static enum compact_result compact_zone_order(pg_data_t *pgdat, int order, gfp_t gfp, enum compact_priority prio,
					     int alloc_flags)
{
	struct compact_control cc;
	compact_control_init(&cc, pgdat, order, prio == COMPACT_PRIO_ASYNC ? MIGRATE_ASYNC : MIGRATE_SYNC_LIGHT);
	cc.gfp_mask = gfp;
	cc.alloc_flags = alloc_flags;
	cc.direct_compaction = true;
	cc.whole_zone = cc.ignore_skip_hint = cc.ignore_block_suitable = prio == MIN_COMPACT_PRIORITY;
	enum compact_result ret = compact_zone(&cc);
	count_compact_scanned(&cc, false);
	return ret;
}

enum compact_result try_to_compact_pages(gfp_t gfp, unsigned int order, int alloc_flags, int nid,
					 const nodemask_t *nodemask, enum compact_priority prio)
{
	enum compact_result rc = COMPACT_SKIPPED;
	/* Linux: "Check if the GFP flags allow compaction". */
	if (!(gfp & __GFP_IO))
		return rc;
	for (int i = 0; i < NODE_DATA(nid)->nr_fallback; i++) {
		int n = request_node(gfp, nid, nodemask, i);
		if (n < 0)
			continue;
		pg_data_t *pgdat = NODE_DATA(n);
		if (prio > MIN_COMPACT_PRIORITY && compaction_deferred(pgdat, (int)order)) {
			if (rc < COMPACT_DEFERRED)
				rc = COMPACT_DEFERRED;
			continue;
		}
		enum compact_result status = compact_zone_order(pgdat, (int)order, gfp, prio, alloc_flags);
		if (status > rc)
			rc = status;
		if (status == COMPACT_SUCCESS) {
			/* Linux: the allocation should succeed here, which
			 * the caller confirms with alloc_success. */
			compaction_defer_reset(pgdat, (int)order, false);
			break;
		}
		/* Linux: the allocation will not succeed here: defer (an
		 * allocation that succeeds after all resets it). */
		if (prio != COMPACT_PRIO_ASYNC && (status == COMPACT_COMPLETE || status == COMPACT_PARTIAL_SKIPPED))
			defer_compaction(pgdat, (int)order);
		if (fatal_signal_pending(current))
			break;
	}
	return rc;
}

/* --- whole nodes and ranges ----------------------------------------------- */

void compact_range(int nid, unsigned long start_pfn, unsigned long end_pfn, int order, unsigned flags,
		   struct compact_range_result *out)
{
	bool hints = flags & COMPACT_RANGE_SKIP_HINTS;
	struct compact_control cc;
	compact_control_init(&cc, NODE_DATA(nid), order, MIGRATE_SYNC);
	cc.start_pfn = start_pfn;
	cc.end_pfn = end_pfn;
	cc.whole_zone = true;
	cc.ignore_skip_hint = cc.no_set_skip_hint = !hints;
	if (flags & COMPACT_RANGE_NOFS)
		cc.gfp_mask = GFP_NOFS;
	out->result = compact_zone(&cc);
	count_compact_scanned(&cc, false);
	out->migrate_scanned = cc.total_migrate_scanned;
	out->free_scanned = cc.total_free_scanned;
	out->isolated = cc.total_isolated;
	out->migrated = cc.total_migrated;
}

void compact_node(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	if (!pgdat || !pgdat->managed_pages)
		return;
	/* Linux 6.1's compact_node: order -1, MIGRATE_SYNC, every hint
	 * ignored, the whole node. */
	struct compact_control cc;
	compact_control_init(&cc, pgdat, -1, MIGRATE_SYNC);
	cc.whole_zone = cc.ignore_skip_hint = true;
	compact_zone(&cc);
	count_compact_scanned(&cc, false);
}

void compact_nodes(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		compact_node(nid);
}
