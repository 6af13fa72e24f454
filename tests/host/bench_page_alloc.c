/* Host-native benchmarks of mm/page_alloc.c (built with -O2, no sanitizers),
 * each beside a naive baseline measured in the same run: one global singly
 * linked list of 4 KiB pages threaded through the pages themselves (alloc =
 * pop, free = push), as a teaching kernel has it.
 *
 * "Physical memory" (an mmap with MAP_NORESERVE; pfn 0 is its start), four
 * nodes, pg_data_t outside them:
 *   node 0  [0, 1 GiB)         the first MiB reserved: blocks of order 8..17;
 *                              the CPU's node (hot order-0, order 9)
 *   node 1  [1 GiB, 2.5 GiB)   one order-18 block and one order-17 (order 18)
 *   node 2  [2.5 GiB, 3 GiB)   exactly one order-17 block (worst order-0 and
 *                              the order-9 split, in the buddy layer)
 *   node 3  [3 GiB, +256 MiB)  filled with order-0 pages, every other one
 *                              freed (failing order-9)
 *
 * When built with a peer allocator (tests/host/bench_peer_tree.c: a tree
 * over the arena, compiled from a checkout outside the repository), the
 * peer runs the same shapes in the same runs, right after mmlab's, so the
 * machine's noise hits all three alike; the buddy-layer rows run it a
 * second time with the lock mmlab's rows take ("tree+lock"). The hot pair
 * has a second baseline of its own, the floor: a model of the per-CPU
 * list's operations alone (tests/host/bench_floor.c).
 *
 * Each figure is the median over --runs runs (default 15) of the mean time
 * per operation over many iterations, timed with CLOCK_MONOTONIC (or, with
 * --cpu-clock, the thread's CPU time, for a shared machine); min, max
 * and the quartiles are reported too. With --processes N the runs are made
 * in N processes one after another, each a new exec (run_processes), and
 * the median is over all of them. The benchmark reports; it never fails
 * (exit status 0 unless it could not run). */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include "kernel/spinlock.h"
#include "mm/page_alloc.h"
#include "tests/host/bench_page_alloc.h"
#include "tests/host/shim.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the naive baseline ------------------------------------------------ */

struct run {
	struct run *next;
};
static struct run *naive_head;
static u8 *naive_mem;
#define NAIVE_PAGES 4096

/* The baselines' functions (these and the floor's, bench_floor.c) start
 * a cache line, so that where the linker puts them does not move their
 * time: the naive pair took 2.5 or 2.7 ns on one machine as the code
 * before it grew. */
__attribute__((noinline, aligned(64))) static void *naive_alloc(void)
{
	struct run *r = naive_head;
	if (r)
		naive_head = r->next;
	return r;
}

__attribute__((noinline, aligned(64))) static void naive_free(void *p)
{
	struct run *r = p;
	r->next = naive_head;
	naive_head = r;
}

static void naive_init(void)
{
	naive_mem = aligned_alloc(PAGE_SIZE, NAIVE_PAGES * PAGE_SIZE);
	if (!naive_mem) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(naive_mem, 0, NAIVE_PAGES * PAGE_SIZE);
	for (long i = NAIVE_PAGES - 1; i >= 0; i--)
		naive_free(naive_mem + i * PAGE_SIZE);
}

/* ---- timing -------------------------------------------------------------- */

clockid_t bench_clock = CLOCK_MONOTONIC;

#define BATCH 1000
static struct page *batch_pages[BATCH];
static void *batch_naive[BATCH];

struct figure {
	const char *key, *name, *naive_what;
	double target_ns;     /* 0: no target */
	double target_ratio;  /* 0: none */
	bool target_peer;     /* at most the peer's time, when a peer ran */
	long iters;           /* operations (pairs) per timed run */
	double *ns, *naive_ns, *peer_ns;
	double *floor_ns;       /* the per-CPU list's operations alone (FIG_HOT) */
	double *peer_locked_ns; /* the peer with the node lock around each half */
};

