/* The buddy allocator on the machine it booted on: where pages land, what
 * happens when a node runs out, split/merge, gigantic pages, GFP semantics,
 * the slow path's shrinkers, and the bad-page checks. Every case gives back
 * what it took (the framework's free_pages_restored case checks). */
#include "fs/fs.h"
#include "kernel/sched_mm.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "lib/ratelimit.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "mm/page_alloc_internal.h"
#include "tests/kunit.h"
#include "tests/test_pages.h"

static char expect_gigantic[64];
kernel_param_string("expect.gigantic_nodes", expect_gigantic,
		    "test: nodes where a 1 GiB page can be allocated (comma list or 'none')");

static char log[2048];

static bool phys_in_node(phys_addr_t pa, phys_addr_t len, int nid)
{
	for (unsigned i = 0; i < numa_topology.nr_memblks; i++) {
		const struct numa_memblk *b = &numa_topology.memblks[i];
		if (b->nid == nid && pa >= b->start && pa + len <= b->end)
			return true;
	}
	return false;
}

static bool node_has_managed_pages(int nid) { return node_data[nid] && node_data[nid]->managed_pages; }

/* The node this CPU allocates from: its own, or, when its node has CPUs and
 * no memory, the nearest node with memory (the first of its fallbacks). */
static int cpu_memory_node(void)
{
	int nid = numa_node_id();
	return node_has_managed_pages(nid) ? nid : node_data[nid]->fallback[0];
}

static void unregister_shrinker_action(void *s) { unregister_shrinker(s); }

static void pages_land_on_their_node(struct kunit *test)
{
	unsigned tested = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_managed_pages(nid))
			continue;
		for (unsigned order = 0; order <= 9; order += 9) {
			struct page *p = alloc_pages_node(nid, GFP_KERNEL, order);
			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_EXPECT_EQ(test, page_to_nid(p), nid);
			KUNIT_EXPECT_TRUE(test, phys_in_node(page_to_phys(p), PAGE_SIZE << order, nid));
			KUNIT_EXPECT_EQ(test, page_to_pfn(p) & ((1ul << order) - 1), 0);
			KUNIT_EXPECT_EQ(test, page_ref_count(p), 1);
			__free_pages(p, order);
		}
		tested++;
	}
	KUNIT_EXPECT_GT(test, tested, 0);
}

static void fallback_lists_follow_the_slit(struct kunit *test)
{
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		pg_data_t *pgdat = node_data[nid];
		KUNIT_ASSERT_NOT_NULL(test, pgdat);
		unsigned with_memory = 0;
		for (int n = 0; n < (int)num_online_nodes(); n++)
			with_memory += node_has_managed_pages(n);
		KUNIT_EXPECT_EQ(test, pgdat->nr_fallback, with_memory);
		if (node_has_managed_pages(nid))
			KUNIT_EXPECT_EQ(test, pgdat->fallback[0], nid);
		for (int i = 1; i < pgdat->nr_fallback; i++)
			KUNIT_EXPECT_LE(test, node_distance(nid, pgdat->fallback[i - 1]),
					node_distance(nid, pgdat->fallback[i]));
	}
}

/* Exhausting a node sends its allocations to the nearest node with memory,
 * then to the next nearest, and __GFP_THISNODE fails instead. */
static void exhausted_node_falls_back_in_slit_order(struct kunit *test)
{
	int home = numa_node_id();
	pg_data_t *pgdat = node_data[home];
	if (!node_has_managed_pages(home) || pgdat->nr_fallback < 2)
		kunit_skip(test, "needs a home node with memory and another node");

	static struct held held;
	held_init_released_at_end(test, &held);
	for (int step = 0; step + 1 < pgdat->nr_fallback && step < 2; step++) {
		exhaust_node(&held, pgdat->fallback[step], GFP_NOWAIT);
		unsigned long hit_before = node_numa_event_state(pgdat->fallback[step + 1], NUMA_MISS);
		unsigned long foreign_before = node_numa_event_state(pgdat->node_id, NUMA_FOREIGN);
		struct page *p = alloc_pages_node(home, GFP_NOWAIT | __GFP_NOWARN, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(p), pgdat->fallback[step + 1]);
		KUNIT_EXPECT_EQ(test, node_numa_event_state(pgdat->fallback[step + 1], NUMA_MISS), hit_before + 1);
		KUNIT_EXPECT_EQ(test, node_numa_event_state(pgdat->node_id, NUMA_FOREIGN), foreign_before + 1);
		held_add(&held, p, 0);

		/* The exhausted node refuses __GFP_THISNODE... */
		KUNIT_EXPECT_NULL(test, alloc_pages_node(pgdat->fallback[step], GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 0));
	}
	/* ...and says so, in one line, when not told to keep quiet (earlier
	 * failures of the boot must not have used up warn_alloc's rate limit). */
	struct printk_capture cap;
	ratelimit_state_reset_interval(&nopage_rs, DEFAULT_RATELIMIT_INTERVAL);
	printk_capture_begin(&cap, log, sizeof(log));
	struct page *none = alloc_pages_node(home, GFP_NOWAIT | __GFP_THISNODE, 3);
	printk_capture_end(&cap);
	KUNIT_EXPECT_NULL(test, none);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "page allocation failure: order:3, mode:0x200800(GFP_NOWAIT|__GFP_THISNODE)"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, " free pages: node0:"));
	KUNIT_EXPECT_EQ(test, (int)(strchr(log, '\n') - log) + 1, (int)strlen(log)); /* one line */
}

