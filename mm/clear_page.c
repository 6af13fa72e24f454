/* Clearing huge and gigantic pages: the policy (mm/clear_page.h has the
 * two designs and the fence rule). Portable: the host tests link it with
 * recording stand-ins for the assembly routines and check the order of
 * every store, the fences and the batches (tests/host/clear_page_test.c). */
#include "mm/clear_page.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/page.h"

struct clear_page_policy clear_page_policy = {
	.method = CLEAR_PAGE_AUTO,
	.cached = CLEAR_PAGE_REP,
	.uncached = CLEAR_PAGE_REP,
	.threshold = CLEAR_PAGE_DEFAULT_THRESHOLD,
};
/* Indexed by CPU, as the NUMA counters' per_cpu_nodestats. */
static struct clear_page_stats clear_page_cpu_stats[NR_CPUS];

/* Uncached clears on this CPU since its last fence (see the header). */
DEFINE_PER_CPU(unsigned long, clear_page_pending);

static const char *const method_names[NR_CLEAR_PAGE_METHODS] = {
	[CLEAR_PAGE_AUTO] = "auto",     [CLEAR_PAGE_ORIG] = "orig",     [CLEAR_PAGE_REP] = "rep",
	[CLEAR_PAGE_ERMS] = "erms",     [CLEAR_PAGE_MOVNT] = "movnt",   [CLEAR_PAGE_CLZERO] = "clzero",
	[CLEAR_PAGE_EXTENT] = "extent",
};

const char *clear_page_method_name(enum clear_page_method m)
{
	return (unsigned)m < NR_CLEAR_PAGE_METHODS ? method_names[m] : "?";
}

int clear_page_parse_method(const char *s, size_t len, enum clear_page_method *out)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == 0))
		len--;
	for (unsigned m = 0; m < NR_CLEAR_PAGE_METHODS; m++) {
		if (strlen(method_names[m]) == len && !memcmp(method_names[m], s, len)) {
			*out = m;
			return 0;
		}
	}
	return -EINVAL;
}

/* This CPU's counters (the kernel is not preemptible: the caller stays on
 * this CPU until it calls schedule()). */
static struct clear_page_stats *this_cpu_stats(void)
{
	return &clear_page_cpu_stats[smp_processor_id()];
}

struct clear_page_stats clear_page_stats_sum(void)
{
	struct clear_page_stats sum = { 0 };
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct clear_page_stats *s = &clear_page_cpu_stats[cpu];
		for (unsigned m = 0; m < NR_CLEAR_PAGE_METHODS; m++) {
			sum.extents[m] += READ_ONCE(s->extents[m]);
			sum.pages[m] += READ_ONCE(s->pages[m]);
		}
		sum.fences += READ_ONCE(s->fences);
		sum.incoherent += READ_ONCE(s->incoherent);
	}
	return sum;
}

/* --- the choice -------------------------------------------------------------- */

/* auto, below the threshold: the extent method where REP STOSB is fast
 * (ERMS), which is what Linux does since 2026; REP STOSQ otherwise (Linux's
 * clear_page_rep, the choice for CPUs without ERMS). At or above it: CLZERO
 * where the CPU has it (the series' choice on AMD), MOVNTI unless the CPU is
 * one where it loses (X86_FEATURE_MOVNT_SLOW: the series names Skylake),
 * else the cached choice. */
void clear_page_setup(const struct clear_page_cpu *cpu)
{
	struct clear_page_policy *p = &clear_page_policy;
	p->cpu = *cpu;
	p->cached = cpu->erms ? CLEAR_PAGE_EXTENT : CLEAR_PAGE_REP;
	if (cpu->clzero)
		p->uncached = CLEAR_PAGE_CLZERO;
	else if (!cpu->movnt_slow)
		p->uncached = CLEAR_PAGE_MOVNT;
	else
		p->uncached = p->cached;
	if (!p->threshold_set)
		p->threshold = cpu->llc_bytes ? cpu->llc_bytes : CLEAR_PAGE_DEFAULT_THRESHOLD;
}

