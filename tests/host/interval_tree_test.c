/* Host test of the VMA interval tree (mm/interval_tree.c, the i_mmap of a
 * file) under ASan/UBSan: random VMAs (offsets and lengths, many of them
 * at one offset) inserted and removed at random, and after every step:
 *   - each node's rb_subtree_last is the largest last offset of its
 *     subtree, and an in-order walk goes by vm_pgoff;
 *   - a query of random offsets [first, last] returns exactly the VMAs a
 *     scan of every live VMA finds, each once, by vm_pgoff, VMAs at one
 *     offset in the order they were inserted (what fork's copy relies
 *     on: after its parent).
 * The i_mmap functions of the same file (vma_link_file and the rest) need
 * a file's locks; the VMA tests (tests/host/vma_test.c) run them. */
#include "mm/interval_tree.h"
#include "mm/mm_types.h"
#include "tests/host/ktest.h"

#include <stdlib.h>
#include <string.h>

#define PG 4096ul
#define NVMAS 600

/* interval_tree.c's i_mmap half takes the locks; nothing here calls it. */
void down_read(struct rw_semaphore *sem) { (void)sem; abort(); }
void up_read(struct rw_semaphore *sem) { (void)sem; abort(); }
void down_write(struct rw_semaphore *sem) { (void)sem; abort(); }
void up_write(struct rw_semaphore *sem) { (void)sem; abort(); }

static u64 rng_state = 0x2545f4914f6cdd1dull;
static unsigned long rnd(unsigned long n) { return (unsigned long)(ktest_xorshift64(&rng_state) % n); }

static struct vm_area_struct vmas[NVMAS];
static bool live[NVMAS];
static unsigned long inserted_at[NVMAS], clock_now;

static unsigned long last_of(const struct vm_area_struct *v)
{
	return v->vm_pgoff + ((v->vm_end - v->vm_start) / PG) - 1;
}

/* The subtree's largest last offset, counting wrong caches in *bad. */
static unsigned long check_subtree(struct rb_node *rb, unsigned long *bad)
{
	if (!rb)
		return 0;
	struct vm_area_struct *v = rb_entry(rb, struct vm_area_struct, shared.rb);
	unsigned long max = last_of(v), l = check_subtree(rb->rb_left, bad), r = check_subtree(rb->rb_right, bad);
	max = l > max ? l : max;
	max = r > max ? r : max;
	if (v->shared.rb_subtree_last != max)
		(*bad)++;
	return max;
}

static void check_tree(struct ktest *t, struct rb_root *root, unsigned long nr_live)
{
	unsigned long bad = 0, n = 0, prev = 0;
	check_subtree(root->rb_node, &bad);
	for (struct rb_node *rb = rb_first(root); rb; rb = rb_next(rb), n++) {
		struct vm_area_struct *v = rb_entry(rb, struct vm_area_struct, shared.rb);
		if (v->vm_pgoff < prev)
			bad++;
		prev = v->vm_pgoff;
	}
	KTEST_EXPECT_EQ(t, bad, 0);
	KTEST_EXPECT_EQ(t, n, nr_live);
}

/* A query against a scan: the same VMAs, each once, in (offset,
 * insertion) order. */
static void check_query(struct ktest *t, struct rb_root *root, unsigned long first, unsigned long last)
{
	static bool seen[NVMAS];
	memset(seen, 0, sizeof(seen));
	unsigned long found = 0, expected = 0, disorder = 0, dup = 0;
	const struct vm_area_struct *prev = NULL;
	struct vm_area_struct *v;
	vma_interval_tree_foreach(v, root, first, last) {
		unsigned long i = (unsigned long)(v - vmas);
		dup += seen[i];
		seen[i] = true;
		found++;
		if (v->vm_pgoff > last || last_of(v) < first)
			disorder++; /* not in the range at all */
		if (prev && (prev->vm_pgoff > v->vm_pgoff ||
			     (prev->vm_pgoff == v->vm_pgoff && inserted_at[prev - vmas] > inserted_at[i])))
			disorder++;
		prev = v;
	}
	for (unsigned long i = 0; i < NVMAS; i++) {
		bool meets = live[i] && vmas[i].vm_pgoff <= last && last_of(&vmas[i]) >= first;
		expected += meets;
		if (meets != seen[i])
			disorder++;
	}
	KTEST_EXPECT_EQ(t, found, expected);
	KTEST_EXPECT_EQ(t, dup, 0);
	KTEST_EXPECT_EQ(t, disorder, 0);
}

