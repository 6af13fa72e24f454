/* The per-node buddy allocator (see page_alloc.h for the invariants): the
 * allocation policy and the entry points that allocate and free.
 *
 * Layers, from the bottom:
 *  - free lists and the buddy layer: rmqueue_smallest splits the smallest
 *    block that fits, free_one_page merges a block with its buddies
 *    (inline in page_alloc_internal.h, which says what they keep exact;
 *    __rmqueue_smallest and __free_one_page below are their callable
 *    copies);
 *  - per-CPU lists for order 0 and the THP order, refilled and drained
 *    in batches (page_alloc_pcp.c);
 *  - the allocation policy, here: preferred node, fallback by distance,
 *    watermarks, and the slow path (wake kswapd, drain, direct reclaim,
 *    retry per GFP flags and should_reclaim_retry);
 *  - checks on every free and every allocation ("BUG: Bad page state",
 *    page_alloc_checks.c).
 * Setup is in page_alloc_init.c, counts and reports in page_alloc_stats.c,
 * the shrinkers in shrinker.c, reclaim in vmscan.c and kswapd.c.
 *
 * Invariant kept here: a page is handed out only after check_new_page
 * passed (when the checks are on: is_check_pages_enabled), with refcount 1 (above order 0 also PG_head, private == order),
 * and only from a node above the watermark the request may use (low on
 * the first try; min, or less for __GFP_HIGH and atomic requests, in the
 * slow path); a page comes back only through free_pages_prepare's checks.
 *
 * Locking: a node's free lists and counters are protected by its lock; a
 * CPU's per-CPU lists by running on that CPU with interrupts off. This file
 * is portable C: it is also built and tested on the host (tests/host/, whose
 * shadow headers stand in for the hardware). */
#include "mm/page_alloc_internal.h"
#include "kernel/psi.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/smp.h"
#include "mm/compaction.h"
#include "mm/fail_page_alloc.h"
#include "mm/hugetlb.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "mm/kswapd.h"
#include "mm/oom.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"
#include "lib/string.h"

pg_data_t *node_data[MAX_NUMNODES];
u8 mem_section_present[NR_MEM_SECTIONS / 8];

/* --- the buddy layer ---------------------------------------------------- */

/* The buddy layer for the benchmarks and host tests (page_alloc.h); the
 * allocator itself uses the inlined versions. */
struct page *__rmqueue_smallest(pg_data_t *pgdat, unsigned int order, int migratetype)
{
	struct page *page = rmqueue_smallest(pgdat, order, migratetype);
	if (page)
		pgdat->nr_free -= 1ul << order;
	return page;
}

void __free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order, int migratetype)
{
	free_one_page(page, pfn, pgdat, order, migratetype);
}

/* --- allocation policy -------------------------------------------------- */

enum {
	ALLOC_WMARK_MIN = WMARK_MIN,
	ALLOC_WMARK_LOW = WMARK_LOW,
	ALLOC_WMARK_MASK = 3,
	ALLOC_HIGH = 4,   /* __GFP_HIGH: may go halfway below min */
	ALLOC_HARDER = 8, /* atomic: may go a quarter below min */
	ALLOC_NO_WATERMARKS = 16, /* PF_MEMALLOC: the reclaimer may take the reserve */
	ALLOC_OOM = 32,   /* an OOM victim: may go halfway below min to exit */
	ALLOC_WMARK_HIGH = WMARK_HIGH,
};

/* Whether this CPU's THP-order list on pgdat holds a block, which an
 * allocation of that order takes before it looks at the buddy lists. (Read
 * without interrupts off: a hint, which rmqueue_pcplist checks again.
 * Linux 6.1's __zone_watermark_ok looks at the free areas only, so there a
 * block on a per-CPU list does not count; here it does, so that a node
 * whose last 2 MiB block sits on this CPU's list can still hand it out to
 * a request that may not drain.) */
static inline bool thp_on_this_cpu(const pg_data_t *pgdat, unsigned int order)
{
	return order == pageblock_order && READ_ONCE(pgdat->pcp[smp_processor_id()].thp_count);
}

/* Linux's __zone_watermark_ok, with the free pages to judge by. */
static inline bool __watermark_ok(const pg_data_t *pgdat, unsigned int order, unsigned long mark, int alloc_flags,
				  unsigned long free)
{
	long min = (long)mark;
	if (alloc_flags & ALLOC_HIGH)
		min -= min / 2;
	/* Linux's alloc_harder: an OOM victim may go further than an
	 * atomic request, "it's definitely going to be in the exit path
	 * shortly and free memory". */
	if (alloc_flags & ALLOC_OOM)
		min -= min / 2;
	else if (alloc_flags & ALLOC_HARDER)
		min -= min / 4;
	/* As Linux's __zone_watermark_ok: enough pages is not enough for
	 * order > 0, a block that large must exist (and a failing request
	 * then takes no lock). */
	if (order && !(pgdat->free_mask >> order) && !thp_on_this_cpu(pgdat, order))
		return false;
	if (alloc_flags & ALLOC_NO_WATERMARKS)
		return free >= (1ul << order);
	/* Linux 6.1's __zone_watermark_unusable_free: the highatomic reserve
	 * is free only to the requests it is kept for, so the others see the
	 * node that much shorter (Linux 6.1 takes off the whole reserve, its
	 * pages in use too; 6.10 only its free pages). (Linux also looks for a
	 * block of the order on the lists the request may use; free_mask above
	 * counts every type's, so a request that finds only another type's
	 * blocks falls back or fails in rmqueue instead.) */
	long usable = (long)free;
	if (likely(!(alloc_flags & (ALLOC_HARDER | ALLOC_OOM))))
		usable -= (long)READ_ONCE(pgdat->nr_reserved_highatomic);
	return usable - (long)(1ul << order) + 1 > min;
}

