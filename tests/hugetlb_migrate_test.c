/* Moving hugetlb pages between nodes (mm/migrate_hugetlb.c) with
 * move_pages(2): a private MAP_HUGETLB page (mapped once, or shared with
 * a forked child) and a MAP_SHARED one that a forked child maps too move
 * whole, with their data, to a free page of
 * the target node's pool; the old page goes back to its node's pool, the
 * reservations and HugetlbPages stay; every mapping (and the page cache,
 * for the shared page) has the new page. A page pinned by get_user_pages
 * stays, a target with no free page is -ENOMEM, a shared page needs
 * MPOL_MF_MOVE_ALL (-EACCES status without). The pools are made on two
 * nodes of the machine (skipped with one) and everything comes back at
 * the end. */
#include "tests/kunit.h"
#include "tests/test_hugetlb.h"
#include "tests/test_migrate.h"
#include "tests/test_mm.h"
#include "kernel/rcu.h"
#include "mm/filemap.h"
#include "mm/gup.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/mempolicy.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"

#define SZ2M (2ul << 20)
#define RW (PROT_READ | PROT_WRITE)

struct hmig {
	struct hstate *h;
	struct mm_struct *mm;
	unsigned long arg; /* move_pages' arrays */
	int a, b;	   /* the two nodes, each with a pool of two pages */
	struct kunit_resources before;
};

static void hmig_init(struct kunit *test, struct hmig *s)
{
	s->h = &hstates[HSTATE_2M];
	if (!test_two_nodes(&s->a, &s->b))
		kunit_skip(test, "one node with memory");
	test_hugetlb_empty_pool(test, s->h);
	kunit_resources_take(&s->before);
	set_max_huge_pages(s->h, 2, s->a);
	set_max_huge_pages(s->h, 2, s->b);
	if (s->h->nr_huge_pages_node[s->a] != 2 || s->h->nr_huge_pages_node[s->b] != 2)
		kunit_skip(test, "no two 2 MiB pages on nodes %d and %d", s->a, s->b);
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
	s->arg = do_mmap(s->mm, 0, PAGE_SIZE, RW, MAP_PRIVATE | MAP_ANONYMOUS);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(s->arg));
}

static void hmig_end(struct kunit *test, struct hmig *s)
{
	test_mm_destroy(test, s->mm);
	test_hugetlb_expect_pool_back(test, s->h);
	rcu_barrier(); /* page tables go after a grace period */
	kunit_expect_resources_back(test, &s->before);
}

/* The huge page mm maps at addr, or NULL. */
static struct page *huge_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	u64 e = pmd ? pmd_val(pmdp_get(pmd)) : 0;
	return e & _PAGE_PRESENT ? pfn_to_page((e & PTE_PFN_MASK) >> PAGE_SHIFT) : NULL;
}

static u64 tag(unsigned long i) { return i * 0x9e3779b97f4a7c15ull + 0x6d6967; }

/* Writes tag(i) to the first word of each 4 KiB page i of the huge page
 * at addr; bad_tags: how many of them mm reads otherwise. */
static void write_tags(struct kunit *test, unsigned long addr)
{
	for (unsigned long i = 0; i < SZ2M / PAGE_SIZE; i++)
		KUNIT_ASSERT_EQ(test, put_user_u64(tag(i), (void *)(addr + i * PAGE_SIZE)), 0);
}

/* A 2 MiB MAP_HUGETLB mapping (kind: MAP_PRIVATE or MAP_SHARED) of s's
 * mm, its page faulted in with the tags. */
