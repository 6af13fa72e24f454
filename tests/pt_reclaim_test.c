/* Tests of mm/pt_reclaim.c: the pte_reclaim mode switch (the set call, the
 * sysctl through procfs and through the file layer, -EBUSY while a user mm
 * lives, -EINVAL for a word it does not know) and the scan design (Linux
 * 6.14's CONFIG_PT_RECLAIM) with mmlab's PMD extension, on address spaces
 * the cases build themselves.
 *
 * The cases switch the mode with pte_reclaim_set_mode() while no user mm
 * exists, and a deferred action puts back the mode the kernel booted with
 * however the case ends, so the suite runs the same on every topology
 * whatever its pte_reclaim= says. Every address space is the fixture's
 * (tests/test_mm.h): when it goes, the page-table pages, free pages and
 * slab objects it took must be back. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_mm.h"
#include "fs/file.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/mmu_gather.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pt_reclaim.h"
#include "mm/pte_ref.h"
#include "mm/slab.h"
#include "mm/util.h"

#define BASE 0x0000100000000000ul /* a PGD entry of its own */
#define SYSCTL "/proc/sys/vm/pte_reclaim"

/* --- the mode, put back however a case ends -------------------------------- */

/* Switches to mode for this case (no user mm may exist: the other suites'
 * are gone by then, and a leaked one is a bug worth a failure); the mode
 * in force before comes back when the case ends. */
static void use_mode(struct kunit *test, enum pte_reclaim_mode mode)
{
	KUNIT_ASSERT_EQ(test, nr_live_user_mms(), 0);
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, mode), 0);
	KUNIT_ASSERT_EQ(test, pte_reclaim_mode, mode);
}

static enum pte_reclaim_mode other_mode(enum pte_reclaim_mode mode)
{
	return mode == PTE_RECLAIM_SCAN ? PTE_RECLAIM_OFF : PTE_RECLAIM_SCAN;
}

/* --- an address space to work on -------------------------------------------- */

/* Counters a case compares before and after. */
struct table_counts {
	long pgtables_bytes, nr_ptes;
	unsigned long user_tables;
};

static struct table_counts counts_now(struct mm_struct *mm)
{
	struct table_counts c = { mm->pgtables_bytes, mm->nr_ptes, nr_user_pagetable_pages() };
	return c;
}

/* An mm with one private anonymous read-write VMA [start, start + len);
 * when it goes (drop_space, or the end of the case however it ends) the
 * page-table pages, free pages and slab objects it took must be back
 * (tests/test_mm.h). */
static struct mm_struct *make_space(struct kunit *test, unsigned long start, unsigned long len)
{
	struct mm_struct *mm = test_mm_create(test, 0);
	unsigned long a = do_mmap(mm, start, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE);
	KUNIT_ASSERT_EQ(test, a, start);
	return mm;
}

static void drop_space(struct kunit *test, struct mm_struct *mm) { test_mm_destroy(test, mm); }

/* Writes every page of [start, start + len) (MADV_POPULATE_WRITE: faults
 * under the mmap read lock, as a process's would be). */
static void fill(struct kunit *test, struct mm_struct *mm, unsigned long start, unsigned long len)
{
	KUNIT_ASSERT_EQ(test, do_madvise(mm, start, len, MADV_POPULATE_WRITE), 0);
}

static bool pte_table_at(struct mm_struct *mm, unsigned long addr)
{
	mmap_read_lock(mm);
	pmd_t *pmd = mm_find_pmd(mm, addr);
	bool there = pmd && !pmd_none(pmdp_get(pmd));
	mmap_read_unlock(mm);
	return there;
}

static bool pmd_table_at(struct mm_struct *mm, unsigned long addr)
{
	mmap_read_lock(mm);
	bool there = mm_find_pmd(mm, addr) != NULL;
	mmap_read_unlock(mm);
	return there;
}

/* The table pages freed through the gather may wait for an RCU grace
 * period (the gather's table batch): let them go before free pages are
 * counted. */
static unsigned long free_pages_settled(void)
{
	rcu_barrier();
	return nr_free_pages();
}

