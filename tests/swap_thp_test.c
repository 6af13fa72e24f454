/* THPs and swap (mm/huge_memory_split.c, mm/madvise_cold.c, mm/vmscan.c),
 * on the swap machine (tests/topologies/swap.topo):
 *   - MADV_PAGEOUT of a whole PMD-mapped THP: split by reclaim_pages
 *     (thp_split_page, thp_swpout_fallback: no THP swap on this disk, as
 *     Linux 6.1's on a rotational one), every page to swap, and back;
 *   - MADV_PAGEOUT of part of a THP: split first (no fallback counted),
 *     exactly the range to swap; MADV_COLD of part: split, nothing to swap;
 *   - a THP fork shares is left alone by MADV_PAGEOUT ("do not interfere
 *     with other mappings"), and split_huge_page_to_list splits it in both
 *     mms at once: the same pages, each mapped twice, copy-on-write;
 *   - reclaim itself (shrink_inactive_list, as kswapd or direct reclaim
 *     run it) swaps out a THP MADV_COLD made old: split, then page by page;
 *   - MADV_PAGEOUT's split of a whole THP while another thread waits to
 *     take the mmap_lock for writing: the split and each page's unmapping
 *     done under madvise's read lock (a nested trylock of it would fail).
 * In every case every byte of every page is checked after it came back,
 * MM_SWAPENTS and MM_ANONPAGES, AnonHugePages, and pte_ref_verify (in
 * each pte_reclaim mode where the case is a parameter); the mm's pages,
 * page tables and slab objects are back at its end (tests/test_mm.h),
 * after the area went off (the cleanup actions run in reverse). */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/unistd.h"
#include "mm/huge_memory.h"
#include "mm/madvise_cold.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/swapops.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

#define BASE 0x40000000ul /* 2 MiB aligned */
#define THP_PAGES HPAGE_PMD_NR

static int saved_enabled;
static void restore_enabled(void *saved) { thp_enabled_mode = *(int *)saved; }

static void swapoff_action(void *ctx)
{
	(void)ctx;
	if (total_swap_pages)
		ksys_swapoff("/dev/vda");
}

/* The word w of page i. */
static u64 pattern(unsigned long i, unsigned long w) { return (i << 32) ^ (w * 0x9e3779b97f4a7c15ull) ^ 0x5a; }

/* The swap area on for the case, THP mode "madvise", and an mm (current)
 * with MADV_HUGEPAGE on [BASE, BASE + 2 MiB) whose every page is written:
 * one THP mapped by a PMD (ASSERTed). */
static struct mm_struct *thp_mm(struct kunit *test, u64 *buf)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	saved_enabled = thp_enabled_mode;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_enabled, &saved_enabled), 0);
	thp_enabled_mode = THP_ENABLED_MADVISE;
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	if (total_swap_pages)
		kunit_skip(test, "a swap area is on already");
	int err = ksys_swapon("/dev/vda", 0);
	if (err)
		kunit_skip(test, "no swap area on /dev/vda (%d): not the swap machine", err);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, swapoff_action, NULL), 0);
	test_mm_map_anon(test, mm, BASE, PMD_SIZE);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_HUGEPAGE), 0);
	for (unsigned long i = 0; i < THP_PAGES; i++) {
		for (unsigned long w = 0; w < PAGE_SIZE / 8; w++)
			buf[w] = pattern(i, w);
		KUNIT_ASSERT_EQ(test, copy_to_user((void *)(BASE + i * PAGE_SIZE), buf, PAGE_SIZE), 0ul);
	}
	if (!test_mm_pmd_page(mm, BASE))
		kunit_skip(test, "no THP at the first write (no free 2 MiB block)");
	return mm;
}

/* Pages of the THP's range, read through mm (current: faults swap them
 * in), whose bytes are not the pattern. */
static unsigned long bad_pages(u64 *buf, unsigned long pages)
{
	unsigned long bad = 0;
	for (unsigned long i = 0; i < pages; i++) {
		bool ok = !copy_from_user(buf, (void *)(BASE + i * PAGE_SIZE), PAGE_SIZE);
		for (unsigned long w = 0; ok && w < PAGE_SIZE / 8; w++)
			ok = buf[w] == pattern(i, w);
		bad += !ok;
	}
	return bad;
}

struct entry_census {
	unsigned long swap, present;
};

static struct entry_census census(struct mm_struct *mm, unsigned long first, unsigned long last)
{
	struct entry_census c = { 0, 0 };
	mmap_read_lock(mm);
	for (unsigned long i = first; i < last; i++) {
		pte_t e = test_mm_pte(mm, BASE + i * PAGE_SIZE);
		c.swap += is_swap_pte(e);
		c.present += pte_present(e);
	}
	mmap_read_unlock(mm);
	return c;
}