static unsigned long map_tagged(struct kunit *test, struct hmig *s, unsigned long kind)
{
	unsigned long a = do_mmap(s->mm, 0, SZ2M, RW, kind | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	write_tags(test, a);
	return a;
}

static unsigned long bad_tags(struct mm_struct *mm, unsigned long addr)
{
	unsigned long bad = 0;
	for (unsigned long i = 0; i < SZ2M / PAGE_SIZE; i++)
		bad += test_mm_read_u64(mm, addr + i * PAGE_SIZE) != tag(i);
	return bad;
}

/* p, the page at a that s's mm and child both map: move_pages to node to
 * is -EACCES (its status) without MPOL_MF_MOVE_ALL, and p stays; with it
 * the page moves. Returns the page both map then, on node to. */
static struct page *move_mapped_twice(struct kunit *test, struct hmig *s, struct mm_struct *child, unsigned long a,
				      struct page *p, int to)
{
	int st;
	KUNIT_EXPECT_EQ(test, test_move_one(s->arg, a, to, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, -EACCES);
	KUNIT_EXPECT_PTR_EQ(test, huge_at(s->mm, a), p);
	KUNIT_EXPECT_EQ(test, test_move_one(s->arg, a, to, MPOL_MF_MOVE_ALL, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, to);
	struct page *n = huge_at(s->mm, a);
	KUNIT_ASSERT_NOT_NULL(test, n);
	KUNIT_EXPECT_EQ(test, page_to_nid(n), to);
	KUNIT_EXPECT_PTR_EQ(test, huge_at(child, a), n);
	return n;
}

/* A private MAP_HUGETLB page moves whole to the other node and back:
 * status the target, the data there, the pools' free pages follow (one
 * fewer on the target, one more on the source), the reservations and
 * HugetlbPages stay. A pin keeps it (the call's 1, nothing moved); a
 * target with no free page is -ENOMEM. */
static void private_page_moves_whole(struct kunit *test)
{
	struct hmig s;
	hmig_init(test, &s);
	struct hstate *h = s.h;
	unsigned long a = map_tagged(test, &s, MAP_PRIVATE);
	struct page *p = huge_at(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, p);
	int st, from = page_to_nid(p), to = from == s.a ? s.b : s.a;
	unsigned long free_from = h->free_huge_pages_node[from], free_to = h->free_huge_pages_node[to];
	unsigned long resv = h->resv_huge_pages;
	KUNIT_EXPECT_EQ(test, test_move_one(s.arg, a, to, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, to);
	struct page *n = huge_at(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, n);
	KUNIT_EXPECT_PTR_NE(test, n, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(n), to);
	KUNIT_EXPECT_TRUE(test, PageHugetlb(n));
	KUNIT_EXPECT_EQ(test, page_mapcount(n), 1);
	KUNIT_EXPECT_EQ(test, page_ref_count(n), 1);
	KUNIT_EXPECT_EQ(test, bad_tags(s.mm, a), 0ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages_node[from], free_from + 1);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages_node[to], free_to - 1);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, resv);
	KUNIT_EXPECT_EQ(test, s.mm->hugetlb_usage, 512l);
	KUNIT_EXPECT_EQ(test, page_mapcount(p), 0); /* the old one is free */

	/* Pinned: it stays. */
	struct page *pin;
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(a, 1, 0, &pin), 1l);
	KUNIT_EXPECT_EQ(test, test_move_one(s.arg, a, from, 0, &st), 1l);
	KUNIT_EXPECT_PTR_EQ(test, huge_at(s.mm, a), n);
	put_page(pin);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages_node[to], free_to - 1);

	/* No free page on the source any more: -ENOMEM, the page stays. */
	set_max_huge_pages(h, 0, from);
	KUNIT_EXPECT_EQ(test, h->nr_huge_pages_node[from], 0ul);
	KUNIT_EXPECT_EQ(test, test_move_one(s.arg, a, from, 0, &st), (long)-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, huge_at(s.mm, a), n);
	set_max_huge_pages(h, 2, from);
	KUNIT_EXPECT_EQ(test, test_move_one(s.arg, a, from, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, from);
	struct page *back = huge_at(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, back);
	KUNIT_EXPECT_EQ(test, page_to_nid(back), from);
	KUNIT_EXPECT_EQ(test, bad_tags(s.mm, a), 0ul);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, SZ2M), 0);
	hmig_end(test, &s);
}

