/* The XArray (lib/xarray.h): stores, loads and erases at sparse and
 * dense indices, the tree growing and shrinking with them, insert,
 * cmpxchg, searches in index order, the three marks and how they run up
 * the tree, value entries, the advanced xas_ walk, allocation failures
 * (fail_page_alloc) that leave the array as it was, and RCU readers on
 * every CPU beside a writer (tests/filemap_xarray_test.c: the page cache
 * on it). Every case gives back its nodes (xa_nodes_in_use, after the
 * grace period) and its slab objects and pages (kunit_resources). */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_xarray.h"
#include "kernel/sched.h"
#include "mm/fail_page_alloc.h"
#include "mm/slab.h"

static const unsigned long sparse[] = {
	0, 1, 2, 63, 64, 65, 4095, 4096, 262143, 262144, 1ul << 30, (1ul << 30) + 1,
	1ul << 40, ~0ul >> 1, ~0ul - 64, ~0ul - 1, ~0ul,
};

static void store_load_erase_sparse(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	for (size_t i = 0; i < ARRAY_SIZE(sparse); i++) {
		KUNIT_EXPECT_NULL(test, xa_store(xa, sparse[i], xa_mk_value(sparse[i] & 0xffff), GFP_KERNEL));
		/* What went before is still there. */
		for (size_t j = 0; j <= i; j++)
			KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, sparse[j]), xa_mk_value(sparse[j] & 0xffff));
	}
	/* Neighbours of each stored index are holes. */
	for (size_t i = 0; i < ARRAY_SIZE(sparse); i++) {
		if (sparse[i] > 2 && sparse[i] < ~0ul - 1) {
			bool left = i == 0 || sparse[i - 1] != sparse[i] - 1;
			bool right = i + 1 == ARRAY_SIZE(sparse) || sparse[i + 1] != sparse[i] + 1;
			if (left)
				KUNIT_EXPECT_NULL(test, xa_load(xa, sparse[i] - 1));
			if (right)
				KUNIT_EXPECT_NULL(test, xa_load(xa, sparse[i] + 1));
		}
	}
	/* ULONG_MAX needs every level: 64 bits in 6-bit digits. */
	KUNIT_EXPECT_EQ(test, xa_height(xa), 11u);
	/* Searches at the top end stop there, without wrapping to 0. */
	unsigned long index = ~0ul - 63;
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, ~0ul, XA_PRESENT), xa_mk_value((~0ul - 1) & 0xffff));
	KUNIT_EXPECT_EQ(test, index, ~0ul - 1);
	KUNIT_EXPECT_PTR_EQ(test, xa_find_after(xa, &index, ~0ul, XA_PRESENT), xa_mk_value(0xffff));
	KUNIT_EXPECT_EQ(test, index, ~0ul);
	KUNIT_EXPECT_NULL(test, xa_find_after(xa, &index, ~0ul, XA_PRESENT));
	KUNIT_EXPECT_EQ(test, index, ~0ul);
	index = (1ul << 40) + 1;
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, ~0ul, XA_PRESENT), xa_mk_value((~0ul >> 1) & 0xffff));
	KUNIT_EXPECT_EQ(test, index, ~0ul >> 1);
	/* A replacement returns the old entry. */
	void *p = &p;
	KUNIT_EXPECT_PTR_EQ(test, xa_store(xa, 4096, p, GFP_KERNEL), xa_mk_value(4096));
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, 4096), p);
	KUNIT_EXPECT_PTR_EQ(test, xa_store(xa, 4096, xa_mk_value(4096), GFP_KERNEL), p);
	/* Erased from the top index down, the tree shrinks level by level
	 * until index 0's entry sits at the head with no node. */
	for (size_t i = ARRAY_SIZE(sparse); i-- > 1;) {
		KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, sparse[i]), xa_mk_value(sparse[i] & 0xffff));
		KUNIT_EXPECT_NULL(test, xa_load(xa, sparse[i]));
		KUNIT_EXPECT_NULL(test, xa_erase(xa, sparse[i])); /* twice: nothing there */
	}
	KUNIT_EXPECT_EQ(test, xa_height(xa), 0u);
	KUNIT_EXPECT_PTR_EQ(test, xa->xa_head, xa_mk_value(0));
	KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, 0), xa_mk_value(0));
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
	xa_case_end(test, xa, &start);
}