static struct figure figs[NR_FIGS] = {
	[FIG_HOT] = { "order0_hot_pair", "order-0 alloc+free, per-CPU list (hot)", "pop+push", 15, 1.5,
		      false, 2000000 },
	[FIG_BATCH] = { "order0_batch1000_pair", "1000 order-0 allocs, then 1000 frees (per pair)",
			"1000 pops, 1000 pushes", 20, 0, false, 400 },
	[FIG_WORST0] = { "order0_worst_pair", "order-0 from a lone order-17 block (buddy layer)",
			 "pop+push", 100, 0, true, 500000 },
	[FIG_ORDER9] = { "order9_pair", "order-9 alloc+free (THP-order per-CPU list)", "pop+push", 25, 0,
			 true, 1000000 },
	[FIG_ORDER9_SPLIT] = { "order9_split_pair", "order-9 split from order 17 (buddy layer)",
			       "pop+push", 0, 0, true, 500000 },
	[FIG_ORDER18] = { "order18_pair", "order-18 (1 GiB) alloc+free", "pop+push", 50, 0, false, 1000000 },
	[FIG_FRAG9] = { "order9_fragmented_fail", "failing order-9, node fragmented (THISNODE)",
			"pop from an empty list", 30, 0, false, 500000 },
};

/* One timed pass of the naive baseline for figure f: ns per operation. */
static double run_naive(enum fig f, long iters)
{
	u64 t0, t1;
	if (f == FIG_BATCH) {
		t0 = now_ns();
		for (long r = 0; r < iters; r++) {
			for (int i = 0; i < BATCH; i++)
				batch_naive[i] = naive_alloc();
			for (int i = 0; i < BATCH; i++)
				naive_free(batch_naive[i]);
		}
		t1 = now_ns();
		return (double)(t1 - t0) / ((double)iters * BATCH);
	}
	if (f == FIG_FRAG9) {
		struct run *saved = naive_head;
		naive_head = NULL;
		t0 = now_ns();
		for (long i = 0; i < iters; i++)
			sink(naive_alloc());
		t1 = now_ns();
		naive_head = saved;
		return (double)(t1 - t0) / (double)iters;
	}
	t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		void *p = naive_alloc();
		sink(p);
		naive_free(p);
	}
	t1 = now_ns();
	return (double)(t1 - t0) / (double)iters;
}

static double run_buddy(enum fig f, long iters)
{
	u64 t0, t1;
	switch (f) {
	case FIG_HOT:
		t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			struct page *p = alloc_pages_node(0, GFP_KERNEL, 0);
			sink(p);
			__free_pages(p, 0);
		}
		t1 = now_ns();
		break;
	case FIG_BATCH:
		t0 = now_ns();
		for (long r = 0; r < iters; r++) {
			for (int i = 0; i < BATCH; i++)
				batch_pages[i] = alloc_pages_node(0, GFP_KERNEL, 0);
			for (int i = 0; i < BATCH; i++)
				__free_pages(batch_pages[i], 0);
		}
		t1 = now_ns();
		return (double)(t1 - t0) / ((double)iters * BATCH);
	case FIG_WORST0:
	case FIG_ORDER9_SPLIT: {
		/* The buddy layer itself, the node lock around each half as
		 * rmqueue takes it: alloc_pages would serve the order-9 pair
		 * from the per-CPU THP-order list after the first split. */
		pg_data_t *pgdat = NODE_DATA(2);
		unsigned int order = f == FIG_WORST0 ? 0 : 9;
		t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			spin_lock(&pgdat->lock);
			struct page *p = __rmqueue_smallest(pgdat, order, MIGRATE_MOVABLE);
			spin_unlock(&pgdat->lock);
			sink(p);
			spin_lock(&pgdat->lock);
			__free_one_page(p, page_to_pfn(p), pgdat, order, MIGRATE_MOVABLE);
			spin_unlock(&pgdat->lock);
		}
		t1 = now_ns();
		break;
	}
	case FIG_ORDER9: {
		t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			struct page *p = alloc_pages_node(0, GFP_KERNEL, 9);
			sink(p);
			__free_pages(p, 9);
		}
		t1 = now_ns();
		break;
	}
	case FIG_ORDER18:
		t0 = now_ns();
		for (long i = 0; i < iters; i++) {
			struct page *p = alloc_pages_node(1, GFP_KERNEL, 18);
			sink(p);
			__free_pages(p, 18);
		}
		t1 = now_ns();
		break;
	case FIG_FRAG9:
		t0 = now_ns();
		for (long i = 0; i < iters; i++)
			sink(alloc_pages_node(3, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 9));
		t1 = now_ns();
		break;
	default:
		return 0;
	}
	return (double)(t1 - t0) / (double)iters;
}

