/* What the xarray's suites share (tests/xarray_test.c,
 * tests/filemap_xarray_test.c): a case's own array, destroyed however the
 * case ends, with the check that its nodes, slab objects and pages come
 * back; the tree's height; and page allocations made to fail for the
 * case's thread (fail_page_alloc), undone however the case ends. */
#ifndef TESTS_TEST_XARRAY_H
#define TESTS_TEST_XARRAY_H

#include "tests/kunit.h"
#include "lib/xarray.h"

/* What a case holds at its start. */
struct xa_case_start {
	struct kunit_resources res;
	unsigned long nodes;
};

/* Takes the case's resources (after every node pending its grace period
 * is freed) and returns an empty array of the case's, destroyed by a
 * deferred action. */
struct xarray *xa_case_begin(struct kunit *test, struct xa_case_start *start);
/* Destroys the array; after the grace period every node is back and so
 * are the case's slab objects and pages. */
void xa_case_end(struct kunit *test, struct xarray *xa, const struct xa_case_start *start);
/* Destroys xa when the case ends (an array of the case's own). */
void xa_destroy_at_end(struct kunit *test, struct xarray *xa);

/* Nodes in a tree or a spare chain, not those waiting to be freed. */
static inline unsigned long xa_live_nodes(void) { return xa_nodes_in_use() - xa_nodes_rcu_pending(); }
/* The tree's levels: 0 when the head is an entry or NULL. */
static inline unsigned int xa_height(const struct xarray *xa)
{
	void *head = xa->xa_head;
	return xa_is_node(head) ? xa_to_node(head)->shift / XA_CHUNK_SHIFT + 1u : 0;
}

/* Every page allocation of this thread fails, at most times times (-1:
 * all), until the case ends or xa_fail_page_allocs_end. */
void xa_fail_page_allocs(struct kunit *test, long times);
void xa_fail_page_allocs_end(struct kunit *test);

/* Stores that each need new nodes tried at most this often while the
 * node cache's free slots are used up. */
#define XA_FAIL_TRIES 4096ul

#endif
