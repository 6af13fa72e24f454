/* fork's memory side (dup_mm): pages shared copy-on-write, map counts,
 * the reverse map, COW reuse versus copy, MADV_DONTFORK/WIPEONFORK, THP
 * and hugetlb pages, mprotect after fork, and a fork that runs out of
 * memory. Each case is the parent's mm (tests/test_mm.h: everything back
 * when the case ends, in every pte_reclaim mode) and children made by
 * dup_mm, put by the case in the order it tests. User accesses go to the
 * mm made current for them (kthread_use_mm), so faults take the same
 * paths a process's do. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "mm/fail_page_alloc.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/memory.h"
#include "mm/mempolicy.h"
#include "mm/migrate.h"
#include "mm/numa.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define BASE 0x0000330000000000ul /* a PGD entry of its own, 1 GiB aligned */
#define SZ2M (2ul << 20)
#define NPAGES 16

/* The parent: the current task's mm, in the case's mode. */
static struct mm_struct *parent_mm(struct kunit *test)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	return test_mm_create(test, TEST_MM_CURRENT);
}

static struct mm_struct *fork_mm(struct kunit *test, struct mm_struct *parent)
{
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(parent, &child), 0);
	KUNIT_ASSERT_NOT_NULL(test, child);
	return child;
}

/* A child goes: its tables' counts checked first (refcount mode). */
static void put_child(struct kunit *test, struct mm_struct *child)
{
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	mmput(child);
}

/* User accesses in mm, whichever mm is current (tests/test_mm.h). */
static int write_in(struct mm_struct *mm, unsigned long addr, u64 v) { return test_mm_write_u64(mm, addr, v); }
static u64 read_in(struct mm_struct *mm, unsigned long addr) { return test_mm_read_u64(mm, addr); }

static struct page *page_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t e = test_mm_pte(mm, addr);
	return pte_present(e) ? pfn_to_page(pte_pfn(e)) : NULL;
}

/* The map count and reference count of the page mapped at addr (-1:
 * none mapped there). */
static int mapcount_at(struct mm_struct *mm, unsigned long addr)
{
	struct page *p = page_at(mm, addr);
	return p ? page_mapcount(p) : -1;
}

static int refcount_at(struct mm_struct *mm, unsigned long addr)
{
	struct page *p = page_at(mm, addr);
	return p ? page_ref_count(compound_head(p)) : -1;
}

/* NPAGES pages at BASE in the parent, page i holding 1000 + i. */
static void fill(struct kunit *test, struct mm_struct *mm)
{
	test_mm_map_anon(test, mm, BASE, NPAGES * PAGE_SIZE);
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_ASSERT_EQ(test, write_in(mm, BASE + i * PAGE_SIZE, 1000 + i), 0);
}

static void fork_shares_every_page_read_only(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	unsigned long anon = nr_anon_pages(), free = nr_free_pages();
	struct mm_struct *child = fork_mm(test, parent);
	for (unsigned long i = 0; i < NPAGES; i++) {
		unsigned long a = BASE + i * PAGE_SIZE;
		struct page *p = page_at(parent, a);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_PTR_EQ(test, page_at(child, a), p);
		KUNIT_EXPECT_EQ(test, page_mapcount(p), 2);
		KUNIT_EXPECT_EQ(test, page_ref_count(p), 2);
		KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(parent, a)));
		KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(child, a)));
		KUNIT_EXPECT_EQ(test, read_in(child, a), 1000 + i);
	}
	/* Shared, not copied: the child's RSS is the parent's, no data page
	 * was allocated (only the child's tables, its PGD and slab pages),
	 * and AnonPages counts each page once. */
	KUNIT_EXPECT_EQ(test, get_mm_rss(child), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, get_mm_rss(parent), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon);
	KUNIT_EXPECT_LT(test, free - nr_free_pages(), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, child->map_count, parent->map_count);
	KUNIT_EXPECT_EQ(test, child->total_vm, parent->total_vm);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(parent), 0ul);
	put_child(test, child);
	/* The child gone, every page is the parent's alone again. */
	for (unsigned long i = 0; i < NPAGES; i++) {
		KUNIT_EXPECT_EQ(test, mapcount_at(parent, BASE + i * PAGE_SIZE), 1);
		KUNIT_EXPECT_EQ(test, refcount_at(parent, BASE + i * PAGE_SIZE), 1);
	}
	test_mm_destroy(test, parent);
}

/* do_wp_page: the writer of a shared page gets a copy (the rest of the
 * page's contents with it); the last holder of a page writes it in place. */
