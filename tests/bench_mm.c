/* In-kernel benchmarks of the page allocator (boot with "bench"; `make bench`
 * does). They time the same shapes as the host-native benchmarks
 * (tests/host/bench_page_alloc.c) with the TSC, each figure the median of
 * repeated runs, beside a naive baseline (one global list of 4 KiB pages)
 * measured in the same run. Under QEMU's TCG these are emulated figures: they
 * show relative costs inside the emulator, not hardware speed. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/tsc.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "tests/bench.h"

static bool bench;
kernel_param_flag("bench", bench, "run the in-kernel mm benchmarks after boot, then halt");

#define RUNS 9

u64 bench_median(u64 *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) /* insertion sort: n is tiny */
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			u64 t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* Naive baseline: one global singly linked list of 4 KiB pages. */
struct naive_page {
	struct naive_page *next;
};
static struct naive_page *naive_head;

static inline void *naive_alloc(void)
{
	struct naive_page *p = naive_head;
	if (p)
		naive_head = p->next;
	return p;
}
static inline void naive_free(void *v)
{
	struct naive_page *p = v;
	p->next = naive_head;
	naive_head = p;
}

/* Picoseconds per operation: ns would round the fast cases to nothing. */
static u64 ps_per_op(u64 cycles, u64 ops) { return tsc_cycles_to_ns(cycles * 1000) / ops; }

static void report(const char *what, u64 ps, u64 naive_ps)
{
	if (naive_ps)
		pr_info("  %-46s %7lu.%01lu ns   naive %5lu.%01lu ns   ratio %3lu.%01lu\n", what,
			ps / 1000, ps % 1000 / 100, naive_ps / 1000, naive_ps % 1000 / 100,
			ps / naive_ps, ps * 10 / naive_ps % 10);
	else
		pr_info("  %-46s %7lu.%01lu ns\n", what, ps / 1000, ps % 1000 / 100);
}

static void bench_hot_pair(int nid)
{
	const u64 iters = 20000;
	u64 t[RUNS], n[RUNS];
	for (int r = 0; r < RUNS; r++) {
		u64 s = rdtsc();
		for (u64 i = 0; i < iters; i++) {
			struct page *p = alloc_pages_node(nid, GFP_KERNEL, 0);
			__free_pages(p, 0);
		}
		t[r] = ps_per_op(rdtsc() - s, iters);
		s = rdtsc();
		for (u64 i = 0; i < iters; i++) {
			void *p = naive_alloc();
			barrier();
			naive_free(p);
		}
		n[r] = ps_per_op(rdtsc() - s, iters);
	}
	report("order-0 alloc+free pair, hot (per-CPU list)", bench_median(t, RUNS),
	       bench_median(n, RUNS));
}

static void bench_batch(int nid)
{
	static struct page *pages[1000];
	static void *naive[1000];
	u64 t[RUNS], n[RUNS];
	for (int r = 0; r < RUNS; r++) {
		u64 s = rdtsc();
		for (int i = 0; i < 1000; i++)
			pages[i] = alloc_pages_node(nid, GFP_KERNEL, 0);
		for (int i = 0; i < 1000; i++)
			__free_pages(pages[i], 0);
		t[r] = ps_per_op(rdtsc() - s, 1000);
		s = rdtsc();
		for (int i = 0; i < 1000; i++)
			naive[i] = naive_alloc();
		for (int i = 0; i < 1000; i++)
			naive_free(naive[i]);
		n[r] = ps_per_op(rdtsc() - s, 1000);
	}
	report("1,000 order-0 allocs then 1,000 frees, per pair", bench_median(t, RUNS),
	       bench_median(n, RUNS));
}

/* An arena: a private pg_data_t holding one block, so the buddy layer can be
 * timed on a known shape without disturbing the node's own lists. Its pages
 * are relabelled with an unused node id, so no merge ever reaches past the
 * block into the real node's free lists (merging checks the node). */
#define ARENA_NID (MAX_NUMNODES - 1)
static pg_data_t arena;

static void relabel(struct page *block, unsigned order, int nid)
{
	for (unsigned long i = 0; i < (1ul << order); i++)
		set_page_node(&block[i], nid);
}

static bool arena_setup(int nid, unsigned order, struct page **block)
{
	if (node_data[ARENA_NID])
		return false;
	*block = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, order);
	if (!*block)
		return false;
	struct page *b = *block;
	/* Its pageblock flags, all movable: a byte per 2 MiB, up to 1 GiB. */
	static u8 arena_pageblock_flags[1ul << (MAX_PAGE_ORDER - pageblock_order)];
	unsigned long nr_blocks = pageblock_flags_size(page_to_pfn(b), page_to_pfn(b) + (1ul << order));
	memset(arena_pageblock_flags, MIGRATE_MOVABLE, nr_blocks);
	arena.pageblock_flags = arena_pageblock_flags;
	page_alloc_init_node(&arena, ARENA_NID, page_to_pfn(b), page_to_pfn(b) + (1ul << order));
	node_data[ARENA_NID] = NULL; /* private: not a node the allocator knows */
	relabel(b, order, ARENA_NID);
	b->flags &= ~PAGE_FLAGS_MASK;
	b->_refcount = 0;
	b->private = 0;
	__free_one_page(b, page_to_pfn(b), &arena, order, MIGRATE_MOVABLE);
	return true;
}

