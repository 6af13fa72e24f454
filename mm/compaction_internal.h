/* What mm/compaction.c, mm/compaction_isolate.c and mm/kcompactd.c
 * share: one compaction's state (Linux's struct compact_control,
 * mm/internal.h) and the scanners' entry points. */
#ifndef MM_COMPACTION_INTERNAL_H
#define MM_COMPACTION_INTERNAL_H

#include "lib/list.h"
#include "mm/compaction.h"

/* Pages isolated per round (Linux's COMPACT_CLUSTER_MAX, SWAP_CLUSTER_MAX). */
#define COMPACT_CLUSTER_MAX 32

/* One compaction of one node, from the bottom (migrate_pfn, going up) and
 * the top (free_pfn, going down) of [start_pfn, end_pfn) until the two
 * meet or compact_finished says the order is served. freepages holds free
 * pages taken off the buddy lists (order 0, reference count 1: Linux's
 * split_map_pages), migratepages the pages isolated from the LRU (each
 * with the isolation's reference). Linux links the isolated pages into a
 * list through their lru; mmlab keeps an unevictable page's mlock_count
 * in that word (as Linux 6.1) and puts a page back on the LRU with it,
 * so the isolated pages are held in an array instead. */
struct compact_control {
	struct list_head freepages;
	struct page *migratepages[COMPACT_CLUSTER_MAX];
	unsigned long nr_freepages;
	unsigned long nr_migratepages;
	unsigned long free_pfn;    /* the free scanner's next block (its start) */
	unsigned long migrate_pfn; /* the migration scanner's next pfn */
	unsigned long start_pfn, end_pfn; /* the part compacted: the node, or a test's range */
	pg_data_t *pgdat;
	unsigned long total_migrate_scanned;
	unsigned long total_free_scanned;
	unsigned long total_isolated;
	unsigned long total_migrated;
	gfp_t gfp_mask;
	int order;       /* -1: no order, until the scanners meet */
	int migratetype; /* of the request compacted for */
	int alloc_flags; /* the allocator's, for compaction_suitable */
	enum migrate_mode mode;
	bool ignore_skip_hint;      /* scan blocks with the skip bit set too */
	bool no_set_skip_hint;      /* leave no skip bits (a test's range) */
	bool ignore_block_suitable; /* free pages of any block type are targets */
	bool direct_compaction;     /* an allocation's, not kcompactd's or a write's */
	bool proactive_compaction;  /* kcompactd's proactive round */
	bool whole_zone;            /* started at the node's ends, not the cached positions */
	bool contended;             /* stopped early */
};

/* cc for a compaction of the whole of pgdat for order (-1: until the
 * scanners meet) in mode, on behalf of a GFP_KERNEL request at the min
 * watermark; every other field zero (hints honoured). */
void compact_control_init(struct compact_control *cc, pg_data_t *pgdat, int order, enum migrate_mode mode);

/* Linux's isolate_migrate_t. */
typedef enum {
	ISOLATE_ABORT,   /* stop compacting */
	ISOLATE_NONE,    /* nothing isolated in the block scanned */
	ISOLATE_SUCCESS, /* pages are on cc->migratepages */
} isolate_migrate_t;

/* The migration scanner (Linux's isolate_migratepages): from
 * cc->migrate_pfn, the next pageblock that is a suitable source, its
 * movable pages isolated onto cc->migratepages. */
isolate_migrate_t isolate_migratepages(struct compact_control *cc);
/* The free scanner (Linux's isolate_freepages): from cc->free_pfn down,
 * free pages of suitable target blocks onto cc->freepages, until there are
 * as many as pages to move, or the scanner reaches the migration
 * scanner's block. */
void isolate_freepages(struct compact_control *cc);
/* Linux's compact_scanners_met: the free scanner has come down to the
 * migration scanner's block. */
static inline bool compact_scanners_met(const struct compact_control *cc)
{
	return (cc->free_pfn >> pageblock_order) <= (cc->migrate_pfn >> pageblock_order);
}
/* The free pages left on cc->freepages back to the buddy lists (Linux's
 * release_freepages); the highest pfn among them (0 with none). */
unsigned long release_freepages(struct list_head *freelist);
/* The pages left on cc->migratepages back to the LRU (Linux's
 * putback_movable_pages). */
void putback_movable_pages(struct compact_control *cc);
/* Linux's __reset_isolation_suitable: every skip bit of the node clear,
 * the cached scanner positions back at its ends. */
void __reset_isolation_suitable(pg_data_t *pgdat);
/* Linux's reset_cached_positions: the scanners' cached positions at the
 * node's ends (the migration scanner's at its first pfn, the free
 * scanner's at its last pageblock). */
void reset_cached_positions(pg_data_t *pgdat);
/* Linux's reset_isolation_suitable: the same, only after a direct
 * compaction went over the whole node (compact_blockskip_flush). Linux's
 * kswapd calls it as it goes to sleep, before it wakes kcompactd; here
 * kcompactd does as it starts its work. */
void reset_isolation_suitable(pg_data_t *pgdat);
/* The node's first and last pfn + 1 (Linux's zone_start_pfn,
 * zone_end_pfn). */
static inline unsigned long node_end_pfn(const pg_data_t *pgdat)
{
	return pgdat->node_start_pfn + pgdat->node_spanned_pages;
}

/* kcompactd's proactive marks (mm/kcompactd.c): the score a node must
 * pass for a proactive round to start (high) and the one it ends below
 * (low). */
unsigned int fragmentation_score_wmark(bool low);

/* Linux's compact_zone: the whole run, which mm/compaction.c and
 * mm/kcompactd.c drive. */
enum compact_result compact_zone(struct compact_control *cc);
/* The compaction's scan counts into /proc/vmstat: compact_*_scanned, and
 * kcompactd's own (not direct, not a write's) as compact_daemon_*. */
void count_compact_scanned(const struct compact_control *cc, bool daemon);

#endif
