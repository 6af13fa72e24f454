/* Host tests of mm/page_alloc.c's checks, on the machine of
 * tests/host/page_alloc_harness.h: frees the allocator must refuse (twice,
 * with the wrong order, still referenced, mapped or owned, with flags it
 * does not expect, and in the debug mode a block whose tail pages are not
 * plain), free pages found corrupted, page poisoning, and the shrinkers the
 * slow path calls (only when direct reclaim is allowed, and never
 * re-entered from inside a shrinker).
 *
 * Every case checks the allocator's invariants against a shadow of what
 * the case holds and ends with the free lists in their boot shape. */
#include "tests/host/page_alloc_harness.h"

#include <stdio.h>

/* ---- bad pages ------------------------------------------------------------ */

static void double_free_is_reported(struct ktest *t)
{
	struct page *p = get(t, 0, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	put(p, 0);
	/* Still in the per-CPU list. */
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "freed twice");
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "last freed by"));
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* In the buddy lists (merged away). */
	drain_all_pages();
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "refcount 0");
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* A higher order, freed twice. */
	struct page *q = get(t, 1, GFP_KERNEL, 4);
	KTEST_ASSERT_NOT_NULL(t, q);
	put(q, 4);
	EXPECT_BAD_FREE(t, __free_pages(q, 4), "freed");
	KTEST_EXPECT_EQ(t, mm_total_bad(), 0);
	expect_boot_shape(t);
}

static void wrong_order_is_reported(struct ktest *t)
{
	struct page *p = get(t, 0, GFP_KERNEL, 2);
	KTEST_ASSERT_NOT_NULL(t, p);
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "wrong order");
	EXPECT_BAD_FREE(t, __free_pages(p, 3), "wrong order");
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	put(p, 2); /* the right order still works */
	struct page *q = get(t, 0, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, q);
	EXPECT_BAD_FREE(t, __free_pages(q, 1), "does not head an allocation");
	put(q, 0);
	/* A tail page freed as if it were the block. */
	struct page *r = get(t, 0, GFP_KERNEL, 3);
	KTEST_ASSERT_NOT_NULL(t, r);
	EXPECT_BAD_FREE(t, __free_pages(r + 1, 0), "refcount 0");
	put(r, 3);
	expect_boot_shape(t);
}

static void freeing_a_referenced_page_is_reported(struct ktest *t)
{
	struct page *p = get(t, 2, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	get_page(p);
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "refcount > 1");
	KTEST_EXPECT_EQ(t, page_ref_count(p), 2); /* untouched: still allocated */
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	put_page(p); /* drops to 1, does not free */
	KTEST_EXPECT_EQ(t, page_ref_count(p), 1);
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	mm_shadow_free(&shadow, p, 0);
	put_page(p); /* the last reference frees it */
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* put_page frees a compound head with its order. */
	struct page *q = get(t, 2, GFP_KERNEL, 5);
	KTEST_ASSERT_NOT_NULL(t, q);
	mm_shadow_free(&shadow, q, 5);
	put_page(q);
	/* Mapped pages are refused too. */
	struct page *r = get(t, 2, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, r);
	r->_mapcount = 0;
	EXPECT_BAD_FREE(t, __free_pages(r, 0), "mapped");
	r->_mapcount = -1;
	put(r, 0);
	expect_boot_shape(t);
}

static void freeing_a_page_table_page_is_reported(struct ktest *t)
{
	struct page *p = get(t, 1, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	page_set_flag(p, PG_table);
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "page-table page");
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	page_clear_flag(p, PG_table);
	page_set_flag(p, PG_slab);
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "slab");
	page_clear_flag(p, PG_slab);
	put(p, 0);
	/* Reserved pages never enter the allocator. */
	struct page *res = pfn_to_page(0);
	EXPECT_BAD_FREE(t, __free_pages(res, 0), "reserved");
	KTEST_EXPECT_TRUE(t, PageReserved(res));
	expect_boot_shape(t);
}

/* A page comes back with exactly the flags the allocator left on it (none
 * for order 0, PG_head for a block). Any other flag means someone still
 * owns it or scribbled on it: the free is refused with a report, whichever
 * flag it is, instead of the flag being cleared and the page reused. */
static void every_unexpected_flag_is_refused(struct ktest *t)
{
	for (unsigned order = 0; order <= 3; order += 3) {
		struct page *p = get(t, 1, GFP_KERNEL, order);
		KTEST_ASSERT_NOT_NULL(t, p);
		for (unsigned bit = 0; bit < NODES_PGSHIFT; bit++) {
			if (order && bit == PG_head)
				continue;
			unsigned long before = bad_page_reports;
			p->flags |= 1ul << bit;
			capture_begin();
			__free_pages(p, order);
			capture_end();
			p->flags &= ~(1ul << bit);
			if (!KTEST_EXPECT_EQ(t, bad_page_reports, before + 1)) {
				ktest_diag(t, "order %u with flag bit %u set was freed without a report",
					   order, bit);
				mm_shadow_free(&shadow, p, order); /* it was freed */
				ktest_abort(t);
			}
			KTEST_EXPECT_NOT_NULL(t, strstr(printed, "the page was not freed"));
		}
		/* Still allocated, untouched: the right free works. */
		KTEST_EXPECT_EQ(t, page_ref_count(p), 1);
		KTEST_EXPECT_EQ(t, PageHead(p), order > 0);
		KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
		put(p, order);
	}
	KTEST_EXPECT_EQ(t, mm_total_bad(), 0);
	expect_boot_shape(t);
}

