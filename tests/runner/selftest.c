/*
 * selftest.c - host unit tests of the KTAP parser and judge (ktap.c, judge.c).
 *
 * Each check judges one crafted serial log from tests/runner/logs/ with a
 * given exit status and asserts the verdict, its reason category (and a
 * substring of the reason text), the pass/fail/skip counts and, optionally,
 * that a named case exists with a given status.  Every log is judged twice,
 * once fed as a single buffer and once byte by byte, and both verdicts must
 * agree, which checks the streaming line assembler.  It also checks the
 * judge's invariants: one event per counted case, and failed >= 1 whenever
 * the verdict is a failure.
 *
 * It also checks kunit_tool_judge() (the --kunit-tool check) on captured
 * "kunit.py parse" outputs, logs/kunit_tool_*.out, and ktap_add_check(),
 * and the judge of boots that must panic (ktap_expect_panic(), topology
 * "expect = panic") on logs/panic_*.log, which are real serial output of
 * crash=stack-overflow boots (CRLF, ANSI escapes) and edited copies.
 *
 * A second suite, "runner_topology", checks the .topo reader (topology.c)
 * on files it writes into a temporary folder: the keys "kernel" and "base"
 * (the Linux topologies), their errors, tests/topologies/linux-ring.topo
 * against default.topo, the QEMU command line of a Linux boot (qemu.c),
 * and that the QEMU a boot execs has transparent huge pages off.
 *
 * A third, "runner_session" (session_selftest.c), checks the session
 * script parser and a session run driven without a machine (session.c).
 *
 * Output is KTAP (suites "runner_judge", "runner_topology" and
 * "runner_session"), so
 * mmlab-runner can run this program with --host.  Exit status: 0 if every
 * check passed, 1 otherwise.
 *
 * Usage: runner-selftest [LOG_DIR]   (default: the logs/ directory next to
 * this source file, i.e. tests/runner/logs when built from the repo root;
 * tests/topologies is found as LOG_DIR/../../topologies)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"
#include "jobs.h"
#include "ktap.h"
#include "session_selftest.h"
#include "kunit_tool.h"
#include "options.h"
#include "qemu.h"
#include "topology.h"

struct check {
	const char *name;
	const char *log;
	enum ktap_kind kind;
	int exit_status;
	bool timed_out;
	/* expectations */
	bool pass;
	enum ktap_reason reason;
	int passed, failed, skipped;
	const char *reason_has; /* substring of the reason text, or NULL */
	const char *case_name;  /* "suite.case" or "boot" that must exist, or NULL */
	enum ktap_status case_status;
	const char *case_diag_has; /* substring of that case's diagnostics, or NULL */
};

#define Q KTAP_KIND_QEMU
#define H KTAP_KIND_HOST

static const struct check checks[] = {
	{"all_pass", "all_pass.log", Q, 33, false, true, KTAP_R_NONE, 4, 0, 0, NULL,
	 "acpi_topology.cpus_match", KTAP_PASS, NULL},
	{"garbage_and_ansi_before_ktap", "garbage_prefix.log", Q, 33, false, true, KTAP_R_NONE, 2, 0,
	 0, NULL, "printk.percent_n", KTAP_PASS, NULL},
	{"skip_counts_as_skipped", "skip.log", Q, 33, false, true, KTAP_R_NONE, 2, 0, 1, NULL,
	 "acpi_topology.slit_present", KTAP_SKIP, NULL},
	{"failing_case_exit_35_is_consistent_fail", "fail_case.log", Q, 35, false, false,
	 KTAP_R_TESTS_FAILED, 2, 1, 1, "1 of 4", "acpi_topology.cpus_match", KTAP_FAIL,
	 "Expected cpus == 4"},
	{"panic_mid_suite", "panic_mid_suite.log", Q, 37, false, false, KTAP_R_PANIC, 1, 2, 0,
	 "kernel panic (exit 37) in suite vmm case 2", "vmm.#2", KTAP_FAIL, "KERNEL PANIC"},
	{"hang_is_timeout", "hang.log", Q, KTAP_EXIT_SIGNAL(9), true, false, KTAP_R_TIMEOUT, 3, 2, 0,
	 "timed out after 60 s in suite smp case 3", "smp.#4", KTAP_FAIL, NULL},
	{"crash_with_trailing_garbage", "crash_garbage.log", Q, 1, false, false, KTAP_R_CRASH, 1, 1,
	 0, "exit status 1 in suite smp case 2", "smp.#2", KTAP_FAIL, "triple fault"},
	{"missing_top_level_plan", "no_plan.log", Q, 33, false, false, KTAP_R_NO_PLAN, 1, 1, 0,
	 "missing top-level plan", "boot", KTAP_FAIL, NULL},
	{"missing_suite_result", "missing_suite.log", Q, 33, false, false, KTAP_R_SUITE_MISSING, 1,
	 1, 0, "suite 2 of 2 missing", "boot", KTAP_FAIL, NULL},
	{"missing_case", "missing_case.log", Q, 33, false, false, KTAP_R_CASE_MISSING, 2, 1, 0,
	 "plan 1..3 but only 2 results", "acpi_topology.#3", KTAP_FAIL, NULL},
	{"all_ok_but_exit_35", "all_pass.log", Q, 35, false, false, KTAP_R_EXIT_MISMATCH, 4, 1, 0,
	 "exit code disagrees with KTAP", "boot", KTAP_FAIL, NULL},
	{"all_ok_but_exit_1", "all_pass.log", Q, 1, false, false, KTAP_R_CRASH, 4, 1, 0,
	 "exit status 1", "boot", KTAP_FAIL, NULL},
	{"all_ok_but_exit_0", "all_pass.log", Q, 0, false, false, KTAP_R_CRASH, 4, 1, 0,
	 "exit status 0", "boot", KTAP_FAIL, NULL},
	{"failing_case_but_exit_33", "fail_case.log", Q, 33, false, false, KTAP_R_EXIT_MISMATCH, 2,
	 1, 1, "exit code disagrees with KTAP", NULL, KTAP_PASS, NULL},
	{"no_ktap_exit_33", "no_ktap.log", Q, 33, false, false, KTAP_R_NO_KTAP, 0, 1, 0,
	 "no KTAP output", "boot", KTAP_FAIL, "no test suites linked in"},
	{"panic_before_ktap", "panic_before_ktap.log", Q, 37, false, false, KTAP_R_PANIC, 0, 1, 0,
	 "before any KTAP output", "boot", KTAP_FAIL, "no multiboot2 memory map"},
	{"kernel_log_lines_inside_suite", "interleaved.log", Q, 33, false, true, KTAP_R_NONE, 3, 0, 0,
	 NULL, "smp.ipi_ping", KTAP_PASS, "ok all APs up"},
	{"printk_timestamps_stripped", "timestamps.log", Q, 33, false, true, KTAP_R_NONE, 2, 0, 0,
	 NULL, "printk.width", KTAP_PASS, NULL},
	{"nested_parameterised_cases", "nested_params.log", Q, 33, false, true, KTAP_R_NONE, 3, 0, 1,
	 NULL, "pmm.alloc_order/order 9", KTAP_SKIP, NULL},
	/* A parameterised case as the kernel prints it (tests/kunit.c): each
	 * parameter is a case "case/description" and counts once; the
	 * case's own result line and its "# case: pass:..." line count
	 * nothing; a failed parameter's diagnostics are its own. */
	{"nested_parameter_fails_with_its_diagnostics", "nested_params_fail.log", Q, 35, false, false,
	 KTAP_R_TESTS_FAILED, 3, 1, 1, "1 of 5",
	 "pt_reclaim.dontneed_workload/refcount_workload_ends_within_4k_even_unaligned", KTAP_FAIL,
	 "mm->nr_ptes == 1 (0x1)"},
	{"nested_parameter_skipped_keeps_its_reason", "nested_params_fail.log", Q, 35, false, false,
	 KTAP_R_TESTS_FAILED, 3, 1, 1, NULL,
	 "pt_reclaim.dontneed_workload/off_mode_workload_keeps_every_table", KTAP_SKIP, NULL},
	{"nested_parameter_passed", "nested_params_fail.log", Q, 35, false, false,
	 KTAP_R_TESTS_FAILED, 3, 1, 1, NULL,
	 "pt_reclaim.dontneed_workload/pmd_extension_workload_ends_within_4k", KTAP_PASS, NULL},
	/* A case reported ok although one of its parameters failed. */
	{"nested_parameter_failed_but_case_ok", "nested_params_mismatch.log", Q, 35, false, false,
	 KTAP_R_BAD_STRUCTURE, 2, 1, 0, "reported pass but a subtest failed", NULL, KTAP_PASS, NULL},
	/* Every parameter skipped: the case is skipped, nothing fails; a
	 * parameterised case without parameters is one skipped case. */
	{"nested_parameters_all_skipped", "nested_params_skipped.log", Q, 33, false, true,
	 KTAP_R_NONE, 1, 0, 3, NULL, "mm_smp.faults_from_every_cpu/faults_on_the_same_pages_from_every_cpu",
	 KTAP_SKIP, NULL},
	{"nested_case_without_parameters", "nested_params_skipped.log", Q, 33, false, true,
	 KTAP_R_NONE, 1, 0, 3, NULL, "mm_smp.no_params", KTAP_SKIP, NULL},
	{"out_of_order_numbers", "out_of_order.log", H, 0, false, false, KTAP_R_BAD_STRUCTURE, 2, 1,
	 0, "out of order", "boot", KTAP_FAIL, NULL},
	{"suite_not_ok_without_failed_case", "suite_mismatch.log", H, 1, false, false,
	 KTAP_R_BAD_STRUCTURE, 2, 1, 0, "reported not ok but no case failed", "boot", KTAP_FAIL,
	 NULL},
	{"host_exit_0_all_ok", "host_pass.log", H, 0, false, true, KTAP_R_NONE, 1, 0, 1, NULL,
	 "host_bitmap.find_first", KTAP_SKIP, NULL},
	{"host_exit_0_with_not_ok", "host_fail.log", H, 0, false, false, KTAP_R_EXIT_MISMATCH, 1, 1,
	 0, "exit code disagrees with KTAP", "host_bitmap.find_first", KTAP_FAIL, "expected 3"},
	{"host_exit_1_with_not_ok", "host_fail.log", H, 1, false, false, KTAP_R_TESTS_FAILED, 1, 1,
	 0, NULL, NULL, KTAP_PASS, NULL},
	{"host_exit_1_all_ok", "host_pass.log", H, 1, false, false, KTAP_R_EXIT_MISMATCH, 1, 1, 1,
	 "exit code disagrees with KTAP", "boot", KTAP_FAIL, NULL},
	{"host_killed_by_signal", "host_pass.log", H, KTAP_EXIT_SIGNAL(11), false, false,
	 KTAP_R_CRASH, 1, 1, 1, "killed by signal 11", "boot", KTAP_FAIL, NULL},
	{"host_exit_33_is_crash", "host_pass.log", H, 33, false, false, KTAP_R_CRASH, 1, 1, 1, NULL,
	 NULL, KTAP_PASS, NULL},
	/* A filter that matches nothing: the kernel exits 35; an older one
	 * exited 33, "all passed". Both fail as a run of nothing. */
	{"zero_cases_exit_35", "no_tests.log", Q, 35, false, false, KTAP_R_NO_TESTS, 0, 1, 0,
	 "no test case ran", "boot", KTAP_FAIL, "0 tests run"},
	{"zero_cases_exit_33_is_not_a_pass", "no_tests.log", Q, 33, false, false, KTAP_R_NO_TESTS, 0,
	 1, 0, "no test case ran", "boot", KTAP_FAIL, NULL},
};

