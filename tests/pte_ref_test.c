/* The refcounted PTE tables (mm/pte_ref.[ch], Qi Zheng's series): counts
 * after faults, the free when a zap empties a table (MADV_DONTNEED whole
 * or in pieces, mprotect splitting the range, MAP_FIXED over it, munmap),
 * what partial zaps keep, the fault that races the free
 * (TRYGET_FAILED_ZERO, forced through pte_ref_zero_hook), and
 * pte_ref_verify, which every case runs and which must itself catch a
 * wrong count. The suite runs in refcount mode whatever the boot chose
 * (pte_reclaim_set_mode while no user mm exists; the old mode comes back
 * at the end); the SMP stress of one mm is in tests/mm_smp_test.c.
 *
 * Address spaces are built as in tests/memory_test.c: one VMA from do_mmap
 * with the mm loaded on the runner's thread (kthread_use_mm), faults by
 * handle_mm_fault or user copies, advice by do_madvise, which take the
 * mmap_lock as the system calls do. Every figure compared is taken from
 * the machine before the case (free pages, VmPTE, the system's page-table
 * pages). */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/pt_reclaim.h"
#include "mm/pte_ref.h"
#include "mm/slab.h"

#define BASE 0x0000200000000000ul /* a PGD entry of its own, PMD aligned */
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

struct ref_space {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

/* An mm, the current task's, with [BASE, BASE + size) mapped: the fixture
 * of tests/test_mm.h, whose cleanup checks every PTE table's count against
 * its entries and that everything came back. */
static void space_init(struct kunit *test, struct ref_space *s, unsigned long size)
{
	if (!pte_ref_enabled())
		kunit_skip(test, "refcount mode could not be switched on (a user mm exists)");
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
	s->vma = test_mm_map_anon(test, s->mm, BASE, size);
}

static void space_destroy(struct kunit *test, struct ref_space *s) { test_mm_destroy(test, s->mm); }

static pmd_t *pmd_of(struct ref_space *s, unsigned long addr) { return mm_find_pmd(s->mm, addr); }

static bool table_at(struct ref_space *s, unsigned long addr)
{
	pmd_t *pmd = pmd_of(s, addr);
	return pmd && !pmd_none(pmdp_get(pmd));
}

static void fault(struct kunit *test, struct ref_space *s, unsigned long addr, bool write)
{
	struct vm_area_struct *vma = find_vma(s->mm, addr);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	mmap_read_lock(s->mm);
	vm_fault_t ret = handle_mm_fault(vma, addr, write ? FAULT_FLAG_WRITE : 0);
	mmap_read_unlock(s->mm);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/* Free pages once the tables queued for their grace period are gone,
 * slab pages counted as free: the figure follows page tables and data
 * pages, whichever slab page an object happens to land in (the mm's
 * fixture empties the slab caches for its own leak snapshot, and checks
 * the slab objects itself). */
static unsigned long settled_free_pages(void)
{
	rcu_barrier();
	kmem_cache_shrink_all();
	return nr_free_pages() + nr_slab_pages();
}

/* Writes and zero-page reads each count one reference; a fault's own
 * reference is gone when it returns; a write over the zero page keeps the
 * count (non-none to non-none). */
static void counts_follow_faults(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, PMD_SIZE);
	for (int i = 0; i < 3; i++)
		fault(test, &s, BASE + i * PAGE_SIZE, true);
	fault(test, &s, BASE + 10 * PAGE_SIZE, false);
	fault(test, &s, BASE + 11 * PAGE_SIZE, false);
	pmd_t *pmd = pmd_of(&s, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 5);
	fault(test, &s, BASE + 10 * PAGE_SIZE, true); /* copy-on-write of the zero page */
	fault(test, &s, BASE + 1 * PAGE_SIZE, true);  /* spurious */
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 5);
	/* The back-pointer is the PMD entry that maps the table. */
	pte_t *pte = pte_offset_map(pmd, BASE);
	KUNIT_EXPECT_PTR_EQ(test, pte_to_pmd(pte), pmd);
	pte_unmap(pte);
	/* A walker's reference shows, and goes. */
	pte = pte_tryget_map(s.mm, pmd, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pte);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 6);
	pte_unmap(pte);
	pte_put(s.mm, pmd, BASE);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 5);
	space_destroy(test, &s);
}

