/* Host tests of the page allocator's node filter, __alloc_pages(gfp, order,
 * preferred_nid, nodemask), on the machine of page_alloc_harness.h (four
 * nodes of 64 MiB in a ring: from node 0, nodes 1 and 3 are at 20 and
 * node 2 at 30): the nodemask helpers themselves; a mask keeps every order,
 * order 0 included, on its nodes even when the preferred node's per-CPU
 * list holds pages; fallback among the allowed nodes goes by distance from
 * the preferred node; a mask with no memory behind it fails at once and
 * leaks nothing; and no mask is what alloc_pages_node always did.
 *
 * Every case ends with the free lists in exactly their shape after boot. */
#include "tests/host/page_alloc_harness.h"

/* ---- nodemask_t ----------------------------------------------------------- */

static void nodemask_helpers_follow_linux(struct ktest *t)
{
	nodemask_t m = NODE_MASK_NONE;
	KTEST_EXPECT_TRUE(t, nodes_empty(m));
	KTEST_EXPECT_EQ(t, first_node(m), MAX_NUMNODES);
	node_set(3, m);
	node_set(0, m);
	node_set(MAX_NUMNODES - 1, m);
	node_set(MAX_NUMNODES, m); /* out of range: ignored, as NUMA_NO_NODE is */
	node_set(NUMA_NO_NODE, m);
	KTEST_EXPECT_EQ(t, nodes_weight(m), 3);
	KTEST_EXPECT_TRUE(t, node_isset(3, m));
	KTEST_EXPECT_FALSE(t, node_isset(1, m));
	KTEST_EXPECT_FALSE(t, node_isset(NUMA_NO_NODE, m));
	KTEST_EXPECT_FALSE(t, node_isset(MAX_NUMNODES, m));
	KTEST_EXPECT_EQ(t, first_node(m), 0);
	KTEST_EXPECT_EQ(t, next_node(0, m), 3);
	KTEST_EXPECT_EQ(t, next_node(3, m), MAX_NUMNODES - 1);
	KTEST_EXPECT_EQ(t, next_node(MAX_NUMNODES - 1, m), MAX_NUMNODES);
	int seen[4], n = 0, nid;
	for_each_node_mask(nid, m) {
		KTEST_ASSERT_LT(t, n, 4);
		seen[n++] = nid;
	}
	KTEST_ASSERT_EQ(t, n, 3);
	KTEST_EXPECT_EQ(t, seen[0], 0);
	KTEST_EXPECT_EQ(t, seen[1], 3);
	KTEST_EXPECT_EQ(t, seen[2], MAX_NUMNODES - 1);

	nodemask_t two = nodemask_of_node(2), all = NODE_MASK_ALL, x;
	KTEST_EXPECT_EQ(t, nodes_weight(all), MAX_NUMNODES);
	KTEST_EXPECT_TRUE(t, nodes_full(all));
	KTEST_EXPECT_FALSE(t, nodes_intersects(m, two));
	nodes_or(x, m, two);
	KTEST_EXPECT_EQ(t, nodes_weight(x), 4);
	KTEST_EXPECT_TRUE(t, nodes_subset(two, x));
	KTEST_EXPECT_FALSE(t, nodes_subset(x, two));
	nodes_and(x, x, two);
	KTEST_EXPECT_TRUE(t, nodes_equal(x, two));
	nodes_andnot(x, all, m);
	KTEST_EXPECT_EQ(t, nodes_weight(x), MAX_NUMNODES - 3);
	node_clear(2, x);
	KTEST_EXPECT_FALSE(t, node_isset(2, x));
	nodes_clear(x);
	KTEST_EXPECT_TRUE(t, nodes_empty(x));
	nodes_setall(x);
	KTEST_EXPECT_TRUE(t, nodes_equal(x, all));
}

/* ---- a mask restricts ------------------------------------------------------ */

static void mask_keeps_every_order_on_its_nodes(struct ktest *t)
{
	/* Node 0's per-CPU list for this CPU gets a batch: the order-0 fast
	 * path would hand out its head if the mask were not looked at. */
	struct page *warm = get(t, 0, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, warm);
	put(warm, 0);
	KTEST_ASSERT_GE(t, NODE_DATA(0)->pcp[0].count, 1);

	static const unsigned long masks[] = { 1ul << 2, (1ul << 1) | (1ul << 3), 1ul << 0 };
	for (size_t m = 0; m < ARRAY_SIZE(masks); m++) {
		nodemask_t mask = { { masks[m] } };
		struct page *held[11];
		for (unsigned order = 0; order <= 10; order++) {
			unsigned long hit = node_numa_event_state(first_node(mask), NUMA_HIT);
			held[order] = get_nodemask(t, 0, GFP_KERNEL, order, &mask);
			KTEST_ASSERT_NOT_NULL(t, held[order]);
			/* The nearest allowed node is the one the caller wanted:
			 * a hit there, as Linux counts against preferred_zoneref. */
			if (nodes_weight(mask) == 1)
				KTEST_EXPECT_EQ(t, node_numa_event_state(first_node(mask), NUMA_HIT), hit + 1);
		}
		/* Node 0 in the mask: the hot page itself comes back first. */
		if (node_isset(0, mask))
			KTEST_EXPECT_TRUE(t, held[0] == warm);
		for (unsigned order = 0; order <= 10; order++)
			put(held[order], order);
	}
	drain_all_pages();
	expect_boot_shape(t);
}

