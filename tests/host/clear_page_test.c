/* Host test of the huge-page clearing policy (mm/clear_page.c) under
 * ASan/UBSan. The assembly routines are replaced by recording stand-ins
 * with the same names (a link seam: this program does not link
 * arch/x86_64/clear_page.asm), which zero the memory with memset and log
 * every call, so each case can check, for every method and every faulting
 * subpage:
 *   - every byte is cleared, every page exactly once;
 *   - the cached methods go page by page and clear the faulting page last
 *     (process_huge_page's order);
 *   - the extent method clears the region right of the fault's
 *     neighbourhood, then the left one, then the neighbourhood, in runs of
 *     at most 32 MiB;
 *   - the uncached methods are fenced: no cond_resched() while a clear is
 *     unfenced, and none left after clear_page_uncached_make_coherent();
 *   - auto chooses from the CPU and the threshold, the bulk hint included. */
#include "mm/clear_page.h"
#include "tests/host/ktest.h"
#include "tests/host/shim.h"

#include <stdlib.h>
#include <string.h>

/* --- the recording routines ---------------------------------------------- */

enum op_kind { OP_ORIG, OP_REP, OP_ERMS, OP_MOVNT, OP_CLZERO, OP_FENCE, OP_RESCHED };

struct op {
	enum op_kind kind;
	char *addr;
	unsigned long npages;
	unsigned long pending; /* at a cond_resched: unfenced clears */
};

static struct op *ops;
static size_t nr_ops, cap_ops;

static void log_op(enum op_kind kind, void *addr, unsigned long npages)
{
	if (nr_ops == cap_ops) {
		cap_ops = cap_ops ? 2 * cap_ops : 1024;
		ops = realloc(ops, cap_ops * sizeof(*ops));
		if (!ops)
			abort();
	}
	ops[nr_ops++] = (struct op){ kind, addr, npages, clear_page_pending_count() };
	if (addr)
		memset(addr, 0, npages << PAGE_SHIFT);
}

void clear_page_orig(void *page) { log_op(OP_ORIG, page, 1); }
void clear_page_rep(void *page) { log_op(OP_REP, page, 1); }
void clear_page_erms(void *page) { log_op(OP_ERMS, page, 1); }
void clear_pages_orig(void *addr, unsigned long n) { log_op(OP_ORIG, addr, n); }
void clear_pages_rep(void *addr, unsigned long n) { log_op(OP_REP, addr, n); }
void clear_pages_erms(void *addr, unsigned long n) { log_op(OP_ERMS, addr, n); }
void clear_page_movnt(struct incoherent_addr page) { log_op(OP_MOVNT, page.addr_, 1); }
void clear_page_clzero(struct incoherent_addr page) { log_op(OP_CLZERO, page.addr_, 1); }
void clear_pages_movnt(struct incoherent_addr a, unsigned long n) { log_op(OP_MOVNT, a.addr_, n); }
void clear_pages_clzero(struct incoherent_addr a, unsigned long n) { log_op(OP_CLZERO, a.addr_, n); }
void clear_page_sfence(void) { log_op(OP_FENCE, NULL, 0); }

static void record_resched(void) { log_op(OP_RESCHED, NULL, 0); }

static const struct clear_page_cpu amd_cpu = {
	.erms = true, .clzero = true, .zen = true, .llc_bytes = 32ull << 20, .llc_source = "test",
};

static void reset(void)
{
	nr_ops = 0;
	host_cond_resched_hook = record_resched;
	clear_page_policy.threshold_set = false;
	clear_page_policy.method = CLEAR_PAGE_AUTO;
	clear_page_setup(&amd_cpu);
}

/* A "huge page" of nr pages, every byte 0xa5. */
static char *make_extent(unsigned long nr)
{
	char *p = aligned_alloc(PAGE_SIZE, nr << PAGE_SHIFT);
	if (!p)
		abort();
	memset(p, 0xa5, nr << PAGE_SHIFT);
	return p;
}

static bool all_zero(const char *p, unsigned long bytes)
{
	static const char zero[PAGE_SIZE];
	for (unsigned long i = 0; i < bytes; i += PAGE_SIZE)
		if (memcmp(p + i, zero, PAGE_SIZE))
			return false;
	return true;
}

/* Every page cleared by exactly one recorded store op; returns the
 * number of store ops. */
