/* Host test of the vmalloc area's free-range tree (mm/vmap_area.c) under
 * ASan/UBSan: random allocations (random sizes, alignments and [vstart,
 * vend) windows, each with its guard page) and frees, checked after every
 * step against a page bitmap:
 *   - an allocation lies in free pages, inside its window, aligned;
 *   - with align <= PAGE_SIZE it is the lowest fit there is; with a larger
 *     align it is no higher than the first range that surely fits (size +
 *     align - 1), as Linux's search promises, and it fails only when no such
 *     range exists;
 *   - the tree's free ranges are exactly the bitmap's maximal free runs
 *     (freed ranges merged, nothing lost), subtree_max_size right, the
 *     list in tree order (vmap_free_tree_check);
 *   - no node leaks (every node handed to free_node or still in the tree).
 * Linux's own test of the same code is lib/test_vmalloc.c (in the kernel);
 * this one can hold it against a model. */
#include "mm/vmap_area.h"
#include "tests/host/ktest.h"

#include <stdlib.h>
#include <string.h>

#define PG 4096ul
#define BASE 0xffffc90000000000ul
#define NPG 2048ul

static long live_nodes;
static void free_node(struct vmap_area *va)
{
	memset(va, 0x6b, sizeof(*va));
	free(va);
	live_nodes--;
}
static struct vmap_area *new_node(unsigned long start, unsigned long end)
{
	struct vmap_area *va = calloc(1, sizeof(*va));
	va->va_start = start;
	va->va_end = end;
	live_nodes++;
	return va;
}

static u64 rng_state = 0x9e3779b97f4a7c15ull;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static unsigned long rnd(unsigned long n) { return (unsigned long)(rng() % n); }

static bool busy[NPG];
struct live { unsigned long start, pages; };
static struct live lives[NPG];
static unsigned nr_live;

static unsigned long addr_of(unsigned long pg) { return BASE + pg * PG; }

/* The lowest page p >= lo with addr_of(p) % align == 0 and [p, p + n) free
 * and <= hi; NPG if none. */
static unsigned long model_lowest(unsigned long n, unsigned long align, unsigned long lo, unsigned long hi)
{
	for (unsigned long p = lo; p + n <= hi; p++) {
		if (addr_of(p) % align)
			continue;
		bool ok = true;
		for (unsigned long i = 0; i < n && ok; i++)
			ok = !busy[p + i];
		if (ok)
			return p;
	}
	return NPG;
}

/* The first page of the lowest maximal free run (clipped to [lo, hi)) of at
 * least len pages; NPG if none. */
static unsigned long model_sure_run(unsigned long len, unsigned long lo, unsigned long hi)
{
	unsigned long run = 0;
	for (unsigned long p = lo; p < hi; p++) {
		run = busy[p] ? 0 : run + 1;
		if (run >= len)
			return p + 1 - run;
	}
	return NPG;
}

static void check_tree_matches(struct ktest *t, struct vmap_free_tree *tree)
{
	KTEST_ASSERT_EQ(t, vmap_free_tree_check(tree), 0);
	struct vmap_area *va;
	unsigned long p = 0;
	list_for_each_entry(va, &tree->head, list) {
		while (p < NPG && busy[p])
			p++;
		KTEST_ASSERT_EQ(t, va->va_start, addr_of(p));
		while (p < NPG && !busy[p])
			p++;
		KTEST_ASSERT_EQ(t, va->va_end, addr_of(p));
	}
	while (p < NPG && busy[p])
		p++;
	KTEST_ASSERT_EQ(t, p, NPG);
	KTEST_ASSERT_EQ(t, (long)tree->nr_nodes, live_nodes);
}

static unsigned long try_alloc(struct vmap_free_tree *tree, unsigned long size, unsigned long align,
			       unsigned long vs, unsigned long ve)
{
	struct vmap_area *spare = NULL;
	unsigned long a = vmap_free_alloc(tree, size, align, vs, ve, &spare);
	if (a == VMAP_NEED_SPARE) {
		spare = new_node(0, 0);
		a = vmap_free_alloc(tree, size, align, vs, ve, &spare);
	}
	if (spare)
		free_node(spare);
	if (tree->taken) {
		free_node(tree->taken);
		tree->taken = NULL;
	}
	return a;
}

