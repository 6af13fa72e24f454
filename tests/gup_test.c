/* get_user_pages_fast and get_user_pages (mm/gup.c): what the walks take
 * and refuse, that a page they hold outlives its mapping (put_page frees it
 * at the last reference), and the lockless walk beside threads that keep
 * emptying and refilling the same page tables on other CPUs (the lockless walk's
 * concurrency test), in refcount and in scan mode.
 *
 * The concurrency test's checks, none of them timing:
 *   - no freed page-table page is read: the walk counts every entry it
 *     reads holding the page-poison pattern (gup_stats.poisoned) or that is
 *     neither none nor a table (bad_entries): both must stay 0. With
 *     page_poison=on a freed table is all poison, so any read of one shows;
 *     without it a freed table reused for something else shows as garbage
 *     at best, so the case says which it had;
 *   - every page the walk returns was mapped there when it was read: it is
 *     not free (refcount >= 1, no allocator flag), and its contents are what
 *     the threads write at that address and nothing else (zeros, the bytes
 *     of that page's signature; poison or another page's signature is a
 *     failure); a write request never gets the zero page;
 *   - pte_ref_verify(mm) finds nothing at the end of each batch;
 *   - nothing leaks: free pages, slab objects, page-table pages.
 * Every case gives back what it took. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "arch/x86_64/cpu.h"
#include "kernel/unistd.h"
#include "mm/swap.h"
#include "mm/gup.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pt_reclaim.h"
#include "mm/pte_ref.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define BASE 0x0000310000000000ul /* a PGD entry of its own, 2 MiB aligned */

static unsigned long load(const volatile unsigned long *v) { return __atomic_load_n(v, __ATOMIC_ACQUIRE); }
static void inc(volatile unsigned long *v) { __atomic_add_fetch(v, 1, __ATOMIC_ACQ_REL); }

/* An mm with len bytes mapped read-write at BASE (test_mm: given back and
 * checked for leaks however the case ends), under mode (switched before
 * the mm is made, put back when the case ends). */
static struct mm_struct *gup_mm(struct kunit *test, unsigned long len, enum pte_reclaim_mode mode,
				unsigned flags)
{
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, mode), 0);
	struct mm_struct *mm = test_mm_create(test, flags);
	test_mm_map_anon(test, mm, BASE, len);
	return mm;
}

static struct page *page_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t e = test_mm_pte(mm, addr);
	return pte_present(e) ? pfn_to_page(pte_pfn(e)) : NULL;
}

static void put_pages(struct page **pages, long n)
{
	for (long i = 0; i < n; i++)
		put_page(pages[i]);
}

/* ---- what the walks take -------------------------------------------------------- */

/* The fast walk takes exactly the pages mapped with the access asked for,
 * in order, each with a reference, and stops at the first it cannot take;
 * the fallback faults the rest in (the zero page for reads, a page of its
 * own for writes). */