static void arena_teardown(struct page *block, unsigned order, int nid)
{
	struct page *b = __rmqueue_smallest(&arena, order, MIGRATE_MOVABLE);
	if (b != block)
		pr_err("bench: the arena did not merge back into one block\n");
	relabel(block, order, nid);
	block->_refcount = 1;
	block->flags |= 1ul << PG_head;
	block->private = order;
	__free_pages(block, order);
}

/* The home node if it has a free block of this order, else another. */
static int node_with_block(int home, unsigned order)
{
	if (node_free_blocks(home, order))
		return home;
	for (int n = 0; n < (int)num_online_nodes(); n++)
		if (node_free_blocks(n, order))
			return n;
	return NUMA_NO_NODE;
}

static void bench_buddy_pair(int home, unsigned block_order, unsigned order, const char *what)
{
	struct page *block;
	int nid = node_with_block(home, block_order);
	if (nid == NUMA_NO_NODE || !arena_setup(nid, block_order, &block)) {
		pr_info("  %-46s n/a: no free order-%u block on any node\n", what, block_order);
		return;
	}
	const u64 iters = 5000;
	u64 t[RUNS];
	for (int r = 0; r < RUNS; r++) {
		u64 s = rdtsc();
		for (u64 i = 0; i < iters; i++) {
			struct page *p = __rmqueue_smallest(&arena, order, MIGRATE_MOVABLE);
			__free_one_page(p, page_to_pfn(p), &arena, order, MIGRATE_MOVABLE);
		}
		t[r] = ps_per_op(rdtsc() - s, iters);
	}
	arena_teardown(block, block_order, nid);
	report(what, bench_median(t, RUNS), 0);
}

/* Fill a node with order-0 pages, free every other one, time the failing
 * order-9 attempt through the whole allocator. */
static void bench_fragmented(int nid)
{
	LIST_HEAD(held);
	unsigned long count = 0;
	struct page *p;
	while ((p = alloc_pages_node(nid, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 0))) {
		list_add(&p->lru, &held);
		count++;
	}
	struct page *pos, *tmp;
	list_for_each_entry_safe(pos, tmp, &held, lru) {
		if (page_to_pfn(pos) & 1) {
			list_del(&pos->lru);
			__free_pages(pos, 0);
		}
	}
	drain_all_pages();
	const u64 iters = 2000;
	u64 t[RUNS];
	unsigned long successes = 0;
	for (int r = 0; r < RUNS; r++) {
		u64 s = rdtsc();
		for (u64 i = 0; i < iters; i++) {
			struct page *q = alloc_pages_node(nid, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 9);
			if (q) {
				successes++;
				__free_pages(q, 9);
			}
		}
		t[r] = ps_per_op(rdtsc() - s, iters);
	}
	list_for_each_entry_safe(pos, tmp, &held, lru) {
		list_del(&pos->lru);
		__free_pages(pos, 0);
	}
	char what[64];
	snprintf(what, sizeof(what), "failing order-9, fragmented (%lu pages)", count);
	report(what, bench_median(t, RUNS), 0);
	if (successes)
		pr_warn("  (the order-9 attempt succeeded %lu times: the node was not fragmented)\n", successes);
}

static int run_kernel_benchmarks(void)
{
	if (!bench)
		return 0;
	int nid = numa_node_id();
	if (!node_data[nid] || !node_data[nid]->managed_pages)
		nid = node_data[nid]->fallback[0];
	u64 khz = tsc_calibrate();
	pr_info("\n==== in-kernel benchmarks (EMULATED under TCG unless run with ACCEL=kvm) ====\n");
	pr_info("TSC %lu.%03lu MHz (PIT calibration); node %d; medians of %d runs\n", khz / 1000,
		khz % 1000, nid, RUNS);
	if (!khz) {
		pr_err("bench: the TSC could not be calibrated; no figures\n");
		return 0;
	}
	/* The naive baseline's pages. */
	for (int i = 0; i < 1000; i++) {
		struct page *p = alloc_pages_node(nid, GFP_KERNEL, 0);
		if (p)
			naive_free(page_address(p));
	}
	bench_hot_pair(nid);
	bench_batch(nid);
	bench_buddy_pair(nid, 17, 0, "order-0 pair, only free block 512 MiB (worst)");
	bench_buddy_pair(nid, 10, 9, "order-9 alloc+free pair");
	bench_buddy_pair(nid, MAX_PAGE_ORDER, MAX_PAGE_ORDER, "order-18 alloc+free pair");
	bench_fragmented(nid);
	void *v;
	while ((v = naive_alloc()))
		free_page((unsigned long)v);
	run_vmalloc_benchmarks();
	run_smp_benchmarks();
	run_user_benchmarks();
	pr_info("==== end of benchmarks ====\n");
	return 0;
}
late_initcall(run_kernel_benchmarks);