/* A MAP_SHARED | MAP_HUGETLB page a forked child maps too: -EACCES
 * without MPOL_MF_MOVE_ALL; with it the page moves, the page cache and
 * both mappings have the new page (mapped twice, held by the cache and
 * the two mappings), and a write through the child shows in the
 * parent. */
static void shared_page_moves_for_every_mapper(struct kunit *test)
{
	struct hmig s;
	hmig_init(test, &s);
	struct hstate *h = s.h;
	unsigned long a = map_tagged(test, &s, MAP_SHARED);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(s.mm, &child), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, a), tag(0)); /* the child maps it */
	struct page *p = huge_at(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_EQ(test, huge_at(child, a), p);
	KUNIT_EXPECT_EQ(test, page_mapcount(p), 2);
	struct address_space *mapping = find_vma(s.mm, a)->vm_file->f_mapping;
	int from = page_to_nid(p), to = from == s.a ? s.b : s.a;
	unsigned long resv = h->resv_huge_pages;
	struct page *n = move_mapped_twice(test, &s, child, a, p, to);
	struct page *cached = filemap_get_folio(mapping, 0);
	KUNIT_EXPECT_PTR_EQ(test, cached, n);
	if (cached)
		put_page(cached);
	KUNIT_EXPECT_EQ(test, page_mapcount(n), 2);
	KUNIT_EXPECT_EQ(test, page_ref_count(n), 3);
	KUNIT_EXPECT_EQ(test, bad_tags(s.mm, a), 0ul);
	KUNIT_EXPECT_EQ(test, bad_tags(child, a), 0ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, resv);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages_node[from], 2ul); /* the old page is back */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, a + 64, 0x77), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(s.mm, a + 64), 0x77ul);
	mmput(child);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, SZ2M), 0);
	hmig_end(test, &s);
}

/* A private MAP_HUGETLB page that fork shared (both map it read-only):
 * -EACCES without MPOL_MF_MOVE_ALL; with it the page moves, found in the
 * child through the anon_vma, and both map the new page, still shared
 * (mapped twice, a reference each). The child's write then copies it, and
 * the parent keeps its data. */
static void private_page_shared_since_fork_moves_with_move_all(struct kunit *test)
{
	struct hmig s;
	hmig_init(test, &s);
	unsigned long a = map_tagged(test, &s, MAP_PRIVATE);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(s.mm, &child), 0);
	struct page *p = huge_at(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_EQ(test, huge_at(child, a), p);
	KUNIT_EXPECT_EQ(test, page_mapcount(p), 2);
	int from = page_to_nid(p), to = from == s.a ? s.b : s.a;
	struct page *n = move_mapped_twice(test, &s, child, a, p, to);
	KUNIT_EXPECT_EQ(test, page_mapcount(n), 2);
	KUNIT_EXPECT_EQ(test, page_ref_count(n), 2);
	KUNIT_EXPECT_EQ(test, bad_tags(child, a), 0ul);
	KUNIT_EXPECT_EQ(test, s.h->free_huge_pages_node[from], 2ul); /* the old page is back */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, a, 0x77), 0);
	KUNIT_EXPECT_PTR_NE(test, huge_at(child, a), n);
	KUNIT_EXPECT_EQ(test, bad_tags(s.mm, a), 0ul);
	KUNIT_EXPECT_EQ(test, page_mapcount(n), 1);
	mmput(child);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, SZ2M), 0);
	hmig_end(test, &s);
}

static struct kunit_case hugetlb_migrate_cases[] = {
	KUNIT_CASE(private_page_moves_whole),
	KUNIT_CASE(shared_page_moves_for_every_mapper),
	KUNIT_CASE(private_page_shared_since_fork_moves_with_move_all),
	{},
};

static struct kunit_suite hugetlb_migrate_suite = { .name = "hugetlb_migrate", .test_cases = hugetlb_migrate_cases };
kunit_test_suite(hugetlb_migrate_suite);
