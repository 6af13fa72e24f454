/* program_run: runs one user test or crash program and judges it, the
 * protocol shared by build/host/user-linux-runner (tests/user/linux_runner.c,
 * on the host) and the Linux guest's init (tools/linux/init.c), so that a
 * program is judged the same way wherever Linux runs it.
 *
 *   test program:  exit 0 = ok, exit 77 = ok # SKIP <its last output line>,
 *                  anything else (other status, a signal, a timeout) = not ok;
 *   crash program: killed by SIGSEGV = ok, anything else = not ok;
 *   selftest (one of Linux's mm selftests, tests/mm_selftests/): kselftest's
 *                  codes, exit 0 = ok, exit 4 (KSFT_SKIP) = ok # SKIP, else not ok.
 *
 * program_run() starts PATH in its own process group, stdin /dev/null,
 * stdout+stderr on one pipe, no core dumps, no KSM merging nor THP disabled
 * by inheritance (prctl), killed after timeout_s seconds.
 * program_report() prints the output as KTAP "# " diagnostics (indented
 * one level: a case of a suite), the line saying how it ended, and the
 * case's result line "ok N name [# SKIP reason]" / "not ok N name". */
#ifndef MMLAB_PROGRAM_RUN_H
#define MMLAB_PROGRAM_RUN_H

#include <stdbool.h>
#include <stddef.h>

#define PROGRAM_SKIP_STATUS 77
#define PROGRAM_KSFT_SKIP_STATUS 4 /* kselftest.h's KSFT_SKIP */
#define PROGRAM_MAX_OUTPUT (256 * 1024) /* kept per program; more is cut */

struct program {
	char name[64];
	bool crash;
	bool selftest;
	char args[160]; /* words after argv[0], space separated ("" for none) */
};

struct outcome {
	bool timed_out;
	bool exec_failed;
	int exec_errno; /* execv's, when it failed */
	int status; /* waitpid's */
	char *output;
	size_t len;
	long long ms; /* how long it ran */
};

enum program_verdict { PROGRAM_PASS, PROGRAM_SKIP, PROGRAM_FAIL };

long long program_now_ms(void);
/* Runs one program; the caller frees o.output. Exits 2 if it cannot even
 * make a pipe or fork. */
struct outcome program_run(const char *path, const char *name, int timeout_s);
/* The same with argv (argv[0] the program's name). */
struct outcome program_run_argv(const char *path, char *const argv[], int timeout_s);
/* Prints the case (diagnostics and result line, numbered `number`) on
 * stdout, flushes, and returns the verdict. */
enum program_verdict program_report(const struct program *p, const char *path,
				    const struct outcome *o, unsigned number, int timeout_s);

#endif /* MMLAB_PROGRAM_RUN_H */
