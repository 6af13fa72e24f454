/*
 * judge.c - the boot judge of mmlab-runner (no I/O): turns what the KTAP
 * parser (ktap.c) collected and the run's exit status into the verdict
 * (ktap_finish), judges boots that must panic (ktap_expect_panic: the
 * expected report lines, in order, and exit 37), and adds external checks
 * to a finished run (ktap_add_check).
 *
 * Invariant: a run passes only when the KTAP stream is complete and well
 * formed, at least one case ran, no case failed and the exit status means
 * "all passed"; every failed verdict has failed >= 1 (a synthetic "boot"
 * case is charged when nothing else could be).  The reason is the first
 * that applies: timeout, panic, crash, no KTAP, the first structural error,
 * no case run, exit mismatch, failed cases (ktap.h).  Single-threaded: no
 * locking.
 */
#define _GNU_SOURCE
#include "ktap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ktap_expect_panic(struct ktap_parser *p, const char *const *lines, size_t n)
{
	if (!p->shadow)
		p->shadow = ktap_new(p->kind, p->timeout_s);
	for (size_t i = 0; i < p->nexpect; i++)
		free(p->expect[i]);
	free(p->expect);
	free(p->expect_seen);
	p->expect = xrealloc(NULL, n * sizeof(*p->expect));
	p->expect_seen = xrealloc(NULL, n * sizeof(*p->expect_seen));
	for (size_t i = 0; i < n; i++) {
		p->expect[i] = xstrdup(lines[i]);
		p->expect_seen[i] = false;
	}
	p->nexpect = n;
	p->expect_pos = 0;
}

/* Panic mode: match one cleaned line against the expected ones. A line
 * matches at most one expected line (the next one in order). */
void ktap_panic_match(struct ktap_parser *p, const char *line)
{
	if (!strncmp(line, "[qemu stderr] ", 14) || !strncmp(line, "[host stderr] ", 14))
		return; /* not serial output */
	for (size_t i = p->expect_pos; i < p->nexpect; i++)
		if (!p->expect_seen[i] && strstr(line, p->expect[i]))
			p->expect_seen[i] = true;
	if (p->expect_pos < p->nexpect && strstr(line, p->expect[p->expect_pos]))
		p->expect_pos++;
}

/* ktap_finish() in panic mode: one case, panic.report. */
static const struct ktap_verdict *panic_finish(struct ktap_parser *p, int exit_status,
					       bool timed_out)
{
	struct ktap_verdict *v = &p->v;
	if (p->partial.len)
		ktap_feed_line(p, p->partial.s);
	const struct ktap_verdict *kv = ktap_finish(p->shadow, exit_status, timed_out);
	while (ktap_next_event(p->shadow))
		;
	bool ktap = ktap_started(p->shadow);
	char ktap_desc[600];
	if (!ktap)
		snprintf(ktap_desc, sizeof(ktap_desc), "no KTAP output");
	else if (kv->pass)
		snprintf(ktap_desc, sizeof(ktap_desc),
			 "KTAP run complete: %d passed, %d failed, %d skipped", kv->passed,
			 kv->failed, kv->skipped);
	else
		snprintf(ktap_desc, sizeof(ktap_desc), "KTAP: %s", kv->reason_text);

	memset(v, 0, sizeof(*v));
	v->reason = KTAP_R_NONE;
	const char *want = "expected a kernel panic (exit 37)";
#define REASON(r, ...) (v->reason = (r), snprintf(v->reason_text, sizeof(v->reason_text), __VA_ARGS__))
	if (timed_out)
		REASON(KTAP_R_TIMEOUT, "%s, but timed out after %d s", want, p->timeout_s);
	else if (exit_status < 0)
		REASON(KTAP_R_NO_PANIC, "%s, got killed by signal %d", want, -exit_status);
	else if (exit_status == KTAP_QEMU_EXIT_PASS)
		REASON(KTAP_R_NO_PANIC, "%s, got exit %d: a clean exit (%.400s)", want, exit_status,
		       ktap_desc);
	else if (exit_status == KTAP_QEMU_EXIT_FAIL)
		REASON(KTAP_R_NO_PANIC, "%s, got exit %d: a test failed (%.400s)", want, exit_status,
		       ktap_desc);
	else if (exit_status != KTAP_QEMU_EXIT_PANIC)
		REASON(KTAP_R_NO_PANIC, "%s, got exit %d: QEMU crashed", want, exit_status);
	else if (p->expect_pos < p->nexpect) {
		size_t i = p->expect_pos;
		if (p->expect_seen[i])
			REASON(KTAP_R_PANIC_REPORT,
			       "panic report lacks: %s (out of order: it appears only on or before "
			       "the line matching '%s')", p->expect[i], p->expect[i - 1]);
		else
			REASON(KTAP_R_PANIC_REPORT, "panic report lacks: %s", p->expect[i]);
	}
#undef REASON
	v->pass = v->reason == KTAP_R_NONE;
	v->consistent = !v->pass; /* panic.report carries the failure */

	struct sbuf b = {0};
	if (!v->pass) {
		char *l;
		sb_line(&b, v->reason_text);
		l = xasprintf("expected output: %zu of %zu line%s found in order", p->expect_pos,
			      p->nexpect, p->nexpect == 1 ? "" : "s");
		sb_line(&b, l);
		free(l);
		for (size_t i = p->expect_pos; i < p->nexpect; i++) {
			if (i == p->expect_pos && p->expect_seen[i])
				l = xasprintf("  missing: %s (out of order: only on or before the line "
					      "matching '%s')", p->expect[i], p->expect[i - 1]);
			else if (i > p->expect_pos && p->expect_seen[i])
				l = xasprintf("  not reached (follows a missing line, present in the "
					      "log): %s", p->expect[i]);
			else
				l = xasprintf("  missing: %s", p->expect[i]);
			sb_line(&b, l);
			free(l);
		}
		if (ktap && !strstr(v->reason_text, ktap_desc))
			sb_line(&b, ktap_desc);
		if (p->pre_count) {
			size_t first = p->pre_count > PRE_TAIL ? p->pre_count - PRE_TAIL : 0;
			sb_line(&b, "last output lines:");
			for (size_t i = first; i < p->pre_count; i++) {
				sb_add(&b, "  ");
				sb_line(&b, p->pre_tail[i % PRE_TAIL]);
			}
		} else {
			sb_line(&b, "no output at all");
		}
	}
	struct ktap_suite *s = new_suite(p, 0, "panic");
	s->plan = 1;
	s->state = v->pass ? KTAP_SUITE_OK : KTAP_SUITE_NOT_OK;
	add_case(p, s, "report", 1, v->pass ? KTAP_PASS : KTAP_FAIL, NULL, sb_take(&b), false);
	v->passed = p->passed;
	v->failed = p->failed;
	v->skipped = p->skipped;
	v->errors = xstrdup("");
	p->finished = true;
	return v;
}