static void cow_copies_a_shared_page_and_reuses_the_last(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	KUNIT_ASSERT_EQ(test, write_in(parent, BASE + 8, 77), 0);
	struct mm_struct *child = fork_mm(test, parent);
	struct page *old = page_at(parent, BASE);
	unsigned long anon = nr_anon_pages();
	KUNIT_EXPECT_EQ(test, write_in(child, BASE, 5), 0);
	struct page *copy = page_at(child, BASE);
	KUNIT_EXPECT_PTR_NE(test, copy, old);
	KUNIT_EXPECT_TRUE(test, pte_write(test_mm_pte(child, BASE)));
	KUNIT_EXPECT_EQ(test, read_in(child, BASE), 5ull);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE + 8), 77ull); /* copied whole */
	KUNIT_EXPECT_EQ(test, read_in(parent, BASE), 1000ull);  /* untouched */
	KUNIT_EXPECT_EQ(test, page_mapcount(old), 1);
	KUNIT_EXPECT_EQ(test, page_mapcount(copy), 1);
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon + 1);
	/* The parent's page is its own now: reused, not copied. */
	KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(parent, BASE)));
	KUNIT_EXPECT_EQ(test, write_in(parent, BASE, 6), 0);
	KUNIT_EXPECT_PTR_EQ(test, page_at(parent, BASE), old);
	KUNIT_EXPECT_TRUE(test, pte_write(test_mm_pte(parent, BASE)));
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon + 1);
	/* A page the parent writes first: the parent copies, the child
	 * then reuses the original. */
	unsigned long b = BASE + PAGE_SIZE;
	struct page *orig = page_at(parent, b);
	KUNIT_EXPECT_EQ(test, write_in(parent, b, 7), 0);
	KUNIT_EXPECT_PTR_NE(test, page_at(parent, b), orig);
	KUNIT_EXPECT_EQ(test, write_in(child, b, 8), 0);
	KUNIT_EXPECT_PTR_EQ(test, page_at(child, b), orig);
	KUNIT_EXPECT_EQ(test, read_in(parent, b), 7ull);
	KUNIT_EXPECT_EQ(test, read_in(child, b), 8ull);
	KUNIT_EXPECT_EQ(test, get_mm_rss(child), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(parent), 0ul);
	put_child(test, child);
	test_mm_destroy(test, parent);
}

/* Three generations and a sibling, ended in every order the case walks:
 * every page and table comes back (the parent's leak check) whoever goes
 * first, whatever was written. */
static void every_page_comes_back_in_any_order_of_exits(struct kunit *test)
{
	static const int orders[][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 0, 2 } };
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	for (unsigned o = 0; o < ARRAY_SIZE(orders); o++) {
		struct mm_struct *mms[3];
		mms[0] = fork_mm(test, parent);
		mms[1] = fork_mm(test, mms[0]); /* a grandchild */
		mms[2] = fork_mm(test, parent);
		/* Writes here and there, so pages are shared by 2, 3 or 4. */
		KUNIT_EXPECT_EQ(test, write_in(mms[0], BASE, 1), 0);
		KUNIT_EXPECT_EQ(test, write_in(mms[1], BASE + PAGE_SIZE, 2), 0);
		KUNIT_EXPECT_EQ(test, write_in(mms[2], BASE + 2 * PAGE_SIZE, 3), 0);
		KUNIT_EXPECT_EQ(test, write_in(parent, BASE + 3 * PAGE_SIZE, 4), 0);
		KUNIT_EXPECT_EQ(test, mapcount_at(parent, BASE + 4 * PAGE_SIZE), 4);
		KUNIT_EXPECT_EQ(test, read_in(mms[1], BASE), 1000ull); /* the grandchild forked before the write */
		for (int i = 0; i < 3; i++)
			put_child(test, mms[orders[o][i]]);
		for (unsigned long i = 0; i < NPAGES; i++)
			KUNIT_EXPECT_EQ(test, mapcount_at(parent, BASE + i * PAGE_SIZE), 1);
	}
	test_mm_destroy(test, parent);
}

struct rmap_count {
	struct page *page;
	int found;
	struct mm_struct *mms[4];
};

static bool count_one(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg)
{
	struct rmap_count *c = arg;
	pte_t e = test_mm_pte(vma->vm_mm, address);
	if (pte_present(e) && pfn_to_page(pte_pfn(e)) == page && c->found < 4)
		c->mms[c->found++] = vma->vm_mm;
	return true;
}

static int rmap_mappings(struct page *page, struct rmap_count *c)
{
	*c = (struct rmap_count){ .page = page };
	struct rmap_walk_control rwc = { .arg = c, .rmap_one = count_one };
	rmap_walk(page, &rwc);
	return c->found;
}

/* rmap_walk from a page finds each process that maps it (the parent's
 * page in two children and a grandchild) and no other; after a COW the
 * writer's copy is found in the writer alone. Also after the parent's VMA
 * was split by mprotect and the page index must be followed. */
