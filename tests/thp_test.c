/* Transparent huge pages (mm/huge_memory.c) and the clearing they go
 * through (mm/clear_page.c): a write fault in a MADV_HUGEPAGE VMA maps one
 * cleared order-9 page with a huge PMD and a deposited PTE table; the
 * sysfs mode, MADV_NOHUGEPAGE and a VMA too small or misaligned for 2 MiB
 * keep 4 KiB pages; no free 2 MiB block falls back (thp_fault_fallback);
 * a part unmapped, protected or moved splits it and keeps every other
 * byte; a populate as large as the clearing threshold clears uncached (the
 * bulk hint), a lone fault does not; a read maps the huge zero page;
 * exit gives everything back. Every
 * case checks that free pages and slab objects come back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/clear_page.h"
#include "mm/fail_page_alloc.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/migrate.h"
#include "mm/mmap_lock.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"

#define BASE 0x0000320000000000ul /* a PGD entry of its own, 2 MiB aligned */
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

struct space {
	struct mm_struct *mm;
};

static int saved_enabled;
static void restore_enabled(void *saved) { thp_enabled_mode = *(int *)saved; }

/* An mm, the current task's, with [BASE, BASE + size) mapped; madvise
 * MADV_HUGEPAGE on it when huge. THP mode "madvise" for the case. The mm
 * is the fixture of tests/test_mm.h: when it goes, every page (after the
 * RCU callbacks that free tables) and slab object must be back. */
static void space_init(struct kunit *test, struct space *s, unsigned long size, bool huge)
{
	saved_enabled = thp_enabled_mode;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_enabled, &saved_enabled), 0);
	thp_enabled_mode = THP_ENABLED_MADVISE;
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, s->mm, BASE, size);
	if (huge)
		KUNIT_ASSERT_EQ(test, do_madvise(s->mm, BASE, size, MADV_HUGEPAGE), 0);
}

static void space_destroy(struct kunit *test, struct space *s)
{
	test_mm_destroy(test, s->mm);
	kunit_release_action(test, restore_enabled, &saved_enabled);
}

static int touch(unsigned long addr, u64 value) { return put_user_u64(value, (void *)addr); }

static pmd_t pmd_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd ? pmdp_get(pmd) : __pmd(0);
}

/* 4 KiB pages of [addr, addr + len) whose first word is not the wanted
 * one: want(i) = base_value + i, or 0 where zero. */
static unsigned long mismatches(unsigned long addr, unsigned long pages, u64 base_value)
{
	unsigned long bad = 0;
	for (unsigned long i = 0; i < pages; i++) {
		u64 v = ~0ull;
		if (get_user_u64(&v, (void *)(addr + i * PAGE_SIZE)) || v != (base_value ? base_value + i : 0))
			bad++;
	}
	return bad;
}

static unsigned long clear_extents(void)
{
	unsigned long n = 0;
	for (unsigned m = 0; m < NR_CLEAR_PAGE_METHODS; m++)
		n += clear_page_stats_sum().extents[m];
	return n;
}

static void write_fault_maps_a_cleared_huge_page(struct kunit *test)
{
	struct space s;
	/* Dirty a 2 MiB block and give it back: the fault may well get it. */
	struct page *dirty = alloc_pages(GFP_KERNEL, HPAGE_PMD_ORDER);
	if (!dirty)
		kunit_skip(test, "no free order-9 block");
	memset(page_address(dirty), 0xa5, PMD_SIZE);
	__free_pages(dirty, HPAGE_PMD_ORDER);
	space_init(test, &s, 2 * PMD_SIZE, true);
	unsigned long allocs = all_vm_events(THP_FAULT_ALLOC), thps = nr_anon_thps();
	unsigned long extents = clear_extents();
	/* A read first: the huge zero page, when the boot could get one. */
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + PMD_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, 0ull);
	KUNIT_EXPECT_EQ(test, pmd_trans_huge(pmd_at(s.mm, BASE + PMD_SIZE)), huge_zero_pfn != ~0ul);
	/* A write in the middle of the first 2 MiB. */
	KUNIT_ASSERT_EQ(test, touch(BASE + 300 * PAGE_SIZE, 42), 0);
	pmd_t pmd = pmd_at(s.mm, BASE);
	KUNIT_ASSERT_TRUE(test, pmd_trans_huge(pmd));
	KUNIT_EXPECT_TRUE(test, pmd_write(pmd));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FAULT_ALLOC), allocs + 1);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps + 1);
	KUNIT_EXPECT_EQ(test, clear_extents(), extents + 1);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR + 0);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2); /* the deposit, and the read's deposit or table */
	KUNIT_EXPECT_EQ(test, clear_page_pending_count(), 0ul);
	/* Every byte zero but the one word written. */
	KUNIT_EXPECT_EQ(test, touch(BASE + 300 * PAGE_SIZE, 0), 0);
	KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(BASE, HPAGE_PMD_NR, 1), 0ul);
	/* The page is where the default (local) policy puts a page: this
	 * CPU's node, or the nearest with memory when it has none (what an
	 * order-0 allocation here gets). */
	struct page *probe = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, probe);
	int local = page_to_nid(probe);
	__free_page(probe);
	KUNIT_EXPECT_EQ(test, page_to_nid(pfn_to_page(pmd_pfn(pmd))), local);
	space_destroy(test, &s);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps);
}

