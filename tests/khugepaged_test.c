/* khugepaged and MADV_COLLAPSE (mm/khugepaged.c, mm/khugepaged_collapse.c):
 * a PTE table of 4 KiB pages becomes one THP mapped by a huge PMD, every
 * byte kept (zeroes where nothing was mapped), the pages' mappings, RSS
 * and the mm's PTE tables accounted (the emptied table freed after a grace
 * period, a deposit in its place), in each pte_reclaim design (the cases
 * run once per mode); MADV_COLLAPSE ignores the sysfs mode and the
 * max_ptes_* limits and reports Linux's errnos; khugepaged collapses a
 * MADV_HUGEPAGE region within two full scans (waited for by count, never
 * by time) and leaves one with more none entries than max_ptes_none, or
 * more shared pages than max_ptes_shared after a fork; the THP comes from
 * the node the policy put the pages on; an mm that exits leaves
 * khugepaged's list. Every case checks that free pages, slab objects and
 * page-table pages come back (tests/test_mm.h). */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_proc.h"
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_fs.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/gup.h"
#include "mm/huge_memory.h"
#include "mm/khugepaged.h"
#include "mm/mempolicy.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/slab.h"
#include "mm/vmstat.h"

#define BASE 0x0000340000000000ul /* a PGD entry of its own, 2 MiB aligned */

/* --- the fixture ----------------------------------------------------------------- */

struct knobs {
	int enabled;
	unsigned int none, shared, scan_sleep, alloc_sleep, pages;
};
static struct knobs saved_knobs;

static void restore_knobs(void *p)
{
	const struct knobs *k = p;
	thp_enabled_mode = k->enabled;
	khugepaged_max_ptes_none = k->none;
	khugepaged_max_ptes_shared = k->shared;
	khugepaged_scan_sleep_millisecs = k->scan_sleep;
	khugepaged_alloc_sleep_millisecs = k->alloc_sleep;
	khugepaged_pages_to_scan = k->pages;
	khugepaged_wake();
}

/* The case's mode (a parameter), THP mode "madvise", khugepaged's knobs
 * restored at the end, and an mm (the current task's) with [BASE, BASE +
 * size) mapped. */
static struct mm_struct *space(struct kunit *test, unsigned long size)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	saved_knobs = (struct knobs){ thp_enabled_mode,
				      khugepaged_max_ptes_none,
				      khugepaged_max_ptes_shared,
				      khugepaged_scan_sleep_millisecs,
				      khugepaged_alloc_sleep_millisecs,
				      khugepaged_pages_to_scan };
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_knobs, &saved_knobs), 0);
	thp_enabled_mode = THP_ENABLED_MADVISE;
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, mm, BASE, size);
	return mm;
}

/* The word at word w of page i of a pattern seeded by seed: no two words
 * of the range alike, none zero. */
static u64 pattern(unsigned long seed, unsigned long i, unsigned long w)
{
	return ((seed * 0x9e3779b97f4a7c15ull) ^ (i << 20) ^ (w * 0x100000001b3ull)) | 1;
}

/* Writes the pattern into every word of the pages of [addr, addr + n
 * pages) whose bit is set in which (NULL: all). */
static void fill(struct kunit *test, unsigned long addr, unsigned long n, unsigned long seed,
		 bool (*which)(unsigned long))
{
	u64 *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (unsigned long i = 0; i < n; i++) {
		if (which && !which(i))
			continue;
		for (unsigned long w = 0; w < PAGE_SIZE / 8; w++)
			buf[w] = pattern(seed, i, w);
		unsigned long left = copy_to_user((void *)(addr + i * PAGE_SIZE), buf, PAGE_SIZE);
		if (left)
			kfree(buf);
		KUNIT_ASSERT_EQ(test, left, 0ul);
	}
	kfree(buf);
}

/* Pages of [addr, addr + n pages) that do not read back as written: the
 * pattern where which says (NULL: all), zeroes elsewhere; every byte. */
