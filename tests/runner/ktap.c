/*
 * ktap.c - the streaming KTAP parser of mmlab-runner (no I/O).
 *
 * Input model (KTAP version 1 as printed by Linux KUnit):
 *   - Everything before the first "KTAP version" is boot noise.  The header
 *     may be preceded by garbage on the same line; that prefix is then
 *     stripped from the following lines that start with it (or, if it looks
 *     like a printk timestamp, any timestamp is stripped), like kunit_tool.
 *   - Nesting is expressed by indentation, 4 spaces per level.  Level 0 holds
 *     the top-level plan and the suite results; a suite's "KTAP version" /
 *     "# Subtest:" header, plan and case results are at level 1; deeper
 *     levels (parameterised cases) are handled by the same code.
 *   - "# ..." lines are diagnostics for the next result at their level;
 *     any other line inside the run (kernel log output) is a diagnostic for
 *     the innermost open test.
 *
 * The parser keeps a stack of open tests (struct node).  A result line at
 * the level of the innermost open test is a leaf case; a result line one
 * level up closes the innermost test.  Each problem found is recorded as a
 * structural error; the judge (judge.c) makes the first one the verdict's
 * reason unless a runtime event (timeout, panic, crash) explains the run
 * better.
 *
 * Invariant: every case that enters a suite is counted exactly once as
 * passed, failed or skipped and is queued exactly once as an event (see
 * ktap.h).  Single-threaded: one parser per run, no locking.
 */
#define _GNU_SOURCE
#include "ktap_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ktap_reason_name(enum ktap_reason r)
{
	switch (r) {
	case KTAP_R_NONE: return "none";
	case KTAP_R_TESTS_FAILED: return "tests_failed";
	case KTAP_R_EXIT_MISMATCH: return "exit_mismatch";
	case KTAP_R_NO_TESTS: return "no_tests";
	case KTAP_R_BAD_STRUCTURE: return "bad_structure";
	case KTAP_R_CASE_MISSING: return "case_missing";
	case KTAP_R_SUITE_MISSING: return "suite_missing";
	case KTAP_R_NO_PLAN: return "no_plan";
	case KTAP_R_NO_KTAP: return "no_ktap";
	case KTAP_R_CRASH: return "crash";
	case KTAP_R_PANIC: return "panic";
	case KTAP_R_TIMEOUT: return "timeout";
	case KTAP_R_NO_PANIC: return "no_panic";
	case KTAP_R_PANIC_REPORT: return "panic_report";
	}
	return "?";
}

const char *ktap_status_name(enum ktap_status s)
{
	return s == KTAP_PASS ? "pass" : s == KTAP_FAIL ? "fail" : "skip";
}

/* ------------------------------------------------------- text cleaning */

size_t ktap_clean(char *dst, size_t dstlen, const char *src)
{
	size_t o = 0;
	const unsigned char *s = (const unsigned char *)src;
	if (!dstlen)
		return 0;
	while (*s) {
		if (*s == 0x1b) { /* ESC */
			s++;
			if (*s == '[') { /* CSI: params, intermediates, final */
				s++;
				while (*s && *s >= 0x20 && *s <= 0x3f)
					s++;
				if (*s >= 0x40 && *s <= 0x7e)
					s++;
			} else if (*s == ']' || *s == 'P' || *s == '_' || *s == '^') {
				/* OSC/DCS/APC/PM: up to BEL or ST (ESC \) */
				s++;
				while (*s && *s != 0x07 && !(*s == 0x1b && s[1] == '\\'))
					s++;
				if (*s == 0x07)
					s++;
				else if (*s == 0x1b)
					s += 2;
			} else {
				while (*s >= 0x20 && *s <= 0x2f) /* intermediates */
					s++;
				if (*s >= 0x30 && *s <= 0x7e)
					s++;
			}
			continue;
		}
		if ((*s < 0x20 && *s != '\t') || *s == 0x7f) {
			s++;
			continue;
		}
		if (o + 1 < dstlen)
			dst[o++] = (char)*s;
		s++;
	}
	dst[o] = '\0';
	return o;
}

/* Length of a printk timestamp "[   12.345678] " at s, or 0. */
static size_t ts_len(const char *s)
{
	const char *p = s;
	if (*p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p++ != ']')
		return 0;
	if (*p == ' ')
		p++;
	return (size_t)(p - s);
}

/* ------------------------------------------------------ bookkeeping */