static size_t check_each_page_once(struct ktest *t, char *base, unsigned long nr)
{
	unsigned char *count = calloc(nr, 1);
	size_t stores = 0;
	for (size_t i = 0; i < nr_ops; i++) {
		if (!ops[i].addr)
			continue;
		stores++;
		unsigned long first = (unsigned long)(ops[i].addr - base) >> PAGE_SHIFT;
		KTEST_ASSERT_TRUE(t, ops[i].addr >= base && first + ops[i].npages <= nr);
		for (unsigned long p = first; p < first + ops[i].npages; p++)
			count[p]++;
	}
	unsigned long bad = 0;
	for (unsigned long p = 0; p < nr; p++)
		bad += count[p] != 1;
	KTEST_EXPECT_EQ(t, bad, 0ul);
	free(count);
	return stores;
}

static const struct op *last_store(void)
{
	for (size_t i = nr_ops; i--;)
		if (ops[i].addr)
			return &ops[i];
	return NULL;
}

/* --- cases ------------------------------------------------------------------- */

static void cached_methods_clear_the_faulting_page_last(struct ktest *t)
{
	static const enum clear_page_method methods[] = { CLEAR_PAGE_ORIG, CLEAR_PAGE_REP, CLEAR_PAGE_ERMS };
	static const enum op_kind kinds[] = { OP_ORIG, OP_REP, OP_ERMS };
	static const unsigned orders[] = { 0, 1, 3, 9 };
	for (size_t mi = 0; mi < ARRAY_SIZE(methods); mi++) {
		for (size_t oi = 0; oi < ARRAY_SIZE(orders); oi++) {
			unsigned order = orders[oi];
			unsigned long nr = 1ul << order;
			for (unsigned long target = 0; target < nr; target += nr > 16 ? 37 : 1) {
				reset();
				KTEST_ASSERT_TRUE(t, clear_page_set_method(methods[mi]) == 0);
				char *p = make_extent(nr);
				unsigned long hint = 0x7f0000000000ul + (nr << PAGE_SHIFT) + (target << PAGE_SHIFT) + 123;
				enum clear_page_method m = clear_huge_extent(p, order, hint, 0, 0);
				KTEST_EXPECT_EQ(t, m, methods[mi]);
				KTEST_EXPECT_TRUE(t, all_zero(p, nr << PAGE_SHIFT));
				KTEST_EXPECT_EQ(t, check_each_page_once(t, p, nr), (size_t)nr);
				const struct op *last = last_store();
				KTEST_EXPECT_EQ(t, last->kind, kinds[mi]);
				KTEST_EXPECT_EQ(t, (unsigned long)(last->addr - p) >> PAGE_SHIFT, target);
				KTEST_EXPECT_EQ(t, clear_page_pending_count(), 0ul);
				free(p);
			}
		}
	}
}

/* process_huge_page's order, spelled out for 8 pages, against the
 * function: target 1 and target 6. */
static void cached_order_matches_process_huge_page(struct ktest *t)
{
	static const unsigned long want1[] = { 7, 6, 5, 4, 3, 2, 0, 1 };
	static const unsigned long want6[] = { 0, 1, 2, 3, 4, 7, 5, 6 };
	const unsigned long *wants[] = { want1, want6 };
	const unsigned long targets[] = { 1, 6 };
	for (int k = 0; k < 2; k++) {
		reset();
		clear_page_set_method(CLEAR_PAGE_ERMS);
		char *p = make_extent(8);
		clear_huge_extent(p, 3, targets[k] << PAGE_SHIFT, 0, 0);
		size_t j = 0;
		for (size_t i = 0; i < nr_ops; i++) {
			if (!ops[i].addr)
				continue;
			KTEST_ASSERT_TRUE(t, j < 8);
			KTEST_EXPECT_EQ(t, (unsigned long)(ops[i].addr - p) >> PAGE_SHIFT, wants[k][j]);
			j++;
		}
		KTEST_EXPECT_EQ(t, j, (size_t)8);
		free(p);
	}
}

