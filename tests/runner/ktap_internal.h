/*
 * ktap_internal.h - the KTAP parser's state, shared by the parser (ktap.c)
 * and the boot judge (judge.c) of mmlab-runner; nothing else includes it.
 *
 * Invariant: the fields are changed only by those two files, the parser
 * while output is fed, the judge in ktap_finish() and ktap_add_check().
 * Single-threaded: no locking.
 */
#ifndef MMLAB_KTAP_INTERNAL_H
#define MMLAB_KTAP_INTERNAL_H

#include "ktap.h"
#include "xalloc.h"

#define MAX_DEPTH 16            /* deeper lines are treated as diagnostics */
#define DIAG_CAP (64 * 1024)    /* per-diagnostics-buffer limit */
#define ERRORS_CAP (16 * 1024)  /* limit of the structural error list */
#define LINE_CAP (64 * 1024)    /* longer "lines" are split */
#define PRE_TAIL 12             /* boot lines kept for "no KTAP" diagnostics */

/* One open test on the nesting stack: depth 0 is the whole run, depth 1 a
 * suite, depth >= 2 a case that has subtests. */
struct node {
	char *name;            /* from "# Subtest:", NULL if unknown */
	long plan;             /* -1 until "1..N" */
	int nresults;          /* result lines (or closed subtests) seen */
	bool child_failed;     /* some direct child failed */
	bool content;          /* plan, result or subtest seen */
	bool plan_complained;  /* "missing plan" already recorded */
	struct ktap_suite *suite; /* depth >= 1 */
	char *path;            /* depth >= 2: "case" or "case/param" */
	struct sbuf diag;      /* pending diagnostics for the next result here */
};

struct ktap_parser {
	enum ktap_kind kind;
	int timeout_s;

	bool started;        /* top-level header seen */
	char *prefix;        /* garbage before the header, stripped later */
	bool ts_prefix;      /* prefix is a printk timestamp */

	struct node stack[MAX_DEPTH];
	int top;

	struct ktap_suite **suites;
	size_t nsuites, capsuites;
	struct ktap_case *boot_case;

	const struct ktap_case **events;
	size_t ev_head, ev_len, ev_cap;

	struct sbuf errors;
	enum ktap_reason first_err;
	char first_err_text[512];

	char *pre_tail[PRE_TAIL]; /* ring of the last boot lines before KTAP */
	size_t pre_count;

	struct sbuf partial;  /* incomplete line from ktap_feed_data() */
	struct sbuf finish_diag; /* unclaimed diagnostics at end of output */

	int passed, failed, skipped;
	bool finished;
	struct ktap_verdict v;

	/* expect = panic (ktap_expect_panic()); shadow != NULL in that mode */
	struct ktap_parser *shadow; /* ordinary KTAP judge of the same output */
	char **expect;         /* expected lines, in order */
	bool *expect_seen;     /* line i seen while expect_pos <= i */
	size_t nexpect;
	size_t expect_pos;     /* expected lines matched in order so far */
};

static inline const char *suite_name(const struct ktap_suite *s) { return s->name; }

/* ktap.c, for the judge. */
/* Records a structural error; the first one is kept as the reason. */
void record_error(struct ktap_parser *p, enum ktap_reason r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct ktap_suite *new_suite(struct ktap_parser *p, int number, const char *name);
/* Creates a counted case and queues it; takes ownership of diag. */
struct ktap_case *add_case(struct ktap_parser *p, struct ktap_suite *suite, const char *name,
			   int number, enum ktap_status st, const char *skip_reason, char *diag,
			   bool synthetic);
/* Records a missing plan of the test at depth d (once). */
void require_plan(struct ktap_parser *p, int d);
/* Closes open tests down to depth keep, charging what they miss. */
void close_to(struct ktap_parser *p, int keep);

/* judge.c, for the parser: one cleaned line of a run that must panic. */
void ktap_panic_match(struct ktap_parser *p, const char *line);

#endif /* MMLAB_KTAP_INTERNAL_H */
