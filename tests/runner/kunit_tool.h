/*
 * kunit_tool.h - reading the output of Linux's kunit_tool for mmlab-runner's
 * --kunit-tool check (kunit_tool.c; pure, no I/O).
 */
#ifndef MMLAB_KUNIT_TOOL_H
#define MMLAB_KUNIT_TOOL_H

#include "ktap.h"

/*
 * Linux's tools/testing/kunit/kunit.py "parse" prints (stdout, no colours
 * when not a terminal; every line prefixed "[HH:MM:SS] "):
 *   [ERROR] Test: <name>: <message>          one per parser error
 *   Testing complete. Ran N tests: passed: P, failed: F, crashed: C,
 *     skipped: S, errors: E                  (zero fields are left out)
 * and exits 0 iff the overall status is "success" (a parse error such as a
 * wrong test number does NOT change the exit status), 1 otherwise (failed,
 * crashed, all skipped, no tests, or a Python exception).
 */
struct kunit_tool_summary {
	bool complete;       /* "Testing complete." line seen */
	int ran, passed, failed, crashed, skipped, errors;
	int error_lines;     /* "[ERROR] Test: " lines */
	char *error_text;    /* those lines without the timestamp, '\n'-terminated */
};

/* Parse kunit.py's output (NUL-terminated). Free with kunit_tool_summary_free. */
void kunit_tool_parse_output(const char *out, struct kunit_tool_summary *s);
void kunit_tool_summary_free(struct kunit_tool_summary *s);

/* Judge one "kunit.py parse" run against our own counts for the same log.
 * exit_status uses the KTAP_EXIT_SIGNAL encoding; timed_out/timeout_s
 * describe a killed run.  Passes only if kunit.py completed, exited 0, or
 * 1 with failed/crashed/only-skipped tests, reported no parser error, and
 * counted exactly our passed, failed (= its failed + crashed) and skipped.
 * Returns the status and sets *diag (malloc'd, '\n'-terminated lines, first
 * line = one-line reason; "" when passed). */
enum ktap_status kunit_tool_judge(const char *out, int exit_status, bool timed_out,
				  int timeout_s, int passed, int failed, int skipped,
				  char **diag);

#endif /* MMLAB_KUNIT_TOOL_H */
