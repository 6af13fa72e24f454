/* The per-node buddy page allocator.
 *
 * Each node has free lists for orders 0..MAX_PAGE_ORDER (order 18: a 1 GiB
 * gigantic page), one per migrate type (grouping by mobility:
 * page_alloc_fallback.c); a free block of order k is 2^k pages, aligned to its size,
 * and its first page is PG_buddy with private == k. Freeing merges a block
 * with its buddy (pfn ^ 2^k) only when the buddy is itself a free block of
 * the same order on the same node, so merge never trusts a page that is not
 * free. Order-0 pages go through per-CPU lists (refilled and drained in
 * batches) so the common case takes no shared lock.
 *
 * Allocation tries the preferred node, then the other nodes in order of SLIT
 * distance (the node's fallback list), those in the caller's nodemask
 * only, each above its low watermark; then
 * the slow path: kswapd woken (mm/kswapd.c), the min watermark, draining
 * per-CPU lists, direct reclaim (mm/vmscan.c: the LRU lists and the
 * shrinkers) when the GFP flags allow it, and retries as the flags and
 * should_reclaim_retry say. */
#ifndef MM_PAGE_ALLOC_H
#define MM_PAGE_ALLOC_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "mm/gfp.h"
#include "mm/mmzone.h"
#include "mm/numa.h"
#include "mm/page.h"

#define MAX_PAGE_ORDER 18
#define NR_PAGE_ORDERS (MAX_PAGE_ORDER + 1)
#define PAGE_ALLOC_COSTLY_ORDER 3
/* A 2 MiB block, the order of a PMD-mapped THP (HPAGE_PMD_ORDER): the
 * unit the allocator groups pages by mobility in (Linux's
 * pageblock-flags.h). */
#define pageblock_order 9
#define pageblock_nr_pages (1ul << pageblock_order)

/* Linux's migrate types (include/linux/mmzone.h, 6.1, without CONFIG_CMA):
 * every pageblock has one, every free block sits on the free list of one,
 * and an allocation asks for one by its GFP flags (gfp_migratetype).
 * Unmovable: kernel memory that stays where it is (page tables, slabs,
 * kmalloc); movable: user pages, which migration can move (anonymous,
 * THP, tmpfs, hugetlb pool pages); reclaimable: slab caches a shrinker can
 * empty (SLAB_RECLAIM_ACCOUNT); highatomic: a reserve kept for high-order
 * atomic requests; isolate: blocks taken out of use for isolation (their
 * free pages count as free to no one). */
enum migratetype {
	MIGRATE_UNMOVABLE,
	MIGRATE_MOVABLE,
	MIGRATE_RECLAIMABLE,
	MIGRATE_PCPTYPES, /* the types with per-CPU lists */
	MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES,
	MIGRATE_ISOLATE,
	MIGRATE_TYPES
};
extern const char *const migratetype_names[MIGRATE_TYPES];

/* As Linux's gfp_migratetype: __GFP_MOVABLE (0x08) and __GFP_RECLAIMABLE
 * (0x10) shifted down are MIGRATE_MOVABLE and MIGRATE_RECLAIMABLE. */
#define GFP_MOVABLE_MASK (__GFP_RECLAIMABLE | __GFP_MOVABLE)
#define GFP_MOVABLE_SHIFT 3
static inline int gfp_migratetype(gfp_t gfp)
{
	return (int)((gfp & GFP_MOVABLE_MASK) >> GFP_MOVABLE_SHIFT);
}

/* A pageblock's flags (Linux's pageblock-flags.h): its migrate type in
 * three bits, and the skip hint compaction's scanners leave. Linux packs
 * NR_PAGEBLOCK_BITS (4) per block in a bitmap; mmlab keeps a byte per
 * block (pg_data_t.pageblock_flags), so that a store needs no
 * compare-and-exchange loop, with the same bits in it. */
#define PB_migratetype_bits 3
enum pageblock_bits {
	PB_migrate,
	PB_migrate_end = PB_migrate + PB_migratetype_bits - 1,
	PB_migrate_skip,
	NR_PAGEBLOCK_BITS
};
#define MIGRATETYPE_MASK ((1u << PB_migratetype_bits) - 1)