/* --- the mode switch ------------------------------------------------------------ */

static void mode_words_parse_as_sysctl_strings(struct kunit *test)
{
	enum pte_reclaim_mode m = PTE_RECLAIM_SCAN;
	KUNIT_EXPECT_EQ(test, pte_reclaim_parse_mode("off", 3, &m), 0);
	KUNIT_EXPECT_EQ(test, m, PTE_RECLAIM_OFF);
	KUNIT_EXPECT_EQ(test, pte_reclaim_parse_mode("refcount\n", 9, &m), 0);
	KUNIT_EXPECT_EQ(test, m, PTE_RECLAIM_REFCOUNT);
	KUNIT_EXPECT_EQ(test, pte_reclaim_parse_mode("scan", 4, &m), 0);
	KUNIT_EXPECT_EQ(test, m, PTE_RECLAIM_SCAN);
	/* One trailing newline only, no other white space, no prefix, exact
	 * case; and nothing changes on a refusal. */
	static const char *const bad[] = { "", "\n", "scan\n\n", " scan", "scan ", "Scan", "sca",
					   "scanx", "offf", "refcount\t", "2" };
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		m = PTE_RECLAIM_SCAN;
		KUNIT_EXPECT_EQ(test, pte_reclaim_parse_mode(bad[i], strlen(bad[i]), &m), -EINVAL);
		KUNIT_EXPECT_EQ(test, m, PTE_RECLAIM_SCAN);
	}
	for (int i = PTE_RECLAIM_OFF; i <= PTE_RECLAIM_REFCOUNT; i++) {
		const char *name = pte_reclaim_mode_name(i);
		KUNIT_EXPECT_EQ(test, pte_reclaim_parse_mode(name, strlen(name), &m), 0);
		KUNIT_EXPECT_EQ(test, m, i);
	}
	KUNIT_EXPECT_EQ(test, pte_reclaim_set_mode((enum pte_reclaim_mode)7), -EINVAL);
}

static void mode_switch_is_busy_while_a_user_mm_lives(struct kunit *test)
{
	enum pte_reclaim_mode start = pte_reclaim_mode;
	use_mode(test, start); /* saves the boot mode; no user mm alive */
	struct mm_struct *mm = test_mm_create(test, 0);
	KUNIT_EXPECT_EQ(test, nr_live_user_mms(), 1);
	KUNIT_EXPECT_EQ(test, pte_reclaim_set_mode(other_mode(start)), -EBUSY);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, start);
	/* The mode in force may be set again: nothing changes. */
	KUNIT_EXPECT_EQ(test, pte_reclaim_set_mode(start), 0);
	drop_space(test, mm);
	KUNIT_EXPECT_EQ(test, nr_live_user_mms(), 0);
	KUNIT_EXPECT_EQ(test, pte_reclaim_set_mode(other_mode(start)), 0);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, other_mode(start));
	KUNIT_EXPECT_EQ(test, pte_reclaim_set_mode(start), 0);
}

/* The sysctl's content as a reader sees it. */
static void expect_sysctl_reads(struct kunit *test, const char *want)
{
	char *buf;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate(SYSCTL, current, &buf, &len), 0);
	KUNIT_EXPECT_EQ(test, len, strlen(want));
	KUNIT_EXPECT_STREQ(test, buf, want);
	kvfree(buf);
}

static void sysctl_reads_and_writes_the_mode(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_REFCOUNT);
	expect_sysctl_reads(test, "refcount\n");
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "off\n", 4), 0);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, PTE_RECLAIM_OFF);
	expect_sysctl_reads(test, "off\n");
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "scan", 4), 0);
	expect_sysctl_reads(test, "scan\n");
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "bogus\n", 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "off\n\n", 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, PTE_RECLAIM_SCAN);

	/* A user mm alive: a change is refused, a bad word is still -EINVAL. */
	struct mm_struct *mm = test_mm_create(test, 0);
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "off\n", 4), -EBUSY);
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "of\n", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, procfs_write_path(SYSCTL, current, "scan\n", 5), 0);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, PTE_RECLAIM_SCAN);
	drop_space(test, mm);
}

