/* Host tests of mm/page_alloc.c, the per-node buddy allocator, on the
 * machine of tests/host/page_alloc_harness.h (four nodes of 64 MiB in a
 * ring, booted as the kernel boots them): the boot state, the buddy shape
 * (split, merge, alignment, what merged pages look like), where pages land
 * on the nodes, the per-CPU lists, __GFP_ZERO, __GFP_NOFAIL's use of the
 * reserve, and a random run. The checks on frees and the shrinkers are
 * tests/host/page_alloc_checks_test.c.
 *
 * Every case checks the allocator's invariants (tests/host/mm_check.h)
 * against a shadow of what the case holds, and ends with the free lists in
 * exactly the shape they had after boot. */
#include "mm/memblock.h"
#include "mm/page_alloc_internal.h" /* PCP_HIGH_THP */
#include "tests/host/page_alloc_harness.h"

#include <stdlib.h>

/* ---- boot ---------------------------------------------------------------- */

struct free_pages_sum {
	unsigned long pages[MAX_NUMNODES];
};

static void count_free(phys_addr_t s, phys_addr_t e, int nid, void *arg)
{
	struct free_pages_sum *f = arg;
	unsigned long a = (unsigned long)(ALIGN_UP(s, PAGE_SIZE) >> PAGE_SHIFT);
	unsigned long b = (unsigned long)(e >> PAGE_SHIFT);
	if (a < b)
		f->pages[nid] += b - a;
}

static void boot_frees_memory_minus_reserved(struct ktest *t)
{
	struct free_pages_sum f = { { 0 } };
	memblock_for_each_free_range(count_free, &f);
	for (int nid = 0; nid < NR_NODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		KTEST_ASSERT_NOT_NULL(t, pgdat);
		KTEST_EXPECT_EQ(t, node_free_pages(nid), f.pages[nid]);
		KTEST_EXPECT_EQ(t, pgdat->managed_pages, f.pages[nid]);
		KTEST_EXPECT_EQ(t, pgdat->node_start_pfn, (unsigned long)nid * (NODE_BYTES >> PAGE_SHIFT));
		KTEST_EXPECT_EQ(t, pgdat->node_spanned_pages, NODE_BYTES >> PAGE_SHIFT);
		KTEST_EXPECT_GT(t, pgdat->watermark[WMARK_MIN], 0);
		KTEST_EXPECT_LT(t, pgdat->watermark[WMARK_MIN], pgdat->watermark[WMARK_LOW]);
		KTEST_EXPECT_LT(t, pgdat->watermark[WMARK_LOW], pgdat->watermark[WMARK_HIGH]);
		/* The first MiB and the pg_data_t pages are not free. */
		KTEST_EXPECT_LT(t, f.pages[nid], NODE_BYTES >> PAGE_SHIFT);
	}
	KTEST_EXPECT_EQ(t, nr_free_pages(), f.pages[0] + f.pages[1] + f.pages[2] + f.pages[3]);
	/* Node 1 is free but for its top pages (its pg_data_t): its largest
	 * block is 32 MiB, order 13. */
	KTEST_EXPECT_EQ(t, node_free_blocks(1, 13), 1);
	KTEST_EXPECT_EQ(t, node_free_blocks(1, 14), 0);
	KTEST_EXPECT_GE(t, node_free_blocks(0, 8), 1); /* [1 MiB, 2 MiB) is order 8 */
	mm_check(t, &shadow, true);
}

static void fallback_lists_follow_distance(struct ktest *t)
{
	static const int want[NR_NODES][NR_NODES] = {
		{ 0, 1, 3, 2 }, { 1, 0, 2, 3 }, { 2, 1, 3, 0 }, { 3, 0, 2, 1 } };
	for (int nid = 0; nid < NR_NODES; nid++) {
		KTEST_ASSERT_EQ(t, NODE_DATA(nid)->nr_fallback, NR_NODES);
		for (int i = 0; i < NR_NODES; i++)
			KTEST_EXPECT_EQ(t, NODE_DATA(nid)->fallback[i], want[nid][i]);
	}
}