/* Where the output stopped, for runtime failure reasons. */
static void describe_position(struct ktap_parser *p, char *buf, size_t n)
{
	struct node *top = &p->stack[0];
	if (!p->started) {
		snprintf(buf, n, "before any KTAP output");
	} else if (p->top >= 1) {
		struct node *s = &p->stack[1];
		int c = s->nresults + 1;
		if (s->plan >= 0 && c > s->plan)
			snprintf(buf, n, "in suite %s after its last case", suite_name(s->suite));
		else if (p->top >= 2 && p->stack[2].name)
			snprintf(buf, n, "in suite %s case %d (%s)", suite_name(s->suite), c,
				 p->stack[2].name);
		else
			snprintf(buf, n, "in suite %s case %d", suite_name(s->suite), c);
	} else if (top->nresults == 0) {
		snprintf(buf, n, "before the first suite");
	} else if (top->plan >= 0 && top->nresults >= top->plan) {
		snprintf(buf, n, "after the last suite");
	} else {
		snprintf(buf, n, "after suite %s", suite_name(p->suites[p->nsuites - 1]));
	}
}

const struct ktap_verdict *ktap_finish(struct ktap_parser *p, int exit_status, bool timed_out)
{
	struct ktap_verdict *v = &p->v;
	char where[400];
	if (p->finished)
		return v;
	if (p->shadow)
		return panic_finish(p, exit_status, timed_out);
	if (p->partial.len)
		ktap_feed_line(p, p->partial.s);
	describe_position(p, where, sizeof(where));

	/* Unclaimed diagnostics (often a panic or exception dump) go to the
	 * first case charged below, or to the boot case. */
	for (int d = p->top; d >= 0; d--) {
		struct node *n = &p->stack[d];
		if (n->diag.len)
			sb_add(&p->finish_diag, n->diag.s);
		sb_free(&n->diag);
	}
	if (!p->started && p->pre_count) {
		size_t first = p->pre_count > PRE_TAIL ? p->pre_count - PRE_TAIL : 0;
		sb_line(&p->finish_diag, "last output lines:");
		for (size_t i = first; i < p->pre_count; i++) {
			sb_add(&p->finish_diag, "  ");
			sb_line(&p->finish_diag, p->pre_tail[i % PRE_TAIL]);
		}
	}
	if (p->started) {
		close_to(p, 0);
		struct node *t = &p->stack[0];
		if (t->plan < 0) {
			require_plan(p, 0);
		} else if (t->nresults < t->plan) {
			int k = t->nresults + 1;
			if (k == t->plan)
				record_error(p, KTAP_R_SUITE_MISSING, "suite %d of %ld missing", k, t->plan);
			else
				record_error(p, KTAP_R_SUITE_MISSING, "suites %d..%ld of %ld missing", k,
					     t->plan, t->plan);
		}
	}

	int pass_code = p->kind == KTAP_KIND_QEMU ? KTAP_QEMU_EXIT_PASS : 0;
	int fail_code = p->kind == KTAP_KIND_QEMU ? KTAP_QEMU_EXIT_FAIL : 1;
	const char *who = p->kind == KTAP_KIND_QEMU ? "QEMU" : "program";
	memset(v, 0, sizeof(*v));
	v->reason = KTAP_R_NONE;
#define REASON(r, ...) (v->reason = (r), snprintf(v->reason_text, sizeof(v->reason_text), __VA_ARGS__))
	if (timed_out)
		REASON(KTAP_R_TIMEOUT, "timed out after %d s %s", p->timeout_s, where);
	else if (p->kind == KTAP_KIND_QEMU && exit_status == KTAP_QEMU_EXIT_PANIC)
		REASON(KTAP_R_PANIC, "kernel panic (exit %d) %s", exit_status, where);
	else if (exit_status < 0)
		REASON(KTAP_R_CRASH, "%s killed by signal %d %s", who, -exit_status, where);
	else if (exit_status != pass_code && exit_status != fail_code)
		REASON(KTAP_R_CRASH, "%s crashed: exit status %d %s (expected %d or %d)", who,
		       exit_status, where, pass_code, fail_code);
	else if (!p->started)
		REASON(KTAP_R_NO_KTAP, "no KTAP output");
	else if (p->first_err != KTAP_R_NONE)
		REASON(p->first_err, "%s", p->first_err_text);
	else if (p->passed + p->failed + p->skipped == 0)
		/* A run of nothing is not a pass, whatever the exit status says
		 * (a mistyped ktest.filter= ran 0 cases and exited 33): kunit_tool
		 * reports the same stream as "[ERROR] Test: main: 0 tests run!".
		 * The kernel exits 35 for it (tests/kunit_boot.c). */
		REASON(KTAP_R_NO_TESTS, "no test case ran (0 tests run, exit %d): does the filter "
		       "match any case?", exit_status);
	else if (exit_status == pass_code && p->failed > 0)
		REASON(KTAP_R_EXIT_MISMATCH, "exit code disagrees with KTAP (exit %d but %d case%s failed)",
		       exit_status, p->failed, p->failed == 1 ? "" : "s");
	else if (exit_status == fail_code && p->failed == 0)
		REASON(KTAP_R_EXIT_MISMATCH, "exit code disagrees with KTAP (exit %d but no case failed)",
		       exit_status);
	else if (p->failed > 0) {
		REASON(KTAP_R_TESTS_FAILED, "%d of %d case%s failed", p->failed,
		       p->passed + p->failed + p->skipped,
		       p->passed + p->failed + p->skipped == 1 ? "" : "s");
		v->consistent = true;
	}
#undef REASON
	v->pass = v->reason == KTAP_R_NONE;

	if (!v->pass && p->failed == 0) {
		/* Nothing could be charged: the boot itself is the failed case. */
		struct sbuf b = {0};
		sb_line(&b, v->reason_text);
		if (p->errors.len && strcmp(p->errors.s, v->reason_text) != 0)
			sb_add(&b, p->errors.s);
		if (p->finish_diag.len)
			sb_add(&b, p->finish_diag.s);
		sb_free(&p->finish_diag);
		p->boot_case = add_case(p, NULL, "boot", 0, KTAP_FAIL, NULL, sb_take(&b), true);
	}
	v->boot_case = p->boot_case;
	v->passed = p->passed;
	v->failed = p->failed;
	v->skipped = p->skipped;
	v->errors = xstrdup(p->errors.s ? p->errors.s : "");
	p->finished = true;
	return v;
}

