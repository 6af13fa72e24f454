/* What the host slab tests share: the machine they boot (four nodes of
 * 64 MiB in a ring, host_mm_boot then kmem_cache_init, as the kernel), a
 * shadow of the pages they take, and the check that a case gave all back
 * (no slab object in use, and once the caches return their empty slabs,
 * the page allocator's free lists in their boot shape). */
#ifndef TESTS_HOST_SLAB_HARNESS_H
#define TESTS_HOST_SLAB_HARNESS_H

#include "tests/host/ktest.h"
#include "tests/host/mm_check.h"
#include "tests/host/shim.h"

#define NR_NODES 4
#define NODE_BYTES MiB(64)

/* Pages the test itself takes from the buddy allocator. */
extern struct mm_shadow slab_shadow;

/* Before each case (ktest_run_suite's init). */
void slab_harness_init_case(struct ktest *t);
void slab_harness_expect_all_returned(struct ktest *t);
/* After the suite. */
void slab_harness_destroy(void);

#endif
