/* What bench_page_alloc.c shares with the peer allocators it measures in
 * the same run (tests/host/bench_peer_*.c): the figures, the clock and the
 * sink that keeps a result alive. */
#ifndef TESTS_HOST_BENCH_PAGE_ALLOC_H
#define TESTS_HOST_BENCH_PAGE_ALLOC_H

#include <time.h>

#define sink(p) __asm__ volatile("" ::"r"(p) : "memory")

/* CLOCK_MONOTONIC, or with --cpu-clock CLOCK_THREAD_CPUTIME_ID: on a
 * shared machine, the time the CPU spent on other programs while this one
 * waited is then not counted (what they leave in the caches still is). */
extern clockid_t bench_clock;

static inline unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(bench_clock, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

enum fig {
	FIG_HOT,
	FIG_BATCH,
	FIG_WORST0,
	FIG_ORDER9,
	FIG_ORDER9_SPLIT,
	FIG_ORDER18,
	FIG_FRAG9,
	NR_FIGS
};

/* A peer allocator, run on the same shapes as mmlab's figures, interleaved
 * with them in every run. can_run says which figures it has a shape for;
 * run returns ns per operation. A peer is linked only when its source is
 * at hand (it is built from a checkout outside the repository: see
 * host.mk), so it is declared weak: absent, its address is NULL. */
struct bench_peer {
	const char *name, *what;
	void (*setup)(void);
	bool (*can_run)(enum fig f);
	double (*run)(enum fig f, long iters);
	/* The same shapes with the lock mmlab's row takes (kernel/spinlock.h's
	 * spin_lock, around each half, as rmqueue takes the node's): for the
	 * figures that call mmlab's buddy layer under its lock. */
	bool (*can_run_locked)(enum fig f);
	double (*run_locked)(enum fig f, long iters);
};

extern const struct bench_peer tree_peer __attribute__((weak));

/* The hot pair's floor (tests/host/bench_floor.c), the per-CPU list's
 * operations alone: floor_init before the first run_floor, which returns
 * ns per pair (and is what tools/bench-icount.sh counts in). */
void floor_init(void);
double run_floor(long iters);

#endif