static void rmap_walk_finds_every_mapping(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	unsigned long a = BASE + 5 * PAGE_SIZE;
	struct mm_struct *c1 = fork_mm(test, parent), *c2 = fork_mm(test, parent);
	struct mm_struct *g = fork_mm(test, c1);
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, BASE, 4 * PAGE_SIZE, PROT_READ), 0); /* a split */
	struct rmap_count c;
	struct page *p = page_at(parent, a);
	KUNIT_EXPECT_EQ(test, rmap_mappings(p, &c), 4);
	KUNIT_EXPECT_EQ(test, page_mapcount(p), 4);
	KUNIT_EXPECT_EQ(test, write_in(c1, a, 9), 0);
	struct page *copy = page_at(c1, a);
	KUNIT_EXPECT_EQ(test, rmap_mappings(p, &c), 3);
	KUNIT_EXPECT_EQ(test, rmap_mappings(copy, &c), 1);
	KUNIT_EXPECT_PTR_EQ(test, c.mms[0], c1);
	/* A page written before the fork in a piece the split moved. */
	struct page *q = page_at(parent, BASE + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rmap_mappings(q, &c), 4);
	put_child(test, g);
	put_child(test, c1);
	KUNIT_EXPECT_EQ(test, rmap_mappings(p, &c), 2);
	put_child(test, c2);
	KUNIT_EXPECT_EQ(test, rmap_mappings(p, &c), 1);
	KUNIT_EXPECT_PTR_EQ(test, c.mms[0], parent);
	test_mm_destroy(test, parent);
}

/* The zero page is never copied: a page only read before the fork reads
 * as zero in the child, and the child's write gives it a zeroed page of
 * its own. A VMA never written (no anon_vma) has nothing copied at all. */
static void the_zero_page_is_never_copied(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	unsigned long z = BASE + NPAGES * PAGE_SIZE;
	test_mm_map_anon(test, parent, z, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, read_in(parent, z), 0ull);
	KUNIT_EXPECT_EQ(test, read_in(parent, BASE + 2 * NPAGES * PAGE_SIZE - PAGE_SIZE), ~0ull); /* unmapped */
	struct mm_struct *child = fork_mm(test, parent);
	KUNIT_EXPECT_EQ(test, read_in(child, z), 0ull);
	KUNIT_EXPECT_EQ(test, write_in(child, z, 3), 0);
	KUNIT_EXPECT_FALSE(test, is_zero_pfn(pte_pfn(test_mm_pte(child, z))));
	KUNIT_EXPECT_EQ(test, read_in(parent, z), 0ull);
	put_child(test, child);
	test_mm_destroy(test, parent);
}

/* MADV_DONTFORK: the range is not in the child; MADV_WIPEONFORK: it is,
 * empty (zeroes). MADV_DOFORK and MADV_KEEPONFORK undo them. */
static void dontfork_and_wipeonfork_as_linux(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	KUNIT_EXPECT_EQ(test, do_madvise(parent, BASE, 4 * PAGE_SIZE, MADV_DONTFORK), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(parent, BASE + 4 * PAGE_SIZE, 4 * PAGE_SIZE, MADV_WIPEONFORK), 0);
	struct mm_struct *child = fork_mm(test, parent);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE), ~0ull); /* no mapping */
	KUNIT_EXPECT_EQ(test, read_in(child, BASE + 4 * PAGE_SIZE), 0ull);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE + 8 * PAGE_SIZE), 1008ull);
	KUNIT_EXPECT_EQ(test, child->map_count, parent->map_count - 1);
	KUNIT_EXPECT_EQ(test, child->total_vm, parent->total_vm - 4);
	KUNIT_EXPECT_EQ(test, mapcount_at(parent, BASE + 4 * PAGE_SIZE), 1);
	put_child(test, child);
	KUNIT_EXPECT_EQ(test, do_madvise(parent, BASE, 4 * PAGE_SIZE, MADV_DOFORK), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(parent, BASE + 4 * PAGE_SIZE, 4 * PAGE_SIZE, MADV_KEEPONFORK), 0);
	child = fork_mm(test, parent);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE), 1000ull);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE + 4 * PAGE_SIZE), 1004ull);
	put_child(test, child);
	test_mm_destroy(test, parent);
}

/* mprotect after fork: making a shared page writable again must not let
 * either side write the other's memory (Linux's can_change_pte_writable). */
static void mprotect_after_fork_keeps_shared_pages_read_only(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	struct mm_struct *child = fork_mm(test, parent);
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, BASE, NPAGES * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, BASE, NPAGES * PAGE_SIZE, RW), 0);
	KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(parent, BASE)));
	KUNIT_EXPECT_EQ(test, write_in(parent, BASE, 1), 0);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE), 1000ull);
	put_child(test, child);
	/* Alone again: an mprotect may give the write bit back at once. */
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, BASE, NPAGES * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, BASE, NPAGES * PAGE_SIZE, RW), 0);
	KUNIT_EXPECT_TRUE(test, pte_write(test_mm_pte(parent, BASE + PAGE_SIZE)));
	test_mm_destroy(test, parent);
}

