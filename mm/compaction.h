/* Memory compaction (Linux 6.1's include/linux/compaction.h and
 * mm/compaction.c): movable pages of a node are moved from the bottom of
 * the node to free pages at its top, so that free memory comes together
 * in blocks of high order. mm/compaction.c has compact_zone and what
 * decides when to run it; mm/compaction_isolate.c the two scanners;
 * mm/kcompactd.c the per-node thread, the sysctls and the node files.
 * docs/compaction.md tells the story.
 *
 * mmlab's nodes have one zone each: Linux's zone is mmlab's pg_data_t,
 * and compaction works within one node, so a page moved stays on its
 * node (its memory policy still holds). */
#ifndef MM_COMPACTION_H
#define MM_COMPACTION_H

#include "mm/page_alloc.h"

/* Linux's enum compact_priority: the lower, the harder compaction tries. */
enum compact_priority {
	COMPACT_PRIO_SYNC_FULL,
	MIN_COMPACT_PRIORITY = COMPACT_PRIO_SYNC_FULL,
	COMPACT_PRIO_SYNC_LIGHT,
	MIN_COMPACT_COSTLY_PRIORITY = COMPACT_PRIO_SYNC_LIGHT,
	DEF_COMPACT_PRIORITY = COMPACT_PRIO_SYNC_LIGHT,
	COMPACT_PRIO_ASYNC,
	INIT_COMPACT_PRIORITY = COMPACT_PRIO_ASYNC
};

/* Linux's enum compact_result, in its order (the callers compare them). */
enum compact_result {
	COMPACT_NOT_SUITABLE_ZONE, /* for more than one zone only: then SKIPPED */
	COMPACT_SKIPPED,           /* not started: too few free pages */
	COMPACT_DEFERRED,          /* not started: failed recently */
	COMPACT_NO_SUITABLE_PAGE,  /* internal: no block of the order yet */
	COMPACT_CONTINUE,          /* go on */
	COMPACT_COMPLETE,          /* the scanners met over the whole node */
	COMPACT_PARTIAL_SKIPPED,   /* they met, but parts were skipped */
	COMPACT_CONTENDED,         /* stopped: a signal, or no target pages */
	COMPACT_SUCCESS,           /* a block of the order is free */
};

/* Linux's enum migrate_mode, as compaction passes it down. mmlab's
 * migration never waits on a page (it has no page lock or writeback), so
 * the modes differ only in what the scanners look at. */
enum migrate_mode {
	MIGRATE_ASYNC,
	MIGRATE_SYNC_LIGHT,
	MIGRATE_SYNC,
};

/* /proc/sys/vm: extfrag_threshold (0..1000, 500), compaction_proactiveness
 * (0..100, 20), compact_unevictable_allowed (0..1, 1). */
extern int sysctl_extfrag_threshold;
extern int sysctl_compaction_proactiveness;
extern int sysctl_compact_unevictable_allowed;

/* Linux's compaction_suitable: COMPACT_SUCCESS when pgdat has a free
 * block of order above the watermark alloc_flags name already,
 * COMPACT_SKIPPED when it has too few free pages for compaction to work
 * (the low watermark plus compact_gap, twice the order's pages: the
 * targets of one round), or, for a costly order, when its
 * fragmentation_index says a failure would come from too little memory
 * rather than fragmentation (at or below extfrag_threshold);
 * COMPACT_CONTINUE otherwise. */
enum compact_result compaction_suitable(pg_data_t *pgdat, int order, int alloc_flags);

/* Deferral after failures (Linux's): defer_compaction after a direct
 * compaction failed for order; compaction_deferred then says to skip the
 * next 2^compact_defer_shift - 1 attempts at order or above (up to 63);
 * compaction_defer_reset after a success (alloc_success: the allocation
 * itself succeeded, which ends the deferral). */
