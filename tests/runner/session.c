/*
 * session.c - scripted sessions on the serial port (the syntax and the
 * rules are in session.h). The parser is pure (the self-test feeds it
 * scripts); the run is a state machine fed the guest's output and the
 * clock, which speaks through the three callbacks of struct session_io,
 * so that the self-test can drive it without a machine.
 */
#define _GNU_SOURCE
#include "session.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "xalloc.h"

#define SESSION_DEFAULT_TIMEOUT 60
#define SESSION_MAX_TIMEOUT 3600
/* What a failed wait shows of the output it searched. */
#define SHOWN_TAIL 160
/* The output kept unmatched: a wait for text further back than this
 * would be waiting for something long gone. */
#define KEEP_MAX (1 << 20)

static int fail(char *err, size_t errlen, const char *path, int line, const char *what)
{
	snprintf(err, errlen, "%s:%d: %s", path, line, what);
	return -1;
}

/* A double-quoted string at *p (escapes done) into *out; *p moves past it. */
static const char *parse_quoted(const char **p, char **out, size_t *len)
{
	const char *s = *p;
	if (*s != '"')
		return "expected a double-quoted string";
	s++;
	size_t cap = strlen(s) + 1, n = 0;
	char *b = xrealloc(NULL, cap);
	for (;;) {
		char c = *s++;
		if (c == '\0') {
			free(b);
			return "unterminated string";
		}
		if (c == '"')
			break;
		if (c == '\\') {
			char e = *s++;
			switch (e) {
			case 'r': c = '\r'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'e': c = 0x1b; break;
			case '\\': c = '\\'; break;
			case '"': c = '"'; break;
			case 'x': {
				int v = 0, k = 0;
				for (; k < 2 && isxdigit((unsigned char)*s); k++, s++)
					v = v * 16 + (isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
				if (k == 0 || v == 0) {
					free(b);
					return "\\x needs one or two hex digits, not 00";
				}
				c = (char)v;
				break;
			}
			default:
				free(b);
				return "unknown escape (\\r \\n \\t \\e \\\\ \\\" \\xHH)";
			}
		}
		b[n++] = c;
	}
	if (n == 0) {
		free(b);
		return "empty string";
	}
	b[n] = '\0';
	*out = b;
	*len = n;
	*p = s;
	return NULL;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* An optional number of seconds at *p, 1..SESSION_MAX_TIMEOUT; def if none. */
static const char *parse_seconds(const char **p, int def, int *out)
{
	const char *s = skip_blanks(*p);
	if (!*s) {
		*out = def;
		return NULL;
	}
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || errno || v < 1 || v > SESSION_MAX_TIMEOUT || *skip_blanks(end))
		return "expected a number of seconds, 1..3600, and nothing after it";
	*out = (int)v;
	*p = end;
	return NULL;
}

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

void session_free(struct session *s)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		for (size_t k = 0; k < s->steps[i].nactions; k++)
			free(s->steps[i].actions[k].text);
		free(s->steps[i].actions);
		free(s->steps[i].name);
	}
	for (size_t i = 0; i < s->nskips; i++) {
		free(s->skips[i].text);
		free(s->skips[i].reason);
	}
	free(s->steps);
	free(s->skips);
	free(s->suite);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