static pmd_t pmd_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd ? pmdp_get(pmd) : __pmd(0);
}

/* A THP: fork shares the huge PMD, both write-protected (Linux's
 * copy_huge_pmd); the child's write splits the child's PMD, leaving the
 * THP whole (its 4 KiB pages mapped by the child's PTEs, the parent's
 * PMD unchanged) and copying the 4 KiB page written; the parent, last
 * with a PMD, writes in place after the child is gone. AnonPages and
 * AnonHugePages count the THP once all along, and everything comes back
 * whoever goes first. */
static void a_thp_is_shared_copy_on_write(struct kunit *test)
{
	const int *order = test->param_value;
	struct mm_struct *parent = test_mm_create(test, TEST_MM_CURRENT);
	int saved = thp_enabled_mode;
	thp_enabled_mode = THP_ENABLED_MADVISE;
	test_mm_map_anon(test, parent, BASE, SZ2M);
	KUNIT_ASSERT_EQ(test, do_madvise(parent, BASE, SZ2M, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_EQ(test, write_in(parent, BASE + SZ2M - 8, 42), 0);
	thp_enabled_mode = saved;
	if (!pmd_trans_huge(pmd_at(parent, BASE))) {
		test_mm_destroy(test, parent);
		kunit_skip(test, "no 2 MiB block for a THP");
	}
	unsigned long anon = nr_anon_pages(), thps = nr_anon_thps();
	struct page *head = pfn_to_page(pmd_pfn(pmd_at(parent, BASE)));
	struct mm_struct *child = fork_mm(test, parent);
	pmd_t c = pmd_at(child, BASE);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(c));
	KUNIT_EXPECT_EQ(test, pmd_pfn(c), page_to_pfn(head));
	KUNIT_EXPECT_FALSE(test, pmd_write(c));
	KUNIT_EXPECT_FALSE(test, pmd_write(pmd_at(parent, BASE)));
	KUNIT_EXPECT_EQ(test, thp_entire_mapcount(head), 2);
	KUNIT_EXPECT_EQ(test, page_ref_count(head), 2);
	KUNIT_EXPECT_EQ(test, get_mm_rss(child), SZ2M / PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE + SZ2M - 8), 42ull);
	/* The child's write: its PMD becomes PTEs of the same THP, the page
	 * written a copy. */
	KUNIT_EXPECT_EQ(test, write_in(child, BASE + SZ2M - 8, 43), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(child, BASE)));
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmd_at(parent, BASE)));
	KUNIT_EXPECT_PTR_EQ(test, page_at(child, BASE), head);
	KUNIT_EXPECT_PTR_NE(test, page_at(child, BASE + SZ2M - PAGE_SIZE), head + HPAGE_PMD_NR - 1);
	KUNIT_EXPECT_EQ(test, mapcount_at(child, BASE), 2); /* its PTE and the parent's PMD */
	KUNIT_EXPECT_EQ(test, thp_entire_mapcount(head), 1);
	KUNIT_EXPECT_EQ(test, read_in(parent, BASE + SZ2M - 8), 42ull);
	KUNIT_EXPECT_EQ(test, read_in(child, BASE + SZ2M - 8), 43ull);
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon + 1);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps);
	KUNIT_EXPECT_EQ(test, get_mm_rss(child), SZ2M / PAGE_SIZE);
	/* The parent's write while the child still maps the THP's pages:
	 * its PMD splits too, its page is copied. */
	KUNIT_EXPECT_EQ(test, write_in(parent, BASE, 44), 0);
	KUNIT_EXPECT_FALSE(test, pmd_trans_huge(pmd_at(parent, BASE)));
	KUNIT_EXPECT_EQ(test, read_in(child, BASE), 0ull);
	KUNIT_EXPECT_EQ(test, read_in(parent, BASE), 44ull);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps - 1); /* no PMD maps it now */
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon + 2);
	/* A page neither wrote: two PTE mappings of the same THP page. */
	KUNIT_EXPECT_EQ(test, mapcount_at(parent, BASE + PAGE_SIZE), 2);
	KUNIT_EXPECT_PTR_EQ(test, page_at(parent, BASE + PAGE_SIZE), page_at(child, BASE + PAGE_SIZE));
	if (*order == 0) {
		put_child(test, child);
		/* The parent alone now: its next write reuses the page. */
		struct page *p = page_at(parent, BASE + 2 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, write_in(parent, BASE + 2 * PAGE_SIZE, 45), 0);
		KUNIT_EXPECT_PTR_EQ(test, page_at(parent, BASE + 2 * PAGE_SIZE), p);
		test_mm_destroy(test, parent);
	} else {
		/* The parent goes first: the child holds the THP alone. */
		test_mm_unuse(test, parent);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(parent), 0ul);
		test_mm_put(test, parent);
		KUNIT_EXPECT_EQ(test, read_in(child, BASE + PAGE_SIZE), 0ull);
		KUNIT_EXPECT_EQ(test, write_in(child, BASE + 3 * PAGE_SIZE, 46), 0);
		put_child(test, child);
		test_mm_destroy(test, parent);
	}
}