static void gup_takes_mapped_pages_in_order(struct kunit *test)
{
	static struct page *pages[8];
	struct mm_struct *mm = gup_mm(test, 8 * PAGE_SIZE, pte_reclaim_mode, TEST_MM_CURRENT);
	for (unsigned i = 0; i < 4; i++) {
		u64 v = 0x1000 + i;
		KUNIT_ASSERT_EQ(test, copy_to_user((void *)(BASE + i * PAGE_SIZE), &v, 8), 0);
	}
	struct gup_stats st0, st1;
	gup_get_stats(&st0);
	long n = get_user_pages_fast_only(BASE, 8, FOLL_WRITE, pages);
	KUNIT_EXPECT_EQ(test, n, 4); /* page 4 was never touched */
	for (long i = 0; i < n; i++) {
		KUNIT_EXPECT_PTR_EQ(test, pages[i], page_at(mm, BASE + i * PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, page_ref_count(pages[i]), 2); /* the mapping's and ours */
		KUNIT_EXPECT_EQ(test, *(u64 *)page_address(pages[i]), 0x1000 + (u64)i);
	}
	put_pages(pages, n);
	for (long i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, page_ref_count(pages[i]), 1);
	gup_get_stats(&st1);
	KUNIT_EXPECT_EQ(test, st1.fast_pages - st0.fast_pages, 4);
	KUNIT_EXPECT_EQ(test, st1.fast_stops - st0.fast_stops, 1);
	KUNIT_EXPECT_EQ(test, st1.slow_calls - st0.slow_calls, 0);

	/* Reads: pages 4 and 5 fault in as the zero page, which is taken
	 * too, with a reference. */
	int zero_refs = page_ref_count(zero_page);
	n = get_user_pages_fast(BASE + 2 * PAGE_SIZE, 4, 0, pages);
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_PTR_NE(test, pages[0], zero_page);
	KUNIT_EXPECT_PTR_EQ(test, pages[2], zero_page);
	KUNIT_EXPECT_PTR_EQ(test, pages[3], zero_page);
	KUNIT_EXPECT_EQ(test, page_ref_count(zero_page), zero_refs + 2);
	put_pages(pages, n);
	KUNIT_EXPECT_EQ(test, page_ref_count(zero_page), zero_refs);
	gup_get_stats(&st0);
	KUNIT_EXPECT_EQ(test, st0.slow_calls - st1.slow_calls, 1);
	KUNIT_EXPECT_EQ(test, st0.slow_pages - st1.slow_pages, 2);
	KUNIT_EXPECT_EQ(test, st0.slow_faults - st1.slow_faults, 2);

	/* A write where the zero page is mapped: never the zero page, a page
	 * of its own, mapped writable now. Reads of it now take it fast. */
	n = get_user_pages_fast(BASE + 4 * PAGE_SIZE, 1, FOLL_WRITE, pages);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_PTR_NE(test, pages[0], zero_page);
	KUNIT_EXPECT_PTR_EQ(test, pages[0], page_at(mm, BASE + 4 * PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, pte_write(test_mm_pte(mm, BASE + 4 * PAGE_SIZE)));
	put_pages(pages, n);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast_only(BASE, 6, 0, pages), 6);
	put_pages(pages, 6);
	/* Under the lock, directly. */
	mmap_read_lock(mm);
	n = get_user_pages(BASE + 6 * PAGE_SIZE, 2, FOLL_WRITE, pages);
	mmap_read_unlock(mm);
	KUNIT_EXPECT_EQ(test, n, 2);
	put_pages(pages, n > 0 ? n : 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 7); /* pages 0-4, 6, 7; 5 is the zero page */
	test_mm_destroy(test, mm);
}

/* Linux's errnos: bad flags, a range past the user half or wrapping, no
 * VMA, an access the VMA does not allow; a walk that took some pages
 * returns their number instead. */
static void gup_refuses_what_linux_refuses(struct kunit *test)
{
	static struct page *pages[4];
	struct mm_struct *mm = gup_mm(test, 4 * PAGE_SIZE, pte_reclaim_mode, TEST_MM_CURRENT);
	KUNIT_ASSERT_EQ(test, do_mmap(mm, BASE + 8 * PAGE_SIZE, PAGE_SIZE, PROT_READ, ANON | MAP_FIXED),
			BASE + 8 * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, do_mmap(mm, BASE + 10 * PAGE_SIZE, PAGE_SIZE, PROT_NONE, ANON | MAP_FIXED),
			BASE + 10 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE, 1, 1u << 5, pages), -EINVAL);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE, 0, 0, pages), 0);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(TASK_SIZE - PAGE_SIZE, 2, 0, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(0xffff800000000000ul, 1, 0, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE, ~0ul >> 1, 0, pages), -75 /* EOVERFLOW */);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE + 5 * PAGE_SIZE, 1, 0, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE + 8 * PAGE_SIZE, 1, FOLL_WRITE, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE + 10 * PAGE_SIZE, 1, 0, pages), -EFAULT);
	/* Read-only memory can be read (the zero page). */
	long n = get_user_pages_fast(BASE + 8 * PAGE_SIZE, 1, 0, pages);
	KUNIT_EXPECT_EQ(test, n, 1);
	put_pages(pages, n > 0 ? n : 0);
	/* Some pages, then the hole: the pages. */
	n = get_user_pages_fast(BASE + 2 * PAGE_SIZE, 4, FOLL_WRITE, pages);
	KUNIT_EXPECT_EQ(test, n, 2);
	put_pages(pages, n > 0 ? n : 0);
	/* No mm at all. */
	test_mm_unuse(test, mm);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(BASE, 1, 0, pages), -EFAULT);
	test_mm_destroy(test, mm);
}

/* A page the walk holds is not freed when its mapping goes (MADV_DONTNEED,
 * then the whole mm): the last put_page frees it, and only then do the
 * free pages come back. */