void record_error(struct ktap_parser *p, enum ktap_reason r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sb_line(&p->errors, msg);
	if (p->first_err == KTAP_R_NONE) {
		p->first_err = r;
		snprintf(p->first_err_text, sizeof(p->first_err_text), "%s", msg);
	}
}

static void push_event(struct ktap_parser *p, const struct ktap_case *c)
{
	if (p->ev_len == p->ev_cap) {
		p->ev_cap = p->ev_cap ? p->ev_cap * 2 : 32;
		p->events = xrealloc(p->events, p->ev_cap * sizeof(*p->events));
	}
	p->events[p->ev_len++] = c;
}

struct ktap_suite *new_suite(struct ktap_parser *p, int number, const char *name)
{
	struct ktap_suite *s = xrealloc(NULL, sizeof(*s));
	memset(s, 0, sizeof(*s));
	s->number = number;
	s->name = name ? xstrdup(name) : xasprintf("#%d", number);
	s->plan = -1;
	s->state = KTAP_SUITE_INCOMPLETE;
	s->diag = xstrdup("");
	if (p->nsuites == p->capsuites) {
		p->capsuites = p->capsuites ? p->capsuites * 2 : 8;
		p->suites = xrealloc(p->suites, p->capsuites * sizeof(*p->suites));
	}
	p->suites[p->nsuites++] = s;
	return s;
}

/* Create a counted case; takes ownership of diag (may be NULL). Synthetic
 * cases created while finishing also take the unclaimed end-of-output
 * diagnostics (e.g. a panic message), so they are never lost. */
struct ktap_case *add_case(struct ktap_parser *p, struct ktap_suite *suite,
				  const char *name, int number, enum ktap_status st,
				  const char *skip_reason, char *diag, bool synthetic)
{
	struct ktap_case *c = xrealloc(NULL, sizeof(*c));
	memset(c, 0, sizeof(*c));
	c->suite = suite;
	c->name = xstrdup(name);
	c->number = number;
	c->status = st;
	c->skip_reason = st == KTAP_SKIP ? xstrdup(skip_reason ? skip_reason : "") : NULL;
	c->synthetic = synthetic;
	if (synthetic && p->finish_diag.len) {
		struct sbuf b = {0};
		sb_add(&b, p->finish_diag.s);
		if (diag)
			sb_add(&b, diag);
		free(diag);
		sb_free(&p->finish_diag);
		diag = sb_take(&b);
	}
	c->diag = diag ? diag : xstrdup("");
	if (suite) {
		if (suite->ncases == suite->cap) {
			suite->cap = suite->cap ? suite->cap * 2 : 8;
			suite->cases = xrealloc(suite->cases, suite->cap * sizeof(*suite->cases));
		}
		suite->cases[suite->ncases++] = c;
	}
	if (st == KTAP_PASS)
		p->passed++;
	else if (st == KTAP_FAIL)
		p->failed++;
	else
		p->skipped++;
	push_event(p, c);
	return c;
}

/* Human name of the test whose children live at depth d. */
static const char *node_label(struct ktap_parser *p, int d, char *buf, size_t n)
{
	if (d == 0)
		snprintf(buf, n, "top level");
	else if (d == 1)
		snprintf(buf, n, "suite %s", suite_name(p->stack[1].suite));
	else
		snprintf(buf, n, "case %s.%s", suite_name(p->stack[d].suite), p->stack[d].path);
	return buf;
}

/* The suite and top-level tests must announce their plan before children. */
void require_plan(struct ktap_parser *p, int d)
{
	struct node *n = &p->stack[d];
	if (d > 1 || n->plan >= 0 || n->plan_complained)
		return;
	n->plan_complained = true;
	if (d == 0)
		record_error(p, KTAP_R_NO_PLAN, "missing top-level plan");
	else
		record_error(p, KTAP_R_NO_PLAN, "suite %s: missing plan", suite_name(n->suite));
}

/* Account for one result (or closed subtest) of the test at depth d and
 * check its number against the plan. Returns the expected number. */
static int count_result(struct ktap_parser *p, int d, long num)
{
	struct node *n = &p->stack[d];
	char label[300];
	int expected = n->nresults + 1;
	require_plan(p, d);
	n->content = true;
	if (num != expected)
		record_error(p, KTAP_R_BAD_STRUCTURE, "%s: result %ld out of order (expected %d)",
			     node_label(p, d, label, sizeof(label)), num, expected);
	else if (n->plan >= 0 && expected > n->plan)
		record_error(p, KTAP_R_BAD_STRUCTURE, "%s: result %d beyond plan 1..%ld",
			     node_label(p, d, label, sizeof(label)), expected, n->plan);
	n->nresults++;
	return expected;
}