static const int exit_orders[] = { 0, 1 };
static void exit_order_desc(const int *o, char *desc) { kunit_param_desc(desc, "%s", *o ? "parent_first" : "child_first"); }
KUNIT_ARRAY_PARAM(exit_orders, exit_orders, exit_order_desc);

/* The pool grown by extra pages (before the mm's leak snapshot; the case
 * shrinks it back to *pool after its check), and a parent with a private
 * 2 MiB hugetlb mapping whose page holds value at +64: its address. */
static unsigned long hugetlb_parent(struct kunit *test, unsigned long extra, u64 value, unsigned long *pool,
				    struct mm_struct **parent)
{
	struct hstate *h = &hstates[HSTATE_2M];
	*pool = h->nr_huge_pages;
	if (set_max_huge_pages(h, *pool + extra, NUMA_NO_NODE) != (long)(*pool + extra)) {
		set_max_huge_pages(h, *pool, NUMA_NO_NODE);
		kunit_skip(test, "no %lu free 2 MiB blocks for the pool", extra);
	}
	*parent = parent_mm(test);
	unsigned long a = do_mmap(*parent, 0, SZ2M, RW, ANON | MAP_HUGETLB | MAP_HUGE_2MB);
	KUNIT_ASSERT_LT(test, a, TASK_SIZE);
	KUNIT_EXPECT_EQ(test, write_in(*parent, a + 64, value), 0);
	return a;
}

/* A hugetlb page: shared read-only at fork, copied whole on the child's
 * write (a second page from the pool), the parent's reused. */
static void a_hugetlb_page_is_copied_on_write(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_2M];
	struct mm_struct *parent;
	unsigned long pool, a = hugetlb_parent(test, 2, 11, &pool, &parent);
	unsigned long free = h->free_huge_pages;
	struct mm_struct *child = fork_mm(test, parent);
	KUNIT_EXPECT_EQ(test, read_in(child, a + 64), 11ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, free);
	KUNIT_EXPECT_EQ(test, write_in(child, a + 64, 12), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, free - 1);
	KUNIT_EXPECT_EQ(test, read_in(parent, a + 64), 11ull);
	KUNIT_EXPECT_EQ(test, write_in(parent, a + 64, 13), 0); /* reused: no third page */
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, free - 1);
	KUNIT_EXPECT_EQ(test, read_in(child, a + 64), 12ull);
	put_child(test, child);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, free);
	test_mm_destroy(test, parent);
	KUNIT_EXPECT_EQ(test, set_max_huge_pages(h, pool, NUMA_NO_NODE), (long)pool);
}

/* Linux's unmap_ref_private: with the pool empty, the mapping's creator
 * (the owner of its reservations) cannot copy a page its child shares;
 * its write takes the page back instead, unmapping it from the child, and
 * writes in place (no page used). The child's next touch of the mapping
 * is SIGBUS (here: the user access fails), its own write to a shared page
 * with the pool empty too, and everything comes back when both go. */