const struct ktap_case *ktap_add_check(struct ktap_parser *p, const char *suite,
				       const char *name, enum ktap_status st,
				       const char *skip_reason, const char *diag)
{
	struct ktap_suite *s = new_suite(p, 0, suite);
	s->plan = 1;
	s->state = st == KTAP_PASS ? KTAP_SUITE_OK : st == KTAP_FAIL ? KTAP_SUITE_NOT_OK
								     : KTAP_SUITE_SKIP;
	/* not synthetic: it did report a result (and must not take the
	 * unclaimed end-of-output diagnostics) */
	const struct ktap_case *c = add_case(p, s, name, 1, st, skip_reason,
					     xstrdup(diag ? diag : ""), false);
	struct ktap_verdict *v = &p->v;
	int total = p->passed + p->failed + p->skipped;
	if (st == KTAP_FAIL && (v->pass || v->reason == KTAP_R_TESTS_FAILED)) {
		v->pass = false;
		v->consistent = true;
		v->reason = KTAP_R_TESTS_FAILED;
		snprintf(v->reason_text, sizeof(v->reason_text), "%d of %d case%s failed", p->failed,
			 total, total == 1 ? "" : "s");
	} else if (v->reason == KTAP_R_TESTS_FAILED) {
		snprintf(v->reason_text, sizeof(v->reason_text), "%d of %d case%s failed", p->failed,
			 total, total == 1 ? "" : "s");
	}
	v->passed = p->passed;
	v->failed = p->failed;
	v->skipped = p->skipped;
	return c;
}
