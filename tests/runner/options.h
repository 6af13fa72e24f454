/*
 * options.h - mmlab-runner's command line: the command (test, run,
 * print-cmd) and its options, checked against each other (options.c).
 *
 * Invariant: after parse_opts() every option the command needs is set and
 * every value is valid (a usage error exits 2 otherwise).
 */
#ifndef MMLAB_OPTIONS_H
#define MMLAB_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "topology.h" /* enum tcg_threads */

#define EXIT_USAGE 2

/* The program's name in its messages. */
extern const char progname[];

enum mode { MODE_TEST, MODE_RUN, MODE_PRINT };

struct opts {
	enum mode mode;
	const char *iso, *topo_dir, *results, *filter, *accel, *kunit_tool;
	const char *extra_cmdline; /* --cmdline: words appended to the topology's */
	/* --linux-kernel, --linux-initrd: what kernel = linux topologies boot */
	const char *linux_kernel, *linux_initrd;
	const char **names; /* --topology (test) or NAME (run/print-cmd) */
	size_t nnames;
	const char **hosts;
	size_t nhosts;
	long jobs;
	bool gdb, test_flag;
	bool icount; /* --icount: the guest clock counts instructions (run only) */
	/* --shell-log FILE (run only): the serial port multiplexed with QEMU's
	 * monitor on this terminal (-serial mon:stdio: ^C reaches the guest,
	 * ^A x quits) and a second serial port (ttyS1) into FILE. */
	const char *shell_log;
	enum tcg_threads tcg_threads; /* --tcg-threads, else $TCG_THREADS, else auto */
};

/* Parses argv into *o or exits: 0 after --help, EXIT_USAGE on an error. */
void parse_opts(int argc, char **argv, struct opts *o);
/* Prints the message and the usage on stderr, exits EXIT_USAGE. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif /* MMLAB_OPTIONS_H */
