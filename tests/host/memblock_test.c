/* Host tests of mm/memblock.c: ranges kept sorted and merged, top-down
 * allocation (node-exact and with fallback, aligned, within limits), and
 * the walk over free memory (memory minus reserved, split at nodes). */
#include "mm/memblock.h"
#include "mm/numa.h"
#include "tests/host/ktest.h"
#include "tests/host/shim.h"

#include <string.h>

#define MEM MiB(256)

static void reset(struct ktest *t)
{
	(void)t;
	memblock_reset();
}

/* Four nodes of 64 MiB, back to back. */
static void four_nodes(void)
{
	for (int n = 0; n < 4; n++)
		memblock_add_node(MiB(64) * (u64)n, MiB(64), n);
}

static void memory_ranges_merge_within_a_node_only(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, memblock_add_node(MiB(2), MiB(1), 0), 0);
	KTEST_EXPECT_EQ(t, memblock_add_node(0, MiB(1), 0), 0);
	KTEST_EXPECT_EQ(t, memblock_add_node(MiB(1), MiB(1), 0), 0); /* fills the gap */
	KTEST_ASSERT_EQ(t, memblock.memory.cnt, 1);
	KTEST_EXPECT_EQ(t, memblock.memory.regions[0].base, 0);
	KTEST_EXPECT_EQ(t, memblock.memory.regions[0].size, MiB(3));
	/* Adjacent but on another node: kept apart. */
	KTEST_EXPECT_EQ(t, memblock_add_node(MiB(3), MiB(1), 1), 0);
	KTEST_ASSERT_EQ(t, memblock.memory.cnt, 2);
	KTEST_EXPECT_EQ(t, memblock.memory.regions[1].base, MiB(3));
	KTEST_EXPECT_EQ(t, memblock.memory.regions[1].nid, 1);
	KTEST_EXPECT_EQ(t, memblock.memory.total_size, MiB(4));
	/* Overlapping the same node: absorbed. */
	KTEST_EXPECT_EQ(t, memblock_add_node(KiB(512), MiB(2), 0), 0);
	KTEST_EXPECT_EQ(t, memblock.memory.cnt, 2);
	KTEST_EXPECT_EQ(t, memblock.memory.total_size, MiB(4));
	/* Zero size is a no-op, a wrapping range an error. */
	KTEST_EXPECT_EQ(t, memblock_add_node(MiB(9), 0, 0), 0);
	KTEST_EXPECT_EQ(t, memblock.memory.cnt, 2);
	KTEST_EXPECT_EQ(t, memblock_add_node(~0ull - 10, 100, 0), -EINVAL);
}

static void reserved_ranges_merge_by_label_or_overlap(struct ktest *t)
{
	memblock_reserve(MiB(2), MiB(1), "a");
	memblock_reserve(MiB(1), MiB(1), "a"); /* touches, same label: merged */
	KTEST_ASSERT_EQ(t, memblock.reserved.cnt, 1);
	KTEST_EXPECT_EQ(t, memblock.reserved.regions[0].base, MiB(1));
	KTEST_EXPECT_EQ(t, memblock.reserved.regions[0].size, MiB(2));
	memblock_reserve(MiB(3), MiB(1), "b"); /* touches, another label: apart */
	KTEST_ASSERT_EQ(t, memblock.reserved.cnt, 2);
	KTEST_EXPECT_EQ(t, memblock.reserved.regions[1].base, MiB(3));
	KTEST_EXPECT_TRUE(t, !strcmp(memblock.reserved.regions[1].what, "b"));
	/* Overlapping merges whatever the labels; the first label stays. */
	memblock_reserve(MiB(3) + KiB(512), MiB(2), "c");
	KTEST_ASSERT_EQ(t, memblock.reserved.cnt, 2);
	KTEST_EXPECT_EQ(t, memblock.reserved.regions[1].size, MiB(2) + KiB(512));
	KTEST_EXPECT_TRUE(t, !strcmp(memblock.reserved.regions[1].what, "b"));
	/* Equal labels from different strings merge too. */
	static char other_a[] = "a";
	memblock_reserve(0, MiB(1), other_a);
	KTEST_ASSERT_EQ(t, memblock.reserved.cnt, 2);
	KTEST_EXPECT_EQ(t, memblock.reserved.regions[0].base, 0);
	KTEST_EXPECT_EQ(t, memblock.reserved.total_size, MiB(3) + MiB(2) + KiB(512));
	KTEST_EXPECT_TRUE(t, memblock_is_reserved(0));
	KTEST_EXPECT_TRUE(t, memblock_is_reserved(MiB(5) + KiB(512) - 1));
	KTEST_EXPECT_FALSE(t, memblock_is_reserved(MiB(5) + KiB(512)));
}

