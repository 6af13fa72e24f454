/* The "user" suite: every user program of kind test or crash in the
 * registry (fs/programs.h: the initramfs's /etc/mmlab/programs and any
 * program module a user added) runs as a process from /bin/<name>, one
 * KTAP case each; its output appears as the case's
 * "# " diagnostics (the framework's line prefix). The same programs run on
 * the host's Linux in `make test` (tests/user/), so the errnos they expect
 * are Linux's own.
 *
 * Verdicts: a test program passes by exiting 0, skips with 77, fails
 * otherwise or when killed; a crash program passes only when SIGSEGV kills
 * it (a fault's, or one it sent itself). Either way, every page and slab object the process had must be free
 * again once it has been reaped.
 *
 * Under the "bench" parameter, run_user_benchmarks() runs the bench
 * programs the same way with argv[1] = "--bench". */
#include "tests/kunit.h"
#include "fs/programs.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/slab.h"
#include "tests/bench.h"

static struct kunit_case user_cases[MAX_USER_PROGRAMS + 1];

/* Spreads the programs over the CPUs, so user page tables and their TLB
 * flushes are exercised on every CPU, not just the boot CPU. */
static unsigned next_cpu(void)
{
	static unsigned turn;
	unsigned n = num_online_cpus(), pick = turn++ % n, cpu;
	for_each_online_cpu(cpu)
		if (!pick--)
			return cpu;
	return smp_processor_id();
}

static void run_user_program(struct kunit *test)
{
	const struct user_program *prog = find_user_program(test->name);
	KUNIT_ASSERT_NOT_NULL(test, prog);
	bool crash = !strcmp(prog->kind, "crash");

	struct kunit_resources before;
	struct process_result res;
	int err;
	kunit_resources_take(&before);
	unsigned long kthreads = nr_kthreads(), user_threads = nr_user_threads();
	unsigned long tables = nr_user_pagetable_pages();
	unsigned cpu = next_cpu();
	u64 start = ktime_get_ns();
	bool ran = process_run(test->name, NULL, cpu, &res, &err);
	unsigned long ms = (unsigned long)((ktime_get_ns() - start) / 1000000);
	if (!ran)
		kunit_info(test, "%s could not be started: error %d", test->name, err);
	KUNIT_ASSERT_TRUE(test, ran);

	if (!res.killed) /* a kill has had its one-line report already */
		kunit_info(test, "%s (CPU %u) exited with status %d after %lu ms of guest time", test->name, cpu,
			   res.exit_code, ms);
	/* Everything the process had is free again, its page-table pages,
	 * kernel stacks and task_structs of all its threads included. */
	kunit_expect_resources_back(test, &before);
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables);
	KUNIT_EXPECT_EQ(test, nr_kthreads(), kthreads);
	KUNIT_EXPECT_EQ(test, nr_user_threads(), user_threads);
	if (crash) {
		/* A crash program passes only when SIGSEGV killed it (what the
		 * Linux runners ask too). */
		KUNIT_EXPECT_TRUE(test, res.killed);
		KUNIT_EXPECT_EQ(test, res.signal, SIGSEGV);
		return;
	}
	KUNIT_EXPECT_FALSE(test, res.killed);
	/* A skip's reason is the program's last line, "SKIP: <reason>". */
	if (!res.killed && res.exit_code == 77)
		kunit_skip(test, "%s", !strncmp(res.last_line, "SKIP: ", 6) ? res.last_line + 6
									 : "exit status 77");
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* One case per test or crash program, in the registry's order. */
static void user_prepare(struct kunit_suite *suite)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < nr_user_programs(); i++) {
		const struct user_program *prog = user_program(i);
		if (strcmp(prog->kind, "test") && strcmp(prog->kind, "crash"))
			continue;
		user_cases[n++] = (struct kunit_case){ .run_case = run_user_program, .name = prog->name };
	}
	user_cases[n] = (struct kunit_case){ 0 };
	suite->test_cases = user_cases;
}

static struct kunit_suite user_suite = {
	.name = "user",
	.prepare = user_prepare,
	.test_cases = user_cases,
};
kunit_test_suite(user_suite);

void run_user_benchmarks(void)
{
	for (unsigned int i = 0; i < nr_user_programs(); i++) {
		if (strcmp(user_program(i)->kind, "bench"))
			continue;
		const char *name = user_program(i)->name;
		const char *const argv[] = { name, "--bench", NULL };
		struct process_result res;
		int err;
		pr_info("-- user benchmark %s (a process on CPU %u)\n", name, smp_processor_id());
		if (!process_run(name, argv, smp_processor_id(), &res, &err))
			pr_err("bench: %s could not be started: error %d\n", name, err);
		else if (res.killed || res.exit_code)
			pr_err("bench: %s failed: %s (exit status %d)\n", name,
			       res.killed ? res.reason : "exited", res.exit_code);
	}
}