static void random_alloc_free_against_model(struct ktest *t)
{
	struct vmap_free_tree tree;
	vmap_free_tree_init(&tree, free_node);
	memset(busy, 0, sizeof(busy));
	nr_live = 0;
	live_nodes = 0;
	KTEST_ASSERT_TRUE(t, vmap_free_insert(&tree, new_node(BASE, addr_of(NPG))));
	unsigned long allocs = 0, fails = 0, frees = 0, merges_both = 0;
	for (int step = 0; step < 40000; step++) {
		if (nr_live && rnd(100) < 45) {
			unsigned i = (unsigned)rnd(nr_live);
			struct live l = lives[i];
			lives[i] = lives[--nr_live];
			bool left = l.start && !busy[l.start - 1], right = l.start + l.pages < NPG && !busy[l.start + l.pages];
			merges_both += left && right;
			for (unsigned long k = 0; k < l.pages; k++)
				busy[l.start + k] = false;
			KTEST_ASSERT_TRUE(t, vmap_free_insert(&tree, new_node(addr_of(l.start), addr_of(l.start + l.pages))));
			/* The same range again is a double free: refused, nothing changes. */
			if (rnd(8) == 0) {
				struct vmap_area *dup = new_node(addr_of(l.start), addr_of(l.start + l.pages));
				KTEST_EXPECT_FALSE(t, vmap_free_insert(&tree, dup));
				free_node(dup);
			}
			frees++;
		} else {
			unsigned long pages = 1 + (rnd(4) ? rnd(8) : rnd(64));
			unsigned long align = PG << (rnd(3) ? 0 : rnd(6));
			unsigned long lo = rnd(4) ? 0 : rnd(NPG), hi = rnd(4) ? NPG : lo + rnd(NPG - lo + 1);
			unsigned long size = (pages + 1) * PG; /* + the guard page */
			unsigned long a = try_alloc(&tree, size, align, addr_of(lo), addr_of(hi));
			unsigned long exact = model_lowest(pages + 1, align, lo, hi);
			if (align <= PG) {
				KTEST_ASSERT_EQ(t, a == VMAP_NO_SPACE ? NPG : (a - BASE) / PG, exact);
			} else {
				/* size + align - 1 bytes, in whole pages */
				unsigned long len = pages + 1 + align / PG;
				unsigned long sure = model_sure_run(len, lo, hi);
				if (sure != NPG)
					KTEST_ASSERT_TRUE(t, a != VMAP_NO_SPACE);
				if (a != VMAP_NO_SPACE && sure != NPG && (a - BASE) / PG >= sure + align / PG) {
					ktest_diag(t, "pages %lu align %lu lo %lu hi %lu: got page %lu, sure run at %lu, exact %lu",
						   pages + 1, align / PG, lo, hi, (a - BASE) / PG, sure, exact);
					struct vmap_area *v;
					list_for_each_entry(v, &tree.head, list)
						ktest_diag(t, "free [%lu, %lu) max %lu l %p r %p self %p", (v->va_start - BASE) / PG,
							   (v->va_end - BASE) / PG, v->subtree_max_size / PG,
							   (void *)v->rb_node.rb_left, (void *)v->rb_node.rb_right, (void *)&v->rb_node);
					KTEST_ASSERT_TRUE(t, false);
				}
				if (a == VMAP_NO_SPACE)
					KTEST_ASSERT_EQ(t, sure, NPG);
			}
			if (a == VMAP_NO_SPACE) {
				fails++;
			} else {
				unsigned long p = (a - BASE) / PG;
				KTEST_ASSERT_EQ(t, a % align, 0);
				KTEST_ASSERT_TRUE(t, p >= lo && p + pages + 1 <= hi);
				for (unsigned long k = 0; k <= pages; k++) {
					KTEST_ASSERT_FALSE(t, busy[p + k]);
					busy[p + k] = true;
				}
				lives[nr_live++] = (struct live){ p, pages + 1 };
				allocs++;
			}
		}
		check_tree_matches(t, &tree);
	}
	ktest_diag(t, "%lu allocations, %lu failures, %lu frees (%lu merged both ways)", allocs, fails, frees,
		   merges_both);
	KTEST_EXPECT_TRUE(t, allocs > 1000 && fails > 100 && merges_both > 100);
	while (nr_live) {
		struct live l = lives[--nr_live];
		for (unsigned long k = 0; k < l.pages; k++)
			busy[l.start + k] = false;
		KTEST_ASSERT_TRUE(t, vmap_free_insert(&tree, new_node(addr_of(l.start), addr_of(l.start + l.pages))));
	}
	check_tree_matches(t, &tree);
	KTEST_EXPECT_EQ(t, tree.nr_nodes, 1);
	struct vmap_area *last = list_first_entry(&tree.head, struct vmap_area, list);
	KTEST_EXPECT_EQ(t, va_size(last), NPG * PG);
	free_node(last);
	KTEST_EXPECT_EQ(t, live_nodes, 0);
}