static char *child_path(struct ktap_parser *p, int d, const char *name)
{
	/* a child of the node at depth d (d >= 1) */
	if (d <= 1)
		return xstrdup(name);
	return xasprintf("%s/%s", p->stack[d].path, name);
}

/* Open a subtest at depth top+1. */
static void push_node(struct ktap_parser *p, const char *name)
{
	int d = p->top + 1;
	struct node *parent = &p->stack[d - 1];
	struct node *n = &p->stack[d];
	require_plan(p, d - 1);
	parent->content = true;
	memset(n, 0, sizeof(*n));
	n->plan = -1;
	n->diag.limit = DIAG_CAP;
	n->name = name ? xstrdup(name) : NULL;
	if (d == 1) {
		n->suite = new_suite(p, parent->nresults + 1, name);
	} else {
		n->suite = parent->suite;
		char tmp[32];
		snprintf(tmp, sizeof(tmp), "#%d", parent->nresults + 1);
		n->path = child_path(p, d - 1, name ? name : tmp);
	}
	p->top = d;
}

static void pop_node(struct ktap_parser *p)
{
	struct node *n = &p->stack[p->top];
	free(n->name);
	free(n->path);
	sb_free(&n->diag);
	memset(n, 0, sizeof(*n));
	p->top--;
}

/* Charge planned-but-missing results of the test at depth d as failed
 * cases.  Returns true if anything was charged. */
static bool charge_missing(struct ktap_parser *p, int d)
{
	struct node *n = &p->stack[d];
	char label[300];
	if (n->plan < 0 || n->nresults >= n->plan)
		return false;
	record_error(p, KTAP_R_CASE_MISSING, "%s: plan 1..%ld but only %d result%s",
		     node_label(p, d, label, sizeof(label)), n->plan, n->nresults,
		     n->nresults == 1 ? "" : "s");
	for (long k = n->nresults + 1; k <= n->plan; k++) {
		char tmp[32];
		snprintf(tmp, sizeof(tmp), "#%ld", k);
		char *name = child_path(p, d, tmp);
		add_case(p, n->suite, name, d == 1 ? (int)k : 0, KTAP_FAIL, NULL,
			 k == n->nresults + 1 ? sb_take(&n->diag) : NULL, true);
		free(name);
	}
	n->child_failed = true;
	return true;
}

/* Close the innermost test without a result line (output ended or a
 * sibling started): charge what is missing. */
static void close_unfinished(struct ktap_parser *p)
{
	int d = p->top;
	struct node *n = &p->stack[d];
	struct node *parent = &p->stack[d - 1];
	if (d == 1) {
		if (p->stack[0].plan >= 0)
			record_error(p, KTAP_R_SUITE_MISSING, "suite %s (%d of %ld) did not finish",
				     suite_name(n->suite), parent->nresults + 1, p->stack[0].plan);
		else
			record_error(p, KTAP_R_SUITE_MISSING, "suite %s did not finish",
				     suite_name(n->suite));
		charge_missing(p, d);
		if (n->plan < 0)
			require_plan(p, d);
	} else {
		record_error(p, KTAP_R_CASE_MISSING, "case %s.%s did not finish",
			     suite_name(n->suite), n->path);
		if (!charge_missing(p, d)) /* the case that was running */
			add_case(p, n->suite, n->path, 0, KTAP_FAIL, NULL, sb_take(&n->diag), true);
	}
	parent->nresults++;
	parent->child_failed = true;
	parent->content = true;
	pop_node(p);
}

/* Pop open tests until the innermost one is at depth `keep`. */
void close_to(struct ktap_parser *p, int keep)
{
	while (p->top > keep)
		close_unfinished(p);
}

/* ------------------------------------------------------ line parsing */

struct result {
	bool ok, skip;
	long num;
	char *name;   /* malloc'd */
	char *reason; /* malloc'd if skip */
};

static bool parse_plan(const char *b, long *n)
{
	if (strncmp(b, "1..", 3) != 0 || !isdigit((unsigned char)b[3]))
		return false;
	char *end;
	*n = strtol(b + 3, &end, 10);
	return *end == '\0' || *end == ' ' || *end == '#';
}