static void a_hugetlb_owner_takes_its_page_back(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_2M];
	if (h->nr_overcommit_huge_pages)
		kunit_skip(test, "overcommitted hugetlb pool: a surplus page would come instead");
	struct mm_struct *parent;
	unsigned long pool, a = hugetlb_parent(test, 1, 21, &pool, &parent);
	struct mm_struct *child = fork_mm(test, parent);
	KUNIT_EXPECT_EQ(test, read_in(child, a + 64), 21ull);
	/* No page left that a write without a reservation could take: the
	 * pool's others are held by the case (not freed: the leak check
	 * counts each node's pages) until the end. */
	struct page *held[16];
	unsigned nr_held = 0;
	bool consumed = false;
	while (nr_held < ARRAY_SIZE(held) &&
	       (held[nr_held] = alloc_hugetlb_folio(h, numa_node_id(), NULL, false, &consumed)))
		nr_held++;
	if (h->free_huge_pages != h->resv_huge_pages) {
		while (nr_held)
			free_huge_folio(held[--nr_held], false);
		put_child(test, child);
		test_mm_destroy(test, parent);
		set_max_huge_pages(h, pool, NUMA_NO_NODE);
		kunit_skip(test, "more than %zu free pages in the pool", ARRAY_SIZE(held));
	}
	unsigned long free = h->free_huge_pages;
	/* The child's write has no page to copy into: SIGBUS. */
	KUNIT_EXPECT_NE(test, write_in(child, a + 64, 22), 0);
	KUNIT_EXPECT_EQ(test, read_in(child, a + 64), 21ull);
	/* The owner's takes the page back and writes in place. */
	KUNIT_EXPECT_EQ(test, write_in(parent, a + 64, 23), 0);
	KUNIT_EXPECT_EQ(test, read_in(parent, a + 64), 23ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, free);
	KUNIT_EXPECT_EQ(test, huge_ptep_get_locked(find_vma(child, a), a), 0ull);
	KUNIT_EXPECT_EQ(test, read_in(child, a + 64), ~0ull); /* SIGBUS from now on */
	while (nr_held)
		free_huge_folio(held[--nr_held], false);
	put_child(test, child);
	test_mm_destroy(test, parent);
	KUNIT_EXPECT_EQ(test, set_max_huge_pages(h, pool, NUMA_NO_NODE), (long)pool);
}

/* A page three processes map moves to another node with
 * MPOL_MF_MOVE_ALL through the reverse map: each maps the new page, with
 * the contents, and the old one is freed; without the flag it stays
 * (-EACCES, Linux's "Avoid migrating a page that is shared"). */
static void migration_moves_a_page_every_process_maps(struct kunit *test)
{
	nodemask_t memory = node_states_memory();
	if (nodes_weight(memory) < 2)
		kunit_skip(test, "one node with memory: nowhere to move a page");
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	unsigned long a = BASE + 3 * PAGE_SIZE;
	struct mm_struct *c1 = fork_mm(test, parent), *c2 = fork_mm(test, parent);
	struct page *old = page_at(parent, a);
	int nid = page_to_nid(old), target = NUMA_NO_NODE, n;
	for_each_node_mask(n, memory)
		if (n != nid && target == NUMA_NO_NODE)
			target = n;
	bool split;
	mmap_read_lock(parent);
	struct vm_area_struct *vma = find_vma(parent, a);
	int r = migrate_anon_at(vma, a, alloc_migration_target, &target, &split, 0);
	mmap_read_unlock(parent);
	KUNIT_EXPECT_EQ(test, r, -EACCES);
	KUNIT_EXPECT_PTR_EQ(test, page_at(c1, a), old);
	mmap_read_lock(parent);
	r = migrate_anon_at(find_vma(parent, a), a, alloc_migration_target, &target, &split, MPOL_MF_MOVE_ALL);
	mmap_read_unlock(parent);
	KUNIT_EXPECT_EQ(test, r, target);
	struct page *new = page_at(parent, a);
	KUNIT_EXPECT_PTR_NE(test, new, old);
	KUNIT_EXPECT_EQ(test, page_to_nid(new), target);
	KUNIT_EXPECT_PTR_EQ(test, page_at(c1, a), new);
	KUNIT_EXPECT_PTR_EQ(test, page_at(c2, a), new);
	KUNIT_EXPECT_EQ(test, page_mapcount(new), 3);
	KUNIT_EXPECT_EQ(test, page_ref_count(new), 3);
	KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(c2, a))); /* still copy-on-write */
	struct rmap_count c;
	KUNIT_EXPECT_EQ(test, rmap_mappings(new, &c), 3);
	KUNIT_EXPECT_EQ(test, read_in(c2, a), 1003ull);
	KUNIT_EXPECT_EQ(test, write_in(c2, a, 5), 0);
	KUNIT_EXPECT_EQ(test, read_in(parent, a), 1003ull);
	KUNIT_EXPECT_EQ(test, get_mm_rss(c1), (unsigned long)NPAGES);
	put_child(test, c1);
	put_child(test, c2);
	test_mm_destroy(test, parent);
}

/* fork beside faults and MADV_DONTNEED: workers on the other CPUs write
 * the parent's pages (page i holds i << 16 | a count) and zap ranges of
 * them while this CPU forks it again and again; each child sees, at every
 * page, zero or a value the parent had there (never another page's, never
 * a torn table), writes its own copies, and goes; the tables' counts stay
 * exact (pte_ref_verify) in every pte_reclaim mode, and nothing leaks.
 * A word a worker writes is one store (put_user_u64): a fork between its
 * bytes would leave the child half of it, which this check catches. */
#define STRESS_PAGES 1024 /* two PTE tables */
#define STRESS_FORKS 48

static int stress_write(unsigned long addr, unsigned long index, unsigned long seed, unsigned long n)
{
	(void)seed;
	return put_user_u64(index << 16 | (n & 0xffff), (void *)addr);
}