static void gup_reference_outlives_the_mapping(struct kunit *test)
{
	static struct page *pages[2];
	struct mm_struct *mm = gup_mm(test, 2 * PAGE_SIZE, pte_reclaim_mode, TEST_MM_CURRENT);
	u64 v = 0x5eed;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)BASE, &v, 8), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)(BASE + PAGE_SIZE), &v, 8), 0);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(BASE, 2, FOLL_WRITE, pages), 2);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_FALSE(test, pte_present(test_mm_pte(mm, BASE)));
	/* Unmapped, not freed: our reference alone keeps it. */
	KUNIT_EXPECT_EQ(test, page_ref_count(pages[0]), 1);
	KUNIT_EXPECT_EQ(test, pages[0]->_mapcount, -1);
	/* Still on the LRU, as Linux's: the last reference takes it off. */
	KUNIT_EXPECT_EQ(test, pages[0]->flags & PAGE_FLAGS_MASK,
			(1ul << PG_lru) | (1ul << PG_swapbacked));
	KUNIT_EXPECT_EQ(test, *(u64 *)page_address(pages[0]), 0x5eed);
	/* The whole mm goes; the second page stays ours too. */
	test_mm_put(test, mm);
	KUNIT_EXPECT_EQ(test, page_ref_count(pages[1]), 1);
	KUNIT_EXPECT_EQ(test, *(u64 *)page_address(pages[1]), 0x5eed);
	unsigned long bad = bad_page_reports;
	put_pages(pages, 2);
	KUNIT_EXPECT_EQ(test, bad_page_reports, bad);
	test_mm_destroy(test, mm); /* the free pages are back only now */
}

/* ---- the lockless walk beside emptying and refilling ------------------------------- */

/* 1024 pages = two PTE tables. Faulter i writes the signature of a page
 * into runs of 4 pages at the start of 16-page slots of its range, then
 * MADV_DONTNEEDs its whole range: 0 = table 0, 1 = the second half of
 * table 0 and the first of table 1, 2 = table 1, 3 = both (whole tables,
 * so the scan design frees them too). The walker takes runs of 4 pages at
 * slot starts, in a scattered order, reads or writes. */
#define STRESS_PAGES 1024
#define SLOT_PAGES 16
#define RUN 4
#define FAULTERS 4
#define BATCHES 10
/* Fault-and-zap rounds in all, per mode (a round: one faulter writes 8
 * pages, then MADV_DONTNEEDs its range, which flushes the TLB of every CPU
 * of the mm with IPIs). The lockless walk's tests ask for at least 10,000 on the 4-CPU
 * topology: `gup_test.rounds=10000` on the command line does that. The
 * default is smaller because a round costs 10 to 80 ms of TCG time on this
 * project's shared 2-core hosts (measured: 400 rounds in 11 s on the
 * default topology at a load average of 30, 1,000 in 22 s; 300 ms
 * without the MADV_DONTNEEDs), and the whole default boot must finish in
 * its 150 s. With 2 or 3 CPUs, a fifth of it: the faulters share one or
 * two CPUs (280 rounds took 15 s on two-node, whose boot has 90 s). With
 * ref's and scan's branches merged, gup_test.rounds=10000 and
 * page_poison=on passed on the default topology in 350 s (refcount) and
 * 183 s (scan) at a load average of 17 to 28. */
#define STRESS_ROUNDS_DEFAULT 400
static int stress_rounds;
kernel_param_int("gup_test.rounds", stress_rounds, 0, 10000000,
		 "fault-and-zap rounds of each gup stress case (0: the default)");

struct stress {
	struct mm_struct *mm;
	unsigned long rounds; /* per faulter per batch */
	volatile unsigned long faulters_done;
	volatile unsigned long faulter_errors;
	volatile unsigned long walker_started; /* this batch's walker is in its loop */
	/* The walker's findings. */
	unsigned long calls, pages, zero_pages, bad_state, bad_contents, zero_for_write, errors;
	bool write_calls_seen;
};

static void range_of(unsigned i, unsigned long *first, unsigned long *n)
{
	static const unsigned long start[FAULTERS] = { 0, 256, 512, 0 };
	static const unsigned long len[FAULTERS] = { 512, 512, 512, 1024 };
	*first = start[i];
	*n = len[i];
}

/* The 8 signature bytes of page idx: none is 0 or PAGE_POISON, and two
 * pages' signatures differ in their idx bytes. */
static void signature(unsigned long idx, u8 sig[8])
{
	sig[0] = 0x47;
	sig[1] = (u8)(idx & 0x7f) | 0x01;
	sig[2] = (u8)(idx >> 7) | 0x10;
	sig[3] = 0x55;
	sig[4] = (u8)(0x80 | (idx & 0x3f));
	sig[5] = (u8)(0x40 | (idx >> 6));
	sig[6] = 0x50;
	sig[7] = 0x21;
}