/* One line (no newline) of the script. Returns an error text or NULL. */
static const char *parse_line(struct session *s, const char *line)
{
	const char *p = skip_blanks(line);
	if (!*p || *p == '#')
		return NULL;
	size_t wl = strcspn(p, " \t");
	const char *rest = skip_blanks(p + wl);
	const char *e;
#define IS(w) (wl == strlen(w) && !strncmp(p, w, wl))
	if (IS("suite")) {
		size_t n = strcspn(rest, " \t");
		if (!valid_name(rest, n) || *skip_blanks(rest + n))
			return "suite: one name of letters, digits, _ and -";
		if (s->nsteps)
			return "suite: before the first step";
		free(s->suite);
		s->suite = xstrndup(rest, n);
	} else if (IS("timeout")) {
		if ((e = parse_seconds(&rest, 0, &s->timeout_s)))
			return e;
		if (!s->timeout_s)
			return "timeout: how many seconds?";
	} else if (IS("skip_if")) {
		struct session_skip k = {0};
		if ((e = parse_quoted(&rest, &k.text, &k.len)))
			return e;
		rest = skip_blanks(rest);
		if (!*rest) {
			free(k.text);
			return "skip_if: the reason must follow the text";
		}
		k.reason = xstrdup(rest);
		s->skips = xrealloc(s->skips, (s->nskips + 1) * sizeof(*s->skips));
		s->skips[s->nskips++] = k;
	} else if (IS("step")) {
		size_t n = strcspn(rest, " \t");
		if (!valid_name(rest, n))
			return "step: a name of letters, digits, _ and - (up to 64)";
		struct session_step st = { .only = SESSION_BOTH };
		const char *more = skip_blanks(rest + n);
		if (!strcmp(more, "mmlab-only"))
			st.only = SESSION_MMLAB_ONLY;
		else if (!strcmp(more, "linux-only"))
			st.only = SESSION_LINUX_ONLY;
		else if (*more)
			return "step: after the name, mmlab-only, linux-only or nothing";
		for (size_t i = 0; i < s->nsteps; i++)
			if (strlen(s->steps[i].name) == n && !strncmp(s->steps[i].name, rest, n))
				return "step: a name already used";
		st.name = xstrndup(rest, n);
		s->steps = xrealloc(s->steps, (s->nsteps + 1) * sizeof(*s->steps));
		s->steps[s->nsteps++] = st;
	} else if (IS("send") || IS("wait") || IS("end")) {
		if (!s->nsteps)
			return "an action before the first step";
		struct session_action a = {0};
		if (IS("end")) {
			a.kind = SESSION_END;
		} else {
			a.kind = IS("send") ? SESSION_SEND : SESSION_WAIT;
			if ((e = parse_quoted(&rest, &a.text, &a.len)))
				return e;
		}
		if (a.kind == SESSION_SEND) {
			if (*skip_blanks(rest)) {
				free(a.text);
				return "send: nothing after the string";
			}
		} else if ((e = parse_seconds(&rest, 0, &a.timeout_s))) {
			free(a.text);
			return e;
		}
		struct session_step *st = &s->steps[s->nsteps - 1];
		if (st->nactions && st->actions[st->nactions - 1].kind == SESSION_END) {
			free(a.text);
			return "nothing can follow end";
		}
		st->actions = xrealloc(st->actions, (st->nactions + 1) * sizeof(*st->actions));
		st->actions[st->nactions++] = a;
	} else {
		return "unknown directive (suite, timeout, skip_if, step, send, wait, end)";
	}
#undef IS
	return NULL;
}

int session_parse(const char *path, const char *text, struct session *out, char *err, size_t errlen)
{
	struct session s = { .timeout_s = SESSION_DEFAULT_TIMEOUT };
	int lineno = 0;
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		char *line = xstrndup(l, n);
		lineno++;
		const char *e = parse_line(&s, line);
		free(line);
		if (e) {
			session_free(&s);
			return fail(err, errlen, path, lineno, e);
		}
		l += n + (l[n] == '\n');
	}
	if (!s.nsteps) {
		session_free(&s);
		return fail(err, errlen, path, lineno, "no step");
	}
	for (size_t i = 0; i < s.nsteps; i++) {
		if (!s.steps[i].nactions) {
			char *what = xasprintf("step %s has no action", s.steps[i].name);
			fail(err, errlen, path, lineno, what);
			free(what);
			session_free(&s);
			return -1;
		}
		for (size_t k = 0; k < s.steps[i].nactions; k++)
			if (!s.steps[i].actions[k].timeout_s)
				s.steps[i].actions[k].timeout_s = s.timeout_s;
	}
	if (!s.suite) { /* the file's name without folder and .session */
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		size_t n = strcspn(base, ".");
		s.suite = valid_name(base, n) ? xstrndup(base, n) : xstrdup("session");
	}
	s.path = xstrdup(path);
	*out = s;
	return 0;
}

int session_load(const char *path, struct session *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *text = NULL;
	size_t len = 0;
	char buf[4096];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		text = xrealloc(text, len + got + 1);
		memcpy(text + len, buf, got);
		len += got;
	}
	fclose(f);
	text = xrealloc(text, len + 1);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		snprintf(err, errlen, "%s: a NUL byte in the script", path);
		return -1;
	}
	int r = session_parse(path, text, out, err, errlen);
	free(text);
	return r;
}