/* Boots that must panic: the check plus the expected lines (NULL-terminated,
 * as in tests/topologies/crash-stack-overflow.topo). */
struct panic_check {
	struct check c;
	const char *const *expect;
};

static const char *const so_lines[] = {
	"Kernel panic: unhandled exception in kernel mode", "double fault (#DF), vector 8",
	"RIP: 0010:", "RAX:", "R15:",
	"RSP is in the boot stack's guard page: kernel stack overflow", "Call trace:",
	"recurse+0x", "repeated", "start_kernel+0x", "---[ end Kernel panic ]---", NULL};
static const char *const no_lines[] = {NULL};

static const struct panic_check panic_checks[] = {
	{{"panic_report_complete", "panic_report.log", Q, 37, false, true, KTAP_R_NONE, 1, 0, 0,
	  NULL, "panic.report", KTAP_PASS, NULL}, so_lines},
	{{"panic_report_exit_37_no_lines_required", "panic_report.log", Q, 37, false, true,
	  KTAP_R_NONE, 1, 0, 0, NULL, "panic.report", KTAP_PASS, NULL}, no_lines},
	{{"panic_report_missing_line", "panic_report_missing.log", Q, 37, false, false,
	  KTAP_R_PANIC_REPORT, 0, 1, 0,
	  "panic report lacks: RSP is in the boot stack's guard page: kernel stack overflow",
	  "panic.report", KTAP_FAIL, "  missing: RSP is in the boot stack's guard page"}, so_lines},
	{{"panic_report_out_of_order", "panic_report_out_of_order.log", Q, 37, false, false,
	  KTAP_R_PANIC_REPORT, 0, 1, 0, "(out of order: it appears only on or before the line "
	  "matching 'R15:')", "panic.report", KTAP_FAIL,
	  "not reached (follows a missing line, present in the log): Call trace:"}, so_lines},
	{{"panic_expected_got_clean_exit_33", "panic_expected_clean_exit.log", Q, 33, false, false,
	  KTAP_R_NO_PANIC, 0, 1, 0, "expected a kernel panic (exit 37), got exit 33: a clean exit "
	  "(KTAP run complete: 62 passed, 0 failed, 0 skipped)", "panic.report", KTAP_FAIL,
	  "# Totals: pass:62 fail:0 skip:0 total:62"}, so_lines},
	{{"panic_expected_got_exit_35", "fail_case.log", Q, 35, false, false, KTAP_R_NO_PANIC, 0, 1,
	  0, "got exit 35: a test failed (KTAP: 1 of 4 cases failed)", "panic.report", KTAP_FAIL,
	  "expected output: 0 of 11 lines found in order"}, so_lines},
	{{"panic_report_but_exit_33", "panic_report.log", Q, 33, false, false, KTAP_R_NO_PANIC, 0, 1,
	  0, "got exit 33: a clean exit (no KTAP output)", "panic.report", KTAP_FAIL,
	  "expected output: 11 of 11 lines found in order"}, so_lines},
	{{"panic_expected_timeout", "panic_hang.log", Q, KTAP_EXIT_SIGNAL(9), true, false,
	  KTAP_R_TIMEOUT, 0, 1, 0, "expected a kernel panic (exit 37), but timed out after 60 s",
	  "panic.report", KTAP_FAIL, "  missing: repeated\n"}, so_lines},
	{{"panic_expected_killed_by_signal", "panic_report.log", Q, KTAP_EXIT_SIGNAL(11), false,
	  false, KTAP_R_NO_PANIC, 0, 1, 0, "got killed by signal 11", "panic.report", KTAP_FAIL,
	  NULL}, so_lines},
	{{"panic_expected_qemu_crash", "panic_report.log", Q, 1, false, false, KTAP_R_NO_PANIC, 0, 1,
	  0, "got exit 1: QEMU crashed", "panic.report", KTAP_FAIL, "---[ end Kernel panic ]---"},
	 so_lines},
};