struct free_area {
	struct list_head free_list[MIGRATE_TYPES];
	unsigned long nr_free; /* blocks on all the lists of this order */
};

/* Linux 6.1's NR_PCP_LISTS with pcp_allowed_order reduced to order 0 and
 * pageblock_order: a list per migrate type that has per-CPU lists for
 * order 0, and one list for the THP order whatever the type (Linux's
 * NR_PCP_THP). order_to_pindex maps an order and a type to its list. */
#define NR_LOWORDER_PCP_LISTS MIGRATE_PCPTYPES
#define NR_PCP_THP 1
#define NR_PCP_LISTS (NR_LOWORDER_PCP_LISTS + NR_PCP_THP)
#define PCP_THP_INDEX NR_LOWORDER_PCP_LISTS

struct per_cpu_pages {
	int count; /* order-0 pages in the type lists */
	int high;  /* drain down to high - batch when count exceeds high */
	int batch; /* pages moved at a time to or from the buddy lists */
	/* Free blocks of pageblock_order, the THP order: Linux 6.1 keeps a
	 * per-CPU list for pageblock_order beside the low orders
	 * (pcp_allowed_order), so a THP allocated and freed on one CPU takes
	 * no node lock. At most PCP_HIGH_THP blocks, moved PCP_BATCH_THP at a
	 * time. */
	int thp_count; /* blocks in lists[PCP_THP_INDEX] */
	struct list_head lists[NR_PCP_LISTS];
	/* Two lines per CPU: no line shared with another CPU's lists, and
	 * pcp[cpu] is a shift away. */
} __aligned(64);

