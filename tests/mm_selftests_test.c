/* The "mm_selftests" suite: Linux's own memory-management selftests
 * (tools/testing/selftests/mm of Linux 6.12, built unmodified as static
 * programs by tests/mm_selftests/), one KTAP case per program of kind
 * "selftest" in the registry (fs/programs.h): the mm-selftests ISO's
 * archive holds them in /bin with manifest lines "selftest <name>
 * [args...]", the arguments Linux's run_vmtests.sh gives. Only the machine
 * that runs them (tests/topologies/mm-selftests.topo) boots that ISO; on
 * every other one there is no such program and the suite has no case, so
 * it is not printed at all.
 *
 * A program's own TAP output (kselftest's "ok 1 ...", "# Totals: ...")
 * appears as the case's "# " diagnostics. Verdicts are kselftest's exit
 * codes: 0 (KSFT_PASS) passes, 4 (KSFT_SKIP) skips with the program's last
 * line as the reason, anything else fails, as does a kill (a fault nobody
 * handled) or running past mm_selftests.timeout seconds (the program is
 * then killed). Either way every page and slab object the process had
 * must be free again once it has been reaped.
 *
 * A line may end with " :: <what mmlab lacks>" (the build's list of
 * programs that need a feature mmlab does not have yet): such a program's
 * failure is reported as a skip naming the feature, so that the suite
 * stays green; if it passes, the case passes and says its entry can go.
 *
 * Swap: Linux's run_vmtests.sh runs the programs on whatever machine it
 * is given, and khugepaged's four MADV_PAGEOUT cases need a swap area
 * there. The programs named by mm_selftests.swap=NAME[,NAME...] run with
 * the machine's scratch disk (/dev/vda, made a swap area by the runner:
 * disk-format = swap in the topology) on as swap: swapon before the
 * program, swapoff once it has been reaped, so every other program runs
 * without swap, as before.
 *
 * Time: each program may run mm_selftests.timeout seconds, the time a
 * program of a fixed size gets. A program whose work grows with the
 * machine's memory (compaction_test mlocks 80% of the free memory and
 * then asks for huge pages worth 40% of it) is named in
 * mm_selftests.timeout_per_gib=NAME[,NAME...] and gets that time once more
 * per GiB of memory (MemTotal, rounded up): the fixed part plus a part per
 * GiB it fills (docs/mm_selftests.md has the measurements).
 *
 * Not run: a program named in mm_selftests.skip=NAME[,NAME...] is
 * reported as a skip without running, with its entry in the list of
 * what mmlab lacks as the reason. It is for a program whose length is a
 * fixed time rather than work (migration: six cases of 20 s each),
 * which the limit above could only stop: the topology names it, and an
 * empty mm_selftests.skip= with a longer mm_selftests.timeout on the
 * command line runs it. */
#include "tests/kunit.h"
#include "kernel/time.h"
#include "arch/x86_64/page.h"
#include "fs/programs.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "mm/swapfile.h"

#define KSFT_PASS 0
#define KSFT_SKIP 4
#define SELFTEST_MAX_ARGS 8

static int selftest_timeout_s = 60;
kernel_param_int("mm_selftests.timeout", selftest_timeout_s, 1, 3600,
		 "seconds one Linux mm selftest may run before it is killed");

static char selftest_swap[160];
kernel_param_string("mm_selftests.swap", selftest_swap,
		    "the mm selftests (NAME[,NAME...]) run with /dev/vda, the scratch disk, on as swap");
#define SELFTEST_SWAP_DISK "/dev/vda"
static char selftest_per_gib[160];
kernel_param_string("mm_selftests.timeout_per_gib", selftest_per_gib,
		    "the mm selftests (NAME[,NAME...]) whose time limit is mm_selftests.timeout once more per GiB of memory");

static char selftest_skip[160];
kernel_param_string("mm_selftests.skip", selftest_skip,
		    "the mm selftests (NAME[,NAME...]) reported as skipped without running");

/* Whether name is in list (NAME[,NAME...]). */
static bool selftest_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

struct selftest {
	char name[40];
	char args[160]; /* the line's words after the name, split in place */
	const char *lacks; /* after " :: ", or NULL */
	const char *argv[SELFTEST_MAX_ARGS + 2];
};

static struct selftest selftests[MAX_USER_PROGRAMS];
static struct kunit_case selftest_cases[MAX_USER_PROGRAMS + 1];

static const struct selftest *selftest_named(const char *name)
{
	for (unsigned i = 0; selftest_cases[i].name; i++)
		if (!strcmp(selftests[i].name, name))
			return &selftests[i];
	return NULL;
}

/* The reason of a skip: the last line, without kselftest's "ok N" / "# ". */
static const char *skip_reason(const char *line)
{
	static char buf[128];
	strlcpy(buf, line, sizeof(buf));
	char *p = buf;
	while (*p == '#' || *p == ' ')
		p++;
	for (char *q = p; *q; q++)
		if (*q == '#')
			*q = ' ';
	return *p ? p : "exit status 4 (KSFT_SKIP)";
}