static void memoryless_node_uses_its_nearest(struct kunit *test)
{
	int tested = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (node_has_managed_pages(nid))
			continue;
		pg_data_t *pgdat = node_data[nid];
		KUNIT_ASSERT_GT(test, pgdat->nr_fallback, 0);
		struct page *p = alloc_pages_node(nid, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(p), pgdat->fallback[0]);
		for (int n = 0; n < (int)num_online_nodes(); n++)
			if (node_has_managed_pages(n))
				KUNIT_EXPECT_LE(test, node_distance(nid, page_to_nid(p)), node_distance(nid, n));
		__free_pages(p, 0);
		KUNIT_EXPECT_NULL(test, alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0));
		/* Linux's zone_statistics books against the preferred zone,
		 * the first populated one of the zonelist: the nearest node
		 * with memory. A memoryless node is never that zone nor the
		 * one that serves, so its numastat stays all zeros, the
		 * allocations that asked for it included. */
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			KUNIT_EXPECT_EQ(test, node_numa_event_state(nid, (enum numa_stat_item)i), 0ul);
		tested++;
	}
	if (!tested)
		kunit_skip(test, "no memoryless node on this machine");
}

/* Whether Linux 6.1's __free_one_page merges two free buddies of order
 * whose pageblocks have types a and b: always within a pageblock; across a
 * pageblock's edge only for the same type or two mergeable ones (never an
 * isolated or highatomic block with one of another type). */
static bool buddies_may_merge(unsigned int order, int a, int b)
{
	return order < pageblock_order || a == b || (migratetype_is_mergeable(a) && migratetype_is_mergeable(b));
}

/* Every free is merged as far as it goes: after a drain, no free block on
 * any node has a free buddy of its own order on the same node that those
 * rules would have merged it with. Pairs the rules keep apart are counted,
 * not failed. The lists are walked under each node's lock, under which the
 * allocator keeps them merged. */
static void free_buddies_are_merged(struct kunit *test)
{
	unsigned long pairs = 0, kept_apart = 0, blocks = 0;
	drain_all_pages();
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat || !pgdat->managed_pages)
			continue;
		unsigned long flags;
		spin_lock_irqsave(&pgdat->lock, flags);
		/* A block of MAX_PAGE_ORDER has no buddy to merge with. */
		for (unsigned int order = 0; order < MAX_PAGE_ORDER; order++) {
			for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
				struct page *page;
				list_for_each_entry(page, &pgdat->free_area[order].free_list[mt], lru) {
					unsigned long pfn = page_to_pfn(page), buddy_pfn = pfn ^ (1ul << order);
					blocks++;
					/* Each pair once, from its lower block. */
					if (buddy_pfn < pfn || buddy_pfn - pgdat->node_start_pfn >= pgdat->node_spanned_pages ||
					    !pfn_valid(buddy_pfn))
						continue;
					struct page *buddy = pfn_to_page(buddy_pfn);
					if (!PageBuddy(buddy) || buddy->private != order || page_to_nid(buddy) != nid)
						continue;
					int a = get_pfnblock_migratetype(pgdat, pfn);
					int b = get_pfnblock_migratetype(pgdat, buddy_pfn);
					if (!buddies_may_merge(order, a, b)) {
						kept_apart++;
						continue;
					}
					if (pairs++ < 8)
						kunit_info(test,
							   "node %d order %u: free buddies pfn %#lx (flags %#lx, list %s, "
							   "block %s) and %#lx (flags %#lx, block %s)",
							   nid, order, pfn, page->flags, migratetype_names[mt],
							   migratetype_names[a], buddy_pfn, buddy->flags,
							   migratetype_names[b]);
				}
			}
		}
		spin_unlock_irqrestore(&pgdat->lock, flags);
	}
	kunit_info(test, "%lu free blocks, %lu unmerged pairs, %lu kept apart by their migrate types", blocks,
		   pairs, kept_apart);
	KUNIT_EXPECT_GT(test, blocks, 0);
	KUNIT_EXPECT_EQ(test, pairs, 0);
}