/* 5,000 entries side by side (two levels), erased odd then even: the
 * searches see them in order, and the nodes go as they empty. */
#define DENSE 5000ul

static void dense_store_find_erase(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	/* Stored in a scrambled order (an odd step is a permutation). */
	for (unsigned long k = 0; k < DENSE; k++) {
		unsigned long i = (k * 2999) % DENSE;
		KUNIT_ASSERT_EQ(test, xa_insert(xa, i, xa_mk_value(i), GFP_KERNEL), 0);
	}
	KUNIT_EXPECT_EQ(test, xa_height(xa), 3u); /* 5000 > 64 * 64 */
	unsigned long index, expect = 0, n = 0;
	void *entry;
	xa_for_each(xa, index, entry) {
		KUNIT_EXPECT_EQ(test, index, expect);
		KUNIT_EXPECT_PTR_EQ(test, entry, xa_mk_value(index));
		expect++;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, DENSE);
	for (unsigned long i = 1; i < DENSE; i += 2)
		KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, i), xa_mk_value(i));
	/* find and find_after step over the holes, and stop at max. */
	index = 1;
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, ~0ul, XA_PRESENT), xa_mk_value(2));
	KUNIT_EXPECT_EQ(test, index, 2ul);
	KUNIT_EXPECT_PTR_EQ(test, xa_find_after(xa, &index, ~0ul, XA_PRESENT), xa_mk_value(4));
	KUNIT_EXPECT_EQ(test, index, 4ul);
	index = 4095;
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, 4096, XA_PRESENT), xa_mk_value(4096));
	index = 4097;
	KUNIT_EXPECT_NULL(test, xa_find(xa, &index, 4097, XA_PRESENT));
	index = DENSE - 2;
	KUNIT_EXPECT_NULL(test, xa_find_after(xa, &index, ~0ul, XA_PRESENT));
	/* From an index whose subtree is absent (the walk starts at an
	 * interior node): the next entry's own index, no bits of the start. */
	KUNIT_ASSERT_NULL(test, xa_store(xa, 1ul << 20, xa_mk_value(7), GFP_KERNEL));
	index = 8195; /* past every dense index: the root's slot for it is empty */
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, ~0ul, XA_PRESENT), xa_mk_value(7));
	KUNIT_EXPECT_EQ(test, index, 1ul << 20);
	index = 8201;
	KUNIT_EXPECT_PTR_EQ(test, xa_find_after(xa, &index, ~0ul, XA_PRESENT), xa_mk_value(7));
	KUNIT_EXPECT_EQ(test, index, 1ul << 20);
	KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, 1ul << 20), xa_mk_value(7));
	n = 0;
	xa_for_each_range(xa, index, entry, 100, 200) {
		KUNIT_EXPECT_EQ(test, index % 2, 0ul);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 51ul);
	for (unsigned long i = 0; i < DENSE; i += 2)
		KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, i), xa_mk_value(i));
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
	/* Every node went with its last entry, not just at destroy. */
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, xa_nodes_in_use(), start.nodes);
	xa_case_end(test, xa, &start);
}

