/* khugepaged and MADV_COLLAPSE on tmpfs and shared anonymous memory
 * (mm/khugepaged_file.c): the 512 small pages of an aligned 2 MiB of a
 * file's page cache become one huge page holding every byte (zeroes in the
 * holes), the PTE tables of every mapping of the range go, so that each
 * process maps the huge page by a PMD at its next fault, in each
 * pte_reclaim mode; khugepaged does it in the background for a
 * MADV_HUGEPAGE mapping within max_ptes_none and not beyond; a pinned page
 * or a failed allocation leaves the file as it was; the huge page comes
 * from the file's shared policy. Each case mounts its own huge=never
 * instance (so that faults and writes make small pages), empties its file
 * before its mms go, and their leak checks see every page, slab object and
 * page-table page back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "fs/mount.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/fail_page_alloc.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/khugepaged.h"
#include "mm/mempolicy.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/vmstat.h"

#define RW (PROT_READ | PROT_WRITE)
#define BASE 0x0000370000000000ul /* a PGD entry of its own, 2 MiB aligned */
#define DIR "/tmp/khugepaged_shmem_test"
#define HPAGE (HPAGE_PMD_NR * PAGE_SIZE)

/* --- the fixture ------------------------------------------------------------------ */

static struct {
	int enabled;
	unsigned int none, scan_sleep, alloc_sleep;
} saved;

static void restore(void *unused)
{
	(void)unused;
	thp_enabled_mode = saved.enabled;
	khugepaged_max_ptes_none = saved.none;
	khugepaged_scan_sleep_millisecs = saved.scan_sleep;
	khugepaged_alloc_sleep_millisecs = saved.alloc_sleep;
	khugepaged_wake();
}

/* The case's pte_reclaim mode (its parameter), khugepaged's knobs put
 * back at the end, a tmpfs mounted with opts and a file of 2 MiB on it,
 * made before the case's mms so that their leak checks count it. */
static struct file *small_file(struct kunit *test, const char *opts)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	saved.enabled = thp_enabled_mode;
	saved.none = khugepaged_max_ptes_none;
	saved.scan_sleep = khugepaged_scan_sleep_millisecs;
	saved.alloc_sleep = khugepaged_alloc_sleep_millisecs;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore, NULL), 0);
	test_set_shmem_huge(test, READ_ONCE(shmem_huge));
	struct file *f = test_tmpfs_file(test, DIR, opts);
	KUNIT_ASSERT_EQ(test, test_set_size(f, HPAGE), 0);
	return f;
}

/* The word w of page i as written: i << 16 | w, never zero. */
static u64 word(unsigned long i, unsigned w) { return i << 16 | w | 1ull << 63; }

/* The pages of the file's first 2 MiB whose bit is set in which (NULL:
 * all) written through the page cache: small pages. */
static void fill(struct kunit *test, struct file *f, bool (*which)(unsigned long))
{
	u64 *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	bool ok = true;
	for (unsigned long i = 0; i < HPAGE_PMD_NR && ok; i++) {
		if (which && !which(i))
			continue;
		for (unsigned w = 0; w < PAGE_SIZE / 8; w++)
			buf[w] = word(i, w);
		long long pos = (long long)(i * PAGE_SIZE);
		ok = kernel_write(f, buf, PAGE_SIZE, &pos) == PAGE_SIZE;
	}
	kfree(buf);
	KUNIT_ASSERT_TRUE(test, ok);
}

/* Pages of [addr, addr + 2 MiB) of mm that do not read as written (two
 * words each: the first and the last), zeroes where which says none. */
static unsigned long bad_pages(struct mm_struct *mm, unsigned long addr, bool (*which)(unsigned long))
{
	unsigned long bad = 0;
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		bool filled = !which || which(i);
		u64 first = test_mm_read_u64(mm, addr + i * PAGE_SIZE);
		u64 last = test_mm_read_u64(mm, addr + i * PAGE_SIZE + PAGE_SIZE - 8);
		if (first != (filled ? word(i, 0) : 0) || last != (filled ? word(i, PAGE_SIZE / 8 - 1) : 0))
			bad++;
	}
	return bad;
}

