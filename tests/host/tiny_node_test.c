/* Host tests of tiny NUMA nodes (hostile firmware): a node whose RAM is all kept by
 * the firmware (present pages, no managed page) and a node of a few pages
 * (managed, but fewer bytes than its own struct pages take), on the ring of
 * page_alloc_harness.h with node 1 made tiny. mm/page_alloc_init.c says
 * which count serves which use: fallback lists and watermarks by managed
 * pages, "has memory" by present pages. A tiny node must be neither
 * preferred (chosen first and failing) nor starved (its pages unusable).
 *
 * Every case ends with the free lists in exactly their shape after boot. */
#include "tests/host/page_alloc_harness.h"

/* Node 1 is 64 KiB at 64 MiB, reserved whole: 16 present pages, none managed. */
static const struct host_mm_config ring_node1_reserved = {
	.nr_nodes = NR_NODES,
	.node_bytes = { NODE_BYTES, KiB(64), NODE_BYTES, NODE_BYTES },
	.reserved = { { NODE_BYTES, KiB(64) } },
	.nr_reserved = 1,
};

/* Node 1 is 4 pages, all free: big enough for its struct pages, far too
 * small for a watermark sized for the machine. */
static const struct host_mm_config ring_node1_six_pages = {
	.nr_nodes = NR_NODES,
	.node_bytes = { NODE_BYTES, 6 * PAGE_SIZE, NODE_BYTES, NODE_BYTES },
};

static bool in_fallback(const pg_data_t *pgdat, int nid)
{
	for (int i = 0; i < pgdat->nr_fallback; i++)
		if (pgdat->fallback[i] == nid)
			return true;
	return false;
}

static void boot_captured(const struct host_mm_config *cfg)
{
	capture_begin();
	boot(cfg);
	capture_end();
}

/* Present but not managed: in no fallback list (its own CPU allocates from
 * the nearest node with pages), named at boot, still "has memory". */
static void reserved_node_is_in_no_fallback_list(struct ktest *t)
{
	boot_captured(&ring_node1_reserved);
	pg_data_t *tiny = NODE_DATA(1);
	KTEST_ASSERT_NOT_NULL(t, tiny);
	KTEST_EXPECT_EQ(t, tiny->node_present_pages, KiB(64) / PAGE_SIZE);
	KTEST_EXPECT_EQ(t, tiny->managed_pages, 0);
	if (!KTEST_EXPECT_NOT_NULL(t, strstr(printed, "NUMA: node 1 has 64 KiB of RAM, 0 KiB managed: "
						       "too small for its own struct pages")))
		ktest_diag(t, "boot printed: %s", printed);
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "left out of the fallback lists"));
	for (int nid = 0; nid < NR_NODES; nid++) {
		const pg_data_t *pgdat = NODE_DATA(nid);
		KTEST_EXPECT_FALSE(t, in_fallback(pgdat, 1));
		KTEST_EXPECT_EQ(t, pgdat->nr_fallback, NR_NODES - 1);
	}
	/* Node 1's nearest with pages: 0 and 2 at 20, the lower id first. */
	KTEST_EXPECT_EQ(t, tiny->fallback[0], 0);
	expect_boot_shape(t);
}

/* Not preferred: an allocation for node 1 lands on its nearest node at
 * once, and a request only node 1 may serve fails at once, leaking
 * nothing, whatever the flags (a listed node would be retried). */
static void reserved_node_is_not_preferred(struct ktest *t)
{
	boot_captured(&ring_node1_reserved);
	for (unsigned order = 0; order <= 4; order += 4) {
		struct page *p = get(t, 1, GFP_KERNEL, order);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_EQ(t, page_to_nid(p), 0);
		put(p, order);
	}
	unsigned long free = nr_free_pages();
	static const gfp_t gfps[] = { GFP_KERNEL | __GFP_THISNODE, GFP_KERNEL | __GFP_RETRY_MAYFAIL,
				      GFP_KERNEL | __GFP_NOFAIL };
	nodemask_t only1 = nodemask_of_node(1);
	for (size_t g = 0; g < ARRAY_SIZE(gfps); g++) {
		capture_begin();
		struct page *p = __alloc_pages(gfps[g] | __GFP_NOWARN, 0, 1,
					       gfps[g] & __GFP_THISNODE ? NULL : &only1);
		capture_end();
		if (!KTEST_EXPECT_NULL(t, p))
			put(p, 0);
		KTEST_EXPECT_EQ(t, nr_free_pages(), free);
	}
	drain_all_pages();
	expect_boot_shape(t);
}

/* Not starved: a node of six pages (its pg_data_t takes four: per-CPU
 * lists per migrate type) is in every list, first in its own,
 * its watermarks are its share (none), and every page it manages can be
 * had from it before its allocations go elsewhere. */
static void six_page_node_is_not_starved(struct ktest *t)
{
	boot_captured(&ring_node1_six_pages);
	pg_data_t *tiny = NODE_DATA(1);
	KTEST_ASSERT_NOT_NULL(t, tiny);
	/* Its pg_data_t lives on it (as Linux's alloc_node_data places it):
	 * what is left is the allocator's. */
	unsigned long managed = tiny->managed_pages;
	KTEST_ASSERT_GE(t, managed, 1);
	KTEST_ASSERT_LE(t, managed, 6);
	KTEST_EXPECT_EQ(t, tiny->fallback[0], 1);
	for (int nid = 0; nid < NR_NODES; nid++)
		KTEST_EXPECT_TRUE(t, in_fallback(NODE_DATA(nid), 1));
	KTEST_EXPECT_EQ(t, tiny->watermark[WMARK_MIN], 0);
	KTEST_EXPECT_NULL(t, strstr(printed, "NUMA: node 1 has"));
	struct page *held[4];
	for (unsigned long i = 0; i < managed; i++) {
		held[i] = get(t, 1, GFP_KERNEL | __GFP_THISNODE, 0);
		KTEST_ASSERT_NOT_NULL(t, held[i]);
		KTEST_EXPECT_EQ(t, page_to_nid(held[i]), 1);
	}
	struct page *next = get(t, 1, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, next);
	KTEST_EXPECT_NE(t, page_to_nid(next), 1);
	put(next, 0);
	for (unsigned long i = 0; i < managed; i++)
		put(held[i], 0);
	drain_all_pages();
	expect_boot_shape(t);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(reserved_node_is_in_no_fallback_list),
	KTEST_CASE(reserved_node_is_not_preferred),
	KTEST_CASE(six_page_node_is_not_starved),
};

int main(void)
{
	return page_alloc_test_main("host_tiny_node", cases, ARRAY_SIZE(cases));
}