enum { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

enum numa_stat_item {
	NUMA_HIT,     /* allocated on the node the caller wanted */
	NUMA_MISS,    /* allocated here although another node was wanted */
	NUMA_FOREIGN, /* wanted here, allocated elsewhere */
	NUMA_LOCAL,   /* allocated here for a caller running on this node */
	NUMA_OTHER,   /* allocated here for a caller running on another node */
	NUMA_INTERLEAVE_HIT, /* an interleaving policy's page, on the node it chose */
	NR_NUMA_STAT_ITEMS
};

/* The NUMA counters of one node as seen by one CPU (Linux's
 * per_cpu_nodestat): only that CPU adds to them, with interrupts off, so
 * no increment is lost without atomics; readers sum them
 * (node_numa_event_state). NUMA_LOCAL and NUMA_OTHER stay 0 here: a slot's
 * hits and misses are all local or all other (by the CPU's node), so the
 * reader derives them. */
struct per_cpu_nodestat {
	unsigned long numa_events[NR_NUMA_STAT_ITEMS];
	/* A line per CPU, as struct per_cpu_pages: no line shared with
	 * another CPU's counters, and the slot is found with the shift
	 * that finds the CPU's lists. */
} __aligned(64);

typedef struct pglist_data {
	int node_id;
	spinlock_t lock; /* protects free_area, nr_free and the bad-page list */
	struct free_area free_area[NR_PAGE_ORDERS];
	unsigned long free_mask;        /* bit k set: free_area[k] is not empty */
	unsigned long nr_free;          /* pages in free_area, but for MIGRATE_ISOLATE's
					 * (Linux's NR_FREE_PAGES: isolated free pages
					 * are free to no one) */
	unsigned long nr_isolate_pageblock; /* blocks of MIGRATE_ISOLATE (Linux's) */
	unsigned long nr_reserved_highatomic; /* pages in MIGRATE_HIGHATOMIC blocks */
	/* mmlab's: pageblocks of a type that may not merge with the others
	 * (highatomic, isolate), counted by set_pfnblock_migratetype. While
	 * it is 0, a merge need not read the buddy's type (free_one_page). */
	unsigned long nr_unmergeable_pageblocks;
	/* mmlab's own counters, under the lock (Linux reports these
	 * through the mm_page_alloc_extfrag tracepoint only): allocations
	 * served from another migrate type's free lists, and pageblocks that
	 * changed type in one (/proc/vmstat's extfrag_fallback and
	 * extfrag_change_ownership). */
	unsigned long nr_extfrag_fallback, nr_extfrag_change_ownership;
	/* A byte per pageblock of the span, from the block holding
	 * node_start_pfn: the block's migrate type and skip bit. */
	u8 *pageblock_flags;
	unsigned long node_start_pfn;
	unsigned long node_spanned_pages; /* from start to end, holes included */
	unsigned long node_present_pages; /* RAM pages */
	unsigned long managed_pages;      /* pages handed to the buddy allocator */
	unsigned long watermark[NR_WMARK];
	unsigned long nr_bad_pages;       /* taken out of circulation */
	int fallback[MAX_NUMNODES]; /* nodes with memory, nearest first */
	int nr_fallback;
	struct per_cpu_pages pcp[NR_CPUS];
	struct per_cpu_nodestat per_cpu_nodestats[NR_CPUS];
	struct lruvec __lruvec; /* the node's LRU lists (mm/mmzone.h; Linux's pgdat->__lruvec) */
	int kswapd_failures;    /* reclaim passes of kswapd that freed nothing (mm/kswapd.c) */
	/* Compaction's state (Linux's struct zone fields; mm/compaction.c):
	 * where each scanner stopped ([0] async, [1] sync for the migration
	 * scanner), where a full pass starts, and the deferral of failed
	 * direct compaction. Written without a lock, as Linux's: hints. */
	unsigned long compact_cached_free_pfn;
	unsigned long compact_cached_migrate_pfn[2];
	unsigned long compact_init_migrate_pfn;
	unsigned long compact_init_free_pfn;
	unsigned int compact_considered;
	unsigned int compact_defer_shift;
	int compact_order_failed;
	bool compact_blockskip_flush;
} pg_data_t;

static inline struct lruvec *node_lruvec(pg_data_t *pgdat) { return &pgdat->__lruvec; }

extern pg_data_t *node_data[MAX_NUMNODES];
#define NODE_DATA(nid) (node_data[nid])

/* Linux's get_pfnblock_flags_mask/set_pfnblock_flags_mask for a pfn of
 * pgdat's span: the byte of its pageblock. */
static inline u8 *pfnblock_flags(const pg_data_t *pgdat, unsigned long pfn)
{
	return &pgdat->pageblock_flags[(pfn >> pageblock_order) - (pgdat->node_start_pfn >> pageblock_order)];
}
static inline int get_pfnblock_migratetype(const pg_data_t *pgdat, unsigned long pfn)
{
	return READ_ONCE(*pfnblock_flags(pgdat, pfn)) & MIGRATETYPE_MASK;
}
static inline int get_pageblock_migratetype(const struct page *page)
{
	return get_pfnblock_migratetype(NODE_DATA(page_to_nid(page)), page_to_pfn(page));
}
/* Sets the block's type, keeping its skip bit. A byte store: the skip bit
 * is set without the node's lock (compaction's hints), the type under it,
 * so only the type's writer may race the hint's, and a lost hint is only a
 * block scanned again. */
void set_pageblock_migratetype(struct page *page, int migratetype);
/* Compaction's skip hint of the block (Linux's get/set/clear_pageblock_skip). */
static inline bool get_pageblock_skip(const struct page *page)
{
	return READ_ONCE(*pfnblock_flags(NODE_DATA(page_to_nid(page)), page_to_pfn(page))) >> PB_migrate_skip & 1;
}
void set_pageblock_skip(struct page *page);
void clear_pageblock_skip(struct page *page);

/* The node exists and has present memory (Linux's node_state(nid,
 * N_MEMORY)). */
static inline bool node_has_memory(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && NODE_DATA(nid) && NODE_DATA(nid)->node_present_pages;
}

/* Allocation. nid may be NUMA_NO_NODE (the current CPU's node).
 * __alloc_pages is the one entry (as Linux's): from preferred_nid, then the
 * nodes nearest to it, only nodes in nodemask (NULL: every node); a mask
 * without a node that has memory fails at once (NULL, even for
 * __GFP_NOFAIL). The others are wrappers with no mask. */
struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid, const nodemask_t *nodemask);
/* __alloc_pages(gfp, 0, nid, NULL): what the wrappers call when the order
 * is a constant 0, so that the common request tests no order and no mask
 * at run time. */
struct page *__alloc_pages_order0(gfp_t gfp, int preferred_nid);
/* Inline, as Linux's (gfp.h): a call through a wrapper costs the hot
 * order-0 pair an argument shuffle and a jump. */