static void small_pages_where_thp_may_not_go(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 8 * PMD_SIZE, false);
	unsigned long allocs = all_vm_events(THP_FAULT_ALLOC);
	/* madvise mode, no MADV_HUGEPAGE. */
	KUNIT_EXPECT_EQ(test, touch(BASE, 1), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE)));
	/* always, but MADV_NOHUGEPAGE. */
	thp_enabled_mode = THP_ENABLED_ALWAYS;
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + PMD_SIZE, PMD_SIZE, MADV_NOHUGEPAGE), 0);
	KUNIT_EXPECT_EQ(test, touch(BASE + PMD_SIZE, 1), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE + PMD_SIZE)));
	/* MADV_HUGEPAGE, but never. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 2 * PMD_SIZE, PMD_SIZE, MADV_HUGEPAGE), 0);
	thp_enabled_mode = THP_ENABLED_NEVER;
	KUNIT_EXPECT_EQ(test, touch(BASE + 2 * PMD_SIZE, 1), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE + 2 * PMD_SIZE)));
	/* always, but the VMA covers only part of the 2 MiB. */
	thp_enabled_mode = THP_ENABLED_ALWAYS;
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, BASE + 4 * PMD_SIZE - PAGE_SIZE, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, touch(BASE + 3 * PMD_SIZE, 1), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE + 3 * PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FAULT_ALLOC), allocs);
	/* always, and the whole 2 MiB: huge. */
	KUNIT_EXPECT_EQ(test, touch(BASE + 5 * PMD_SIZE, 1), 0);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE + 5 * PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FAULT_ALLOC), allocs + 1);
	space_destroy(test, &s);
}

static struct fault_attr saved_attr;

static void injection_off(void *unused)
{
	(void)unused;
	fault_attr_arm(false);
	fail_page_alloc = saved_attr;
}

/* No 2 MiB block to be had (every order-9 allocation of this task fails):
 * the fault falls back to a 4 KiB page, counted. */
static void no_huge_block_falls_back(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, true);
	saved_attr = fail_page_alloc;
	fail_page_alloc = (struct fault_attr){ .probability = 100, .interval = 1, .times = -1,
					       .min_order = HPAGE_PMD_ORDER, .only_task = current };
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, injection_off, NULL), 0);
	fault_attr_arm(true);
	unsigned long fallbacks = all_vm_events(THP_FAULT_FALLBACK);
	KUNIT_EXPECT_EQ(test, touch(BASE + 5 * PAGE_SIZE, 5), 0);
	kunit_release_action(test, injection_off, NULL);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FAULT_FALLBACK), fallbacks + 1);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE)));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1ul);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 5 * PAGE_SIZE, 1, 5), 0ul);
	space_destroy(test, &s);
}

/* A part unmapped, made read-only or given back splits the huge PMD: the
 * deposited table takes its 512 entries, and every other byte stays. */