static const char *log_dir;

static char *read_log(const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", log_dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 > cap) {
			cap = (n + 4096) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Diagnostics of the current check, printed before its result line. */
static char diag[8192];
static size_t diag_len;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	if (diag_len >= sizeof(diag) - 1)
		return;
	diag_len += (size_t)snprintf(diag + diag_len, sizeof(diag) - diag_len, "    # ");
	if (diag_len >= sizeof(diag) - 1)
		return;
	va_start(ap, fmt);
	diag_len += (size_t)vsnprintf(diag + diag_len, sizeof(diag) - diag_len, fmt, ap);
	va_end(ap);
	if (diag_len < sizeof(diag) - 1)
		diag[diag_len++] = '\n';
	diag[diag_len < sizeof(diag) ? diag_len : sizeof(diag) - 1] = '\0';
}

static const struct ktap_case *find_case(struct ktap_parser *p, const struct ktap_verdict *v,
					 const char *full)
{
	if (!strcmp(full, "boot"))
		return v->boot_case;
	for (size_t i = 0; i < ktap_suite_count(p); i++) {
		const struct ktap_suite *s = ktap_suite_at(p, i);
		size_t sl = strlen(s->name);
		if (strncmp(full, s->name, sl) || full[sl] != '.')
			continue;
		for (size_t j = 0; j < s->ncases; j++)
			if (!strcmp(s->cases[j]->name, full + sl + 1))
				return s->cases[j];
	}
	return NULL;
}

/* Judge a log; returns the parser (caller frees). bytewise: feed 1 byte at
 * a time. *nevents receives the number of events delivered. */
static struct ktap_parser *judge(const struct check *c, const char *const *expect,
				 const char *buf, size_t len, bool bytewise, int *nevents)
{
	struct ktap_parser *p = ktap_new(c->kind, 60);
	*nevents = 0;
	if (expect) {
		size_t n = 0;
		while (expect[n])
			n++;
		ktap_expect_panic(p, expect, n);
	}
	if (bytewise) {
		for (size_t i = 0; i < len; i++) {
			ktap_feed_data(p, buf + i, 1);
			while (ktap_next_event(p))
				(*nevents)++;
		}
	} else {
		ktap_feed_data(p, buf, len);
	}
	ktap_finish(p, c->exit_status, c->timed_out);
	while (ktap_next_event(p))
		(*nevents)++;
	return p;
}

/* expect: NULL for an ordinary boot, else the lines of an expected panic */
static bool run_check(const struct check *c, const char *const *expect)
{
	bool ok = true;
	size_t len;
	char *buf = read_log(c->log, &len);
	if (!buf) {
		note("cannot read %s/%s", log_dir, c->log);
		return false;
	}
	int ev1, ev2;
	struct ktap_parser *p = judge(c, expect, buf, len, false, &ev1);
	struct ktap_parser *p2 = judge(c, expect, buf, len, true, &ev2);
	const struct ktap_verdict *v = ktap_finish(p, 0, false); /* same verdict again */
	const struct ktap_verdict *v2 = ktap_finish(p2, 0, false);

	if (v->pass != c->pass) {
		note("verdict %s, expected %s", v->pass ? "pass" : "fail", c->pass ? "pass" : "fail");
		ok = false;
	}
	if (v->reason != c->reason) {
		note("reason category %s, expected %s", ktap_reason_name(v->reason),
		     ktap_reason_name(c->reason));
		ok = false;
	}
	if (v->passed != c->passed || v->failed != c->failed || v->skipped != c->skipped) {
		note("counts pass:%d fail:%d skip:%d, expected pass:%d fail:%d skip:%d", v->passed,
		     v->failed, v->skipped, c->passed, c->failed, c->skipped);
		ok = false;
	}
	if (c->reason_has && !strstr(v->reason_text, c->reason_has)) {
		note("reason '%s' does not contain '%s'", v->reason_text, c->reason_has);
		ok = false;
	}
	/* a failed expected panic is carried by its one case, panic.report */
	if (v->consistent != (c->reason == KTAP_R_TESTS_FAILED || (expect && !c->pass))) {
		note("consistent=%d unexpected", v->consistent);
		ok = false;
	}
	if (!v->pass && v->failed < 1) {
		note("failed verdict with zero failed cases");
		ok = false;
	}
	if (!v->pass && !v->reason_text[0]) {
		note("failed verdict without a reason");
		ok = false;
	}
	if (expect && (ktap_suite_count(p) != 1 || ktap_suite_at(p, 0)->ncases != 1 ||
		       v->boot_case || v->passed + v->failed + v->skipped != 1)) {
		note("an expected panic must be exactly one case, panic.report");
		ok = false;
	}
	if (strchr(v->reason_text, '\n')) {
		note("reason is not one line");
		ok = false;
	}
	if (ev1 != v->passed + v->failed + v->skipped) {
		note("%d events for %d counted cases", ev1, v->passed + v->failed + v->skipped);
		ok = false;
	}
	if (v2->pass != v->pass || v2->reason != v->reason || strcmp(v2->reason_text, v->reason_text) ||
	    v2->passed != v->passed || v2->failed != v->failed || v2->skipped != v->skipped ||
	    ev2 != ev1) {
		note("byte-by-byte feeding disagrees: '%s' pass:%d fail:%d skip:%d", v2->reason_text,
		     v2->passed, v2->failed, v2->skipped);
		ok = false;
	}
	if (c->case_name) {
		const struct ktap_case *k = find_case(p, v, c->case_name);
		if (!k) {
			note("no case named %s", c->case_name);
			ok = false;
		} else {
			if (k->status != c->case_status) {
				note("case %s is %s, expected %s", c->case_name, ktap_status_name(k->status),
				     ktap_status_name(c->case_status));
				ok = false;
			}
			if (c->case_diag_has && !strstr(k->diag, c->case_diag_has)) {
				note("diagnostics of %s lack '%s'", c->case_name, c->case_diag_has);
				ok = false;
			}
		}
	}
	if (!ok)
		note("judged: %s", v->pass ? "pass" : v->reason_text);
	ktap_free(p);
	ktap_free(p2);
	free(buf);
	return ok;
}

/* Panic matching rules: one log line matches at most one expected line,
 * stderr lines of the runner do not count, ANSI escapes are ignored. */
static bool check_panic_line_rules(void)
{
	static const char *const two[] = {"RIP: 0010:", "crash_if_requested+0x"};
	static const char *const one[] = {"end Kernel panic"};
	bool ok = true;
	struct ktap_parser *p = ktap_new(KTAP_KIND_QEMU, 60);
	ktap_expect_panic(p, two, 2);
	ktap_feed_line(p, "RIP: 0010:ffffffff8010d2d0 crash_if_requested+0x50\r\n");
	const struct ktap_verdict *v = ktap_finish(p, 37, false);
	if (v->pass || !strstr(v->reason_text, "lacks: crash_if_requested+0x (out of order")) {
		note("two expected lines on one log line: %s", v->pass ? "pass" : v->reason_text);
		ok = false;
	}
	ktap_free(p);

	p = ktap_new(KTAP_KIND_QEMU, 60);
	ktap_expect_panic(p, two, 2);
	ktap_feed_line(p, "RIP: 0010:ffffffff8010d2d0 crash_if_requested+0x50");
	ktap_feed_line(p, " [<ffffffff8010d2d0>] \x1b[1mcrash_if_requested\x1b[0m+0x50/0x118");
	v = ktap_finish(p, 37, false);
	if (!v->pass) {
		note("ANSI escapes inside a line: %s", v->reason_text);
		ok = false;
	}
	ktap_free(p);

	p = ktap_new(KTAP_KIND_QEMU, 60);
	ktap_expect_panic(p, one, 1);
	ktap_feed_line(p, "[qemu stderr] ---[ end Kernel panic ]---\n");
	v = ktap_finish(p, 37, false);
	if (v->pass || v->reason != KTAP_R_PANIC_REPORT || ktap_started(p)) {
		note("stderr line matched: %s", v->pass ? "pass" : v->reason_text);
		ok = false;
	}
	ktap_free(p);
	return ok;
}