static inline struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	if (__builtin_constant_p(order) && order == 0)
		return __alloc_pages_order0(gfp, nid);
	return __alloc_pages(gfp, order, nid, NULL);
}
static inline struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	if (__builtin_constant_p(order) && order == 0)
		return __alloc_pages_order0(gfp, NUMA_NO_NODE);
	return __alloc_pages(gfp, order, NUMA_NO_NODE, NULL);
}
/* An MPOL_INTERLEAVE allocation got the node it asked for (Linux's
 * NUMA_INTERLEAVE_HIT, counted by alloc_pages_mpol). */
void count_numa_interleave_hit(int nid);
void __free_pages(struct page *page, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
unsigned long get_zeroed_page(gfp_t gfp);
#define alloc_page(gfp) alloc_pages(gfp, 0)
#define __free_page(page) __free_pages(page, 0)
/* Linux's split_page: an allocation of 2^order pages becomes 2^order
 * allocations of one page each (refcount 1, freed one by one), as a huge
 * page whose PMD is split into PTEs (mm/huge_memory.c). */
void split_page(struct page *page, unsigned int order);
#define free_page(addr) free_pages(addr, 0)
/* Drops a reference; frees the (order-0) page when it was the last. */
void put_page(struct page *page);

/* Struct pages: every pfn of [start_pfn, end_pfn) reserved (refcount 1,
 * unmapped) on node nid, as a populated vmemmap section starts; then
 * memmap_init() gives every RAM pfn its memblock node. */
void init_struct_pages(unsigned long start_pfn, unsigned long end_pfn, int nid);
void memmap_init(void);
/* Setup, once memblock knows the RAM and the struct pages exist:
 * free_area_init() gives every node its pg_data_t (page_alloc_init_node)
 * and builds the fallback lists from the distances; memblock_free_all()
 * frees memblock's free ranges into the allocator (free_boot_range) and
 * freezes memblock; then setup_watermarks(). */
void free_area_init(void);
void memblock_free_all(void);
void page_alloc_init_node(pg_data_t *pgdat, int nid, unsigned long start_pfn, unsigned long end_pfn);
/* The bytes of pageblock flags a node spanning [start_pfn, end_pfn) has:
 * a node placed beforehand (a test's) comes with pageblock_flags set to
 * that many; page_alloc_init_node keeps them. */
unsigned long pageblock_flags_size(unsigned long start_pfn, unsigned long end_pfn);
void build_all_fallback_lists(void);
/* Gives [start_pfn, end_pfn) of node nid to the buddy allocator, in the
 * largest aligned blocks. The struct pages must be initialised. */
void free_boot_range(unsigned long start_pfn, unsigned long end_pfn);
void setup_watermarks(void);
/* Whether pgdat has more than mark free pages after taking 2^order of
 * them, and a block of that order (Linux's zone_watermark_ok). */
bool node_watermark_ok(pg_data_t *pgdat, unsigned int order, unsigned long mark);
/* /proc/sys/vm/min_free_kbytes and watermark_scale_factor (Linux 6.1's
 * defaults: computed at boot, 10): the value, and the writes that set it
 * and compute every node's watermarks again (0, or -EINVAL out of range:
 * min_free_kbytes >= 0, watermark_scale_factor 1..3000). */
extern int min_free_kbytes, watermark_scale_factor;
int min_free_kbytes_write(int kbytes);
int watermark_scale_factor_write(int factor);

/* Statistics. */
/* A NUMA counter of node nid summed over the CPUs (Linux's
 * sum_zone_numa_event_state); 0 for a node that does not exist. Exact only
 * when no CPU is allocating, like every unlocked reader here. */
unsigned long node_numa_event_state(int nid, enum numa_stat_item item);
unsigned long node_free_pages(int nid); /* buddy + per-CPU lists */
unsigned long nr_free_pages(void);
/* Pages handed to the buddy allocator, all nodes (Linux's totalram_pages:
 * /proc/meminfo's MemTotal, sysinfo's totalram). */
unsigned long totalram_pages(void);
unsigned long node_free_blocks(int nid, unsigned int order);
void drain_all_pages(void);
/* Gives this CPU's per-CPU pages, on every node, back to the buddy lists
 * (compaction's drain of the pages it freed). */
void drain_local_pages(void *unused);
void show_buddyinfo(void);
void show_numastat(void);
void show_free_areas(void);
/* Linux's nodemask=%*pbl in a report: "(null)" for no mask, else the
 * nodes, "0,2". */
void nodemask_string(const nodemask_t *nodemask, char *buf, size_t size);

/* The buddy layer alone, without per-CPU lists and watermarks: what the
 * benchmarks and host tests measure and check. */
struct page *__rmqueue_smallest(pg_data_t *pgdat, unsigned int order, int migratetype);
void __free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order, int migratetype);