static void lookups_name_the_node(struct ktest *t)
{
	four_nodes();
	KTEST_EXPECT_EQ(t, memblock.memory.cnt, 4);
	KTEST_EXPECT_EQ(t, memblock_nid_of(0), 0);
	KTEST_EXPECT_EQ(t, memblock_nid_of(MiB(64) - 1), 0);
	KTEST_EXPECT_EQ(t, memblock_nid_of(MiB(64)), 1);
	KTEST_EXPECT_EQ(t, memblock_nid_of(MiB(255)), 3);
	KTEST_EXPECT_EQ(t, memblock_nid_of(MiB(256)), NUMA_NO_NODE);
	KTEST_EXPECT_TRUE(t, memblock_is_memory(MiB(100)));
	KTEST_EXPECT_FALSE(t, memblock_is_memory(MiB(300)));
}

static void allocation_is_top_down_and_reserves(struct ktest *t)
{
	four_nodes();
	phys_addr_t a = memblock_phys_alloc_node(KiB(4), KiB(4), NUMA_NO_NODE);
	KTEST_EXPECT_EQ(t, a, MiB(256) - KiB(4));
	phys_addr_t b = memblock_phys_alloc_node(KiB(4), KiB(4), NUMA_NO_NODE);
	KTEST_EXPECT_EQ(t, b, MiB(256) - KiB(8));
	KTEST_EXPECT_TRUE(t, memblock_is_reserved(a));
	KTEST_EXPECT_TRUE(t, memblock_is_reserved(b));
	/* The two allocations are adjacent: one reserved range. */
	KTEST_EXPECT_EQ(t, memblock.reserved.cnt, 1);
	KTEST_EXPECT_EQ(t, memblock.reserved.total_size, KiB(8));
	/* Node 1's highest page. */
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_node(KiB(4), KiB(4), 1), MiB(128) - KiB(4));
	/* Sizes round up to 8 bytes, alignment defaults to 8. */
	phys_addr_t c = memblock_phys_alloc_node(3, 0, 2);
	KTEST_EXPECT_EQ(t, c, MiB(192) - 8);
	KTEST_EXPECT_TRUE(t, memblock_is_reserved(c + 7));
}

static void allocation_is_aligned(struct ktest *t)
{
	four_nodes();
	memblock_phys_alloc_node(100, 8, 3); /* leaves the top unaligned */
	for (unsigned shift = 3; shift <= 24; shift += 3) {
		phys_addr_t align = 1ull << shift;
		phys_addr_t a = memblock_phys_alloc_node(12345, align, 3);
		KTEST_EXPECT_NE(t, a, 0);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED(a, align));
		KTEST_EXPECT_EQ(t, memblock_nid_of(a), 3);
		KTEST_EXPECT_EQ(t, memblock_nid_of(a + 12344), 3);
	}
	/* An alignment larger than any free range fits nowhere. */
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_node(KiB(4), GiB(1), NUMA_NO_NODE), 0);
}