static void parts_split_and_keep_the_rest(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, true);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
		KUNIT_ASSERT_EQ(test, touch(BASE + i * PAGE_SIZE, 0x1000 + i), 0);
	KUNIT_ASSERT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE)));
	unsigned long splits = all_vm_events(THP_SPLIT_PMD);
	long tables = s.mm->pgtables_bytes;

	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, BASE + 100 * PAGE_SIZE, PAGE_SIZE), 0);
	pmd_t pmd = pmd_at(s.mm, BASE);
	KUNIT_EXPECT_FALSE(test, pmd_none(pmd) || pmd_trans_huge(pmd));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PMD), splits + 1);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, tables); /* the deposit is the table now */
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR - 1);
	if (pte_ref_enabled())
		KUNIT_EXPECT_EQ(test, pte_ref_count(mm_find_pmd(s.mm, BASE)), (int)HPAGE_PMD_NR - 1);
	KUNIT_EXPECT_EQ(test, mismatches(BASE, 100, 0x1000), 0ul);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 101 * PAGE_SIZE, HPAGE_PMD_NR - 101, 0x1000 + 101), 0ul);

	/* The split pages are ordinary 4 KiB pages now: read-only one... */
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE + 200 * PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_NE(test, touch(BASE + 200 * PAGE_SIZE, 7), 0);
	/* ...give one back... */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 300 * PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 300 * PAGE_SIZE, 1, 0), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR - 2);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 301 * PAGE_SIZE, 10, 0x1000 + 301), 0ul);

	/* A second huge page, protected in part: split, the rest untouched. */
	KUNIT_ASSERT_EQ(test, touch(BASE + PMD_SIZE, 0x2000), 0);
	KUNIT_ASSERT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE + PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE + PMD_SIZE + PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE + PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PMD), splits + 2);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + PMD_SIZE, 1, 0x2000), 0ul);
	KUNIT_EXPECT_EQ(test, touch(BASE + PMD_SIZE + 2 * PAGE_SIZE, 3), 0);
	space_destroy(test, &s);
}

/* A whole huge PMD given back goes as one (no split), with its deposit. */
static void whole_huge_pmd_goes_as_one(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, true);
	KUNIT_ASSERT_EQ(test, touch(BASE, 1), 0);
	KUNIT_ASSERT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE)));
	unsigned long splits = all_vm_events(THP_SPLIT_PMD);
	long tables = s.mm->pgtables_bytes;
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_TRUE(test, pmd_none(pmd_at(s.mm, BASE)));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PMD), splits);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, tables - (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0ul);
	/* And a write brings it back huge, zeroed (a read first would map
	 * the huge zero page, and a write after it gets 4 KiB pages). */
	KUNIT_ASSERT_EQ(test, touch(BASE + 8, 2), 0);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE)));
	KUNIT_EXPECT_EQ(test, mismatches(BASE, 1, 0), 0ul);
	space_destroy(test, &s);
}

/* The bulk hint: a populate at least as large as the threshold clears its
 * huge pages with auto's uncached method; a lone fault, with its cached one. */