static unsigned long bad_pages(unsigned long addr, unsigned long n, unsigned long seed,
			       bool (*which)(unsigned long))
{
	u64 *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return n;
	unsigned long bad = 0;
	for (unsigned long i = 0; i < n; i++) {
		bool filled = !which || which(i);
		if (copy_from_user(buf, (void *)(addr + i * PAGE_SIZE), PAGE_SIZE)) {
			bad++;
			continue;
		}
		for (unsigned long w = 0; w < PAGE_SIZE / 8; w++)
			if (buf[w] != (filled ? pattern(seed, i, w) : 0)) {
				bad++;
				break;
			}
	}
	kfree(buf);
	return bad;
}

static bool is_huge(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd && pmd_trans_huge(pmdp_get(pmd)) && !is_huge_zero_pmd(pmdp_get(pmd));
}

static int collapse(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	return do_madvise(mm, addr, len, MADV_COLLAPSE);
}

/* --- MADV_COLLAPSE ------------------------------------------------------------------ */

static void collapse_of_a_full_range_keeps_every_byte(struct kunit *test)
{
	struct mm_struct *mm = space(test, 2 * PMD_SIZE);
	/* MADV_COLLAPSE ignores enabled, even never. */
	thp_enabled_mode = THP_ENABLED_NEVER;
	fill(test, BASE, 2 * HPAGE_PMD_NR, 1, NULL);
	KUNIT_ASSERT_FALSE(test, is_huge(mm, BASE));
	long ptes = mm->nr_ptes, bytes = mm->pgtables_bytes;
	unsigned long thps = nr_anon_thps(), allocs = all_vm_events(THP_COLLAPSE_ALLOC);
	unsigned long anon = nr_anon_pages(), user_tables = nr_user_pagetable_pages();
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 2 * HPAGE_PMD_NR);
	KUNIT_ASSERT_EQ(test, collapse(mm, BASE, 2 * PMD_SIZE), 0);
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE));
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps + 2);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_COLLAPSE_ALLOC), allocs + 2);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 2 * HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon);
	/* Each emptied table went (after a grace period), a deposit came. */
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, ptes);
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, bytes);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), user_tables);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, bad_pages(BASE, 2 * HPAGE_PMD_NR, 1, NULL), 0ul);
	/* Writable and reused: a write changes the THP in place. */
	KUNIT_EXPECT_EQ(test, put_user_u64(7, (void *)(BASE + 5 * PAGE_SIZE + 8)), 0);
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE));
	/* Already huge: success, nothing allocated. */
	allocs = all_vm_events(THP_COLLAPSE_ALLOC);
	KUNIT_EXPECT_EQ(test, collapse(mm, BASE, 2 * PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_COLLAPSE_ALLOC), allocs);
	/* AnonHugePages in the mm's smaps_rollup. */
	char *rollup = test_proc_read(test, "/proc/self/smaps_rollup");
	KUNIT_EXPECT_NOT_NULL(test, strstr(rollup, "AnonHugePages:      4096 kB"));
	test_proc_free(test, rollup);
}

static bool sparse(unsigned long i) { return i == 0 || i == 77 || i == 511; }
static bool only_first(unsigned long i) { return i == 0; }

static void collapse_of_a_sparse_range_ignores_max_ptes_none(struct kunit *test)
{
	struct mm_struct *mm = space(test, PMD_SIZE);
	khugepaged_max_ptes_none = 0;
	fill(test, BASE, HPAGE_PMD_NR, 2, sparse);
	/* A read maps the zero page: counted as none. */
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 300 * PAGE_SIZE)), 0);
	KUNIT_ASSERT_EQ(test, collapse(mm, BASE, PMD_SIZE), 0);
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE));
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), HPAGE_PMD_NR + 0);
	KUNIT_EXPECT_EQ(test, bad_pages(BASE, HPAGE_PMD_NR, 2, sparse), 0ul);
}

