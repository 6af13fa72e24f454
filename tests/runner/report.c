/*
 * report.c - writes <results>/junit.xml and <results>/results.json.
 *
 * Invariant: the files describe exactly the verdicts computed by judge.c and
 * are always syntactically valid (escaped, UTF-8 sanitised), whatever bytes
 * the kernel printed.
 */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	int n;
	unsigned min;
	unsigned cp;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, min = 0x80, cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, min = 0x800, cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, min = 0x10000, cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* ------------------------------------------------------------- XML */

static void xml_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	while (*s) {
		int n = utf8_len(s);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD */
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\n': fputs("&#10;", f); break;
		case '\t': fputs("&#9;", f); break;
		default:
			if (*s >= 0x20 && *s != 0x7f)
				fputc(*s, f);
			/* other control characters are not allowed in XML 1.0 */
		}
		s++;
	}
}

/* Text content: like attributes, but newlines stay readable. */
static void xml_text(FILE *f, const char *str)
{
	const char *s = str ? str : "";
	const char *nl;
	while ((nl = strchr(s, '\n'))) {
		char *part = strndup(s, (size_t)(nl - s));
		if (part) {
			xml_str(f, part);
			free(part);
		}
		fputc('\n', f);
		s = nl + 1;
	}
	xml_str(f, s);
}

/* First diagnostic line, without a leading "# ", as a failure message. */
static char *first_line(const char *diag, const char *fallback)
{
	const char *s = diag ? diag : "";
	while (*s == '\n')
		s++;
	if (!*s)
		return strdup(fallback);
	if (s[0] == '#' && s[1] == ' ')
		s += 2;
	return strndup(s, strcspn(s, "\n"));
}

static int count_status(const struct ktap_suite *s, enum ktap_status st)
{
	int n = 0;
	for (size_t i = 0; i < s->ncases; i++)
		n += s->cases[i]->status == st;
	return n;
}

static void junit_case(FILE *f, const char *classname, const struct ktap_case *c)
{
	fputs("    <testcase name=\"", f);
	xml_str(f, c->name);
	fputs("\" classname=\"", f);
	xml_str(f, classname);
	fputs("\" time=\"0\"", f);
	if (c->status == KTAP_PASS) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (c->status == KTAP_SKIP) {
		fputs("      <skipped message=\"", f);
		xml_str(f, c->skip_reason);
		fputs("\"/>\n", f);
	} else {
		char *msg = first_line(c->diag, c->synthetic ? "did not report a result" : "failed");
		fputs("      <failure message=\"", f);
		xml_str(f, msg ? msg : "failed");
		fputs("\">", f);
		xml_text(f, c->diag);
		fputs("</failure>\n", f);
		free(msg);
	}
	fputs("    </testcase>\n", f);
}

/* Does this run get a "boot" test case in JUnit? Whenever its failure is
 * not just failing test cases. */
static bool junit_has_boot(const struct run_record *r)
{
	return !r->verdict->pass && !r->verdict->consistent;
}

int report_write_junit(const char *path, const struct run_record *runs, size_t n, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int tests = 0, failures = 0, skipped = 0;
	double time = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ktap_parser *p = runs[i].parser;
		for (size_t j = 0; j < ktap_suite_count(p); j++) {
			const struct ktap_suite *s = ktap_suite_at(p, j);
			tests += (int)s->ncases;
			failures += count_status(s, KTAP_FAIL);
			skipped += count_status(s, KTAP_SKIP);
		}
		if (junit_has_boot(&runs[i])) {
			tests++;
			failures++;
		}
		time += runs[i].duration_s;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"mmlab\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		   "skipped=\"%d\" time=\"%.3f\">\n", tests, failures, skipped, time);
	for (size_t i = 0; i < n; i++) {
		const struct run_record *r = &runs[i];
		const struct ktap_parser *p = r->parser;
		for (size_t j = 0; j < ktap_suite_count(p); j++) {
			const struct ktap_suite *s = ktap_suite_at(p, j);
			char *cls;
			if (asprintf(&cls, "%s.%s", r->name, s->name) < 0)
				continue;
			fputs("  <testsuite name=\"", f);
			xml_str(f, cls);
			fprintf(f, "\" tests=\"%zu\" failures=\"%d\" errors=\"0\" skipped=\"%d\" "
				   "time=\"0\">\n", s->ncases, count_status(s, KTAP_FAIL),
				count_status(s, KTAP_SKIP));
			for (size_t k = 0; k < s->ncases; k++)
				junit_case(f, cls, s->cases[k]);
			fputs("  </testsuite>\n", f);
			free(cls);
		}
		if (junit_has_boot(r)) {
			struct ktap_case boot = {0};
			char *diag = NULL;
			const char *bd = r->verdict->boot_case ? r->verdict->boot_case->diag
							       : r->verdict->errors;
			if (asprintf(&diag, "%s\n%s%slog: %s\n", r->verdict->reason_text,
				     r->verdict->boot_case ? "" : bd, r->verdict->boot_case ? bd : "",
				     r->log_path ? r->log_path : "-") < 0)
				diag = NULL;
			boot.name = "boot";
			boot.status = KTAP_FAIL;
			boot.diag = diag;
			fputs("  <testsuite name=\"", f);
			xml_str(f, r->name);
			fprintf(f, "\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" "
				   "time=\"%.3f\">\n", r->duration_s);
			junit_case(f, r->name, &boot);
			fputs("  </testsuite>\n", f);
			free(diag);
		}
	}
	fputs("</testsuites>\n", f);
	int bad = ferror(f);
	if (fclose(f) != 0)
		bad = 1;
	if (bad) {
		snprintf(err, errlen, "%s: write error", path);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	fputc('"', f);
	while (*s) {
		int n = utf8_len(s);
		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
			continue;
		}
		switch (*s) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\u%04x", *s);
			else
				fputc(*s, f);
		}
		s++;
	}
	fputc('"', f);
}

