/* See tests/test_process.h. */
#include "tests/test_process.h"
#include "kernel/pid.h"
#include "kernel/process.h"
#include "kernel/sched.h"

void process_counts_take(struct process_counts *c)
{
	kunit_resources_take(&c->res);
	c->kthreads = nr_kthreads();
	c->user_threads = nr_user_threads();
	c->pids = nr_pids();
	c->pids_allocated = nr_pids_allocated();
	c->processes = nr_processes();
}

void expect_process_counts_back(struct kunit *test, const struct process_counts *before)
{
	kunit_expect_resources_back(test, &before->res);
	KUNIT_EXPECT_EQ(test, nr_kthreads(), before->kthreads); /* task_structs + kernel stacks */
	KUNIT_EXPECT_EQ(test, nr_user_threads(), before->user_threads);
	KUNIT_EXPECT_EQ(test, nr_pids(), before->pids);
	KUNIT_EXPECT_EQ(test, nr_pids_allocated(), before->pids_allocated);
	KUNIT_EXPECT_EQ(test, nr_processes(), before->processes);
}
