/* A peer for bench_page_alloc: cloudwu/buddy (https://github.com/cloudwu/
 * buddy), a public buddy allocator that keeps one byte per node of a
 * binary tree over the whole arena (unused, used, split, full), allocates
 * by walking down from the root and frees by walking down to the block and
 * then up while buddies are unused. Single-threaded, no lock, no per-page
 * state: what a tree costs against per-order free lists threaded through
 * struct pages.
 *
 * It carries no license, so it is not copied into this repository: host.mk
 * compiles buddy.c from a checkout named by CLOUDWU_BUDDY (-O2 -DNDEBUG)
 * and links it with this file. Units are pages, so each figure's shape is
 * mmlab's:
 *   order0_worst_pair   a 2^17-page arena, empty: 1 page (17 splits, 17 merges)
 *   order9_pair         a 2^17-page arena with one order-9 block held: its
 *                       buddy, taken and given back with no split or merge
 *   order9_split_pair   a 2^17-page arena, empty: 512 pages (8 splits)
 *   order18_pair        a 2^18-page arena, empty: all of it
 * (mmlab's order-9 block on node 0 sits beside the reserved first MiB, so
 * it is neither split nor merged either.) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/spinlock.h"
#include "tests/host/bench_page_alloc.h"

/* buddy.h's declarations, the two this file uses. */
struct buddy;
struct buddy *buddy_new(int level);
int buddy_alloc(struct buddy *, int size);
void buddy_free(struct buddy *, int offset);

static struct buddy *arena17, *arena17_held, *arena18;

static void tree_setup(void)
{
	arena17 = buddy_new(17);
	arena17_held = buddy_new(17);
	arena18 = buddy_new(18);
	if (!arena17 || !arena17_held || !arena18 || buddy_alloc(arena17_held, 512) != 0) {
		fprintf(stderr, "bench_page_alloc: the tree allocator could not be set up\n");
		exit(2);
	}
}

static bool tree_can_run(enum fig f)
{
	return f == FIG_WORST0 || f == FIG_ORDER9 || f == FIG_ORDER9_SPLIT || f == FIG_ORDER18;
}

static double tree_run(enum fig f, long iters)
{
	struct buddy *b = f == FIG_ORDER9 ? arena17_held : f == FIG_ORDER18 ? arena18 : arena17;
	int size = f == FIG_WORST0 ? 1 : f == FIG_ORDER18 ? 1 << 18 : 512;
	unsigned long long t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		int off = buddy_alloc(b, size);
		sink(off);
		buddy_free(b, off);
	}
	return (double)(now_ns() - t0) / (double)iters;
}

static bool tree_can_run_locked(enum fig f)
{
	return f == FIG_WORST0 || f == FIG_ORDER9_SPLIT;
}

/* A tree in a kernel would take a lock around it as the buddy lists do:
 * the lock mmlab's buddy-layer rows take, around each half. */
static spinlock_t tree_lock;

static double tree_run_locked(enum fig f, long iters)
{
	struct buddy *b = arena17;
	int size = f == FIG_WORST0 ? 1 : 512;
	unsigned long long t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		spin_lock(&tree_lock);
		int off = buddy_alloc(b, size);
		spin_unlock(&tree_lock);
		sink(off);
		spin_lock(&tree_lock);
		buddy_free(b, off);
		spin_unlock(&tree_lock);
	}
	return (double)(now_ns() - t0) / (double)iters;
}

const struct bench_peer tree_peer = {
	.name = "tree",
	.what = "cloudwu/buddy, a byte per node of a tree over the arena",
	.setup = tree_setup,
	.can_run = tree_can_run,
	.run = tree_run,
	.can_run_locked = tree_can_run_locked,
	.run_locked = tree_run_locked,
};
