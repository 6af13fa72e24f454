/*
 * xalloc.h - allocation for mmlab-runner, its self-test and its parsers that
 * cannot fail: out of memory prints "mmlab-runner: out of memory" and exits
 * with status 1, since nothing sensible is left to judge.  Also the two
 * growable containers built on it: a string (struct sbuf) and a
 * NULL-terminated argument vector (struct strvec).
 *
 * Invariant: no function here returns NULL.  Single-threaded users only.
 */
#ifndef MMLAB_XALLOC_H
#define MMLAB_XALLOC_H

#include <stdbool.h>
#include <stddef.h>

void *xrealloc(void *ptr, size_t n); /* n == 0 is allowed */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable string; `limit` (0 = none) bounds diagnostics memory: past it,
 * one "... (further diagnostics dropped)" line is added and nothing more. */
struct sbuf {
	char *s;
	size_t len, cap, limit;
	bool truncated;
};

void sb_addn(struct sbuf *b, const char *s, size_t n);
void sb_add(struct sbuf *b, const char *s);
void sb_line(struct sbuf *b, const char *s); /* s and a newline */
/* Hands over the contents (never NULL) and resets the buffer (keeps limit). */
char *sb_take(struct sbuf *b);
void sb_free(struct sbuf *b);

/* NULL-terminated growable argv; the strings are copies. */
struct strvec {
	char **v;
	size_t n, cap;
};

void sv_push(struct strvec *sv, const char *s);
void sv_free(struct strvec *sv);

#endif /* MMLAB_XALLOC_H */