static void files_release_action(void *files) { files_release(files); }

/* The same through open/write/pread, as a process does it: the file is
 * writable (0644) and each write(2) is one value. */
static void sysctl_through_the_file_layer(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_OFF);
	struct files_struct *f = files_alloc("");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, files_release_action, f), 0);
	int fd = files_open(f, AT_FDCWD, SYSCTL, O_RDWR, 0);
	KUNIT_ASSERT_GE(test, fd, 3);
	char buf[32] = { 0 };
	KUNIT_EXPECT_EQ(test, files_pread(f, fd, buf, sizeof(buf) - 1, 0), 4);
	KUNIT_EXPECT_STREQ(test, buf, "off\n");
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "scan\n", 5), 5);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, PTE_RECLAIM_SCAN);
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, files_pread(f, fd, buf, sizeof(buf) - 1, 0), 5);
	KUNIT_EXPECT_STREQ(test, buf, "scan\n");
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "nope", 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, PTE_RECLAIM_SCAN);
	kunit_release_action(test, files_release_action, f);
}

/* --- the scan design ---------------------------------------------------------------- */

/* MADV_DONTNEED of a range covering a whole PTE table frees it: VmPTE,
 * nr_ptes and the system's page-table pages go down by one, the PMD entry
 * is none, and the table page and the data pages are free again. The PMD
 * table stays while another PTE table is in it. */
static void scan_dontneed_of_a_whole_table_frees_it(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	struct mm_struct *mm = make_space(test, BASE, 4 * PMD_SIZE);
	fill(test, mm, BASE, PMD_SIZE);
	fill(test, mm, BASE + 2 * PMD_SIZE, PAGE_SIZE); /* keeps the PMD table */
	struct table_counts before = counts_now(mm);
	KUNIT_EXPECT_EQ(test, before.nr_ptes, 2);
	KUNIT_EXPECT_EQ(test, before.pgtables_bytes, 4 * (long)PAGE_SIZE); /* PUD, PMD, 2 PTE */
	struct pt_reclaim_stats s0, s1;
	pt_reclaim_stats_read(&s0);
	unsigned long free_before = free_pages_settled();

	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	struct table_counts after = counts_now(mm);
	KUNIT_EXPECT_EQ(test, after.nr_ptes, before.nr_ptes - 1);
	KUNIT_EXPECT_EQ(test, after.pgtables_bytes, before.pgtables_bytes - (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, after.user_tables, before.user_tables - 1);
	KUNIT_EXPECT_FALSE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE + 2 * PMD_SIZE));
	KUNIT_EXPECT_TRUE(test, pmd_table_at(mm, BASE));
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_EQ(test, s1.pte_tables_freed - s0.pte_tables_freed, 1);
	KUNIT_EXPECT_EQ(test, s1.pmd_tables_freed, s0.pmd_tables_freed);
	/* 512 data pages and the table. */
	KUNIT_EXPECT_EQ(test, free_pages_settled() - free_before, PTRS_PER_TABLE + 1);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 1);

	/* The range faults back in through a new table. */
	fill(test, mm, BASE + PAGE_SIZE, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 2);
	drop_space(test, mm);
}

/* A range that does not cover a whole table leaves it, even empty
 * (mainline's reclaim_pt_is_enabled: end - start >= PMD_SIZE); an
 * unaligned range frees exactly the tables it covers whole. */
static void scan_partial_dontneed_keeps_the_table(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	struct mm_struct *mm = make_space(test, BASE, 4 * PMD_SIZE);
	fill(test, mm, BASE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE - PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 0);
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 1);

	/* Three tables; [BASE + 4K, BASE + 4M + 4K) covers only the middle
	 * one whole. */
	fill(test, mm, BASE, 3 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 3);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + PAGE_SIZE, 2 * PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 2);
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_FALSE(test, pte_table_at(mm, BASE + PMD_SIZE));
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE + 2 * PMD_SIZE));
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 1 + (PTRS_PER_TABLE - 1));
	drop_space(test, mm);
}