/* ---- the buddy shape ------------------------------------------------------ */

static void split_and_merge_return_to_the_initial_shape(struct ktest *t)
{
	/* 3 x (2^12 - 1) pages: 48 MiB of node 1's 64. Movable, so that the
	 * requests take the smallest block that fits from the movable
	 * pageblocks of boot; an unmovable one would claim a pageblock from
	 * the largest free block at each fallback (__rmqueue_fallback) and
	 * leave no 8 MiB whole for the order-11 ones. */
	enum { PER_ORDER = 3, MAX_O = 11, N = PER_ORDER * (MAX_O + 1) };
	struct { struct page *p; unsigned order; } held[N];
	int n = 0;
	for (unsigned o = 0; o <= MAX_O; o++)
		for (int k = 0; k < PER_ORDER; k++) {
			struct page *p = get(t, 1, GFP_KERNEL | __GFP_MOVABLE | __GFP_THISNODE, o);
			KTEST_ASSERT_NOT_NULL(t, p);
			held[n].p = p;
			held[n++].order = o;
			KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, false));
		}
	KTEST_EXPECT_EQ(t, shadow.live_pages, PER_ORDER * ((2ul << MAX_O) - 1));
	/* Free in a scrambled (fixed) order. */
	srand(12345);
	for (int i = N - 1; i > 0; i--) {
		int j = rand() % (i + 1);
		__typeof__(held[0]) x = held[i];
		held[i] = held[j];
		held[j] = x;
	}
	for (int i = 0; i < N; i++) {
		put(held[i].p, held[i].order);
		KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, false));
	}
	expect_boot_shape(t);
}

static void buddy_layer_splits_and_merges_exactly(struct ktest *t)
{
	/* Node 1's largest block is order 13; an order-0 request splits it
	 * all the way down and the free merges all the way up. */
	pg_data_t *pgdat = NODE_DATA(1);
	unsigned long before[NR_PAGE_ORDERS];
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
		before[o] = pgdat->free_area[o].nr_free;
	/* Take every block below order 13 first, so the split must come from it. */
	struct page *small[64];
	unsigned small_order[64], ns = 0;
	spin_lock(&pgdat->lock);
	for (unsigned o = 0; o < 13; o++)
		while (pgdat->free_area[o].nr_free && ns < 64) {
			small[ns] = __rmqueue_smallest(pgdat, o, MIGRATE_MOVABLE);
			small_order[ns++] = o;
		}
	unsigned long nr_free = pgdat->nr_free;
	struct page *p = __rmqueue_smallest(pgdat, 0, MIGRATE_MOVABLE);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, pgdat->free_area[13].nr_free, before[13] - 1);
	for (unsigned o = 0; o < 13; o++)
		KTEST_EXPECT_EQ(t, pgdat->free_area[o].nr_free, 1);
	KTEST_EXPECT_EQ(t, pgdat->nr_free, nr_free - 1);
	__free_one_page(p, page_to_pfn(p), pgdat, 0, MIGRATE_MOVABLE);
	for (unsigned o = 0; o < 13; o++)
		KTEST_EXPECT_EQ(t, pgdat->free_area[o].nr_free, 0);
	KTEST_EXPECT_EQ(t, pgdat->free_area[13].nr_free, before[13]);
	while (ns--)
		__free_one_page(small[ns], page_to_pfn(small[ns]), pgdat, small_order[ns], MIGRATE_MOVABLE);
	spin_unlock(&pgdat->lock);
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
		KTEST_EXPECT_EQ(t, pgdat->free_area[o].nr_free, before[o]);
	expect_boot_shape(t);
}

/* A buddy merged into a larger free block is a tail page again, private 0
 * included: a page fresh from the allocator shows private 0 (page-table
 * pages keep their count there), and the pages inside a merged block reach
 * users one by one when the per-CPU lists take whole blocks apart. */