static int stress_worker(struct test_worker *w)
{
	return test_mm_stress_worker(w, BASE, STRESS_PAGES, stress_write);
}

static struct test_crew stress_crew;

static void fork_beside_faults_and_dontneed_on_every_cpu(struct kunit *test)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	struct mm_struct *parent = test_mm_create(test, 0);
	test_mm_map_anon(test, parent, BASE, STRESS_PAGES * PAGE_SIZE);
	test_crew_start(test, &stress_crew, stress_worker, parent, 0, TEST_CREW_OTHER_CPUS_OR_THIS);
	unsigned long bad = 0;
	for (int k = 0; k < STRESS_FORKS; k++) {
		struct mm_struct *child = fork_mm(test, parent);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
		for (unsigned long i = k; i < STRESS_PAGES; i += 37) {
			u64 v = read_in(child, BASE + i * PAGE_SIZE);
			if (v && v >> 16 != i && !bad++)
				kunit_info(test, "fork %d, page %lu: %#llx (child pte %#llx, parent pte %#llx)", k, i,
					   (unsigned long long)v,
					   (unsigned long long)pte_val(test_mm_pte(child, BASE + i * PAGE_SIZE)),
					   (unsigned long long)pte_val(test_mm_pte(parent, BASE + i * PAGE_SIZE)));
			KUNIT_EXPECT_EQ(test, write_in(child, BASE + i * PAGE_SIZE, ~0ull - i), 0);
			KUNIT_EXPECT_EQ(test, read_in(child, BASE + i * PAGE_SIZE), ~0ull - i);
		}
		put_child(test, child);
		cond_resched();
	}
	test_crew_stop(&stress_crew);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &stress_crew), 0ul);
	kunit_info(test, "%lu writes and zaps by %u workers beside %d forks", stress_crew.progress, stress_crew.n,
		   STRESS_FORKS);
	KUNIT_EXPECT_GT(test, stress_crew.progress, 0ul);
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	/* The parent's pages: its own values or zero, each mapped once. */
	for (unsigned long i = 0; i < STRESS_PAGES; i++) {
		u64 v = read_in(parent, BASE + i * PAGE_SIZE);
		bad += v && v >> 16 != i;
	}
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(parent), 0ul);
	test_mm_destroy(test, parent);
}

/* MAP_SHARED | MAP_ANONYMOUS (mm/shmem.h): a read gives a page of the
 * object (no zero page), fork copies no entry and the child finds the same
 * pages, a write on either side is seen by the other, MADV_DONTNEED keeps
 * the data (the object has it), mprotect back to writable writes in place,
 * RSS counts the pages as RssShmem, and the object goes with its last
 * VMA (the parent's leak check). */