static void populate_gives_the_bulk_hint(struct kunit *test)
{
	struct space s;
	enum clear_page_method saved_method = clear_page_policy.method;
	bool saved_set = clear_page_policy.threshold_set;
	u64 saved_threshold = clear_page_policy.threshold;
	KUNIT_ASSERT_EQ(test, clear_page_set_method(CLEAR_PAGE_AUTO), 0);
	KUNIT_ASSERT_EQ(test, clear_page_set_threshold(4 * PMD_SIZE), 0);
	space_init(test, &s, 8 * PMD_SIZE, true);
	enum clear_page_method cached = clear_page_policy.cached, uncached = clear_page_policy.uncached;
	unsigned long c0 = clear_page_stats_sum().extents[cached], u0 = clear_page_stats_sum().extents[uncached];
	unsigned long fences = clear_page_stats_sum().fences;
	/* 4 huge pages populated at once: 8 MiB >= the 8 MiB threshold. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, 4 * PMD_SIZE, MADV_POPULATE_WRITE), 0);
	for (int i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE + i * PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, clear_page_stats_sum().extents[uncached], u0 + 4);
	if (clear_page_method_uncached(uncached))
		KUNIT_EXPECT_EQ(test, clear_page_stats_sum().fences, fences + 4);
	/* One fault alone: 2 MiB, below the threshold. */
	unsigned long c1 = clear_page_stats_sum().extents[cached];
	KUNIT_EXPECT_EQ(test, touch(BASE + 5 * PMD_SIZE, 1), 0);
	KUNIT_EXPECT_EQ(test, clear_page_stats_sum().extents[cached], c1 + 1);
	/* A populate smaller than the threshold: cached too. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 6 * PMD_SIZE, 2 * PMD_SIZE, MADV_POPULATE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, clear_page_stats_sum().extents[cached], c1 + 3);
	kunit_info(test, "auto: %s below %llu KiB, %s from there; %lu cached before",
		   clear_page_method_name(cached), (unsigned long long)(clear_page_uncached_threshold() >> 10),
		   clear_page_method_name(uncached), c0);
	KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(BASE, 4 * HPAGE_PMD_NR, 1), 0ul);
	space_destroy(test, &s);
	clear_page_set_method(saved_method);
	clear_page_set_threshold(saved_set ? saved_threshold : 0);
}

/* A read fault maps the huge zero page read-only: no RSS, a deposit; a
 * write there splits it into 4 KiB zero-page entries and gets one 4 KiB
 * page; mprotect never makes it writable; it does not move; with
 * use_zero_page 0 a read maps the 4 KiB zero page. */
static void read_fault_maps_the_huge_zero_page(struct kunit *test)
{
	if (huge_zero_pfn == ~0ul)
		kunit_skip(test, "the boot found no 2 MiB block for the huge zero page");
	struct space s;
	space_init(test, &s, 4 * PMD_SIZE, true);
	unsigned long thps = nr_anon_thps(), splits = all_vm_events(THP_SPLIT_PMD);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 7 * PAGE_SIZE, 1, 0), 0ul);
	pmd_t pmd = pmd_at(s.mm, BASE);
	KUNIT_ASSERT_TRUE(test, pmd_trans_huge(pmd));
	KUNIT_EXPECT_EQ(test, pmd_pfn(pmd), huge_zero_pfn);
	KUNIT_EXPECT_FALSE(test, pmd_write(pmd));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0ul);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
	KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(BASE, HPAGE_PMD_NR, 1), 0ul);
	/* mprotect of all of it keeps it read-only. */
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE, PMD_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE, PMD_SIZE, RW), 0);
	KUNIT_EXPECT_FALSE(test, pmd_write(pmd_at(s.mm, BASE)));
	/* It does not move. */
	mmap_read_lock(s.mm);
	KUNIT_EXPECT_EQ(test, migrate_anon_page_to_node(find_vma(s.mm, BASE), BASE, 0), -EFAULT);
	mmap_read_unlock(s.mm);
	/* A write: split, one page of its own, the rest still zero. */
	KUNIT_EXPECT_EQ(test, touch(BASE + 9 * PAGE_SIZE, 9), 0);
	pmd = pmd_at(s.mm, BASE);
	KUNIT_EXPECT_FALSE(test, pmd_none(pmd) || pmd_trans_huge(pmd));
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PMD), splits + 1);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1ul);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 9 * PAGE_SIZE, 1, 9), 0ul);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 10 * PAGE_SIZE, 1, 0), 0ul);
	if (pte_ref_enabled())
		KUNIT_EXPECT_EQ(test, pte_ref_count(mm_find_pmd(s.mm, BASE)), (int)HPAGE_PMD_NR);
	/* use_zero_page off: a read maps the 4 KiB zero page. */
	KUNIT_EXPECT_EQ(test, thp_use_zero_page_write(NULL, "0\n", 2), 2l);
	KUNIT_EXPECT_EQ(test, mismatches(BASE + PMD_SIZE, 1, 0), 0ul);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(s.mm, BASE + PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, thp_use_zero_page_write(NULL, "2", 1), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, thp_use_zero_page_write(NULL, "1", 1), 1l);
	/* MADV_POPULATE_WRITE over the huge zero page: split on the first
	 * page's write, then every page written in. */
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 2 * PMD_SIZE, 1, 0), 0ul);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE + 2 * PMD_SIZE)));
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 2 * PMD_SIZE, 4 * PAGE_SIZE, MADV_POPULATE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 5ul);
	/* A huge zero PMD given back whole: nothing freed but its deposit. */
	KUNIT_EXPECT_EQ(test, mismatches(BASE + 3 * PMD_SIZE, 1, 0), 0ul);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmd_at(s.mm, BASE + 3 * PMD_SIZE)));
	long tables = s.mm->pgtables_bytes;
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, BASE + 3 * PMD_SIZE, PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, tables - (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 5ul);
	space_destroy(test, &s);
}