static void snapshot_shape(int nid, unsigned long shape[NR_PAGE_ORDERS])
{
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
		shape[o] = node_free_blocks(nid, o);
}

/* Allocate one block of every order, free them in a scrambled order: the
 * free lists merge back to exactly the shape they had before. A round may
 * end with another shape for reasons that are not the merge's: other
 * CPUs and kernel threads (kswapd, kcompactd) take or give back pages of
 * the node meanwhile, and the round's largest orders, which the node
 * cannot give at once, go through the slow path,
 * whose direct compaction migrates movable pages: the same number of
 * pages is free afterwards, fully merged (free_buddies_are_merged checks
 * that), but not the same pages, so the shape differs. Once compaction
 * finds nothing to move, the rounds repeat their shape. So a round is done
 * again, up to ten times, until one restores its own starting shape; a
 * merge that is wrong fails every round. */
static void split_and_merge_restore_the_free_lists(struct kunit *test)
{
	int nid = numa_node_id();
	if (!node_has_managed_pages(nid))
		nid = node_data[nid]->fallback[0];
	unsigned long before[NR_PAGE_ORDERS], after[NR_PAGE_ORDERS];
	for (int round = 0; round < 10; round++) {
		struct page *blocks[NR_PAGE_ORDERS] = { 0 };
		drain_all_pages();
		snapshot_shape(nid, before);
		for (unsigned o = 0; o < MAX_PAGE_ORDER; o++) {
			blocks[o] = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, o);
			if (blocks[o]) {
				KUNIT_EXPECT_EQ(test, page_to_pfn(blocks[o]) & ((1ul << o) - 1), 0);
				KUNIT_EXPECT_EQ(test, page_to_nid(blocks[o]), nid);
			}
		}
		KUNIT_EXPECT_NOT_NULL(test, blocks[0]);
		KUNIT_EXPECT_NOT_NULL(test, blocks[9]);
		static const unsigned scramble[] = { 7, 0, 12, 3, 17, 9, 1, 15, 5, 11, 2, 14, 8, 16, 4, 10, 13, 6 };
		for (unsigned i = 0; i < ARRAY_SIZE(scramble); i++)
			if (blocks[scramble[i]])
				__free_pages(blocks[scramble[i]], scramble[i]);
		drain_all_pages();
		snapshot_shape(nid, after);
		if (!memcmp(after, before, sizeof(before)))
			break;
		kunit_info(test, "round %d ended with another shape: again", round + 1);
	}
	KUNIT_EXPECT_MEMEQ(test, after, before, sizeof(before));
}

static bool in_list(const char *list, int nid)
{
	const char *s = list;
	while (*s) {
		u64 v;
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (!parse_u64(s, len, &v) && (int)v == nid)
			return true;
		s += len + (end != NULL);
	}
	return false;
}

/* A 1 GiB page exactly where a free, aligned 1 GiB block exists. */
static void gigantic_pages(struct kunit *test)
{
	unsigned succeeded = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_managed_pages(nid))
			continue;
		bool possible = node_free_blocks(nid, MAX_PAGE_ORDER) > 0;
		unsigned long free_before = node_free_pages(nid);
		struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, MAX_PAGE_ORDER);
		KUNIT_EXPECT_EQ(test, p != NULL, possible);
		if (expect_gigantic[0])
			KUNIT_EXPECT_EQ(test, possible, in_list(expect_gigantic, nid));
		if (p) {
			KUNIT_EXPECT_EQ(test, page_to_phys(p) & (GiB(1) - 1), 0);
			KUNIT_EXPECT_TRUE(test, phys_in_node(page_to_phys(p), GiB(1), nid));
			KUNIT_EXPECT_EQ(test, node_free_pages(nid), free_before - (1ul << MAX_PAGE_ORDER));
			__free_pages(p, MAX_PAGE_ORDER);
			succeeded++;
		} else {
			KUNIT_EXPECT_EQ(test, node_free_pages(nid), free_before);
		}
	}
	/* Orders beyond the maximum are refused with a message. */
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	KUNIT_EXPECT_NULL(test, alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER + 1));
	printk_capture_end(&cap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "above the maximum order"));
	if (!expect_gigantic[0])
		kunit_info(test, "no expect.gigantic_nodes given; %u node(s) had a 1 GiB block", succeeded);
}

