/* Misusing the slab allocator: frees it must refuse (double frees through
 * kfree and kmem_cache_free, an object freed to another cache, pointers
 * that are not kmalloc memory or not the start of an object, a large
 * kmalloc freed inside or twice) and a cache destroyed with an object still
 * live. Each is reported by name, counted in slab_bad_free_reports, and
 * survived: nothing is handed out twice, live data stays intact, and the
 * allocator keeps working. Correct use is tests/slab_test.c.
 *
 * Every case must leave slab_objects_in_use() and each node's free page
 * count (after kmem_cache_shrink_all) as it found them: the suite's exit
 * hook checks it, so a leak fails the case that made it. */
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "tests/kunit.h"

static bool all_bytes(const void *p, int c, size_t size)
{
	const u8 *b = p;
	for (size_t i = 0; i < size; i++)
		if (b[i] != (u8)c)
			return false;
	return true;
}

/* ---- per-case leak check ---- */

static struct kunit_resources case_start;

static int slab_case_init(struct kunit *test)
{
	(void)test;
	kunit_resources_take(&case_start);
	return 0;
}

static void slab_case_exit(struct kunit *test)
{
	kunit_expect_resources_back(test, &case_start);
}

#define CAPTURE(log, stmt)                                                         \
	do {                                                                       \
		struct printk_capture __cap;                                       \
		printk_capture_begin(&__cap, log, sizeof(log));                    \
		stmt;                                                              \
		printk_capture_end(&__cap);                                        \
	} while (0)

static void double_free_is_reported_and_ignored(struct kunit *test)
{
	char log[512];
	unsigned long reports = slab_bad_free_reports;

	u8 *a = kmalloc(64, GFP_KERNEL);
	u8 *b = kmalloc(64, GFP_KERNEL); /* keeps the slab alive */
	KUNIT_ASSERT_TRUE(test, a && b);
	memset(b, 0x42, 64);
	kfree(a);
	CAPTURE(log, kfree(a));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kfree: double free"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "kmalloc-64"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, __func__)); /* the caller, by name */

	/* Had a been put on the free list twice, two allocations would get it. */
	u8 *c = kmalloc(64, GFP_KERNEL), *d = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c && d);
	KUNIT_EXPECT_PTR_NE(test, c, d);
	KUNIT_EXPECT_PTR_NE(test, c, b);
	KUNIT_EXPECT_PTR_NE(test, d, b);
	KUNIT_EXPECT_TRUE(test, all_bytes(b, 0x42, 64));
	kfree(c);
	kfree(d);
	kfree(b);

	/* The same through kmem_cache_free on a cache of our own. */
	struct kmem_cache *s = kmem_cache_create("slab_test_df", 48, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	void *x = kmem_cache_alloc(s, GFP_KERNEL), *y = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, x && y);
	kmem_cache_free(s, x);
	reports = slab_bad_free_reports;
	CAPTURE(log, kmem_cache_free(s, x));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kmem_cache_free: double free"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "slab_test_df"));
	/* An object freed to the wrong cache is refused too. */
	CAPTURE(log, kmem_cache_free(s, (c = kmalloc(64, GFP_KERNEL))));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "another cache"));
	kfree(c);
	kmem_cache_free(s, y);
	CAPTURE(log, kmem_cache_destroy(s));
	KUNIT_EXPECT_NULL(test, strstr(log, "BUG"));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 2);
}

/* A write after free over a free object's free pointer: the CPU slab's
 * list then leads to a live object. The allocation that would follow it
 * reports the list and rebuilds it from the free map instead of handing
 * the live object out again (the check is in the slow path's pop: the
 * fast path only leaves such a list to it). */