/* pte_ref_verify is not a test that cannot fail: a count one off is
 * reported, and only once it is right again does it pass. */
static void verify_catches_a_wrong_count(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, PMD_SIZE);
	fault(test, &s, BASE, true);
	pmd_t *pmd = pmd_of(&s, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	pte_get(pmd); /* as a walker would: not an entry */
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 1);
	pte_put(s.mm, pmd, BASE);
	space_destroy(test, &s);
}

/* The cover letter's point: MADV_DONTNEED of every page of a table frees
 * the table (VmPTE, nr_ptes, the system's page-table pages and the free
 * pages all come back), the other table stays. */
static void dontneed_of_a_whole_table_frees_it(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, 2 * PMD_SIZE);
	fault(test, &s, BASE + PMD_SIZE, true); /* keeps the upper tables */
	long vmpte = s.mm->pgtables_bytes, ptes = s.mm->nr_ptes;
	unsigned long tables = nr_user_pagetable_pages(), free = settled_free_pages();
	for (unsigned long a = BASE; a < BASE + PMD_SIZE; a += 16 * PAGE_SIZE)
		fault(test, &s, a, (a / (16 * PAGE_SIZE)) % 2 == 0); /* zero page every other */
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte + (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables + 1);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_FALSE(test, table_at(&s, BASE));
	KUNIT_EXPECT_TRUE(test, table_at(&s, BASE + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, ptes);
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables);
	KUNIT_EXPECT_EQ(test, settled_free_pages(), free);
	/* MADV_FREE does the same (it zaps too). */
	fault(test, &s, BASE + 5 * PAGE_SIZE, true);
	KUNIT_EXPECT_TRUE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, PMD_SIZE, MADV_FREE), 0);
	KUNIT_EXPECT_FALSE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, settled_free_pages(), free);
	/* And the table comes back on the next touch, counted afresh. */
	fault(test, &s, BASE + 7 * PAGE_SIZE, false);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 1);
	space_destroy(test, &s);
}

/* A zap of part of a table leaves what the rest holds, counted. */
static void partial_dontneed_keeps_the_table(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, PMD_SIZE);
	for (int i = 0; i < 10; i++)
		fault(test, &s, BASE + i * PAGE_SIZE, i % 3 != 0);
	long vmpte = s.mm->pgtables_bytes;
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, 5 * PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_TRUE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 5);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte);
	/* A zap of nothing mapped changes nothing either. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 100 * PAGE_SIZE, 50 * PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 5);
	space_destroy(test, &s);
}

/* mprotect splits the mapping in two VMAs over one table; DONTNEED of each
 * piece in turn empties it, and the second piece's zap frees it (the
 * refcount design frees a table emptied by ranges that never cover it
 * whole: the scan design does not). PROT_NONE entries count as well. */
static void mprotect_and_dontneed_pieces_empty_a_table(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, 2 * PMD_SIZE);
	fault(test, &s, BASE + PMD_SIZE, true);
	long vmpte = s.mm->pgtables_bytes;
	for (int i = 0; i < 8; i++)
		fault(test, &s, BASE + i * PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE, 4 * PAGE_SIZE, PROT_NONE), 0);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 8);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE, 4 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	/* From here on no VMA changes: the free pages the zaps give back are
	 * the 8 pages and the table, exactly. */
	unsigned long free = settled_free_pages();
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 2 * PAGE_SIZE, 4 * PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 4);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, 2 * PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 2);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 6 * PAGE_SIZE, 2 * PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_FALSE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte);
	KUNIT_EXPECT_EQ(test, settled_free_pages(), free + 9);
	space_destroy(test, &s);
}

/* MAP_FIXED over a populated range unmaps it first (under the write
 * lock): the table it empties goes then, and the new mapping faults a new
 * one in. munmap of a whole table likewise; free_pgtables after it finds
 * nothing to free twice. */