static void insert_busy_and_reserve(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	KUNIT_EXPECT_EQ(test, xa_insert(xa, 7, xa_mk_value(1), GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, xa_insert(xa, 7, xa_mk_value(2), GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, 7), xa_mk_value(1));
	/* Inserting NULL reserves: reads as NULL, yet the slot is taken. */
	KUNIT_EXPECT_EQ(test, xa_insert(xa, 1000, NULL, GFP_KERNEL), 0);
	KUNIT_EXPECT_NULL(test, xa_load(xa, 1000));
	KUNIT_EXPECT_EQ(test, xa_insert(xa, 1000, xa_mk_value(3), GFP_KERNEL), -EBUSY);
	unsigned long index = 8;
	KUNIT_EXPECT_NULL(test, xa_find(xa, &index, ~0ul, XA_PRESENT)); /* searches pass it over */
	xa_release(xa, 1000);
	KUNIT_EXPECT_EQ(test, xa_insert(xa, 1000, xa_mk_value(3), GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, xa_reserve(xa, 2000, GFP_KERNEL), 0);
	KUNIT_EXPECT_NULL(test, xa_store(xa, 2000, xa_mk_value(4), GFP_KERNEL)); /* a reservation reads NULL */
	/* The xarray's own entries are refused. */
	KUNIT_EXPECT_EQ(test, xa_insert(xa, 9, XA_RETRY_ENTRY, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, xa_err(xa_store(xa, 9, xa_mk_internal(3), GFP_KERNEL)), -EINVAL);
	KUNIT_EXPECT_NULL(test, xa_load(xa, 9));
	xa_case_end(test, xa, &start);
}

static void cmpxchg_replaces_only_the_expected(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	void *a = xa_mk_value(10), *b = xa_mk_value(11), *c = xa_mk_value(12);
	KUNIT_EXPECT_NULL(test, xa_cmpxchg(xa, 300, NULL, a, GFP_KERNEL)); /* empty: stores */
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, 300), a);
	KUNIT_EXPECT_PTR_EQ(test, xa_cmpxchg(xa, 300, b, c, GFP_KERNEL), a); /* not b: left */
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, 300), a);
	KUNIT_EXPECT_PTR_EQ(test, xa_cmpxchg(xa, 300, a, b, GFP_KERNEL), a);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, 300), b);
	KUNIT_EXPECT_PTR_EQ(test, xa_cmpxchg(xa, 300, b, NULL, GFP_KERNEL), b); /* an erase */
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
	KUNIT_EXPECT_PTR_EQ(test, xa_cmpxchg(xa, 300, a, b, GFP_KERNEL), NULL); /* nothing to match */
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
	xa_case_end(test, xa, &start);
}

static void value_entries_round_trip(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	const unsigned long values[] = { 0, 1, 0x1234567, ~0ul >> 1 };
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		void *e = xa_mk_value(values[i]);
		KUNIT_EXPECT_TRUE(test, xa_is_value(e));
		KUNIT_EXPECT_FALSE(test, xa_is_internal(e));
		KUNIT_EXPECT_EQ(test, xa_to_value(e), values[i]);
		KUNIT_EXPECT_NULL(test, xa_store(xa, 1 + i, e, GFP_KERNEL));
		KUNIT_EXPECT_EQ(test, xa_to_value(xa_load(xa, 1 + i)), values[i]);
	}
	KUNIT_EXPECT_FALSE(test, xa_is_value(xa));
	/* A pointer among the values: the leaf (indices 0..63) counts each
	 * kind. */
	KUNIT_EXPECT_NULL(test, xa_store(xa, 7, xa, GFP_KERNEL));
	KUNIT_ASSERT_TRUE(test, xa_is_node(xa->xa_head));
	struct xa_node *leaf = xa_to_node(xa->xa_head);
	KUNIT_EXPECT_EQ(test, leaf->shift, 0);
	KUNIT_EXPECT_EQ(test, leaf->count, 5);
	KUNIT_EXPECT_EQ(test, leaf->nr_values, 4);
	KUNIT_EXPECT_PTR_EQ(test, xa_store(xa, 1, xa, GFP_KERNEL), xa_mk_value(0));
	KUNIT_EXPECT_EQ(test, leaf->nr_values, 3);
	KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, 2), xa_mk_value(1));
	KUNIT_EXPECT_EQ(test, leaf->count, 4);
	KUNIT_EXPECT_EQ(test, leaf->nr_values, 2);
	xa_case_end(test, xa, &start);
}