static void gfp_zero_and_helpers(struct kunit *test)
{
	struct page *p = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(page_address(p), 0x5a, 2 * PAGE_SIZE);
	__free_pages(p, 1);
	p = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	const u8 *b = page_address(p);
	unsigned long nonzero = 0;
	for (size_t i = 0; i < 2 * PAGE_SIZE; i++)
		nonzero += b[i] != 0;
	KUNIT_EXPECT_EQ(test, nonzero, 0);
	__free_pages(p, 1);

	unsigned long addr = get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NE(test, addr, 0);
	KUNIT_EXPECT_EQ(test, *(u64 *)addr, 0);
	KUNIT_EXPECT_EQ(test, addr & (PAGE_SIZE - 1), 0);
	free_page(addr);
	addr = __get_free_pages(GFP_KERNEL, 3);
	KUNIT_ASSERT_NE(test, addr, 0);
	KUNIT_EXPECT_TRUE(test, PageHead(virt_to_page((void *)addr)));
	free_pages(addr, 3);
	free_pages(0, 3); /* a no-op, as in Linux */

	/* put_page frees on the last reference only. */
	p = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	get_page(p);
	unsigned long free_before = node_free_pages(page_to_nid(p));
	put_page(p);
	KUNIT_EXPECT_EQ(test, node_free_pages(page_to_nid(p)), free_before);
	put_page(p);
	KUNIT_EXPECT_EQ(test, node_free_pages(page_to_nid(p)), free_before + 1);
}

static void numa_counters(struct kunit *test)
{
	int home = numa_node_id();
	if (!node_has_managed_pages(home))
		kunit_skip(test, "the boot CPU's node has no memory");
	unsigned long hit = node_numa_event_state(home, NUMA_HIT);
	unsigned long local = node_numa_event_state(home, NUMA_LOCAL);
	struct page *p = alloc_pages_node(home, GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, node_numa_event_state(home, NUMA_HIT), hit + 1);
	KUNIT_EXPECT_EQ(test, node_numa_event_state(home, NUMA_LOCAL), local + 1);
	__free_pages(p, 2);

	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (nid == home || !node_has_managed_pages(nid))
			continue;
		unsigned long ohit = node_numa_event_state(nid, NUMA_HIT);
		unsigned long other = node_numa_event_state(nid, NUMA_OTHER);
		p = alloc_pages_node(nid, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, node_numa_event_state(nid, NUMA_HIT), ohit + 1);
		KUNIT_EXPECT_EQ(test, node_numa_event_state(nid, NUMA_OTHER), other + 1); /* we run elsewhere */
		__free_pages(p, 0);
		return;
	}
}

/* A shrinker holding pages: the slow path must call it when direct reclaim
 * is allowed, and must not when it is not. */
/* __alloc_pages with a nodemask, on the nodes the kernel found: a mask of
 * one node with memory keeps every order there, order 0 included, though
 * this CPU's per-CPU list of its own node holds pages; a mask without
 * memory behind it (the memoryless nodes, or none) fails at once. */
