/* The LRU lists (mm/swap.c, mm/mlock.c) and their aging (mm/vmscan.c,
 * folio_referenced in mm/rmap.c): where a user page sits from its first
 * mapping to its free, as Linux 6.1 puts it.
 *
 * Each case's pages are bound (MPOL_BIND) to a node whose anon lists
 * were empty when the case began, chosen from the machine: the lists'
 * counts it checks are then its own pages' alone, and the aging it runs
 * (shrink_active_list, shrink_inactive_list) scans only them. Every
 * expectation is derived from the pages themselves (their node, their
 * flags) and the node's counters. */
#include "tests/kunit.h"
#include "tests/test_migrate.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "mm/huge_memory.h"
#include "mm/mm_inline.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

#define BASE 0x0000340000000000ul /* a PGD entry of its own, 1 GiB aligned */
#define ARG (BASE - PAGE_SIZE)    /* the system calls' user arguments */
#define NPAGES 16
#define SZ2M (2ul << 20)

struct lru_case {
	struct mm_struct *mm;
	int nid;
	struct lruvec *lruvec;
};

/* The case's mm (current), [BASE, BASE + len) mapped and bound to a quiet
 * node. */
static void lru_case_init(struct kunit *test, struct lru_case *c, unsigned long len)
{
	c->nid = test_quiet_lru_node();
	if (c->nid < 0)
		kunit_skip(test, "no node with empty anon lists");
	c->lruvec = node_lruvec(NODE_DATA(c->nid));
	c->mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, c->mm, ARG, PAGE_SIZE);
	test_mm_map_anon(test, c->mm, BASE, len);
	unsigned long mask = 1ul << c->nid;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)ARG, &mask, sizeof(mask)), 0);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_mbind, BASE, len, MPOL_BIND, ARG, 64, 0), 0);
}

static struct page *page_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t e = test_mm_pte(mm, addr);
	return pte_present(e) ? pfn_to_page(pte_pfn(e)) : NULL;
}

static void fault_pages(struct kunit *test, struct lru_case *c, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(c->mm, BASE + i * PAGE_SIZE, i + 1), 0);
}

static bool flag(const struct page *p, enum pageflags f) { return page_test_flag(p, f); }

/* Anonymous pages join the inactive anon list at their first mapping
 * (swap-backed, not active) and leave it at their free. */
static void anon_faults_fill_the_inactive_list(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, NPAGES * PAGE_SIZE);
	fault_pages(test, &c, NPAGES);
	for (unsigned long i = 0; i < NPAGES; i++) {
		struct page *p = page_at(c.mm, BASE + i * PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(p), c.nid);
		KUNIT_EXPECT_TRUE(test, flag(p, PG_lru) && flag(p, PG_swapbacked));
		KUNIT_EXPECT_FALSE(test, flag(p, PG_active) || flag(p, PG_unevictable) || flag(p, PG_mlocked));
		KUNIT_EXPECT_EQ(test, folio_lru_list(p), LRU_INACTIVE_ANON);
	}
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], 0ul);
	/* The list holds exactly them. */
	unsigned long linked = 0;
	struct list_head *e;
	list_for_each(e, &c.lruvec->lists[LRU_INACTIVE_ANON])
		linked++;
	KUNIT_EXPECT_EQ(test, linked, (unsigned long)NPAGES);
	test_mm_destroy(test, c.mm);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
	KUNIT_EXPECT_TRUE(test, list_empty(&c.lruvec->lists[LRU_INACTIVE_ANON]));
}

/* Linux's folio_mark_accessed: the first reference marks the page, the
 * second moves it to the active list (pgactivate). */
static void second_reference_activates(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, PAGE_SIZE);
	fault_pages(test, &c, 1);
	struct page *p = page_at(c.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	unsigned long activated = all_vm_events(PGACTIVATE);
	folio_mark_accessed(p);
	KUNIT_EXPECT_TRUE(test, flag(p, PG_referenced));
	KUNIT_EXPECT_FALSE(test, flag(p, PG_active));
	folio_mark_accessed(p);
	KUNIT_EXPECT_TRUE(test, flag(p, PG_active));
	KUNIT_EXPECT_FALSE(test, flag(p, PG_referenced));
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], 1ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(PGACTIVATE) - activated, 1ul);
	test_mm_destroy(test, c.mm);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], 0ul);
}

/* mlock moves the mapped pages to the unevictable list (PG_mlocked, one
 * mlock_count each), munlock back to the inactive list; pages faulted in
 * a locked VMA go there at once; a locked VMA's unmap munlocks. */