static const char *suite_state_name(enum ktap_suite_state st)
{
	switch (st) {
	case KTAP_SUITE_OK: return "pass";
	case KTAP_SUITE_NOT_OK: return "fail";
	case KTAP_SUITE_SKIP: return "skip";
	case KTAP_SUITE_INCOMPLETE: break;
	}
	return "incomplete";
}

static void json_case(FILE *f, const struct ktap_case *c, const char *indent)
{
	fprintf(f, "%s{\"name\": ", indent);
	json_str(f, c->name);
	fprintf(f, ", \"status\": \"%s\", \"diagnostics\": ", ktap_status_name(c->status));
	json_str(f, c->diag);
	if (c->status == KTAP_SKIP) {
		fputs(", \"skip_reason\": ", f);
		json_str(f, c->skip_reason);
	}
	fprintf(f, ", \"synthetic\": %s}", c->synthetic ? "true" : "false");
}

int report_write_json(const char *path, const struct run_record *runs, size_t n, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int passed = 0, failed = 0, skipped = 0, runs_failed = 0;
	fputs("{\n  \"topologies\": [", f);
	for (size_t i = 0; i < n; i++) {
		const struct run_record *r = &runs[i];
		const struct ktap_verdict *v = r->verdict;
		passed += v->passed;
		failed += v->failed;
		skipped += v->skipped;
		runs_failed += !v->pass;
		fputs(i ? ",\n    {\n" : "\n    {\n", f);
		fputs("      \"name\": ", f);
		json_str(f, r->name);
		fprintf(f, ",\n      \"kind\": \"%s\",\n      \"firmware\": ",
			r->kind == KTAP_KIND_QEMU ? "qemu" : "host");
		if (r->firmware)
			json_str(f, r->firmware);
		else
			fputs("null", f);
		fprintf(f, ",\n      \"verdict\": \"%s\",\n      \"reason\": ", v->pass ? "pass" : "fail");
		json_str(f, v->reason_text);
		fprintf(f, ",\n      \"reason_category\": \"%s\",\n", ktap_reason_name(v->reason));
		fprintf(f, "      \"consistent\": %s,\n", v->consistent ? "true" : "false");
		if (r->exit_status >= 0)
			fprintf(f, "      \"exit_status\": %d,\n      \"signal\": null,\n", r->exit_status);
		else
			fprintf(f, "      \"exit_status\": null,\n      \"signal\": %d,\n", -r->exit_status);
		fprintf(f, "      \"timed_out\": %s,\n", r->timed_out ? "true" : "false");
		fprintf(f, "      \"duration_s\": %.3f,\n      \"cpu_s\": %.3f,\n      \"sys_s\": %.3f,\n      \"log\": ",
			r->duration_s, r->cpu_s, r->sys_s);
		json_str(f, r->log_path);
		fprintf(f, ",\n      \"passed\": %d, \"failed\": %d, \"skipped\": %d,\n", v->passed,
			v->failed, v->skipped);
		fputs("      \"errors\": ", f);
		json_str(f, v->errors);
		fputs(",\n      \"boot_case\": ", f);
		if (v->boot_case)
			json_case(f, v->boot_case, "");
		else
			fputs("null", f);
		fputs(",\n      \"suites\": [", f);
		for (size_t j = 0; j < ktap_suite_count(r->parser); j++) {
			const struct ktap_suite *s = ktap_suite_at(r->parser, j);
			fputs(j ? ",\n        {\"name\": " : "\n        {\"name\": ", f);
			json_str(f, s->name);
			fprintf(f, ", \"number\": %d, \"status\": \"%s\", ", s->number,
				suite_state_name(s->state));
			if (j < r->nsuite_seconds && r->suite_seconds[j] >= 0)
				fprintf(f, "\"seconds\": %.3f, ", r->suite_seconds[j]);
			if (s->plan >= 0)
				fprintf(f, "\"plan\": %ld, ", s->plan);
			else
				fputs("\"plan\": null, ", f);
			fputs("\"cases\": [", f);
			for (size_t k = 0; k < s->ncases; k++) {
				fputs(k ? ",\n" : "\n", f);
				json_case(f, s->cases[k], "          ");
			}
			fputs(s->ncases ? "\n        ]}" : "]}", f);
		}
		fputs(ktap_suite_count(r->parser) ? "\n      ]\n    }" : "]\n    }", f);
	}
	fprintf(f, "%s],\n  \"totals\": {\"passed\": %d, \"failed\": %d, \"skipped\": %d, "
		   "\"runs\": %zu, \"runs_failed\": %d}\n}\n",
		n ? "\n  " : "", passed, failed, skipped, n, runs_failed);
	int bad = ferror(f);
	if (fclose(f) != 0)
		bad = 1;
	if (bad) {
		snprintf(err, errlen, "%s: write error", path);
		return -1;
	}
	return 0;
}
