/*
 * xalloc.c - allocation that cannot fail, and the growable string and
 * argument vector, for mmlab-runner (see xalloc.h).  The one copy: the
 * runner, the KTAP parser, the judge and the self-test all use these.
 */
#define _GNU_SOURCE
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((noreturn)) die_oom(void)
{
	fputs("mmlab-runner: out of memory\n", stderr);
	exit(1);
}

void *xrealloc(void *ptr, size_t n)
{
	void *r = realloc(ptr, n ? n : 1);
	if (!r)
		die_oom();
	return r;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

char *xstrndup(const char *s, size_t n)
{
	char *r = strndup(s, n);
	if (!r)
		die_oom();
	return r;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		die_oom();
	return s;
}

void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	if (b->limit && b->len + n > b->limit) {
		if (!b->truncated) {
			b->truncated = true;
			static const char note[] = "... (further diagnostics dropped)\n";
			size_t m = sizeof(note) - 1;
			if (b->len + m + 1 > b->cap) {
				b->cap = b->len + m + 1;
				b->s = xrealloc(b->s, b->cap);
			}
			memcpy(b->s + b->len, note, m + 1);
			b->len += m;
		}
		return;
	}
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_add(struct sbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

void sb_line(struct sbuf *b, const char *s)
{
	sb_add(b, s);
	sb_addn(b, "\n", 1);
}

char *sb_take(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	size_t limit = b->limit;
	memset(b, 0, sizeof(*b));
	b->limit = limit;
	return s;
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->truncated = false;
}

void sv_push(struct strvec *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 32;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void sv_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}