/* MADV_FREE zaps the pages (mmlab frees at once) but, as in Linux 6.14,
 * does not ask for the tables; MADV_DONTNEED_LOCKED does. */
static void scan_madv_free_keeps_tables_dontneed_locked_frees(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	struct mm_struct *mm = make_space(test, BASE, 4 * PMD_SIZE);
	fill(test, mm, BASE, 2 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_FREE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), PTRS_PER_TABLE);
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 2);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + PMD_SIZE, PMD_SIZE, MADV_DONTNEED_LOCKED), 0);
	KUNIT_EXPECT_FALSE(test, pte_table_at(mm, BASE + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 1);
	drop_space(test, mm);
}

/* A table with an entry set when the scan looks (a fault refilled it after
 * the zap dropped its lock) stays; empty, it goes. try_to_free_pte is
 * called as zap_pte_range calls it: mmap lock held for reading, a gather
 * open. */
static void scan_keeps_a_table_refilled_before_the_check(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	struct mm_struct *mm = make_space(test, BASE, 2 * PMD_SIZE);
	fill(test, mm, BASE + 7 * PAGE_SIZE, PAGE_SIZE);
	struct pt_reclaim_stats s0, s1;
	pt_reclaim_stats_read(&s0);
	struct mmu_gather tlb;
	mmap_read_lock(mm);
	pmd_t *pmd = mm_find_pmd(mm, BASE);
	KUNIT_EXPECT_NOT_NULL(test, pmd);
	if (pmd) {
		tlb_gather_mmu(&tlb, mm);
		try_to_free_pte(mm, pmd, BASE, &tlb);
		tlb_finish_mmu(&tlb);
	}
	mmap_read_unlock(mm);
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_EQ(test, s1.pte_tables_busy - s0.pte_tables_busy, 1);
	KUNIT_EXPECT_EQ(test, s1.pte_tables_freed, s0.pte_tables_freed);
	KUNIT_EXPECT_TRUE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 1);

	/* Zapped without reclaim_pt (munmap's zap, MADV_FREE), then scanned. */
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_FREE), 0);
	mmap_read_lock(mm);
	pmd = mm_find_pmd(mm, BASE);
	if (pmd) {
		tlb_gather_mmu(&tlb, mm);
		try_to_free_pte(mm, pmd, BASE + 5 * PAGE_SIZE, &tlb);
		tlb_finish_mmu(&tlb);
	}
	/* An empty PMD: nothing to do. */
	pmd_t *next = mm_find_pmd(mm, BASE + PMD_SIZE);
	if (next) {
		tlb_gather_mmu(&tlb, mm);
		try_to_free_pte(mm, next, BASE + PMD_SIZE, &tlb);
		tlb_finish_mmu(&tlb);
	}
	mmap_read_unlock(mm);
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_EQ(test, s1.pte_tables_freed - s0.pte_tables_freed, 1);
	KUNIT_EXPECT_FALSE(test, pte_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 0);
	drop_space(test, mm);
}

/* In off mode (Linux 6.1) nothing is freed before munmap; munmap and exit
 * free everything in every mode. */
static void off_mode_keeps_tables_until_munmap(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_OFF);
	struct mm_struct *mm = make_space(test, BASE, 4 * PMD_SIZE);
	fill(test, mm, BASE, 2 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, 4 * PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 0);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 2);
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, 4 * (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE, 4 * PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 0);
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, 0);
	drop_space(test, mm);
}

/* --- the PMD extension -------------------------------------------------------------- */

/* The cover letter's workload, scaled: 2 MiB chunks written whole then
 * given back with MADV_DONTNEED, across a 1 GiB boundary (two PMD tables).
 * In scan mode VmPTE ends no more than 4 kB (the PUD table) above where it
 * started; in off mode one PTE table per chunk and both PMD tables stay. */
static void workload(struct kunit *test, struct mm_struct *mm, unsigned long start, unsigned chunks)
{
	for (unsigned i = 0; i < chunks; i++) {
		fill(test, mm, start + i * PMD_SIZE, PMD_SIZE);
		KUNIT_ASSERT_EQ(test, do_madvise(mm, start + i * PMD_SIZE, PMD_SIZE, MADV_DONTNEED), 0);
	}
}

