/* The page cache on the xarray (mm/filemap.c): a file's i_pages growing
 * and shrinking with its pages, and a huge page's range of indices that
 * runs out of nodes partway leaving nothing behind. */
#include "tests/test_xarray.h"
#include "tests/test_file.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "mm/fail_page_alloc.h"
#include "mm/filemap.h"
#include "mm/page_alloc.h"

#define PATH "/tmp/filemap_xarray_test"

/* A file's pages in its mapping's xarray: a page written far out grows
 * the tree, truncation empties it and its nodes go. */
static void page_cache_tree_follows_the_file(struct kunit *test)
{
	rcu_barrier();
	unsigned long nodes = xa_nodes_in_use();
	struct file *f = test_file_make(test, PATH);
	struct address_space *mapping = f->f_mapping;
	static char buf[64];
	const unsigned long far = 1ul << 20; /* page index: 4 GiB into the file */
	long long pos = 0;
	KUNIT_ASSERT_EQ(test, kernel_write(f, buf, sizeof(buf), &pos), (long)sizeof(buf));
	KUNIT_EXPECT_EQ(test, xa_height(&mapping->i_pages), 0u); /* page 0 alone: at the head */
	pos = (long long)(far * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, kernel_write(f, buf, sizeof(buf), &pos), (long)sizeof(buf));
	KUNIT_EXPECT_EQ(test, xa_height(&mapping->i_pages), 4u); /* 2^20 needs 21 bits */
	KUNIT_EXPECT_EQ(test, mapping->nrpages, 2ul);
	struct page *page = xa_load(&mapping->i_pages, far);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page->index, far);
	KUNIT_EXPECT_PTR_EQ(test, page->mapping, mapping);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 1), 0);
	KUNIT_EXPECT_EQ(test, xa_height(&mapping->i_pages), 0u);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&mapping->i_pages));
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, xa_nodes_in_use(), nodes);
}

/* filemap_add_folio_range (a huge page's indices, here 64 pages of their
 * own) out of nodes partway: the indices it stored go again, and none of
 * its pages is left with the cache's reference or mapping. Ranges that
 * straddle a 2^24 boundary, each needing nine nodes (a root and four
 * levels on each side), are added with page allocation failing. */
#define RANGE_PAGES 64ul
#define RANGE_SETS 24

static struct page *range_sets[RANGE_SETS];

static void range_sets_free(void *unused)
{
	(void)unused;
	for (int k = 0; k < RANGE_SETS; k++)
		if (range_sets[k]) {
			for (unsigned long i = 0; i < RANGE_PAGES; i++) {
				/* Still in the cache: out of it first. */
				if (range_sets[k][i].mapping)
					filemap_remove_folio(range_sets[k] + i);
				__free_pages(range_sets[k] + i, 0);
			}
			range_sets[k] = NULL;
		}
}

static void page_cache_range_without_memory(struct kunit *test)
{
	/* The file first: its inode and dentry are not the case's to give
	 * back (closed after the checks). */
	struct file *f = test_file_make(test, PATH);
	struct address_space *mapping = f->f_mapping;
	struct xa_case_start start;
	struct xarray *scratch = xa_case_begin(test, &start);
	unsigned long file_pages = nr_file_pages();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, range_sets_free, NULL), 0);
	for (int k = 0; k < RANGE_SETS; k++) {
		range_sets[k] = alloc_pages(GFP_KERNEL, 6); /* 64 = RANGE_PAGES */
		KUNIT_ASSERT_NOT_NULL(test, range_sets[k]);
		split_page(range_sets[k], 6);
	}
	/* A scratch entry whose path (shifts 24 down to 0) is five nodes of
	 * its own; then the node cache's free slots used up; then those five
	 * freed, so that the first range finds five nodes of the nine it
	 * needs: its lower half goes in, and then has to come out again. */
	KUNIT_ASSERT_NULL(test, xa_store(scratch, 0, xa_mk_value(0), GFP_KERNEL));
	KUNIT_ASSERT_NULL(test, xa_store(scratch, 1ul << 30, xa_mk_value(1), GFP_KERNEL));
	xa_fail_page_allocs(test, -1);
	unsigned long used;
	for (used = 2; used < XA_FAIL_TRIES; used++)
		if (xa_is_err(xa_store(scratch, used << 30, xa_mk_value(used), GFP_KERNEL)))
			break;
	KUNIT_ASSERT_LT(test, used, XA_FAIL_TRIES);
	rcu_barrier(); /* what the failed store made and freed is free now */
	xa_erase(scratch, 1ul << 30);
	rcu_barrier();
	int k, err = 0;
	for (k = 0; k < RANGE_SETS; k++) {
		unsigned long index = ((unsigned long)k + 1) * (1ul << 24) - RANGE_PAGES / 2;
		unsigned long live = xa_live_nodes();
		err = filemap_add_folio_range(mapping, range_sets[k], index, RANGE_PAGES, GFP_KERNEL);
		if (!err)
			continue;
		KUNIT_EXPECT_EQ(test, err, -ENOMEM);
		unsigned long found = index;
		KUNIT_EXPECT_NULL(test, xa_find(&mapping->i_pages, &found, index + RANGE_PAGES - 1, XA_PRESENT));
		KUNIT_EXPECT_EQ(test, xa_live_nodes(), live);
		for (unsigned long i = 0; i < RANGE_PAGES; i++) {
			KUNIT_EXPECT_EQ(test, page_ref_count(range_sets[k] + i), 1);
			KUNIT_EXPECT_NULL(test, range_sets[k][i].mapping);
		}
		break;
	}
	KUNIT_ASSERT_LT(test, k, RANGE_SETS);
	kunit_info(test, "%d ranges went in before one found too few nodes (%lu injected failures)", k,
		   fail_page_alloc.failures);
	KUNIT_EXPECT_EQ(test, mapping->nrpages, (unsigned long)k * RANGE_PAGES);
	KUNIT_EXPECT_EQ(test, nr_file_pages() - file_pages, (unsigned long)k * RANGE_PAGES);
	xa_fail_page_allocs_end(test);
	/* With memory, the same range goes in whole. */
	unsigned long index = ((unsigned long)k + 1) * (1ul << 24) - RANGE_PAGES / 2;
	KUNIT_EXPECT_EQ(test, filemap_add_folio_range(mapping, range_sets[k], index, RANGE_PAGES, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mapping->nrpages, ((unsigned long)k + 1) * RANGE_PAGES);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&mapping->i_pages, index + RANGE_PAGES - 1),
			    range_sets[k] + RANGE_PAGES - 1);
	/* Adding over it is refused whole. */
	KUNIT_EXPECT_EQ(test, filemap_add_folio_range(mapping, range_sets[k + 1 < RANGE_SETS ? k + 1 : 0],
						      index + 1, 1, GFP_KERNEL), -EEXIST);
	kunit_release_action(test, range_sets_free, NULL);
	KUNIT_EXPECT_TRUE(test, xa_empty(&mapping->i_pages));
	KUNIT_EXPECT_EQ(test, nr_file_pages(), file_pages);
	xa_case_end(test, scratch, &start);
}

static struct kunit_case filemap_xarray_cases[] = {
	KUNIT_CASE(page_cache_tree_follows_the_file),
	KUNIT_CASE(page_cache_range_without_memory),
	{}
};

static struct kunit_suite filemap_xarray_suite = {
	.name = "filemap_xarray",
	.test_cases = filemap_xarray_cases,
};
kunit_test_suite(filemap_xarray_suite);