static inline bool watermark_ok(const pg_data_t *pgdat, unsigned int order, int alloc_flags)
{
	return __watermark_ok(pgdat, order, pgdat->watermark[alloc_flags & ALLOC_WMARK_MASK], alloc_flags,
			      pgdat->nr_free);
}

bool node_watermark_ok(pg_data_t *pgdat, unsigned int order, unsigned long mark)
{
	return __watermark_ok(pgdat, order, mark, 0, READ_ONCE(pgdat->nr_free));
}

/* Linux's zone_statistics(). The counters are this CPU's own
 * (per_cpu_nodestats), so with interrupts off nothing else can add to them
 * between the load and the store; the caller has them off. NUMA_LOCAL and
 * NUMA_OTHER are not counted here: every hit or miss in a CPU's slot of a
 * node is local when that CPU is on the node and other when it is not,
 * which is fixed, so the reader derives them (node_numa_event_state) and
 * every allocation is spared looking up its CPU's node. */
static inline void __numa_statistics(int preferred, int nid)
{
	unsigned cpu = smp_processor_id();
	unsigned long *here = node_data[nid]->per_cpu_nodestats[cpu].numa_events;
	if (nid == preferred) {
		here[NUMA_HIT]++;
	} else {
		here[NUMA_MISS]++;
		node_data[preferred]->per_cpu_nodestats[cpu].numa_events[NUMA_FOREIGN]++;
	}
}

static inline void numa_statistics(int preferred, int nid)
{
	unsigned long flags;
	local_irq_save(flags);
	__numa_statistics(preferred, nid);
	local_irq_restore(flags);
}

void count_numa_interleave_hit(int nid)
{
	if (nid < 0 || nid >= MAX_NUMNODES || !node_data[nid])
		return;
	unsigned long flags;
	local_irq_save(flags);
	node_data[nid]->per_cpu_nodestats[smp_processor_id()].numa_events[NUMA_INTERLEAVE_HIT]++;
	local_irq_restore(flags);
}

/* Takes a block from pgdat and counts it in the NUMA statistics against
 * the node the caller wanted (for the buddy lists under the node's lock,
 * where interrupts are off already). */
static __always_inline struct page *rmqueue(pg_data_t *pgdat, unsigned int order, int wanted, int migratetype,
					     int alloc_flags)
{
	unsigned long flags;
	struct page *page;

	if (pcp_allowed_order(order)) {
		/* Linux 6.1's rmqueue: pcp_allowed_order goes to
		 * rmqueue_pcplist. (Two calls with constant orders, so each
		 * inlined copy has only its own list's code.) */
		page = order ? rmqueue_pcplist(pgdat, pageblock_order, migratetype)
			     : rmqueue_pcplist(pgdat, 0, migratetype);
		if (page) {
			numa_statistics(wanted, pgdat->node_id);
			return page;
		}
		/* A THP-order request the refill could not serve has only
		 * the highatomic reserve left to try, below. */
		if (!order || !(alloc_flags & ALLOC_HARDER))
			return NULL;
	}
	spin_lock_irqsave(&pgdat->lock, flags);
	for (;;) {
		/* Linux's rmqueue_buddy: a high-order atomic request tries
		 * the highatomic reserve first. */
		page = NULL;
		if (order && (alloc_flags & ALLOC_HARDER)) {
			page = rmqueue_smallest(pgdat, order, MIGRATE_HIGHATOMIC);
			if (page)
				pgdat->nr_free -= 1ul << order;
		}
		if (!page)
			page = __rmqueue(pgdat, order, migratetype);
		if (!page || likely(check_new_page(page)))
			break;
		/* Only the head was checked: give back the rest, keep it out. */
		retire_page(page, pgdat);
		for (unsigned int o = 0; o < order; o++)
			free_one_page_pfnblock(page + (1ul << o), page_to_pfn(page) + (1ul << o), pgdat, o);
	}
	if (page)
		__numa_statistics(wanted, pgdat->node_id);
	spin_unlock_irqrestore(&pgdat->lock, flags);
	return page;
}

/* The nodes to try, nearest first: the preferred node's fallback list, or
 * only the preferred node itself for __GFP_THISNODE; with a nodemask, only
 * the nodes in it (as Linux's for_next_zone_zonelist_nodemask). The first
 * node allowed is the one the caller wanted, for the NUMA counters (Linux's
 * preferred_zoneref). */
static __always_inline struct page *__get_page_from_freelist(gfp_t gfp, unsigned int order, int nid,
							     const nodemask_t *nodemask, int alloc_flags)
{
	pg_data_t *pref = node_data[nid];
	const int *nodes = pref->fallback;
	int nr = pref->nr_fallback, wanted = NUMA_NO_NODE;

	if (gfp & __GFP_THISNODE) {
		if (!pref->managed_pages)
			return NULL;
		nodes = &pref->node_id;
		nr = 1;
	}
	for (int i = 0; i < nr; i++) {
		if (nodemask && !node_isset(nodes[i], *nodemask))
			continue;
		if (wanted == NUMA_NO_NODE)
			wanted = nodes[i];
		pg_data_t *pgdat = node_data[nodes[i]];
		if (!watermark_ok(pgdat, order, alloc_flags))
			continue;
		struct page *page = rmqueue(pgdat, order, wanted, gfp_migratetype(gfp), alloc_flags);
		if (page) {
			/* Linux: a high-order atomic allocation may keep its
			 * pageblock as a reserve for the next ones. */
			if (unlikely(order && (alloc_flags & ALLOC_HARDER)))
				reserve_highatomic_pageblock(page, pgdat);
			return page;
		}
	}
	return NULL;
}