/* Faulter id (0 .. FAULTERS - 1), worker id + 1 of the crew. */
static void faulter(struct test_worker *w, unsigned id)
{
	struct stress *st = w->crew->ctx;
	unsigned long first, n;
	range_of(id, &first, &n);
	unsigned long slots = n / SLOT_PAGES;
	kthread_use_mm(st->mm);
	/* The walk must run beside the rounds, not after them: the walker's
	 * CPU is the test's, which hands it over only when the test sleeps,
	 * and a host that starves one vCPU's thread (TCG with a thread per
	 * vCPU on a loaded host) let every batch's rounds end before the
	 * walker's first call. Wait for it a while (cond_resched: a faulter
	 * may share the walker's CPU), then go on whatever happened: the case
	 * fails if the walk took nothing. */
	u64 deadline = ktime_get_ns() + 2000000000ull;
	while (!load(&st->walker_started) && ktime_get_ns() < deadline) {
		cpu_relax();
		cond_resched();
	}
	for (unsigned long r = 0; r < st->rounds; r++) {
		for (unsigned s = 0; s < 2; s++) {
			unsigned long slot = (r * 7 + s * 13 + id * 5) % slots;
			for (unsigned j = 0; j < RUN; j++) {
				unsigned long idx = first + slot * SLOT_PAGES + j;
				u8 sig[8];
				signature(idx, sig);
				if (copy_to_user((void *)(BASE + idx * PAGE_SIZE), sig, 8))
					inc(&st->faulter_errors);
			}
		}
		if (do_madvise(st->mm, BASE + first * PAGE_SIZE, n * PAGE_SIZE, MADV_DONTNEED))
			inc(&st->faulter_errors);
		test_crew_progress(w);
		cond_resched();
	}
	kthread_unuse_mm(st->mm);
	inc(&st->faulters_done);
}

/* A page the walker holds: not free, and holding what the faulters write
 * at idx and nothing else. */
static void check_taken(struct stress *st, struct page *page, unsigned long idx, bool write)
{
	/* Allocated (no free-list flag), an anonymous page on the LRU or
	 * the zero page; reclaim's flags are the only ones it may show. */
	if (page_ref_count(page) < 1 || (page->flags & PAGE_FLAGS_MASK & ~LRU_PAGE_FLAGS))
		st->bad_state++;
	if (page == zero_page) {
		st->zero_pages++;
		if (write)
			st->zero_for_write++;
		return;
	}
	const u8 *b = page_address(page);
	u8 sig[8];
	signature(idx, sig);
	bool ok = true;
	for (unsigned i = 0; i < 8; i++)
		if (b[i] && b[i] != sig[i])
			ok = false;
	/* The rest was zeroed when the page was faulted in and never
	 * written: poison or anything else here is not this page. */
	const u64 *words = (const u64 *)b;
	if (words[1] || words[PAGE_SIZE / 16] || words[PAGE_SIZE / 8 - 1])
		ok = false;
	if (!ok)
		st->bad_contents++;
}

/* Worker 0 of the crew. */
static void walker(struct stress *st)
{
	struct page *pages[RUN];
	kthread_use_mm(st->mm);
	inc(&st->walker_started);
	for (unsigned long k = 0; load(&st->faulters_done) < FAULTERS; k++) {
		unsigned long slot = (k * 37) % (STRESS_PAGES / SLOT_PAGES);
		unsigned long idx = slot * SLOT_PAGES;
		bool write = k % 3 == 0;
		unsigned int flags = write ? FOLL_WRITE : 0;
		/* Mostly the lockless walk alone; one call in 16 goes on to
		 * the locked walk and faults the rest in, as a fault would. */
		long n = k % 16 == 15 ? get_user_pages_fast(BASE + idx * PAGE_SIZE, RUN, flags, pages)
				      : get_user_pages_fast_only(BASE + idx * PAGE_SIZE, RUN, flags, pages);
		st->calls++;
		if (n < 0 || n > RUN) {
			st->errors++;
			n = 0;
		}
		for (long i = 0; i < n; i++)
			check_taken(st, pages[i], idx + (unsigned long)i, write);
		st->pages += (unsigned long)n;
		put_pages(pages, n);
		if (k % 8 == 0)
			cond_resched();
	}
	kthread_unuse_mm(st->mm);
}

static int stress_fn(struct test_worker *w)
{
	if (w->id == 0)
		walker(w->crew->ctx);
	else
		faulter(w, w->id - 1);
	return 0;
}