/* Run r of every figure. Runs interleave the figures, and within a figure
 * the baseline, the allocator and the peer, so drift affects them alike. */
static void run_figures(int r, const char *only, const struct bench_peer *peer)
{
	for (int f = 0; f < NR_FIGS; f++) {
		if (only && strcmp(only, figs[f].key))
			continue;
		figs[f].naive_ns[r] = run_naive(f, figs[f].iters);
		figs[f].ns[r] = run_buddy(f, figs[f].iters);
		if (figs[f].floor_ns)
			figs[f].floor_ns[r] = run_floor(figs[f].iters);
		if (figs[f].peer_ns)
			figs[f].peer_ns[r] = peer->run(f, figs[f].iters);
		if (figs[f].peer_locked_ns)
			figs[f].peer_locked_ns[r] = peer->run_locked(f, figs[f].iters);
	}
}

/* ---- setup ----------------------------------------------------------------- */

static struct page **frag_held;
static unsigned long frag_n;

static void fail_setup(const char *what)
{
	fprintf(stderr, "bench_page_alloc: setup: %s\n", what);
	exit(2);
}

static void setup(void)
{
	struct host_mm_config cfg = {
		.nr_nodes = 4,
		.node_bytes = { GiB(1), GiB(1) + MiB(512), MiB(512), MiB(256) },
		.static_pgdat = true,
	};
	host_mem_init(GiB(3) + MiB(256));
	host_mm_boot(&cfg);
	if (node_free_blocks(1, 18) != 1)
		fail_setup("node 1 has no order-18 block");
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
		if (node_free_blocks(2, o) != (o == 17))
			fail_setup("node 2 is not exactly one order-17 block");
	if (node_free_blocks(0, 9) < 1)
		fail_setup("node 0 has no order-9 block");

	/* Fragment node 3: take every page (GFP_ATOMIC may dip below min),
	 * then free every other pfn. */
	unsigned long n3 = host_node_end_pfn(3) - host_node_start_pfn(3);
	frag_held = calloc(n3, sizeof(*frag_held));
	struct page *p;
	while (frag_n < n3 &&
	       (p = alloc_pages_node(3, GFP_ATOMIC | __GFP_THISNODE | __GFP_NOWARN, 0)))
		frag_held[frag_n++] = p;
	unsigned long kept = 0;
	for (unsigned long i = 0; i < frag_n; i++) {
		if (page_to_pfn(frag_held[i]) % 2 == 0)
			__free_pages(frag_held[i], 0);
		else
			frag_held[kept++] = frag_held[i];
	}
	frag_n = kept;
	drain_all_pages();
	for (unsigned o = 9; o < NR_PAGE_ORDERS; o++)
		if (node_free_blocks(3, o))
			fail_setup("node 3 still has a block of order >= 9");
	if (alloc_pages_node(3, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 9))
		fail_setup("order 9 on the fragmented node succeeded");
}

