/* Thread groups (kernel/fork.c, kernel/exit.c, kernel/pid.c), driven by
 * tests/user/aux/thread_group.c: a process of 1..8 hand-made threads ends
 * by exit_group while the others spin in user mode or sleep, by its
 * leader's exit before the others', by a fault in one thread, or by
 * exit_group from a thread other than the leader; each time the result is
 * the one Linux reports and every page, slab object, kernel stack, task and
 * pid-table entry the threads had is back once process_wait returns. The
 * clone/clone3/signal/rlimit system calls themselves are checked from user
 * space by tests/user/tests/threads.c (the "user" suite). */
#include "tests/kunit.h"
#include "tests/test_process.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "fs/programs.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/slab.h"

static unsigned other_cpu(void)
{
	unsigned cpu;
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			return cpu;
	return smp_processor_id();
}

/* Runs "thread_group mode n" on cpu; fills *res. */
static void run_group(struct kunit *test, const char *mode, int n, unsigned cpu, struct process_result *res)
{
	if (!find_user_program("thread_group"))
		kunit_skip(test, "the ISO has no program thread_group");
	char nbuf[8];
	snprintf(nbuf, sizeof(nbuf), "%d", n);
	const char *const argv[] = { "thread_group", mode, nbuf, NULL };
	struct process_counts before;
	int err = 0;
	process_counts_take(&before);
	bool ran = process_run("thread_group", argv, cpu, res, &err);
	if (!ran)
		kunit_info(test, "thread_group could not start: error %d", err);
	KUNIT_ASSERT_TRUE(test, ran);
	if (res->killed)
		kunit_info(test, "%s %d: killed: %s", mode, n, res->reason);
	else
		kunit_info(test, "%s %d: exit status %d (last line: %s)", mode, n, res->exit_code, res->last_line);
	expect_process_counts_back(test, &before);
}

static void exit_group_ends_spinning_threads(struct kunit *test)
{
	static const int sizes[] = { 1, 2, 8 };
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct process_result res;
		run_group(test, "spin", sizes[i], i % 2 ? other_cpu() : smp_processor_id(), &res);
		KUNIT_EXPECT_FALSE(test, res.killed);
		KUNIT_EXPECT_EQ(test, res.exit_code, 7);
	}
}

static void exit_group_ends_sleeping_threads(struct kunit *test)
{
	struct process_result res;
	run_group(test, "sleep", 4, other_cpu(), &res);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 9);
}

/* The leader's exit ends only the leader; its set_tid_address word is
 * cleared (the others wait for that), and the last thread's status is the
 * process's. */
static void leader_exit_leaves_the_others_running(struct kunit *test)
{
	struct process_result res;
	run_group(test, "leader_exit", 4, smp_processor_id(), &res);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 3);
	KUNIT_EXPECT_STREQ(test, res.last_line, "thread_group: leader_exit with 4 threads");
}

static void fault_in_one_thread_kills_the_group(struct kunit *test)
{
	static char captured[2048];
	struct printk_capture cap;
	struct process_result res;
	/* run_group skips without the module: before the capture, which a
	 * skipped case would leave open. */
	if (!find_user_program("thread_group"))
		kunit_skip(test, "the ISO has no program thread_group");
	printk_capture_begin(&cap, captured, sizeof(captured));
	run_group(test, "fault", 4, other_cpu(), &res);
	printk_capture_end(&cap);
	KUNIT_EXPECT_TRUE(test, res.killed);
	KUNIT_EXPECT_NOT_NULL(test, strstr(res.reason, "at address 0x0 "));
	/* One report, naming the thread that faulted. */
	const char *line = strstr(captured, "(thread_group) killed: ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_EXPECT_NOT_NULL(test, strstr(line, "[in thread "));
	KUNIT_EXPECT_NULL(test, strstr(line + 1, "(thread_group) killed: "));
}

static void exit_group_from_another_thread(struct kunit *test)
{
	struct process_result res;
	run_group(test, "thread_exit_group", 3, smp_processor_id(), &res);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 11);
}

/* The pid table: a live thread is found with a reference, which keeps its
 * task_struct until put (process_wait waits for it); an exited one is not
 * found. The process is spawned on this CPU, so it cannot run (the kernel
 * is not preemptible) before this case sleeps. */
static void find_get_task_by_vpid_holds_the_task(struct kunit *test)
{
	const struct user_program *m = find_user_program("thread_group");
	if (!m)
		kunit_skip(test, "the ISO has no program thread_group");
	const char *const argv[] = { "thread_group", "spin", "2", NULL };
	struct process_spawn_args args = { .name = "thread_group", .path = "/bin/thread_group",
					   .argv = argv,
					   .cpu = smp_processor_id() };
	struct process_counts before;
	process_counts_take(&before);
	KUNIT_EXPECT_NULL(test, find_get_task_by_vpid(0));
	KUNIT_EXPECT_NULL(test, find_get_task_by_vpid(-1));
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, p);
	struct task_struct *found = find_get_task_by_vpid(p->pid);
	KUNIT_EXPECT_PTR_EQ(test, found, p);
	KUNIT_EXPECT_EQ(test, p->tgid, p->pid);
	KUNIT_EXPECT_PTR_EQ(test, p->group_leader, p);
	if (found) {
		/* Wait for its end (the leader's task has left its stack). */
		wait_for_completion(&p->exited);
		KUNIT_EXPECT_NULL(test, find_get_task_by_vpid(p->pid));
		KUNIT_EXPECT_EQ(test, READ_ONCE(p->usage), 2); /* the reaper's and ours */
		put_task_struct(found);
	}
	struct process_result res;
	process_wait(p, &res);
	KUNIT_EXPECT_EQ(test, res.exit_code, 7);
	expect_process_counts_back(test, &before);
}

/* An interruptible wait ends with -EINTR once the waiter's group is
 * exiting (what a futex wait or nanosleep sees when exit_group zaps its
 * thread), and with 0 when its condition holds. The case's own task plays
 * the thread, with a group of its own for the moment. */
static void wait_event_interruptible_ends_on_group_exit(struct kunit *test)
{
	static struct signal_struct sig;
	static DECLARE_WAIT_QUEUE_HEAD(wq);
	struct task_struct *me = current;
	int never = 0, always = 1;
	memset(&sig, 0, sizeof(sig));
	me->signal = &sig;
	int ok_ret = wait_event_interruptible(wq, READ_ONCE(always));
	sig.group_exit = true;
	bool pending = signal_pending(me) && fatal_signal_pending(me);
	int intr_ret = wait_event_interruptible(wq, READ_ONCE(never));
	me->signal = NULL;
	KUNIT_EXPECT_EQ(test, ok_ret, 0);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_EQ(test, intr_ret, -EINTR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(me->__state), TASK_RUNNING);
	KUNIT_EXPECT_FALSE(test, signal_pending(me)); /* a kernel thread never has one */
}

static struct kunit_case thread_cases[] = {
	KUNIT_CASE(wait_event_interruptible_ends_on_group_exit),
	KUNIT_CASE(exit_group_ends_spinning_threads),
	KUNIT_CASE(exit_group_ends_sleeping_threads),
	KUNIT_CASE(leader_exit_leaves_the_others_running),
	KUNIT_CASE(fault_in_one_thread_kills_the_group),
	KUNIT_CASE(exit_group_from_another_thread),
	KUNIT_CASE(find_get_task_by_vpid_holds_the_task),
	{}
};

static struct kunit_suite thread_suite = {
	.name = "thread",
	.test_cases = thread_cases,
};
kunit_test_suite(thread_suite);