#define WORKLOAD_START (BASE + PUD_SIZE - 2 * PMD_SIZE)
#define WORKLOAD_CHUNKS 4

/* The workload in each mode (the parameters keep the names the three
 * cases had before they were one):
 *  - scan: VmPTE ends within 4 kB; the scan frees each chunk's PTE table
 *    and the PMD extension each emptied PMD table (one chunk at a time is
 *    mapped);
 *  - refcount, with the same PMD extension (madvise calls it when a PTE
 *    table went): the chunks straddle two PTE tables each (half a table
 *    off), which the scan design could never free, and still VmPTE ends
 *    within 4 kB: every PTE table goes with its last entry (nothing for
 *    the scan to do), every PMD table with its last PTE table;
 *  - off: a PUD table, two PMD tables and a PTE table per chunk stay. */
struct workload_run {
	const char *name;
	enum pte_reclaim_mode mode;
	unsigned long offset; /* of the chunks, from WORKLOAD_START */
	long vmpte_min, vmpte_max; /* VmPTE's growth */
	long nr_ptes;
	unsigned long scan_freed; /* PTE tables the scan freed */
	unsigned long pmd_freed_min, pmd_freed_max;
};
static const struct workload_run workload_runs[] = {
	{ "pmd_extension_workload_ends_within_4k", PTE_RECLAIM_SCAN, 0, 0, 4096, 0,
	  WORKLOAD_CHUNKS, WORKLOAD_CHUNKS, WORKLOAD_CHUNKS },
	{ "refcount_workload_ends_within_4k_even_unaligned", PTE_RECLAIM_REFCOUNT, PMD_SIZE / 2, 0,
	  4096, 0, 0, 1, ~0ul },
	{ "off_mode_workload_keeps_every_table", PTE_RECLAIM_OFF, 0,
	  (1 + 2 + WORKLOAD_CHUNKS) * PAGE_SIZE, (1 + 2 + WORKLOAD_CHUNKS) * PAGE_SIZE,
	  WORKLOAD_CHUNKS, 0, 0, 0 },
};
KUNIT_ARRAY_PARAM_DESC(workload_runs, workload_runs, name);

static void dontneed_workload(struct kunit *test)
{
	const struct workload_run *w = test->param_value;
	use_mode(test, w->mode);
	struct mm_struct *mm = make_space(test, BASE, 4 * PUD_SIZE);
	long vmpte_before = mm->pgtables_bytes;
	struct pt_reclaim_stats s0, s1;
	pt_reclaim_stats_read(&s0);
	workload(test, mm, WORKLOAD_START + w->offset, WORKLOAD_CHUNKS);
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_GE(test, mm->pgtables_bytes - vmpte_before, w->vmpte_min);
	KUNIT_EXPECT_LE(test, mm->pgtables_bytes - vmpte_before, w->vmpte_max);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, w->nr_ptes);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 0);
	KUNIT_EXPECT_EQ(test, s1.pte_tables_freed - s0.pte_tables_freed, w->scan_freed);
	KUNIT_EXPECT_GE(test, s1.pmd_tables_freed - s0.pmd_tables_freed, w->pmd_freed_min);
	KUNIT_EXPECT_LE(test, s1.pmd_tables_freed - s0.pmd_tables_freed, w->pmd_freed_max);
	/* The PMD tables of both PUD entries the chunks crossed. */
	bool pmd_tables_stay = w->mode == PTE_RECLAIM_OFF;
	KUNIT_EXPECT_EQ(test, pmd_table_at(mm, WORKLOAD_START), pmd_tables_stay);
	KUNIT_EXPECT_EQ(test, pmd_table_at(mm, BASE + PUD_SIZE), pmd_tables_stay);
	drop_space(test, mm); /* and the counts of every PTE table are checked */
}

/* A PMD table with a PTE table left in it stays; so does an empty one when
 * the mmap write lock cannot be had at once (a fault or a walker holds
 * mmap_lock): the range is recorded, and the next MADV_DONTNEED of the mm
 * scans it with its own (munmap would free it anyway). */