static void corrupted_free_page_is_retired(struct ktest *t)
{
	struct page *p = get(t, 0, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	put(p, 0);
	p->_refcount = 3; /* a write after free */
	unsigned long before = bad_page_reports, managed = mm_total_managed();
	capture_begin();
	struct page *q = get(t, 0, GFP_KERNEL, 0);
	capture_end();
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_TRUE(t, q != p);
	KTEST_EXPECT_EQ(t, bad_page_reports, before + 1);
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "corrupted while free"));
	KTEST_EXPECT_EQ(t, mm_total_bad(), 1);
	KTEST_EXPECT_TRUE(t, page_test_flag(p, PG_bad));
	KTEST_EXPECT_EQ(t, mm_total_managed(), managed);
	/* free + bad + live == managed still holds. */
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* A retired page cannot be freed back in. */
	EXPECT_BAD_FREE(t, __free_pages(p, 0), "out of circulation");
	put(q, 0);
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	/* The same in a higher-order block: the head is retired, the rest of
	 * the block goes back to the free lists. */
	struct page *b = get(t, 1, GFP_KERNEL | __GFP_THISNODE, 6);
	KTEST_ASSERT_NOT_NULL(t, b);
	put(b, 6);
	KTEST_ASSERT_TRUE(t, PageBuddy(b) || b->flags == pfn_to_page(page_to_pfn(b))->flags);
	b->_mapcount = 7;
	capture_begin();
	struct page *c = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE, 6);
	capture_end();
	KTEST_EXPECT_EQ(t, mm_total_bad(), 2);
	if (c) {
		KTEST_EXPECT_TRUE(t, c != b);
		mm_shadow_alloc(t, &shadow, c, 6);
	}
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	if (c)
		put(c, 6);
	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
}

static void poison_catches_writes_after_free(struct ktest *t)
{
	/* page_poison=on is a boot option: memory is poisoned from the start. */
	struct host_mm_config cfg = ring;
	cfg.page_poison = true;
	boot(&cfg);
	unsigned long before = bad_page_reports;
	struct page *p = get(t, 0, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, p);
	struct page *big = get(t, 1, GFP_KERNEL, 9);
	KTEST_ASSERT_NOT_NULL(t, big);
	/* Pages that were never allocated since boot are poisoned too. */
	KTEST_EXPECT_EQ(t, bad_page_reports, before);
	put(big, 9);
	put(p, 0);
	KTEST_EXPECT_EQ(t, ((u8 *)page_address(p))[123], PAGE_POISON);
	((u8 *)page_address(p))[123] = 1;
	before = bad_page_reports;
	capture_begin();
	struct page *q = get(t, 0, GFP_KERNEL, 0);
	capture_end();
	KTEST_EXPECT_TRUE(t, q == p); /* handed out anyway, with a report */
	KTEST_EXPECT_EQ(t, bad_page_reports, before + 1);
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "poison overwritten at offset 0x7b"));
	if (q)
		put(q, 0);
	expect_boot_shape(t);
	boot(&ring);
}

/* In the debug mode (page_poison=on) every page of a block is checked when
 * the block is freed: a tail page with flags, a reference or a mapping
 * refuses the whole free, and the report names the tail page. */
static void tail_pages_are_checked_in_debug_mode(struct ktest *t)
{
	struct host_mm_config cfg = ring;
	cfg.page_poison = true;
	boot(&cfg);
	struct page *b = get(t, 2, GFP_KERNEL, 3);
	KTEST_ASSERT_NOT_NULL(t, b);
	char pfn[40];

	page_set_flag(b + 5, PG_slab);
	EXPECT_BAD_FREE(t, __free_pages(b, 3), "a tail page of the block still has flags set");
	snprintf(pfn, sizeof(pfn), "pfn %#lx ", page_to_pfn(b + 5));
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, pfn));
	KTEST_EXPECT_NOT_NULL(t, strstr(printed, "the block was not freed"));
	KTEST_ASSERT_TRUE(t, PageHead(b)); /* still allocated */
	page_clear_flag(b + 5, PG_slab);

	b[7]._refcount = 1;
	EXPECT_BAD_FREE(t, __free_pages(b, 3), "a tail page of the block is still referenced");
	KTEST_ASSERT_TRUE(t, PageHead(b));
	b[7]._refcount = 0;

	b[1]._mapcount = 0;
	EXPECT_BAD_FREE(t, __free_pages(b, 3), "a tail page of the block is still mapped");
	KTEST_ASSERT_TRUE(t, PageHead(b));
	b[1]._mapcount = -1;

	KTEST_ASSERT_TRUE(t, mm_check(t, &shadow, true));
	unsigned long before = bad_page_reports;
	put(b, 3); /* plain again: freed */
	KTEST_EXPECT_EQ(t, bad_page_reports, before);
	expect_boot_shape(t);
	boot(&ring);
}