/* The sysfs files: Linux's format, Linux's words. */
static void sysfs_modes(struct kunit *test)
{
	char out[128];
	struct seq_buf m = { .buffer = out, .size = sizeof(out) - 1 };
	int saved_enabled = thp_enabled_mode, saved_defrag = thp_defrag_mode;
	memset(out, 0, sizeof(out));
	KUNIT_EXPECT_EQ(test, thp_enabled_write(NULL, "always\n", 7), 7l);
	thp_enabled_show(&m, NULL);
	KUNIT_EXPECT_STREQ(test, out, "[always] madvise never\n");
	KUNIT_EXPECT_EQ(test, thp_enabled_write(NULL, "sometimes", 9), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, thp_enabled_write(NULL, "always\n\n", 8), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, thp_enabled_mode, THP_ENABLED_ALWAYS);
	memset(out, 0, sizeof(out));
	m.len = 0;
	KUNIT_EXPECT_EQ(test, thp_defrag_write(NULL, "defer+madvise", 13), 13l);
	thp_defrag_show(&m, NULL);
	KUNIT_EXPECT_STREQ(test, out, "always defer [defer+madvise] madvise never\n");
	memset(out, 0, sizeof(out));
	m.len = 0;
	thp_hpage_pmd_size_show(&m, NULL);
	KUNIT_EXPECT_STREQ(test, out, "2097152\n");
	thp_enabled_mode = saved_enabled;
	thp_defrag_mode = saved_defrag;
}

/* --- transparent_hugepage= ---------------------------------------------------- */

/* The registered transparent_hugepage option alone, for a parse of the
 * boot line that touches nothing else. */
static struct kernel_param thp_param[1];

static bool find_thp_param(void)
{
	size_t nr;
	const struct kernel_param *all = kernel_params(&nr);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(all[i].name, "transparent_hugepage")) {
			thp_param[0] = all[i];
			return true;
		}
	return false;
}

static char thp_log[1024];

/* text through the one parser with every registered option. */
static unsigned parse_registered(const char *text, struct param_counts *counts)
{
	size_t nr;
	const struct kernel_param *all = kernel_params(&nr);
	struct printk_capture cap;
	printk_capture_begin(&cap, thp_log, sizeof(thp_log));
	unsigned problems = parse_params(text, all, nr, counts);
	printk_capture_end(&cap);
	return problems;
}

static void enabled_file(char *out, size_t size)
{
	struct seq_buf m = { .buffer = out, .size = size - 1 };
	memset(out, 0, size);
	thp_enabled_show(&m, NULL);
}

/* transparent_hugepage= sets what the enabled file shows and what the fault
 * path allows (Linux's setup_transparent_hugepage); a bad value is refused
 * with Linux's warning and the parser's, and the mode stays. */