/* The same, called: the slow path's dozen tries (after reclaim, after
 * compaction, with other watermarks). Inlined in each, the per-CPU lists'
 * and the buddy lists' code made alloc_pages_slowpath 36 KiB of text, and
 * the file the longest one to compile (3 s; 14 s with the host tests'
 * sanitizers). Only the first try, in __alloc_pages_full, inlines it. */
static __noinline struct page *get_page_from_freelist(gfp_t gfp, unsigned int order, int nid,
						      const nodemask_t *nodemask, int alloc_flags)
{
	return __get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
}

/* Whether any node get_page_from_freelist may try has memory at all: a
 * mask of memoryless nodes (or an empty one) can never be satisfied, and
 * reclaim and retries would only spin (forever, for __GFP_NOFAIL). */
static bool allowed_nodes_have_memory(gfp_t gfp, int nid, const nodemask_t *nodemask)
{
	pg_data_t *pref = node_data[nid];
	if (gfp & __GFP_THISNODE)
		return pref->managed_pages && (!nodemask || node_isset(nid, *nodemask));
	for (int i = 0; i < pref->nr_fallback; i++)
		if (!nodemask || node_isset(pref->fallback[i], *nodemask))
			return true;
	return false;
}

/* --- the slow path ------------------------------------------------------ */

/* Linux 6.1's __alloc_pages_slowpath, reduced to what mmlab has: direct
 * compaction for costly orders (alloc_pages_direct_compact above), then
 * the OOM killer when reclaim has failed (alloc_pages_may_oom above). gfp
 * has the task's scope applied
 * already (current_gfp_context, in __alloc_pages_full): reclaim sees
 * GFP_NOFS inside memalloc_nofs_save whatever the caller passed (no
 * swap-out without __GFP_IO, shrink_slab only the shrinkers the context
 * allows).
 *
 *   - __GFP_KSWAPD_RECLAIM (GFP_NOWAIT and GFP_ATOMIC too): the kswapd of
 *     every node the request may use is woken (wake_all_kswapds), on
 *     entry and on every retry, as Linux's;
 *   - non-blocking (no __GFP_DIRECT_RECLAIM): min watermark, the local
 *     per-CPU lists, and that is all: never a sleep, never reclaim;
 *   - PF_MEMALLOC (memalloc_noreclaim_save, a reclaimer allocating): no
 *     reclaim recursion, but the reserve below min (ALLOC_NO_WATERMARKS)
 *     unless __GFP_NOMEMALLOC;
 *   - __GFP_NORETRY: one round of reclaim, then fail;
 *   - costly orders fail after one round unless __GFP_RETRY_MAYFAIL;
 *   - __GFP_RETRY_MAYFAIL and the rest: retry as long as Linux's
 *     should_reclaim_retry says: while the free and reclaimable pages of
 *     a node would pass its min watermark (less a share that grows with
 *     each round without progress), at most MAX_RECLAIM_RETRIES rounds
 *     without progress;
 *   - when should_reclaim_retry gives up, the OOM killer
 *     (alloc_pages_may_oom, as Linux's __alloc_pages_may_oom): retry
 *     while it makes progress (a kill, or a victim still dying), fail
 *     when it cannot (nothing killable); the victim itself may take half
 *     the reserve (ALLOC_OOM) and fails when even that is not enough;
 *   - __GFP_NOFAIL: never fails; half the reserve once reclaim did not
 *     help, the OOM killer once reclaim cannot, lets other tasks run
 *     between tries, and warns (once per request) when it has waited
 *     long. */
#define NOFAIL_STALL_WARN_LOOPS 1000

unsigned long nofail_retries;

/* Linux's wake_all_kswapds: each node the request may use. */
static void wake_all_kswapds(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask)
{
	pg_data_t *pref = node_data[nid];
	for (int i = 0; i < pref->nr_fallback; i++) {
		int n = pref->fallback[i];
		if ((gfp & __GFP_THISNODE) && n != nid)
			continue;
		if (!nodemask || node_isset(n, *nodemask))
			wakeup_kswapd(node_data[n], gfp, order);
	}
}

/* Linux's __alloc_pages_direct_reclaim: reclaim (mm/vmscan.c), then try
 * again, once more after draining the per-CPU lists (what reclaim freed
 * may sit there); *progress is what reclaim reported. */
static struct page *alloc_pages_direct_reclaim(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask,
					       int alloc_flags, unsigned long *progress)
{
	struct page *page = NULL;
	unsigned long pflags;
	/* The reclaim and the retries after it are a memory stall (PSI), as
	 * in Linux 6.1's __alloc_pages_direct_reclaim. */
	psi_memstall_enter(&pflags);
	*progress = try_to_free_pages(gfp, order, nid, nodemask);
	if (*progress) {
		page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
		if (!page) {
			drain_all_pages();
			page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
		}
	}
	psi_memstall_leave(&pflags);
	return page;
}

/* Linux 6.1's should_reclaim_retry: whether another round of reclaim may
 * succeed. Progress (for orders up to PAGE_ALLOC_COSTLY_ORDER) starts the
 * count of rounds without it again; past MAX_RECLAIM_RETRIES of them, no.
 * Otherwise yes when a node's free pages and what reclaim could free
 * there (node_reclaimable_pages: nothing of the anon lists without
 * swap), less a share growing with the rounds without progress, would
 * pass its min watermark. */