static void nodemask_restricts_allocations(struct kunit *test)
{
	int home = numa_node_id();
	nodemask_t memoryless = NODE_MASK_NONE;
	unsigned with_memory = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (node_has_managed_pages(nid))
			with_memory++;
		else if (node_data[nid])
			node_set(nid, memoryless);
	}
	if (node_has_managed_pages(home)) {
		/* Warm this CPU's list on its node: the fast path would take it. */
		struct page *warm = alloc_pages_node(home, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, warm);
		__free_pages(warm, 0);
	}
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_managed_pages(nid))
			continue;
		nodemask_t only = nodemask_of_node(nid);
		for (unsigned order = 0; order <= 9; order += 3) {
			struct page *p = __alloc_pages(GFP_KERNEL, order, home, &only);
			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_EXPECT_EQ(test, page_to_nid(p), nid);
			__free_pages(p, order);
		}
	}
	if (with_memory > 1 && node_has_managed_pages(home)) {
		/* Everything but home: the nearest other node with memory, the
		 * second entry of home's fallback list. */
		nodemask_t others = NODE_MASK_ALL;
		node_clear(home, others);
		struct page *p = __alloc_pages(GFP_KERNEL, 0, home, &others);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(p), node_data[home]->fallback[1]);
		__free_pages(p, 0);
	}

	nodemask_t none = NODE_MASK_NONE;
	const nodemask_t *empty[] = { &none, &memoryless };
	unsigned long free = nr_free_pages();
	for (size_t i = 0; i < ARRAY_SIZE(empty); i++) {
		if (i == 1 && nodes_empty(memoryless))
			break; /* no memoryless node on this machine */
		for (unsigned order = 0; order <= 9; order += 9) {
			KUNIT_EXPECT_NULL(test, __alloc_pages(GFP_KERNEL | __GFP_NOWARN, order, home, empty[i]));
			KUNIT_EXPECT_NULL(test, __alloc_pages(GFP_KERNEL | __GFP_NOFAIL | __GFP_NOWARN, order,
							      i ? first_node(memoryless) : home, empty[i]));
		}
	}
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free);
}

static struct held shrinker_stash;
static unsigned shrinker_calls;

static unsigned long stash_count(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	/* The case counts direct reclaim's calls: kswapd's are not its. */
	if (current_is_kswapd())
		return 0;
	return shrinker_stash.pages;
}

static unsigned long stash_scan(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	unsigned long freed = shrinker_stash.pages;
	shrinker_calls++;
	held_release(&shrinker_stash);
	return freed;
}

static void slow_path_calls_shrinkers(struct kunit *test)
{
	int nid = cpu_memory_node();
	static struct shrinker s = { .count_objects = stash_count, .scan_objects = stash_scan };
	static struct held held;
	held_init_released_at_end(test, &held);
	held_init_released_at_end(test, &shrinker_stash);
	shrinker_calls = 0;

	/* The stash takes 64 pages, then the node is drained dry. */
	for (int i = 0; i < 64; i++) {
		struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		held_add(&shrinker_stash, p, 0);
	}
	register_shrinker(&s);
	/* Newest first: unregistered before the stash and the node come back. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_shrinker_action, &s), 0);
	exhaust_node(&held, nid, GFP_NOWAIT);

	KUNIT_EXPECT_NULL(test, alloc_pages_node(nid, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 0));
	KUNIT_EXPECT_EQ(test, shrinker_calls, 0); /* no direct reclaim for GFP_NOWAIT */

	struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, shrinker_calls, 1);
	if (p)
		held_add(&held, p, 0);
}

static void watermarks_and_reserves(struct kunit *test)
{
	int nid = cpu_memory_node();
	pg_data_t *pgdat = node_data[nid];
	KUNIT_EXPECT_GT(test, pgdat->watermark[WMARK_MIN], 0);
	KUNIT_EXPECT_LT(test, pgdat->watermark[WMARK_MIN], pgdat->watermark[WMARK_LOW]);
	KUNIT_EXPECT_LT(test, pgdat->watermark[WMARK_LOW], pgdat->watermark[WMARK_HIGH]);

	static struct held held;
	held_init_released_at_end(test, &held);
	exhaust_node(&held, nid, GFP_NOWAIT);
	drain_all_pages();
	/* Ordinary allocations stop at the min watermark... */
	KUNIT_EXPECT_GE(test, pgdat->nr_free + 1, pgdat->watermark[WMARK_MIN]);
	/* ...atomic ones may dip below it into the reserve. */
	struct page *p = alloc_pages_node(nid, GFP_ATOMIC | __GFP_THISNODE | __GFP_NOWARN, 0);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p)
		held_add(&held, p, 0);
}

/* Bad-page checks: each misuse is reported, the page stays out of the free
 * lists, and the allocator goes on working. */
static unsigned long reports_during(void (*fn)(struct page *), struct page *arg)
{
	struct printk_capture cap;
	unsigned long before = bad_page_reports;
	printk_capture_begin(&cap, log, sizeof(log));
	fn(arg);
	printk_capture_end(&cap);
	return bad_page_reports - before;
}