/* The huge page of f at index 0 (no reference kept), or NULL. */
static struct page *huge_head(struct file *f)
{
	struct page *p = filemap_get_folio(f->f_mapping, 0);
	if (!p)
		return NULL;
	put_page(p);
	return page_test_flag(p, PG_shmem_thp) ? p : NULL;
}

static int collapse(struct mm_struct *mm, unsigned long addr)
{
	return do_madvise(mm, addr, HPAGE, MADV_COLLAPSE);
}

/* The end of a case: the tables' counts exact, the file emptied before
 * the mms go (their leak checks then see every page back). */
static void case_end(struct kunit *test, struct file *f, struct mm_struct *a, struct mm_struct *b)
{
	KUNIT_EXPECT_EQ(test, pte_ref_verify(a), 0ul);
	if (b)
		KUNIT_EXPECT_EQ(test, pte_ref_verify(b), 0ul);
	KUNIT_EXPECT_EQ(test, test_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 0ul);
	if (b)
		test_mm_destroy(test, b);
	test_mm_destroy(test, a);
}

/* --- MADV_COLLAPSE ------------------------------------------------------------------ */

/* Two mms map a file of 512 small pages, MAP_SHARED, every page faulted
 * in by both. MADV_COLLAPSE in the first: one huge page in the cache with
 * every byte, counted (ShmemHugePages, thp_collapse_alloc, Cached and
 * Shmem unchanged), mapped at once by a PMD in the caller; both mms' PTE
 * tables gone (nr_ptes, and the system's page-table pages after a grace
 * period, as before the faults), the other mm's next fault maps the huge
 * page by a PMD too; a write through one is read through the other. */
static void collapse_of_a_range_mapped_by_two_mms(struct kunit *test)
{
	struct file *f = small_file(test, "huge=never");
	thp_enabled_mode = THP_ENABLED_NEVER; /* MADV_COLLAPSE ignores it */
	struct mm_struct *a = test_mm_create(test, 0), *b = test_mm_create(test, TEST_MM_NO_LEAK_CHECK);
	fill(test, f, NULL);
	KUNIT_ASSERT_NULL(test, huge_head(f));
	long ptes_a = a->nr_ptes, ptes_b = b->nr_ptes;
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_ASSERT_EQ(test, do_mmap_file(b, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_ASSERT_EQ(test, bad_pages(a, BASE, NULL), 0ul);
	KUNIT_ASSERT_EQ(test, bad_pages(b, BASE, NULL), 0ul);
	rcu_barrier();
	unsigned long user_tables = nr_user_pagetable_pages(); /* with a PTE table in each */
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, a->nr_ptes, ptes_a + 1);
	unsigned long thps = nr_shmem_thps(), allocs = all_vm_events(THP_COLLAPSE_ALLOC);
	unsigned long cached = nr_file_pages(), shmem = nr_shmem_pages(), pmdmapped = nr_shmem_pmdmapped();

	KUNIT_ASSERT_EQ(test, collapse(a, BASE), 0);
	struct page *head = huge_head(f);
	KUNIT_ASSERT_NOT_NULL(test, head);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 37) {
		struct page *p = filemap_get_folio(f->f_mapping, i);
		KUNIT_EXPECT_PTR_EQ(test, p, head + i);
		if (p)
			put_page(p);
	}
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps + 1);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_COLLAPSE_ALLOC), allocs + 1);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), cached);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, HPAGE_PMD_NR * (PAGE_SIZE / 512));
	/* The caller maps it by a PMD already; the other has no table left. */
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped(), pmdmapped + 1);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, a->nr_ptes, ptes_a);
	KUNIT_EXPECT_EQ(test, b->nr_ptes, ptes_b);
	KUNIT_EXPECT_EQ(test, bad_pages(b, BASE, NULL), 0ul);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(b, BASE), head);
	KUNIT_EXPECT_EQ(test, b->nr_ptes, ptes_b);
	KUNIT_EXPECT_EQ(test, bad_pages(a, BASE, NULL), 0ul);
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head), 2l);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(b, BASE + 300 * PAGE_SIZE + 8, 0x77), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 300 * PAGE_SIZE + 8), 0x77ull);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), user_tables - 2);
	/* Already huge and mapped: success, nothing allocated. */
	allocs = all_vm_events(THP_COLLAPSE_ALLOC);
	KUNIT_EXPECT_EQ(test, collapse(b, BASE), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_COLLAPSE_ALLOC), allocs);
	case_end(test, f, a, b);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped(), pmdmapped);
}

