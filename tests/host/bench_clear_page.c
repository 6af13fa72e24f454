/* Host-native benchmark of the page clearing routines and policy: the very
 * assembly the kernel links (arch/x86_64/clear_page.asm, assembled for the
 * host) and the very policy (mm/clear_page.c), timed on the host's CPU,
 * because under TCG every store costs the same and the guest's figures say
 * nothing about clearing speed.
 *
 * All memory is one arena (1 GiB + 64 MiB by default, --gib to change the
 * cleared part), faulted in and written before any timing, so no page
 * fault is timed. "Cold" means the bytes were last touched a whole arena
 * ago (the arena is far larger than any cache); "warm" means the same
 * bytes were just cleared. Each figure is the median of --runs runs
 * (default 3), with the lowest and highest beside it. Uncached methods are
 * timed with their SFENCE included, once per call.
 *
 * Sections:
 *   routines    GB/s per method: 4 KiB (warm, and cold one call per page
 *               over the arena), 2 MiB as one extent and as 512 page calls
 *               (cold, and warm), 1 GiB as one extent, as 512 x 2 MiB and
 *               as 262,144 x 4 KiB
 *   sfence      what one SFENCE costs after a line of MOVNTI
 *   pollution   ns to re-read a 256 KiB and a 1 MiB buffer after clearing
 *               the arena with each method (what the clear evicted)
 *   crossover   the same S bytes cleared again and again, cached against
 *               uncached, S from 256 KiB to 512 MiB: the smallest S where
 *               uncached is as fast is the threshold this CPU wants
 *   workload    the uncached-clearing series': the arena as 2 MiB pages the way auto clears
 *               them (each fault alone, and as one bulk populate), beside
 *               clear_page_erms on every 4 KiB page (the series' baseline)
 *
 * It reports; it never fails (exit status 0 unless it could not run). */
#define _GNU_SOURCE
#include "arch/x86_64/cacheinfo.h"
#include "mm/clear_page.h"
#include "tests/host/shim.h"

#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MIB (1ul << 20)
#define GIB (1ul << 30)

static FILE *out;
static unsigned runs = 3;
static unsigned long clear_bytes = GIB;
static char *arena;
static unsigned long arena_bytes;
static bool has_clzero;