/* Linux's mm/page_isolation.c, for one pageblock (the node's lock is taken
 * inside): set_migratetype_isolate makes the block of page MIGRATE_ISOLATE
 * and moves its free pages to the isolate lists, where no allocation finds
 * them and no free merges with them across the block's edge (-EBUSY when
 * it is isolated already); unset_migratetype_isolate gives it migratetype
 * and its free pages back, merging them with their buddies. */
int set_migratetype_isolate(struct page *page);
void unset_migratetype_isolate(struct page *page, int migratetype);
/* Whether a request of order and migratetype would find a free block on
 * pgdat: on its own type's lists, or on another type's it may claim
 * (find_suitable_fallback with only_stealable), as Linux's
 * __compact_finished asks. Read without the node's lock: a hint. */
enum { FREE_BLOCK_NONE, FREE_BLOCK_OWN_TYPE, FREE_BLOCK_FALLBACK };
/* Whether pgdat has a free block of order or above on the lists a request
 * without ALLOC_HARDER may take from (those below MIGRATE_PCPTYPES:
 * neither the highatomic reserve nor isolated blocks), as Linux's
 * __zone_watermark_ok looks for one. Read without the lock: a hint. */
bool free_block_usable(const pg_data_t *pgdat, unsigned int order);
int free_block_for_migratetype(pg_data_t *pgdat, unsigned int order, int migratetype);
/* Linux's __isolate_free_page, for compaction's free scanner: the free
 * block of order at page (PG_buddy, on its node's lists) leaves the free
 * lists for the caller, as an allocation would take it: only while the
 * node stays above its min watermark. Its pages (2^order), or 0. Under
 * the node's lock. */
unsigned long __isolate_free_page(struct page *page, unsigned int order);
/* Free pages of pgdat's free lists of one type (pagetypeinfo, tests). */
unsigned long node_free_blocks_type(int nid, unsigned int order, int migratetype);

/* Bad-page checking: on by default; page_poison=on also fills free pages
 * with PAGE_POISON and checks the pattern on allocation. */
#define PAGE_POISON 0xaa
extern bool page_poisoning;
/* How many bad-page reports were printed (tests look at the difference). */
extern unsigned long bad_page_reports;

/* Shrinkers: callbacks that free memory on request in the slow path. */
struct shrink_control {
	gfp_t gfp_mask;
	int nid;
	unsigned long nr_to_scan;
	unsigned long nr_scanned;
};
struct shrinker {
	unsigned long (*count_objects)(struct shrinker *, struct shrink_control *);
	unsigned long (*scan_objects)(struct shrinker *, struct shrink_control *);
	struct list_head list;
	int seeks;
	/* What the shrinker may need to free its objects: __GFP_FS (a file
	 * system's caches: inode and dentry locks, writeback), __GFP_IO (a
	 * block device's: I/O). shrink_slab skips it in a context without
	 * them (Linux's shrinkers test sc->gfp_mask themselves, as
	 * super_cache_scan's "if (!(sc->gfp_mask & __GFP_FS)) return
	 * SHRINK_STOP"); a shrinker may still check, and count a violation. */
	gfp_t gfp_needs;
	unsigned long nr_skipped; /* times skipped for the context */
};
#define SHRINK_STOP (~0ul)
int register_shrinker(struct shrinker *s);
void unregister_shrinker(struct shrinker *s);
/* Rounds a __GFP_NOFAIL request went round the slow path without memory
 * (tests wait for it before they free). */
extern unsigned long nofail_retries;
/* Calls every shrinker the context allows; returns how many objects they freed. */
unsigned long shrink_slab(gfp_t gfp, int nid);

#endif