/* Marks: set and cleared per entry, carried up the tree so that a marked
 * search skips unmarked subtrees, kept in xa_flags for an entry at the
 * head, moved with the entry when the tree grows and shrinks, and gone
 * with an erased entry. */
static void marks_follow_entries(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	KUNIT_ASSERT_NULL(test, xa_store(xa, 0, xa_mk_value(0), GFP_KERNEL));
	xa_set_mark(xa, 0, XA_MARK_1);
	KUNIT_EXPECT_TRUE(test, xa_get_mark(xa, 0, XA_MARK_1));
	KUNIT_EXPECT_FALSE(test, xa_get_mark(xa, 0, XA_MARK_0));
	KUNIT_EXPECT_TRUE(test, xa_marked(xa, XA_MARK_1)); /* at the head: in xa_flags */
	/* No entry, no mark. */
	xa_set_mark(xa, 5, XA_MARK_0);
	KUNIT_EXPECT_FALSE(test, xa_marked(xa, XA_MARK_0));
	/* 3 x 4096 entries: a three-level tree. */
	for (unsigned long i = 1; i < 3 * 4096; i++)
		KUNIT_ASSERT_NULL(test, xa_store(xa, i, xa_mk_value(i), GFP_KERNEL));
	KUNIT_ASSERT_EQ(test, xa_height(xa), 3u);
	KUNIT_EXPECT_TRUE(test, xa_get_mark(xa, 0, XA_MARK_1)); /* went down with the entry */
	xa_clear_mark(xa, 0, XA_MARK_1);
	KUNIT_EXPECT_FALSE(test, xa_marked(xa, XA_MARK_1));
	struct xa_node *root = xa_to_node(xa->xa_head);
	KUNIT_EXPECT_EQ(test, root->marks[XA_MARK_1][0], 0ul);
	const unsigned long marked[] = { 5, 4100, 10000, 10001 };
	for (size_t i = 0; i < ARRAY_SIZE(marked); i++)
		xa_set_mark(xa, marked[i], XA_MARK_0);
	xa_set_mark(xa, 8191, XA_MARK_2);
	/* The root's bits: the subtrees of 4096 indices holding a mark. */
	KUNIT_EXPECT_EQ(test, root->marks[XA_MARK_0][0], 0x7ul);
	KUNIT_EXPECT_EQ(test, root->marks[XA_MARK_2][0], 0x2ul);
	unsigned long index, n = 0;
	void *entry;
	xa_for_each_marked(xa, index, entry, XA_MARK_0) {
		KUNIT_ASSERT_LT(test, n, ARRAY_SIZE(marked));
		KUNIT_EXPECT_EQ(test, index, marked[n]);
		KUNIT_EXPECT_PTR_EQ(test, entry, xa_mk_value(marked[n]));
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(marked));
	index = 6;
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, ~0ul, XA_MARK_2), xa_mk_value(8191));
	index = 10001;
	KUNIT_EXPECT_NULL(test, xa_find_after(xa, &index, ~0ul, XA_MARK_0));
	index = 11;
	KUNIT_EXPECT_NULL(test, xa_find(xa, &index, 4099, XA_MARK_0)); /* max stops it */
	/* Clearing runs up only while a node is left with no mark. */
	xa_clear_mark(xa, 10000, XA_MARK_0);
	KUNIT_EXPECT_EQ(test, root->marks[XA_MARK_0][0], 0x7ul); /* 10001 keeps subtree 2 marked */
	xa_clear_mark(xa, 10001, XA_MARK_0);
	KUNIT_EXPECT_EQ(test, root->marks[XA_MARK_0][0], 0x3ul);
	/* An erased entry's marks go with it. */
	KUNIT_EXPECT_PTR_EQ(test, xa_erase(xa, 8191), xa_mk_value(8191));
	KUNIT_EXPECT_FALSE(test, xa_marked(xa, XA_MARK_2));
	KUNIT_EXPECT_NULL(test, xa_store(xa, 8191, xa_mk_value(8191), GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, xa_get_mark(xa, 8191, XA_MARK_2));
	/* Shrinking back to index 0 at the head keeps its marks. */
	xa_set_mark(xa, 0, XA_MARK_2);
	for (unsigned long i = 1; i < 3 * 4096; i++)
		xa_erase(xa, i);
	KUNIT_EXPECT_EQ(test, xa_height(xa), 0u);
	KUNIT_EXPECT_TRUE(test, xa_get_mark(xa, 0, XA_MARK_2));
	KUNIT_EXPECT_FALSE(test, xa_marked(xa, XA_MARK_0));
	index = 0;
	KUNIT_EXPECT_PTR_EQ(test, xa_find(xa, &index, ~0ul, XA_MARK_2), xa_mk_value(0));
	xa_erase(xa, 0);
	KUNIT_EXPECT_FALSE(test, xa_marked(xa, XA_MARK_2));
	xa_case_end(test, xa, &start);
}