static void extent_method_clears_the_neighbourhood_last(struct ktest *t)
{
	static const unsigned long targets[] = { 0, 1, 2, 3, 255, 508, 509, 510, 511 };
	for (size_t k = 0; k < ARRAY_SIZE(targets); k++) {
		unsigned long n = targets[k], nr = 512;
		reset();
		clear_page_set_method(CLEAR_PAGE_EXTENT);
		char *p = make_extent(nr);
		clear_huge_extent(p, 9, 0x200000ul * 5 + (n << PAGE_SHIFT), 0, 0);
		KTEST_EXPECT_TRUE(t, all_zero(p, nr << PAGE_SHIFT));
		size_t stores = check_each_page_once(t, p, nr);
		unsigned long lo = n >= 2 ? n - 2 : 0, hi = n + 2 < nr ? n + 2 : nr - 1;
		/* right of the neighbourhood, left of it, the neighbourhood: empty
		 * regions are not called */
		size_t want = (hi + 1 < nr) + (lo > 0) + 1;
		KTEST_EXPECT_EQ(t, stores, want);
		const struct op *last = last_store();
		KTEST_EXPECT_EQ(t, last->kind, OP_ERMS);
		KTEST_EXPECT_EQ(t, (unsigned long)(last->addr - p) >> PAGE_SHIFT, lo);
		KTEST_EXPECT_EQ(t, last->npages, hi - lo + 1);
		size_t i = 0;
		while (!ops[i].addr)
			i++;
		if (hi + 1 < nr)
			KTEST_EXPECT_EQ(t, (unsigned long)(ops[i].addr - p) >> PAGE_SHIFT, hi + 1);
		else if (lo > 0)
			KTEST_EXPECT_EQ(t, ops[i].addr, p);
		free(p);
	}
}

/* A 1 GiB page (262,144 pages) in batches of 32 MiB with a cond_resched()
 * between: checked with the method forced, on 1 GiB of host memory
 * (touched, so this case costs ~1 s). */
static void gigantic_extent_goes_in_32_mib_batches(struct ktest *t)
{
	static const enum clear_page_method methods[] = { CLEAR_PAGE_EXTENT, CLEAR_PAGE_MOVNT, CLEAR_PAGE_CLZERO };
	unsigned long nr = 1ul << 18;
	char *p = make_extent(nr);
	for (size_t mi = 0; mi < ARRAY_SIZE(methods); mi++) {
		reset();
		KTEST_ASSERT_TRUE(t, clear_page_set_method(methods[mi]) == 0);
		memset(p, 0x5a, nr << PAGE_SHIFT);
		clear_huge_extent(p, 18, 0x40000000ul + (1000ul << PAGE_SHIFT), 0, 0);
		KTEST_EXPECT_TRUE(t, all_zero(p, nr << PAGE_SHIFT));
		check_each_page_once(t, p, nr);
		size_t reschedules = 0;
		for (size_t i = 0; i < nr_ops; i++) {
			if (ops[i].addr)
				KTEST_EXPECT_LE(t, ops[i].npages, CLEAR_PAGE_BATCH_PAGES);
			if (ops[i].kind == OP_RESCHED) {
				reschedules++;
				KTEST_EXPECT_EQ(t, ops[i].pending, 0ul);
			}
		}
		/* 1 GiB is 32 batches, each after a cond_resched(); the extent
		 * method's three regions make two more. */
		KTEST_EXPECT_EQ(t, reschedules, (size_t)(methods[mi] == CLEAR_PAGE_EXTENT ? 34 : 32));
		if (clear_page_method_uncached(methods[mi]))
			KTEST_EXPECT_EQ(t, clear_page_pending_count(), 1ul);
		clear_page_fence();
	}
	free(p);
}

/* The uncached path leaves one fence to make_coherent, and only there. */
static void uncached_clear_is_fenced_before_the_page_comes_back(struct ktest *t)
{
	reset();
	clear_page_set_method(CLEAR_PAGE_AUTO);
	/* A 2 MiB page in a 64 MiB populate: at the 32 MiB threshold, auto goes
	 * uncached (CLZERO on this CPU). */
	char *p = make_extent(512);
	enum clear_page_method m = clear_huge_extent(p, 9, 0, CLEAR_HUGE_BULK, 64ull << 20);
	KTEST_EXPECT_EQ(t, m, CLEAR_PAGE_CLZERO);
	KTEST_EXPECT_EQ(t, clear_page_pending_count(), 1ul);
	unsigned long fences = clear_page_stats_sum().fences;
	struct page *back = clear_page_uncached_make_coherent((struct incoherent_page){ .page_ = NULL, .uncached_ = true });
	KTEST_EXPECT_NULL(t, back);
	KTEST_EXPECT_EQ(t, clear_page_pending_count(), 0ul);
	KTEST_EXPECT_EQ(t, clear_page_stats_sum().fences, fences + 1);
	KTEST_EXPECT_EQ(t, ops[nr_ops - 1].kind, OP_FENCE);
	/* The same page alone is below the threshold: cached, nothing to fence. */
	reset();
	m = clear_huge_extent(p, 9, 0, 0, 0);
	KTEST_EXPECT_EQ(t, m, CLEAR_PAGE_EXTENT);
	KTEST_EXPECT_EQ(t, clear_page_pending_count(), 0ul);
	fences = clear_page_stats_sum().fences;
	clear_page_uncached_make_coherent((struct incoherent_page){ .page_ = NULL, .uncached_ = false });
	KTEST_EXPECT_EQ(t, clear_page_stats_sum().fences, fences);
	free(p);
}