static bool parse_result(const char *b, struct result *r)
{
	const char *s;
	memset(r, 0, sizeof(*r));
	if (strncmp(b, "ok", 2) == 0) {
		r->ok = true;
		s = b + 2;
	} else if (strncmp(b, "not ok", 6) == 0) {
		s = b + 6;
	} else {
		return false;
	}
	if (*s != ' ')
		return false;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	char *end;
	r->num = strtol(s, &end, 10);
	s = end;
	if (*s && *s != ' ')
		return false;
	while (*s == ' ')
		s++;
	if (s[0] == '-' && s[1] == ' ')
		s += 2;
	/* Look for a "# SKIP" directive (case-insensitive). */
	const char *name_end = s + strlen(s);
	for (const char *h = strchr(s, '#'); h; h = strchr(h + 1, '#')) {
		const char *d = h + 1;
		while (*d == ' ')
			d++;
		if (strncasecmp(d, "skip", 4) == 0 && (d[4] == '\0' || d[4] == ' ' || d[4] == ':')) {
			r->skip = true;
			name_end = h;
			d += 4;
			if (*d == ':')
				d++;
			while (*d == ' ')
				d++;
			r->reason = xstrdup(d);
			break;
		}
	}
	while (name_end > s && name_end[-1] == ' ')
		name_end--;
	if (name_end == s)
		r->name = xasprintf("#%ld", r->num);
	else
		r->name = xstrndup(s, (size_t)(name_end - s));
	return true;
}

static enum ktap_status result_status(const struct result *r)
{
	return r->skip ? KTAP_SKIP : r->ok ? KTAP_PASS : KTAP_FAIL;
}

/* A result line at the level of the innermost open test: a leaf. */
static void leaf_result(struct ktap_parser *p, struct result *r)
{
	int d = p->top;
	struct node *n = &p->stack[d];
	int number = count_result(p, d, r->num);
	enum ktap_status st = result_status(r);
	char *diag = sb_take(&n->diag);
	if (d == 0) {
		/* A suite result without any subtest lines. */
		struct ktap_suite *s = new_suite(p, number, r->name);
		free(s->diag);
		s->diag = diag;
		if (st == KTAP_SKIP) { /* a wholly skipped suite: one skipped case */
			s->state = KTAP_SUITE_SKIP;
			add_case(p, s, r->name, 1, KTAP_SKIP, r->reason, NULL, false);
		} else {
			s->state = r->ok ? KTAP_SUITE_OK : KTAP_SUITE_NOT_OK;
			record_error(p, KTAP_R_BAD_STRUCTURE, "suite %s: result without subtests", r->name);
		}
		return;
	}
	char *name = child_path(p, d, r->name);
	add_case(p, n->suite, name, d == 1 ? (int)r->num : 0, st, r->reason, diag, false);
	free(name);
	if (st == KTAP_FAIL)
		n->child_failed = true;
}

/* A result line one level above the innermost open test: closes it. */
static void close_result(struct ktap_parser *p, struct result *r)
{
	int d = p->top - 1; /* depth of the parent */
	struct node *c = &p->stack[d + 1];
	struct node *parent = &p->stack[d];
	enum ktap_status st = result_status(r);
	count_result(p, d, r->num);
	if (d + 1 == 1 && c->plan < 0)
		require_plan(p, d + 1);
	bool charged = charge_missing(p, d + 1);

	if (d == 0) {
		struct ktap_suite *s = c->suite;
		if (!c->name) {
			free(s->name);
			s->name = xstrdup(r->name);
		} else if (strcmp(c->name, r->name) != 0) {
			record_error(p, KTAP_R_BAD_STRUCTURE, "suite %s: result line names it %s",
				     c->name, r->name);
		}
		s->state = st == KTAP_SKIP ? KTAP_SUITE_SKIP : st == KTAP_PASS ? KTAP_SUITE_OK
									: KTAP_SUITE_NOT_OK;
		free(s->diag);
		s->diag = sb_take(&parent->diag);
		if (st == KTAP_FAIL && !c->child_failed)
			record_error(p, KTAP_R_BAD_STRUCTURE, "suite %s reported not ok but no case failed",
				     s->name);
		else if (st != KTAP_FAIL && c->child_failed)
			record_error(p, KTAP_R_BAD_STRUCTURE, "suite %s reported %s but a case failed",
				     s->name, st == KTAP_SKIP ? "skipped" : "ok");
	} else if (c->nresults == 0 && !charged) {
		/* A case with a subtest header but no subtests: a plain leaf. */
		char *name = child_path(p, d, r->name);
		struct sbuf b = {0};
		sb_add(&b, c->diag.s ? c->diag.s : "");
		char *pd = sb_take(&parent->diag);
		sb_add(&b, pd);
		free(pd);
		add_case(p, c->suite, name, d == 1 ? (int)r->num : 0, st, r->reason, sb_take(&b), false);
		free(name);
		if (st == KTAP_FAIL)
			parent->child_failed = true;
	} else {
		/* A parameterised case: its leaves were counted, check agreement. */
		sb_free(&parent->diag);
		parent->diag.limit = DIAG_CAP;
		if ((st == KTAP_FAIL) != c->child_failed)
			record_error(p, KTAP_R_BAD_STRUCTURE, "case %s.%s reported %s but %s",
				     suite_name(c->suite), c->path, ktap_status_name(st),
				     c->child_failed ? "a subtest failed" : "no subtest failed");
		if (st == KTAP_FAIL || c->child_failed)
			parent->child_failed = true;
	}
	pop_node(p);
}