/* Checks that do not need a log file. */
static bool check_clean(void)
{
	char out[128];
	ktap_clean(out, sizeof(out), "\x1b[1;32mok\x1b[0m 1\r\x1b]0;t\x07 x\x1b(B");
	if (strcmp(out, "ok 1 x") != 0) {
		note("ktap_clean gave '%s'", out);
		return false;
	}
	return true;
}

static bool check_prefix_only_when_matching(void)
{
	/* The garbage prefix is stripped only from lines that start with it. */
	struct ktap_parser *p = ktap_new(KTAP_KIND_QEMU, 60);
	ktap_feed_line(p, "<6>KTAP version 1");
	ktap_feed_line(p, "<6>1..1");
	ktap_feed_line(p, "<6>    KTAP version 1");
	ktap_feed_line(p, "<6>    # Subtest: s");
	ktap_feed_line(p, "    1..1"); /* without the prefix */
	ktap_feed_line(p, "<6>    ok 1 c");
	ktap_feed_line(p, "<6>ok 1 s");
	const struct ktap_verdict *v = ktap_finish(p, 33, false);
	bool ok = v->pass && v->passed == 1;
	if (!ok)
		note("judged: %s", v->pass ? "pass" : v->reason_text);
	ktap_free(p);
	return ok;
}

static bool check_restart(void)
{
	/* A second top-level KTAP header means the machine rebooted. */
	static const char log[] = "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n"
				  "    1..1\n    ok 1 c\nok 1 s\nKTAP version 1\n";
	struct ktap_parser *p = ktap_new(KTAP_KIND_QEMU, 60);
	ktap_feed_data(p, log, sizeof(log) - 1);
	const struct ktap_verdict *v = ktap_finish(p, 33, false);
	bool ok = !v->pass && v->reason == KTAP_R_BAD_STRUCTURE && strstr(v->reason_text, "restarted");
	if (!ok)
		note("judged: %s", v->pass ? "pass" : v->reason_text);
	ktap_free(p);
	return ok;
}

/* kunit_tool_judge() on captured "kunit.py parse" outputs (logs/kunit_tool_*.out,
 * timestamps normalised) against the counts our judge gives the same log. */
struct kt_check {
	const char *name, *out;
	int exit_status;
	bool timed_out;
	int passed, failed, skipped; /* "ours" */
	enum ktap_status expect;
	const char *diag_has;
};

static const struct kt_check kt_checks[] = {
	/* real boot of the default topology: 61 cases, all passed, exit 0 */
	{"kunit_tool_accepts_real_boot", "kunit_tool_pass.out", 0, false, 61, 0, 0, KTAP_PASS, NULL},
	{"kunit_tool_count_mismatch", "kunit_tool_pass.out", 0, false, 60, 0, 1, KTAP_FAIL,
	 "counted passed 61, failed 0, crashed 0, skipped 0; mmlab-runner counted passed 60"},
	/* fail_case.log: a failing and a skipped case, exit 1, no error */
	{"kunit_tool_failing_case_is_no_error", "kunit_tool_fail.out", 1, false, 2, 1, 1, KTAP_PASS,
	 NULL},
	{"kunit_tool_failing_case_but_exit_0", "kunit_tool_fail.out", 0, false, 2, 1, 1, KTAP_FAIL,
	 "exited 0 but counted 1 failed"},
	/* out_of_order.log: kunit.py exits 0 but prints two [ERROR] lines */
	{"kunit_tool_errors_with_exit_0", "kunit_tool_errors.out", 0, false, 2, 0, 0, KTAP_FAIL,
	 "[ERROR] Test: formats: Expected test number 2 but found 1"},
	/* panic_mid_suite.log: crashed subtests, 4 errors */
	{"kunit_tool_crashed", "kunit_tool_crashed.out", 1, false, 1, 2, 0, KTAP_FAIL,
	 "reported 4 parse errors"},
	/* Python exception: no summary line */
	{"kunit_tool_traceback", "kunit_tool_traceback.out", 1, false, 1, 0, 0, KTAP_FAIL,
	 "FileNotFoundError"},
	{"kunit_tool_timeout", "kunit_tool_pass.out", KTAP_EXIT_SIGNAL(9), true, 61, 0, 0, KTAP_FAIL,
	 "timed out after 60 s"},
	{"kunit_tool_exit_2", "kunit_tool_pass.out", 2, false, 61, 0, 0, KTAP_FAIL,
	 "exited with status 2"},
};

static bool run_kt_check(const struct kt_check *c)
{
	size_t len;
	char *buf = read_log(c->out, &len);
	if (!buf) {
		note("cannot read %s/%s", log_dir, c->out);
		return false;
	}
	char *text = strndup(buf, len);
	char *d = NULL;
	enum ktap_status st = kunit_tool_judge(text, c->exit_status, c->timed_out, 60, c->passed,
					       c->failed, c->skipped, &d);
	bool ok = true;
	if (st != c->expect) {
		note("status %s, expected %s", ktap_status_name(st), ktap_status_name(c->expect));
		ok = false;
	}
	if ((st == KTAP_PASS) != (d[0] == '\0')) {
		note("diagnostics '%s' do not fit status %s", d, ktap_status_name(st));
		ok = false;
	}
	if (c->diag_has && !strstr(d, c->diag_has)) {
		note("diagnostics lack '%s'", c->diag_has);
		ok = false;
	}
	if (!ok)
		for (char *l = strtok(d, "\n"); l; l = strtok(NULL, "\n"))
			note("  %s", l);
	free(d);
	free(text);
	free(buf);
	return ok;
}

static bool check_kunit_tool_summary(void)
{
	/* colours, stray text and a second summary line: the last one wins */
	static const char out[] = "[01:02:03] \x1b[1;31m[ERROR]\x1b[0;0m Test: s: boom\r\n"
				  "[01:02:03] Testing complete. Ran 9 tests: failed: 9\n"
				  "[01:02:03] [ERROR] not a parser error line\n"
				  "[01:02:03] Testing complete. Ran 5 tests: passed: 2, failed: 1, "
				  "crashed: 1, skipped: 1, errors: 3\n";
	struct kunit_tool_summary s;
	kunit_tool_parse_output(out, &s);
	bool ok = s.complete && s.ran == 5 && s.passed == 2 && s.failed == 1 && s.crashed == 1 &&
		  s.skipped == 1 && s.errors == 3 && s.error_lines == 1 &&
		  !strcmp(s.error_text, "[ERROR] Test: s: boom\n");
	if (!ok)
		note("summary: complete=%d ran=%d p=%d f=%d c=%d s=%d e=%d lines=%d text='%s'",
		     s.complete, s.ran, s.passed, s.failed, s.crashed, s.skipped, s.errors,
		     s.error_lines, s.error_text);
	kunit_tool_summary_free(&s);
	return ok;
}