static void mlocked_pages_are_unevictable_and_back(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, NPAGES * PAGE_SIZE);
	fault_pages(test, &c, NPAGES / 2);
	unsigned long mlocked = all_vm_events(UNEVICTABLE_PGMLOCKED), mlock_before = global_mlocked_pages();
	/* Half the range present, half faulted by mlock's populate. */
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_mlock, BASE, NPAGES * PAGE_SIZE, 0, 0, 0, 0), 0);
	for (unsigned long i = 0; i < NPAGES; i++) {
		struct page *p = page_at(c.mm, BASE + i * PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_TRUE(test, flag(p, PG_mlocked) && flag(p, PG_unevictable) && flag(p, PG_lru));
		KUNIT_EXPECT_EQ(test, *folio_mlock_count(p), 1ul);
	}
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_UNEVICTABLE], (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_mlock, (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, global_mlocked_pages() - mlock_before, (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, all_vm_events(UNEVICTABLE_PGMLOCKED) - mlocked, (unsigned long)NPAGES);

	/* munlock of the first half: back to the inactive list. */
	unsigned long rescued = all_vm_events(UNEVICTABLE_PGRESCUED);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_munlock, BASE, NPAGES / 2 * PAGE_SIZE, 0, 0, 0, 0), 0);
	for (unsigned long i = 0; i < NPAGES; i++) {
		struct page *p = page_at(c.mm, BASE + i * PAGE_SIZE);
		bool locked = i >= NPAGES / 2;
		KUNIT_EXPECT_EQ(test, flag(p, PG_mlocked), locked);
		KUNIT_EXPECT_EQ(test, flag(p, PG_unevictable), locked);
		KUNIT_EXPECT_TRUE(test, flag(p, PG_lru));
	}
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], (unsigned long)NPAGES / 2);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_UNEVICTABLE], (unsigned long)NPAGES / 2);
	KUNIT_EXPECT_EQ(test, all_vm_events(UNEVICTABLE_PGRESCUED) - rescued, (unsigned long)NPAGES / 2);

	/* The locked half unmapped: munlocked by the unmap, nothing left
	 * mlocked on the node. */
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_munmap, BASE + NPAGES / 2 * PAGE_SIZE, NPAGES / 2 * PAGE_SIZE, 0, 0, 0, 0),
			0);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_mlock, 0ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_UNEVICTABLE], 0ul);
	KUNIT_EXPECT_EQ(test, global_mlocked_pages(), mlock_before);
	test_mm_destroy(test, c.mm);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
}

/* mlock2(MLOCK_ONFAULT): nothing populated, each page unevictable from
 * the fault that maps it (Linux's folio_add_lru_vma -> mlock_new_folio). */
static void locked_vma_faults_unevictable_pages(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, NPAGES * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_mlock2, BASE, NPAGES * PAGE_SIZE, MLOCK_ONFAULT, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_UNEVICTABLE], 0ul);
	fault_pages(test, &c, 3);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_UNEVICTABLE], 3ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_mlock, 3ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
	/* Freed with the mm while mlocked: the free takes the mlock off
	 * (unevictable_pgs_cleared), as an exit does in Linux. */
	test_mm_destroy(test, c.mm);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_mlock, 0ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_UNEVICTABLE], 0ul);
}

/* A THP is one LRU entry of 512 pages, by its head. */
static int saved_thp;
static void restore_thp(void *p) { thp_enabled_mode = *(int *)p; }

static void thp_is_one_entry(struct kunit *test)
{
	struct lru_case c;
	saved_thp = thp_enabled_mode;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_thp, &saved_thp), 0);
	thp_enabled_mode = THP_ENABLED_MADVISE;
	lru_case_init(test, &c, 2 * SZ2M);
	unsigned long huge = (BASE + SZ2M - 1) & ~(SZ2M - 1);
	KUNIT_ASSERT_EQ(test, do_madvise(c.mm, BASE, 2 * SZ2M, MADV_HUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(c.mm, huge, 7), 0);
	struct page *head = test_mm_pmd_page(c.mm, huge);
	if (!head)
		kunit_skip(test, "no 2 MiB page on node %d", c.nid);
	KUNIT_EXPECT_TRUE(test, flag(head, PG_lru) && flag(head, PG_anon_thp));
	KUNIT_EXPECT_EQ(test, folio_nr_pages(head), HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], HPAGE_PMD_NR);
	unsigned long linked = 0, tails_on = 0;
	struct list_head *e;
	list_for_each(e, &c.lruvec->lists[LRU_INACTIVE_ANON])
		linked++;
	for (unsigned long i = 1; i < HPAGE_PMD_NR; i++)
		tails_on += flag(head + i, PG_lru);
	KUNIT_EXPECT_EQ(test, linked, 1ul);
	KUNIT_EXPECT_EQ(test, tails_on, 0ul);
	test_mm_destroy(test, c.mm);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
}