static void add_diag(struct node *n, const char *line) { sb_line(&n->diag, line); }

/* One cleaned, right-trimmed line inside the run (prefix already removed). */
static void process_line(struct ktap_parser *p, const char *s)
{
	size_t indent = strspn(s, " ");
	const char *body = s + indent;
	if (!*body)
		return;
	/* the line relative to the innermost level, for free-form diagnostics */
	const char *rel = indent >= 4 * (size_t)p->top ? s + 4 * (size_t)p->top : s;
	bool aligned = indent % 4 == 0;
	int L = (int)(indent / 4);
	bool is_version = strncmp(body, "KTAP version ", 13) == 0 || strncmp(body, "TAP version ", 12) == 0;
	bool is_subtest = strncmp(body, "# Subtest:", 10) == 0;
	long plan;
	struct result r;

	if (!aligned || L >= MAX_DEPTH - 1) {
		add_diag(&p->stack[p->top], rel); /* keep its own indentation */
		return;
	}
	if (is_version || is_subtest) {
		const char *name = NULL;
		if (is_subtest) {
			name = body + 10;
			while (*name == ' ')
				name++;
		}
		struct node *cur = &p->stack[p->top];
		if (is_subtest && L == p->top && p->top > 0 && !cur->content && !cur->name) {
			/* "KTAP version 1" then "# Subtest: name": name the test */
			cur->name = xstrdup(name);
			if (p->top == 1) {
				free(cur->suite->name);
				cur->suite->name = xstrdup(name);
			} else {
				free(cur->path);
				cur->path = child_path(p, p->top - 1, name);
			}
			return;
		}
		if (L == 0) {
			if (is_version)
				record_error(p, KTAP_R_BAD_STRUCTURE,
					     "KTAP output restarted (unexpected reboot?)");
			else
				add_diag(cur, body);
			return;
		}
		if (L > p->top + 1) {
			add_diag(cur, body);
			return;
		}
		close_to(p, L - 1); /* a sibling that never reported */
		push_node(p, name);
		return;
	}
	if (parse_plan(body, &plan)) {
		if (L == p->top + 1 && p->top + 1 < MAX_DEPTH - 1)
			push_node(p, NULL); /* subtest without a header */
		struct node *cur = &p->stack[p->top];
		if (L != p->top) {
			add_diag(cur, body);
			return;
		}
		char label[300];
		if (cur->plan >= 0)
			record_error(p, KTAP_R_BAD_STRUCTURE, "%s: duplicate plan",
				     node_label(p, p->top, label, sizeof(label)));
		else if (cur->plan_complained || cur->nresults > 0)
			record_error(p, KTAP_R_BAD_STRUCTURE, "%s: plan after results",
				     node_label(p, p->top, label, sizeof(label)));
		if (cur->plan < 0) {
			cur->plan = plan;
			if (p->top == 1)
				cur->suite->plan = plan;
		}
		cur->content = true;
		return;
	}
	if (parse_result(body, &r)) {
		if (L == p->top + 1)
			push_node(p, NULL); /* subtest without a header */
		if (L == p->top) {
			leaf_result(p, &r);
		} else if (L < p->top) {
			close_to(p, L + 1);
			close_result(p, &r);
		} else {
			add_diag(&p->stack[p->top], body);
		}
		free(r.name);
		free(r.reason);
		return;
	}
	if (body[0] == '#') {
		add_diag(&p->stack[L < p->top ? L : p->top], body);
		return;
	}
	add_diag(&p->stack[p->top], rel); /* kernel log line etc. */
}

