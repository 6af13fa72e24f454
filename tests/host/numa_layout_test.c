/* Host tests of the page allocator under the NUMA layouts of the hostile
 * generator's layout classes (tools/hostile/): nodes interleaved at 4 KiB,
 * 2 MiB, 4 MiB, 128 MiB and 1 GiB over 2, 4 and 16 nodes, boundaries off
 * any page with a node of no whole page, holes between a node's ranges, and
 * random layouts drawn from a seed. Each layout boots as the kernel boots
 * (tests/host/mm_boot.c), then:
 *
 *  - every free block of every node is that node's memory (within one
 *    node's ranges as the SRAT gave them, rounded inwards to pages), aligned
 *    to its order, and no missed merge (its buddy is not a free block of the
 *    same order on the node);
 *  - thousands of random allocations and frees of every order on every node
 *    (__GFP_THISNODE): each block handed out lies in that node's ranges and
 *    overlaps nothing held; on each free above order 0 (order 0 goes to the
 *    per-CPU list, checked at the drains) the block it merged into is
 *    found, and it and its buddy are checked as above;
 *  - at the end everything is back: the free lists as they were after boot.
 *
 * The expectation is the layout's ranges, never the allocator's own view. */
#include "mm/memblock.h"
#include "mm/page_alloc.h"
#include "tests/host/ktest.h"
#include "tests/host/mm_check.h"
#include "tests/host/shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES MAX_NUMA_MEMBLKS

struct layout {
	char name[64];
	unsigned nr_nodes;
	struct numa_memblk r[MAX_RANGES];
	unsigned nr;
};

static struct layout lay;

static void add(struct layout *l, int nid, u64 start, u64 end)
{
	if (l->nr < MAX_RANGES && start < end)
		l->r[l->nr++] = (struct numa_memblk){ start, end, nid };
}

/* [start, end) to the nodes round robin in grain pieces. */
static void interleave(struct layout *l, u64 start, u64 end, u64 grain, unsigned nodes)
{
	unsigned n = 0;
	for (u64 a = start; a < end; a += grain, n++)
		add(l, (int)(n % nodes), a, end - a < grain ? end : a + grain);
}

/* splitmix64, as the generator's */
static u64 rng;
static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static u64 rnd_range(u64 lo, u64 hi) { return lo + rnd() % (hi - lo + 1); }

/* Whether [pa, pa + len) lies in node nid's ranges, each rounded inwards to
 * whole pages (a page two nodes share is neither's, as in Linux). Adjacent
 * ranges of a node may share a block. */