bool session_matches(const struct session *s, const char *filter)
{
	if (!filter)
		return true;
	bool m = false;
	/* A filter may list globs separated by commas, as the kernel's
	 * ktest.filter= (tests/kunit.c). */
	char *globs = xstrdup(filter), *save = NULL;
	for (char *g = strtok_r(globs, ",", &save); g && !m; g = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < s->nsteps && !m; i++) {
			char *name = xasprintf("%s.%s", s->suite, s->steps[i].name);
			m = fnmatch(g, name, 0) == 0;
			free(name);
		}
	free(globs);
	return m;
}

/* ---- A run ---- */

enum run_state { RUN_NEW, RUN_ACTING, RUN_OVER };

struct session_run {
	const struct session *s;
	enum kernel kernel;
	struct session_io io;
	enum run_state state;
	size_t step, action;
	double deadline;      /* of the current wait or end */
	bool step_failed_any; /* some step failed: the suite fails */
	bool stopped;         /* the session stopped the machine */
	char *out;            /* output not yet matched by a wait */
	size_t len;
};

/* The status power off gives on this kernel: mmlab's isa-debug-exit
 * success (arch/x86_64/reboot.c), Linux's ACPI power off (QEMU exits 0). */
static int poweroff_status(enum kernel k) { return k == KERNEL_MMLAB ? KTAP_QEMU_EXIT_PASS : 0; }