static bool check_add_check(void)
{
	/* An extra failed check turns a passing verdict into a consistent failure. */
	static const char log[] = "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n"
				  "    1..1\n    ok 1 c\nok 1 s\n";
	struct ktap_parser *p = ktap_new(KTAP_KIND_QEMU, 60);
	ktap_feed_data(p, log, sizeof(log) - 1);
	const struct ktap_verdict *v = ktap_finish(p, 33, false);
	while (ktap_next_event(p))
		;
	bool ok = v->pass;
	const struct ktap_case *k = ktap_add_check(p, "kunit_tool", "parse", KTAP_FAIL, NULL, "bad\n");
	ok &= ktap_next_event(p) == k && !ktap_next_event(p);
	ok &= !v->pass && v->consistent && v->reason == KTAP_R_TESTS_FAILED && v->passed == 1 &&
	      v->failed == 1 && !strcmp(v->reason_text, "1 of 2 cases failed");
	ok &= ktap_suite_count(p) == 2 && !strcmp(ktap_suite_at(p, 1)->name, "kunit_tool") &&
	      ktap_suite_at(p, 1)->state == KTAP_SUITE_NOT_OK && !strcmp(k->diag, "bad\n");
	if (!ok)
		note("judged: %s pass:%d fail:%d", v->pass ? "pass" : v->reason_text, v->passed,
		     v->failed);
	ktap_free(p);
	return ok;
}

/* ---- runner_topology: the .topo reader and the Linux boot's command line ---- */

static char topo_dir[] = "/tmp/runner-selftest-topo-XXXXXX";