static void merged_buddies_keep_private_zero(struct ktest *t)
{
	enum { N = 1024, ORDER = 10 };
	static struct page *held[N];
	/* Single pages, freed and drained: they merge through every order. */
	for (int round = 0; round < 2; round++) {
		unsigned long stale = 0;
		for (int i = 0; i < N; i++) {
			held[i] = get(t, 1, GFP_KERNEL | __GFP_THISNODE, 0);
			KTEST_ASSERT_NOT_NULL(t, held[i]);
			if (held[i]->private != 0 && !stale++)
				ktest_diag(t, "round %d: pfn %#lx handed out with private %lu", round,
					   page_to_pfn(held[i]), held[i]->private);
		}
		KTEST_EXPECT_EQ(t, stale, 0);
		for (int i = 0; i < N; i++)
			put(held[i], 0);
		drain_all_pages();
		KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	}
	/* A large block made of merged buddies: its tail pages are plain. */
	struct page *b = get(t, 1, GFP_KERNEL | __GFP_THISNODE, ORDER);
	KTEST_ASSERT_NOT_NULL(t, b);
	unsigned long stale = 0;
	for (unsigned long i = 1; i < (1ul << ORDER); i++)
		stale += b[i].private != 0;
	KTEST_EXPECT_EQ(t, stale, 0);
	put(b, ORDER);
	expect_boot_shape(t);
}

static void every_allocation_is_aligned_to_its_order(struct ktest *t)
{
	struct page *held[14];
	/* Movable: an unmovable request on a node of movable pageblocks
	 * claims its pages from the largest free block (__rmqueue_fallback),
	 * so the order-13 request after it would find its block split. */
	for (unsigned o = 0; o < 14; o++) {
		held[o] = get(t, (int)(o % NR_NODES), GFP_KERNEL | __GFP_MOVABLE, o);
		KTEST_ASSERT_NOT_NULL(t, held[o]);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED((uintptr_t)((u8 *)page_address(held[o]) - host_phys_base),
						PAGE_SIZE << o));
	}
	/* Order 14 (64 MiB) needs a whole node: none is free. */
	KTEST_EXPECT_NULL(t, alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, 14));
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	for (unsigned o = 0; o < 14; o++)
		put(held[o], o);
	expect_boot_shape(t);
}

static void order_above_the_maximum_fails(struct ktest *t)
{
	capture_begin();
	struct page *p = alloc_pages_node(0, GFP_KERNEL, MAX_PAGE_ORDER + 1);
	capture_end();
	KTEST_EXPECT_NULL(t, p);
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "above the maximum order"));
	capture_begin();
	p = alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER + 1);
	capture_end();
	KTEST_EXPECT_NULL(t, p);
	KTEST_EXPECT_EQ(t, strlen(printed), 0);
	expect_boot_shape(t);
}

/* ---- nodes ---------------------------------------------------------------- */

static bool above_low(int nid, unsigned order)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	return (long)pgdat->nr_free - (long)(1ul << order) + 1 > (long)pgdat->watermark[WMARK_LOW];
}

/* Where an allocation preferring nid must land while some node in its
 * fallback list is above its low watermark: the first such node. */
static int expected_node(int nid, unsigned order)
{
	for (int i = 0; i < NODE_DATA(nid)->nr_fallback; i++)
		if (above_low(NODE_DATA(nid)->fallback[i], order))
			return NODE_DATA(nid)->fallback[i];
	return NUMA_NO_NODE;
}