static void free_order0(struct page *p) { __free_pages(p, 0); }
static void free_order1(struct page *p) { __free_pages(p, 1); }

static void bad_page_checks(struct kunit *test)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	int nid = page_to_nid(p);
	unsigned long free_before = node_free_pages(nid);

	/* A double free. */
	__free_pages(p, 0);
	kunit_expect_bad_page_reports(test, 1);
	KUNIT_EXPECT_EQ(test, reports_during(free_order0, p), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: Bad page state: pfn"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "freed twice"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "last freed by bad_page_checks+0x"));
	KUNIT_EXPECT_EQ(test, node_free_pages(nid), free_before + 1);

	/* Freed with the wrong order, then with the right one. */
	struct page *q = alloc_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, q);
	kunit_expect_bad_page_reports(test, 1);
	KUNIT_EXPECT_EQ(test, reports_during(free_order1, q), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "freed with the wrong order"));
	__free_pages(q, 2);

	/* Still referenced. */
	q = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, q);
	get_page(q);
	kunit_expect_bad_page_reports(test, 1);
	KUNIT_EXPECT_EQ(test, reports_during(free_order0, q), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "still referenced"));
	set_page_count(q, 1);
	__free_pages(q, 0);

	/* Still a page-table page. */
	q = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, q);
	page_set_flag(q, PG_table);
	kunit_expect_bad_page_reports(test, 1);
	KUNIT_EXPECT_EQ(test, reports_during(free_order0, q), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "page-table page"));
	page_clear_flag(q, PG_table);
	__free_pages(q, 0);

	/* Still in a page cache: a mapping left set (the page-owner map and
	 * every reader of page->mapping trust it to be NULL otherwise). */
	q = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, q);
	static struct address_space some_mapping;
	q->mapping = &some_mapping;
	kunit_expect_bad_page_reports(test, 1);
	KUNIT_EXPECT_EQ(test, reports_during(free_order0, q), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "non-NULL mapping"));
	q->mapping = NULL;
	__free_pages(q, 0);

	/* Order > 0 from a page that does not head such an allocation. */
	q = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, q);
	kunit_expect_bad_page_reports(test, 1);
	KUNIT_EXPECT_EQ(test, reports_during(free_order1, q), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "does not head an allocation"));
	__free_pages(q, 0);

	KUNIT_EXPECT_EQ(test, node_free_pages(nid), free_before + 1);
}

/* A free page whose struct page is scribbled on is caught when the
 * allocator next hands it out, and never handed out. */
static void corruption_found_on_allocation(struct kunit *test)
{
	int nid = cpu_memory_node();
	pg_data_t *pgdat = node_data[nid];
	struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	__free_pages(p, 0); /* on top of this CPU's list: the next one out */
	unsigned long bad_before = pgdat->nr_bad_pages, free_before = node_free_pages(nid);
	page_set_flag(p, PG_slab); /* the corruption */
	kunit_expect_bad_page_reports(test, 1);

	struct printk_capture cap;
	unsigned long reports = bad_page_reports;
	printk_capture_begin(&cap, log, sizeof(log));
	struct page *q = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
	printk_capture_end(&cap);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_PTR_NE(test, q, p);
	KUNIT_EXPECT_EQ(test, bad_page_reports, reports + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "corrupted while free"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "flags"));
	KUNIT_EXPECT_EQ(test, pgdat->nr_bad_pages, bad_before + 1);
	KUNIT_EXPECT_TRUE(test, page_test_flag(p, PG_bad));
	__free_pages(q, 0);
	/* One page fewer is free: the retired one. */
	KUNIT_EXPECT_EQ(test, node_free_pages(nid), free_before - 1);
}

/* With page_poison=on, a write into a freed page is reported when the page
 * is allocated again. */
static void poison_catches_use_after_free(struct kunit *test)
{
	if (!page_poisoning)
		kunit_skip(test, "boot with page_poison=on to run this");
	int nid = cpu_memory_node();
	struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	u8 *mem = page_address(p);
	__free_pages(p, 0);
	KUNIT_EXPECT_EQ(test, mem[100], PAGE_POISON);
	mem[100] = 0x42; /* use after free */
	kunit_expect_bad_page_reports(test, 1);

	struct printk_capture cap;
	unsigned long reports = bad_page_reports;
	printk_capture_begin(&cap, log, sizeof(log));
	struct page *q = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
	printk_capture_end(&cap);
	KUNIT_ASSERT_PTR_EQ(test, q, p); /* this CPU's list is LIFO */
	KUNIT_EXPECT_EQ(test, bad_page_reports, reports + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "poison overwritten at offset 0x64 (0x42)"));
	__free_pages(q, 0);
}