static void pmd_extension_leaves_busy_or_locked_pmd_tables(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	struct mm_struct *mm = make_space(test, BASE, 4 * PMD_SIZE);
	fill(test, mm, BASE, 2 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_TRUE(test, pmd_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, 3 * (long)PAGE_SIZE);

	/* Empty the second table by hand, with the read lock held as a
	 * faulting thread would: the trylock fails, the PMD table stays. */
	struct pt_reclaim_stats s0, s1;
	pt_reclaim_stats_read(&s0);
	mmap_read_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	zap_page_range_dontneed(vma, BASE + PMD_SIZE, PMD_SIZE);
	try_to_free_pmd_tables(mm, BASE, BASE + 4 * PMD_SIZE);
	mmap_read_unlock(mm);
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_EQ(test, s1.pmd_trylock_failed - s0.pmd_trylock_failed, 1);
	KUNIT_EXPECT_EQ(test, s1.pmd_tables_freed, s0.pmd_tables_freed);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 0);
	KUNIT_EXPECT_TRUE(test, pmd_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, 2 * (long)PAGE_SIZE);

	/* The range left is the next MADV_DONTNEED's to look at, even one
	 * that frees no PTE table itself (shorter than a table here). */
	KUNIT_EXPECT_EQ(test, mm->pmd_reclaim_start, BASE);
	KUNIT_EXPECT_EQ(test, mm->pmd_reclaim_end, BASE + 4 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE - PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_FALSE(test, pmd_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, (long)PAGE_SIZE); /* the PUD table */
	KUNIT_EXPECT_EQ(test, mm->pmd_reclaim_end, 0);
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_EQ(test, s1.pmd_tables_freed - s0.pmd_tables_freed, 1);

	/* With nothing left over, a MADV_DONTNEED that frees no PTE table
	 * does not look: one shorter than a table, one of a whole table's
	 * span with nothing there. The next one that frees a PTE table does. */
	fill(test, mm, BASE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + PAGE_SIZE, PMD_SIZE - PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + 2 * PMD_SIZE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_TRUE(test, pmd_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_FALSE(test, pmd_table_at(mm, BASE));
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, (long)PAGE_SIZE);
	pt_reclaim_stats_read(&s1);
	KUNIT_EXPECT_EQ(test, s1.pmd_tables_freed - s0.pmd_tables_freed, 2);

	/* A range reaching past the user half is clamped to it (the kernel
	 * half's tables are every mm's). */
	try_to_free_pmd_tables(mm, TASK_SIZE - PMD_SIZE, TASK_SIZE + 4 * PUD_SIZE);
	KUNIT_EXPECT_EQ(test, mm->pgtables_bytes, (long)PAGE_SIZE);
	drop_space(test, mm);
}

/* munmap after the scan freed some tables, and exit with tables the scan
 * left: VmPTE, the page-table pages and the free pages all come back. */
static void scan_then_munmap_and_exit_give_everything_back(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	struct mm_struct *mm = make_space(test, BASE, 8 * PMD_SIZE);
	fill(test, mm, BASE, 8 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + PMD_SIZE, 3 * PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 5);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE, 4 * PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 4);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 4 * PTRS_PER_TABLE);
	drop_space(test, mm); /* exit_mmap with 4 PTE tables, a PMD and a PUD table */
}

/* --- faults beside the scan, on every CPU ------------------------------------------ */

/* Kernel threads share one mm: faulters write and read back a word in
 * pages of two PTE tables (through copy_to_user/copy_from_user, so their
 * faults take the mmap read lock as a process's do), while zappers keep
 * giving both tables back with MADV_DONTNEED, which in scan mode frees
 * them under the faulters and tries the PMD extension's write trylock
 * beside their read locks. A word reads back as written, or as zero (or
 * partly zero: test_word_is_v_or_torn) when a zap came between; a fault
 * never fails; a PTE set by a fault is never lost with its table (RSS matches the pages mapped at the end); and once
 * the threads are done one MADV_DONTNEED frees every table down to the PUD
 * table. On one CPU the threads interleave at their cond_resched(). */