static void exact_node_fails_and_inexact_falls_back(struct ktest *t)
{
	four_nodes();
	memblock_reserve(MiB(64), MiB(64) - MiB(1), "most of node 1");
	/* 1 MiB left on node 1: a 2 MiB request must not land there. */
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_range(MiB(2), KiB(4), 0, ~0ull, 1, true), 0);
	phys_addr_t a = memblock_phys_alloc_range(MiB(2), KiB(4), 0, ~0ull, 1, false);
	KTEST_EXPECT_NE(t, a, 0);
	/* Fallback takes the highest fit anywhere: the top of node 3. */
	KTEST_EXPECT_EQ(t, a, MiB(256) - MiB(2));
	KTEST_EXPECT_EQ(t, memblock_nid_of(a), 3);
	/* What node 1 still has is handed out exactly. */
	phys_addr_t b = memblock_phys_alloc_range(MiB(1), KiB(4), 0, ~0ull, 1, true);
	KTEST_EXPECT_EQ(t, b, MiB(128) - MiB(1));
	KTEST_EXPECT_EQ(t, memblock_free_bytes_node(1), 0);
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_range(KiB(4), KiB(4), 0, ~0ull, 1, true), 0);
	/* A range never straddles a node boundary, even when both sides are free. */
	memblock_reset();
	four_nodes();
	memblock_reserve(0, MiB(64) - MiB(1), "node 0 but its top MiB");
	memblock_reserve(MiB(65), MiB(191), "nodes 1-3 but node 1's first MiB");
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_node(MiB(2), KiB(4), NUMA_NO_NODE), 0);
	KTEST_EXPECT_NE(t, memblock_phys_alloc_node(MiB(1), KiB(4), NUMA_NO_NODE), 0);
}

static void allocation_respects_limits(struct ktest *t)
{
	four_nodes();
	phys_addr_t a = memblock_phys_alloc_range(KiB(4), KiB(4), 0, MiB(16), NUMA_NO_NODE, false);
	KTEST_EXPECT_EQ(t, a, MiB(16) - KiB(4));
	phys_addr_t b = memblock_phys_alloc_range(KiB(4), KiB(4), MiB(200), MiB(201), 0, false);
	/* Node 0 has nothing in [200, 201) MiB: the fallback finds node 3. */
	KTEST_EXPECT_EQ(t, b, MiB(201) - KiB(4));
	/* Address 0 is never returned: 0 means failure. */
	memblock_reset();
	memblock_add_node(0, KiB(8), 0);
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_node(KiB(4), KiB(4), 0), KiB(4));
	KTEST_EXPECT_EQ(t, memblock_phys_alloc_node(KiB(4), KiB(4), 0), 0);
}

struct walk {
	unsigned n;
	u64 start[16], end[16];
	int nid[16];
};

static void record(phys_addr_t s, phys_addr_t e, int nid, void *arg)
{
	struct walk *w = arg;
	if (w->n < 16) {
		w->start[w->n] = s;
		w->end[w->n] = e;
		w->nid[w->n] = nid;
	}
	w->n++;
}

static void free_ranges_are_memory_minus_reserved(struct ktest *t)
{
	four_nodes();
	memblock_reserve(0, MiB(1), "first MiB");
	memblock_reserve(MiB(10), MiB(2), "kernel");
	memblock_reserve(MiB(63), MiB(2), "straddles nodes 0 and 1");
	memblock_reserve(MiB(128), MiB(64), "all of node 2");
	memblock_reserve(MiB(255), MiB(4), "past the end");
	struct walk w = { 0 };
	memblock_for_each_free_range(record, &w);
	static const u64 want[][3] = {
		{ MiB(1), MiB(10), 0 },   { MiB(12), MiB(63), 0 }, { MiB(65), MiB(128), 1 },
		{ MiB(192), MiB(255), 3 },
	};
	KTEST_ASSERT_EQ(t, w.n, ARRAY_SIZE(want));
	for (unsigned i = 0; i < w.n; i++) {
		KTEST_EXPECT_EQ(t, w.start[i], want[i][0]);
		KTEST_EXPECT_EQ(t, w.end[i], want[i][1]);
		KTEST_EXPECT_EQ(t, w.nid[i], want[i][2]);
	}
	KTEST_EXPECT_EQ(t, memblock_free_bytes_node(0), MiB(9) + MiB(51));
	KTEST_EXPECT_EQ(t, memblock_free_bytes_node(2), 0);
	KTEST_EXPECT_EQ(t, memblock_free_bytes_node(NUMA_NO_NODE), MiB(60) + MiB(63) + MiB(63));
}

static void alloc_node_returns_zeroed_host_memory(struct ktest *t)
{
	host_mem_init(MEM);
	memset(host_phys_base, 0x5a, MEM);
	four_nodes();
	u8 *p = memblock_alloc_node(10000, 64, 2);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_TRUE(t, p >= host_phys_base + MiB(128) && p + 10000 <= host_phys_base + MiB(192));
	KTEST_EXPECT_TRUE(t, IS_ALIGNED((uintptr_t)(p - host_phys_base), 64));
	unsigned nonzero = 0;
	for (unsigned i = 0; i < 10000; i++)
		nonzero += p[i] != 0;
	KTEST_EXPECT_EQ(t, nonzero, 0);
	KTEST_EXPECT_EQ(t, p[10000 + 100], 0x5a); /* ... and only that */
	host_mem_free();
}