void clear_page_report(void)
{
	const struct clear_page_policy *p = &clear_page_policy;
	pr_info("clear_page: method %s; auto: %s below %llu KiB, %s from there\n", clear_page_method_name(p->method),
		clear_page_method_name(p->cached), (unsigned long long)(p->threshold >> 10),
		clear_page_method_name(p->uncached));
	if (p->threshold_set)
		pr_info("clear_page: threshold given by the user\n");
	else if (!p->cpu.llc_source)
		pr_info("clear_page: no CPUID leaf describes the caches: the default threshold\n");
	else if (!p->cpu.llc_bytes)
		pr_info("clear_page: %s says the last-level cache is %llu KiB, more than any such CPU has: "
			"not believed, the default threshold\n",
			p->cpu.llc_source, (unsigned long long)(p->cpu.llc_claimed >> 10));
	else
		pr_info("clear_page: threshold = the last-level cache, %llu KiB (%s)\n",
			(unsigned long long)(p->cpu.llc_bytes >> 10), p->cpu.llc_source);
}

int clear_page_set_method(enum clear_page_method m)
{
	if ((unsigned)m >= NR_CLEAR_PAGE_METHODS)
		return -EINVAL;
	if (m == CLEAR_PAGE_CLZERO && !clear_page_policy.cpu.clzero)
		return -EINVAL;
	WRITE_ONCE(clear_page_policy.method, m);
	return 0;
}

int clear_page_set_threshold(u64 bytes)
{
	struct clear_page_policy *p = &clear_page_policy;
	if (!bytes) {
		p->threshold_set = false;
		WRITE_ONCE(p->threshold, p->cpu.llc_bytes ? p->cpu.llc_bytes : CLEAR_PAGE_DEFAULT_THRESHOLD);
		return 0;
	}
	if (bytes < PAGE_SIZE || bytes > CLEAR_PAGE_MAX_THRESHOLD)
		return -EINVAL;
	p->threshold_set = true;
	WRITE_ONCE(p->threshold, bytes);
	return 0;
}

enum clear_page_method clear_page_resolve(u64 bytes)
{
	enum clear_page_method m = READ_ONCE(clear_page_policy.method);
	if (m != CLEAR_PAGE_AUTO)
		return m;
	return bytes >= READ_ONCE(clear_page_policy.threshold) ? clear_page_policy.uncached
							      : clear_page_policy.cached;
}

/* --- uncached stores ----------------------------------------------------------- */

void clear_pages_uncached(struct incoherent_addr dst, unsigned long npages, enum clear_page_method m)
{
	if (m == CLEAR_PAGE_CLZERO)
		clear_pages_clzero(dst, npages);
	else
		clear_pages_movnt(dst, npages);
	this_cpu_write(clear_page_pending, this_cpu_read(clear_page_pending) + 1);
}

void clear_page_fence(void)
{
	clear_page_sfence();
	this_cpu_write(clear_page_pending, 0);
	this_cpu_stats()->fences++;
}

void clear_page_report_incoherent(unsigned long addr)
{
	pr_err("BUG: clear_page: a user mapping at %#lx written with %lu uncached clears unfenced on this CPU; "
	       "fenced now\n", addr, clear_page_pending_count());
	this_cpu_stats()->incoherent++;
	clear_page_fence();
}

/* --- the three orders ---------------------------------------------------------- */

static void *page_at(void *kaddr, unsigned long i) { return (char *)kaddr + (i << PAGE_SHIFT); }

static void clear_one_cached(enum clear_page_method m, void *addr)
{
	if (m == CLEAR_PAGE_ORIG)
		clear_page_orig(addr);
	else if (m == CLEAR_PAGE_REP)
		clear_page_rep(addr);
	else
		clear_page_erms(addr);
}

/* The cached methods, Linux's process_huge_page() (2017, "mm, clear_huge_page:
 * move order algorithm into a separate function"): page by page, the far
 * end first, then alternately left and right, converging on the target
 * page, which is cleared last so its lines are the ones still cached. */
static void clear_target_last(enum clear_page_method m, void *kaddr, unsigned long nr, unsigned long n)
{
	unsigned long i, base, l;
	if (2 * n <= nr) {
		/* The target is in the first half: the tail goes first. */
		base = 0;
		l = n;
		for (i = nr; i-- > 2 * n;) {
			cond_resched();
			clear_one_cached(m, page_at(kaddr, i));
		}
	} else {
		/* The target is in the second half: the head goes first. */
		base = nr - 2 * (nr - n);
		l = nr - n;
		for (i = 0; i < base; i++) {
			cond_resched();
			clear_one_cached(m, page_at(kaddr, i));
		}
	}
	for (i = 0; i < l; i++) {
		cond_resched();
		clear_one_cached(m, page_at(kaddr, base + i));
		cond_resched();
		clear_one_cached(m, page_at(kaddr, base + 2 * l - 1 - i));
	}
}