#define STRESS_ROUNDS 150
#define STRESS_MAX_WORKERS 8
#define STRESS_PAGES (2 * PTRS_PER_TABLE)

struct stress {
	struct mm_struct *mm;
	volatile unsigned long errors;
	/* The pacing: each round of faults starts after a zap, and each zap
	 * waits for a round of faults to have started, so that zaps land in
	 * the middle of faults (a fault round that met no zap would cost no
	 * fault at all). */
	volatile unsigned long fault_starts, zaps, faulters_done, zappers_done;
	/* What went wrong, by kind, and the first wrong word read back. */
	volatile unsigned long madvise_errors, copy_errors, wrong_words, first_wrong, first_wanted;
};

static unsigned long load_acq(const volatile unsigned long *v) { return __atomic_load_n(v, __ATOMIC_ACQUIRE); }
static void inc_rel(volatile unsigned long *v) { __atomic_add_fetch(v, 1, __ATOMIC_ACQ_REL); }

/* Waits until *v moves from last or every thread of the other kind has
 * finished; returns *v. */
static unsigned long wait_for_change(const volatile unsigned long *v, unsigned long last,
				     const volatile unsigned long *others_done, unsigned long others)
{
	while (load_acq(v) == last && load_acq(others_done) < others) {
		cond_resched();
		cpu_relax(); /* under single-threaded TCG: the others' vCPUs run */
	}
	return load_acq(v);
}

static int stress_fn(struct test_worker *w)
{
	struct stress *st = w->crew->ctx;
	unsigned long nr_faulters = (w->crew->n + 1) / 2, nr_zappers = w->crew->n / 2;
	unsigned long bad = 0;
	if (w->id % 2) {
		unsigned long last = 0;
		for (unsigned r = 0; r < STRESS_ROUNDS; r++) {
			last = wait_for_change(&st->fault_starts, last, &st->faulters_done, nr_faulters);
			unsigned long start = r % 3 == 2 ? BASE + PMD_SIZE : BASE;
			unsigned long len = r % 3 == 0 ? 2 * PMD_SIZE : PMD_SIZE;
			if (do_madvise(st->mm, start, len, MADV_DONTNEED)) {
				bad++;
				inc_rel(&st->madvise_errors);
			}
			inc_rel(&st->zaps);
			test_crew_progress(w);
			cond_resched();
		}
		inc_rel(&st->zappers_done);
	} else {
		kthread_use_mm(st->mm);
		unsigned long last = ~0ul;
		for (unsigned r = 0; r < STRESS_ROUNDS; r++) {
			last = wait_for_change(&st->zaps, last, &st->zappers_done, nr_zappers);
			inc_rel(&st->fault_starts);
			for (unsigned long p = w->id; p < STRESS_PAGES; p += 31) {
				u64 *addr = (u64 *)(BASE + p * PAGE_SIZE) + w->id;
				u64 v = (u64)r << 32 | p << 8 | w->id | 1, got = 1;
				if (copy_to_user(addr, &v, 8) || copy_from_user(&got, addr, 8)) {
					bad++;
					inc_rel(&st->copy_errors);
				} else if (!test_word_is_v_or_torn(got, v)) {
					bad++;
					if (!__atomic_fetch_add(&st->wrong_words, 1, __ATOMIC_ACQ_REL)) {
						st->first_wrong = got;
						st->first_wanted = v;
					}
				}
			}
			test_crew_progress(w);
			cond_resched();
		}
		kthread_unuse_mm(st->mm);
		inc_rel(&st->faulters_done);
	}
	if (bad)
		__atomic_add_fetch(&st->errors, bad, __ATOMIC_RELAXED);
	return 0;
}