static void collapse_errors_as_linux(struct kunit *test)
{
	struct mm_struct *mm = space(test, 4 * PMD_SIZE);
	unsigned long a = BASE, b = BASE + PMD_SIZE, c = BASE + 2 * PMD_SIZE;
	/* Never faulted: no anon_vma, the VMA is not eligible. */
	KUNIT_EXPECT_EQ(test, collapse(mm, a, PMD_SIZE), -EINVAL);
	fill(test, a, 1, 3, NULL);
	/* An empty PMD (no PTE table) beside a faulted one. */
	KUNIT_EXPECT_EQ(test, collapse(mm, b, PMD_SIZE), -EINVAL);
	/* Only zero-page entries: nothing writable (SCAN_PAGE_RO). */
	u64 v;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)c), 0);
	KUNIT_EXPECT_EQ(test, collapse(mm, c, PMD_SIZE), -EINVAL);
	KUNIT_EXPECT_FALSE(test, is_huge(mm, c));
	/* A range ending before its first aligned 2 MiB starts: EINVAL (Linux's
	 * unsigned count of the THPs wanted); one ending just there wants
	 * none and succeeds. */
	KUNIT_EXPECT_EQ(test, collapse(mm, a + PAGE_SIZE, PMD_SIZE - 2 * PAGE_SIZE), -EINVAL);
	KUNIT_EXPECT_EQ(test, collapse(mm, a + PAGE_SIZE, PMD_SIZE - PAGE_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, is_huge(mm, a));
	/* A pinned page (a reference beyond its mapping: SCAN_PAGE_COUNT). */
	struct page *pinned;
	mmap_read_lock(mm);
	long got = get_user_pages(a, 1, FOLL_WRITE, &pinned);
	mmap_read_unlock(mm);
	KUNIT_ASSERT_EQ(test, got, 1l);
	KUNIT_EXPECT_EQ(test, collapse(mm, a, PMD_SIZE), -EINVAL);
	KUNIT_EXPECT_FALSE(test, is_huge(mm, a));
	put_page(pinned);
	KUNIT_EXPECT_EQ(test, collapse(mm, a, PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, bad_pages(a, 1, 3, NULL), 0ul);
	/* VM_NOHUGEPAGE refuses, whatever the mode. */
	fill(test, c + PMD_SIZE, 1, 4, NULL);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, c + PMD_SIZE, PMD_SIZE, MADV_NOHUGEPAGE), 0);
	KUNIT_EXPECT_EQ(test, collapse(mm, c + PMD_SIZE, PMD_SIZE), -EINVAL);
	/* A hole in the range: the rest is collapsed, then -ENOMEM. */
	KUNIT_EXPECT_EQ(test, do_munmap(mm, b, PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, collapse(mm, BASE - PMD_SIZE, 2 * PMD_SIZE), -ENOMEM);
	/* Unknown to Linux 6.1 as advice 26 is still -EINVAL. */
	KUNIT_EXPECT_EQ(test, do_madvise(mm, a, PMD_SIZE, 26), -EINVAL);
}

/* --- khugepaged ----------------------------------------------------------------------- */

static void khugepaged_collapses_a_madvised_region(struct kunit *test)
{
	struct mm_struct *mm = space(test, 2 * PMD_SIZE);
	/* 4 KiB pages (no MADV_HUGEPAGE yet: no THP fault), one 2 MiB full,
	 * the other with one page. */
	fill(test, BASE, HPAGE_PMD_NR, 5, NULL);
	fill(test, BASE + PMD_SIZE, 1, 6, NULL);
	KUNIT_EXPECT_FALSE(test, khugepaged_mm_registered(mm));
	unsigned int collapsed = khugepaged_pages_collapsed_read();
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, 2 * PMD_SIZE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_TRUE(test, khugepaged_mm_registered(mm));
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE));
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, khugepaged_pages_collapsed_read(), collapsed + 2);
	KUNIT_EXPECT_EQ(test, bad_pages(BASE, HPAGE_PMD_NR, 5, NULL), 0ul);
	KUNIT_EXPECT_EQ(test, bad_pages(BASE + PMD_SIZE, HPAGE_PMD_NR, 6, only_first), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	/* The exit takes the mm off the list. */
	test_mm_destroy(test, mm);
	KUNIT_EXPECT_FALSE(test, khugepaged_mm_registered(mm));
}