static bool in_node(int nid, u64 pa, u64 len)
{
	u64 cur = pa;
	while (cur < pa + len) {
		bool found = false;
		for (unsigned i = 0; i < lay.nr && !found; i++) {
			const struct numa_memblk *b = &lay.r[i];
			u64 s = ALIGN_UP(b->start, PAGE_SIZE), e = ALIGN_DOWN(b->end, PAGE_SIZE);
			if (b->nid == nid && s <= cur && cur < e) {
				cur = e;
				found = true;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

static bool is_free_block(unsigned long pfn, unsigned order, int nid)
{
	if (!pfn_valid(pfn))
		return false;
	const struct page *p = pfn_to_page(pfn);
	return PageBuddy(p) && p->private == order && page_to_nid(p) == nid;
}

/* The free block that holds pfn on node nid, if any: its order. */
static int free_block_holding(unsigned long *pfn, int nid)
{
	for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++) {
		unsigned long head = *pfn & ~((1ul << o) - 1);
		if (is_free_block(head, o, nid)) {
			*pfn = head;
			return (int)o;
		}
	}
	return -1;
}

/* A free block as it must be: the node's memory, aligned, merged as far as
 * its node allows. */
static bool check_free_block(struct ktest *t, unsigned long pfn, unsigned order, int nid)
{
	bool ok = true;
	ok &= KTEST_EXPECT_EQ(t, pfn & ((1ul << order) - 1), 0);
	ok &= KTEST_EXPECT_TRUE(t, in_node(nid, (u64)pfn << PAGE_SHIFT, PAGE_SIZE << order));
	if (order < MAX_PAGE_ORDER)
		ok &= KTEST_EXPECT_FALSE(t, is_free_block(pfn ^ (1ul << order), order, nid));
	if (!ok)
		ktest_diag(t, "%s: node %d, block pfn %#lx order %u", lay.name, nid, pfn, order);
	return ok;
}

/* False (and the layout given up: a corrupted list may not end, nor may
 * the allocator's next walk of it) when a block is wrong. */
static bool check_free_lists(struct ktest *t)
{
	for (unsigned nid = 0; nid < lay.nr_nodes; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (!pgdat)
			continue;
		unsigned long pages = 0, bad = 0;
		for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++) {
			struct page *p;
			unsigned long blocks = 0;
			for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			list_for_each_entry(p, &pgdat->free_area[o].free_list[mt], lru) {
				/* A list that another node's merge corrupted
				 * may not end. */
				if (!KTEST_EXPECT_LE(t, ++blocks, pgdat->free_area[o].nr_free))
					return false;
				pages += 1ul << o;
				if (page_to_nid(p) != (int)nid || !check_free_block(t, page_to_pfn(p), o, (int)nid))
					bad++;
			}
		}
		if (!KTEST_EXPECT_EQ(t, bad, 0) || !KTEST_EXPECT_EQ(t, pages, pgdat->nr_free))
			return false;
	}
	return true;
}

/* Whole pages the layout gives nid. */
static unsigned long layout_pages(int nid)
{
	unsigned long n = 0;
	for (unsigned i = 0; i < lay.nr; i++) {
		u64 s = ALIGN_UP(lay.r[i].start, PAGE_SIZE), e = ALIGN_DOWN(lay.r[i].end, PAGE_SIZE);
		if (lay.r[i].nid == nid && s < e)
			n += (e - s) >> PAGE_SHIFT;
	}
	return n;
}

#define MAX_HELD 2048
#define OPS 6000

static struct { struct page *p; unsigned order; int nid; } held[MAX_HELD];
static u8 *owned; /* a byte per pfn: held by the test */

static void run_layout(struct ktest *t)
{
	u64 top = 0;
	for (unsigned i = 0; i < lay.nr; i++)
		top = max(top, lay.r[i].end);
	struct host_mm_config cfg = { .nr_nodes = lay.nr_nodes, .ranges = lay.r, .nr_ranges = lay.nr,
				      .static_pgdat = true };
	host_mem_init(ALIGN_UP(top, MiB(2)));
	host_mm_boot(&cfg);
	KTEST_EXPECT_EQ(t, numa_topology.nr_memblks, lay.nr);
	for (unsigned nid = 0; nid < lay.nr_nodes; nid++)
		KTEST_EXPECT_EQ(t, NODE_DATA(nid)->node_present_pages, layout_pages((int)nid));
	owned = calloc(host_phys_bytes >> PAGE_SHIFT, 1);
	unsigned long free_after_boot[MAX_NUMNODES];
	for (unsigned nid = 0; nid < lay.nr_nodes; nid++)
		free_after_boot[nid] = NODE_DATA(nid)->nr_free;

	unsigned nheld = 0, allocated = 0, freed = 0, orders_seen = 0;
	unsigned long wrong = 0;
	if (!check_free_lists(t))
		goto out;
	for (unsigned op = 0; op < OPS && !wrong; op++) {
		if (nheld < MAX_HELD && (nheld == 0 || rnd() % 3)) {
			int nid = (int)(rnd() % lay.nr_nodes);
			if (!NODE_DATA(nid)->managed_pages)
				continue;
			unsigned order = rnd() & 1 ? 0 : (unsigned)rnd_range(0, MAX_PAGE_ORDER);
			struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN |
							       __GFP_NORETRY, order);
			if (!p)
				continue;
			allocated++;
			orders_seen |= 1u << order;
			unsigned long pfn = page_to_pfn(p);
			bool ok = KTEST_EXPECT_EQ(t, page_to_nid(p), nid) &&
				  KTEST_EXPECT_TRUE(t, in_node(nid, (u64)pfn << PAGE_SHIFT, PAGE_SIZE << order)) &&
				  KTEST_EXPECT_EQ(t, pfn & ((1ul << order) - 1), 0);
			for (unsigned long i = 0; i < (1ul << order); i++)
				ok &= !owned[pfn + i]++;
			if (!KTEST_EXPECT_TRUE(t, ok)) {
				ktest_diag(t, "%s: node %d order %u got pfn %#lx", lay.name, nid, order, pfn);
				wrong++;
			}
			held[nheld++] = (typeof(held[0])){ p, order, nid };
		} else {
			unsigned i = (unsigned)(rnd() % nheld);
			struct page *p = held[i].p;
			unsigned order = held[i].order;
			int nid = held[i].nid;
			held[i] = held[--nheld];
			unsigned long pfn = page_to_pfn(p);
			memset(owned + pfn, 0, 1ul << order);
			__free_pages(p, order);
			freed++;
			if (order == pageblock_order) {
				/* A THP-order block waits on this CPU's per-CPU
				 * list (pcp_allowed_order), the one it displaced
				 * went to the buddy lists; the drain below merges
				 * it too. */
				if (!KTEST_EXPECT_TRUE(t, page_test_flag(p, PG_pcp) && p->private == order))
					wrong++;
			} else if (order) {
				/* Other orders above 0 go to the buddy lists at
				 * once: the block merged as far as its node allows. */
				int o = free_block_holding(&pfn, nid);
				if (!KTEST_EXPECT_GE(t, o, (int)order) || !check_free_block(t, pfn, (unsigned)o, nid))
					wrong++;
			}
		}
		if (op % 1000 == 999) {
			drain_all_pages();
			if (!check_free_lists(t))
				wrong++;
		}
	}
	if (wrong)
		goto out;
	while (nheld) {
		nheld--;
		__free_pages(held[nheld].p, held[nheld].order);
	}
	drain_all_pages();
	check_free_lists(t);
	for (unsigned nid = 0; nid < lay.nr_nodes; nid++)
		KTEST_EXPECT_EQ(t, NODE_DATA(nid)->nr_free, free_after_boot[nid]);
	KTEST_EXPECT_GT(t, allocated, OPS / 8);
	ktest_diag(t, "%s: %u ranges, %u allocations, %u frees, orders %#x served", lay.name, lay.nr,
		   allocated, freed, orders_seen);
out:
	free(owned);
	owned = NULL;
	host_mem_free();
}

static void begin(const char *name, unsigned nodes, u64 seed)
{
	memset(&lay, 0, sizeof(lay));
	snprintf(lay.name, sizeof(lay.name), "%s", name);
	lay.nr_nodes = nodes;
	rng = seed;
}

static void interleaved_4k_pages_over_2_nodes(struct ktest *t)
{
	begin("4 KiB over 2 nodes", 2, 1);
	add(&lay, 0, 0, MiB(40));
	interleave(&lay, MiB(40), MiB(40) + 96 * PAGE_SIZE, PAGE_SIZE, 2);
	add(&lay, 1, MiB(40) + 96 * PAGE_SIZE, MiB(128));
	run_layout(t);
}

static void interleaved_2m_over_4_nodes(struct ktest *t)
{
	begin("2 MiB over 4 nodes", 4, 2);
	interleave(&lay, 0, MiB(240), MiB(2), 4);
	add(&lay, 0, MiB(240), MiB(512));
	run_layout(t);
}

static void interleaved_4m_over_16_nodes(struct ktest *t)
{
	begin("4 MiB over 16 nodes", 16, 3);
	interleave(&lay, 0, MiB(448), MiB(4), 16);
	add(&lay, 0, MiB(448), MiB(512));
	run_layout(t);
}

static void interleaved_128m_over_4_nodes(struct ktest *t)
{
	begin("128 MiB over 4 nodes", 4, 4);
	interleave(&lay, 0, GiB(1), MiB(128), 4);
	run_layout(t);
}

/* Node 1's [1, 2 GiB) and [3, 4 GiB): whole 1 GiB blocks, each its own. */
static void interleaved_1g_over_2_nodes(struct ktest *t)
{
	begin("1 GiB over 2 nodes", 2, 5);
	interleave(&lay, 0, GiB(4), GiB(1), 2);
	run_layout(t);
}

/* Boundaries at any byte over 4 nodes, node 3 less than a page. */
static void boundaries_off_any_page(struct ktest *t)
{
	for (u64 seed = 1; seed <= 4; seed++) {
		begin("unaligned", 4, 100 + seed);
		u64 a = 0, end = MiB(256), tiny = rnd_range(8, end / PAGE_SIZE - 8) * PAGE_SIZE;
		unsigned n = 0;
		while (a < end) {
			if (a == tiny) {
				add(&lay, 3, tiny + 100, tiny + 4000);
				add(&lay, (int)(n++ % 3), tiny + 4000, tiny + 4096 + 100);
				a = tiny + 4096 + 100;
				continue;
			}
			u64 len = rnd_range(PAGE_SIZE / 2, MiB(24));
			u64 stop = a < tiny ? tiny : end;
			add(&lay, (int)(n++ % 3), a, min(a + len, stop));
			a = min(a + len, stop);
		}
		run_layout(t);
		KTEST_EXPECT_EQ(t, layout_pages(3), 0);
	}
}

/* Holes between a node's ranges: memory no node has, and another node's. */
static void holes_between_a_nodes_ranges(struct ktest *t)
{
	begin("holes", 2, 6);
	add(&lay, 0, 0, MiB(32));
	add(&lay, 1, MiB(48), MiB(80));
	add(&lay, 0, MiB(96) + 12345, MiB(128));
	add(&lay, 1, MiB(130), MiB(131) - 1);
	run_layout(t);
}

/* As the generator's layout-random: 2 to 16 nodes, a grain from one byte
 * to 64 MiB, ranges of up to a sixteenth of memory, at most 120 of them. */
static void random_layouts(struct ktest *t)
{
	static const u64 grains[] = { 1, PAGE_SIZE, KiB(64), MiB(2), MiB(4), MiB(64) };
	for (u64 seed = 1; seed <= 12; seed++) {
		begin("random", 2, 1000 + seed);
		char name[64];
		snprintf(name, sizeof(name), "random %llu", (unsigned long long)seed);
		snprintf(lay.name, sizeof(lay.name), "%s", name);
		lay.nr_nodes = (unsigned)rnd_range(2, 16);
		u64 grain = grains[rnd() % 6], end = MiB(512), a = 0;
		for (unsigned n = 0; a < end; n++) {
			u64 most = min(max(end / grain / 16, (u64)1), (u64)120);
			u64 len = grain == 1 ? rnd_range(1, MiB(16)) : rnd_range(1, most) * grain;
			if (n == 119 || a + len > end)
				len = end - a;
			add(&lay, n < lay.nr_nodes ? (int)n : (int)rnd_range(0, lay.nr_nodes - 1), a, a + len);
			a += len;
		}
		run_layout(t);
	}
}

static const struct ktest_case cases[] = {
	KTEST_CASE(interleaved_4k_pages_over_2_nodes),
	KTEST_CASE(interleaved_2m_over_4_nodes),
	KTEST_CASE(interleaved_4m_over_16_nodes),
	KTEST_CASE(interleaved_128m_over_4_nodes),
	KTEST_CASE(interleaved_1g_over_2_nodes),
	KTEST_CASE(boundaries_off_any_page),
	KTEST_CASE(holes_between_a_nodes_ranges),
	KTEST_CASE(random_layouts),
};

int main(void)
{
	return ktest_run_suite("numa_layout", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
