/* tests/test_xarray.h: an xarray case's own array and its checks, and
 * page allocations made to fail. */
#include "tests/test_xarray.h"
#include "kernel/sched.h"
#include "mm/fail_page_alloc.h"

static struct xarray test_array;

static void xa_destroy_action(void *xa) { xa_destroy(xa); }

void xa_destroy_at_end(struct kunit *test, struct xarray *xa)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, xa_destroy_action, xa), 0);
}

struct xarray *xa_case_begin(struct kunit *test, struct xa_case_start *start)
{
	kunit_resources_take(&start->res); /* waits for pending nodes too */
	start->nodes = xa_nodes_in_use();
	xa_init(&test_array);
	xa_destroy_at_end(test, &test_array);
	return &test_array;
}

void xa_case_end(struct kunit *test, struct xarray *xa, const struct xa_case_start *start)
{
	kunit_release_action(test, xa_destroy_action, xa);
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, xa_nodes_in_use(), start->nodes);
	kunit_expect_resources_back(test, &start->res);
}

static struct fault_attr saved_attr;

static void fail_page_alloc_restore(void *unused)
{
	(void)unused;
	fault_attr_arm(false);
	fail_page_alloc = saved_attr;
}

void xa_fail_page_allocs(struct kunit *test, long times)
{
	saved_attr = fail_page_alloc;
	fail_page_alloc = (struct fault_attr){ .probability = 100, .interval = 1, .times = times,
					       .ignore_gfp_reclaim = false, .only_task = current };
	fault_attr_arm(true);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fail_page_alloc_restore, NULL), 0);
}

void xa_fail_page_allocs_end(struct kunit *test)
{
	kunit_release_action(test, fail_page_alloc_restore, NULL);
}