/* ---- statistics and output ------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct stats {
	double median, min, max, q1, q3;
};

static double quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;
	double frac = pos - i;
	return i + 1 < n ? sorted[i] * (1 - frac) + sorted[i + 1] * frac : sorted[i];
}

static struct stats stats_of(const double *v, int n)
{
	double *s = malloc((size_t)n * sizeof(*s));
	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	struct stats st = { quantile(s, n, 0.5), s[0], s[n - 1], quantile(s, n, 0.25),
			    quantile(s, n, 0.75) };
	free(s);
	return st;
}

static void cpu_name(char *buf, size_t size)
{
	snprintf(buf, size, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c += 2;
				c[strcspn(c, "\n")] = 0;
				snprintf(buf, size, "%s", c);
			}
			break;
		}
	fclose(f);
}

/* ---- several processes ------------------------------------------------------ */

/* A figure's sample arrays, in the order a child writes them. */
static double **sample_arrays(struct figure *g, double **a)
{
	a[0] = g->ns;
	a[1] = g->naive_ns;
	a[2] = g->peer_ns;
	a[3] = g->peer_locked_ns;
	a[4] = g->floor_ns;
	return a;
}
#define NR_SAMPLE_ARRAYS 5

/* A child of --processes: every figure's runs, raw, on stdout. */
static void dump_samples(int runs)
{
	for (int f = 0; f < NR_FIGS; f++) {
		double *a[NR_SAMPLE_ARRAYS];
		sample_arrays(&figs[f], a);
		for (int k = 0; k < NR_SAMPLE_ARRAYS; k++)
			if (a[k] && fwrite(a[k], sizeof(double), (size_t)runs, stdout) != (size_t)runs)
				exit(2);
	}
	fflush(stdout);
}

/* --processes N: the same benchmark in N processes, one after another, each
 * a new exec and so a new layout of the address space (ASLR). Within one
 * process the buddy-layer rows repeat their time, but from one process to
 * the next they took 34 to 83 ns for the same split (docs/benchmarks.md):
 * where the stack, the code and the data fall decides which loads wait on
 * stores with the same low address bits. The samples of all the processes
 * go into one median. Returns false when a child failed. */
static bool run_processes(int argc, char **argv, int processes, int runs)
{
	char **cargv = calloc((size_t)argc + 2, sizeof(*cargv));
	int n = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--processes")) {
			i++;
			continue;
		}
		cargv[n++] = argv[i];
	}
	cargv[n++] = "--dump-samples";
	cargv[n] = NULL;
	bool ok = true;
	for (int p = 0; p < processes && ok; p++) {
		int fds[2];
		if (pipe(fds)) {
			perror("pipe");
			ok = false;
			break;
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			close(fds[0]);
			close(fds[1]);
			ok = false;
			break;
		}
		if (pid == 0) {
			dup2(fds[1], 1);
			close(fds[0]);
			close(fds[1]);
			execv("/proc/self/exe", cargv);
			perror("execv /proc/self/exe");
			_exit(2);
		}
		close(fds[1]);
		FILE *in = fdopen(fds[0], "r");
		ok = in != NULL;
		for (int f = 0; f < NR_FIGS && ok; f++) {
			double *a[NR_SAMPLE_ARRAYS];
			sample_arrays(&figs[f], a);
			for (int k = 0; k < NR_SAMPLE_ARRAYS && ok; k++)
				if (a[k])
					ok = fread(a[k] + (size_t)p * (size_t)runs, sizeof(double), (size_t)runs, in) ==
					     (size_t)runs;
		}
		if (in)
			fclose(in);
		else
			close(fds[0]);
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) || !ok) {
			fprintf(stderr, "bench_page_alloc: process %d of %d failed\n", p + 1, processes);
			ok = false;
		}
	}
	free(cargv);
	return ok;
}