static void report(const char *fmt, ...) __printf(1, 2);
static void report(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (out) {
		va_start(ap, fmt);
		vfprintf(out, fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void host_cpuid(u32 leaf, u32 sub, struct cpuid_regs *r)
{
	__cpuid_count(leaf, sub, r->eax, r->ebx, r->ecx, r->edx);
}

/* --- the methods as plain extent calls -------------------------------------- */

enum bm { BM_ORIG, BM_REP, BM_ERMS, BM_MOVNT, BM_CLZERO, NR_BM };
static const char *const bm_names[NR_BM] = { "orig", "rep", "erms", "movnt", "clzero" };
static bool bm_uncached(enum bm m) { return m == BM_MOVNT || m == BM_CLZERO; }

/* npages from p, as one call (one_call) or page by page; uncached ones
 * fenced once at the end. */
static void clear_with(enum bm m, void *p, unsigned long npages, bool one_call)
{
	char *c = p;
	unsigned long step = one_call ? npages : 1;
	for (unsigned long i = 0; i < npages; i += step) {
		void *a = c + (i << PAGE_SHIFT);
		switch (m) {
		case BM_ORIG: one_call ? clear_pages_orig(a, step) : clear_page_orig(a); break;
		case BM_REP: one_call ? clear_pages_rep(a, step) : clear_page_rep(a); break;
		case BM_ERMS: one_call ? clear_pages_erms(a, step) : clear_page_erms(a); break;
		case BM_MOVNT:
			one_call ? clear_pages_movnt(incoherent_addr(a), step) : clear_page_movnt(incoherent_addr(a));
			break;
		default:
			one_call ? clear_pages_clzero(incoherent_addr(a), step) : clear_page_clzero(incoherent_addr(a));
			break;
		}
	}
	if (bm_uncached(m))
		clear_page_sfence();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct stat3 {
	double med, lo, hi;
};

static struct stat3 summarize(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (struct stat3){ v[n / 2], v[0], v[n - 1] };
}

/* GB/s clearing `total` bytes of the arena in `extent`-byte pieces, each
 * piece one call (one_call) or page calls. warm: the same piece each time
 * (the first is not timed). */
static struct stat3 gbps(enum bm m, unsigned long extent, unsigned long total, bool one_call, bool warm)
{
	double v[32];
	unsigned long pieces = total / extent;
	for (unsigned r = 0; r < runs; r++) {
		if (warm)
			clear_with(m, arena, extent >> PAGE_SHIFT, one_call);
		else /* make the pieces cold: touch the rest of the arena */
			memset(arena + clear_bytes, 1, arena_bytes - clear_bytes);
		double t0 = now();
		for (unsigned long i = 0; i < pieces; i++)
			clear_with(m, arena + (warm ? 0 : i * extent), extent >> PAGE_SHIFT, one_call);
		v[r] = (double)pieces * extent / (now() - t0) / 1e9;
	}
	return summarize(v, runs);
}

static void routines(void)
{
	report("\n== routines: GB/s, median [min-max] of %u runs; uncached include one SFENCE per call\n", runs);
	report("%-7s %18s %18s %18s %18s %18s %18s %18s %18s\n", "method", "4K warm", "4K cold",
	       "2M extent cold", "2M 512 calls cold", "2M extent warm", "1G one extent", "1G 512x2M",
	       "1G 262144x4K");
	for (unsigned m = 0; m < NR_BM; m++) {
		if (m == BM_CLZERO && !has_clzero)
			continue;
		struct stat3 s[8] = {
			gbps(m, PAGE_SIZE, 64 * MIB, true, true),
			gbps(m, PAGE_SIZE, clear_bytes, true, false),
			gbps(m, 2 * MIB, 256 * MIB, true, false),
			gbps(m, 2 * MIB, 256 * MIB, false, false),
			gbps(m, 2 * MIB, 512 * MIB, true, true),
			gbps(m, clear_bytes, clear_bytes, true, false),
			gbps(m, 2 * MIB, clear_bytes, true, false),
			gbps(m, PAGE_SIZE, clear_bytes, false, false),
		};
		report("%-7s", bm_names[m]);
		for (int i = 0; i < 8; i++) {
			char cell[40];
			snprintf(cell, sizeof(cell), "%.1f [%.1f-%.1f]", s[i].med, s[i].lo, s[i].hi);
			report(" %18s", cell);
		}
		report("\n");
	}
}

static void sfence_cost(void)
{
	enum { N = 200000 };
	double with[32], without[32];
	char *line = arena;
	for (unsigned r = 0; r < runs; r++) {
		double t0 = now();
		for (int i = 0; i < N; i++) {
			__asm__ volatile("movnti %%rax, (%0); movnti %%rax, 8(%0); movnti %%rax, 16(%0); movnti %%rax, 24(%0);"
					 "movnti %%rax, 32(%0); movnti %%rax, 40(%0); movnti %%rax, 48(%0); movnti %%rax, 56(%0)"
					 :: "r"(line + (i & 1023) * 64), "a"(0ul) : "memory");
		}
		double t1 = now();
		for (int i = 0; i < N; i++) {
			__asm__ volatile("movnti %%rax, (%0); movnti %%rax, 8(%0); movnti %%rax, 16(%0); movnti %%rax, 24(%0);"
					 "movnti %%rax, 32(%0); movnti %%rax, 40(%0); movnti %%rax, 48(%0); movnti %%rax, 56(%0);"
					 "sfence"
					 :: "r"(line + (i & 1023) * 64), "a"(0ul) : "memory");
		}
		double t2 = now();
		without[r] = (t1 - t0) / N * 1e9;
		with[r] = (t2 - t1) / N * 1e9;
	}
	struct stat3 a = summarize(without, runs), b = summarize(with, runs);
	report("\n== sfence: one 64-byte line of MOVNTI %.1f ns [%.1f-%.1f]; with an SFENCE after it %.1f ns [%.1f-%.1f]: "
	       "the fence costs ~%.0f ns\n",
	       a.med, a.lo, a.hi, b.med, b.lo, b.hi, b.med - a.med);
}

static volatile unsigned long sink_word;

static double reread_ns(char *buf, unsigned long bytes)
{
	double t0 = now();
	unsigned long s = 0;
	for (unsigned long i = 0; i < bytes; i += 64)
		s += *(volatile unsigned long *)(buf + i);
	sink_word = s;
	return (now() - t0) * 1e9;
}

static void pollution(void)
{
	static const unsigned long sizes[] = { 256 * 1024, MIB };
	char *buf = malloc(MIB);
	memset(buf, 3, MIB);
	report("\n== pollution: ns to re-read a buffer (one load per line) that was hot before clearing %lu MiB "
	       "in 2 MiB extents; median [min-max]\n", clear_bytes / MIB);
	report("%-7s %22s %22s\n", "method", "256 KiB", "1 MiB");
	double base[2][32];
	for (int k = 0; k < 2; k++)
		for (unsigned r = 0; r < runs; r++) {
			reread_ns(buf, sizes[k]);
			base[k][r] = reread_ns(buf, sizes[k]);
		}
	struct stat3 b0 = summarize(base[0], runs), b1 = summarize(base[1], runs);
	report("%-7s %10.0f [%.0f-%.0f] %10.0f [%.0f-%.0f]\n", "(none)", b0.med, b0.lo, b0.hi, b1.med, b1.lo, b1.hi);
	for (unsigned m = 0; m < NR_BM; m++) {
		if (m == BM_CLZERO && !has_clzero)
			continue;
		double v[2][32];
		for (int k = 0; k < 2; k++)
			for (unsigned r = 0; r < runs; r++) {
				reread_ns(buf, sizes[k]);
				for (unsigned long off = 0; off < clear_bytes; off += 2 * MIB)
					clear_with(m, arena + off, 512, true);
				v[k][r] = reread_ns(buf, sizes[k]);
			}
		struct stat3 s0 = summarize(v[0], runs), s1 = summarize(v[1], runs);
		report("%-7s %10.0f [%.0f-%.0f] %10.0f [%.0f-%.0f]\n", bm_names[m], s0.med, s0.lo, s0.hi, s1.med,
		       s1.lo, s1.hi);
	}
	free(buf);
}

/* The threshold this CPU wants: the smallest S from which uncached is at
 * least as fast as cached at every larger S measured (one lucky size, or
 * one where cached had a bad run, does not make a threshold). */
static void crossover(enum bm uncached)
{
	report("\n== crossover: the same S bytes cleared repeatedly (>= 1 GiB in all), GB/s median; erms (one call) "
	       "against %s (one call + SFENCE)\n", bm_names[uncached]);
	enum { MAX_SIZES = 16 };
	unsigned long sizes[MAX_SIZES];
	double c[MAX_SIZES], u[MAX_SIZES];
	int n = 0;
	for (unsigned long s = 256 * 1024; s <= 512 * MIB && s <= clear_bytes && n < MAX_SIZES; s *= 2, n++) {
		unsigned long total = s < GIB ? GIB : s;
		sizes[n] = s;
		c[n] = gbps(BM_ERMS, s, total, true, true).med;
		u[n] = gbps(uncached, s, total, true, true).med;
	}
	int from = n;
	while (from > 0 && u[from - 1] >= c[from - 1])
		from--;
	for (int i = 0; i < n; i++)
		report("  S = %7lu KiB   erms %6.1f   %-6s %6.1f%s\n", sizes[i] >> 10, c[i], bm_names[uncached], u[i],
		       i == from ? "   <- uncached as fast from here on" : "");
	if (from < n)
		report("  suggested: clear_huge_page_threshold_kb=%lu (this CPU; auto's is %llu)\n", sizes[from] >> 10,
		       (unsigned long long)(clear_page_uncached_threshold() >> 10));
	else
		report("  uncached never stayed ahead here: a threshold above %lu MiB (or clear_page=extent)\n",
		       sizes[n - 1] >> 20);
}

/* The policy itself (mm/clear_page.c, with the real routines) over the
 * first `total` bytes of the arena as pages of 2^order 4 KiB pages, cold
 * (the rest of the arena touched before each run) or warm (the first page,
 * again and again, the first time not timed). */
static struct stat3 policy_gbps_order(unsigned order, unsigned long total, bool warm, unsigned flags,
				      enum clear_page_method force)
{
	double v[32];
	unsigned long size = PAGE_SIZE << order;
	clear_page_set_method(force);
	for (unsigned r = 0; r < runs; r++) {
		if (warm)
			clear_huge_extent(arena, order, 0x7f0000000000ul, flags, total);
		else
			memset(arena + clear_bytes, 1, arena_bytes - clear_bytes);
		if (clear_page_pending_count())
			clear_page_fence();
		double t0 = now();
		for (unsigned long off = 0; off < total; off += size) {
			clear_huge_extent(arena + (warm ? 0 : off), order, 0x7f0000000000ul + off, flags, total);
			if (clear_page_pending_count())
				clear_page_fence();
		}
		v[r] = (double)total / (now() - t0) / 1e9;
	}
	clear_page_set_method(CLEAR_PAGE_AUTO);
	return summarize(v, runs);
}

/* The uncached-clearing series' workload: the arena as 2 MiB huge pages, cold. */
static struct stat3 policy_gbps(unsigned flags, enum clear_page_method force)
{
	return policy_gbps_order(9, clear_bytes, false, flags, force);
}

/* The clearing targets (docs/huge_pages.md), each measured in this run: a bulk populate of
 * 2 MiB and of 1 GiB pages at least 3x the per-4 KiB clear_page_erms
 * baseline and within 10% of the fastest method; a single 4 KiB page
 * through the policy (clear_huge_extent with order 0: the kernel itself
 * never sends one there, its 4 KiB faults are zeroed by the allocator's
 * memset) at least 98% of clear_page_erms; a warm 2 MiB page cleared
 * alone at least 95% of the fastest cached clear of it. */
static void report_target(const char *what, double got, double want, const char *against)
{
	report("  %-58s %6.1f vs %6.1f %-28s %s\n", what, got, want, against, got >= want ? "met" : "NOT met");
}

/* The single-page target compares two costs ~1% apart, less than the
 * drift between two runs on a shared host: clear_page_erms and the policy
 * are timed in alternation (ABBA), pair after pair, and judged by the
 * median of the pairs' ratios, so a drift falls on both sides alike. */
static void paired_target(const char *what, bool warm)
{
	unsigned n = runs < 15 ? 15 : runs > 31 ? 31 : runs, saved = runs;
	unsigned long total = warm ? 256 * MIB : clear_bytes;
	double ratio[32], e[32], p[32];
	runs = 1;
	for (unsigned i = 0; i < n; i++) {
		if (i & 1) {
			p[i] = policy_gbps_order(0, total, warm, 0, CLEAR_PAGE_AUTO).med;
			e[i] = gbps(BM_ERMS, PAGE_SIZE, total, true, warm).med;
		} else {
			e[i] = gbps(BM_ERMS, PAGE_SIZE, total, true, warm).med;
			p[i] = policy_gbps_order(0, total, warm, 0, CLEAR_PAGE_AUTO).med;
		}
		ratio[i] = p[i] / e[i];
	}
	runs = saved;
	struct stat3 r = summarize(ratio, n), se = summarize(e, n), sp = summarize(p, n);
	char got[48];
	snprintf(got, sizeof(got), "%.1f%% [%.1f-%.1f]", 100 * r.med, 100 * r.lo, 100 * r.hi);
	report("  %-58s %-20s of erms over %u pairs (medians %.1f vs %.1f GB/s)  %s\n", what, got, n, sp.med, se.med,
	       r.med >= 0.98 ? "met" : "NOT met");
}

static void targets(void)
{
	report("\n== the clearing targets, this run (GB/s medians; 'vs' is the bar to reach)\n");
	struct stat3 base = gbps(BM_ERMS, PAGE_SIZE, clear_bytes, true, false);
	for (unsigned order = 9; order <= 18; order += 9) {
		if (clear_bytes < (PAGE_SIZE << order))
			continue;
		struct stat3 bulk = policy_gbps_order(order, clear_bytes, false, CLEAR_HUGE_BULK, CLEAR_PAGE_AUTO);
		double fastest = bulk.med;
		const char *fastest_name = "auto";
		for (unsigned m = CLEAR_PAGE_ORIG; m < NR_CLEAR_PAGE_METHODS; m++) {
			if (m == CLEAR_PAGE_CLZERO && !has_clzero)
				continue;
			double g = policy_gbps_order(order, clear_bytes, false, CLEAR_HUGE_BULK, m).med;
			if (g > fastest) {
				fastest = g;
				fastest_name = clear_page_method_name(m);
			}
		}
		char what[96], against[48];
		snprintf(what, sizeof(what), "%s pages, bulk populate (auto: %s): 3x the baseline (%.1f)",
			 order == 9 ? "2 MiB" : "1 GiB", clear_page_method_name(clear_page_resolve(clear_bytes)),
			 base.med);
		report_target(what, bulk.med, 3 * base.med, "(3 x baseline)");
		snprintf(what, sizeof(what), "%s pages, bulk populate: within 10%% of the fastest",
			 order == 9 ? "2 MiB" : "1 GiB");
		snprintf(against, sizeof(against), "(0.9 x %s %.1f)", fastest_name, fastest);
		report_target(what, bulk.med, 0.9 * fastest, against);
	}
	paired_target("a 4 KiB page through the policy, cold: 98% of erms", false);
	paired_target("a 4 KiB page through the policy, warm: 98% of erms", true);
	double cached = 0;
	const char *cached_name = "";
	for (enum bm m = BM_ORIG; m <= BM_ERMS; m++) {
		double g = gbps(m, 2 * MIB, 512 * MIB, true, true).med;
		if (g > cached) {
			cached = g;
			cached_name = bm_names[m];
		}
	}
	struct stat3 alone = policy_gbps_order(9, 512 * MIB, true, 0, CLEAR_PAGE_AUTO);
	char what[96], against[48];
	snprintf(what, sizeof(what), "a warm 2 MiB page alone (auto: %s): 95%% of cached",
		 clear_page_method_name(clear_page_resolve(2 * MIB)));
	snprintf(against, sizeof(against), "(0.95 x %s %.1f)", cached_name, cached);
	report_target(what, alone.med, 0.95 * cached, against);
}

static void workload(void)
{
	report("\n== workload (the series' VM creation): %lu MiB as 2 MiB pages, cold, GB/s median [min-max]\n", clear_bytes / MIB);
	struct stat3 base = gbps(BM_ERMS, PAGE_SIZE, clear_bytes, true, false);
	report("  %-52s %6.1f [%.1f-%.1f]\n", "baseline: clear_page_erms on each 4 KiB page", base.med, base.lo, base.hi);
	struct stat3 a = policy_gbps(0, CLEAR_PAGE_AUTO);
	report("  %-52s %6.1f [%.1f-%.1f]  (%s)\n", "auto, each 2 MiB fault alone", a.med, a.lo, a.hi,
	       clear_page_method_name(clear_page_resolve(2 * MIB)));
	struct stat3 b = policy_gbps(CLEAR_HUGE_BULK, CLEAR_PAGE_AUTO);
	report("  %-52s %6.1f [%.1f-%.1f]  (%s)\n", "auto, one bulk populate (MAP_POPULATE)", b.med, b.lo, b.hi,
	       clear_page_method_name(clear_page_resolve(clear_bytes)));
	for (unsigned m = CLEAR_PAGE_ORIG; m < NR_CLEAR_PAGE_METHODS; m++) {
		if (m == CLEAR_PAGE_CLZERO && !has_clzero)
			continue;
		struct stat3 s = policy_gbps(0, m);
		char label[64];
		snprintf(label, sizeof(label), "clear_page=%s", clear_page_method_name(m));
		report("  %-52s %6.1f [%.1f-%.1f]  %+.0f%% on the baseline\n", label, s.med, s.lo, s.hi,
		       (s.med / base.med - 1) * 100);
	}
}

int main(int argc, char **argv)
{
	const char *text = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--gib") && i + 1 < argc)
			clear_bytes = (unsigned long)(atof(argv[++i]) * GIB) & ~(2 * MIB - 1);
		else if (!strcmp(argv[i], "--text") && i + 1 < argc)
			text = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--runs N] [--gib G] [--text FILE]\n", argv[0]);
			return 2;
		}
	}
	if (runs < 1 || runs > 31 || clear_bytes < 64 * MIB) {
		fprintf(stderr, "bench_clear_page: --runs 1..31, --gib at least 0.0625\n");
		return 2;
	}
	if (text && !(out = fopen(text, "w"))) {
		perror(text);
		return 1;
	}
	console_loglevel = 4; /* the policy's pr_info lines only in the report below */
	struct clear_page_cpu cpu;
	clear_page_cpu_from_cpuid(host_cpuid, &cpu);
	clear_page_setup(&cpu);
	has_clzero = cpu.clzero;

	arena_bytes = clear_bytes + 64 * MIB;
	arena = mmap(NULL, arena_bytes + 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	arena = (char *)(((unsigned long)arena + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(arena, arena_bytes, MADV_HUGEPAGE);
	memset(arena, 0xa5, arena_bytes);

	char model[49] = "";
	unsigned r[4];
	for (unsigned i = 0; i < 3; i++) {
		__cpuid(0x80000002 + i, r[0], r[1], r[2], r[3]);
		memcpy(model + 16 * i, r, 16);
	}
	report("bench_clear_page: %s; erms %d clzero %d movnt_slow %d zen %d\n", model, cpu.erms, cpu.clzero,
	       cpu.movnt_slow, cpu.zen);
	report("  last-level cache: %s says %llu KiB%s; auto: %s below %llu KiB, %s from there\n",
	       cpu.llc_source ? cpu.llc_source : "no leaf", (unsigned long long)(cpu.llc_claimed >> 10),
	       cpu.llc_bytes ? "" : " (not believed)", clear_page_method_name(clear_page_policy.cached),
	       (unsigned long long)(clear_page_uncached_threshold() >> 10),
	       clear_page_method_name(clear_page_policy.uncached));

	routines();
	sfence_cost();
	pollution();
	crossover(has_clzero ? BM_CLZERO : BM_MOVNT);
	if (has_clzero)
		crossover(BM_MOVNT);
	workload();
	targets();
	if (out)
		fclose(out);
	return 0;
}