static void random_inserts_removes_and_queries(struct ktest *t)
{
	struct rb_root root = RB_ROOT;
	unsigned long nr_live = 0;
	for (unsigned long i = 0; i < NVMAS; i++) {
		/* A few offsets shared by many VMAs (fork's copies, pieces
		 * mapped twice), and some spread out. */
		unsigned long pgoff = rnd(4) ? rnd(64) * 16 : rnd(4096);
		unsigned long len = rnd(8) ? 1 + rnd(16) : 1 + rnd(2048);
		vmas[i].vm_start = 0x10000000ul + i * 0x10000000ul;
		vmas[i].vm_end = vmas[i].vm_start + len * PG;
		vmas[i].vm_pgoff = pgoff;
	}
	for (unsigned step = 0; step < 30000 && !t->failed; step++) {
		unsigned long i = rnd(NVMAS);
		if (live[i]) {
			vma_interval_tree_remove(&vmas[i], &root);
			live[i] = false;
			nr_live--;
		} else {
			vma_interval_tree_insert(&vmas[i], &root);
			live[i] = true;
			inserted_at[i] = ++clock_now;
			nr_live++;
		}
		unsigned long first = rnd(4200), last = first + (rnd(4) ? rnd(32) : rnd(4096));
		if (!rnd(50))
			last = ~0ul; /* to the end, as truncate asks */
		check_query(t, &root, first, last);
		if (step % 16 == 0)
			check_tree(t, &root, nr_live);
	}
	check_tree(t, &root, nr_live);
	check_query(t, &root, 0, ~0ul);
	for (unsigned long i = 0; i < NVMAS; i++)
		if (live[i])
			vma_interval_tree_remove(&vmas[i], &root);
	KTEST_EXPECT_TRUE(t, RB_EMPTY_ROOT(&root));
}

/* Edge cases: an empty tree, one VMA at its two ends and just outside,
 * the largest offsets. */
static void boundaries(struct ktest *t)
{
	struct rb_root root = RB_ROOT;
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_first(&root, 0, ~0ul) == NULL);
	struct vm_area_struct a = { .vm_start = 0x1000000, .vm_end = 0x1000000 + 4 * PG, .vm_pgoff = 10 };
	vma_interval_tree_insert(&a, &root);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_first(&root, 10, 10) == &a);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_first(&root, 13, 13) == &a);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_first(&root, 14, ~0ul) == NULL);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_first(&root, 0, 9) == NULL);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_next(&a, 0, ~0ul) == NULL);
	struct vm_area_struct b = { .vm_start = 0x2000000, .vm_end = 0x2000000 + PG, .vm_pgoff = ~0ul - 1 };
	vma_interval_tree_insert(&b, &root);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_first(&root, ~0ul - 1, ~0ul) == &b);
	KTEST_EXPECT_TRUE(t, vma_interval_tree_iter_next(vma_interval_tree_iter_first(&root, 0, ~0ul), 0, ~0ul) == &b);
	vma_interval_tree_remove(&a, &root);
	vma_interval_tree_remove(&b, &root);
	KTEST_EXPECT_TRUE(t, RB_EMPTY_ROOT(&root));
}

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(random_inserts_removes_and_queries),
		KTEST_CASE(boundaries),
	};
	return ktest_run_suite("host_interval_tree", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