static void command_line_sets_the_mode(struct kunit *test)
{
	static int saved;
	saved = thp_enabled_mode;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_enabled, &saved), 0);
	/* What thp_vma_allowable reads: a 2 MiB-aligned anonymous VMA, once
	 * with MADV_HUGEPAGE's flag and once without, and its mm's flags. */
	static struct mm_struct mm;
	mm.flags = 0;
	struct vm_area_struct plain = { .vm_start = 4 * PMD_SIZE, .vm_end = 5 * PMD_SIZE, .vm_mm = &mm };
	struct vm_area_struct advised = plain;
	advised.vm_flags = VM_HUGEPAGE;
	char out[64];
	struct param_counts counts;

	KUNIT_EXPECT_EQ(test, parse_registered("transparent_hugepage=always", &counts), 0);
	KUNIT_EXPECT_EQ(test, counts.applied, 1u);
	KUNIT_EXPECT_EQ(test, thp_enabled_mode, THP_ENABLED_ALWAYS);
	enabled_file(out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "[always] madvise never\n");
	KUNIT_EXPECT_TRUE(test, thp_vma_allowable(&plain, plain.vm_start));
	/* prctl(PR_SET_THP_DISABLE): none in that mm, whatever the mode. */
	mm_flag_set(&mm, MMF_DISABLE_THP);
	KUNIT_EXPECT_FALSE(test, thp_vma_allowable(&plain, plain.vm_start));
	KUNIT_EXPECT_FALSE(test, thp_vma_allowable(&advised, advised.vm_start));
	mm_flag_clear(&mm, MMF_DISABLE_THP);

	KUNIT_EXPECT_EQ(test, parse_registered("transparent_hugepage=madvise", NULL), 0);
	enabled_file(out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "always [madvise] never\n");
	KUNIT_EXPECT_FALSE(test, thp_vma_allowable(&plain, plain.vm_start));
	KUNIT_EXPECT_TRUE(test, thp_vma_allowable(&advised, advised.vm_start));

	/* The last one wins, as every option's. */
	KUNIT_EXPECT_EQ(test, parse_registered("transparent_hugepage=always transparent_hugepage=never", NULL), 0);
	enabled_file(out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "always madvise [never]\n");
	KUNIT_EXPECT_FALSE(test, thp_vma_allowable(&advised, advised.vm_start));

	KUNIT_EXPECT_EQ(test, parse_registered("transparent_hugepage=sometimes", &counts), 1);
	KUNIT_EXPECT_EQ(test, counts.refused, 1u);
	KUNIT_EXPECT_EQ(test, counts.unknown, 0u);
	KUNIT_EXPECT_EQ(test, thp_enabled_mode, THP_ENABLED_NEVER);
	KUNIT_EXPECT_NOT_NULL(test, strstr(thp_log, "transparent_hugepage= cannot parse, ignored"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(thp_log, "bad value 'sometimes' for 'transparent_hugepage' "
						    "(expected always, madvise or never); keeping never"));
	/* Bare, empty, another case, a prefix: refused alike. */
	KUNIT_EXPECT_EQ(test, parse_registered("transparent_hugepage transparent_hugepage= "
					       "transparent_hugepage=Always transparent_hugepage=mad", &counts), 4);
	KUNIT_EXPECT_EQ(test, counts.refused, 4u);
	KUNIT_EXPECT_EQ(test, thp_enabled_mode, THP_ENABLED_NEVER);
}

/* The mode in force is what the one parser makes of this boot's command
 * line (the default when it has no transparent_hugepage=), and the enabled
 * file says so. */
static void boot_mode_is_what_the_command_line_asked(struct kunit *test)
{
	KUNIT_ASSERT_TRUE(test, find_thp_param());
	static int saved;
	saved = thp_enabled_mode;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_enabled, &saved), 0);
	thp_enabled_mode = THP_ENABLED_DEFAULT;
	struct printk_capture cap;
	printk_capture_begin(&cap, thp_log, sizeof(thp_log));
	parse_params(boot_command_line, thp_param, 1, NULL);
	printk_capture_end(&cap);
	int asked = thp_enabled_mode;
	thp_enabled_mode = saved;
	char out[64], want[64];
	enabled_file(out, sizeof(out));
	static const char *const shown[] = { "[always] madvise never\n", "always [madvise] never\n",
					     "always madvise [never]\n" };
	strlcpy(want, shown[asked], sizeof(want));
	kunit_info(test, "enabled: %.*s", (int)strlen(out) - 1, out);
	KUNIT_EXPECT_EQ(test, saved, asked);
	KUNIT_EXPECT_STREQ(test, out, want);
}

static struct kunit_case thp_cases[] = {
	KUNIT_CASE(write_fault_maps_a_cleared_huge_page),
	KUNIT_CASE(small_pages_where_thp_may_not_go),
	KUNIT_CASE(no_huge_block_falls_back),
	KUNIT_CASE(parts_split_and_keep_the_rest),
	KUNIT_CASE(whole_huge_pmd_goes_as_one),
	KUNIT_CASE(populate_gives_the_bulk_hint),
	KUNIT_CASE(read_fault_maps_the_huge_zero_page),
	KUNIT_CASE(sysfs_modes),
	KUNIT_CASE(command_line_sets_the_mode),
	KUNIT_CASE(boot_mode_is_what_the_command_line_asked),
	{},
};

static struct kunit_suite thp_suite = { .name = "thp", .test_cases = thp_cases };
kunit_test_suite(thp_suite);