static void run_selftest(struct kunit *test)
{
	const struct selftest *st = selftest_named(test->name);
	KUNIT_ASSERT_NOT_NULL(test, st);
	if (selftest_listed(selftest_skip, st->name))
		kunit_skip(test, "not run (mm_selftests.skip): %s", st->lacks ? st->lacks : "named on the command line");

	struct kunit_resources before;
	kunit_resources_take(&before);
	/* After the snapshot: swapoff gives back what swapon took (the slot
	 * map) and reads back what the program left in swap, before the
	 * pages are counted. */
	bool swap = selftest_listed(selftest_swap, st->name);
	if (swap) {
		long err = ksys_swapon(SELFTEST_SWAP_DISK, 0);
		if (err)
			kunit_info(test, "swapon %s: error %ld (mm_selftests.swap needs the topology's disk-format = swap)",
				   SELFTEST_SWAP_DISK, err);
		KUNIT_ASSERT_EQ(test, err, 0l);
		kunit_info(test, "%s runs with %s on as swap (mm_selftests.swap)", st->name, SELFTEST_SWAP_DISK);
	}
	unsigned cpu = smp_processor_id();
	char path[80];
	snprintf(path, sizeof(path), "/bin/%s", st->name);
	struct process_spawn_args args = {
		.name = st->name,
		.path = path,
		.argv = st->argv,
		.cpu = cpu,
	};
	int err;
	struct task_struct *p = process_spawn(&args, &err);
	if (!p) {
		kunit_info(test, "%s could not be started: error %d", st->name, err);
		if (swap)
			ksys_swapoff(SELFTEST_SWAP_DISK);
	}
	KUNIT_ASSERT_NOT_NULL(test, p);
	struct process_result res;
	unsigned long limit_s = (unsigned long)selftest_timeout_s;
	if (selftest_listed(selftest_per_gib, st->name)) {
		unsigned long gib = (totalram_pages() + (1ul << (30 - PAGE_SHIFT)) - 1) >> (30 - PAGE_SHIFT);
		limit_s *= 1 + gib;
		kunit_info(test, "%s may run %lu s: %d s, and %d s per GiB of %lu GiB (mm_selftests.timeout_per_gib)",
			   st->name, limit_s, selftest_timeout_s, selftest_timeout_s, gib);
	}
	u64 start = ktime_get_ns();
	bool in_time = process_wait_timeout(p, limit_s * 1000, &res);
	unsigned long ms = (unsigned long)((ktime_get_ns() - start) / 1000000);
	if (swap) {
		long off = ksys_swapoff(SELFTEST_SWAP_DISK);
		if (off)
			kunit_info(test, "swapoff %s: error %ld", SELFTEST_SWAP_DISK, off);
		KUNIT_EXPECT_EQ(test, off, 0l);
	}
	if (!in_time)
		kunit_info(test, "%s: still running after %lu s (mm_selftests.timeout): killed", st->name, limit_s);
	else if (!res.killed)
		kunit_info(test, "%s exited with status %d after %lu ms of guest time", st->name, res.exit_code, ms);
	kunit_expect_resources_back(test, &before);
	bool passed = in_time && !res.killed && res.exit_code == KSFT_PASS;
	if (st->lacks && passed)
		kunit_info(test, "%s passes: its entry in the list of what mmlab lacks can go", st->name);
	if (st->lacks && !passed && !(in_time && !res.killed && res.exit_code == KSFT_SKIP))
		kunit_skip(test, "mmlab lacks %s (%s %d)", st->lacks,
			   !in_time ? "timed out after s" : res.killed ? "killed by signal" : "exit status",
			   !in_time ? (int)limit_s : res.killed ? res.signal : res.exit_code);
	KUNIT_EXPECT_TRUE(test, in_time);
	KUNIT_EXPECT_FALSE(test, res.killed);
	if (in_time && !res.killed && res.exit_code == KSFT_SKIP)
		kunit_skip(test, "%s", skip_reason(res.last_line));
	KUNIT_EXPECT_EQ(test, res.exit_code, KSFT_PASS);
}

/* One case per "selftest" program, in the registry's order. */
static void selftests_prepare(struct kunit_suite *suite)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < nr_user_programs(); i++) {
		const struct user_program *prog = user_program(i);
		if (strcmp(prog->kind, "selftest"))
			continue;
		struct selftest *st = &selftests[n];
		strlcpy(st->name, prog->name, sizeof(st->name));
		strlcpy(st->args, prog->args, sizeof(st->args));
		char *sep = !strncmp(st->args, ":: ", 3) ? st->args : strstr(st->args, " :: ");
		st->lacks = NULL;
		if (sep) {
			st->lacks = sep + (sep == st->args ? 3 : 4);
			*sep = 0; /* the arguments end there */
		}
		unsigned argc = 0;
		st->argv[argc++] = st->name;
		for (char *w = st->args; *w && argc <= SELFTEST_MAX_ARGS;) {
			while (*w == ' ')
				*w++ = 0;
			if (!*w)
				break;
			st->argv[argc++] = w;
			while (*w && *w != ' ')
				w++;
		}
		st->argv[argc] = NULL;
		selftest_cases[n] = (struct kunit_case){ .run_case = run_selftest, .name = st->name };
		n++;
	}
	selftest_cases[n] = (struct kunit_case){ 0 };
	suite->test_cases = selftest_cases;
}

static struct kunit_suite selftests_suite = {
	.name = "mm_selftests",
	.prepare = selftests_prepare,
	.test_cases = selftest_cases,
};
kunit_test_suite(selftests_suite);