/* ---- shrinkers ----------------------------------------------------------- */

static struct page *cache_pages[64];
static int cache_n;
static unsigned long shrinker_calls;

static unsigned long cache_count(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	return (unsigned long)cache_n;
}

static unsigned long cache_scan(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	unsigned long freed = 0;
	shrinker_calls++;
	while (cache_n && freed < sc->nr_to_scan) {
		struct page *p = cache_pages[--cache_n];
		put(p, 9);
		freed++;
	}
	return freed;
}

static void reclaim_calls_the_shrinkers(struct ktest *t)
{
	struct shrinker s = { .count_objects = cache_count, .scan_objects = cache_scan, .seeks = 2 };
	/* Fill memory with a "cache" of order-9 blocks and plain order-9 blocks. */
	static struct page *held[512];
	int n = 0;
	cache_n = 0;
	struct page *p;
	while ((p = get(t, NUMA_NO_NODE, GFP_KERNEL | __GFP_NOWARN, 9))) {
		if (cache_n < 8)
			cache_pages[cache_n++] = p;
		else
			held[n++] = p;
		KTEST_ASSERT_LT(t, n, 512);
	}
	register_shrinker(&s);
	shrinker_calls = 0;
	/* GFP_NOWAIT may not reclaim: fails without calling the shrinker. */
	KTEST_EXPECT_NULL(t, alloc_pages_node(0, GFP_NOWAIT | __GFP_NOWARN, 9));
	KTEST_EXPECT_EQ(t, shrinker_calls, 0);
	/* GFP_KERNEL reclaims and then succeeds. */
	p = get(t, 0, GFP_KERNEL | __GFP_NOWARN, 9);
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_GT(t, shrinker_calls, 0);
	unregister_shrinker(&s);
	if (p)
		put(p, 9);
	while (cache_n)
		put(cache_pages[--cache_n], 9);
	while (n--)
		put(held[n], 9);
	expect_boot_shape(t);
}

/* A shrinker that allocates under memory pressure (as a cache that needs
 * a little memory to give back a lot) sends its allocation down the slow
 * path, which would call the shrinkers again: shrink_slab is not entered
 * again on a CPU already inside it, so there is no reclaim recursion. */
static int scan_depth, deepest_scan;
static unsigned long nested_freed;

static unsigned long always_count(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 1;
}

static unsigned long allocating_scan(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	if (++scan_depth > deepest_scan)
		deepest_scan = scan_depth;
	if (scan_depth < 4) { /* bounds the recursion of a broken guard */
		struct page *p = alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN | __GFP_NORETRY, 0);
		if (p)
			__free_pages(p, 0);
		nested_freed += shrink_slab(GFP_KERNEL, 0);
	}
	scan_depth--;
	return 0;
}

static void shrinkers_are_not_reentered(struct ktest *t)
{
	static struct held_blocks held;
	held.n = 0;
	exhaust_node(t, &held, 0, GFP_KERNEL);
	struct shrinker s = { .count_objects = always_count, .scan_objects = allocating_scan, .seeks = 2 };
	register_shrinker(&s);
	scan_depth = deepest_scan = 0;
	nested_freed = 0;
	KTEST_EXPECT_NULL(t, alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN | __GFP_NORETRY, 0));
	KTEST_EXPECT_EQ(t, deepest_scan, 1);
	KTEST_EXPECT_EQ(t, scan_depth, 0);
	/* Outside a shrinker, shrink_slab runs them again. */
	deepest_scan = 0;
	KTEST_EXPECT_EQ(t, shrink_slab(GFP_KERNEL, 0), 0);
	KTEST_EXPECT_EQ(t, deepest_scan, 1);
	KTEST_EXPECT_EQ(t, nested_freed, 0);
	unregister_shrinker(&s);
	release_blocks(&held);
	expect_boot_shape(t);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(double_free_is_reported),
	KTEST_CASE(wrong_order_is_reported),
	KTEST_CASE(freeing_a_referenced_page_is_reported),
	KTEST_CASE(freeing_a_page_table_page_is_reported),
	KTEST_CASE(every_unexpected_flag_is_refused),
	KTEST_CASE(corrupted_free_page_is_retired),
	KTEST_CASE(poison_catches_writes_after_free),
	KTEST_CASE(tail_pages_are_checked_in_debug_mode),
	KTEST_CASE(reclaim_calls_the_shrinkers),
	KTEST_CASE(shrinkers_are_not_reentered),
};

int main(void)
{
	return page_alloc_test_main("host_page_alloc_checks", cases, ARRAY_SIZE(cases));
}