static bool sparse(unsigned long i) { return i % 3 == 0; }
static bool first_half_of_1m(unsigned long i) { return i < 128; }

/* Holes (2 of every 3 pages never written) are filled with zeroed pages,
 * charged to the file (i_blocks, Shmem, Cached, nrpages). */
static void holes_are_filled_with_zeroes(struct kunit *test)
{
	struct file *f = small_file(test, "huge=never");
	struct mm_struct *a = test_mm_create(test, 0);
	fill(test, f, sparse);
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	unsigned long present = f->f_mapping->nrpages, cached = nr_file_pages(), shmem = nr_shmem_pages();
	KUNIT_ASSERT_EQ(test, present, (HPAGE_PMD_NR + 2) / 3);
	KUNIT_ASSERT_EQ(test, collapse(a, BASE), 0);
	struct page *head = huge_head(f);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, nr_file_pages() - cached, HPAGE_PMD_NR - present);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages() - shmem, HPAGE_PMD_NR - present);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, HPAGE_PMD_NR * (PAGE_SIZE / 512));
	KUNIT_EXPECT_EQ(test, bad_pages(a, BASE, sparse), 0ul); /* never faulted: now, by the PMD */
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	case_end(test, f, a, NULL);
}

/* size= with no room for the holes: the collapse fails (Linux's
 * shmem_charge, SCAN_FAIL: EINVAL) and the file keeps its pages. */
static void no_room_for_the_holes(struct kunit *test)
{
	struct file *f = small_file(test, "huge=never,size=1M");
	struct mm_struct *a = test_mm_create(test, 0);
	fill(test, f, first_half_of_1m);
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	unsigned long blocks = f->f_inode->i_blocks;
	KUNIT_EXPECT_EQ(test, collapse(a, BASE), -EINVAL);
	KUNIT_EXPECT_NULL(test, huge_head(f));
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, blocks);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 128ul);
	case_end(test, f, a, NULL);
}

static struct fault_attr saved_attr;

static void injection_off(void *unused)
{
	(void)unused;
	fault_attr_arm(false);
	fail_page_alloc = saved_attr;
}

/* A page held by someone else (a lookup's reference, as a pin's) makes the
 * collapse fail with EINVAL and leaves every page of the file where it
 * was, mapped again at the next fault; with the huge page's allocation
 * failed, ENOMEM (thp_collapse_alloc_failed). Nothing is lost either way. */
