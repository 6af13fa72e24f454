/* hugetlb pools for a test case (tests/hugetlb_test.c,
 * tests/hugetlbfs_test.c): a pool the command line made is set aside and
 * made again, node by node, when the case ends (a kunit action), so a case
 * starts from a pool of the size it asks for. */
#ifndef TESTS_TEST_HUGETLB_H
#define TESTS_TEST_HUGETLB_H

#include "tests/kunit.h"

struct hstate;

/* The pool of h emptied (each node's pages freed) for the case; the case
 * is skipped if the pool has pages in use. */
void test_hugetlb_empty_pool(struct kunit *test, struct hstate *h);
/* The pool of h emptied, then set to pages pages from whichever nodes
 * have them; the case is skipped when the machine cannot give them. */
void test_hugetlb_set_pool(struct kunit *test, struct hstate *h, unsigned long pages);
/* Every page and reservation of h back (free == nr, none reserved), then
 * the pool emptied and its overcommit reset: the case's pages are back
 * in the buddy allocator for its leak check. */
void test_hugetlb_expect_pool_back(struct kunit *test, struct hstate *h);

#endif