/* One page's words, written or read (the cases run one at a time). */
static u64 page_words[PAGE_SIZE / 8];

static u64 *page_buf(struct kunit *test)
{
	(void)test;
	return page_words;
}

static void pageout_whole_thp_splits_and_swaps(struct kunit *test)
{
	u64 *buf = page_buf(test);
	unsigned long thps0 = nr_anon_thps();
	struct mm_struct *mm = thp_mm(test, buf);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps0 + 1);
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE), fb0 = all_vm_events(THP_SWPOUT_FALLBACK);
	unsigned long out0 = all_vm_events(PSWPOUT);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_PAGEOUT), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SWPOUT_FALLBACK) - fb0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPOUT) - out0, (unsigned long)THP_PAGES);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(mm, BASE));
	KUNIT_EXPECT_EQ(test, census(mm, 0, THP_PAGES).swap, (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps0);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul); /* swap-in by faults */
	KUNIT_EXPECT_EQ(test, census(mm, 0, THP_PAGES).present, (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
}

/* Part of a THP: split by madvise itself (Linux's next - addr !=
 * HPAGE_PMD_SIZE), then only the range's pages go. */
static void pageout_part_of_thp_splits_first(struct kunit *test)
{
	u64 *buf = page_buf(test);
	struct mm_struct *mm = thp_mm(test, buf);
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE), fb0 = all_vm_events(THP_SWPOUT_FALLBACK);
	const unsigned long first = 64, last = 192;
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + first * PAGE_SIZE, (last - first) * PAGE_SIZE, MADV_PAGEOUT), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SWPOUT_FALLBACK) - fb0, 0ul);
	KUNIT_EXPECT_EQ(test, census(mm, first, last).swap, last - first);
	KUNIT_EXPECT_EQ(test, census(mm, 0, first).present, first);
	KUNIT_EXPECT_EQ(test, census(mm, last, THP_PAGES).present, THP_PAGES - last);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), last - first);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), THP_PAGES - (last - first));
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
}

static void cold_part_of_thp_splits_and_keeps_it(struct kunit *test)
{
	u64 *buf = page_buf(test);
	struct mm_struct *mm = thp_mm(test, buf);
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE), out0 = all_vm_events(PSWPOUT);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + PAGE_SIZE, PMD_SIZE - PAGE_SIZE, MADV_COLD), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPOUT), out0);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(mm, BASE));
	KUNIT_EXPECT_EQ(test, census(mm, 0, THP_PAGES).present, (unsigned long)THP_PAGES);
	/* 512 pages of their own now, each on the LRU. */
	pte_t e = test_mm_pte(mm, BASE + 7 * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, pte_present(e));
	struct page *p = pfn_to_page(pte_pfn(e));
	KUNIT_EXPECT_PTR_EQ(test, compound_head(p), p);
	KUNIT_EXPECT_EQ(test, page_ref_count(p), 1);
	KUNIT_EXPECT_TRUE(test, page_test_flag(p, PG_lru));
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul);
}

/* A THP fork shares: MADV_PAGEOUT leaves it whole (another mapping maps
 * it); split_huge_page_to_list, as reclaim calls it, splits it in both
 * mms, every page then mapped by both, read-only, and each side's write
 * its own. */
static void thp_shared_by_fork_split_in_both(struct kunit *test)
{
	u64 *buf = page_buf(test);
	struct mm_struct *mm = thp_mm(test, buf);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_PAGEOUT), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE), split0);
	struct page *head = test_mm_pmd_page(mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(child, BASE), head);
	KUNIT_ASSERT_EQ(test, isolate_lru_page(head), 0);
	LIST_HEAD(tails);
	KUNIT_EXPECT_EQ(test, split_huge_page_to_list(head, &tails, NULL), 0);
	unsigned long n = 0;
	while (!list_empty(&tails)) {
		struct page *t = lru_to_folio(tails.next);
		list_del(folio_lru(t));
		KUNIT_EXPECT_PTR_EQ(test, t, head + 1 + n);
		n++;
		putback_lru_page(t);
	}
	putback_lru_page(head);
	KUNIT_EXPECT_EQ(test, n, (unsigned long)THP_PAGES - 1);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	for (unsigned long i = 0; i < THP_PAGES; i += 37) {
		pte_t a = test_mm_pte(mm, BASE + i * PAGE_SIZE), b = test_mm_pte(child, BASE + i * PAGE_SIZE);
		KUNIT_EXPECT_TRUE(test, pte_present(a) && pte_present(b));
		KUNIT_EXPECT_EQ(test, pte_pfn(a), page_to_pfn(head) + i);
		KUNIT_EXPECT_EQ(test, pte_pfn(b), page_to_pfn(head) + i);
		KUNIT_EXPECT_FALSE(test, pte_write(a) || pte_write(b));
		KUNIT_EXPECT_EQ(test, page_mapcount(head + i), 2);
		KUNIT_EXPECT_EQ(test, page_ref_count(head + i), 2);
	}
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	/* Copy-on-write as for any shared page: the parent's write is its own. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE, 1), 0); /* a copy of its own */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, BASE), pattern(0, 0));
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE, pattern(0, 0)), 0);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul);
	struct mm_struct *was = test_mm_enter(child);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul);
	test_mm_leave(child, was);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	mmput(child);
}