/* The advanced API: a cursor stepping across node boundaries, a marked
 * walk under the lock, and a paused walk that goes on where it left. */
static void xas_walks(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	for (unsigned long i = 60; i < 200; i++)
		KUNIT_ASSERT_NULL(test, xa_store(xa, i, xa_mk_value(i), GFP_KERNEL));
	XA_STATE(xas, xa, 60);
	xas_lock(&xas);
	for (unsigned long i = 60; i < 200; i++) {
		void *entry = xas_next(&xas); /* the first call loads index 60 itself */
		KUNIT_EXPECT_EQ(test, xas.xa_index, i);
		KUNIT_EXPECT_PTR_EQ(test, entry, xa_mk_value(i));
		if (i % 3 == 0)
			xas_set_mark(&xas, XA_MARK_0);
	}
	KUNIT_EXPECT_NULL(test, xas_next(&xas)); /* 200: a hole */
	KUNIT_EXPECT_EQ(test, xas.xa_index, 200ul);
	xas_set(&xas, 0);
	unsigned long n = 0;
	void *entry;
	xas_for_each_marked(&xas, entry, ~0ul, XA_MARK_0) {
		KUNIT_EXPECT_EQ(test, xas.xa_index % 3, 0ul);
		KUNIT_EXPECT_TRUE(test, xas_get_mark(&xas, XA_MARK_0));
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 47ul); /* 60, 63, ..., 198 */
	/* xas_store through the cursor; a paused walk resumes past it. */
	xas_set(&xas, 100);
	KUNIT_EXPECT_PTR_EQ(test, xas_load(&xas), xa_mk_value(100));
	KUNIT_EXPECT_PTR_EQ(test, xas_store(&xas, NULL), xa_mk_value(100));
	KUNIT_EXPECT_EQ(test, xas_error(&xas), 0);
	xas_set(&xas, 95);
	n = 0;
	xas_for_each(&xas, entry, 120) {
		KUNIT_EXPECT_NE(test, xas.xa_index, 100ul);
		xas_pause(&xas);
		xas_unlock(&xas);
		xas_lock(&xas);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 25ul); /* 95..120 but 100 */
	xas_unlock(&xas);
	xa_case_end(test, xa, &start);
}

/* Node allocation fails (fail_page_alloc, this task's page allocations
 * only, once the node cache's free slots are used up): the store reports
 * -ENOMEM and leaves the array as it was, no node left behind. A store
 * that needs no node still works; and a failure of the allocation under
 * the lock alone is met by xas_nomem's retry, with the lock dropped. */