static void map_fixed_and_munmap_free_emptied_tables(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, 3 * PMD_SIZE);
	fault(test, &s, BASE + 2 * PMD_SIZE, true);
	long vmpte = s.mm->pgtables_bytes;
	unsigned long tables = nr_user_pagetable_pages();
	for (int i = 0; i < 20; i++)
		fault(test, &s, BASE + i * PAGE_SIZE, true);
	unsigned long a = do_mmap(s.mm, BASE, PMD_SIZE, RW, ANON | MAP_FIXED);
	KUNIT_EXPECT_EQ(test, a, BASE);
	KUNIT_EXPECT_FALSE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte);
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1);
	fault(test, &s, BASE + 3 * PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE)), 1);
	/* munmap of a range that holds a whole table and part of another. */
	for (int i = 0; i < 4; i++)
		fault(test, &s, BASE + PMD_SIZE + i * PAGE_SIZE, true);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, BASE, PMD_SIZE + 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd_of(&s, BASE + PMD_SIZE)), 2);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte + (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables + 1);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	space_destroy(test, &s);
}

/* The race of the series' TRYGET_FAILED_ZERO: a fault finds the table's
 * count at zero because a zap on another CPU has just dropped the last
 * reference and not yet unhooked the table. The test makes that moment:
 * a table with no entry and only the installer's reference, whose count
 * it takes to zero without the free; the hook, called by the fault each
 * time it finds the zero, plays the other CPU and finishes the free. The
 * fault must retry, install a new table and map its page there. */
static struct {
	unsigned calls;
	struct page *old;
} zero_race;

static void finish_the_free(struct mm_struct *mm, pmd_t *pmd)
{
	zero_race.calls++;
	free_user_pte_table(mm, pmd, BASE, NULL);
}

static void clear_hook_action(void *unused)
{
	(void)unused;
	pte_ref_zero_hook = NULL;
}

static void fault_racing_the_free_retries(struct kunit *test)
{
	struct ref_space s;
	space_init(test, &s, 2 * PMD_SIZE);
	/* The upper tables, kept by a page in the next PTE table: an empty
	 * PMD table would go with the PMD extension (mm/pt_reclaim.c). */
	fault(test, &s, BASE + PMD_SIZE - PAGE_SIZE, false);
	fault(test, &s, BASE + PMD_SIZE, false);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_ASSERT_FALSE(test, table_at(&s, BASE));
	long vmpte = s.mm->pgtables_bytes;
	unsigned long free = settled_free_pages();
	pmd_t *pmd = pmd_of(&s, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	mmap_read_lock(s.mm);
	int installed = pte_alloc(s.mm, pmd); /* count 1: ours */
	mmap_read_unlock(s.mm);
	KUNIT_ASSERT_EQ(test, installed, INSTALLED_PTE);
	KUNIT_ASSERT_EQ(test, pte_ref_count(pmd), 1);
	zero_race.calls = 0;
	zero_race.old = pfn_to_page(pmd_pfn(pmdp_get(pmd)));
	/* The racing put's decrement, without its free. */
	__atomic_store_n(&zero_race.old->pt_refcount, 0, __ATOMIC_RELEASE);
	KUNIT_EXPECT_EQ(test, pte_try_get(pmd), TRYGET_FAILED_ZERO);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 0); /* a failed try takes nothing */
	pte_ref_zero_hook = finish_the_free;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, clear_hook_action, NULL), 0);
	u64 v = 0x5eed;
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)(BASE + 9 * PAGE_SIZE), &v, 8), 0);
	kunit_release_action(test, clear_hook_action, NULL);
	KUNIT_EXPECT_EQ(test, zero_race.calls, 1);
	KUNIT_ASSERT_TRUE(test, table_at(&s, BASE));
	KUNIT_EXPECT_PTR_NE(test, pfn_to_page(pmd_pfn(pmdp_get(pmd))), zero_race.old);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 1);
	u64 back = 0;
	KUNIT_EXPECT_EQ(test, copy_from_user(&back, (void *)(BASE + 9 * PAGE_SIZE), 8), 0);
	KUNIT_EXPECT_EQ(test, back, 0x5eed);
	/* One table then as before: the old one went (after its grace
	 * period), the new one holds the page. */
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte + (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, settled_free_pages(), free - 2);
	space_destroy(test, &s);
}

/* munmap and exit: VmPTE, the system's page-table pages, free pages and
 * slab objects are where they were before the mm existed. */