/* Migration takes the page's place on the LRU to the new page: its list
 * (active here), on the target node. */
static void migration_carries_the_lru_state(struct kunit *test)
{
	int a, b;
	if (!test_two_nodes(&a, &b))
		kunit_skip(test, "needs two nodes with memory");
	struct lru_case c;
	lru_case_init(test, &c, PAGE_SIZE);
	fault_pages(test, &c, 1);
	struct page *p = page_at(c.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	folio_mark_accessed(p);
	folio_mark_accessed(p);
	KUNIT_ASSERT_TRUE(test, flag(p, PG_active));
	int target = c.nid == a ? b : a, status;
	struct lruvec *to = node_lruvec(NODE_DATA(target));
	unsigned long active_there = to->nr_pages[LRU_ACTIVE_ANON];
	/* move_pages' arrays above the nodemask word. */
	KUNIT_ASSERT_EQ(test, test_move_one(ARG + 64, BASE, target, MPOL_MF_MOVE, &status), 0);
	KUNIT_ASSERT_EQ(test, status, target);
	struct page *q = page_at(c.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, page_to_nid(q), target);
	KUNIT_EXPECT_TRUE(test, flag(q, PG_lru) && flag(q, PG_active));
	KUNIT_EXPECT_EQ(test, to->nr_pages[LRU_ACTIVE_ANON] - active_there, 1ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], 0ul);
	test_mm_destroy(test, c.mm);
	KUNIT_EXPECT_EQ(test, to->nr_pages[LRU_ACTIVE_ANON], active_there);
}

/* isolate_lru_page takes a page off with a reference; putback returns
 * both. */
static void isolation_and_putback(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, PAGE_SIZE);
	fault_pages(test, &c, 1);
	struct page *p = page_at(c.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	int refs = page_ref_count(p);
	KUNIT_ASSERT_EQ(test, isolate_lru_page(p), 0);
	KUNIT_EXPECT_FALSE(test, flag(p, PG_lru));
	KUNIT_EXPECT_EQ(test, page_ref_count(p), refs + 1);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
	KUNIT_EXPECT_EQ(test, isolate_lru_page(p), -EBUSY);
	putback_lru_page(p);
	KUNIT_EXPECT_TRUE(test, flag(p, PG_lru));
	KUNIT_EXPECT_EQ(test, page_ref_count(p), refs);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 1ul);
	test_mm_destroy(test, c.mm);
}

/* folio_referenced after fork: one page, two mappings; each access sets
 * the accessed bit of its own PTE, and the walk finds and clears both. */
static void folio_referenced_clears_every_mapping(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, PAGE_SIZE);
	fault_pages(test, &c, 1);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(c.mm, &child), 0);
	struct page *p = page_at(c.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_PTR_EQ(test, page_at(child, BASE), p);
	unsigned long vm_flags;
	folio_referenced(p, &vm_flags); /* whatever fork left: cleared */
	KUNIT_EXPECT_FALSE(test, pte_young(test_mm_pte(c.mm, BASE)));
	KUNIT_EXPECT_FALSE(test, pte_young(test_mm_pte(child, BASE)));
	KUNIT_EXPECT_EQ(test, folio_referenced(p, &vm_flags), 0);
	/* The parent reads: one young mapping. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(c.mm, BASE), 1ull);
	KUNIT_EXPECT_EQ(test, folio_referenced(p, &vm_flags), 1);
	/* Both read: two, then none. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(c.mm, BASE), 1ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, BASE), 1ull);
	KUNIT_EXPECT_TRUE(test, pte_young(test_mm_pte(c.mm, BASE)));
	KUNIT_EXPECT_TRUE(test, pte_young(test_mm_pte(child, BASE)));
	KUNIT_EXPECT_EQ(test, folio_referenced(p, &vm_flags), 2);
	KUNIT_EXPECT_FALSE(test, pte_young(test_mm_pte(c.mm, BASE)));
	KUNIT_EXPECT_FALSE(test, pte_young(test_mm_pte(child, BASE)));
	KUNIT_EXPECT_EQ(test, folio_referenced(p, &vm_flags), 0);
	KUNIT_EXPECT_EQ(test, vm_flags, 0ul);
	mmput(child);
	test_mm_destroy(test, c.mm);
}

/* Aging an active list: every page goes inactive (pgrefill scanned,
 * pgdeactivate moved), referenced or not, as Linux 6.1 does with
 * anything but executable file pages. */
static void active_list_aging_deactivates(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, NPAGES * PAGE_SIZE);
	fault_pages(test, &c, NPAGES);
	for (unsigned long i = 0; i < NPAGES; i++) {
		struct page *p = page_at(c.mm, BASE + i * PAGE_SIZE);
		folio_mark_accessed(p);
		folio_mark_accessed(p);
	}
	KUNIT_ASSERT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], (unsigned long)NPAGES);
	/* 1 GiB and more of anon pages would raise the ratio; here 1:1. */
	KUNIT_EXPECT_TRUE(test, inactive_is_low(c.lruvec, LRU_INACTIVE_ANON));
	unsigned long refill = all_vm_events(PGREFILL), deact = all_vm_events(PGDEACTIVATE);
	struct scan_control sc = { .gfp_mask = GFP_KERNEL, .priority = DEF_PRIORITY, .may_swap = true };
	shrink_active_list(NPAGES, c.lruvec, &sc, LRU_ACTIVE_ANON);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, all_vm_events(PGREFILL) - refill, (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, all_vm_events(PGDEACTIVATE) - deact, (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], 0ul);
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], (unsigned long)NPAGES);
	KUNIT_EXPECT_FALSE(test, inactive_is_low(c.lruvec, LRU_INACTIVE_ANON));
	/* The walk cleared the accessed bits it found. */
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_EXPECT_FALSE(test, pte_young(test_mm_pte(c.mm, BASE + i * PAGE_SIZE)));
	test_mm_destroy(test, c.mm);
}