static bool should_reclaim_retry(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask,
				 int alloc_flags, bool did_some_progress, unsigned int *no_progress_loops)
{
	if (did_some_progress && order <= PAGE_ALLOC_COSTLY_ORDER)
		*no_progress_loops = 0;
	else
		(*no_progress_loops)++;
	/* "Before OOM, exhaust highatomic_reserve" (Linux 6.1). */
	if (*no_progress_loops > MAX_RECLAIM_RETRIES)
		return unreserve_highatomic_pageblock(gfp, nid, nodemask, true);
	pg_data_t *pref = node_data[nid];
	for (int i = 0; i < pref->nr_fallback; i++) {
		int n = pref->fallback[i];
		if (((gfp & __GFP_THISNODE) && n != nid) || (nodemask && !node_isset(n, *nodemask)))
			continue;
		pg_data_t *pgdat = node_data[n];
		unsigned long available = node_reclaimable_pages(pgdat) + READ_ONCE(pgdat->nr_free);
		available -= (*no_progress_loops * available + MAX_RECLAIM_RETRIES - 1) / MAX_RECLAIM_RETRIES;
		if (__watermark_ok(pgdat, order, pgdat->watermark[WMARK_MIN], alloc_flags, available))
			return true;
	}
	return false;
}

/* --- direct compaction (Linux 6.1's __alloc_pages_direct_compact and its
 * callers in __alloc_pages_slowpath; mm/compaction.c) --- */

/* Linux's __alloc_pages_direct_compact: compaction of the nodes the
 * request may use (as the reclaimer: PF_MEMALLOC, no reclaim recursion
 * from its own allocations), then the allocation tried again.
 * compact_stall counts each compaction that was not skipped;
 * compact_success those followed by the allocation (which ends the
 * node's deferral), compact_fail the others. */
static struct page *alloc_pages_direct_compact(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask,
					       int alloc_flags, enum compact_priority prio,
					       enum compact_result *compact_result)
{
	if (!order)
		return NULL;
	unsigned long pflags;
	psi_memstall_enter(&pflags); /* as Linux 6.1's: a memory stall (PSI) */
	unsigned int noreclaim = memalloc_noreclaim_save();
	*compact_result = try_to_compact_pages(gfp, order, alloc_flags, nid, nodemask, prio);
	memalloc_noreclaim_restore(noreclaim);
	psi_memstall_leave(&pflags);
	if (*compact_result == COMPACT_SKIPPED)
		return NULL;
	count_vm_event(COMPACTSTALL);
	struct page *page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
	if (page) {
		pg_data_t *pgdat = node_data[page_to_nid(page)];
		pgdat->compact_blockskip_flush = false;
		compaction_defer_reset(pgdat, (int)order, true);
		count_vm_event(COMPACTSUCCESS);
		return page;
	}
	count_vm_event(COMPACTFAIL);
	cond_resched();
	return NULL;
}

/* Which requests compact directly: mmlab's only the costly orders (above
 * PAGE_ALLOC_COSTLY_ORDER) that may reclaim, not a reclaimer's own
 * (Linux's gfp_pfmemalloc_allowed). Linux 6.1 compacts for any order
 * above 0 after reclaim failed, and first for unmovable orders above 0
 * too. */
static bool may_compact_directly(gfp_t gfp, unsigned int order, bool pfmemalloc)
{
	return order > PAGE_ALLOC_COSTLY_ORDER && gfpflags_allow_blocking(gfp) && !pfmemalloc &&
	       !(current_pflags() & PF_MEMALLOC);
}

/* Linux 6.1's __alloc_pages_may_oom: reclaim has failed, so the OOM
 * killer (mm/oom_kill.c), one caller at a time: another holding the lock
 * is killing for this one too (*did_some_progress, after a tick's
 * sleep). Under the lock one more try at the high watermark catches a
 * kill that just finished; then the requests the OOM killer will not help
 * stop: costly orders, __GFP_RETRY_MAYFAIL (the caller has a fallback),
 * __GFP_THISNODE (a kill frees memory anywhere). (Linux also stops for
 * a coredumping task, lowmem zones and suspended storage, which mmlab
 * does not have.) A __GFP_NOFAIL request the killer could not help gets
 * the whole reserve. */
static struct page *alloc_pages_may_oom(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask,
					unsigned long *did_some_progress)
{
	struct oom_control oc = { .nodemask = nodemask, .gfp_mask = gfp, .order = (int)order };
	*did_some_progress = 0;
	if (!oom_lock_trylock()) {
		*did_some_progress = 1;
		return NULL;
	}
	/* Whether an earlier victim's memory is still on its way back, asked
	 * before the last try rather than only after it, in
	 * select_bad_process (Linux 6.1's one place): a victim whose
	 * exit_mmap ended between the try and the walk left the walk nobody
	 * to wait for and its memory unseen by the try, and the killer took
	 * another process, the allocating one included. Under TCG, which runs
	 * a machine's vCPUs in turns on one host thread, that gap can last a
	 * whole turn of the other vCPUs (memoryless's oom program: a third
	 * kill with 500 MiB free). No victim appears while oom_lock is held,
	 * so none can finish after this without having been seen here. */
	oc.victims_pending = oom_victims_pending();
	struct page *page = get_page_from_freelist((gfp | __GFP_HARDWALL) & ~__GFP_DIRECT_RECLAIM, order, nid,
						   nodemask, ALLOC_WMARK_HIGH);
	if (page || order > PAGE_ALLOC_COSTLY_ORDER || (gfp & (__GFP_RETRY_MAYFAIL | __GFP_THISNODE)))
		goto out;
	if (out_of_memory(&oc) || (gfp & __GFP_NOFAIL)) {
		*did_some_progress = 1;
		if (gfp & __GFP_NOFAIL)
			page = get_page_from_freelist(gfp, order, nid, NULL, ALLOC_NO_WATERMARKS);
	}
out:
	oom_lock_unlock();
	return page;
}