void defer_compaction(pg_data_t *pgdat, int order);
bool compaction_deferred(pg_data_t *pgdat, int order);
void compaction_defer_reset(pg_data_t *pgdat, int order, bool alloc_success);
/* Whether the deferral has run its full length: the next compaction
 * starts with fresh skip hints (__reset_isolation_suitable). */
bool compaction_restarting(pg_data_t *pgdat, int order);

/* Linux's try_to_compact_pages: direct compaction for an allocation of
 * order with gfp (which must allow I/O and file system calls: Linux's
 * gfp_compaction_allowed) on every node it may use, nearest first, at
 * prio; stops at the first node where a block of the order is free. The
 * best result of the nodes. Counts compact_stall. */
enum compact_result try_to_compact_pages(gfp_t gfp, unsigned int order, int alloc_flags, int nid,
					 const nodemask_t *nodemask, enum compact_priority prio);

/* Linux's should_compact_retry (mm/page_alloc.c): after a round of the
 * slow path whose reclaim made progress, whether direct compaction is
 * worth another try, maybe at a higher *compact_priority; the retries are
 * counted in *compaction_retries. */
bool should_compact_retry(gfp_t gfp, unsigned int order, int alloc_flags, int nid, const nodemask_t *nodemask,
			  enum compact_result compact_result, enum compact_priority *compact_priority,
			  int *compaction_retries);

/* Linux's compact_node: the whole of node nid compacted (order -1: no
 * order to stop at), every hint ignored. /proc/sys/vm/compact_memory
 * does it for every node (compact_nodes), and a write to
 * /sys/devices/system/node/node<N>/compact for one. */
void compact_node(int nid);
void compact_nodes(void);

/* What one compaction of a part of a node did: the test's view
 * (tests/compaction_test.c). compact_range compacts [start_pfn, end_pfn)
 * of node nid (pageblock aligned) as compact_node does the whole node,
 * for order (-1: until the scanners meet), synchronously; with
 * COMPACT_RANGE_SKIP_HINTS it honours the skip bits and sets them, as a
 * direct or kcompactd compaction does, else it ignores and leaves them;
 * with COMPACT_RANGE_NOFS it compacts for a GFP_NOFS request (no page of
 * a page cache is taken), else for a GFP_KERNEL one. */
#define COMPACT_RANGE_SKIP_HINTS 0x1
#define COMPACT_RANGE_NOFS 0x2
struct compact_range_result {
	enum compact_result result;
	unsigned long migrate_scanned, free_scanned;
	unsigned long isolated; /* pages isolated by both scanners */
	unsigned long migrated; /* pages moved */
};
void compact_range(int nid, unsigned long start_pfn, unsigned long end_pfn, int order, unsigned flags,
		   struct compact_range_result *out);

/* kcompactd (mm/kcompactd.c): wakeup_kcompactd asks node pgdat's thread
 * to compact for order, unless the node has a free block of it already
 * or compaction is deferred there (Linux's). kswapd calls it when it has
 * balanced a node for a high order; the slow path when a costly
 * allocation failed. */
void wakeup_kcompactd(pg_data_t *pgdat, int order);
/* Linux's fragmentation_score_node: the share (0..100) of the node's free
 * memory in blocks smaller than pageblock_order (extfrag_for_order; Linux
 * weighs each zone's by its share of the node, and a node has one zone
 * here). */
unsigned int fragmentation_score_node(pg_data_t *pgdat);
/* Whether node nid's kcompactd is compacting now or has a wakeup it has
 * not taken yet (an order a waker left while the node was not suitable
 * for it, which the thread takes at its next 500 ms timeout, as Linux's
 * kcompactd_max_order): for tests, which wait for it before they lay
 * pages out or count free pages. */
bool kcompactd_busy(int nid);
/* For the same tests: such a wakeup is taken now, not at the timeout (the
 * thread finds the node unsuitable again and is soon idle). */
void kcompactd_take_pending(int nid);

#endif
