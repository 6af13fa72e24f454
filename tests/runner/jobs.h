/*
 * jobs.h - the job loop of mmlab-runner (jobs.c): runs boots and host test
 * programs, up to N at a time, each in its own process group; streams
 * their output into their logs and KTAP parsers, prints each finished case
 * at once, enforces timeouts, and judges each run when it ends (with the
 * --kunit-tool cross-check for boots).
 */
#ifndef MMLAB_JOBS_H
#define MMLAB_JOBS_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "ktap.h"
#include "topology.h"
#include "xalloc.h"

#define HOST_TIMEOUT_S 120

/* Set by the SIGINT/SIGTERM handler: run_jobs kills everything, exits 130. */
extern volatile sig_atomic_t interrupted;
/* --kunit-tool DIR, or NULL: cross-check each boot's log with kunit.py. */
extern const char *kunit_tool_dir;

/* JOB_CHECKING: its program has ended and kunit.py parses its log, beside
 * the jobs that run (it holds no job slot). */
enum job_state { JOB_PENDING, JOB_RUNNING, JOB_CHECKING, JOB_DONE };

struct linebuf {
	char *buf;
	size_t len, cap;
};

struct job {
	char *name;           /* topology name or host-<basename> */
	enum ktap_kind kind;
	const struct topology *topo; /* NULL for host programs */
	struct strvec argv;
	char *log_path;
	char *kt_path;        /* kunit.py output (--kunit-tool), or NULL */
	char *vars_path;      /* per-boot OVMF_VARS copy, or NULL */
	int timeout_s;        /* in seconds of its usable CPUs' time (see jobs.c) */
	double est_s;         /* how long it is expected to take (its last whole
			       * run, else its topology folder's durations
			       * file, else its timeout): boots start longest
			       * first, host programs before them */
	int cpus;             /* CPUs it can keep busy at once: its vCPUs (1 for a
			       * host program), at most the host's */

	enum job_state state;
	pid_t pid;            /* also the process group id */
	int fd[2];            /* stdout, stderr pipes (-1 when closed) */
	struct linebuf lb[2];
	FILE *log;
	double start, end;
	int backstop_s;       /* wall-clock backstop for a job that uses no CPU;
			       * 0: WALL_BACKSTOP x timeout_s */
	double wall_deadline;
	double cpu_s;         /* host CPU time used so far (all its threads) */
	double sys_s;         /* the part of it spent in the host's kernel: on a
			       * host that is a virtual machine, first touches of
			       * memory its hypervisor took back are counted here */
	double cpu_read_at;   /* when cpu_s was last read */
	double *suite_start;  /* when each KTAP suite of the parser began */
	double *suite_seconds; /* each suite's, filled when the job ends */
	size_t nsuite_start;
	bool timed_out, reaped;
	int exit_status;      /* ktap.h encoding */

	struct ktap_parser *parser;
	const struct ktap_verdict *verdict;

	/* A scripted session (topo->session, session.h): its run, fed the
	 * serial output, and the write end of QEMU's stdin (-1: none). */
	struct session_run *session;
	int in_fd;

	/* kunit.py on the log (--kunit-tool), while JOB_CHECKING. */
	pid_t kt_pid;
	int kt_fd;            /* its stdout+stderr, -1 once closed */
	struct linebuf kt_out;
	double kt_deadline;
	bool kt_timed_out;
};

/* Runs jobs[0..n) (prepared: argv, log, parser; state JOB_PENDING, fds -1)
 * to the end, at most maxjobs at a time; each ends JOB_DONE with its
 * verdict. Host programs start first, in order; then boots, the longest
 * (est_s) first, so that the short ones fill the end of the run instead of
 * a long one starting last (ties in order). */
void run_jobs(struct job *jobs, size_t n, long maxjobs);
/* Gives a boot of a session topology its session run: its KTAP comes from
 * the steps, its serial port from the script. */
void job_attach_session(struct job *j);


#endif /* MMLAB_JOBS_H */