/* Reclaim's own path: MADV_COLD makes the whole THP old and inactive;
 * a scan of its node's whole inactive anon list (Linux's
 * shrink_inactive_list) splits it (add_to_swap of a large folio fails:
 * thp_swpout_fallback) and swaps out its 512 pages in the same pass. */
static void reclaim_splits_thp_to_swap(struct kunit *test)
{
	u64 *buf = page_buf(test);
	struct mm_struct *mm = thp_mm(test, buf);
	struct page *head = test_mm_pmd_page(mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_COLD), 0);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(mm, BASE), head); /* covered whole: not split */
	KUNIT_EXPECT_FALSE(test, page_test_flag(head, PG_active));
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE), fb0 = all_vm_events(THP_SWPOUT_FALLBACK);
	struct lruvec *lruvec = folio_lruvec(head);
	struct scan_control sc = {
		.nr_to_reclaim = ~0ul, .gfp_mask = GFP_KERNEL, .priority = 0, .may_swap = true,
	};
	unsigned int noreclaim = memalloc_noreclaim_save();
	shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_ANON]), lruvec, &sc, LRU_INACTIVE_ANON);
	memalloc_noreclaim_restore(noreclaim);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SWPOUT_FALLBACK) - fb0, 1ul);
	KUNIT_EXPECT_EQ(test, census(mm, 0, THP_PAGES).swap, (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
}

/* A thread of the process that takes its mmap_lock for writing (an
 * mmap, a munmap) and lets go. */
static int mmap_writer_fn(void *data)
{
	struct mm_struct *mm = data;
	mmap_write_lock(mm);
	mmap_write_unlock(mm);
	return 0;
}

/* MADV_PAGEOUT of a whole PMD-mapped THP while another thread waits for
 * the mmap_lock to write: madvise holds it for reading, and the split
 * walks the mm under that lock (Linux's split_huge_page under the
 * caller's mmap_lock), not under a nested trylock, which fails whenever a
 * writer waits (kernel/rwsem.c), and so do the pages' unmappings. Split,
 * its PMD gone, every page to swap, every byte back. */
static void pageout_thp_with_writer_waiting(struct kunit *test)
{
	u64 *buf = page_buf(test);
	struct mm_struct *mm = thp_mm(test, buf);
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE), fb0 = all_vm_events(THP_SWPOUT_FALLBACK);
	unsigned long out0 = all_vm_events(PSWPOUT);
	/* madvise's steps by hand (do_madvise would queue behind the
	 * writer): its read lock, the writer queued, the advice. */
	mmap_read_lock(mm);
	struct task_struct *w = kthread_run_on_cpu(mmap_writer_fn, mm, test_other_cpu_or_this(), "mmwriter/%u");
	bool queued = w && TEST_WAIT_UNTIL(test_rwsem_waiters(&mm->mmap_lock) == 1, NULL);
	int err = -EAGAIN;
	if (queued)
		err = madvise_cold_or_pageout(find_vma(mm, BASE), BASE, BASE + PMD_SIZE, MADV_PAGEOUT);
	mmap_read_unlock(mm);
	if (w)
		kthread_join(w);
	KUNIT_ASSERT_TRUE(test, queued);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SWPOUT_FALLBACK) - fb0, 1ul);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(mm, BASE));
	/* And each page unmapped under the same lock (try_to_unmap_one). */
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPOUT) - out0, (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), (unsigned long)THP_PAGES);
	KUNIT_EXPECT_EQ(test, bad_pages(buf, THP_PAGES), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
}

static struct kunit_case swap_thp_cases[] = {
	KUNIT_CASE_PARAM(pageout_whole_thp_splits_and_swaps, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(pageout_part_of_thp_splits_first, pte_reclaim_modes_gen_params),
	KUNIT_CASE(cold_part_of_thp_splits_and_keeps_it),
	KUNIT_CASE(thp_shared_by_fork_split_in_both),
	KUNIT_CASE_PARAM(reclaim_splits_thp_to_swap, pte_reclaim_modes_gen_params),
	KUNIT_CASE(pageout_thp_with_writer_waiting),
	{}
};

static struct kunit_suite swap_thp_suite = {
	.name = "swap_thp",
	.test_cases = swap_thp_cases,
};
kunit_test_suite(swap_thp_suite);