static bool first_256(unsigned long i) { return i < 256; }
static bool first_257(unsigned long i) { return i < 257; }

static void khugepaged_respects_max_ptes_none(struct kunit *test)
{
	struct mm_struct *mm = space(test, PMD_SIZE);
	khugepaged_max_ptes_none = 255;
	fill(test, BASE, HPAGE_PMD_NR, 7, first_256); /* 256 none: one too many */
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_HUGEPAGE), 0);
	unsigned long exceeded = all_vm_events(THP_SCAN_EXCEED_NONE_PTE);
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_FALSE(test, is_huge(mm, BASE));
	KUNIT_EXPECT_GT(test, all_vm_events(THP_SCAN_EXCEED_NONE_PTE), exceeded);
	fill(test, BASE, HPAGE_PMD_NR, 7, first_257); /* 255 none */
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_TRUE(test, is_huge(mm, BASE));
	KUNIT_EXPECT_EQ(test, bad_pages(BASE, HPAGE_PMD_NR, 7, first_257), 0ul);
}

static void khugepaged_respects_max_ptes_shared_after_fork(struct kunit *test)
{
	struct mm_struct *mm = space(test, PMD_SIZE);
	fill(test, BASE, HPAGE_PMD_NR, 8, NULL);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_HUGEPAGE), 0);
	/* The parent's pages are scanned no more. */
	khugepaged_max_ptes_shared = HPAGE_PMD_NR; /* out of the way until the fork */
	khugepaged_max_ptes_none = 0;
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_NOHUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_EXPECT_TRUE(test, khugepaged_mm_registered(child));
	mmap_write_lock(child);
	find_vma(child, BASE)->vm_flags = (find_vma(child, BASE)->vm_flags & ~VM_NOHUGEPAGE) | VM_HUGEPAGE;
	mmap_write_unlock(child);
	khugepaged_max_ptes_shared = 256;
	/* The child writes 255 pages: 257 still shared, one too many. */
	for (unsigned long i = 0; i < 255; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(child, BASE + i * PAGE_SIZE, i + 1), 0);
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_FALSE(test, is_huge(child, BASE));
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(child, BASE + 255 * PAGE_SIZE, 256), 0);
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_TRUE(test, is_huge(child, BASE));
	KUNIT_EXPECT_FALSE(test, is_huge(mm, BASE));
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 85)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, BASE + i * PAGE_SIZE),
				i < 256 ? i + 1 : pattern(8, i, 0));
	KUNIT_EXPECT_EQ(test, bad_pages(BASE, HPAGE_PMD_NR, 8, NULL), 0ul); /* the parent's, untouched */
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	mmput(child);
}

/* --- placement ------------------------------------------------------------------------- */

/* The THP of a range collapsed under MPOL_BIND to nodes with home node
 * home (NUMA_NO_NODE: none): on the node the pages went to. The policy
 * is made after the mm's leak snapshot: the VMA frees it. */
static int collapsed_node(struct kunit *test, nodemask_t nodes, int home)
{
	struct mm_struct *mm = space(test, PMD_SIZE);
	int err;
	struct mempolicy *pol = mpol_new(MPOL_BIND, 0, &nodes, &err);
	KUNIT_ASSERT_NOT_NULL(test, pol);
	err = mpol_set_nodemask(pol, &nodes);
	if (err)
		mpol_put(pol);
	KUNIT_ASSERT_EQ(test, err, 0);
	pol->home_node = home;
	mmap_write_lock(mm);
	find_vma(mm, BASE)->vm_policy = pol;
	mmap_write_unlock(mm);
	fill(test, BASE, HPAGE_PMD_NR, 9, NULL);
	KUNIT_EXPECT_EQ(test, collapse(mm, BASE, PMD_SIZE), 0);
	pmd_t *pmd = mm_find_pmd(mm, BASE);
	int nid = pmd && pmd_trans_huge(pmdp_get(pmd)) ? page_to_nid(pfn_to_page(pmd_pfn(pmdp_get(pmd)))) : -1;
	KUNIT_EXPECT_EQ(test, bad_pages(BASE, HPAGE_PMD_NR, 9, NULL), 0ul);
	test_mm_destroy(test, mm);
	return nid;
}