int main(int argc, char **argv)
{
	const char *text_path = NULL, *json_path = NULL, *only = NULL;
	int runs = 15, processes = 1;
	bool dump = false;
	double scale = 1;
	bool no_peer = !&tree_peer;
	/* A benchmark measures the allocator, not its debug aids: the node
	 * lock's misuse checks are off, as on the kernel's benchmark boots. */
	spinlock_debug = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--text") && i + 1 < argc)
			text_path = argv[++i];
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json_path = argv[++i];
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = atof(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i]; /* one figure, for profiling */
		else if (!strcmp(argv[i], "--cpu-clock"))
			bench_clock = CLOCK_THREAD_CPUTIME_ID;
		else if (!strcmp(argv[i], "--processes") && i + 1 < argc)
			processes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dump-samples"))
			dump = true; /* a child of --processes */
		else if (!strcmp(argv[i], "--no-peer"))
			no_peer = true; /* mmlab and the naive list alone, for profiling */
		else {
			fprintf(stderr, "usage: %s [--text FILE] [--json FILE] [--runs N] [--scale X] [--only KEY] [--no-peer] [--cpu-clock] [--processes N]\n",
				argv[0]);
			return 2;
		}
	}
	if (runs < 1)
		runs = 1;
	if (processes < 1)
		processes = 1;
	console_loglevel = 3;

	/* Stay on one CPU: migrations show up as noise. */
	cpu_set_t set;
	int cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);

	const struct bench_peer *peer = no_peer ? NULL : &tree_peer;
	/* Every figure's samples: the runs of every process. */
	size_t samples = (size_t)runs * (size_t)processes;
	for (int f = 0; f < NR_FIGS; f++) {
		figs[f].iters = (long)(figs[f].iters * scale) > 0 ? (long)(figs[f].iters * scale) : 1;
		figs[f].ns = calloc(samples, sizeof(double));
		figs[f].naive_ns = calloc(samples, sizeof(double));
		if (peer && peer->can_run(f))
			figs[f].peer_ns = calloc(samples, sizeof(double));
		if (peer && peer->can_run_locked(f))
			figs[f].peer_locked_ns = calloc(samples, sizeof(double));
		if (f == FIG_HOT)
			figs[f].floor_ns = calloc(samples, sizeof(double));
	}
	if (processes > 1) {
		if (!run_processes(argc, argv, processes, runs))
			return 2;
	} else {
		naive_init();
		floor_init();
		setup();
		if (peer)
			peer->setup();
		for (int f = 0; f < NR_FIGS; f++) {
			if (only && strcmp(only, figs[f].key))
				continue;
			/* Warm up: caches, the per-CPU list, the page tables of the buffer. */
			run_naive(f, figs[f].iters / 4 + 1);
			run_buddy(f, figs[f].iters / 4 + 1);
			if (figs[f].floor_ns)
				run_floor(figs[f].iters / 4 + 1);
			if (figs[f].peer_ns)
				peer->run(f, figs[f].iters / 4 + 1);
			if (figs[f].peer_locked_ns)
				peer->run_locked(f, figs[f].iters / 4 + 1);
		}
		for (int r = 0; r < runs; r++)
			run_figures(r, only, peer);
		if (dump) {
			dump_samples(runs);
			return 0;
		}
	}

	/* For instruction counts (tools/bench-icount.sh): the operations
	 * run_buddy (and the peer's run) made for the figure, warm-up
	 * included, so a count inside them divides into a count per pair. */
	if (only && processes == 1)
		for (int f = 0; f < NR_FIGS; f++)
			if (!strcmp(only, figs[f].key))
				fprintf(stderr, "bench_page_alloc: %s: %ld operations per allocator\n", only,
					(figs[f].iters / 4 + 1 + runs * figs[f].iters) * (f == FIG_BATCH ? BATCH : 1));

	char cpuname[128], head[640], how_many[96];
	cpu_name(cpuname, sizeof(cpuname));
	if (processes > 1)
		snprintf(how_many, sizeof(how_many), "%d processes of %d run%s per figure (each a new ASLR layout)",
			 processes, runs, runs == 1 ? "" : "s");
	else
		snprintf(how_many, sizeof(how_many), "%d run%s per figure", runs, runs == 1 ? "" : "s");
	snprintf(head, sizeof(head),
		 "mmlab page allocator, host-native (gcc -O2, the kernel's code generation, no CONFIG_DEBUG_VM, no sanitizers)\n"
		 "CPU: %s, pinned to CPU %d; %s, median of per-run means; %s\n"
		 "naive = one global singly linked list of 4 KiB pages (pop/push), same run\n"
		 "%s%s%s",
		 cpuname, cpu, how_many,
		 bench_clock == CLOCK_MONOTONIC ? "wall-clock time" : "the thread's CPU time (--cpu-clock)", peer ? "tree = " : "", peer ? peer->what : "",
		 peer ? ", same shapes, same run; vs tree = mmlab / tree\n" : "");
	FILE *outs[2] = { stdout, text_path ? fopen(text_path, "w") : NULL };
	if (text_path && !outs[1])
		perror(text_path);
	FILE *json = json_path ? fopen(json_path, "w") : NULL;
	if (json_path && !json)
		perror(json_path);
	if (json)
		fprintf(json, "{\n  \"benchmark\": \"page_alloc\",\n  \"measured\": \"host-native\",\n"
			      "  \"cpu\": \"%s\",\n  \"runs\": %d,\n  \"processes\": %d,\n  \"unit\": \"ns\",\n  \"figures\": [\n",
			cpuname, (int)samples, processes);
	for (int o = 0; o < 2; o++) {
		if (!outs[o])
			continue;
		fprintf(outs[o], "%s\n", head);
		fprintf(outs[o], "%-50s %8s %17s %8s %7s %8s %7s %9s %9s %11s %s\n", "figure", "median", "min..max",
			"naive", "ratio", "tree", "vs tree", "tree+lock", "vs locked", "target", "met");
	}
	bool json_first = true;
	char floor_line[256];
	int floor_line_len = 0;
	for (int f = 0; f < NR_FIGS; f++) {
		struct figure *g = &figs[f];
		if (only && strcmp(only, g->key))
			continue;
		struct stats s = stats_of(g->ns, (int)samples), n = stats_of(g->naive_ns, (int)samples), p = { 0 };
		double ratio = n.median > 0 ? s.median / n.median : 0;
		char peer_col[16] = "-", vs_peer[16] = "-", peer_json[128] = "null";
		char locked_col[16] = "-", vs_locked[16] = "-", locked_json[128] = "null", floor_json[160] = "null";
		if (g->peer_locked_ns) {
			struct stats l = stats_of(g->peer_locked_ns, (int)samples);
			snprintf(locked_col, sizeof(locked_col), "%.1f", l.median);
			snprintf(vs_locked, sizeof(vs_locked), "%.2fx", l.median > 0 ? s.median / l.median : 0);
			snprintf(locked_json, sizeof(locked_json),
				 "{\"name\": \"%s\", \"median\": %.2f, \"min\": %.2f, \"max\": %.2f}",
				 peer->name, l.median, l.min, l.max);
		}
		if (g->floor_ns) {
			struct stats fl = stats_of(g->floor_ns, (int)samples);
			snprintf(floor_json, sizeof(floor_json),
				 "{\"what\": \"the per-CPU list's operations alone\", \"median\": %.2f, \"min\": %.2f, "
				 "\"max\": %.2f}", fl.median, fl.min, fl.max);
			floor_line_len = snprintf(floor_line, sizeof(floor_line),
				 "floor of the hot pair, the per-CPU list's own operations alone (a model: no lookups): "
				 "%.1f ns, %.2fx naive; the hot pair is %.2fx the floor\n",
				 fl.median, n.median > 0 ? fl.median / n.median : 0, fl.median > 0 ? s.median / fl.median : 0);
		}
		if (g->peer_ns) {
			p = stats_of(g->peer_ns, (int)samples);
			snprintf(peer_col, sizeof(peer_col), "%.1f", p.median);
			snprintf(vs_peer, sizeof(vs_peer), "%.2fx", p.median > 0 ? s.median / p.median : 0);
			snprintf(peer_json, sizeof(peer_json),
				 "{\"name\": \"%s\", \"median\": %.2f, \"min\": %.2f, \"max\": %.2f}",
				 peer->name, p.median, p.min, p.max);
		}
		bool peer_target = g->target_peer && g->peer_ns;
		bool has_target = g->target_ns || peer_target;
		bool met = (g->target_ns == 0 || s.median <= g->target_ns) &&
			   (g->target_ratio == 0 || ratio <= g->target_ratio) &&
			   (!peer_target || s.median <= p.median);
		char target[32] = "-", range[40];
		if (g->target_ns && g->target_ratio)
			snprintf(target, sizeof(target), "<=%.0f,%.1fx", g->target_ns, g->target_ratio);
		else if (g->target_ns && peer_target)
			snprintf(target, sizeof(target), "<=%.0f,tree", g->target_ns);
		else if (g->target_ns)
			snprintf(target, sizeof(target), "<=%.0f", g->target_ns);
		else if (peer_target)
			snprintf(target, sizeof(target), "<=tree");
		snprintf(range, sizeof(range), "%.1f..%.1f", s.min, s.max);
		for (int o = 0; o < 2; o++)
			if (outs[o])
				fprintf(outs[o], "%-50s %8.1f %17s %8.1f %6.1fx %8s %7s %9s %9s %11s %s\n", g->name,
					s.median, range, n.median, ratio, peer_col, vs_peer, locked_col, vs_locked,
					target, has_target ? (met ? "yes" : "NO") : "-");
		if (json) {
			char tns[32] = "null", tr[32] = "null";
			if (g->target_ns)
				snprintf(tns, sizeof(tns), "%.0f", g->target_ns);
			if (g->target_ratio)
				snprintf(tr, sizeof(tr), "%.1f", g->target_ratio);
			fprintf(json, "%s", json_first ? "" : ",\n");
			json_first = false;
			fprintf(json,
				"    {\"key\": \"%s\", \"name\": \"%s\", \"iterations_per_run\": %ld,\n"
				"     \"median\": %.2f, \"min\": %.2f, \"max\": %.2f, \"q1\": %.2f, \"q3\": %.2f,\n"
				"     \"naive\": {\"what\": \"%s\", \"median\": %.2f, \"min\": %.2f, \"max\": %.2f},\n"
				"     \"peer\": %s,\n"
				"     \"peer_locked\": %s,\n"
				"     \"floor\": %s,\n"
				"     \"ratio_to_naive\": %.2f, \"target_ns\": %s, \"target_ratio\": %s, "
				"\"target_at_most_peer\": %s, \"met\": %s}",
				g->key, g->name, g->iters, s.median, s.min, s.max, s.q1, s.q3, g->naive_what,
				n.median, n.min, n.max, peer_json, locked_json, floor_json, ratio, tns, tr, peer_target ? "true" : "false",
				has_target ? (met ? "true" : "false") : "null");
		}
	}
	for (int o = 0; o < 2; o++)
		if (outs[o])
			fprintf(outs[o], "\nnaive baselines: order-0 rows pop+push; batch 1000 pops then 1000 "
					 "pushes; order-9/18 rows the order-0 pop+push (a list cannot give\n"
					 "contiguous blocks); the failing row a pop from an empty list. "
					 "The buddy-layer rows take the node lock around each half, as rmqueue does;\n"
					 "tree+lock is the tree with the same lock around each half.\n%s",
				floor_line_len ? floor_line : "");
	if (outs[1])
		fclose(outs[1]);
	if (json) {
		fprintf(json, "\n  ]\n}\n");
		fclose(json);
	}
	return 0;
}
