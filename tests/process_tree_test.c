/* The process tree (kernel/fork.c, kernel/exit.c, kernel/exit_wait.c),
 * driven by tests/user/aux/process_family.c: a process the kernel starts
 * is the root of its tree (no parent, its own session and group); its
 * children are reaped by its waits in any order of their ends; a child's
 * child is not its to wait for; and whatever it leaves behind when it
 * ends (children spinning, sleeping, waiting, in vfork; grandchildren;
 * zombies, stopped children) is killed and freed by the time
 * process_wait returns, and a
 * program replaced by execve (its children's, then its own) leaves
 * nothing behind either: every
 * page, slab object, task, kernel stack and pid-table entry back. The
 * system calls themselves are checked from user space by
 * tests/user/tests/wait_status.c and process_tree.c. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_process.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/pid.h"
#include "fs/programs.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/printk.h"
#include "mm/page.h"

/* Runs "process_family mode n" on cpu; returns its result. */
static struct process_result run_family(struct kunit *test, const char *mode, int n, unsigned cpu)
{
	if (!find_user_program("process_family"))
		kunit_skip(test, "the ISO has no program process_family");
	char nbuf[8];
	snprintf(nbuf, sizeof(nbuf), "%d", n);
	const char *const argv[] = { "process_family", mode, nbuf, NULL };
	struct process_counts before;
	struct process_result res;
	int err = 0;
	process_counts_take(&before);
	bool ran = process_run("process_family", argv, cpu, &res, &err);
	if (!ran)
		kunit_info(test, "process_family could not start: error %d", err);
	KUNIT_ASSERT_TRUE(test, ran);
	if (res.killed)
		kunit_info(test, "%s %d: killed: %s", mode, n, res.reason);
	expect_process_counts_back(test, &before);
	return res;
}

/* The kernel's process: no parent (getppid 0, as Linux's init), the
 * leader of its session and group, the root of its own tree. Spawned on
 * this CPU, it cannot run before this case sleeps in process_wait. */
static void kernel_process_is_a_root(struct kunit *test)
{
	const struct user_program *m = find_user_program("exit_with");
	if (!m)
		kunit_skip(test, "the ISO has no program exit_with");
	const char *const argv[] = { "exit_with", "0", NULL };
	struct process_spawn_args args = { .name = "exit_with", .path = "/bin/exit_with",
					   .argv = argv,
					   .cpu = smp_processor_id() };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, p->real_parent);
	KUNIT_EXPECT_PTR_EQ(test, p->signal->child_reaper, p);
	KUNIT_EXPECT_EQ(test, p->signal->pgrp, p->tgid);
	KUNIT_EXPECT_EQ(test, p->signal->session, p->tgid);
	KUNIT_EXPECT_TRUE(test, p->signal->leader);
	KUNIT_EXPECT_TRUE(test, list_empty(&p->children));
	KUNIT_EXPECT_EQ(test, p->signal->nr_tree, 0);
	struct process_result res;
	process_wait(p, &res);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* Children that end in the order they were made, and in the reverse:
 * each wait4(-1) takes the one that ended, with its status. */
static void children_reaped_in_any_order(struct kunit *test)
{
	static const char *const modes[] = { "reap_up", "reap_down" };
	for (unsigned i = 0; i < ARRAY_SIZE(modes); i++) {
		struct process_result res = run_family(test, modes[i], 16, i ? test_other_cpu_or_this() : smp_processor_id());
		KUNIT_EXPECT_FALSE(test, res.killed);
		KUNIT_EXPECT_EQ(test, res.exit_code, 16);
	}
}

/* A grandchild is its parent's to wait for, not ours: ECHILD. */
static void wait_on_another_process_child_refused(struct kunit *test)
{
	struct process_result res = run_family(test, "foreign", 1, smp_processor_id());
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* Zombies nobody waited for go with their tree's root. */
static void zombies_freed_with_the_root(struct kunit *test)
{
	struct process_result res = run_family(test, "zombies", 8, test_other_cpu_or_this());
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* The root ends while its children spin, sleep, wait for their own
 * children or sleep in vfork, and its grandchildren spin: all of them
 * are killed and freed before process_wait returns. */
static void root_exit_kills_and_frees_the_tree(struct kunit *test)
{
	static const int sizes[] = { 1, 4, 8 };
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct process_result res =
			run_family(test, "leave", sizes[i], i & 1 ? test_other_cpu_or_this() : smp_processor_id());
		KUNIT_EXPECT_FALSE(test, res.killed);
		KUNIT_EXPECT_EQ(test, res.exit_code, 0);
	}
}

/* The root ends while its children are stopped (SIGSTOP, seen by its
 * wait4(WUNTRACED)): the SIGKILL of the tree's end wakes them from
 * TASK_STOPPED, and they are freed as any others. */
static void stopped_children_killed_with_the_root(struct kunit *test)
{
	struct process_result res = run_family(test, "stopped", 4, test_other_cpu_or_this());
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* Children that exec (vfork, then execve of /bin/exit_with), and then
 * the kernel's own process: its result is the new program's, and every
 * old and new address space is freed. */
static void exec_replaces_the_program(struct kunit *test)
{
	if (!find_user_program("exit_with"))
		kunit_skip(test, "the ISO has no program exit_with");
	struct process_result res = run_family(test, "exec", 4, test_other_cpu_or_this());
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 4);
	KUNIT_EXPECT_STREQ(test, res.last_line, "exit_with: argc 2 [exit_with] [4]");
	/* By a thread that is not the leader: it becomes the leader, the old
	 * leader's task (the one process_spawn gave) is kept until the end. */
	res = run_family(test, "exec_thread", 5, smp_processor_id());
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 5);
}

static struct kunit_case process_tree_cases[] = {
	KUNIT_CASE(kernel_process_is_a_root),
	KUNIT_CASE(children_reaped_in_any_order),
	KUNIT_CASE(wait_on_another_process_child_refused),
	KUNIT_CASE(zombies_freed_with_the_root),
	KUNIT_CASE(root_exit_kills_and_frees_the_tree),
	KUNIT_CASE(stopped_children_killed_with_the_root),
	KUNIT_CASE(exec_replaces_the_program),
	{}
};

static struct kunit_suite process_tree_suite = {
	.name = "process_tree",
	.test_cases = process_tree_cases,
};
kunit_test_suite(process_tree_suite);