static __noinline struct page *alloc_pages_slowpath(gfp_t gfp, unsigned int order, int nid,
						     const nodemask_t *nodemask)
{
	int alloc_flags = ALLOC_WMARK_MIN;
	if (gfp & __GFP_HIGH)
		alloc_flags |= ALLOC_HIGH;
	if (gfp & __GFP_ATOMIC)
		alloc_flags |= ALLOC_HARDER;
	bool pfmemalloc = (current_pflags() & PF_MEMALLOC) && !(gfp & __GFP_NOMEMALLOC);

	/* Below low: kswapd reclaims in the background; meanwhile the
	 * pages between low and min are what min is for. */
	if (gfp & __GFP_KSWAPD_RECLAIM)
		wake_all_kswapds(gfp, order, nid, nodemask);
	struct page *page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
	if (page)
		return page;

	/* Linux 6.1: a costly request compacts first (async), as it likely
	 * has the base pages and needs them together, not reclaimed. */
	enum compact_priority compact_priority = DEF_COMPACT_PRIORITY;
	enum compact_result compact_result = COMPACT_SKIPPED;
	int compaction_retries = 0;
	bool compact = may_compact_directly(gfp, order, pfmemalloc);
	if (compact) {
		page = alloc_pages_direct_compact(gfp, order, nid, nodemask, alloc_flags, INIT_COMPACT_PRIORITY,
						  &compact_result);
		if (page)
			return page;
		if (gfp & __GFP_NORETRY) {
			/* Linux: compaction skipped (too few free pages) or
			 * deferred (it failed recently): reclaim is unlikely
			 * to make whole pageblocks free on its own. */
			if (compact_result == COMPACT_SKIPPED || compact_result == COMPACT_DEFERRED)
				goto nopage;
			compact_priority = INIT_COMPACT_PRIORITY;
		}
	}

	unsigned int no_progress = 0;
	bool drained = false;
	for (unsigned long loops = 0;; loops++) {
		if (loops && (gfp & __GFP_KSWAPD_RECLAIM))
			wake_all_kswapds(gfp, order, nid, nodemask);
		/* A request that cannot block ends here. Pages sitting in
		 * per-CPU lists count for nothing in the watermarks: an order-0
		 * one first takes back this CPU's (mmlab's own step, cheap and
		 * local; Linux does not drain for it). A high-order one does
		 * not: order-0 pages rarely complete a large block, and a
		 * GFP_NOWAIT failure should cost no more than its checks. */
		if (!gfpflags_allow_blocking(gfp)) {
			if (order == 0) {
				drain_local_pages(NULL);
				page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
			}
			return page;
		}
		/* Linux's retry: another try before each round. Every CPU's
		 * lists are drained only where Linux drains them, after a
		 * reclaim that made progress and still left the request
		 * unserved (alloc_pages_direct_reclaim): a drain at every
		 * round asked every CPU to give its lists back at every
		 * allocation a machine under pressure made (swapping a
		 * working set of 1.5 times the RAM out and in, 8.8 million
		 * pages went from a list to the buddy lists for 193,000
		 * swapped out). */
		if (loops) {
			page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
			if (page)
				return page;
		}

		/* Linux's __gfp_pfmemalloc_flags: an OOM victim may use half
		 * of the reserve, from any node (Linux drops the nodemask of
		 * such "high priority and system rather than user oriented"
		 * requests), to exit. */
		if (!pfmemalloc && !(gfp & __GFP_NOMEMALLOC) && oom_reserves_allowed()) {
			alloc_flags = ALLOC_WMARK_MIN | ALLOC_OOM;
			nodemask = NULL;
			page = get_page_from_freelist(gfp, order, nid, NULL, alloc_flags);
			if (page)
				return page;
		}

		unsigned long reclaimed = 0;
		if (pfmemalloc) {
			/* Linux: "Avoid recursion of direct reclaim". */
			page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags | ALLOC_NO_WATERMARKS);
			if (page)
				return page;
		} else if (!(current_pflags() & PF_MEMALLOC)) {
			page = alloc_pages_direct_reclaim(gfp, order, nid, nodemask, alloc_flags, &reclaimed);
			if (page)
				return page;
			/* mmlab's: a reclaim that freed nothing still has the
			 * per-CPU lists to take back, once per request (Linux
			 * drains only after progress; mmlab's nodes can be a few
			 * MiB, a list's worth on each CPU). */
			if (!reclaimed && !drained) {
				drain_all_pages();
				drained = true;
				page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
				if (page)
					return page;
			}
			/* Linux's __alloc_pages_direct_reclaim: then the
			 * highatomic reserve beyond its last block. */
			if (unreserve_highatomic_pageblock(gfp, nid, nodemask, false)) {
				page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags);
				if (page)
					return page;
			}
		}
		/* Linux: "Try direct compaction and then allocating". */
		if (compact) {
			page = alloc_pages_direct_compact(gfp, order, nid, nodemask, alloc_flags, compact_priority,
							  &compact_result);
			if (page)
				return page;
		}

		if (gfp & __GFP_NOFAIL) {
			/* As Linux: a request that must not fail may use half
			 * of the reserve below min once reclaim did not help,
			 * and lets other tasks run (and free) between tries.
			 * Linux's should_reclaim_retry gives the highatomic
			 * reserve back before the OOM killer; a request that
			 * cannot fail takes it back at once. */
			unreserve_highatomic_pageblock(gfp, nid, nodemask, true);
			page = get_page_from_freelist(gfp, order, nid, nodemask, alloc_flags | ALLOC_HIGH);
			if (page)
				return page;
			/* Linux: reclaim that cannot help calls the OOM
			 * killer for __GFP_NOFAIL too. */
			if (!should_reclaim_retry(gfp, order, nid, nodemask, alloc_flags, reclaimed != 0, &no_progress)) {
				unsigned long oom_progress;
				page = alloc_pages_may_oom(gfp, order, nid, nodemask, &oom_progress);
				if (page)
					return page;
				if (oom_progress)
					no_progress = 0;
			}
			__atomic_add_fetch(&nofail_retries, 1, __ATOMIC_RELAXED);
			if (loops == NOFAIL_STALL_WARN_LOOPS)
				pr_warn("page allocation stalls: order:%u, mode:%#x, retrying (__GFP_NOFAIL)\n",
					order, gfp);
			cond_resched();
			continue;
		}
		if (gfp & __GFP_NORETRY)
			goto nopage;
		if (order > PAGE_ALLOC_COSTLY_ORDER && !(gfp & __GFP_RETRY_MAYFAIL))
			goto nopage;
		if (should_reclaim_retry(gfp, order, nid, nodemask, alloc_flags, reclaimed != 0, &no_progress))
			continue;
		/* Linux: compaction needs free base pages, so it is tried
		 * again only after a reclaim that made progress. */
		if (compact && reclaimed &&
		    should_compact_retry(gfp, order, alloc_flags, nid, nodemask, compact_result, &compact_priority,
					 &compaction_retries))
			continue;
		/* "Reclaim has failed us, start killing things." */
		unsigned long oom_progress;
		page = alloc_pages_may_oom(gfp, order, nid, nodemask, &oom_progress);
		if (page)
			return page;
		/* A victim whose reserve did not suffice fails (it is dying);
		 * anyone else retries while the OOM killer makes progress. */
		if (oom_reserves_allowed() && ((alloc_flags & ALLOC_OOM) || (gfp & __GFP_NOMEMALLOC)))
			goto nopage;
		if (!oom_progress)
			goto nopage;
		no_progress = 0;
		/* The victim may need this CPU to die (Linux's
		 * should_reclaim_retry ends with cond_resched()). */
		cond_resched();
	}
