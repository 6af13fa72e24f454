/* What a suite that runs processes expects back once process_wait has
 * returned: pages and slab objects (kunit_resources), task_structs with
 * their kernel stacks, user threads, pid-table entries, ids held and
 * processes. One
 * helper for the suites that count them (thread, process_tree). */
#ifndef TESTS_TEST_PROCESS_H
#define TESTS_TEST_PROCESS_H

#include "tests/kunit.h"

struct process_counts {
	struct kunit_resources res;
	unsigned long kthreads, user_threads, pids, pids_allocated, processes;
};

void process_counts_take(struct process_counts *c);
void expect_process_counts_back(struct kunit *test, const struct process_counts *before);

#endif
