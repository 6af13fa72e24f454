/*
 * report.h - JUnit XML and JSON writers for mmlab-runner results.
 *
 * The writers only format what the judge (judge.c) decided; they never
 * re-judge.  Output is always well formed: every string is escaped for its
 * format and invalid UTF-8 from the serial port is replaced by U+FFFD.
 */
#ifndef MMLAB_REPORT_H
#define MMLAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "ktap.h"

/* One finished boot of a topology or run of a host test program. */
struct run_record {
	const char *name;     /* topology name, or "host-<basename>" */
	enum ktap_kind kind;
	const char *firmware; /* "bios"/"uefi", NULL for host programs */
	const char *log_path;
	int exit_status;      /* ktap.h encoding (negative = signal) */
	bool timed_out;
	double duration_s;
	double cpu_s;         /* host CPU time it used */
	double sys_s;         /* the host kernel's part of cpu_s */
	const double *suite_seconds; /* wall-clock seconds of each parser suite */
	size_t nsuite_seconds;
	const struct ktap_parser *parser;
	const struct ktap_verdict *verdict;
};

/* Both return 0, or -1 with a message in err. */
int report_write_junit(const char *path, const struct run_record *runs, size_t n,
		       char *err, size_t errlen);
int report_write_json(const char *path, const struct run_record *runs, size_t n,
		      char *err, size_t errlen);

#endif /* MMLAB_REPORT_H */