struct session_run *session_run_new(const struct session *s, enum kernel k, const struct session_io *io)
{
	struct session_run *r = xrealloc(NULL, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->kernel = k;
	r->io = *io;
	return r;
}

void session_run_free(struct session_run *r)
{
	if (!r)
		return;
	free(r->out);
	free(r);
}

static void emitf(struct session_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emitf(struct session_run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = NULL;
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	r->io.emit(r->io.ctx, line);
	free(line);
}

/* The last bytes of the unmatched output, printable, for a diagnostic. */
static char *shown_tail(const struct session_run *r)
{
	size_t from = r->len > SHOWN_TAIL ? r->len - SHOWN_TAIL : 0;
	char *t = xrealloc(NULL, 4 * (r->len - from) + 1), *q = t;
	for (size_t i = from; i < r->len; i++) {
		unsigned char c = (unsigned char)r->out[i];
		if (c == '\n')
			q += sprintf(q, "\\n");
		else if (c == '\r')
			q += sprintf(q, "\\r");
		else if (c < 32 || c >= 127)
			q += sprintf(q, "\\x%02x", c);
		else
			*q++ = (char)c;
	}
	*q = '\0';
	return t;
}

static bool step_runs_here(const struct session_run *r, const struct session_step *st)
{
	return st->only == SESSION_BOTH || (st->only == SESSION_MMLAB_ONLY) == (r->kernel == KERNEL_MMLAB);
}

/* Every step from r->step on reported skipped with reason; the session is over. */
static void skip_rest(struct session_run *r, const char *reason)
{
	for (; r->step < r->s->nsteps; r->step++)
		emitf(r, "    ok %zu %s # SKIP %s\n", r->step + 1, r->s->steps[r->step].name, reason);
	r->state = RUN_OVER;
}

static void fail_step(struct session_run *r, const char *why)
{
	const struct session_step *st = &r->s->steps[r->step];
	char *tail = shown_tail(r);
	emitf(r, "    # %s: %s\n", st->name, why);
	emitf(r, "    # %s: the output since the last match ends: \"%s\"\n", st->name, tail);
	free(tail);
	emitf(r, "    not ok %zu %s\n", r->step + 1, st->name);
	r->step_failed_any = true;
	r->step++;
	skip_rest(r, "an earlier step failed");
}

/* Drops the output up to and including a match ending at end. */
static void consume(struct session_run *r, size_t end)
{
	if (end)
		memmove(r->out, r->out + end, r->len - end);
	r->len -= end;
}

static bool found(const struct session_run *r, const char *text, size_t n, size_t *end)
{
	const char *m = r->len ? memmem(r->out, r->len, text, n) : NULL;
	if (m)
		*end = (size_t)(m - r->out) + n;
	return m != NULL;
}

/* Does what can be done now: sends, matches waits, passes steps. */
static void advance(struct session_run *r, double now)
{
	while (r->state == RUN_ACTING) {
		for (size_t i = 0; i < r->s->nskips; i++) {
			size_t end;
			if (found(r, r->s->skips[i].text, r->s->skips[i].len, &end)) {
				skip_rest(r, r->s->skips[i].reason);
				r->stopped = true;
				r->io.stop(r->io.ctx);
				return;
			}
		}
		if (r->step >= r->s->nsteps) {
			r->state = RUN_OVER; /* no end action: the session stops the machine */
			r->stopped = true;
			r->io.stop(r->io.ctx);
			return;
		}
		const struct session_step *st = &r->s->steps[r->step];
		if (!step_runs_here(r, st)) {
			emitf(r, "    ok %zu %s # SKIP %s only\n", r->step + 1, st->name,
			      st->only == SESSION_MMLAB_ONLY ? "mmlab" : "Linux");
			r->step++;
			r->action = 0;
			continue;
		}
		if (r->action == st->nactions) {
			emitf(r, "    ok %zu %s\n", r->step + 1, st->name);
			r->step++;
			r->action = 0;
			r->deadline = 0;
			continue;
		}
		const struct session_action *a = &st->actions[r->action];
		if (r->deadline == 0 && a->kind != SESSION_SEND)
			r->deadline = now + a->timeout_s;
		if (a->kind == SESSION_SEND) {
			r->io.send(r->io.ctx, a->text, a->len);
		} else if (a->kind == SESSION_WAIT) {
			size_t end;
			if (!found(r, a->text, a->len, &end))
				return; /* more output, or the deadline */
			consume(r, end);
		} else {
			return; /* SESSION_END: only the machine's end moves it */
		}
		r->action++;
		r->deadline = 0;
	}
}

void session_run_start(struct session_run *r, double now)
{
	emitf(r, "KTAP version 1\n");
	emitf(r, "1..1\n");
	emitf(r, "    KTAP version 1\n");
	emitf(r, "    # Subtest: %s\n", r->s->suite);
	emitf(r, "    1..%zu\n", r->s->nsteps);
	r->state = RUN_ACTING;
	advance(r, now);
}

void session_run_output(struct session_run *r, const char *data, size_t n, double now)
{
	if (r->state != RUN_ACTING)
		return;
	if (r->len + n > KEEP_MAX) { /* keep the newest half */
		size_t drop = r->len + n - KEEP_MAX / 2;
		if (drop > r->len)
			drop = r->len;
		consume(r, drop);
	}
	r->out = xrealloc(r->out, r->len + n);
	memcpy(r->out + r->len, data, n);
	r->len += n;
	advance(r, now);
}

double session_run_tick(struct session_run *r, double now)
{
	if (r->state != RUN_ACTING || r->deadline == 0)
		return -1;
	if (now < r->deadline)
		return r->deadline - now;
	const struct session_action *a = &r->s->steps[r->step].actions[r->action];
	char *why = a->kind == SESSION_WAIT
			    ? xasprintf("no \"%s\" after %d s (the bound of a hang, not a measure)", a->text, a->timeout_s)
			    : xasprintf("the machine did not end within %d s", a->timeout_s);
	for (char *c = why; *c; c++)
		if ((unsigned char)*c < 32)
			*c = '.';
	fail_step(r, why);
	free(why);
	r->stopped = true;
	r->io.stop(r->io.ctx);
	return -1;
}

int session_run_finish(struct session_run *r, int exit_status, bool timed_out)
{
	bool as_scripted = r->state == RUN_OVER && r->stopped;
	if (r->state == RUN_ACTING && !timed_out) {
		const struct session_step *st = &r->s->steps[r->step];
		bool at_end = r->action < st->nactions && st->actions[r->action].kind == SESSION_END;
		if (at_end && exit_status == poweroff_status(r->kernel)) {
			emitf(r, "    ok %zu %s\n", r->step + 1, st->name);
			r->step++;
			skip_rest(r, "after the machine ended");
			as_scripted = true;
		} else {
			char *why = at_end ? xasprintf("the machine ended with status %d, not %d (power off)",
						       exit_status, poweroff_status(r->kernel))
					   : xasprintf("the machine ended (status %d) during the step", exit_status);
			fail_step(r, why);
			free(why); /* the status judges the end too: a panic stays a panic */
		}
	} else if (r->state == RUN_ACTING) {
		fail_step(r, "the runner's time limit for the machine ran out");
	}
	if (r->state == RUN_NEW) /* never started: nothing to report */
		return exit_status;
	emitf(r, "%s 1 %s\n", r->step_failed_any ? "not ok" : "ok", r->s->suite);
	if (!as_scripted)
		return exit_status;
	return r->step_failed_any ? KTAP_QEMU_EXIT_FAIL : KTAP_QEMU_EXIT_PASS;
}