static void fallback_goes_by_distance_when_a_node_is_exhausted(struct ktest *t)
{
	enum { ORDER = 5, MAX_HELD = 4 * (NODE_BYTES >> (PAGE_SHIFT + ORDER)) };
	static struct page *held[MAX_HELD];
	int n = 0, seen[NR_NODES] = { 0 }, order_seen[NR_NODES], nseen = 0, on2 = 0;
	unsigned long hit2 = node_numa_event_state(2, NUMA_HIT);
	for (;;) {
		int want = expected_node(2, ORDER);
		struct page *p = get(t, 2, GFP_KERNEL | __GFP_NOWARN, ORDER);
		if (!p)
			break;
		KTEST_ASSERT_LT(t, n, MAX_HELD);
		held[n++] = p;
		int got = page_to_nid(p);
		on2 += got == 2;
		if (want != NUMA_NO_NODE && !KTEST_EXPECT_EQ(t, got, want))
			break;
		if (want != NUMA_NO_NODE && !seen[got]++)
			order_seen[nseen++] = got;
	}
	/* Node 2's list: itself, then 1 and 3 (distance 20, lower id first),
	 * then 0 (distance 30). */
	KTEST_EXPECT_EQ(t, nseen, 4);
	static const int want_order[] = { 2, 1, 3, 0 };
	for (int i = 0; i < nseen && i < 4; i++)
		KTEST_EXPECT_EQ(t, order_seen[i], want_order[i]);
	KTEST_EXPECT_EQ(t, node_numa_event_state(2, NUMA_HIT) - hit2, on2);
	KTEST_EXPECT_GT(t, node_numa_event_state(1, NUMA_MISS), 0);
	KTEST_EXPECT_GT(t, node_numa_event_state(2, NUMA_FOREIGN), 0);
	/* Every node is now below its low watermark for order 5. */
	for (int nid = 0; nid < NR_NODES; nid++)
		KTEST_EXPECT_FALSE(t, above_low(nid, ORDER));
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	while (n--)
		put(held[n], ORDER);
	expect_boot_shape(t);
}

static void thisnode_fails_instead_of_falling_back(struct ktest *t)
{
	enum { ORDER = 4, MAX_HELD = NODE_BYTES >> (PAGE_SHIFT + ORDER) };
	static struct page *held[MAX_HELD];
	int n = 0;
	struct page *p;
	while ((p = get(t, 3, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, ORDER))) {
		KTEST_ASSERT_LT(t, n, MAX_HELD);
		held[n++] = p;
	}
	KTEST_EXPECT_GT(t, n, MAX_HELD / 2);
	for (int i = 0; i < n; i++)
		KTEST_EXPECT_EQ(t, page_to_nid(held[i]), 3);
	/* Other nodes have plenty, and the failure says so. */
	KTEST_EXPECT_GT(t, node_free_pages(0), NODE_BYTES >> (PAGE_SHIFT + 1));
	capture_begin();
	p = alloc_pages_node(3, GFP_KERNEL | __GFP_THISNODE, ORDER);
	capture_end();
	KTEST_EXPECT_NULL(t, p);
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "page allocation failure: order:4"));
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "__GFP_THISNODE"));
	/* Without __GFP_THISNODE the nearest node (0, distance 20, lower id
	 * than 2) serves it. */
	p = get(t, 3, GFP_KERNEL, ORDER);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, page_to_nid(p), 0);
	put(p, ORDER);
	while (n--)
		put(held[n], ORDER);
	expect_boot_shape(t);
}

static void memoryless_node_allocates_from_the_nearest(struct ktest *t)
{
	boot(&ring_node3_memoryless);
	KTEST_ASSERT_NOT_NULL(t, NODE_DATA(3));
	KTEST_EXPECT_EQ(t, NODE_DATA(3)->managed_pages, 0);
	KTEST_EXPECT_EQ(t, NODE_DATA(3)->nr_fallback, 3);
	KTEST_EXPECT_EQ(t, NODE_DATA(0)->nr_fallback, 3);
	KTEST_EXPECT_NULL(t, alloc_pages_node(3, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0));
	struct page *p = get(t, 3, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, page_to_nid(p), 0); /* 0 and 2 at 20: lower id */
	put(p, 0);
	expect_boot_shape(t);
	boot(&ring);
}