static void pinned_page_or_failed_allocation_leaves_the_file(struct kunit *test)
{
	struct file *f = small_file(test, "huge=never");
	struct mm_struct *a = test_mm_create(test, 0);
	fill(test, f, NULL);
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_ASSERT_EQ(test, bad_pages(a, BASE, NULL), 0ul);
	struct page *before[HPAGE_PMD_NR / 64];
	for (unsigned long i = 0; i < HPAGE_PMD_NR / 64; i++) {
		before[i] = filemap_get_folio(f->f_mapping, i * 64);
		put_page(before[i]);
	}
	unsigned long thps = nr_shmem_thps(), cached = nr_file_pages(), blocks = f->f_inode->i_blocks;
	struct page *pin = filemap_get_folio(f->f_mapping, 100);
	KUNIT_ASSERT_NOT_NULL(test, pin);
	KUNIT_EXPECT_EQ(test, collapse(a, BASE), -EINVAL);
	put_page(pin);
	KUNIT_EXPECT_NULL(test, huge_head(f));
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), cached);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, blocks);
	for (unsigned long i = 0; i < HPAGE_PMD_NR / 64; i++) {
		struct page *p = filemap_get_folio(f->f_mapping, i * 64);
		KUNIT_EXPECT_PTR_EQ(test, p, before[i]);
		if (p)
			put_page(p);
	}
	KUNIT_EXPECT_EQ(test, bad_pages(a, BASE, NULL), 0ul);

	saved_attr = fail_page_alloc;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, injection_off, NULL), 0);
	fail_page_alloc = (struct fault_attr){ .probability = 100, .interval = 1, .times = -1,
					       .min_order = HPAGE_PMD_ORDER, .only_task = current };
	unsigned long failed = all_vm_events(THP_COLLAPSE_ALLOC_FAILED);
	fault_attr_arm(true);
	int err = collapse(a, BASE);
	fault_attr_arm(false);
	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_COLLAPSE_ALLOC_FAILED), failed + 1);
	KUNIT_EXPECT_NULL(test, huge_head(f));
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	KUNIT_EXPECT_EQ(test, bad_pages(a, BASE, NULL), 0ul);
	/* And then it works. */
	KUNIT_EXPECT_EQ(test, collapse(a, BASE), 0);
	KUNIT_EXPECT_NOT_NULL(test, huge_head(f));
	case_end(test, f, a, NULL);
}

/* A huge page of the cache mapped by PTEs (a huge=always file faulted by
 * a PMD, the PMD split by an mprotect of half and the protection put
 * back, the pages faulted again by PTEs): MADV_COLLAPSE allocates
 * nothing, retracts the table and maps the PMD (collapse_pte_mapped_thp),
 * and khugepaged does the same for the other mm at its next visit
 * (khugepaged_add_pte_mapped_thp), the table gone in each pte_reclaim
 * mode. */
static void pte_mapped_huge_page_gets_its_pmd_back(struct kunit *test)
{
	struct file *f = small_file(test, "huge=always");
	thp_enabled_mode = THP_ENABLED_MADVISE;
	struct mm_struct *a = test_mm_create(test, 0), *b = test_mm_create(test, TEST_MM_NO_LEAK_CHECK);
	long ptes_a = a->nr_ptes, ptes_b = b->nr_ptes;
	struct mm_struct *mms[2] = { a, b };
	struct page *head = NULL;
	for (int m = 0; m < 2; m++) {
		struct mm_struct *mm = mms[m];
		KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE + 8 * m, 0x100 + m), 0);
		head = huge_head(f);
		KUNIT_ASSERT_NOT_NULL(test, head);
		KUNIT_ASSERT_PTR_EQ(test, test_mm_pmd_page(mm, BASE), head);
		/* Two VMAs, neither holding the 2 MiB: the pages by PTEs. */
		KUNIT_ASSERT_EQ(test, do_mprotect(mm, BASE + HPAGE / 2, HPAGE / 2, PROT_READ), 0);
		for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 64)
			(void)test_mm_read_u64(mm, BASE + i * PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, do_mprotect(mm, BASE + HPAGE / 2, HPAGE / 2, RW), 0);
		for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 64)
			KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE + i * PAGE_SIZE + 16, i), 0);
		KUNIT_ASSERT_NULL(test, test_mm_pmd_page(mm, BASE));
		KUNIT_ASSERT_EQ(test, mm->nr_ptes, (m ? ptes_b : ptes_a) + 1);
	}
	unsigned long allocs = all_vm_events(THP_COLLAPSE_ALLOC);
	KUNIT_EXPECT_EQ(test, collapse(a, BASE), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_COLLAPSE_ALLOC), allocs);
	KUNIT_EXPECT_PTR_EQ(test, huge_head(f), head);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_EQ(test, a->nr_ptes, ptes_a);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), HPAGE_PMD_NR);
	/* b's table maps the huge page's pages: khugepaged's business. */
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(b, BASE));
	KUNIT_ASSERT_EQ(test, do_madvise(b, BASE, HPAGE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_TRUE(test, khugepaged_mm_registered(b));
	test_khugepaged_two_full_scans();
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_EQ(test, b->nr_ptes, ptes_b);
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), 0ul);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 64)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + i * PAGE_SIZE + 16), (u64)i);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(b, BASE), head);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 8), 0x101ull);
	case_end(test, f, a, b);
}

/* Shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS: an unnamed file of
 * the internal tmpfs) collapses as a file does, the parent's and a forked
 * child's mappings alike. */
static void collapse_of_shared_anonymous_memory(struct kunit *test)
{
	saved.enabled = thp_enabled_mode;
	saved.none = khugepaged_max_ptes_none;
	saved.scan_sleep = khugepaged_scan_sleep_millisecs;
	saved.alloc_sleep = khugepaged_alloc_sleep_millisecs;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore, NULL), 0);
	test_set_shmem_huge(test, SHMEM_HUGE_NEVER);
	struct mm_struct *a = test_mm_create(test, 0), *b;
	unsigned long thps = nr_shmem_thps();
	KUNIT_ASSERT_EQ(test, do_mmap(a, BASE, HPAGE, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED), BASE);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(a, BASE + i * PAGE_SIZE, word(i, 0)), 0);
	KUNIT_ASSERT_EQ(test, dup_mm(a, &b), 0); /* a fork: counted in a's leak check */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 9 * PAGE_SIZE), word(9, 0));
	KUNIT_ASSERT_EQ(test, collapse(b, BASE), 0);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps + 1);
	struct page *head = test_mm_pmd_page(b, BASE);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 511 * PAGE_SIZE), word(511, 0));
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 31)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + i * PAGE_SIZE), word(i, 0));
	KUNIT_EXPECT_EQ(test, pte_ref_verify(a), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(b), 0ul);
	mmput(b);
	test_mm_destroy(test, a);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
}

/* --- khugepaged --------------------------------------------------------------------- */

static bool first_256(unsigned long i) { return i < 256; }
static bool first_257(unsigned long i) { return i < 257; }

/* A huge=advise file whose pages were written small, mapped with
 * MADV_HUGEPAGE (which lists the mm): with max_ptes_none 255 and 256
 * holes khugepaged leaves it (thp_scan_exceed_none_pte); with 255 it
 * collapses it in the background, the holes zeroed, the mapping's table
 * retracted so that the next fault maps the PMD; waited for by full
 * scans, never by time. */