static unsigned long pages_mapped(struct mm_struct *mm, unsigned long start, unsigned long n)
{
	unsigned long mapped = 0;
	mmap_read_lock(mm);
	for (unsigned long i = 0; i < n; i++) {
		pmd_t *pmd = mm_find_pmd(mm, start + i * PAGE_SIZE);
		spinlock_t *ptl;
		pte_t *pte = pmd ? pte_offset_map_lock(mm, pmd, start + i * PAGE_SIZE, &ptl) : NULL;
		if (!pte)
			continue;
		pte_t e = ptep_get(pte);
		if (pte_present(e) && !is_zero_pfn(pte_pfn(e)))
			mapped++;
		pte_unmap_unlock(pte, ptl);
	}
	mmap_read_unlock(mm);
	return mapped;
}

static void scan_beside_faults_on_every_cpu(struct kunit *test)
{
	use_mode(test, PTE_RECLAIM_SCAN);
	static struct stress st;
	static struct test_crew c;
	st = (struct stress){ .mm = make_space(test, BASE, 2 * PMD_SIZE) };
	struct pt_reclaim_stats s0, s1;
	pt_reclaim_stats_read(&s0);
	/* One thread per online CPU, at least two (a faulter and a zapper). */
	unsigned n = num_online_cpus();
	n = n < 2 ? 2 : n > STRESS_MAX_WORKERS ? STRESS_MAX_WORKERS : n;
	KUNIT_EXPECT_EQ(test, test_on_each_cpu(test, &c, stress_fn, &st, n), 0);
	KUNIT_EXPECT_EQ(test, st.errors, 0);
	if (st.errors)
		kunit_info(test, "%lu MADV_DONTNEED failed, %lu user copies failed, %lu words read "
			   "back wrong (first: %#lx for %#lx)", st.madvise_errors, st.copy_errors,
			   st.wrong_words, st.first_wrong, st.first_wanted);
	pt_reclaim_stats_read(&s1);
	kunit_info(test, "%u threads: %lu PTE tables freed, %lu refilled before the check, "
		   "%lu PMD tables freed, %lu write trylocks failed, %lu faults", c.n,
		   s1.pte_tables_freed - s0.pte_tables_freed, s1.pte_tables_busy - s0.pte_tables_busy,
		   s1.pmd_tables_freed - s0.pmd_tables_freed,
		   s1.pmd_trylock_failed - s0.pmd_trylock_failed, st.mm->page_faults);
	KUNIT_EXPECT_GT(test, s1.pte_tables_freed - s0.pte_tables_freed, 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(st.mm), pages_mapped(st.mm, BASE, STRESS_PAGES));
	KUNIT_EXPECT_LE(test, st.mm->nr_ptes, 2);

	/* Alone now: everything goes but the PUD table. */
	KUNIT_EXPECT_EQ(test, do_madvise(st.mm, BASE, 2 * PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(st.mm), 0);
	KUNIT_EXPECT_EQ(test, st.mm->nr_ptes, 0);
	KUNIT_EXPECT_EQ(test, st.mm->pgtables_bytes, (long)PAGE_SIZE);
	drop_space(test, st.mm);
}

static struct kunit_case pt_reclaim_cases[] = {
	KUNIT_CASE(mode_words_parse_as_sysctl_strings),
	KUNIT_CASE(mode_switch_is_busy_while_a_user_mm_lives),
	KUNIT_CASE(sysctl_reads_and_writes_the_mode),
	KUNIT_CASE(sysctl_through_the_file_layer),
	KUNIT_CASE(scan_dontneed_of_a_whole_table_frees_it),
	KUNIT_CASE(scan_partial_dontneed_keeps_the_table),
	KUNIT_CASE(scan_madv_free_keeps_tables_dontneed_locked_frees),
	KUNIT_CASE(scan_keeps_a_table_refilled_before_the_check),
	KUNIT_CASE(off_mode_keeps_tables_until_munmap),
	KUNIT_CASE_PARAM(dontneed_workload, workload_runs_gen_params),
	KUNIT_CASE(pmd_extension_leaves_busy_or_locked_pmd_tables),
	KUNIT_CASE(scan_then_munmap_and_exit_give_everything_back),
	KUNIT_CASE(scan_beside_faults_on_every_cpu),
	{}
};
static struct kunit_suite pt_reclaim_suite = { .name = "pt_reclaim", .test_cases = pt_reclaim_cases };
kunit_test_suite(pt_reclaim_suite);