static void store_without_memory_fails_cleanly(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	static struct xarray other;
	xa_init(&other);
	xa_destroy_at_end(test, &other);
	xa_fail_page_allocs(test, -1);
	/* Stores far apart, each needing new nodes, until one finds none. */
	unsigned long i, failed = 0;
	for (i = 0; i < XA_FAIL_TRIES; i++) {
		unsigned long index = i * ((1ul << 30) + 12345);
		unsigned long live = xa_live_nodes();
		void *old = xa_store(xa, index, xa_mk_value(i), GFP_KERNEL);
		if (!xa_is_err(old))
			continue;
		KUNIT_EXPECT_EQ(test, xa_err(old), -ENOMEM);
		KUNIT_EXPECT_NULL(test, xa_load(xa, index));
		KUNIT_EXPECT_EQ(test, xa_live_nodes(), live); /* what it made for the path went */
		failed = index;
		break;
	}
	KUNIT_ASSERT_LT(test, i, XA_FAIL_TRIES);
	KUNIT_EXPECT_GT(test, fail_page_alloc.failures, 0ul);
	/* Those before it are all there. */
	for (unsigned long j = 0; j < i; j++)
		KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, j * ((1ul << 30) + 12345)), xa_mk_value(j));
	KUNIT_EXPECT_EQ(test, xa_insert(xa, failed, xa_mk_value(1), GFP_KERNEL), -ENOMEM);
	KUNIT_EXPECT_EQ(test, xa_err(xa_store(xa, failed + 1, xa_mk_value(1), GFP_NOWAIT)), -ENOMEM);
	/* An empty array stays empty; index 0 needs no node. */
	KUNIT_EXPECT_EQ(test, xa_err(xa_store(&other, 1ul << 40, xa_mk_value(1), GFP_KERNEL)), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, xa_empty(&other));
	KUNIT_EXPECT_NULL(test, xa_store(&other, 0, xa_mk_value(1), GFP_KERNEL));
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&other, 0), xa_mk_value(1));
	/* One failure only: the GFP_NOWAIT allocation under the lock; the
	 * retry's GFP_KERNEL one (lock dropped) gets a page. */
	fail_page_alloc.times = 1;
	unsigned long failures = fail_page_alloc.failures;
	KUNIT_EXPECT_NULL(test, xa_store(xa, failed, xa_mk_value(7), GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, fail_page_alloc.failures, failures + 1);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, failed), xa_mk_value(7));
	xa_fail_page_allocs_end(test);
	xa_destroy(&other);
	xa_case_end(test, xa, &start);
}

/* xa_destroy of a large sparse tree frees every node. */
static void destroy_frees_every_node(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	for (unsigned long i = 0; i < 2000; i++)
		KUNIT_ASSERT_NULL(test, xa_store(xa, i * i * 7919, xa_mk_value(i), GFP_KERNEL));
	KUNIT_EXPECT_GT(test, xa_nodes_in_use(), start.nodes + 100);
	xa_set_mark(xa, 7919, XA_MARK_0);
	xa_destroy(xa);
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
	KUNIT_EXPECT_FALSE(test, xa_marked(xa, XA_MARK_0));
	KUNIT_EXPECT_NULL(test, xa_load(xa, 7919));
	xa_case_end(test, xa, &start);
}

/* RCU readers on every CPU but one, and a writer growing the tree to
 * full height and shrinking it back, over and over: index 0 is always
 * there; every other index a reader looks at holds its own value or
 * nothing. Freed nodes are poisoned by their RCU callback, so a reader
 * that walked a node after its grace period would read garbage. */
#define RCU_ROUNDS 3000ul

static const unsigned long rcu_indices[] = { 5, 64, 4103, 1ul << 20, 1ul << 40, ~0ul };
/* What a reader saw that it should not have (for the report). */
static unsigned long rcu_bad_index, rcu_bad_how;
static void *rcu_bad_entry;

static int rcu_reader_saw(unsigned long index, void *entry, unsigned long how)
{
	rcu_bad_index = index;
	rcu_bad_entry = entry;
	rcu_bad_how = how;
	return 1;
}