static void pre_tail_add(struct ktap_parser *p, const char *line)
{
	size_t i = p->pre_count % PRE_TAIL;
	free(p->pre_tail[i]);
	p->pre_tail[i] = xstrdup(line);
	p->pre_count++;
}

void ktap_feed_line(struct ktap_parser *p, const char *line)
{
	if (p->finished)
		return;
	size_t n = strlen(line) + 1;
	char *buf = xrealloc(NULL, n);
	size_t len = ktap_clean(buf, n, line);
	while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		buf[--len] = '\0';

	if (p->shadow) {
		ktap_feed_line(p->shadow, line);
		while (ktap_next_event(p->shadow))
			; /* its cases are not ours */
		if (len)
			pre_tail_add(p, buf);
		ktap_panic_match(p, buf);
		free(buf);
		return;
	}

	if (!p->started) {
		char *k = strstr(buf, "TAP version ");
		if (k) {
			if (k > buf && k[-1] == 'K')
				k--;
			p->started = true;
			p->prefix = xstrndup(buf, (size_t)(k - buf));
			size_t pl = strlen(p->prefix);
			p->ts_prefix = pl && ts_len(p->prefix) == pl;
		} else if (len) {
			pre_tail_add(p, buf);
		}
		free(buf);
		return;
	}
	const char *s = buf;
	size_t pl = strlen(p->prefix);
	if (p->ts_prefix)
		s += ts_len(s);
	else if (pl && strncmp(s, p->prefix, pl) == 0)
		s += pl;
	process_line(p, s);
	free(buf);
}

void ktap_feed_data(struct ktap_parser *p, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ch = data[i];
		if (ch == '\n' || ch == '\r') {
			ktap_feed_line(p, p->partial.s ? p->partial.s : "");
			p->partial.len = 0;
			if (p->partial.s)
				p->partial.s[0] = '\0';
			continue;
		}
		if (ch == '\0')
			continue;
		sb_addn(&p->partial, &ch, 1);
		if (p->partial.len >= LINE_CAP) {
			ktap_feed_line(p, p->partial.s);
			p->partial.len = 0;
			p->partial.s[0] = '\0';
		}
	}
}

const struct ktap_case *ktap_next_event(struct ktap_parser *p)
{
	if (p->ev_head == p->ev_len)
		return NULL;
	return p->events[p->ev_head++];
}

/* ------------------------------------------------------ lifecycle */

struct ktap_parser *ktap_new(enum ktap_kind kind, int timeout_s)
{
	struct ktap_parser *p = xrealloc(NULL, sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->timeout_s = timeout_s;
	p->stack[0].plan = -1;
	p->stack[0].diag.limit = DIAG_CAP;
	p->errors.limit = ERRORS_CAP;
	p->finish_diag.limit = DIAG_CAP;
	return p;
}

static void free_case(struct ktap_case *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->skip_reason);
	free(c->diag);
	free(c);
}

void ktap_free(struct ktap_parser *p)
{
	if (!p)
		return;
	while (p->top > 0)
		pop_node(p);
	sb_free(&p->stack[0].diag);
	for (size_t i = 0; i < p->nsuites; i++) {
		struct ktap_suite *s = p->suites[i];
		for (size_t j = 0; j < s->ncases; j++)
			free_case(s->cases[j]);
		free(s->cases);
		free(s->name);
		free(s->diag);
		free(s);
	}
	free(p->suites);
	free_case(p->boot_case);
	free(p->events);
	sb_free(&p->errors);
	sb_free(&p->partial);
	sb_free(&p->finish_diag);
	for (size_t i = 0; i < PRE_TAIL; i++)
		free(p->pre_tail[i]);
	free(p->prefix);
	free(p->v.errors);
	ktap_free(p->shadow);
	for (size_t i = 0; i < p->nexpect; i++)
		free(p->expect[i]);
	free(p->expect);
	free(p->expect_seen);
	free(p);
}

size_t ktap_suite_count(const struct ktap_parser *p) { return p->nsuites; }

const struct ktap_suite *ktap_suite_at(const struct ktap_parser *p, size_t i)
{
	return i < p->nsuites ? p->suites[i] : NULL;
}

bool ktap_started(const struct ktap_parser *p)
{
	return p->shadow ? p->shadow->started : p->started;
}