static bool above_low(int nid, unsigned order)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	return (long)pgdat->nr_free - (long)(1ul << order) + 1 > (long)pgdat->watermark[WMARK_LOW];
}

static void masked_fallback_goes_by_distance_from_the_preferred_node(struct ktest *t)
{
	enum { ORDER = 5, MAX_HELD = 4 * (NODE_BYTES >> (PAGE_SHIFT + ORDER)) };
	static struct page *held[MAX_HELD];
	/* Preferring node 0, which the mask leaves out: 1 and 3 (distance 20,
	 * lower id first), then 2 (30). */
	nodemask_t mask = NODE_MASK_NONE;
	node_set(1, mask);
	node_set(2, mask);
	node_set(3, mask);
	static const int want_order[] = { 1, 3, 2 };
	int n = 0, order_seen[NR_NODES], nseen = 0, seen[NR_NODES] = { 0 };
	unsigned long free0 = node_free_pages(0);
	unsigned long before[NR_NODES][NR_NUMA_STAT_ITEMS];
	for (int nid = 0; nid < NR_NODES; nid++)
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			before[nid][i] = node_numa_event_state(nid, (enum numa_stat_item)i);
	struct page *p;
	while ((p = get_nodemask(t, 0, GFP_KERNEL | __GFP_NOWARN, ORDER, &mask))) {
		KTEST_ASSERT_LT(t, n, MAX_HELD);
		held[n++] = p;
		int got = page_to_nid(p);
		if (!seen[got]++) {
			KTEST_ASSERT_LT(t, nseen, 3);
			order_seen[nseen++] = got;
		}
		/* Only once the nearer allowed nodes are below their low
		 * watermark does the next one serve. */
		for (int i = 0; i < 3 && want_order[i] != got; i++)
			KTEST_EXPECT_FALSE(t, above_low(want_order[i], ORDER));
	}
	KTEST_EXPECT_EQ(t, nseen, 3);
	for (int i = 0; i < nseen; i++)
		KTEST_EXPECT_EQ(t, order_seen[i], want_order[i]);
	/* Linux's zone_statistics against preferred_zoneref, the first zone
	 * of node 0's zonelist inside the mask: node 1 was the one wanted. Its
	 * own blocks are hits, the others' misses there and foreign on node 1;
	 * node 0, outside the mask, counts nothing. */
	unsigned long delta[NR_NODES][NR_NUMA_STAT_ITEMS];
	for (int nid = 0; nid < NR_NODES; nid++)
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			delta[nid][i] = node_numa_event_state(nid, (enum numa_stat_item)i) - before[nid][i];
	KTEST_EXPECT_EQ(t, delta[1][NUMA_HIT], (unsigned long)seen[1]);
	KTEST_EXPECT_EQ(t, delta[1][NUMA_MISS], 0ul);
	KTEST_EXPECT_EQ(t, delta[1][NUMA_FOREIGN], (unsigned long)(seen[2] + seen[3]));
	for (int nid = 2; nid <= 3; nid++) {
		KTEST_EXPECT_EQ(t, delta[nid][NUMA_HIT], 0ul);
		KTEST_EXPECT_EQ(t, delta[nid][NUMA_MISS], (unsigned long)seen[nid]);
		KTEST_EXPECT_EQ(t, delta[nid][NUMA_FOREIGN], 0ul);
	}
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
		KTEST_EXPECT_EQ(t, delta[0][i], 0ul);
	/* Node 0 was never touched, though it had the most room. */
	KTEST_EXPECT_EQ(t, node_free_pages(0), free0);
	KTEST_EXPECT_TRUE(t, above_low(0, ORDER));
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	while (n--)
		put(held[n], ORDER);
	drain_all_pages();
	expect_boot_shape(t);
}

/* ---- a mask with no memory ------------------------------------------------- */

/* Every way of asking fails at once: NULL, nothing taken from any node, and
 * (unless __GFP_NOWARN) one failure report that names the mask. */