static void shared_anonymous_memory_is_shared_across_fork(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	unsigned long len = 8 * PAGE_SIZE, shmem = nr_shmem_pages();
	unsigned long a = do_mmap(parent, 0, len, RW, MAP_SHARED | MAP_ANONYMOUS);
	KUNIT_ASSERT_LT(test, a, TASK_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, find_vma(parent, a)->vm_shm);
	KUNIT_EXPECT_EQ(test, read_in(parent, a), 0ull);
	KUNIT_EXPECT_FALSE(test, is_zero_pfn(pte_pfn(test_mm_pte(parent, a))));
	KUNIT_EXPECT_EQ(test, write_in(parent, a + PAGE_SIZE, 7), 0);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + 2);
	KUNIT_EXPECT_EQ(test, get_mm_counter(parent, MM_SHMEMPAGES), 2ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(parent, MM_ANONPAGES), 0ul);
	struct mm_struct *child = fork_mm(test, parent);
	KUNIT_EXPECT_TRUE(test, pte_none(test_mm_pte(child, a + PAGE_SIZE))); /* nothing copied */
	KUNIT_EXPECT_EQ(test, read_in(child, a + PAGE_SIZE), 7ull);
	KUNIT_EXPECT_PTR_EQ(test, page_at(child, a + PAGE_SIZE), page_at(parent, a + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, mapcount_at(parent, a + PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, write_in(child, a + 2 * PAGE_SIZE, 8), 0);
	KUNIT_EXPECT_EQ(test, read_in(parent, a + 2 * PAGE_SIZE), 8ull);
	KUNIT_EXPECT_EQ(test, write_in(parent, a + PAGE_SIZE, 9), 0);
	KUNIT_EXPECT_EQ(test, read_in(child, a + PAGE_SIZE), 9ull);
	/* MADV_DONTNEED drops the child's entries, not the data. */
	KUNIT_EXPECT_EQ(test, do_madvise(child, a, len, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(child, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, read_in(child, a + 2 * PAGE_SIZE), 8ull);
	/* Read-only, then writable again: written in place, no copy. */
	struct page *p = page_at(parent, a + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, a, len, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(parent, a, len, RW), 0);
	KUNIT_EXPECT_EQ(test, write_in(parent, a + PAGE_SIZE, 10), 0);
	KUNIT_EXPECT_PTR_EQ(test, page_at(parent, a + PAGE_SIZE), p);
	KUNIT_EXPECT_EQ(test, read_in(child, a + PAGE_SIZE), 10ull);
	/* A piece unmapped in the parent: the child still maps the object. */
	KUNIT_EXPECT_EQ(test, do_munmap(parent, a, 4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, read_in(child, a + PAGE_SIZE), 10ull);
	put_child(test, child);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + 3);
	KUNIT_EXPECT_EQ(test, do_munmap(parent, a, len), 0);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem); /* the object went with its last VMA */
	test_mm_destroy(test, parent);
}

static struct fault_attr saved_attr;

static void injection_off(void *unused)
{
	(void)unused;
	fault_attr_arm(false);
	fail_page_alloc = saved_attr;
}

/* Memory cut off after 0, 1, 2, ... pages of the fork's own: each dup_mm
 * fails with -ENOMEM and leaves nothing (pages, tables, slab objects: the
 * free count is back, the parent's pages are mapped once again) until
 * one gets all it needs. */
static void fork_out_of_memory_leaves_nothing_behind(struct kunit *test)
{
	struct mm_struct *parent = parent_mm(test);
	fill(test, parent);
	test_mm_map_anon(test, parent, BASE + (1ul << 30), PAGE_SIZE); /* another PMD and PUD */
	KUNIT_ASSERT_EQ(test, write_in(parent, BASE + (1ul << 30), 1), 0);
	saved_attr = fail_page_alloc;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, injection_off, NULL), 0);
	unsigned long failures = 0;
	for (unsigned long pages = 0; pages < 64; pages++) {
		/* Free memory here is the buddy's plus what the slab caches keep
		 * empty: a slab page a failed fork filled and emptied again (a
		 * probe of the home node never reclaims, so no injected failure
		 * stops it) is not lost. */
		rcu_barrier();
		kmem_cache_shrink_all();
		unsigned long free = nr_free_pages();
		fail_page_alloc = (struct fault_attr){ .probability = 100, .interval = 1, .times = -1,
						       .space = (long)(pages * PAGE_SIZE), .only_task = current };
		fault_attr_arm(true);
		struct mm_struct *child;
		int err = dup_mm(parent, &child);
		fault_attr_arm(false);
		if (!err) {
			KUNIT_EXPECT_EQ(test, read_in(child, BASE + (1ul << 30)), 1ull);
			put_child(test, child);
			break;
		}
		failures++;
		KUNIT_EXPECT_EQ(test, err, -ENOMEM);
		KUNIT_EXPECT_NULL(test, child);
		rcu_barrier();
		kmem_cache_shrink_all();
		KUNIT_EXPECT_EQ(test, nr_free_pages(), free);
		KUNIT_EXPECT_EQ(test, mapcount_at(parent, BASE), 1);
		KUNIT_EXPECT_EQ(test, refcount_at(parent, BASE), 1);
	}
	kunit_info(test, "%lu forks failed before one had the pages it needed", failures);
	KUNIT_EXPECT_GT(test, failures, 2ul); /* PGD, PUD, PMD and PTE tables at least */
	test_mm_destroy(test, parent);
}

static struct kunit_case fork_cases[] = {
	KUNIT_CASE_PARAM(fork_shares_every_page_read_only, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(cow_copies_a_shared_page_and_reuses_the_last, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(every_page_comes_back_in_any_order_of_exits, pte_reclaim_modes_gen_params),
	KUNIT_CASE(rmap_walk_finds_every_mapping),
	KUNIT_CASE(the_zero_page_is_never_copied),
	KUNIT_CASE(dontfork_and_wipeonfork_as_linux),
	KUNIT_CASE(mprotect_after_fork_keeps_shared_pages_read_only),
	KUNIT_CASE_PARAM(a_thp_is_shared_copy_on_write, exit_orders_gen_params),
	KUNIT_CASE(a_hugetlb_page_is_copied_on_write),
	KUNIT_CASE(a_hugetlb_owner_takes_its_page_back),
	KUNIT_CASE_PARAM(migration_moves_a_page_every_process_maps, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(fork_out_of_memory_leaves_nothing_behind, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(fork_beside_faults_and_dontneed_on_every_cpu, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(shared_anonymous_memory_is_shared_across_fork, pte_reclaim_modes_gen_params),
	{}
};

static struct kunit_suite fork_suite = {
	.name = "fork",
	.test_cases = fork_cases,
};
kunit_test_suite(fork_suite);