nopage:
	/* mmlab's: a costly request that failed asks kcompactd of its node
	 * to make the order free for the next one (Linux leaves that to
	 * kswapd, which wakes kcompactd once it has balanced the node). */
	if (order > PAGE_ALLOC_COSTLY_ORDER && (gfp & __GFP_KSWAPD_RECLAIM))
		wakeup_kcompactd(node_data[nid], (int)order);
	return NULL;
}

/* --- allocation and free ------------------------------------------------ */

void split_page(struct page *page, unsigned int order)
{
	if (!order)
		return;
	if (!PageHead(page) || page->private != order) {
		pr_err("BUG: split_page of pfn %#lx as order %u: not such an allocation\n", page_to_pfn(page), order);
		return;
	}
	/* A block allocated __GFP_UNTOUCHED is checked now: its pages go
	 * their own ways, and any of them may be written (mm/gfp.h). */
	if (unlikely(page->flags & BIT(PG_poison_kept))) {
		page->flags &= ~BIT(PG_poison_kept);
		check_poison(page, order);
	}
	page->flags &= ~BIT(PG_head);
	page->private = 0;
	for (unsigned long i = 1; i < (1ul << order); i++)
		page[i]._refcount = 1;
}

static inline void prep_new_page(struct page *page, unsigned int order, gfp_t gfp)
{
	page->_refcount = 1;
	/* _mapcount is -1 already; storing it with _refcount makes one 8-byte
	 * store, which the next check's 8-byte load of both fields can be
	 * forwarded from. After a lone 4-byte store that load waits for the
	 * store to reach the cache: a stall on every alloc/free pair. */
	page->_mapcount = -1;
	if (order) {
		page->flags |= BIT(PG_head);
		page->private = order;
	}
	if (unlikely(page_poisoning)) {
		/* A caller that will not touch the block leaves the pattern
		 * for the next allocation to check (mm/gfp.h). */
		if ((gfp & (__GFP_UNTOUCHED | __GFP_ZERO)) == __GFP_UNTOUCHED)
			page->flags |= BIT(PG_poison_kept);
		else
			check_poison(page, order);
	}
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
}

static __noinline struct page *__alloc_pages_full(gfp_t gfp, unsigned int order, int nid,
						  const nodemask_t *nodemask)
{
	/* Linux's prepare_alloc_pages -> should_fail_alloc_page: an injected
	 * failure returns NULL quietly. (Armed, the fast path is skipped, so
	 * every allocation is asked here exactly once.) */
	if (unlikely(fail_page_alloc_armed) && should_fail_alloc_page(gfp, order))
		return NULL;
	if (unlikely(order > MAX_PAGE_ORDER)) {
		if (!(gfp & __GFP_NOWARN))
			pr_warn("page allocation of order %u is above the maximum order %d\n", order,
				MAX_PAGE_ORDER);
		return NULL;
	}
	if (nid == NUMA_NO_NODE)
		nid = numa_node_id();
	if (unlikely(nid < 0 || nid >= MAX_NUMNODES || !node_data[nid])) {
		if (!(gfp & __GFP_NOWARN))
			pr_warn("page allocation on node %d, which does not exist\n", nid);
		return NULL;
	}
	struct page *page = __get_page_from_freelist(gfp, order, nid, nodemask, ALLOC_WMARK_LOW);
	if (unlikely(!page) && likely(allowed_nodes_have_memory(gfp, nid, nodemask))) {
		/* The task's scope (memalloc_nofs/noio_save) applies from
		 * here on, to reclaim above all (Linux's __alloc_pages:
		 * gfp = current_gfp_context(gfp)). */
		page = alloc_pages_slowpath(current_gfp_context(gfp), order, nid, nodemask);
	}
	if (likely(page))
		prep_new_page(page, order, gfp);
	else if (!(gfp & __GFP_NOWARN))
		warn_alloc(gfp, order, nid, nodemask);
	return page;
}

/* The order-0 fast path's take: the first page of this CPU's list on
 * pgdat, with the checks of check_new_page when they are on; NULL when the
 * list is empty or the page fails them (the full path then refills, or
 * reports). */
