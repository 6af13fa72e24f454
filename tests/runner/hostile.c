/*
 * hostile.c - judges what a hostile-firmware boot printed (hostile.h).
 *
 * Invariant: a boot of a damaged table passes only if the judge passed it
 * (its own exit code, full KTAP; no reset, hang or panic: judge.c) and the
 * kernel named every damaged field the generator reported (this file).
 */
#define _GNU_SOURCE
#include "hostile.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool serial_line(const char *line, size_t len)
{
	static const char *const not_serial[] = {"# mmlab-runner:", "[qemu stderr] ",
						 "[host stderr] "};
	for (size_t i = 0; i < sizeof(not_serial) / sizeof(not_serial[0]); i++) {
		size_t l = strlen(not_serial[i]);
		if (len >= l && !memcmp(line, not_serial[i], l))
			return false;
	}
	return true;
}

size_t hostile_missing(const char *text, char *const *expect, size_t n, bool *missing)
{
	for (size_t i = 0; i < n; i++)
		missing[i] = true;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (serial_line(line, len)) {
			for (size_t i = 0; i < n; i++)
				if (missing[i] && memmem(line, len, expect[i], strlen(expect[i])))
					missing[i] = false;
		}
		line += len + (nl != NULL);
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += missing[i];
	return m;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct sbuf b = {0};
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		for (size_t i = 0; i < got; i++) /* a NUL in the serial output ends nothing */
			if (!chunk[i])
				chunk[i] = ' ';
		sb_addn(&b, chunk, got);
	}
	fclose(f);
	return sb_take(&b);
}

void hostile_log_check(struct ktap_parser *p, const char *log_path, const struct topology *t)
{
	char *text = read_file(log_path);
	if (!text) {
		char *diag = xasprintf("cannot read %s: %s\n", log_path, strerror(errno));
		ktap_add_check(p, "hostile", "warnings", KTAP_FAIL, NULL, diag);
		free(diag);
		return;
	}
	bool *missing = xrealloc(NULL, t->nexpect_log * sizeof(*missing));
	size_t m = hostile_missing(text, t->expect_log, t->nexpect_log, missing);
	struct sbuf d = {0};
	for (size_t i = 0; i < t->nexpect_log; i++)
		if (missing[i]) {
			char *l = xasprintf("no warning names the damaged field: expected \"%s\"",
					    t->expect_log[i]);
			sb_line(&d, l);
			free(l);
		}
	char *diag = sb_take(&d);
	ktap_add_check(p, "hostile", "warnings", m ? KTAP_FAIL : KTAP_PASS, NULL, diag);
	free(diag);
	free(missing);
	free(text);
}