/* The highest node with memory other than the local one, or -1. */
static int other_node(void)
{
	struct page *probe = alloc_pages(GFP_KERNEL, 0);
	int local = probe ? page_to_nid(probe) : 0;
	if (probe)
		__free_page(probe);
	for (int nid = MAX_NUMNODES - 1; nid >= 0; nid--)
		if (nid != local && node_has_memory(nid))
			return nid;
	return -1;
}

static void collapse_follows_the_policy_and_home_node(struct kunit *test)
{
	int far = other_node();
	if (far < 0)
		kunit_skip(test, "one node with memory: nowhere else to bind to");
	KUNIT_EXPECT_EQ(test, collapsed_node(test, nodemask_of_node(far), NUMA_NO_NODE), far);
	/* MPOL_BIND to every node with memory, home node far: the pages start
	 * there, and so does the THP. */
	nodemask_t all = NODE_MASK_NONE;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_has_memory(nid))
			__node_set(nid, &all);
	KUNIT_EXPECT_EQ(test, collapsed_node(test, all, far), far);
}

/* --- sysfs --------------------------------------------------------------------------- */

/* 0 or the write's errno. */
static long write_file(const char *name, const char *text)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/khugepaged/%s", name);
	return procfs_write_path(path, current, text, strlen(text));
}

static void sysfs_files_take_linux_ranges(struct kunit *test)
{
	space(test, PMD_SIZE); /* for the knobs' restore */
	char *t = test_proc_read(test, "/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none");
	KUNIT_EXPECT_STREQ(test, t, "511\n");
	test_proc_free(test, t);
	KUNIT_EXPECT_EQ(test, write_file("max_ptes_none", "512"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_file("max_ptes_none", "12\n"), 0l);
	KUNIT_EXPECT_EQ(test, khugepaged_max_ptes_none, 12u);
	KUNIT_EXPECT_EQ(test, write_file("max_ptes_shared", "-1"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_file("pages_to_scan", "0"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_file("pages_to_scan", "4096"), 0l);
	KUNIT_EXPECT_EQ(test, write_file("scan_sleep_millisecs", "x"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_file("defrag", "2"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_file("defrag", "1"), 0l);
	KUNIT_EXPECT_LT(test, write_file("full_scans", "1"), 0l); /* read-only */
	t = test_proc_read(test, "/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_swap");
	KUNIT_EXPECT_STREQ(test, t, "64\n");
	test_proc_free(test, t);
	t = test_proc_read(test, "/proc/vmstat");
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nthp_collapse_alloc "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nthp_collapse_alloc_failed "));
	test_proc_free(test, t);
}

static struct kunit_case khugepaged_cases[] = {
	KUNIT_CASE_PARAM(collapse_of_a_full_range_keeps_every_byte, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(collapse_of_a_sparse_range_ignores_max_ptes_none, pte_reclaim_modes_gen_params),
	KUNIT_CASE(collapse_errors_as_linux),
	KUNIT_CASE_PARAM(khugepaged_collapses_a_madvised_region, pte_reclaim_modes_gen_params),
	KUNIT_CASE(khugepaged_respects_max_ptes_none),
	KUNIT_CASE(khugepaged_respects_max_ptes_shared_after_fork),
	KUNIT_CASE(collapse_follows_the_policy_and_home_node),
	KUNIT_CASE(sysfs_files_take_linux_ranges),
	{}
};

static struct kunit_suite khugepaged_suite = { .name = "khugepaged", .test_cases = khugepaged_cases };
kunit_test_suite(khugepaged_suite);
