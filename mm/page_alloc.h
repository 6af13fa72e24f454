/* The per-node buddy page allocator.
 *
 * Each node has free lists for orders 0..MAX_PAGE_ORDER (order 18: a 1 GiB
 * gigantic page); a free block of order k is 2^k pages, aligned to its size,
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
/* A 2 MiB block, the order of a PMD-mapped THP (HPAGE_PMD_ORDER). */
#define pageblock_order 9

struct free_area {
	struct list_head free_list;
	unsigned long nr_free;
};

struct per_cpu_pages {
	struct list_head list;
	int count; /* pages in list */
	int high;  /* drain down to high - batch when count exceeds high */
	int batch; /* pages moved at a time to or from the buddy lists */
	/* Free blocks of pageblock_order, the THP order: Linux 6.1 keeps a
	 * per-CPU list for pageblock_order beside the low orders
	 * (pcp_allowed_order), so a THP allocated and freed on one CPU takes
	 * no node lock. At most PCP_HIGH_THP blocks, moved PCP_BATCH_THP at a
	 * time. */
	struct list_head thp_list;
	int thp_count; /* blocks in thp_list */
	/* A line per CPU: no line shared with another CPU's lists, and
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
	unsigned long nr_free;          /* pages in free_area */
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
} pg_data_t;

static inline struct lruvec *node_lruvec(pg_data_t *pgdat) { return &pgdat->__lruvec; }

extern pg_data_t *node_data[MAX_NUMNODES];
#define NODE_DATA(nid) (node_data[nid])

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
void show_buddyinfo(void);
void show_numastat(void);
void show_free_areas(void);

/* The buddy layer alone, without per-CPU lists and watermarks: what the
 * benchmarks and host tests measure and check. */
struct page *__rmqueue_smallest(pg_data_t *pgdat, unsigned int order);
void __free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order);

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
