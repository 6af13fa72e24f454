/* Pages a test case holds (tests/page_alloc_test.c, tests/reclaim_test.c):
 * a list of allocations linked through the pages' lru (the holder's while
 * allocated), given back however the case ends, and the way to take a
 * node down to what some flags may have. */
#ifndef TESTS_TEST_PAGES_H
#define TESTS_TEST_PAGES_H

#include "lib/list.h"
#include "mm/gfp.h"

struct kunit;
struct page;

struct held {
	struct list_head list;
	unsigned long pages;
};

void held_init(struct held *h);
void held_add(struct held *h, struct page *p, unsigned order);
/* Frees every allocation (to the per-CPU lists for order 0: drain_all_pages
 * to see them in the node's count). */
void held_release(struct held *h);
/* held_init, and held_release when the case ends, however it ends: a node
 * left exhausted by a failed assertion would fail every case after it. h
 * is static, not on the case's stack, which is gone when the action runs. */
void held_init_released_at_end(struct kunit *test, struct held *h);
/* Takes everything node nid will give with these flags, largest blocks
 * first (fast even under emulation). */
void exhaust_node(struct held *h, int nid, gfp_t gfp);
/* Frees the newest allocations (exhaust_node's smallest blocks) until
 * at least pages pages are back; returns how many. */
unsigned long held_give_back(struct held *h, unsigned long pages);
/* Gives node nid's highatomic reserve back to the other types (Linux's
 * unreserve_highatomic_pageblock, forced). A block an earlier high-order
 * atomic allocation set aside is out of reach of order-0 requests, atomic
 * ones too, until the allocator gives it back before an OOM: a case that
 * takes a node down to what some flags may have starts without one. */
void drop_highatomic_reserve(int nid);

#endif