static void blocks_never_merge_across_nodes(struct ktest *t)
{
	/* With the pg_data_t outside the nodes, nodes 1-3 are wholly free:
	 * nodes 2 and 3 are buddies at order 14 but on different nodes. */
	struct host_mm_config cfg = ring;
	cfg.static_pgdat = true;
	boot(&cfg);
	for (int nid = 1; nid < NR_NODES; nid++) {
		KTEST_EXPECT_EQ(t, node_free_blocks(nid, 14), 1);
		KTEST_EXPECT_EQ(t, node_free_pages(nid), NODE_BYTES >> PAGE_SHIFT);
	}
	KTEST_EXPECT_EQ(t, node_free_blocks(2, 15), 0);
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* Take all of node 3 in order-0 pages and give it back: the frees
	 * merge up to order 14 and stop at the node. */
	enum { N = NODE_BYTES >> PAGE_SHIFT };
	static struct page *held[N];
	pg_data_t *pgdat = NODE_DATA(3);
	spin_lock(&pgdat->lock);
	for (int i = 0; i < N; i++) {
		held[i] = __rmqueue_smallest(pgdat, 0, MIGRATE_MOVABLE);
		KTEST_ASSERT_NOT_NULL(t, held[i]);
	}
	KTEST_EXPECT_NULL(t, __rmqueue_smallest(pgdat, 0, MIGRATE_MOVABLE));
	for (int i = N - 1; i >= 0; i--)
		__free_one_page(held[i], page_to_pfn(held[i]), pgdat, 0, MIGRATE_MOVABLE);
	spin_unlock(&pgdat->lock);
	KTEST_EXPECT_EQ(t, node_free_blocks(3, 14), 1);
	expect_boot_shape(t);
	boot(&ring);
}

/* ---- per-CPU lists and counters ----------------------------------------- */

/* The shim's one per-CPU area lets a case run as another CPU (cpu_number):
 * each CPU counts in its own slots, on its own node's per-CPU list, and a
 * reader sees the sum. */