/* A __GFP_UNTOUCHED allocation (a test taking memory away) neither checks
 * the pattern nor writes it again when it frees the page: what was
 * written while the page was free is still found, by the next allocation
 * that checks. With __GFP_ZERO the flag is ignored. Without poisoning it
 * changes nothing. */
static void untouched_pages_keep_the_poison(struct kunit *test)
{
	int nid = cpu_memory_node();
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE;
	if (!page_poisoning) {
		struct page *p = alloc_pages_node(nid, gfp | __GFP_UNTOUCHED, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_FALSE(test, page_test_flag(p, PG_poison_kept));
		__free_pages(p, 0);
		kunit_skip(test, "boot with page_poison=on for the rest");
	}
	struct page *p = alloc_pages_node(nid, gfp, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	u8 *mem = page_address(p);
	__free_pages(p, 0);
	mem[100] = 0x42; /* use after free */

	/* Taken untouched: no report, and the write stays. */
	unsigned long reports = bad_page_reports;
	struct page *q = alloc_pages_node(nid, gfp | __GFP_UNTOUCHED, 0);
	KUNIT_ASSERT_PTR_EQ(test, q, p); /* this CPU's list is LIFO */
	KUNIT_EXPECT_TRUE(test, page_test_flag(q, PG_poison_kept));
	__free_pages(q, 0);
	KUNIT_EXPECT_EQ(test, bad_page_reports, reports);
	KUNIT_EXPECT_EQ(test, mem[100], 0x42);
	KUNIT_EXPECT_EQ(test, mem[101], PAGE_POISON);

	/* Zeroed, it is checked like any other. */
	kunit_expect_bad_page_reports(test, 1);
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	q = alloc_pages_node(nid, gfp | __GFP_UNTOUCHED | __GFP_ZERO, 0);
	printk_capture_end(&cap);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_EQ(test, bad_page_reports, reports + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "poison overwritten at offset 0x64 (0x42)"));
	KUNIT_EXPECT_FALSE(test, page_test_flag(q, PG_poison_kept));
	KUNIT_EXPECT_EQ(test, mem[100], 0);
	__free_pages(q, 0);
	KUNIT_EXPECT_EQ(test, mem[100], PAGE_POISON);

	/* A kept block that is split is checked then: its pages go their own
	 * ways. The write below stands for one made while it was free. */
	struct page *b = alloc_pages_node(nid, gfp | __GFP_UNTOUCHED, 1);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_TRUE(test, page_test_flag(b, PG_poison_kept));
	((u8 *)page_address(b + 1))[7] = 0x42;
	kunit_expect_bad_page_reports(test, 1);
	printk_capture_begin(&cap, log, sizeof(log));
	split_page(b, 1);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, bad_page_reports, reports + 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "poison overwritten at offset 0x1007 (0x42)"));
	KUNIT_EXPECT_FALSE(test, page_test_flag(b, PG_poison_kept));
	__free_pages(b, 0);
	__free_pages(b + 1, 0);
}

static struct kunit_case page_alloc_cases[] = {
	KUNIT_CASE(pages_land_on_their_node),
	KUNIT_CASE(fallback_lists_follow_the_slit),
	KUNIT_CASE(exhausted_node_falls_back_in_slit_order),
	KUNIT_CASE(memoryless_node_uses_its_nearest),
	KUNIT_CASE(free_buddies_are_merged),
	KUNIT_CASE(split_and_merge_restore_the_free_lists),
	KUNIT_CASE(gigantic_pages),
	KUNIT_CASE(gfp_zero_and_helpers),
	KUNIT_CASE(numa_counters),
	KUNIT_CASE(nodemask_restricts_allocations),
	KUNIT_CASE(slow_path_calls_shrinkers),
	KUNIT_CASE(watermarks_and_reserves),
	KUNIT_CASE(bad_page_checks),
	KUNIT_CASE(corruption_found_on_allocation),
	KUNIT_CASE(poison_catches_use_after_free),
	KUNIT_CASE(untouched_pages_keep_the_poison),
	{}
};
static struct kunit_suite page_alloc_suite = { .name = "page_alloc", .test_cases = page_alloc_cases };
kunit_test_suite(page_alloc_suite);