static __always_inline struct page *rmqueue_pcplist_fast(pg_data_t *pgdat, int nid, int migratetype)
{
	unsigned long flags;
	struct page *page = NULL;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	struct list_head *list = &pcp->lists[migratetype];
	asm("" : "+r"(list)); /* one address for the list, not two */
	struct page *first = list_first_entry(list, struct page, lru);
	int count = pcp->count;
	if (likely(list->next != list &&
		   (!is_check_pages_enabled() || ((first->flags & PAGE_FLAGS_MASK) == BIT(PG_pcp) &&
						  first->_refcount == 0 && first->_mapcount == -1)))) {
		/* The first entry's prev is the head: unlinked without
		 * reading it, so the head's store waits on no load. */
		struct list_head *next = first->lru.next;
		list->next = next;
		next->prev = list;
		pcp->count = count - 1;
		first->flags &= ~BIT(PG_pcp);
		first->_refcount = 1;
		first->_mapcount = -1; /* with _refcount: see prep_new_page */
		__numa_statistics(nid, nid);
		page = first;
	}
	local_irq_restore(flags);
	return page;
}

/* The common case, small enough to need no saved registers: order 0 from
 * the preferred node's own per-CPU list, above its low watermark, with
 * the checks of check_new_page when they are on, when no nodemask
 * excludes that node (the per-CPU list holds pages of the preferred node;
 * __alloc_pages tests the mask). NULL for anything else (empty list, fallback,
 * watermarks, poisoning, fault injection, a bad page): the caller takes
 * the full path. It makes no call (fault injection is asked in the full
 * path), and the order is known (0): passed as a constant, it needs no
 * register across it. The caller has ruled out other orders and a mask
 * without the node, passes its mask on to the full path, and clears the
 * page itself for __GFP_ZERO. */
static __always_inline struct page *alloc_page_fast_try(gfp_t gfp, int preferred_nid)
{
	if (likely(!page_poisoning && !fail_page_alloc_armed)) {
		int nid = preferred_nid;
		/* One test for a named node; NUMA_NO_NODE is out of line. */
		if (unlikely((unsigned)nid >= MAX_NUMNODES)) {
			if (nid != NUMA_NO_NODE)
				return NULL;
			nid = numa_node_id();
		}
		pg_data_t *pgdat = node_data[nid];
		/* The node must be its own first choice, as in the full path.
		 * (With nr_fallback 0 no node has memory, so no free pages
		 * either: the watermark test refuses that case.) */
		if (likely(pgdat && pgdat->fallback[0] == nid && pgdat->nr_free > pgdat->watermark[WMARK_LOW]))
			return rmqueue_pcplist_fast(pgdat, nid, gfp_migratetype(gfp));
	}
	return NULL;
}

static __always_inline struct page *alloc_page_fast(gfp_t gfp, int preferred_nid, const nodemask_t *nodemask)
{
	struct page *page = alloc_page_fast_try(gfp, preferred_nid);
	if (likely(page))
		return page;
	return __alloc_pages_full(gfp, 0, preferred_nid, nodemask);
}

/* The same for a zeroed page (every anonymous fault's): the fast path's
 * page, cleared here; the full path clears its own (prep_new_page). */
static __noinline struct page *alloc_page_fast_zeroed(gfp_t gfp, int preferred_nid, const nodemask_t *nodemask)
{
	struct page *page = alloc_page_fast_try(gfp, preferred_nid);
	if (likely(page)) {
		memset(page_address(page), 0, PAGE_SIZE);
		return page;
	}
	return __alloc_pages_full(gfp, 0, preferred_nid, nodemask);
}

/* The one entry, as Linux's __alloc_pages(): order 2^order pages from
 * preferred_nid (NUMA_NO_NODE: this CPU's node) or the nodes nearest to
 * it, only from nodes in nodemask (NULL: every node). This is where
 * memory policies plug in. */
struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid, const nodemask_t *nodemask)
{
	/* A mask that holds the preferred node changes nothing there: the
	 * full path, too, would take that node's per-CPU list first (a
	 * memory policy's allocations, MPOL_BIND's every one). */
	if (likely(order == 0 && (!nodemask || ((unsigned)preferred_nid < MAX_NUMNODES &&
						 __node_isset(preferred_nid, nodemask)))))
		return gfp & __GFP_ZERO ? alloc_page_fast_zeroed(gfp, preferred_nid, nodemask)
					: alloc_page_fast(gfp, preferred_nid, nodemask);
	return __alloc_pages_full(gfp, order, preferred_nid, nodemask);
}

/* The same for order 0 and no mask, which alloc_pages_node and
 * alloc_pages call when their order is a constant 0 (page_alloc.h): the
 * common request pays no test of an order or a mask. */
struct page *__alloc_pages_order0(gfp_t gfp, int preferred_nid)
{
	if (likely(!(gfp & __GFP_ZERO)))
		return alloc_page_fast(gfp, preferred_nid, NULL);
	return alloc_page_fast_zeroed(gfp, preferred_nid, NULL);
}

static __always_inline void __free_pages_caller(struct page *page, unsigned int order, unsigned long caller)
{
	if (unlikely(!free_pages_prepare(page, order, caller)))
		return;
	pg_data_t *pgdat = node_data[page_to_nid(page)];
	unsigned long pfn = page_to_pfn(page);
	int migratetype = get_pfnblock_migratetype(pgdat, pfn);
	/* Linux 6.1's free_the_page: pcp_allowed_order goes to
	 * free_unref_page (with constant orders, as in rmqueue), which sends
	 * an isolated block's pages straight to the buddy lists and a
	 * highatomic block's to the movable per-CPU list. */
	if (pcp_allowed_order(order) && likely(!is_migrate_isolate(migratetype))) {
		if (migratetype >= MIGRATE_PCPTYPES)
			migratetype = MIGRATE_MOVABLE;
		if (order)
			free_unref_page(page, pgdat, pageblock_order, migratetype);
		else
			free_unref_page(page, pgdat, 0, migratetype);
		return;
	}
	unsigned long flags;
	spin_lock_irqsave(&pgdat->lock, flags);
	free_one_page(page, pfn, pgdat, order, migratetype);
	note_node_refilled(pgdat);
	spin_unlock_irqrestore(&pgdat->lock, flags);
}

