/*
 * ktap.h - streaming KTAP parser (ktap.c) and boot judge (judge.c) for
 * mmlab-runner; kunit_tool.h reads Linux's parser's output beside them.
 *
 * Both are pure: they perform no I/O, read no clock and spawn nothing.
 * The caller feeds the parser the serial output of one boot (or the stdout of one host
 * test program) line by line or in arbitrary byte chunks, polls it for
 * finished test cases while the boot is still running, and finally hands it
 * the exit status to obtain the verdict for the whole run.
 *
 * Invariant kept by the judge: a run PASSES only when the KTAP stream is
 * complete and well formed (header, plans, every planned result present and
 * numbered in order, every suite's ok/not-ok agreeing with its cases), no case
 * failed, and the exit status is the one that means "all passed" for the kind
 * of program.  Every failed run has at least one failed case (a synthetic
 * "#<n>" or "boot" case is charged when nothing else could be), so a broken
 * boot can never be reported as zero failures.
 */
#ifndef MMLAB_KTAP_H
#define MMLAB_KTAP_H

#include <stdbool.h>
#include <stddef.h>

/* What produced the output, which decides what the exit status means. */
enum ktap_kind {
	KTAP_KIND_QEMU, /* 33 = all passed, 35 = a test failed, 37 = panic, else crash */
	KTAP_KIND_HOST, /* 0 = all passed, 1 = a test failed, else (or signal) crash  */
};

/* Exit statuses given to ktap_finish(): >= 0 is a normal exit code, a
 * negative value is "terminated by signal -value". */
#define KTAP_EXIT_SIGNAL(sig) (-(sig))

/* QEMU isa-debug-exit statuses as seen by the host: (code << 1) | 1. */
#define KTAP_QEMU_EXIT_PASS 33
#define KTAP_QEMU_EXIT_FAIL 35
#define KTAP_QEMU_EXIT_PANIC 37

enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

/* Category of the verdict; the first applicable one, in decreasing priority
 * from the bottom of this list up, becomes the verdict's reason. */
enum ktap_reason {
	KTAP_R_NONE,          /* passed */
	KTAP_R_TESTS_FAILED,  /* cases failed and the exit status agrees */
	KTAP_R_EXIT_MISMATCH, /* exit code disagrees with KTAP */
	KTAP_R_NO_TESTS,      /* a complete stream that ran no case (plan 1..0) */
	KTAP_R_BAD_STRUCTURE, /* numbering, ok/not ok mismatch, extra results, restart */
	KTAP_R_CASE_MISSING,  /* a suite reported fewer cases than planned */
	KTAP_R_SUITE_MISSING, /* fewer suite results than planned */
	KTAP_R_NO_PLAN,       /* top-level or suite plan missing */
	KTAP_R_NO_KTAP,       /* no KTAP header at all */
	KTAP_R_CRASH,         /* unexpected exit status / signal */
	KTAP_R_PANIC,         /* kernel panic (QEMU exit 37) */
	KTAP_R_TIMEOUT,       /* the caller killed the run */
	/* Only for runs that expect a panic (ktap_expect_panic()), where the
	 * priority is: KTAP_R_TIMEOUT, then these two, in this order. */
	KTAP_R_NO_PANIC,      /* exit status other than 37 (clean exit, failure, crash) */
	KTAP_R_PANIC_REPORT,  /* exit 37 but an expected output line is missing */
};

const char *ktap_reason_name(enum ktap_reason r);
const char *ktap_status_name(enum ktap_status s); /* "pass" | "fail" | "skip" */

struct ktap_suite;

/* One leaf test case.  Pointers stay valid until ktap_free(). */
struct ktap_case {
	const struct ktap_suite *suite; /* NULL for the synthetic "boot" case */
	char *name;        /* case name; nested subtests are "case/param" */
	int number;        /* number on its result line, 0 if synthetic/nested */
	enum ktap_status status;
	char *skip_reason; /* non-NULL iff status == KTAP_SKIP (may be "") */
	char *diag;        /* diagnostic lines, each ending in '\n'; never NULL */
	bool synthetic;    /* never reported; charged by the judge */
};

enum ktap_suite_state {
	KTAP_SUITE_INCOMPLETE, /* no result line for the suite itself */
	KTAP_SUITE_OK,
	KTAP_SUITE_NOT_OK,
	KTAP_SUITE_SKIP,
};