/* Writes NAME.topo with the given text into topo_dir. */
static void write_topo(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s.topo", topo_dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

/* Loads NAME.topo, which must fail with every substring of want_err in its
 * message (NULL-terminated), or succeed when want_err is NULL. */
static bool load_expect(const char *name, const char *text, struct topology *t,
			const char *const *want_err)
{
	write_topo(name, text);
	char *path = xasprintf("%s/%s.topo", topo_dir, name);
	char err[1024] = "";
	int r = topology_load(path, t, err, sizeof(err));
	free(path);
	if (!want_err) {
		if (r)
			note("%s: unexpected error: %s", name, err);
		return r == 0;
	}
	if (!r) {
		note("%s: loaded, but an error was expected", name);
		topology_free(t);
		return false;
	}
	bool ok = true;
	for (int i = 0; want_err[i]; i++)
		if (!strstr(err, want_err[i])) {
			note("%s: error '%s' lacks '%s'", name, err, want_err[i]);
			ok = false;
		}
	return ok;
}

static bool same_tokens(char **got, size_t n, const char *const *want)
{
	size_t i = 0;
	for (; want[i]; i++)
		if (i >= n || strcmp(got[i], want[i])) {
			note("qemu token %zu: got '%s', want '%s'", i, i < n ? got[i] : "(none)",
			     want[i]);
			return false;
		}
	if (i != n) {
		note("%zu qemu tokens, want %zu", n, i);
		return false;
	}
	return true;
}

static bool topo_defaults_to_mmlab(void)
{
	struct topology t;
	if (!load_expect("plain", "qemu = -m 1G\n", &t, NULL))
		return false;
	bool ok = t.kernel == KERNEL_MMLAB && !t.base && !strcmp(kernel_name(t.kernel), "mmlab");
	if (!ok)
		note("kernel %s, base %s", kernel_name(t.kernel), t.base ? t.base : "(none)");
	topology_free(&t);
	return ok;
}

/* base gives its qemu tokens, first; nothing else of it. */
static bool topo_linux_base_takes_qemu_lines(void)
{
	struct topology t;
	write_topo("machine", "firmware = bios\nqemu = -m 1G\nqemu = -smp 2\ncmdline = expect.cpus=2\n"
			      "timeout = 30\ndescription = the machine\n");
	if (!load_expect("lin", "description = Linux on it\nkernel = linux\nbase = machine\n"
				"qemu = -name lin\ntimeout = 45\n", &t, NULL))
		return false;
	static const char *const want[] = {"-m", "1G", "-smp", "2", "-name", "lin", NULL};
	bool ok = same_tokens(t.qemu_args, t.nqemu, want);
	if (t.kernel != KERNEL_LINUX || !t.base || strcmp(t.base, "machine") || t.ncmdline ||
	    t.timeout_s != 45 || strcmp(t.description, "Linux on it")) {
		note("kernel %s, base %s, %zu cmdline words, timeout %d, description '%s'",
		     kernel_name(t.kernel), t.base ? t.base : "(none)", t.ncmdline, t.timeout_s,
		     t.description);
		ok = false;
	}
	topology_free(&t);
	return ok;
}

static bool topo_base_chain_in_order(void)
{
	struct topology t;
	write_topo("c1", "qemu = -a\n");
	write_topo("c2", "base = c1\nqemu = -b\n");
	if (!load_expect("c3", "base = c2\nqemu = -c\n", &t, NULL))
		return false;
	static const char *const want[] = {"-a", "-b", "-c", NULL};
	bool ok = same_tokens(t.qemu_args, t.nqemu, want);
	topology_free(&t);
	return ok;
}

static bool topo_bad_kernel_and_base_lines(void)
{
	struct topology t;
	static const char *const cycle[] = {"cyc1.topo:1: base 'cyc2'", "bases deep", NULL};
	static const char *const missing[] = {"nobase.topo:2: base 'nope'", "nope.topo",
		"No such file", NULL};
	static const char *const after[] = {"late.topo:2: 'base' must come before", NULL};
	static const char *const uefi[] = {"kernel = linux", "firmware = bios", NULL};
	static const char *const panic[] = {"kernel = linux", "expect = pass", NULL};
	static const char *const badval[] = {"kval.topo:1: kernel must be 'mmlab' or 'linux'",
		NULL};
	static const char *const dupk[] = {"dupk.topo:2: duplicate key 'kernel'", NULL};
	static const char *const dupb[] = {"dupb.topo:3: duplicate key 'base'", NULL};
	static const char *const slash[] = {"slash.topo:1: base must be a topology name", NULL};
	static const char *const self[] = {"selfb.topo:1: base 'selfb'", "bases deep", NULL};
	write_topo("cyc2", "base = cyc1\n");
	write_topo("plain2", "qemu = -m 1G\n");
	bool ok = true;
	ok &= load_expect("cyc1", "base = cyc2\n", &t, cycle);
	ok &= load_expect("selfb", "base = selfb\n", &t, self);
	ok &= load_expect("nobase", "kernel = linux\nbase = nope\n", &t, missing);
	ok &= load_expect("late", "qemu = -m 1G\nbase = plain2\n", &t, after);
	ok &= load_expect("luefi", "kernel = linux\nfirmware = uefi\n", &t, uefi);
	ok &= load_expect("lpanic", "kernel = linux\nexpect = panic\n", &t, panic);
	ok &= load_expect("kval", "kernel = freebsd\n", &t, badval);
	ok &= load_expect("dupk", "kernel = linux\nkernel = mmlab\n", &t, dupk);
	ok &= load_expect("dupb", "base = plain2\nkernel = linux\nbase = plain2\n", &t, dupb);
	ok &= load_expect("slash", "base = ../plain2\n", &t, slash);
	return ok;
}

/* The real Linux topology takes exactly default.topo's machine. */
static bool topo_linux_ring_is_default_machine(void)
{
	char *dir = xasprintf("%s/../../topologies", log_dir);
	char *lpath = xasprintf("%s/linux-ring.topo", dir), *dpath = xasprintf("%s/default.topo", dir);
	struct topology l, d;
	char err[1024];
	bool ok = false;
	if (topology_load(lpath, &l, err, sizeof(err))) {
		note("%s", err);
	} else {
		if (topology_load(dpath, &d, err, sizeof(err))) {
			note("%s", err);
		} else {
			ok = l.kernel == KERNEL_LINUX && l.firmware == d.firmware;
			const char **want = xrealloc(NULL, (d.nqemu + 1) * sizeof(*want));
			for (size_t i = 0; i < d.nqemu; i++)
				want[i] = d.qemu_args[i];
			want[d.nqemu] = NULL;
			ok &= same_tokens(l.qemu_args, l.nqemu, want);
			free(want);
			topology_free(&d);
		}
		topology_free(&l);
	}
	free(dir);
	free(lpath);
	free(dpath);
	return ok;
}

static ssize_t argv_find(const struct strvec *av, const char *s)
{
	for (size_t i = 0; i < av->n; i++)
		if (!strcmp(av->v[i], s))
			return (ssize_t)i;
	return -1;
}

/* -kernel/-initrd/-append instead of the ISO and fw_cfg; the same machine. */
static bool linux_qemu_command_line(void)
{
	struct topology t;
	if (!load_expect("lcmd", "kernel = linux\nbase = machine\ncmdline = a,b\n", &t, NULL))
		return false;
	struct opts o = {.mode = MODE_TEST, .iso = "k.iso", .accel = "tcg", .filter = "user.*",
		.linux_kernel = "vmlinuz", .linux_initrd = "initrd.cpio"};
	struct strvec av = {0};
	build_qemu_argv(&av, &o, &t, true, NULL);
	bool ok = true;
	ssize_t k = argv_find(&av, "-kernel"), i = argv_find(&av, "-initrd"),
		a = argv_find(&av, "-append"), m = argv_find(&av, "-m");
	if (k < 0 || strcmp(av.v[k + 1], "vmlinuz") || i < 0 || strcmp(av.v[i + 1], "initrd.cpio")) {
		note("no -kernel vmlinuz -initrd initrd.cpio");
		ok = false;
	}
	if (a < 0 || strcmp(av.v[a + 1], "console=ttyS0 quiet panic=-1 ktest ktest.filter=user.* a,b")) {
		note("-append '%s'", a < 0 ? "(none)" : av.v[a + 1]);
		ok = false;
	}
	if (m != 1 || strcmp(av.v[2], "1G") || argv_find(&av, "-no-reboot") < 0 ||
	    argv_find(&av, "isa-debug-exit,iobase=0xf4,iosize=0x04") < 0) {
		note("the machine (-m 1G first), -no-reboot or isa-debug-exit missing");
		ok = false;
	}
	if (argv_find(&av, "-cdrom") >= 0 || argv_find(&av, "-fw_cfg") >= 0) {
		note("-cdrom or -fw_cfg in a Linux boot");
		ok = false;
	}
	sv_free(&av);
	topology_free(&t);
	return ok;
}

/* TCG's threads: one per vCPU only when the machine's vCPUs fit in its
 * share of the host (host CPUs / jobs), unless the topology or the command
 * line says which; a bad value is refused. */
static const char *accel_of(const struct opts *o, const struct topology *t)
{
	static char buf[64];
	struct strvec av = {0};
	build_qemu_argv(&av, o, t, true, NULL);
	ssize_t a = argv_find(&av, "-accel");
	snprintf(buf, sizeof(buf), "%s", a < 0 ? "(none)" : av.v[a + 1]);
	sv_free(&av);
	return buf;
}

/* The QEMU a boot execs has transparent huge pages off (qemu.c's
 * qemu_child_setup): what the exec'd program sees in its /proc status. */
static bool qemu_child_has_no_thp(void)
{
	int fds[2];
	if (pipe(fds)) {
		note("pipe: %s", strerror(errno));
		return false;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		qemu_child_setup();
		execl("/bin/sh", "sh", "-c", "grep '^THP_enabled:' /proc/self/status", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char buf[128] = "";
	ssize_t n = pid > 0 ? read(fds[0], buf, sizeof(buf) - 1) : -1;
	close(fds[0]);
	int st = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		note("the child's /proc/self/status has no THP_enabled line (status %#x): '%s'", st, buf);
		return false;
	}
	if (strncmp(buf, "THP_enabled:\t0", 14)) {
		note("after exec: '%s', want THP_enabled 0", buf);
		return false;
	}
	return true;
}

static bool tcg_threads_choice(void)
{
	static const char *const bad[] = {"tcg_threads must be 'single' or 'multi'", NULL};
	struct topology big, pinned, bogus;
	long host = sysconf(_SC_NPROCESSORS_ONLN);
	char *big_text = xasprintf("qemu = -smp %ld\n", host + 1);
	bool ok = load_expect("tbig", big_text, &big, NULL) &&
		  load_expect("tpin", "qemu = -smp 64\ntcg_threads = multi\n", &pinned, NULL) &&
		  load_expect("tbogus", "tcg_threads = many\n", &bogus, bad);
	free(big_text);
	if (!ok)
		return false;
	struct opts o = {.mode = MODE_TEST, .iso = "k.iso", .accel = "tcg", .jobs = 1};
	const struct {
		enum tcg_threads cmdline;
		const struct topology *t;
		long jobs;
		const char *want;
	} cases[] = {
		{TCG_THREADS_AUTO, &big, 1, "tcg,thread=single"},  /* more vCPUs than the host */
		{TCG_THREADS_AUTO, &pinned, 1, "tcg,thread=multi"}, /* the topology says */
		{TCG_THREADS_MULTI, &big, 1, "tcg,thread=multi"},   /* the command line says */
		{TCG_THREADS_SINGLE, &pinned, 1, "tcg,thread=single"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o.tcg_threads = cases[i].cmdline;
		o.jobs = cases[i].jobs;
		const char *got = accel_of(&o, cases[i].t);
		if (strcmp(got, cases[i].want)) {
			note("case %zu: -accel %s, not %s", i, got, cases[i].want);
			ok = false;
		}
	}
	/* A one-vCPU machine fits any share; with more jobs than host CPUs
	 * a two-vCPU machine never does. */
	struct topology one, two;
	if (load_expect("tone", "qemu = -smp 1\n", &one, NULL) &&
	    load_expect("ttwo", "qemu = -smp 2\n", &two, NULL)) {
		o.tcg_threads = TCG_THREADS_AUTO;
		o.jobs = host + 1;
		char got_one[64], got_two[64];
		snprintf(got_one, sizeof(got_one), "%s", accel_of(&o, &one));
		snprintf(got_two, sizeof(got_two), "%s", accel_of(&o, &two));
		if (strcmp(got_one, "tcg,thread=multi") || strcmp(got_two, "tcg,thread=single")) {
			note("with %ld jobs: 1 vCPU %s, 2 vCPUs %s", o.jobs, got_one, got_two);
			ok = false;
		}
		topology_free(&one);
		topology_free(&two);
	} else {
		ok = false;
	}
	topology_free(&big);
	topology_free(&pinned);
	return ok;
}

/* "disk-format = swap": the image made by mkswap, with Linux's swap
 * header (version 1 at 1024, last_page the image's last page, the
 * SWAPSPACE2 magic in the page's last 10 bytes); a second line, a format
 * that is not one, and a format without a disk refused. */
static bool disk_format_swap(void)
{
	static const char *const bad[] = {"disk-format must be given once", NULL};
	static const char *const nodisk[] = {"it needs 'disk = SIZE'", NULL};
	struct topology t, x;
	if (!load_expect("swp", "qemu = -m 1G\ndisk = 2M\ndisk-format = swap\n", &t, NULL) ||
	    !load_expect("sbad1", "disk = 1M\ndisk-format = ext4\n", &x, bad) ||
	    !load_expect("sbad2", "disk = 1M\ndisk-format = swap\ndisk-format = none\n", &x, bad) ||
	    !load_expect("sbad3", "disk-format = swap\n", &x, nodisk))
		return false;
	bool ok = t.disk_format == DISK_FORMAT_SWAP;
	struct opts o = {.mode = MODE_TEST, .iso = "k.iso", .accel = "tcg", .results = topo_dir};
	char err[256];
	char *img = disk_image_path(&o, &t);
	unsigned char page[4096];
	int fd = -1;
	if (disk_image_create(&o, &t, err, sizeof(err)) || (fd = open(img, O_RDONLY)) < 0 ||
	    pread(fd, page, sizeof(page), 0) != (ssize_t)sizeof(page)) {
		note("swap image %s not made: %s", img, err);
		ok = false;
	} else {
		unsigned int version, last_page;
		memcpy(&version, page + 1024, 4);
		memcpy(&last_page, page + 1028, 4);
		if (memcmp(page + 4096 - 10, "SWAPSPACE2", 10) || version != 1 || last_page != (2u << 20) / 4096 - 1) {
			note("header: version %u, last_page %u, magic %.10s", version, last_page, page + 4086);
			ok = false;
		}
	}
	if (fd >= 0)
		close(fd);
	disk_image_remove(&o, &t);
	free(img);
	topology_free(&t);
	return ok;
}

/* "disk = SIZE": the size in bytes, the -drive and virtio-blk -device
 * lines naming RESULTS/NAME.disk.img, an empty sparse image made and
 * removed; a bad size, a second line, refused. */
static bool disk_scratch_image(void)
{
	static const char *const bad[] = {"disk must be given once", NULL};
	struct topology t, x;
	if (!load_expect("dsk", "qemu = -m 1G\ndisk = 3M\n", &t, NULL) ||
	    !load_expect("dbad1", "disk = 12Q\n", &x, bad) || !load_expect("dbad2", "disk = 1000\n", &x, bad) ||
	    !load_expect("dbad3", "disk = 1M\ndisk = 2M\n", &x, bad) || !load_expect("dbad4", "disk = 5G\n", &x, bad))
		return false;
	bool ok = t.disk_bytes == 3ull << 20;
	if (!ok)
		note("disk_bytes %llu, not 3 MiB", t.disk_bytes);
	struct opts o = {.mode = MODE_TEST, .iso = "k.iso", .accel = "tcg", .results = topo_dir};
	struct strvec av = {0};
	build_qemu_argv(&av, &o, &t, true, NULL);
	char *img = disk_image_path(&o, &t);
	char *drive = xasprintf("file=%s,if=none,id=vd0,format=raw", img);
	ssize_t d = argv_find(&av, "-drive"), v = argv_find(&av, "-device");
	if (d < 0 || strcmp(av.v[d + 1], drive) ||
	    argv_find(&av, "virtio-blk-pci,drive=vd0,disable-legacy=on,serial=mmlab-vd0") < 0 || v < 0) {
		note("no -drive %s and virtio-blk-pci -device", drive);
		ok = false;
	}
	char err[256];
	struct stat st;
	if (disk_image_create(&o, &t, err, sizeof(err)) || stat(img, &st) ||
	    st.st_size != (off_t)t.disk_bytes) {
		note("image %s not made at 3 MiB", img);
		ok = false;
	}
	disk_image_remove(&o, &t);
	if (!stat(img, &st)) {
		note("image %s still there", img);
		ok = false;
	}
	free(drive);
	free(img);
	sv_free(&av);
	topology_free(&t);
	return ok;
}

/* A hostile-firmware boot (tools/hostile/): its own ISO, and the warnings
 * that must be in the serial output, never in the runner's own lines. */
static bool hostile_iso_and_expect_log(void)
{
	struct topology t;
	if (!load_expect("hcase", "iso = build/hostile/hostile.iso\nqemu = -m 128M\n"
				  "expect_log = MADT lists APIC ID 1 twice\n"
				  "expect_log = falling back to one node\n", &t, NULL))
		return false;
	bool ok = true;
	if (!t.iso || strcmp(t.iso, "build/hostile/hostile.iso") || t.nexpect_log != 2 ||
	    strcmp(t.expect_log[1], "falling back to one node")) {
		note("iso %s, %zu expect_log lines", t.iso ? t.iso : "(none)", t.nexpect_log);
		ok = false;
	}
	struct opts o = {.mode = MODE_TEST, .iso = "k.iso", .accel = "tcg"};
	struct strvec av = {0};
	build_qemu_argv(&av, &o, &t, true, NULL);
	ssize_t c = argv_find(&av, "-cdrom");
	if (c < 0 || strcmp(av.v[c + 1], "build/hostile/hostile.iso")) {
		note("-cdrom %s, not the topology's ISO", c < 0 ? "(none)" : av.v[c + 1]);
		ok = false;
	}
	sv_free(&av);

	bool missing[2];
	const char *log = "# mmlab-runner: qemu ... falling back to one node\n"
			  "[qemu stderr] MADT lists APIC ID 1 twice\n"
			  "ACPI: MADT lists APIC ID 1 twice, second entry (UID 7) ignored\r\n";
	if (hostile_missing(log, t.expect_log, 2, missing) != 1 || missing[0] || !missing[1]) {
		note("the runner's lines were searched, or the serial line was not");
		ok = false;
	}
	if (hostile_missing("x\nNUMA: ... falling back to one node", t.expect_log, 2, missing) != 1 ||
	    !missing[0] || missing[1]) {
		note("a last line without a newline was not searched");
		ok = false;
	}
	static const char *const dup[] = {"duplicate or empty key 'iso'", NULL};
	struct topology t2;
	if (!load_expect("hdup", "iso = a.iso\niso = b.iso\n", &t2, dup))
		ok = false;
	topology_free(&t);
	return ok;
}


/* The machine's vCPUs come from -smp, in either of QEMU's spellings. */
static bool topo_vcpus_from_smp(void)
{
	struct topology t;
	bool ok = true;
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{"qemu = -m 1G\n", 1},
		{"qemu = -smp 4\n", 4},
		{"qemu = -smp cpus=3,maxcpus=8\n", 3},
		{"qemu = -smp maxcpus=8,cpus=2\n", 2},
		{"qemu = -smp 2\nqemu = -smp 8\n", 8},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!load_expect("smp", cases[i].text, &t, NULL))
			return false;
		int got = topology_vcpus(&t);
		if (got != cases[i].want) {
			note("'%s': %d vCPUs, want %d", cases[i].text, got, cases[i].want);
			ok = false;
		}
		topology_free(&t);
	}
	return ok;
}

/* run_jobs on jobs made here, its report lines (on stdout) kept out of
 * this program's KTAP. */
static bool run_jobs_quietly(struct job *jobs, size_t n, long maxjobs)
{
	fflush(stdout);
	int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
	if (saved < 0 || devnull < 0 || dup2(devnull, 1) < 0) {
		note("cannot redirect stdout");
		if (saved >= 0)
			close(saved);
		if (devnull >= 0)
			close(devnull);
		return false;
	}
	run_jobs(jobs, n, maxjobs);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(devnull);
	return true;
}

/* A job (zeroed beforehand) that runs "sh -c cmd" on one CPU. */
static void init_test_job(struct job *j, const char *what, size_t i, int timeout_s, const char *cmd)
{
	j->name = xasprintf("selftest-%s-%zu", what, i);
	j->kind = KTAP_KIND_HOST;
	j->timeout_s = timeout_s;
	j->cpus = 1;
	j->fd[0] = j->fd[1] = -1;
	sv_push(&j->argv, "/bin/sh");
	sv_push(&j->argv, "-c");
	sv_push(&j->argv, cmd);
	j->parser = ktap_new(j->kind, j->timeout_s);
}

static void free_test_job(struct job *j)
{
	ktap_free(j->parser);
	sv_free(&j->argv);
	free(j->name);
	free(j->suite_start);
	free(j->suite_seconds);
}

/* Timeouts count CPU time, not the wall clock (jobs.c): a program that
 * spins is stopped once it has used its budget of CPU, however long the
 * host takes to give it that (its wall-clock backstop is out of reach
 * here); one that sleeps past its budget without using the CPU is not
 * stopped (a boot on a loaded host looks like that); one that uses no CPU
 * until its backstop is. */
static bool timeouts_count_cpu_time(void)
{
	static const struct {
		const char *cmd;
		int timeout_s, backstop_s;
		bool timed_out;
	} cases[] = {
		{"while :; do :; done", 1, 600, true},
		{"sleep 3", 2, 0, false},
		{"sleep 600", 1, 0, true},
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	struct job jobs[N];
	memset(jobs, 0, sizeof(jobs));
	for (size_t i = 0; i < N; i++) {
		init_test_job(&jobs[i], "timeout", i, cases[i].timeout_s, cases[i].cmd);
		jobs[i].backstop_s = cases[i].backstop_s;
	}
	if (!run_jobs_quietly(jobs, N, N))
		return false;
	bool ok = true;
	for (size_t i = 0; i < N; i++) {
		struct job *j = &jobs[i];
		if (j->timed_out != cases[i].timed_out) {
			note("'%s': %s after %.1f s with %.1f s of CPU", cases[i].cmd,
			     j->timed_out ? "timed out" : "not timed out", j->end - j->start, j->cpu_s);
			ok = false;
		}
		if (i == 0 && j->cpu_s < cases[i].timeout_s) {
			note("the spinning program was stopped after %.2f s of CPU, before its budget",
			     j->cpu_s);
			ok = false;
		}
		free_test_job(j);
	}
	return ok;
}

/* Host programs start first, then boots, the longest expected first. */
static bool jobs_start_longest_first(void)
{
	enum { N = 4 };
	static const double est[N] = { 0, 1, 3, 2 };
	static const int want_rank[N] = { 0, 3, 1, 2 }; /* start order */
	struct topology topo;
	memset(&topo, 0, sizeof(topo));
	topo.name = "selftest";
	topo.description = "";
	struct job jobs[N];
	memset(jobs, 0, sizeof(jobs));
	for (size_t i = 0; i < N; i++) {
		init_test_job(&jobs[i], "order", i, 60, "true");
		jobs[i].topo = i ? &topo : NULL; /* job 0 is a host program */
		jobs[i].est_s = est[i];
	}
	if (!run_jobs_quietly(jobs, N, 1))
		return false;
	bool ok = true;
	for (size_t i = 0; i < N; i++) {
		int rank = 0;
		for (size_t k = 0; k < N; k++)
			rank += jobs[k].start < jobs[i].start;
		if (rank != want_rank[i]) {
			note("job %zu (estimate %.0f s) started as number %d, want %d", i, est[i],
			     rank + 1, want_rank[i] + 1);
			ok = false;
		}
	}
	for (size_t i = 0; i < N; i++)
		free_test_job(&jobs[i]);
	return ok;
}

static const struct {
	const char *name;
	bool (*fn)(void);
} topo_checks[] = {
	{"kernel_defaults_to_mmlab", topo_defaults_to_mmlab},
	{"linux_base_takes_qemu_lines", topo_linux_base_takes_qemu_lines},
	{"base_chain_in_order", topo_base_chain_in_order},
	{"bad_kernel_and_base_lines", topo_bad_kernel_and_base_lines},
	{"linux_ring_is_default_machine", topo_linux_ring_is_default_machine},
	{"linux_qemu_command_line", linux_qemu_command_line},
	{"hostile_iso_and_expect_log", hostile_iso_and_expect_log},
	{"tcg_threads_choice", tcg_threads_choice},
	{"qemu_child_has_no_thp", qemu_child_has_no_thp},
	{"disk_scratch_image", disk_scratch_image},
	{"disk_format_swap", disk_format_swap},
	{"vcpus_from_smp", topo_vcpus_from_smp},
	{"timeouts_count_cpu_time", timeouts_count_cpu_time},
	{"jobs_start_longest_first", jobs_start_longest_first},
};

/* Runs suite "runner_topology" (number 2); returns its failed count. */
static int run_topology_suite(void)
{
	size_t n = sizeof(topo_checks) / sizeof(topo_checks[0]);
	int failed = 0;
	bool have_dir = mkdtemp(topo_dir) != NULL;
	printf("    KTAP version 1\n    # Subtest: runner_topology\n    1..%zu\n", n);
	for (size_t i = 0; i < n; i++) {
		diag_len = 0;
		diag[0] = '\0';
		bool ok = have_dir && topo_checks[i].fn();
		if (!have_dir)
			note("mkdtemp %s failed", topo_dir);
		fputs(diag, stdout);
		printf("    %s %zu %s\n", ok ? "ok" : "not ok", i + 1, topo_checks[i].name);
		fflush(stdout);
		failed += !ok;
	}
	if (have_dir) {
		char *cmd = xasprintf("rm -rf '%s'", topo_dir);
		if (system(cmd))
			fprintf(stderr, "runner-selftest: could not remove %s\n", topo_dir);
		free(cmd);
	}
	printf("# runner_topology: pass:%d fail:%d skip:0 total:%zu\n", (int)n - failed, failed, n);
	printf("%s 2 runner_topology\n", failed ? "not ok" : "ok");
	return failed;
}

int main(int argc, char **argv)
{
	static char dir[4096];
	if (argc > 1) {
		log_dir = argv[1];
	} else {
		const char *slash = strrchr(__FILE__, '/');
		if (slash)
			snprintf(dir, sizeof(dir), "%.*s/logs", (int)(slash - __FILE__), __FILE__);
		else
			snprintf(dir, sizeof(dir), "logs");
		log_dir = dir;
	}
	size_t nlog = sizeof(checks) / sizeof(checks[0]);
	size_t nkt = sizeof(kt_checks) / sizeof(kt_checks[0]);
	size_t npanic = sizeof(panic_checks) / sizeof(panic_checks[0]);
	size_t total = nlog + 3 + nkt + 2 + npanic + 1;
	int passed = 0, failed = 0;

	printf("KTAP version 1\n1..3\n");
	printf("    KTAP version 1\n    # Subtest: runner_judge\n    1..%zu\n", total);
	for (size_t i = 0; i < total; i++) {
		const char *name;
		bool ok;
		diag_len = 0;
		diag[0] = '\0';
		if (i < nlog) {
			name = checks[i].name;
			ok = run_check(&checks[i], NULL);
		} else if (i == nlog) {
			name = "ansi_escapes_stripped";
			ok = check_clean();
		} else if (i == nlog + 1) {
			name = "prefix_stripped_only_where_present";
			ok = check_prefix_only_when_matching();
		} else if (i == nlog + 2) {
			name = "ktap_restart_is_failure";
			ok = check_restart();
		} else if (i < nlog + 3 + nkt) {
			name = kt_checks[i - nlog - 3].name;
			ok = run_kt_check(&kt_checks[i - nlog - 3]);
		} else if (i == nlog + 3 + nkt) {
			name = "kunit_tool_summary_parsing";
			ok = check_kunit_tool_summary();
		} else if (i == nlog + 3 + nkt + 1) {
			name = "extra_check_case_counts";
			ok = check_add_check();
		} else if (i < nlog + 3 + nkt + 2 + npanic) {
			const struct panic_check *pc = &panic_checks[i - (nlog + 3 + nkt + 2)];
			name = pc->c.name;
			ok = run_check(&pc->c, pc->expect);
		} else {
			name = "panic_line_matching_rules";
			ok = check_panic_line_rules();
		}
		fputs(diag, stdout);
		printf("    %s %zu %s\n", ok ? "ok" : "not ok", i + 1, name);
		fflush(stdout);
		if (ok)
			passed++;
		else
			failed++;
	}
	printf("# runner_judge: pass:%d fail:%d skip:0 total:%zu\n", passed, failed, total);
	printf("%s 1 runner_judge\n", failed ? "not ok" : "ok");
	int tfailed = run_topology_suite();
	size_t ntopo = sizeof(topo_checks) / sizeof(topo_checks[0]);
	int spassed = 0, sfailed = run_session_suite(3, &spassed);
	printf("# Totals: pass:%d fail:%d skip:0 total:%zu\n", passed + (int)ntopo - tfailed + spassed,
	       failed + tfailed + sfailed, total + ntopo + (size_t)(spassed + sfailed));
	return failed || tfailed || sfailed ? 1 : 0;
}
