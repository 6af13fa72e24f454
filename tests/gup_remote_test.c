/* access_remote_vm with FOLL_FORCE (mm/gup.c), what /proc/<pid>/mem does:
 * a forced write to a read-only private mapping lands in an anonymous page
 * of the mapping's own whose PTE stays read-only, whether the page was
 * never touched, was the zero page, or is shared copy-on-write with
 * another mm (whose page keeps its bytes: the Dirty COW property); a
 * write without FOLL_FORCE, or to a read-only shared mapping, moves
 * nothing; and the two counts of an mm (mmgrab/mmget_not_zero/mmdrop)
 * that an open mem file relies on. Every case checks that pages, slab
 * objects and page-table pages come back (test_mm). */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/gup.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/slab.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define BASE 0x0000320000000000ul /* a PGD entry of its own */
#define FORCED_WRITE (FOLL_FORCE | FOLL_WRITE)

static unsigned long map_at(struct kunit *test, struct mm_struct *mm, unsigned long addr, int prot, int flags)
{
	unsigned long got = do_mmap(mm, addr, PAGE_SIZE, (unsigned long)prot, (unsigned long)(flags | MAP_FIXED));
	KUNIT_ASSERT_EQ(test, got, addr);
	return addr;
}

static int remote(struct mm_struct *mm, unsigned long addr, void *buf, int len, unsigned int flags)
{
	return access_remote_vm(mm, addr, buf, len, flags);
}

/* The page a forced write left behind: an anonymous page of its own (not
 * the zero page), behind a present, read-only PTE. */
static void expect_private_readonly_copy(struct kunit *test, struct mm_struct *mm, unsigned long addr)
{
	pte_t e = test_mm_pte(mm, addr);
	KUNIT_EXPECT_TRUE(test, pte_present(e));
	KUNIT_EXPECT_FALSE(test, pte_write(e));
	KUNIT_EXPECT_FALSE(test, is_zero_pfn(pte_pfn(e)));
	if (pte_present(e))
		KUNIT_EXPECT_TRUE(test, anon_page_exclusive(pfn_to_page(pte_pfn(e))));
}

/* Read-only private anonymous memory: never touched, then the zero page. */
static void forced_write_keeps_pte_readonly(struct kunit *test)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long untouched = map_at(test, mm, BASE, PROT_READ, ANON);
	unsigned long zero = map_at(test, mm, BASE + 2 * PAGE_SIZE, PROT_READ, ANON);
	char buf[8] = "forced!";
	/* Without FOLL_FORCE a read-only mapping takes no write. */
	KUNIT_EXPECT_EQ(test, remote(mm, untouched, buf, 8, FOLL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, remote(mm, untouched + 100, buf, 8, FORCED_WRITE), 8);
	expect_private_readonly_copy(test, mm, untouched);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, untouched + 100), *(u64 *)buf);
	/* The process's own store still faults: the entry is read-only. */
	KUNIT_EXPECT_NE(test, test_mm_write_u64(mm, untouched + 100, 1), 0);

	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, zero), 0); /* maps the zero page */
	KUNIT_EXPECT_TRUE(test, is_zero_pfn(pte_pfn(test_mm_pte(mm, zero))));
	KUNIT_EXPECT_EQ(test, remote(mm, zero + PAGE_SIZE - 4, buf, 8, FORCED_WRITE), 4); /* ends at the hole */
	expect_private_readonly_copy(test, mm, zero);
	char back[8] = { 0 };
	KUNIT_EXPECT_EQ(test, remote(mm, zero + PAGE_SIZE - 4, back, 8, FOLL_FORCE), 4);
	KUNIT_EXPECT_EQ(test, memcmp(back, buf, 4), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, zero), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 2);
	test_mm_destroy(test, mm);
}

/* A page shared copy-on-write with a forked mm: the forced write copies
 * it, and the other mm keeps the old bytes behind its own entry. */