struct ktap_suite {
	char *name;
	int number;  /* position in the top-level run, 1-based */
	long plan;   /* from "1..N", -1 if none was seen */
	enum ktap_suite_state state;
	struct ktap_case **cases;
	size_t ncases, cap;
	char *diag;  /* diagnostics attached to the suite's own result line */
};

struct ktap_verdict {
	bool pass;
	bool consistent; /* failure fully explained by failing cases + agreeing exit */
	enum ktap_reason reason;
	char reason_text[512]; /* one line; "" when passed */
	int passed, failed, skipped;
	const struct ktap_case *boot_case; /* synthetic "boot" case, or NULL */
	char *errors; /* every structural problem found, one per line */
};

struct ktap_parser;

/* timeout_s is only used to word the timeout reason. Never returns NULL
 * (exits on out-of-memory, xalloc.h). */
struct ktap_parser *ktap_new(enum ktap_kind kind, int timeout_s);
void ktap_free(struct ktap_parser *p);

/* Feed one complete line (without or with its trailing "\r\n"). ANSI escape
 * sequences and control characters are stripped before parsing. */
void ktap_feed_line(struct ktap_parser *p, const char *line);

/* Feed arbitrary bytes; lines are split on '\n' and '\r'. A trailing partial
 * line is kept until more data arrives or ktap_finish() is called. */
void ktap_feed_data(struct ktap_parser *p, const char *data, size_t len);

/* Next finished case, in the order they finished, or NULL if none is
 * pending.  Cases charged by ktap_finish() are queued too. */
const struct ktap_case *ktap_next_event(struct ktap_parser *p);

/* Suites seen so far (in order of appearance), for reports. */
size_t ktap_suite_count(const struct ktap_parser *p);
const struct ktap_suite *ktap_suite_at(const struct ktap_parser *p, size_t i);

/* Remove ANSI escape sequences and control characters (except tab) from src,
 * writing at most dstlen-1 bytes plus NUL to dst. Returns the length. */
size_t ktap_clean(char *dst, size_t dstlen, const char *src);

/* Was a top-level "KTAP version" header seen? */
bool ktap_started(const struct ktap_parser *p);

/* ---- the judge (judge.c) */

/* End of output: judge the run.  exit_status uses the encoding above and is
 * ignored when timed_out is true.  Calling it again returns the same verdict. */
const struct ktap_verdict *ktap_finish(struct ktap_parser *p, int exit_status,
				       bool timed_out);

/* After ktap_finish(): add one extra counted case (in a suite of its own,
 * number 0, which is not part of the kernel's KTAP run), e.g. the result of
 * an external check of the log.  The case is queued as an event and counted
 * in the verdict; a failed case makes a passing verdict a (consistent)
 * failure.  diag may be NULL; skip_reason is used iff st == KTAP_SKIP.
 * Returns the case (valid until ktap_free()). */
const struct ktap_case *ktap_add_check(struct ktap_parser *p, const char *suite,
				       const char *name, enum ktap_status st,
				       const char *skip_reason, const char *diag);

/* ------------------------------------------ expected panic (expect = panic)
 *
 * ktap_expect_panic() switches a parser (right after ktap_new(), before any
 * output is fed) to judging a boot that must crash: the run passes only if
 * it was not timed out, the exit status is KTAP_QEMU_EXIT_PANIC (37), and
 * each of the n expected lines occurs, as a substring, in the cleaned output
 * (ANSI escapes and control characters removed, as for KTAP), each on a
 * later line than the previous one.  Lines the runner tags as a program's
 * stderr ("[qemu stderr] ", "[host stderr] ") are not serial output and are
 * not matched.  KTAP is neither required nor counted: the run has exactly
 * one case, "report" in suite "panic" (number 0, plan 1), passed or failed;
 * a failed one carries the reason, the missing lines, what became of a KTAP
 * run if one appeared, and the last output lines.  Its failure is always
 * "consistent" (that case explains it).  The KTAP output is still parsed by
 * an internal judge, only to describe it (ktap_started() reports whether it
 * began).  lines are copied; n may be 0 (only the exit status counts). */
void ktap_expect_panic(struct ktap_parser *p, const char *const *lines, size_t n);

#endif /* MMLAB_KTAP_H */