/* Bad requests change nothing: size 0, a window that is empty, a size that
 * wraps the address space, a range that is taken. */
static void bad_requests_change_nothing(struct ktest *t)
{
	struct vmap_free_tree tree;
	vmap_free_tree_init(&tree, free_node);
	live_nodes = 0;
	KTEST_ASSERT_TRUE(t, vmap_free_insert(&tree, new_node(BASE, BASE + 64 * PG)));
	KTEST_EXPECT_EQ(t, try_alloc(&tree, 0, PG, BASE, BASE + 64 * PG), VMAP_NO_SPACE);
	KTEST_EXPECT_EQ(t, try_alloc(&tree, PG, PG, BASE + 8 * PG, BASE + 8 * PG), VMAP_NO_SPACE);
	KTEST_EXPECT_EQ(t, try_alloc(&tree, ~0ul - PG + 1, PG, BASE, ~0ul), VMAP_NO_SPACE);
	KTEST_EXPECT_EQ(t, try_alloc(&tree, 65 * PG, PG, BASE, ~0ul), VMAP_NO_SPACE);
	KTEST_EXPECT_EQ(t, try_alloc(&tree, PG, 1ul << 40, BASE + PG, BASE + 64 * PG), VMAP_NO_SPACE);
	KTEST_EXPECT_EQ(t, tree.nr_nodes, 1);
	struct vmap_area *va = new_node(BASE + PG, BASE + 2 * PG);
	KTEST_EXPECT_FALSE(t, vmap_free_insert(&tree, va)); /* already free */
	free_node(va);
	va = new_node(BASE + 2 * PG, BASE + 2 * PG);
	KTEST_EXPECT_FALSE(t, vmap_free_insert(&tree, va)); /* empty */
	free_node(va);
	KTEST_EXPECT_EQ(t, vmap_free_tree_check(&tree), 0);
	free_node(list_first_entry(&tree.head, struct vmap_area, list));
	KTEST_EXPECT_EQ(t, live_nodes, 0);
}

/* Tens of thousands of live ranges: the tree stays right at scale, and a
 * free in the middle is found as the lowest fit. */
static void many_areas(struct ktest *t)
{
	struct vmap_free_tree tree;
	vmap_free_tree_init(&tree, free_node);
	live_nodes = 0;
	const unsigned long n = 50000;
	KTEST_ASSERT_TRUE(t, vmap_free_insert(&tree, new_node(BASE, BASE + (4 * n + 16) * PG)));
	static unsigned long at[50000];
	for (unsigned long i = 0; i < n; i++) {
		at[i] = try_alloc(&tree, 2 * PG, PG, BASE, ~0ul);
		KTEST_ASSERT_EQ(t, at[i], BASE + 2 * i * PG);
	}
	/* Free every other one: n / 2 free ranges of two pages. */
	for (unsigned long i = 0; i < n; i += 2)
		KTEST_ASSERT_TRUE(t, vmap_free_insert(&tree, new_node(at[i], at[i] + 2 * PG)));
	KTEST_ASSERT_EQ(t, vmap_free_tree_check(&tree), 0);
	KTEST_EXPECT_EQ(t, tree.nr_nodes, n / 2 + 1);
	/* Three pages fit only in the tail. */
	KTEST_EXPECT_EQ(t, try_alloc(&tree, 3 * PG, PG, BASE, ~0ul), BASE + 2 * n * PG);
	/* Two pages: the lowest hole. */
	KTEST_EXPECT_EQ(t, try_alloc(&tree, 2 * PG, PG, BASE, ~0ul), BASE);
	/* Above a vstart: the first hole at or after it. */
	KTEST_EXPECT_EQ(t, try_alloc(&tree, PG, PG, BASE + 1002 * PG, ~0ul), BASE + 1004 * PG);
	KTEST_ASSERT_EQ(t, vmap_free_tree_check(&tree), 0);
	while (!list_empty(&tree.head)) {
		struct vmap_area *va = list_first_entry(&tree.head, struct vmap_area, list);
		rb_erase(&va->rb_node, &tree.root);
		list_del(&va->list);
		free_node(va);
	}
}

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(random_alloc_free_against_model),
		KTEST_CASE(bad_requests_change_nothing),
		KTEST_CASE(many_areas),
	};
	return ktest_run_suite("host_vmalloc_tree", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