static int rcu_reader_or_writer(struct test_worker *w)
{
	struct xarray *xa = w->crew->ctx;
	if (w->id == 0) {
		for (unsigned long r = 0; r < RCU_ROUNDS; r++) {
			for (size_t i = 0; i < ARRAY_SIZE(rcu_indices); i++)
				if ((r >> i) & 1)
					if (xa_is_err(xa_store(xa, rcu_indices[i], xa_mk_value(rcu_indices[i] >> 1),
							       GFP_KERNEL)))
						return 1;
			for (size_t i = ARRAY_SIZE(rcu_indices); i-- > 0;)
				xa_erase(xa, rcu_indices[(i + r) % ARRAY_SIZE(rcu_indices)]);
			test_crew_progress(w);
			cond_resched(); /* readers sharing this CPU (one CPU) run too */
		}
		test_crew_stop(w->crew);
		return 0;
	}
	int bad = 0;
	while (!test_crew_should_stop(w)) {
		rcu_read_lock();
		void *e0 = xa_load(xa, 0);
		if (e0 != xa_mk_value(0))
			bad = rcu_reader_saw(0, e0, 1);
		for (size_t i = 0; i < ARRAY_SIZE(rcu_indices); i++) {
			void *e = xa_load(xa, rcu_indices[i]);
			if (e && e != xa_mk_value(rcu_indices[i] >> 1))
				bad = rcu_reader_saw(rcu_indices[i], e, 2);
		}
		rcu_read_unlock();
		unsigned long index, n = 0;
		void *entry;
		xa_for_each(xa, index, entry) {
			if (n++ == 0 && (index != 0 || entry != xa_mk_value(0)))
				bad = rcu_reader_saw(index, entry, 3);
			if (index && entry != xa_mk_value(index >> 1))
				bad = rcu_reader_saw(index, entry, 4);
		}
		if (bad)
			return 1;
		test_crew_progress(w);
		/* Outside the read side: a quiescent state, and the writer's
		 * turn when it shares this CPU. */
		cond_resched();
	}
	return 0;
}

static struct test_crew rcu_crew;

static void rcu_readers_beside_a_writer(struct kunit *test)
{
	struct xa_case_start start;
	struct xarray *xa = xa_case_begin(test, &start);
	KUNIT_ASSERT_NULL(test, xa_store(xa, 0, xa_mk_value(0), GFP_KERNEL));
	unsigned cpus[NR_CPUS];
	unsigned n = test_online_cpus(cpus, false);
	test_crew_start_on(test, &rcu_crew, rcu_reader_or_writer, xa, cpus, n, n < 2 ? 2 : n);
	rcu_bad_how = 0;
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &rcu_crew), 0ul);
	if (rcu_bad_how)
		kunit_info(test, "a reader saw %p at index %#lx (check %lu: 1 xa_load of 0, 2 xa_load, "
			   "3 the first of xa_for_each, 4 a later one)", rcu_bad_entry, rcu_bad_index, rcu_bad_how);
	kunit_info(test, "%lu steps by a writer and %u readers", rcu_crew.progress, rcu_crew.n - 1);
	KUNIT_EXPECT_EQ(test, xa_height(xa), 0u);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, 0), xa_mk_value(0));
	xa_case_end(test, xa, &start);
}

static struct kunit_case xarray_cases[] = {
	KUNIT_CASE(store_load_erase_sparse),
	KUNIT_CASE(dense_store_find_erase),
	KUNIT_CASE(insert_busy_and_reserve),
	KUNIT_CASE(cmpxchg_replaces_only_the_expected),
	KUNIT_CASE(value_entries_round_trip),
	KUNIT_CASE(marks_follow_entries),
	KUNIT_CASE(xas_walks),
	KUNIT_CASE(store_without_memory_fails_cleanly),
	KUNIT_CASE(destroy_frees_every_node),
	KUNIT_CASE(rcu_readers_beside_a_writer),
	{}
};

static struct kunit_suite xarray_suite = {
	.name = "xarray",
	.test_cases = xarray_cases,
};
kunit_test_suite(xarray_suite);
