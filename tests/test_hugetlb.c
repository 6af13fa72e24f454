/* hugetlb pools for a test case: tests/test_hugetlb.h has the rules. */
#include "tests/test_hugetlb.h"
#include "mm/hugetlb.h"
#include "mm/numa.h"

static unsigned long saved_pool[HUGE_MAX_HSTATE][MAX_NUMNODES];

static void restore_pool(void *hp)
{
	struct hstate *h = hp;
	int idx = (int)(h - hstates);
	for (int nid = 0; nid < (int)num_online_nodes(); nid++)
		if (saved_pool[idx][nid])
			set_max_huge_pages(h, saved_pool[idx][nid], nid);
}

void test_hugetlb_empty_pool(struct kunit *test, struct hstate *h)
{
	if (!h->nr_huge_pages)
		return;
	if (h->resv_huge_pages || h->free_huge_pages != h->nr_huge_pages)
		kunit_skip(test, "the pool has pages in use");
	int idx = (int)(h - hstates);
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		saved_pool[idx][nid] = h->nr_huge_pages_node[nid];
	KUNIT_ASSERT_EQ(test, set_max_huge_pages(h, 0, NUMA_NO_NODE), 0l);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_pool, h), 0);
}

void test_hugetlb_set_pool(struct kunit *test, struct hstate *h, unsigned long pages)
{
	test_hugetlb_empty_pool(test, h);
	if (set_max_huge_pages(h, pages, NUMA_NO_NODE) != (long)pages) {
		set_max_huge_pages(h, 0, NUMA_NO_NODE);
		kunit_skip(test, "the pool cannot grow to %lu pages of %lu kB (no free blocks that large)", pages,
			   huge_page_size(h) >> 10);
	}
}

void test_hugetlb_expect_pool_back(struct kunit *test, struct hstate *h)
{
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, h->nr_huge_pages);
	KUNIT_EXPECT_EQ(test, set_max_huge_pages(h, 0, NUMA_NO_NODE), 0l);
	h->nr_overcommit_huge_pages = 0;
	KUNIT_EXPECT_EQ(test, h->nr_huge_pages, 0ul);
}