/* The inactive scan without swap (Linux 6.1's folio_check_references,
 * then shrink_folio_list): a page referenced once is kept and marked, a
 * second reference activates it; one not referenced would be reclaimed,
 * which without swap space activates it, and without __GFP_IO keeps it;
 * nothing is freed. */
static void inactive_scan_without_swap(struct kunit *test)
{
	struct lru_case c;
	lru_case_init(test, &c, PAGE_SIZE);
	fault_pages(test, &c, 1);
	struct page *p = page_at(c.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	struct scan_control sc = { .gfp_mask = GFP_KERNEL, .priority = DEF_PRIORITY, .may_swap = true };
	unsigned long scanned = all_vm_events(PGSCAN_DIRECT), free = nr_free_pages();
	/* The fault's own reference: kept, marked. */
	KUNIT_EXPECT_EQ(test, shrink_inactive_list(1, c.lruvec, &sc, LRU_INACTIVE_ANON), 0ul);
	KUNIT_EXPECT_TRUE(test, flag(p, PG_referenced) && !flag(p, PG_active));
	KUNIT_EXPECT_EQ(test, all_vm_events(PGSCAN_DIRECT) - scanned, 1ul);
	/* Used again: activated. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(c.mm, BASE), 1ull);
	shrink_inactive_list(1, c.lruvec, &sc, LRU_INACTIVE_ANON);
	KUNIT_EXPECT_TRUE(test, flag(p, PG_active));
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_ACTIVE_ANON], 1ul);
	/* Back to inactive and unused: reclaim would take it; GFP_NOIO may
	 * not start the swap-out (kept inactive), GFP_KERNEL finds no swap
	 * space (activated). */
	shrink_active_list(1, c.lruvec, &sc, LRU_ACTIVE_ANON);
	__atomic_and_fetch(&p->flags, ~(1ul << PG_referenced), __ATOMIC_RELAXED);
	struct scan_control noio = { .gfp_mask = GFP_NOIO, .priority = DEF_PRIORITY, .may_swap = true };
	shrink_inactive_list(1, c.lruvec, &noio, LRU_INACTIVE_ANON);
	KUNIT_EXPECT_FALSE(test, flag(p, PG_active));
	KUNIT_EXPECT_EQ(test, c.lruvec->nr_pages[LRU_INACTIVE_ANON], 1ul);
	shrink_inactive_list(1, c.lruvec, &sc, LRU_INACTIVE_ANON);
	KUNIT_EXPECT_TRUE(test, flag(p, PG_active));
	KUNIT_EXPECT_PTR_EQ(test, page_at(c.mm, BASE), p); /* still mapped */
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free);
	test_mm_destroy(test, c.mm);
}

static struct kunit_case lru_cases[] = {
	KUNIT_CASE(anon_faults_fill_the_inactive_list),
	KUNIT_CASE(second_reference_activates),
	KUNIT_CASE(mlocked_pages_are_unevictable_and_back),
	KUNIT_CASE(locked_vma_faults_unevictable_pages),
	KUNIT_CASE(thp_is_one_entry),
	KUNIT_CASE(migration_carries_the_lru_state),
	KUNIT_CASE(isolation_and_putback),
	KUNIT_CASE(folio_referenced_clears_every_mapping),
	KUNIT_CASE(active_list_aging_deactivates),
	KUNIT_CASE(inactive_scan_without_swap),
	{},
};

static struct kunit_suite lru_suite = { .name = "lru", .test_cases = lru_cases };
kunit_test_suite(lru_suite);
