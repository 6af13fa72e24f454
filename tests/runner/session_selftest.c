/*
 * session_selftest.c - the runner self-test's suite "runner_session": the
 * session script parser (session.c) held to good and bad scripts, and a
 * session run driven without a machine: output fed by hand, a clock moved
 * by hand, the KTAP it emits parsed by the runner's own parser (ktap.c)
 * and judged with the exit status the run hands back.
 */
#define _GNU_SOURCE
#include "session_selftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "session.h"
#include "xalloc.h"

/* ---- The parser ---- */

static bool parses(const char *text, struct session *s, char *err, size_t errlen)
{
	return session_parse("t.session", text, s, err, errlen) == 0;
}

static bool parser_good_script(char *why, size_t n)
{
	struct session s;
	char err[256];
	const char *text = "# a comment\nsuite sh\ntimeout 5\n"
			   "skip_if \"no tty\" the reason here\n"
			   "step one\n\tsend \"echo hi\\r\"\n\twait \"\\r\\nhi\\r\\n\" 9\n"
			   "step two linux-only\n\tsend \"\\x03\\x1a\"\n\tend\n";
	if (!parses(text, &s, err, sizeof(err))) {
		snprintf(why, n, "refused: %s", err);
		return false;
	}
	bool ok = !strcmp(s.suite, "sh") && s.timeout_s == 5 && s.nsteps == 2 && s.nskips == 1 &&
		  !strcmp(s.skips[0].reason, "the reason here") && !strcmp(s.skips[0].text, "no tty") &&
		  s.steps[0].nactions == 2 && s.steps[0].actions[0].kind == SESSION_SEND &&
		  !strcmp(s.steps[0].actions[0].text, "echo hi\r") && s.steps[0].actions[1].timeout_s == 9 &&
		  !strcmp(s.steps[0].actions[1].text, "\r\nhi\r\n") && s.steps[1].only == SESSION_LINUX_ONLY &&
		  s.steps[1].actions[0].len == 2 && s.steps[1].actions[0].text[0] == 3 &&
		  s.steps[1].actions[0].text[1] == 0x1a && s.steps[1].actions[1].kind == SESSION_END &&
		  s.steps[1].actions[1].timeout_s == 5;
	if (!ok)
		snprintf(why, n, "parsed, but not as written");
	session_free(&s);
	return ok;
}

static bool parser_bad_scripts(char *why, size_t n)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{"", "t.session:0: no step"},
		{"send \"x\"\n", "t.session:1: an action before the first step"},
		{"step a\n", "t.session:1: step a has no action"},
		{"step a\n\tsend x\n", "t.session:2: expected a double-quoted string"},
		{"step a\n\tsend \"x\n", "t.session:2: unterminated string"},
		{"step a\n\tsend \"\"\n", "t.session:2: empty string"},
		{"step a\n\tsend \"\\x00\"\n", "t.session:2: \\x needs one or two hex digits, not 00"},
		{"step a\n\tsend \"\\q\"\n", "t.session:2: unknown escape"},
		{"step a\n\twait \"x\" 0\n", "t.session:2: expected a number of seconds"},
		{"step a\n\twait \"x\" 5 more\n", "t.session:2: expected a number of seconds"},
		{"step a\n\tend\n\tsend \"x\"\n", "t.session:3: nothing can follow end"},
		{"step a b\n\tend\n", "t.session:1: step: after the name"},
		{"step a/b\n\tend\n", "t.session:1: step: a name of letters"},
		{"step a\n\tend\nstep a\n\tend\n", "t.session:3: step: a name already used"},
		{"step a\n\tend\nsuite s\n", "t.session:3: suite: before the first step"},
		{"skip_if \"x\"\nstep a\n\tend\n", "t.session:1: skip_if: the reason must follow"},
		{"type \"x\"\n", "t.session:1: unknown directive"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct session s;
		char err[256] = "";
		if (parses(bad[i].text, &s, err, sizeof(err))) {
			session_free(&s);
			snprintf(why, n, "script %zu taken", i);
			return false;
		}
		if (strncmp(err, bad[i].message, strlen(bad[i].message))) {
			snprintf(why, n, "script %zu: \"%s\", not \"%s...\"", i, err, bad[i].message);
			return false;
		}
	}
	return true;
}

static bool filter_picks_steps(char *why, size_t n)
{
	struct session s;
	char err[256];
	if (!parses("suite shell\nstep echo\n\tsend \"x\"\n", &s, err, sizeof(err))) {
		snprintf(why, n, "refused: %s", err);
		return false;
	}
	bool ok = session_matches(&s, NULL) && session_matches(&s, "shell.*") &&
		  session_matches(&s, "*.echo") && !session_matches(&s, "vfs.*") &&
		  session_matches(&s, "vfs.*,shell.echo") && !session_matches(&s, "vfs.*,shell.x");
	session_free(&s);
	if (!ok)
		snprintf(why, n, "wrong match");
	return ok;
}

/* ---- A run without a machine ---- */

struct fake {
	struct ktap_parser *p;
	char sent[256];
	size_t nsent;
	bool stopped;
};

static void fake_emit(void *ctx, const char *line) { ktap_feed_line(((struct fake *)ctx)->p, line); }
static void fake_send(void *ctx, const char *b, size_t len)
{
	struct fake *f = ctx;
	if (f->nsent + len < sizeof(f->sent)) {
		memcpy(f->sent + f->nsent, b, len);
		f->nsent += len;
	}
}
static void fake_stop(void *ctx) { ((struct fake *)ctx)->stopped = true; }