static void numa_counters_are_per_cpu_and_summed(struct ktest *t)
{
	unsigned long local1 = node_numa_event_state(1, NUMA_LOCAL);
	unsigned long other1 = node_numa_event_state(1, NUMA_OTHER);
	unsigned long hit1 = node_numa_event_state(1, NUMA_HIT);
	pg_data_t *pgdat = NODE_DATA(1);
	unsigned long slot1 = pgdat->per_cpu_nodestats[1].numa_events[NUMA_HIT];
	unsigned long slot0 = pgdat->per_cpu_nodestats[0].numa_events[NUMA_HIT];
	cpu_number = 1; /* node 1's CPU */
	KTEST_EXPECT_EQ(t, numa_node_id(), 1);
	struct page *a = get(t, 1, GFP_KERNEL, 0);
	cpu_number = 0;
	struct page *b = get(t, 1, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	/* Each hit in its own CPU's slot; local and other follow from the
	 * slot's CPU (node_numa_event_state derives them). */
	KTEST_EXPECT_EQ(t, pgdat->per_cpu_nodestats[1].numa_events[NUMA_HIT], slot1 + 1);
	KTEST_EXPECT_EQ(t, pgdat->per_cpu_nodestats[0].numa_events[NUMA_HIT], slot0 + 1);
	KTEST_EXPECT_EQ(t, node_numa_event_state(1, NUMA_LOCAL), local1 + 1);
	KTEST_EXPECT_EQ(t, node_numa_event_state(1, NUMA_OTHER), other1 + 1);
	KTEST_EXPECT_EQ(t, node_numa_event_state(1, NUMA_HIT), hit1 + 2);
	/* Each came from its own CPU's list of node 1. */
	KTEST_EXPECT_GT(t, pgdat->pcp[1].count, 0);
	KTEST_EXPECT_GT(t, pgdat->pcp[0].count, 0);
	KTEST_EXPECT_EQ(t, node_numa_event_state(MAX_NUMNODES, NUMA_HIT), 0);
	put(a, 0);
	put(b, 0);
	drain_all_pages(); /* runs on every CPU, as the shim's on_each_cpu does */
	KTEST_EXPECT_EQ(t, pgdat->pcp[1].count, 0);
	KTEST_EXPECT_EQ(t, pgdat->pcp[0].count, 0);
	KTEST_EXPECT_EQ(t, cpu_number, 0);
	expect_boot_shape(t);
}

static void per_cpu_lists_stay_bounded_and_drain(struct ktest *t)
{
	enum { N = 1000 };
	static struct page *held[N];
	pg_data_t *pgdat = NODE_DATA(0);
	for (int i = 0; i < N; i++) {
		held[i] = get(t, 0, GFP_KERNEL, 0);
		KTEST_ASSERT_NOT_NULL(t, held[i]);
		KTEST_EXPECT_EQ(t, page_to_nid(held[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		put(held[i], 0);
		KTEST_ASSERT_LE(t, pgdat->pcp[0].count, pgdat->pcp[0].high);
	}
	KTEST_EXPECT_GT(t, pgdat->pcp[0].count, 0);
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* Hot: the page just freed is the next one handed out. */
	struct page *p = get(t, 0, GFP_KERNEL, 0);
	KTEST_EXPECT_TRUE(t, p == held[N - 1]);
	put(p, 0);
	drain_all_pages();
	KTEST_EXPECT_EQ(t, pgdat->pcp[0].count, 0);
	expect_boot_shape(t);
}

/* The THP order has a per-CPU list of its own (Linux 6.1's
 * pcp_allowed_order): a freed block waits there, still counted free, for
 * the next allocation of that order on the CPU; one more than
 * PCP_HIGH_THP goes back to the buddy lists; a drain empties the list. */
static void thp_order_blocks_use_the_per_cpu_list(struct ktest *t)
{
	pg_data_t *pgdat = NODE_DATA(0);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE;
	unsigned long free_before = node_free_pages(0);
	struct page *a = get(t, 0, gfp, pageblock_order);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_EXPECT_EQ(t, pcp->thp_count, 0); /* a refill takes only the block handed out */
	put(a, pageblock_order);
	KTEST_EXPECT_EQ(t, pcp->thp_count, 1);
	KTEST_EXPECT_EQ(t, node_free_pages(0), free_before);
	KTEST_EXPECT_TRUE(t, mm_check(t, &shadow, true));
	/* Hot: the block just freed is the next one handed out. */
	struct page *b = get(t, 0, gfp, pageblock_order);
	KTEST_EXPECT_TRUE(t, b == a);
	KTEST_EXPECT_EQ(t, pcp->thp_count, 0);
	struct page *c = get(t, 0, gfp, pageblock_order);
	KTEST_ASSERT_NOT_NULL(t, c);
	put(b, pageblock_order);
	put(c, pageblock_order);
	KTEST_EXPECT_EQ(t, pcp->thp_count, PCP_HIGH_THP);
	KTEST_EXPECT_EQ(t, node_free_pages(0), free_before);
	KTEST_EXPECT_TRUE(t, mm_check(t, &shadow, true));
	drain_all_pages();
	KTEST_EXPECT_EQ(t, pcp->thp_count, 0);
	expect_boot_shape(t);
}

static void gfp_zero_returns_zeroed_pages(struct ktest *t)
{
	struct page *p = get(t, 0, GFP_KERNEL, 3);
	KTEST_ASSERT_NOT_NULL(t, p);
	memset(page_address(p), 0x77, PAGE_SIZE << 3);
	put(p, 3);
	struct page *q = get(t, 0, GFP_KERNEL | __GFP_ZERO, 3);
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_TRUE(t, p == q); /* the same block came back */
	const u8 *m = page_address(q);
	unsigned nonzero = 0;
	for (size_t i = 0; i < (PAGE_SIZE << 3); i++)
		nonzero += m[i] != 0;
	KTEST_EXPECT_EQ(t, nonzero, 0);
	put(q, 3);
	unsigned long a = get_zeroed_page(GFP_KERNEL);
	KTEST_ASSERT_NE(t, a, 0);
	KTEST_EXPECT_EQ(t, ((u8 *)a)[100], 0);
	free_page(a);
	expect_boot_shape(t);
}


/* ---- the slow path: __GFP_NOFAIL ---------------------------------------- */

/* A shrinker that frees nothing until its release_at'th call, then gives
 * back a block the case put aside: the way out of a retry loop that would
 * otherwise spin for ever. */
static struct page *stash;
static unsigned long scans, release_at;

static unsigned long stash_count(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 1; /* always worth a scan */
}

static unsigned long stash_scan(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	if (++scans != release_at || !stash)
		return 0;
	put(stash, 7);
	stash = NULL;
	return 128;
}

/* When reclaim finds nothing, a request that must not fail may go halfway
 * into the reserve below the min watermark (as Linux's __GFP_NOFAIL), not
 * retry for ever at min; it goes no deeper: below half the reserve it
 * waits for memory to be freed. */
static void nofail_uses_half_the_reserve_and_no_more(struct ktest *t)
{
	static struct held_blocks held;
	held.n = 0;
	pg_data_t *pgdat = NODE_DATA(0);
	unsigned long min = pgdat->watermark[WMARK_MIN];
	stash = get(t, 0, GFP_KERNEL | __GFP_THISNODE, 7);
	KTEST_ASSERT_NOT_NULL(t, stash);
	/* Down to the min watermark: ordinary requests fail there. */
	exhaust_node(t, &held, 0, GFP_KERNEL);
	KTEST_ASSERT_LE(t, pgdat->nr_free, min);
	if (!KTEST_EXPECT_GT(t, pgdat->nr_free, min / 2))
		ktest_abort(t);

	/* No assertion ends the case while the shrinker is registered. */
	struct shrinker s = { .count_objects = stash_count, .scan_objects = stash_scan, .seeks = 2 };
	register_shrinker(&s);
	scans = 0;
	release_at = 50; /* only a livelocked retry loop gets this far */
	struct page *p = get(t, 0, GFP_KERNEL | __GFP_NOFAIL | __GFP_THISNODE, 0);
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_LE(t, scans, 1); /* one round of reclaim, then the reserve */
	KTEST_EXPECT_NOT_NULL(t, stash);
	if (p)
		put(p, 0);
	drain_all_pages();

	/* Atomic requests go deeper (3/8 of min left); a __GFP_NOFAIL one
	 * then waits for memory: here until the shrinker's third call. */
	exhaust_node(t, &held, 0, GFP_ATOMIC);
	if (KTEST_EXPECT_LE(t, pgdat->nr_free, min / 2) && KTEST_EXPECT_NOT_NULL(t, stash)) {
		scans = 0;
		release_at = 3;
		p = get(t, 0, GFP_KERNEL | __GFP_NOFAIL | __GFP_THISNODE, 0);
		KTEST_EXPECT_NOT_NULL(t, p);
		KTEST_EXPECT_EQ(t, scans, 3);
		KTEST_EXPECT_NULL(t, stash);
		if (p)
			put(p, 0);
	}
	unregister_shrinker(&s);
	if (stash)
		put(stash, 7);
	release_blocks(&held);
	expect_boot_shape(t);
}

/* ---- random stress ------------------------------------------------------- */

static u64 rng_state;
static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void random_alloc_free_keeps_every_invariant(struct ktest *t)
{
	enum { STEPS = 20000, CAP = 8192 };
	static struct { struct page *p; unsigned order; } live[CAP];
	const u64 seed = 0x6d6d6c6162ull;
	int n = 0;
	unsigned long allocs = 0, fails = 0, frees = 0, remote = 0, max_live = 0;
	rng_state = seed;
	ktest_diag(t, "seed %#llx, %d steps", (unsigned long long)seed, STEPS);
	for (int step = 0; step < STEPS; step++) {
		u64 r = rnd();
		if (r % 100 < 55 && n < CAP) {
			unsigned x = (unsigned)(r >> 8) % 100, order;
			if (x < 60) order = 0;
			else if (x < 80) order = 1 + (unsigned)(r >> 16) % 3;
			else if (x < 95) order = 4 + (unsigned)(r >> 16) % 5;
			else order = 9 + (unsigned)(r >> 16) % 3;
			int nid = (int)((r >> 24) % (NR_NODES + 1)) - 1;
			static const gfp_t modes[] = { GFP_KERNEL, GFP_ATOMIC, GFP_NOWAIT, GFP_NOIO };
			gfp_t gfp = modes[(r >> 32) % 4] | __GFP_NOWARN;
			if ((r >> 40) % 4 == 0)
				gfp |= __GFP_THISNODE;
			if ((r >> 44) % 20 == 0 && order < 6)
				gfp |= __GFP_ZERO;
			struct page *p = get(t, nid, gfp, order);
			if (p) {
				allocs++;
				if (nid >= 0 && page_to_nid(p) != nid)
					remote++;
				live[n].p = p;
				live[n++].order = order;
			} else {
				fails++;
			}
		} else if (n) {
			int i = (int)((r >> 8) % (u64)n);
			struct page *p = live[i].p;
			unsigned order = live[i].order;
			live[i] = live[--n];
			if ((r >> 40) % 10 == 0) {
				mm_shadow_free(&shadow, p, order);
				put_page(p);
			} else {
				put(p, order);
			}
			frees++;
		}
		if ((r >> 50) % 100 == 0)
			drain_all_pages();
		if (shadow.live_pages > max_live)
			max_live = shadow.live_pages;
		if (!mm_check(t, &shadow, step % 1000 == 999)) {
			ktest_diag(t, "at step %d (seed %#llx)", step, (unsigned long long)seed);
			ktest_abort(t);
		}
	}
	ktest_diag(t, "%lu allocations (%lu failed, %lu on another node), %lu frees, "
		   "at most %lu of %lu pages live", allocs, fails, remote, frees, max_live,
		   mm_total_managed());
	KTEST_EXPECT_GT(t, fails, 0); /* memory ran out at some point */
	KTEST_EXPECT_GT(t, remote, 0);
	while (n--)
		put(live[n].p, live[n].order);
	expect_boot_shape(t);
	KTEST_EXPECT_EQ(t, mm_total_bad(), 0);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(boot_frees_memory_minus_reserved),
	KTEST_CASE(fallback_lists_follow_distance),
	KTEST_CASE(split_and_merge_return_to_the_initial_shape),
	KTEST_CASE(buddy_layer_splits_and_merges_exactly),
	KTEST_CASE(merged_buddies_keep_private_zero),
	KTEST_CASE(every_allocation_is_aligned_to_its_order),
	KTEST_CASE(order_above_the_maximum_fails),
	KTEST_CASE(fallback_goes_by_distance_when_a_node_is_exhausted),
	KTEST_CASE(thisnode_fails_instead_of_falling_back),
	KTEST_CASE(memoryless_node_allocates_from_the_nearest),
	KTEST_CASE(blocks_never_merge_across_nodes),
	KTEST_CASE(numa_counters_are_per_cpu_and_summed),
	KTEST_CASE(per_cpu_lists_stay_bounded_and_drain),
	KTEST_CASE(thp_order_blocks_use_the_per_cpu_list),
	KTEST_CASE(gfp_zero_returns_zeroed_pages),
	KTEST_CASE(nofail_uses_half_the_reserve_and_no_more),
	KTEST_CASE(random_alloc_free_keeps_every_invariant),
};


int main(void)
{
	return page_alloc_test_main("host_page_alloc", cases, ARRAY_SIZE(cases));
}