static void munmap_and_exit_return_everything(struct kunit *test)
{
	if (!pte_ref_enabled())
		kunit_skip(test, "refcount mode could not be switched on (a user mm exists)");
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long tables = nr_user_pagetable_pages();
	struct ref_space s;
	space_init(test, &s, 4 * PMD_SIZE);
	long vmpte = s.mm->pgtables_bytes;
	for (unsigned long a = BASE + PAGE_SIZE; a < BASE + 4 * PMD_SIZE; a += 37 * PAGE_SIZE)
		fault(test, &s, a, (a / PAGE_SIZE) % 3 != 0);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 4);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, BASE, 4 * PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 0);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte);
	KUNIT_EXPECT_EQ(test, do_mmap(s.mm, BASE, 4 * PMD_SIZE, RW, ANON | MAP_FIXED), BASE);
	s.vma = find_vma(s.mm, BASE);
	for (unsigned long a = BASE; a < BASE + 4 * PMD_SIZE; a += 101 * PAGE_SIZE)
		fault(test, &s, a, true);
	space_destroy(test, &s); /* exit_mmap with tables still there */
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables);
	kunit_expect_resources_back(test, &before);
}

static enum pte_reclaim_mode saved_mode;

static void refcount_mode_action(void *unused)
{
	(void)unused;
	pte_reclaim_set_mode(PTE_RECLAIM_REFCOUNT);
}

/* In off mode (Linux 6.1) nothing is counted and nothing is freed before
 * munmap: the gets and puts are no-ops, pte_alloc takes no reference, a
 * DONTNEED of a whole table leaves it, and free_pgtables frees it at
 * munmap (without the refcount mode's report of a table left to it). */
static void off_mode_counts_nothing_and_frees_at_munmap(struct kunit *test)
{
	if (pte_reclaim_set_mode(PTE_RECLAIM_OFF))
		kunit_skip(test, "off mode could not be switched on (a user mm exists)");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, refcount_mode_action, NULL), 0);
	struct ref_space s;
	s.mm = test_mm_create(test, TEST_MM_CURRENT); /* page-table pages come back */
	s.vma = test_mm_map_anon(test, s.mm, BASE, 2 * PMD_SIZE);
	for (int i = 0; i < 6; i++)
		fault(test, &s, BASE + i * PAGE_SIZE, i % 2);
	pmd_t *pmd = pmd_of(&s, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 1); /* pte_ref_init's, never moved */
	mmap_read_lock(s.mm);
	KUNIT_EXPECT_EQ(test, pte_alloc(s.mm, pmd), INSTALLED_PTE);
	mmap_read_unlock(s.mm);
	KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 1);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	long vmpte = s.mm->pgtables_bytes;
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_TRUE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, vmpte);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, BASE, 2 * PMD_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, table_at(&s, BASE));
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 0);
	test_mm_destroy(test, s.mm);
	kunit_release_action(test, refcount_mode_action, NULL);
	KUNIT_EXPECT_TRUE(test, pte_ref_enabled());
}

static int pte_ref_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	saved_mode = pte_reclaim_mode;
	int err = pte_reclaim_set_mode(PTE_RECLAIM_REFCOUNT);
	if (err)
		printk(KERN_INFO "pte_ref: refcount mode not set (%d): the cases skip\n", err);
	return 0;
}

static void pte_ref_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	pte_reclaim_set_mode(saved_mode);
}

static struct kunit_case pte_ref_cases[] = {
	KUNIT_CASE(counts_follow_faults),
	KUNIT_CASE(verify_catches_a_wrong_count),
	KUNIT_CASE(dontneed_of_a_whole_table_frees_it),
	KUNIT_CASE(partial_dontneed_keeps_the_table),
	KUNIT_CASE(mprotect_and_dontneed_pieces_empty_a_table),
	KUNIT_CASE(map_fixed_and_munmap_free_emptied_tables),
	KUNIT_CASE(fault_racing_the_free_retries),
	KUNIT_CASE(munmap_and_exit_return_everything),
	KUNIT_CASE(off_mode_counts_nothing_and_frees_at_munmap),
	{}
};

static struct kunit_suite pte_ref_suite = {
	.name = "pte_ref",
	.test_cases = pte_ref_cases,
	.suite_init = pte_ref_suite_init,
	.suite_exit = pte_ref_suite_exit,
};
kunit_test_suite(pte_ref_suite);