static const char script[] = "suite shell\nskip_if \"no tty\" no terminal\n"
			     "step prompt\n\twait \"$ \" 10\n"
			     "step echo\n\tsend \"echo hi\\r\"\n\twait \"\\r\\nhi\\r\\n\"\n\twait \"$ \"\n"
			     "step only_mmlab mmlab-only\n\tsend \"x\\r\"\n"
			     "step poweroff\n\tsend \"poweroff\\r\"\n\tend 20\n";

/* Runs script on kernel k: out[] fed at times t[] (seconds), then the clock
 * moved to end_at, then the machine's end with status; the verdict's counts
 * and the status the run hands back must be as given. */
struct run_case {
	const char *name;
	enum kernel k;
	const char *out[4];
	double end_at;
	int status;        /* the machine's exit status; -1: never ends by itself */
	int want_status;
	int passed, failed, skipped;
	bool want_stop;
	const char *want_sent;
};

static const struct run_case run_cases[] = {
	{"session_passes_and_ends", KERNEL_LINUX, {"boot...$ ", "echo hi\r\nhi\r\n$ ", NULL}, 5, 0,
	 KTAP_QEMU_EXIT_PASS, 3, 0, 1, false, "echo hi\rpoweroff\r"},
	{"session_mmlab_power_off_status", KERNEL_MMLAB, {"$ ", "echo hi\r\nhi\r\n$ ", NULL}, 5, 33,
	 KTAP_QEMU_EXIT_PASS, 4, 0, 0, false, "echo hi\rx\rpoweroff\r"},
	{"session_wait_runs_out", KERNEL_LINUX, {"$ ", "echo hi\r\nno\r\n", NULL}, 100, -1,
	 KTAP_QEMU_EXIT_FAIL, 1, 1, 2, true, "echo hi\r"},
	{"session_skip_if_line", KERNEL_MMLAB, {"init: no tty\r\n", NULL}, 1, -1, KTAP_QEMU_EXIT_PASS,
	 0, 0, 4, true, ""},
	{"session_wrong_end_status", KERNEL_MMLAB, {"$ ", "echo hi\r\nhi\r\n$ ", NULL}, 5, 37, 37, 3,
	 1, 0, false, "echo hi\rx\rpoweroff\r"},
	{"session_machine_dies_mid_step", KERNEL_LINUX, {"$ ", NULL}, 2, 0, 0, 1, 1, 2, false,
	 "echo hi\r"},
};

static bool run_one(const struct run_case *c, char *why, size_t n)
{
	struct session s;
	char err[256];
	if (!parses(script, &s, err, sizeof(err))) {
		snprintf(why, n, "refused: %s", err);
		return false;
	}
	struct fake f = {.p = ktap_new(KTAP_KIND_QEMU, 60)};
	struct session_io io = {fake_emit, fake_send, fake_stop, &f};
	struct session_run *r = session_run_new(&s, c->k, &io);
	session_run_start(r, 0);
	double t = 0;
	for (int i = 0; c->out[i]; i++) {
		t += 1;
		session_run_output(r, c->out[i], strlen(c->out[i]), t);
		session_run_tick(r, t);
	}
	session_run_tick(r, c->end_at);
	int status = session_run_finish(r, c->status < 0 ? KTAP_EXIT_SIGNAL(9) : c->status, false);
	session_run_free(r);
	const struct ktap_verdict *v = ktap_finish(f.p, status, false);
	f.sent[f.nsent] = '\0';
	bool ok = status == c->want_status && v->passed == c->passed && v->failed == c->failed &&
		  v->skipped == c->skipped && f.stopped == c->want_stop && !strcmp(f.sent, c->want_sent);
	if (!ok)
		snprintf(why, n, "status %d (want %d), %d/%d/%d passed/failed/skipped (want %d/%d/%d), "
			 "stopped %d, sent \"%s\"", status, c->want_status, v->passed, v->failed, v->skipped,
			 c->passed, c->failed, c->skipped, f.stopped, f.sent);
	ktap_free(f.p);
	session_free(&s);
	return ok;
}

int run_session_suite(int number, int *passed_out)
{
	size_t nrun = sizeof(run_cases) / sizeof(run_cases[0]);
	size_t total = 3 + nrun;
	int failed = 0;
	printf("    KTAP version 1\n    # Subtest: runner_session\n    1..%zu\n", total);
	for (size_t i = 0; i < total; i++) {
		char why[512] = "";
		const char *name;
		bool ok;
		if (i == 0) {
			name = "parser_good_script";
			ok = parser_good_script(why, sizeof(why));
		} else if (i == 1) {
			name = "parser_bad_scripts";
			ok = parser_bad_scripts(why, sizeof(why));
		} else if (i == 2) {
			name = "filter_picks_steps";
			ok = filter_picks_steps(why, sizeof(why));
		} else {
			name = run_cases[i - 3].name;
			ok = run_one(&run_cases[i - 3], why, sizeof(why));
		}
		if (why[0])
			printf("    # %s: %s\n", name, why);
		printf("    %s %zu %s\n", ok ? "ok" : "not ok", i + 1, name);
		fflush(stdout);
		failed += !ok;
	}
	printf("# runner_session: pass:%d fail:%d skip:0 total:%zu\n", (int)total - failed, failed, total);
	printf("%s %d runner_session\n", failed ? "not ok" : "ok", number);
	*passed_out = (int)total - failed;
	return failed;
}