static void corrupted_free_list_is_reported_and_rebuilt(struct kunit *test)
{
	char log[512];
	struct kmem_cache *s = kmem_cache_create("slab_test_fl", 64, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	void *a = kmem_cache_alloc(s, GFP_KERNEL), *b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, a && b);
	memset(b, 0x42, 64);
	kmem_cache_free(s, a);
	*(void **)a = b; /* the free pointer is the first word: no constructor */
	void *c = NULL, *d = NULL;
	CAPTURE(log, (c = kmem_cache_alloc(s, GFP_KERNEL), d = kmem_cache_alloc(s, GFP_KERNEL)));
	KUNIT_EXPECT_PTR_EQ(test, c, a); /* the list's head was sound */
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_PTR_NE(test, d, b);
	KUNIT_EXPECT_PTR_NE(test, d, a);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: slab slab_test_fl: free list of the CPU slab"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "rebuilt from the free map"));
	KUNIT_EXPECT_TRUE(test, all_bytes(b, 0x42, 64));
	unsigned long reports = slab_bad_free_reports;
	kmem_cache_free(s, c);
	kmem_cache_free(s, d);
	kmem_cache_free(s, b);
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports);
	CAPTURE(log, kmem_cache_destroy(s));
	KUNIT_EXPECT_NULL(test, strstr(log, "BUG"));
}

static void foreign_pointer_free_is_reported_and_ignored(struct kunit *test)
{
	char log[512];
	unsigned long reports = slab_bad_free_reports;
	int on_stack = 0;

	/* Not kmalloc memory at all: a stack variable. */
	CAPTURE(log, kfree(&on_stack));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kfree"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "not allocated by kmalloc"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, __func__));

	/* A page straight from the page allocator: still allocated after. */
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	CAPTURE(log, kfree(page_address(page)));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kfree"));
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	__free_pages(page, 0);

	/* Inside an object, not at its start: the object stays allocated. */
	u8 *obj = kmalloc(128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	memset(obj, 0x24, 128);
	CAPTURE(log, kfree(obj + 8));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 3);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kfree: not the start of an object"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "kmalloc-128"));
	static void *more[100];
	unsigned handed_out_again = 0;
	for (int k = 0; k < 100; k++) {
		more[k] = kmalloc(128, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, more[k]);
		if ((u8 *)more[k] <= obj + 8 && obj + 8 < (u8 *)more[k] + 128)
			handed_out_again++;
	}
	KUNIT_EXPECT_EQ(test, handed_out_again, 0);
	KUNIT_EXPECT_TRUE(test, all_bytes(obj, 0x24, 128));
	for (int k = 0; k < 100; k++)
		kfree(more[k]);
	kfree(obj);

	/* A large kmalloc: inside it, then a second free of it. */
	u8 *big = kmalloc(KiB(64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	CAPTURE(log, kfree(big + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 4);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kfree"));
	kfree(big);
	unsigned long free_pages_after = nr_free_pages();
	CAPTURE(log, kfree(big));
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 5);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kfree"));
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free_pages_after);

	/* And kmalloc still works. */
	void *p = kmalloc(128, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	kfree(p);
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports + 5);
}

static void destroy_with_live_object_reports_the_leak(struct kunit *test)
{
	static char log[4096];
	unsigned long reports = slab_bad_free_reports;

	struct kmem_cache *s = kmem_cache_create("slab_test_leak", 100, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	u8 *p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x77, 100);

	CAPTURE(log, kmem_cache_destroy(s));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: kmem_cache_destroy"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "slab_test_leak"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "still has 1 objects"));

	/* The live object's slab was not given back under its user. */
	kmem_cache_shrink_all();
	KUNIT_EXPECT_TRUE(test, PageSlab(virt_to_page(p)));
	KUNIT_EXPECT_TRUE(test, all_bytes(p, 0x77, 100));
	CAPTURE(log, show_slabinfo());
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "slab_test_leak"));

	/* Freeing it later is legitimate; then the cache goes for good. */
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports);
	kmem_cache_shrink_all();
	CAPTURE(log, show_slabinfo());
	KUNIT_EXPECT_NULL(test, strstr(log, "slab_test_leak"));
}

static struct kunit_case slab_misuse_cases[] = {
	KUNIT_CASE(double_free_is_reported_and_ignored),
	KUNIT_CASE(corrupted_free_list_is_reported_and_rebuilt),
	KUNIT_CASE(foreign_pointer_free_is_reported_and_ignored),
	KUNIT_CASE(destroy_with_live_object_reports_the_leak),
	{}
};

static struct kunit_suite slab_misuse_suite = {
	.name = "slab_misuse",
	.init = slab_case_init,
	.exit = slab_case_exit,
	.test_cases = slab_misuse_cases,
};
kunit_test_suite(slab_misuse_suite);
