/*
 * kunit_tool.c - reads the output of Linux's kunit_tool ("kunit.py parse")
 * for mmlab-runner's --kunit-tool check, and judges it against the
 * runner's own counts for the same log (no I/O; see kunit_tool.h).
 *
 * Invariant: the check passes only if kunit.py completed, reported no
 * parse error, and counted what the KTAP judge counted.
 */
#define _GNU_SOURCE
#include "kunit_tool.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRORS_CAP (16 * 1024)  /* limit of the error lines kept */
#define LINE_CAP (64 * 1024)    /* longer lines are cut */

/* Skip kunit_printer's "[HH:MM:SS] " prefix. */
static const char *skip_kt_timestamp(const char *s)
{
	const char *q = s;
	if (*q != '[')
		return s;
	for (q++; isdigit((unsigned char)*q) || *q == ':'; q++)
		;
	return q > s + 1 && q[0] == ']' && q[1] == ' ' ? q + 2 : s;
}

void kunit_tool_parse_output(const char *out, struct kunit_tool_summary *s)
{
	struct sbuf err = {.limit = ERRORS_CAP};
	memset(s, 0, sizeof(*s));
	char *line = xrealloc(NULL, LINE_CAP);
	for (const char *p = out; *p;) {
		size_t n = strcspn(p, "\r\n");
		char *raw = xstrndup(p, n);
		ktap_clean(line, LINE_CAP, raw); /* colours, if it ever thinks it is a tty */
		free(raw);
		p += n;
		while (*p == '\r' || *p == '\n')
			p++;
		const char *t = skip_kt_timestamp(line);
		if (!strncmp(t, "[ERROR] Test: ", 14)) {
			s->error_lines++;
			sb_line(&err, t);
		} else if (!strncmp(t, "Testing complete. Ran ", 22)) {
			/* the last one wins (a kernel line could look like it) */
			s->complete = true;
			s->passed = s->failed = s->crashed = s->skipped = s->errors = 0;
			s->ran = atoi(t + 22);
			const char *f = strstr(t, "tests:");
			for (f = f ? f + 6 : ""; *f;) {
				while (*f == ' ' || *f == ',')
					f++;
				size_t k = strcspn(f, ":");
				if (!f[k])
					break;
				int val = atoi(f + k + 1);
				if (k == 6 && !strncmp(f, "passed", 6))
					s->passed = val;
				else if (k == 6 && !strncmp(f, "failed", 6))
					s->failed = val;
				else if (k == 7 && !strncmp(f, "crashed", 7))
					s->crashed = val;
				else if (k == 7 && !strncmp(f, "skipped", 7))
					s->skipped = val;
				else if (k == 6 && !strncmp(f, "errors", 6))
					s->errors = val;
				f += k + 1;
				f += strcspn(f, ",");
			}
		}
	}
	free(line);
	s->error_text = sb_take(&err);
}

void kunit_tool_summary_free(struct kunit_tool_summary *s)
{
	free(s->error_text);
	s->error_text = NULL;
}

enum ktap_status kunit_tool_judge(const char *out, int exit_status, bool timed_out,
				  int timeout_s, int passed, int failed, int skipped,
				  char **diag)
{
	struct kunit_tool_summary s;
	struct sbuf b = {0};
	kunit_tool_parse_output(out, &s);
	int nerr = s.errors > s.error_lines ? s.errors : s.error_lines;
	int kfailed = s.failed + s.crashed;
	bool counts_ok = s.passed == passed && kfailed == failed && s.skipped == skipped;
	char *counts = xasprintf("kunit.py counted passed %d, failed %d, crashed %d, skipped %d; "
				 "mmlab-runner counted passed %d, failed %d, skipped %d",
				 s.passed, s.failed, s.crashed, s.skipped, passed, failed, skipped);
	char *why = NULL;
	if (timed_out)
		why = xasprintf("kunit.py timed out after %d s", timeout_s);
	else if (exit_status < 0)
		why = xasprintf("kunit.py killed by signal %d", -exit_status);
	else if (!s.complete)
		why = xasprintf("kunit.py printed no \"Testing complete.\" summary (exit status %d)",
				exit_status);
	else if (nerr)
		why = xasprintf("kunit.py reported %d parse error%s", nerr, nerr == 1 ? "" : "s");
	else if (!counts_ok)
		why = xasprintf("kunit.py's counts differ from ours");
	else if (exit_status != 0 && exit_status != 1)
		why = xasprintf("kunit.py exited with status %d", exit_status);
	else if (exit_status == 0 && kfailed)
		why = xasprintf("kunit.py exited 0 but counted %d failed/crashed", kfailed);
	else if (exit_status == 1 && !kfailed && s.passed)
		why = xasprintf("kunit.py exited 1 but counted no failed or crashed test");
	if (!why) {
		free(counts);
		kunit_tool_summary_free(&s);
		*diag = xstrdup("");
		return KTAP_PASS;
	}
	sb_line(&b, why);
	if (s.error_text[0])
		sb_add(&b, s.error_text);
	if (s.complete)
		sb_line(&b, counts);
	if (!s.complete || timed_out) {
		/* no summary: show the tail of its output (e.g. a traceback) */
		const char *tail = out + strlen(out);
		for (int lines = 0; tail > out && lines < 15; lines++) {
			tail--;
			while (tail > out && tail[-1] != '\n')
				tail--;
		}
		if (*tail) {
			sb_line(&b, "kunit.py output (tail):");
			for (const char *q = tail; *q;) {
				size_t n = strcspn(q, "\n");
				sb_add(&b, "  ");
				sb_addn(&b, q, n);
				sb_addn(&b, "\n", 1);
				q += n;
				if (*q)
					q++;
			}
		}
	}
	free(why);
	free(counts);
	kunit_tool_summary_free(&s);
	*diag = sb_take(&b);
	return KTAP_FAIL;
}
