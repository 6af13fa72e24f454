/* What the host tests of the page allocator share (page_alloc_test.c: the
 * buddy shape, nodes, per-CPU lists and the slow path; page_alloc_checks_test.c:
 * the bad-page checks and the shrinkers): the machine, four nodes of 64 MiB
 * in a ring (distances 10/20/30/20) with the first MiB reserved, booted
 * afresh before every case as the kernel boots it (tests/host/mm_boot.c);
 * allocation helpers that keep a shadow of what the case holds
 * (tests/host/mm_check.h); and the check that a case ends with the free
 * lists in exactly the shape they had after boot. */
#ifndef TESTS_HOST_PAGE_ALLOC_HARNESS_H
#define TESTS_HOST_PAGE_ALLOC_HARNESS_H

#include "mm/page_alloc.h"
#include "tests/host/ktest.h"
#include "tests/host/mm_check.h"
#include "tests/host/shim.h"

#include <string.h>

#define NODE_BYTES MiB(64)
#define NR_NODES 4
#define MEM (NODE_BYTES * NR_NODES)

extern const struct host_mm_config ring;
/* The same ring with node 3 memoryless (a CPU-only node), its memory on
 * node 2 so that the total stays. */
extern const struct host_mm_config ring_node3_memoryless;
extern struct mm_shadow shadow;
/* What the allocator printed between capture_begin and capture_end. */
extern char printed[8192];

/* Boots cfg from nothing; the boot shape is taken afresh. */
void boot(const struct host_mm_config *cfg);
/* Before every case: boot(&ring). */
void init_case(struct ktest *t);
void capture_begin(void);
void capture_end(void);

/* Allocates and records in the shadow; checks what every allocation must
 * look like. NULL when the allocation fails. */
struct page *get(struct ktest *t, int nid, gfp_t gfp, unsigned order);
/* The same through __alloc_pages with a nodemask (NULL: alloc_pages_node);
 * also checks the page is on a node of the mask. */
struct page *get_nodemask(struct ktest *t, int nid, gfp_t gfp, unsigned order, const nodemask_t *mask);
/* Frees what get() returned. */
void put(struct page *p, unsigned order);
/* The free lists are back to their shape after boot, and consistent. */
void expect_boot_shape(struct ktest *t);

/* Blocks a case holds, by order. */
struct held_blocks {
	struct { struct page *p; unsigned order; } b[4096];
	int n;
};
/* Takes everything node nid gives with gfp | __GFP_THISNODE, largest blocks
 * first; the per-CPU lists are drained at the end (their pages go back
 * below the watermark the allocation stopped at). */
void exhaust_node(struct ktest *t, struct held_blocks *h, int nid, gfp_t gfp);
void release_blocks(struct held_blocks *h);

/* Runs a free that must be refused with a report containing reason. */
#define EXPECT_BAD_FREE(t, stmt, reason)                                                 \
	do {                                                                             \
		unsigned long _before = bad_page_reports;                                \
		capture_begin();                                                         \
		stmt;                                                                    \
		capture_end();                                                           \
		KTEST_EXPECT_EQ(t, bad_page_reports, _before + 1);                       \
		if (!KTEST_EXPECT_NOT_NULL(t, strstr(printed, reason)))                  \
			ktest_diag(t, "report: %s", printed);                            \
		KTEST_EXPECT_NOT_NULL(t, strstr(printed, "BUG: Bad page state"));        \
	} while (0)

/* main() of a host page allocator test program. */
int page_alloc_test_main(const char *suite, const struct ktest_case *cases, size_t n);

#endif
