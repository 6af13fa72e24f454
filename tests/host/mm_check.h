/* Consistency checks of the buddy allocator's state for host tests, against
 * a shadow of what the test holds (a bitmap of live pfns):
 *  - every block in every free list is PG_buddy with private == its order,
 *    aligned to its order, on the list's node and inside that node, and the
 *    list lengths and the node's nr_free agree with what is on the lists;
 *  - per-CPU list pages (and THP-order blocks) are PG_pcp, on the node,
 *    counted right;
 *  - no pfn is in two free blocks, or free and live;
 *  - sum over nodes of (free + bad) + live == sum of managed pages.
 * A snapshot (per-node per-order counts and the sorted set of free blocks)
 * says whether the free lists returned exactly to an earlier shape. */
#ifndef TESTS_HOST_MM_CHECK_H
#define TESTS_HOST_MM_CHECK_H

#include "mm/page_alloc.h"
#include "tests/host/ktest.h"

struct mm_shadow {
	u64 *live;          /* bit per pfn: allocated by the test */
	u64 *free;          /* scratch: bit per pfn in a free block or per-CPU list */
	unsigned long nr_pfns;
	unsigned long live_pages;
};

void mm_shadow_init(struct mm_shadow *s);
void mm_shadow_destroy(struct mm_shadow *s);
/* Records an allocation of 2^order pages at page; fails the test if any of
 * them was already live. */
bool mm_shadow_alloc(struct ktest *t, struct mm_shadow *s, struct page *page, unsigned order);
void mm_shadow_free(struct mm_shadow *s, struct page *page, unsigned order);

/* Checks the invariants above; deep also checks that the tail pages of every
 * free block carry no flags (O(free pages)). Returns false (and has failed
 * the test with the first problem found) when one does not hold. */
bool mm_check(struct ktest *t, const struct mm_shadow *s, bool deep);

struct mm_snapshot {
	unsigned long nr_free[MAX_NUMNODES][NR_PAGE_ORDERS];
	unsigned long node_free[MAX_NUMNODES];
	unsigned long *blocks; /* pfn << 5 | order, sorted */
	unsigned long nr_blocks;
};

/* Drains the per-CPU lists first: their pages belong to the buddy shape. */
void mm_snapshot_take(struct mm_snapshot *snap);
void mm_snapshot_free(struct mm_snapshot *snap);
/* True when b has exactly a's shape; otherwise fails the test and says the
 * first difference. */
bool mm_snapshot_equal(struct ktest *t, const struct mm_snapshot *a, const struct mm_snapshot *b);

/* Managed pages over all nodes. */
unsigned long mm_total_managed(void);
unsigned long mm_total_bad(void);

#endif