static void frozen_memblock_refuses(struct ktest *t)
{
	four_nodes();
	memblock.frozen = true;
	char log[256];
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	phys_addr_t a = memblock_phys_alloc_node(KiB(4), KiB(4), 0);
	printk_capture_end(&cap);
	KTEST_EXPECT_EQ(t, a, 0);
	KTEST_EXPECT_NOT_NULL(t, strstr(log, "after the buddy allocator took over"));
	memblock.frozen = false;
}

static void region_table_overflow_is_reported(struct ktest *t)
{
	char log[256];
	struct printk_capture cap;
	int err = 0;
	printk_capture_begin(&cap, log, sizeof(log));
	for (unsigned i = 0; i <= MEMBLOCK_MAX_REGIONS && !err; i++)
		err = memblock_reserve(MiB(1) * i, KiB(4), "sparse");
	printk_capture_end(&cap);
	KTEST_EXPECT_EQ(t, err, -ENOMEM);
	KTEST_EXPECT_EQ(t, memblock.reserved.cnt, MEMBLOCK_MAX_REGIONS);
	KTEST_EXPECT_NOT_NULL(t, strstr(log, "no room for reserved"));
}

/* numa_memblks_to_memblock (mm/numa.c) gives memblock the whole pages of
 * each node's RAM below the limit and says how much it left out above it.
 * A block too small to hold a whole page (a firmware sliver) above the
 * limit used to count as a huge amount left out: its rounded start lies
 * past its rounded end, and the subtraction wrapped. */
static void numa_memblks_whole_pages_below_the_limit(struct ktest *t)
{
	static struct numa_topology topo;
	numa_topology_reset(&topo);
	const struct numa_memblk blks[] = {
		{ 0x1000, 0x9fc00, 0 },                 /* ends inside a page */
		{ MiB(1), MiB(64), 0 },
		{ MiB(64), MiB(192), 1 },               /* straddles the limit */
		{ MiB(192) + 0x800, MiB(192) + 0xc00, 1 }, /* a sliver above it */
		{ MiB(200) + 0x800, MiB(201), 1 },      /* starts inside a page */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(blks); i++)
		topo.memblks[topo.nr_memblks++] = blks[i];
	u64 dropped = numa_memblks_to_memblock(&topo, MiB(128));
	KTEST_EXPECT_EQ(t, dropped, MiB(64) + MiB(1) - 0x1000);
	KTEST_ASSERT_EQ(t, memblock.memory.cnt, 3);
	KTEST_EXPECT_EQ(t, memblock.memory.regions[0].base, 0x1000);
	KTEST_EXPECT_EQ(t, memblock.memory.regions[0].size, 0x9f000 - 0x1000);
	KTEST_EXPECT_EQ(t, memblock.memory.regions[1].base, MiB(1));
	KTEST_EXPECT_EQ(t, memblock.memory.regions[2].base, MiB(64));
	KTEST_EXPECT_EQ(t, memblock.memory.regions[2].size, MiB(64));
	KTEST_EXPECT_EQ(t, memblock.memory.regions[2].nid, 1);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(memory_ranges_merge_within_a_node_only),
	KTEST_CASE(reserved_ranges_merge_by_label_or_overlap),
	KTEST_CASE(lookups_name_the_node),
	KTEST_CASE(allocation_is_top_down_and_reserves),
	KTEST_CASE(allocation_is_aligned),
	KTEST_CASE(exact_node_fails_and_inexact_falls_back),
	KTEST_CASE(allocation_respects_limits),
	KTEST_CASE(free_ranges_are_memory_minus_reserved),
	KTEST_CASE(alloc_node_returns_zeroed_host_memory),
	KTEST_CASE(frozen_memblock_refuses),
	KTEST_CASE(region_table_overflow_is_reported),
	KTEST_CASE(numa_memblks_whole_pages_below_the_limit),
};

int main(void)
{
	return ktest_run_suite("host_memblock", cases, ARRAY_SIZE(cases), reset);
}