static void khugepaged_collapses_a_file_within_max_ptes_none(struct kunit *test)
{
	struct file *f = small_file(test, "huge=advise");
	thp_enabled_mode = THP_ENABLED_MADVISE;
	khugepaged_max_ptes_none = 255;
	struct mm_struct *a = test_mm_create(test, 0);
	fill(test, f, first_256);
	long ptes = a->nr_ptes;
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	/* Read the written pages only: the holes stay holes. */
	for (unsigned long i = 0; i < 256; i++)
		KUNIT_ASSERT_EQ(test, test_mm_read_u64(a, BASE + i * PAGE_SIZE), word(i, 0));
	KUNIT_EXPECT_FALSE(test, khugepaged_mm_registered(a));
	KUNIT_ASSERT_EQ(test, do_madvise(a, BASE, HPAGE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_TRUE(test, khugepaged_mm_registered(a));
	unsigned long exceeded = all_vm_events(THP_SCAN_EXCEED_NONE_PTE);
	unsigned int collapsed = khugepaged_pages_collapsed_read();
	test_khugepaged_two_full_scans();
	KUNIT_EXPECT_NULL(test, huge_head(f));
	KUNIT_EXPECT_GT(test, all_vm_events(THP_SCAN_EXCEED_NONE_PTE), exceeded);
	fill(test, f, first_257); /* 255 holes */
	test_khugepaged_two_full_scans();
	struct page *head = huge_head(f);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_GE(test, khugepaged_pages_collapsed_read(), collapsed + 1);
	KUNIT_EXPECT_EQ(test, a->nr_ptes, ptes);
	KUNIT_EXPECT_EQ(test, bad_pages(a, BASE, first_257), 0ul);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	case_end(test, f, a, NULL);
}

/* The THP of a collapse comes from the file's shared policy: pages
 * written on the local node, then the file's range bound to another
 * node, and the huge page is there. */
static void collapse_follows_the_shared_policy(struct kunit *test)
{
	int nodes_with_memory = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		nodes_with_memory += node_has_memory(nid);
	if (nodes_with_memory < 2) /* before anything is made: nothing to undo */
		kunit_skip(test, "one node with memory: nowhere else to bind to");
	struct file *f = small_file(test, "huge=never");
	struct mm_struct *a = test_mm_create(test, 0);
	fill(test, f, NULL);
	struct page *p = filemap_get_folio(f->f_mapping, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	int was = page_to_nid(p), far = -1;
	put_page(p);
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (nid != was && node_has_memory(nid))
			far = nid;
	KUNIT_ASSERT_GE(test, far, 0);
	nodemask_t nodes = nodemask_of_node(far);
	int err;
	struct mempolicy *pol = mpol_new(MPOL_BIND, 0, &nodes, &err);
	KUNIT_ASSERT_NOT_NULL(test, pol);
	KUNIT_ASSERT_EQ(test, mpol_set_nodemask(pol, &nodes), 0);
	KUNIT_ASSERT_EQ(test, mpol_set_shared_policy(&f->f_inode->i_policy, 0, HPAGE_PMD_NR, pol), 0);
	mpol_put(pol);
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_ASSERT_EQ(test, collapse(a, BASE), 0);
	struct page *head = huge_head(f);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_EQ(test, page_to_nid(head), far);
	KUNIT_EXPECT_EQ(test, bad_pages(a, BASE, NULL), 0ul);
	/* The policy goes before a's leak check counts slab objects. */
	KUNIT_EXPECT_EQ(test, mpol_set_shared_policy(&f->f_inode->i_policy, 0, HPAGE_PMD_NR, NULL), 0);
	case_end(test, f, a, NULL);
}

static struct kunit_case khugepaged_shmem_cases[] = {
	KUNIT_CASE_PARAM(collapse_of_a_range_mapped_by_two_mms, pte_reclaim_modes_gen_params),
	KUNIT_CASE(holes_are_filled_with_zeroes),
	KUNIT_CASE(no_room_for_the_holes),
	KUNIT_CASE(pinned_page_or_failed_allocation_leaves_the_file),
	KUNIT_CASE_PARAM(pte_mapped_huge_page_gets_its_pmd_back, pte_reclaim_modes_gen_params),
	KUNIT_CASE(collapse_of_shared_anonymous_memory),
	KUNIT_CASE_PARAM(khugepaged_collapses_a_file_within_max_ptes_none, pte_reclaim_modes_gen_params),
	KUNIT_CASE(collapse_follows_the_shared_policy),
	{}
};

static struct kunit_suite khugepaged_shmem_suite = { .name = "khugepaged_shmem",
						     .test_cases = khugepaged_shmem_cases };
kunit_test_suite(khugepaged_shmem_suite);