/* One range in batches of CLEAR_PAGE_BATCH_PAGES, a cond_resched() before
 * each (Linux's clear_contig_highpages). An uncached batch is fenced before
 * the next cond_resched(), since the task may then move to another CPU and
 * the pending count is this CPU's; the last is fenced by the caller's
 * clear_page_uncached_make_coherent(). */
static void clear_batches(enum clear_page_method m, void *kaddr, unsigned long first, unsigned long nr)
{
	bool uncached = clear_page_method_uncached(m);
	for (unsigned long done = 0; done < nr;) {
		unsigned long count = min(nr - done, CLEAR_PAGE_BATCH_PAGES);
		if (uncached && done)
			clear_page_fence();
		cond_resched();
		if (uncached)
			clear_pages_uncached(incoherent_addr(page_at(kaddr, first + done)), count, m);
		else
			clear_pages_erms(page_at(kaddr, first + done), count);
		done += count;
	}
}

/* The extent method, Linux's folio_zero_user() since 2026: the region to
 * the right of the faulting page's neighbourhood, then the one to its left,
 * then the neighbourhood itself (CLEAR_PAGE_LOCALITY_RADIUS pages each side),
 * each as long REP STOSB runs (x86's clear_pages() with ERMS). The uncached
 * methods go front to back in one region: their stores leave nothing in
 * the cache, so there is no neighbourhood to keep warm. */
static void clear_regions(enum clear_page_method m, void *kaddr, unsigned long nr, unsigned long n)
{
	unsigned long lo = n > CLEAR_PAGE_LOCALITY_RADIUS ? n - CLEAR_PAGE_LOCALITY_RADIUS : 0;
	unsigned long hi = min(n + CLEAR_PAGE_LOCALITY_RADIUS, nr - 1);
	if (clear_page_method_uncached(m)) {
		clear_batches(m, kaddr, 0, nr);
		return;
	}
	clear_batches(m, kaddr, hi + 1, nr - 1 - hi);
	clear_batches(m, kaddr, 0, lo);
	clear_batches(m, kaddr, lo, hi - lo + 1);
}

static void count_clear(enum clear_page_method m, unsigned long nr)
{
	struct clear_page_stats *stats = this_cpu_stats();
	stats->extents[m]++;
	stats->pages[m] += nr;
}

static __noinline enum clear_page_method __clear_huge_extent(void *kaddr, unsigned order, unsigned long addr_hint,
							    enum clear_page_method m)
{
	unsigned long nr = 1ul << order;
	/* The faulting page's index in the extent. */
	unsigned long n = (addr_hint >> PAGE_SHIFT) & (nr - 1);
	if (m == CLEAR_PAGE_ORIG || m == CLEAR_PAGE_REP || m == CLEAR_PAGE_ERMS)
		clear_target_last(m, kaddr, nr, n);
	else
		clear_regions(m, kaddr, nr, n);
	count_clear(m, nr);
	return m;
}

enum clear_page_method clear_huge_extent(void *kaddr, unsigned order, unsigned long addr_hint,
					 unsigned flags, u64 bulk_bytes)
{
	u64 bytes = PAGE_SIZE << order;
	if (flags & CLEAR_HUGE_BULK)
		bytes = max(bytes, bulk_bytes);
	enum clear_page_method m = clear_page_resolve(bytes);
	if (order || clear_page_method_uncached(m))
		return __clear_huge_extent(kaddr, order, addr_hint, m);
	/* One 4 KiB page: no order to choose and no batches, just Linux's
	 * clear_page() (over one page the extent method is one REP STOSB,
	 * which is clear_page_erms), and nothing kept in registers around
	 * it: a single page must lose nothing against
	 * clear_page_erms. */
	clear_one_cached(m == CLEAR_PAGE_EXTENT ? CLEAR_PAGE_ERMS : m, kaddr);
	count_clear(m, 1);
	return m;
}

struct incoherent_page clear_huge_page(struct page *page, unsigned order, unsigned long addr_hint,
				       unsigned flags, u64 bulk_bytes)
{
	enum clear_page_method m = clear_huge_extent(page_address(page), order, addr_hint, flags, bulk_bytes);
	return (struct incoherent_page){ .page_ = page, .uncached_ = clear_page_method_uncached(m) };
}

struct page *clear_page_uncached_make_coherent(struct incoherent_page p)
{
	if (p.uncached_)
		clear_page_fence();
	return p.page_;
}
