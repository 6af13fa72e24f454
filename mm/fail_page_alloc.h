/* Fault injection for the page allocator: Linux's fail_page_alloc
 * (mm/fail_page_alloc.c on lib/fault-inject.c), so that tests can make
 * allocations fail and watch the callers clean up.
 *
 * Boot option fail_page_alloc=<interval>,<probability>,<space>,<times>
 * (Linux's setup_fault_attr order): every interval-th eligible allocation
 * fails with probability percent, once space bytes have been allocated,
 * at most times times (-1: no limit). Armed at late init, before the tests
 * and the boot programs. The knobs of Linux's debugfs directory are the
 * fields of struct fault_attr below (tests set them directly):
 * ignore-gfp-wait (defaults to on, as Linux: allocations that may reclaim
 * are not failed), ignore-gfp-highmem (no highmem here), min-order, and
 * mmlab's only_task (NULL: every task), which keeps a test's injection to
 * its own thread. __GFP_NOFAIL allocations are never failed (Linux's
 * should_fail_alloc_page).
 *
 * Locking: the counters are updated with atomics; a test changes the
 * other fields while nothing else is armed (fault_attr_arm). */
#ifndef MM_FAIL_PAGE_ALLOC_H
#define MM_FAIL_PAGE_ALLOC_H

#include "kernel/types.h"
#include "mm/gfp.h"

struct task_struct;

struct fault_attr {
	unsigned long probability; /* percent, 0..100 */
	unsigned long interval;    /* fail only every interval-th candidate (1: each) */
	long times;                /* failures left; -1: unlimited */
	long space;                /* bytes to let through first */
	unsigned long count;       /* candidates seen (for interval) */
	bool ignore_gfp_reclaim;   /* "ignore-gfp-wait" */
	unsigned int min_order;
	struct task_struct *only_task;
	unsigned long failures;    /* injected so far */
};

extern struct fault_attr fail_page_alloc;
/* Whether any injection is set up: the allocator's only cost when off. */
extern bool fail_page_alloc_armed;

/* Linux's should_fail_alloc_page: true if this allocation is to fail. */
bool should_fail_alloc_page(gfp_t gfp, unsigned int order);
/* Parses "<interval>,<probability>,<space>,<times>" into attr: 0 or -EINVAL. */
int setup_fault_attr(struct fault_attr *attr, const char *str);
/* Arms or disarms fail_page_alloc (tests). */
void fault_attr_arm(bool on);

#endif