/* A 4 KiB page is one call of the cached routine, with no batch around it
 * (the single-page target: nothing costs more than clear_page);
 * the extent method over one page is clear_page_erms. The counters are
 * kept per CPU and summed: a page cleared as CPU 3 counts like one
 * cleared as CPU 0. */
static void one_page_is_one_call_counted_per_cpu(struct ktest *t)
{
	static const enum clear_page_method methods[] = { CLEAR_PAGE_AUTO, CLEAR_PAGE_ORIG, CLEAR_PAGE_REP,
							  CLEAR_PAGE_ERMS, CLEAR_PAGE_EXTENT };
	static const enum op_kind kinds[] = { OP_ERMS, OP_ORIG, OP_REP, OP_ERMS, OP_ERMS };
	char *p = make_extent(1);
	for (unsigned i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		reset();
		clear_page_set_method(methods[i]);
		memset(p, 0x5a, PAGE_SIZE);
		enum clear_page_method m = clear_huge_extent(p, 0, 0x1000, 0, 0);
		KTEST_EXPECT_EQ(t, m, methods[i] == CLEAR_PAGE_AUTO ? CLEAR_PAGE_EXTENT : methods[i]);
		KTEST_EXPECT_EQ(t, nr_ops, (size_t)1);
		KTEST_EXPECT_EQ(t, ops[0].kind, kinds[i]);
		KTEST_EXPECT_EQ(t, ops[0].npages, 1ul);
		KTEST_EXPECT_TRUE(t, all_zero(p, PAGE_SIZE));
	}
	clear_page_set_method(CLEAR_PAGE_AUTO);

	struct clear_page_stats before = clear_page_stats_sum();
	clear_huge_extent(p, 0, 0, 0, 0);
	cpu_number = 3;
	clear_huge_extent(p, 0, 0, 0, 0);
	clear_page_fence();
	cpu_number = 0;
	struct clear_page_stats after = clear_page_stats_sum();
	KTEST_EXPECT_EQ(t, after.extents[CLEAR_PAGE_EXTENT], before.extents[CLEAR_PAGE_EXTENT] + 2);
	KTEST_EXPECT_EQ(t, after.pages[CLEAR_PAGE_EXTENT], before.pages[CLEAR_PAGE_EXTENT] + 2);
	KTEST_EXPECT_EQ(t, after.fences, before.fences + 1);
	free(p);
}

static void auto_chooses_from_the_cpu(struct ktest *t)
{
	struct clear_page_cpu cpu = amd_cpu;
	reset();
	KTEST_EXPECT_EQ(t, clear_page_uncached_threshold(), 32ull << 20);
	KTEST_EXPECT_EQ(t, clear_page_resolve(2ull << 20), CLEAR_PAGE_EXTENT);
	KTEST_EXPECT_EQ(t, clear_page_resolve((32ull << 20) - 1), CLEAR_PAGE_EXTENT);
	KTEST_EXPECT_EQ(t, clear_page_resolve(32ull << 20), CLEAR_PAGE_CLZERO);
	KTEST_EXPECT_EQ(t, clear_page_resolve(1ull << 30), CLEAR_PAGE_CLZERO);

	/* Intel-like: no CLZERO; MOVNTI above the threshold. */
	cpu.clzero = false;
	cpu.zen = false;
	cpu.llc_bytes = 0; /* unknown: the series' 8 MiB */
	clear_page_setup(&cpu);
	KTEST_EXPECT_EQ(t, clear_page_uncached_threshold(), CLEAR_PAGE_DEFAULT_THRESHOLD);
	KTEST_EXPECT_EQ(t, clear_page_resolve(8ull << 20), CLEAR_PAGE_MOVNT);
	KTEST_EXPECT_EQ(t, clear_page_resolve(4ull << 20), CLEAR_PAGE_EXTENT);
	KTEST_EXPECT_EQ(t, clear_page_set_method(CLEAR_PAGE_CLZERO), -EINVAL);
	KTEST_EXPECT_EQ(t, clear_page_policy.method, CLEAR_PAGE_AUTO);

	/* Skylake: MOVNTI is slow, no CLZERO: always cached. */
	cpu.movnt_slow = true;
	clear_page_setup(&cpu);
	KTEST_EXPECT_EQ(t, clear_page_resolve(1ull << 30), CLEAR_PAGE_EXTENT);

	/* No ERMS: REP STOSQ page by page. */
	cpu.erms = false;
	clear_page_setup(&cpu);
	KTEST_EXPECT_EQ(t, clear_page_resolve(2ull << 20), CLEAR_PAGE_REP);

	/* A forced method wins at every size. */
	clear_page_setup(&amd_cpu);
	KTEST_EXPECT_EQ(t, clear_page_set_method(CLEAR_PAGE_MOVNT), 0);
	KTEST_EXPECT_EQ(t, clear_page_resolve(PAGE_SIZE), CLEAR_PAGE_MOVNT);
	KTEST_EXPECT_EQ(t, clear_page_set_method(CLEAR_PAGE_AUTO), 0);
}