static void expect_clean_failure(struct ktest *t, int nid, const nodemask_t *mask, const char *shown)
{
	static const gfp_t gfps[] = { GFP_KERNEL, GFP_NOWAIT, GFP_KERNEL | __GFP_NOFAIL,
				      GFP_KERNEL | __GFP_THISNODE, GFP_KERNEL | __GFP_RETRY_MAYFAIL };
	unsigned long free = nr_free_pages();
	for (size_t g = 0; g < ARRAY_SIZE(gfps); g++) {
		for (unsigned order = 0; order <= 9; order += 3) {
			capture_begin();
			struct page *p = __alloc_pages(gfps[g], order, nid, mask);
			capture_end();
			if (!KTEST_EXPECT_NULL(t, p)) {
				put(p, order);
				continue;
			}
			KTEST_EXPECT_NOT_NULL(t, strstr(printed, "page allocation failure"));
			if (!KTEST_EXPECT_NOT_NULL(t, strstr(printed, shown)))
				ktest_diag(t, "report: %s", printed);
			KTEST_EXPECT_EQ(t, nr_free_pages(), free);
		}
	}
	capture_begin();
	KTEST_EXPECT_NULL(t, __alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0, nid, mask));
	capture_end();
	KTEST_EXPECT_EQ(t, strlen(printed), 0);
}

static void empty_mask_fails_cleanly(struct ktest *t)
{
	nodemask_t none = NODE_MASK_NONE;
	expect_clean_failure(t, 0, &none, "nodemask=,");
	expect_clean_failure(t, NUMA_NO_NODE, &none, "nodemask=,");
	expect_boot_shape(t);
}

static void memoryless_mask_fails_cleanly(struct ktest *t)
{
	boot(&ring_node3_memoryless);
	KTEST_ASSERT_EQ(t, NODE_DATA(3)->managed_pages, 0);
	nodemask_t only3 = nodemask_of_node(3);
	expect_clean_failure(t, 0, &only3, "nodemask=3,");
	expect_clean_failure(t, 3, &only3, "nodemask=3,");
	/* With a node that has memory beside it, that node serves. */
	nodemask_t with1 = only3;
	node_set(1, with1);
	for (unsigned order = 0; order <= 4; order += 4) {
		struct page *p = get_nodemask(t, 3, GFP_KERNEL, order, &with1);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_EQ(t, page_to_nid(p), 1);
		put(p, order);
	}
	drain_all_pages();
	expect_boot_shape(t);
}

/* ---- no mask ------------------------------------------------------------------ */

static void no_mask_is_alloc_pages_node(struct ktest *t)
{
	/* Order 0 from the hot per-CPU list: the page just freed, whichever
	 * entry is used, and the full mask gives the same as no mask. */
	struct page *p = get(t, 1, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	put(p, 0);
	struct page *q = get_nodemask(t, 1, GFP_KERNEL, 0, NULL);
	KTEST_EXPECT_TRUE(t, q == p);
	put(q, 0);
	nodemask_t all = NODE_MASK_ALL;
	q = get_nodemask(t, 1, GFP_KERNEL, 0, &all);
	KTEST_EXPECT_TRUE(t, q == p);
	put(q, 0);
	/* NUMA_NO_NODE is this CPU's node (CPU 0, node 0), mask or none. */
	q = get_nodemask(t, NUMA_NO_NODE, GFP_KERNEL, 3, NULL);
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_EQ(t, page_to_nid(q), 0);
	put(q, 3);
	q = get_nodemask(t, NUMA_NO_NODE, GFP_KERNEL, 3, &all);
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_EQ(t, page_to_nid(q), 0);
	put(q, 3);
	/* Higher orders: the same block through either entry. */
	p = get(t, 2, GFP_KERNEL, 6);
	KTEST_ASSERT_NOT_NULL(t, p);
	put(p, 6);
	q = __alloc_pages(GFP_KERNEL, 6, 2, NULL);
	KTEST_EXPECT_TRUE(t, q == p);
	__free_pages(q, 6);
	/* A node that does not exist is refused, with or without a mask. */
	capture_begin();
	KTEST_EXPECT_NULL(t, __alloc_pages(GFP_KERNEL, 0, MAX_NUMNODES, NULL));
	KTEST_EXPECT_NULL(t, __alloc_pages(GFP_KERNEL, 0, -7, &all));
	capture_end();
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "does not exist"));
	drain_all_pages();
	expect_boot_shape(t);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(nodemask_helpers_follow_linux),
	KTEST_CASE(mask_keeps_every_order_on_its_nodes),
	KTEST_CASE(masked_fallback_goes_by_distance_from_the_preferred_node),
	KTEST_CASE(empty_mask_fails_cleanly),
	KTEST_CASE(memoryless_mask_fails_cleanly),
	KTEST_CASE(no_mask_is_alloc_pages_node),
};

int main(void)
{
	return page_alloc_test_main("host_page_alloc_nodemask", cases, ARRAY_SIZE(cases));
}