static __noinline void free_pages_slow(struct page *page, unsigned int order, unsigned long caller)
{
	__free_pages_caller(page, order, caller);
}

/* The per-CPU list of a block's type, chosen by comparing rather than by
 * indexing, NULL for the types without one (isolated, highatomic). The
 * type is read through the page (its node's block bitmap): indexed, the
 * list's address would wait for those loads, and the next allocation's
 * read of the list head would wait for that address (a page freed and
 * allocated again, as in a fault after a munmap, is a chain of them).
 * Chosen by a predicted branch, the address is a constant offset from
 * pcp, and the CPU stores to it before the type is known. The empty asm
 * keeps the compiler from folding the cases back into an index. */
static __always_inline struct list_head *pcp_list_of(struct per_cpu_pages *pcp, int migratetype)
{
	struct list_head *list;
	if (likely(migratetype == MIGRATE_MOVABLE))
		list = &pcp->lists[MIGRATE_MOVABLE];
	else if (migratetype == MIGRATE_UNMOVABLE)
		list = &pcp->lists[MIGRATE_UNMOVABLE];
	else if (migratetype == MIGRATE_RECLAIMABLE)
		list = &pcp->lists[MIGRATE_RECLAIMABLE];
	else
		return NULL;
	asm("" : "+r"(list));
	if (!list)
		__builtin_unreachable();
	return list;
}

/* The common case, as __alloc_pages's: an order-0 page that passes the
 * free checks goes onto a per-CPU list that has room. The page's node is
 * compared with this CPU's, for the same reason as pcp_list_of's: the
 * node's data then comes from this CPU's, not from the page's flags. */
void __free_pages(struct page *page, unsigned int order)
{
	if (likely(order == 0 && (!is_check_pages_enabled() || free_page_looks_right(page)) &&
		   !page_poisoning)) {
		int nid = page_to_nid(page);
		unsigned long flags;
		local_irq_save(flags);
		int this_nid = numa_node_id();
		pg_data_t *pgdat = node_data[this_nid];
		asm("" : "+r"(pgdat)); /* not to be folded into node_data[nid] */
		if (unlikely(nid != this_nid))
			pgdat = node_data[nid];
		struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
		/* The list of the block's type; an isolated or highatomic
		 * block's page takes the full path (free_unref_page's cases). */
		struct list_head *list = pcp_list_of(pcp, get_pfnblock_migratetype(pgdat, page_to_pfn(page)));
		if (likely(pcp->count < pcp->high && list)) {
			page->private = 0;
			page->_refcount = 0;
			page->_mapcount = -1; /* with _refcount: see prep_new_page */
			if (is_check_pages_enabled())
				page->freed_by = (unsigned long)__builtin_return_address(0);
			page->flags |= BIT(PG_pcp);
			list_add(&page->lru, list);
			pcp->count++;
			local_irq_restore(flags);
			return;
		}
		local_irq_restore(flags);
	}
	free_pages_slow(page, order, (unsigned long)__builtin_return_address(0));
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (addr)
		__free_pages_caller(virt_to_page((void *)addr), order,
				    (unsigned long)__builtin_return_address(0));
}

/* Linux's put_page/folio_put: the last reference frees the page. A user
 * page may be referenced by get_user_pages (mm/gup.c) beside its mapping,
 * and both drop theirs with put_page from any CPU, so the drop is atomic;
 * the free checks then see the count 1 a sole owner has. A count read as 1
 * is a sole owner's: gup takes a reference only on a page still mapped
 * (the mapping's own reference is there), never once its unmapping is
 * done. A count of 0 or less goes to the checks as it is (reported). */
void put_page(struct page *page)
{
	/* A hugetlb page is one object however many 4 KiB it has: the
	 * reference is its head's, and the last goes back to its pool. */
	page = compound_head(page);
	int c = __atomic_load_n(&page->_refcount, __ATOMIC_ACQUIRE);
	/* A page on the LRU may gain a reference from reclaim's or
	 * compaction's isolation (get_page_unless_zero under the lru_lock)
	 * at any moment: its last reference is always dropped atomically,
	 * and its count stays 0 until page_cache_release has taken it off
	 * the lists, so that no isolation takes a page being freed. */
	if (c > 1 || page_test_flag(page, PG_lru)) {
		if (__atomic_sub_fetch(&page->_refcount, 1, __ATOMIC_ACQ_REL))
			return;
	}
	if (PageHugetlb(page)) {
		page->_refcount = 1; /* the last one: ours alone now */
		free_huge_folio(page, false);
		return;
	}
	/* Off the LRU lists, reclaim's flags cleared (Linux's
	 * __page_cache_release, mm/swap.c), while the page still says how
	 * many pages it is. */
	if (page->flags & LRU_PAGE_FLAGS)
		page_cache_release(page);
	page->_refcount = 1; /* the last one: ours alone now, as the free checks expect */
	if (page_test_flag(page, PG_anon_thp))
		thp_prep_free(page); /* mm/rmap.h: freed as the order-9 block it was */
	else if (page_test_flag(page, PG_shmem_thp))
		shmem_thp_prep_free(page); /* mm/shmem.h: the same for a tmpfs file's */
	__free_pages_caller(page, PageHead(page) ? (unsigned int)page->private : 0,
			    (unsigned long)__builtin_return_address(0));
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);
	return page ? (unsigned long)page_address(page) : 0;
}

unsigned long get_zeroed_page(gfp_t gfp)
{
	return __get_free_pages(gfp | __GFP_ZERO, 0);
}