static void gup_fast_beside_emptying_tables(struct kunit *test, enum pte_reclaim_mode mode)
{
	static struct stress st;
	static struct test_crew c;
	unsigned cpus = num_online_cpus();
	if (cpus < 2)
		kunit_skip(test, "one CPU: the walker would never run beside the faulters");
	struct mm_struct *mm = gup_mm(test, STRESS_PAGES * PAGE_SIZE, mode, 0);
	memset(&st, 0, sizeof(st));
	st.mm = mm;
	unsigned long total = stress_rounds ? (unsigned long)stress_rounds
		: cpus >= 4 ? STRESS_ROUNDS_DEFAULT : STRESS_ROUNDS_DEFAULT / 5;
	st.rounds = (total + FAULTERS * BATCHES - 1) / (FAULTERS * BATCHES);
	kunit_info(test, "%s mode, %u CPUs, page_poison=%s: %lu fault-and-zap rounds in %d batches",
		   pte_reclaim_mode_name(mode), cpus, page_poisoning ? "on" : "off",
		   st.rounds * FAULTERS * BATCHES, BATCHES);
	struct gup_stats g0, g1;
	gup_get_stats(&g0);
	u64 t0 = ktime_get_ns();
	unsigned long verify_errors = 0, bad = bad_page_reports;
	long min_ptes = STRESS_PAGES / PTRS_PER_TABLE;
	/* The walker on this CPU (this task sleeps while it waits), the
	 * faulters on the others, round. */
	unsigned where[FAULTERS + 1] = { smp_processor_id() };
	for (unsigned i = 0; i < FAULTERS; i++)
		where[1 + i] = test_nth_other_cpu_or_this(i);
	for (unsigned b = 0; b < BATCHES; b++) {
		st.faulters_done = 0;
		st.walker_started = 0;
		test_crew_start_on(test, &c, stress_fn, &st, where, FAULTERS + 1, FAULTERS + 1);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
		/* Nobody walks now: every table's count is its entries. */
		verify_errors += pte_ref_verify(mm);
		long ptes = __atomic_load_n(&mm->nr_ptes, __ATOMIC_RELAXED);
		min_ptes = ptes < min_ptes ? ptes : min_ptes;
	}
	gup_get_stats(&g1);
	kunit_info(test, "%llu ms of guest time; %ld of the %d PTE tables left at the emptiest batch end "
			 "(fewer: tables were freed while the walker ran)",
		   (unsigned long long)((ktime_get_ns() - t0) / 1000000), min_ptes,
		   STRESS_PAGES / PTRS_PER_TABLE);
	kunit_info(test, "walker: %lu calls, %lu pages (%lu zero page), %lu fast, %lu raced, "
			 "%lu fast stops, %lu slow faults",
		   st.calls, st.pages, st.zero_pages, g1.fast_pages - g0.fast_pages,
		   g1.raced - g0.raced, g1.fast_stops - g0.fast_stops, g1.slow_faults - g0.slow_faults);
	KUNIT_EXPECT_EQ(test, st.faulter_errors, 0);
	KUNIT_EXPECT_EQ(test, st.errors, 0);
	KUNIT_EXPECT_EQ(test, g1.poisoned - g0.poisoned, 0);
	KUNIT_EXPECT_EQ(test, g1.bad_entries - g0.bad_entries, 0);
	KUNIT_EXPECT_EQ(test, st.bad_state, 0);
	KUNIT_EXPECT_EQ(test, st.bad_contents, 0);
	KUNIT_EXPECT_EQ(test, st.zero_for_write, 0);
	KUNIT_EXPECT_EQ(test, verify_errors, 0);
	KUNIT_EXPECT_EQ(test, bad_page_reports, bad);
	/* The walk did take pages (the case is not vacuous). */
	KUNIT_EXPECT_GT(test, g1.fast_pages - g0.fast_pages, 0);
	test_mm_destroy(test, mm);
}

static void gup_fast_beside_emptying_tables_refcount(struct kunit *test)
{
	gup_fast_beside_emptying_tables(test, PTE_RECLAIM_REFCOUNT);
}

static void gup_fast_beside_emptying_tables_scan(struct kunit *test)
{
	gup_fast_beside_emptying_tables(test, PTE_RECLAIM_SCAN);
}

static struct kunit_case gup_cases[] = {
	KUNIT_CASE(gup_takes_mapped_pages_in_order),
	KUNIT_CASE(gup_refuses_what_linux_refuses),
	KUNIT_CASE(gup_reference_outlives_the_mapping),
	KUNIT_CASE(gup_fast_beside_emptying_tables_refcount),
	KUNIT_CASE(gup_fast_beside_emptying_tables_scan),
	{},
};

static struct kunit_suite gup_suite = { .name = "gup", .test_cases = gup_cases };
kunit_test_suite(gup_suite);