static void threshold_is_set_and_reset(struct ktest *t)
{
	reset();
	KTEST_EXPECT_EQ(t, clear_page_set_threshold(4096), 0);
	KTEST_EXPECT_EQ(t, clear_page_resolve(2ull << 20), CLEAR_PAGE_CLZERO);
	/* A user's threshold survives a new setup (the command line is read
	 * before the CPU is). */
	clear_page_setup(&amd_cpu);
	KTEST_EXPECT_EQ(t, clear_page_uncached_threshold(), 4096ull);
	KTEST_EXPECT_EQ(t, clear_page_set_threshold(4095), -EINVAL);
	KTEST_EXPECT_EQ(t, clear_page_set_threshold(CLEAR_PAGE_MAX_THRESHOLD + 1), -EINVAL);
	KTEST_EXPECT_EQ(t, clear_page_set_threshold(CLEAR_PAGE_MAX_THRESHOLD), 0);
	KTEST_EXPECT_EQ(t, clear_page_resolve(1ull << 30), CLEAR_PAGE_EXTENT);
	KTEST_EXPECT_EQ(t, clear_page_set_threshold(0), 0);
	KTEST_EXPECT_EQ(t, clear_page_uncached_threshold(), 32ull << 20);
	KTEST_EXPECT_FALSE(t, clear_page_policy.threshold_set);
}

static void method_names_parse(struct ktest *t)
{
	enum clear_page_method m;
	for (unsigned i = 0; i < NR_CLEAR_PAGE_METHODS; i++) {
		const char *name = clear_page_method_name(i);
		KTEST_EXPECT_EQ(t, clear_page_parse_method(name, strlen(name), &m), 0);
		KTEST_EXPECT_EQ(t, m, (enum clear_page_method)i);
	}
	KTEST_EXPECT_EQ(t, clear_page_parse_method("extent\n", 7, &m), 0);
	KTEST_EXPECT_EQ(t, m, CLEAR_PAGE_EXTENT);
	KTEST_EXPECT_EQ(t, clear_page_parse_method("exten", 5, &m), -EINVAL);
	KTEST_EXPECT_EQ(t, clear_page_parse_method("extents", 7, &m), -EINVAL);
	KTEST_EXPECT_EQ(t, clear_page_parse_method("", 0, &m), -EINVAL);
	KTEST_EXPECT_EQ(t, clear_page_set_method(NR_CLEAR_PAGE_METHODS), -EINVAL);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(cached_methods_clear_the_faulting_page_last),
	KTEST_CASE(cached_order_matches_process_huge_page),
	KTEST_CASE(extent_method_clears_the_neighbourhood_last),
	KTEST_CASE(gigantic_extent_goes_in_32_mib_batches),
	KTEST_CASE(uncached_clear_is_fenced_before_the_page_comes_back),
	KTEST_CASE(one_page_is_one_call_counted_per_cpu),
	KTEST_CASE(auto_chooses_from_the_cpu),
	KTEST_CASE(threshold_is_set_and_reset),
	KTEST_CASE(method_names_parse),
};

int main(void)
{
	host_printk_init();
	int rc = ktest_run_suite("host_clear_page", cases, ARRAY_SIZE(cases), NULL);
	free(ops);
	return rc;
}