static void forced_write_breaks_cow_not_the_other_mm(struct kunit *test)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long addr = map_at(test, mm, BASE, PROT_READ | PROT_WRITE, ANON);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, addr, 0x1111), 0);
	KUNIT_ASSERT_EQ(test, do_mprotect(mm, addr, PAGE_SIZE, PROT_READ), 0);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	struct page *shared = pfn_to_page(pte_pfn(test_mm_pte(mm, addr)));
	KUNIT_EXPECT_PTR_EQ(test, pfn_to_page(pte_pfn(test_mm_pte(child, addr))), shared);
	u64 v = 0x2222;
	KUNIT_EXPECT_EQ(test, remote(mm, addr, &v, 8, FORCED_WRITE), 8);
	expect_private_readonly_copy(test, mm, addr);
	KUNIT_EXPECT_PTR_NE(test, pfn_to_page(pte_pfn(test_mm_pte(mm, addr))), shared);
	KUNIT_EXPECT_PTR_EQ(test, pfn_to_page(pte_pfn(test_mm_pte(child, addr))), shared);
	KUNIT_EXPECT_EQ(test, *(u64 *)page_address(shared), 0x1111);
	u64 got = 0;
	KUNIT_EXPECT_EQ(test, remote(child, addr, &got, 8, FOLL_FORCE), 8);
	KUNIT_EXPECT_EQ(test, got, 0x1111);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, addr), 0x2222);
	mmput(child);
	test_mm_destroy(test, mm);
}

/* What even FOLL_FORCE does not write: a read-only shared mapping (the
 * object behind it would see it), and no mapping at all. Reads of the
 * shared mapping are fine. */
static void forced_write_refuses_shared_readonly(struct kunit *test)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long shared = map_at(test, mm, BASE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS);
	u64 v = 0x3333, got = 1;
	KUNIT_EXPECT_EQ(test, remote(mm, shared, &v, 8, FORCED_WRITE), 0);
	KUNIT_EXPECT_EQ(test, remote(mm, shared, &got, 8, FOLL_FORCE), 8);
	KUNIT_EXPECT_EQ(test, got, 0);
	KUNIT_EXPECT_EQ(test, remote(mm, BASE + 4 * PAGE_SIZE, &v, 8, FORCED_WRITE), 0);
	KUNIT_EXPECT_EQ(test, remote(mm, TASK_SIZE - 4, &got, 8, FOLL_FORCE), 0);
	test_mm_destroy(test, mm);
}

/* mm_users keeps the memory, mm_count the struct: a grabbed mm whose last
 * user went has no memory left (mmget_not_zero fails), and the struct
 * goes at the last mmdrop. */
static void mm_count_outlives_mm_users(struct kunit *test)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, mm, BASE, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE, 7), 0);
	mmgrab(mm);
	KUNIT_EXPECT_TRUE(test, mmget_not_zero(mm));
	KUNIT_EXPECT_EQ(test, mm->mm_users, 2);
	mmput(mm);
	test_mm_put(test, mm); /* the last user: the memory goes */
	KUNIT_EXPECT_EQ(test, mm->mm_users, 0);
	KUNIT_EXPECT_FALSE(test, mmget_not_zero(mm));
	KUNIT_EXPECT_EQ(test, mm->mm_count, 1);
	mmdrop(mm);
	test_mm_destroy(test, mm); /* the leak check: the struct went too */
}

static struct kunit_case gup_remote_cases[] = {
	KUNIT_CASE(forced_write_keeps_pte_readonly),
	KUNIT_CASE(forced_write_breaks_cow_not_the_other_mm),
	KUNIT_CASE(forced_write_refuses_shared_readonly),
	KUNIT_CASE(mm_count_outlives_mm_users),
	{}
};

static struct kunit_suite gup_remote_suite = { .name = "gup_remote", .test_cases = gup_remote_cases };
kunit_test_suite(gup_remote_suite);
