/*
 * hostile.h - the per-boot check of hostile-firmware boots (tools/hostile/):
 * each damaged table field must be named in a warning of the kernel.
 */
#ifndef MMLAB_HOSTILE_H
#define MMLAB_HOSTILE_H

#include "ktap.h"
#include "topology.h"

/* Adds case "hostile.warnings" to a finished run: passed iff every
 * expect_log line of t occurs, as a substring, in one line of the serial
 * output of the log at log_path (the runner's "# mmlab-runner:" command
 * line and "[qemu stderr] " lines are not serial output and are not
 * searched). The boot's own verdict (exit code, KTAP, no reset, hang or
 * panic) stays the judge's. */
void hostile_log_check(struct ktap_parser *p, const char *log_path, const struct topology *t);

/* Pure part, for the self-test: which expected lines the text lacks.
 * Returns how many are missing and sets missing[i] for each. */
size_t hostile_missing(const char *text, char *const *expect, size_t n, bool *missing);

#endif /* MMLAB_HOSTILE_H */
