/*
 * jobs.c - the job loop of mmlab-runner (jobs.h).
 *
 * Invariants:
 *   - the verdict of every run comes from the judge alone (judge.c); this
 *     file only moves bytes (process spawning, pipes, poll(), timeouts,
 *     logs);
 *   - each child runs in its own process group, which is SIGKILLed on
 *     timeout and after the child exits (so nothing is left behind), and
 *     every child is reaped;
 *   - progress is printed by this single-threaded process, one complete
 *     line (or one case with its diagnostics) at a time, flushed at once, so
 *     lines of parallel boots never interleave;
 *   - a timeout catches hangs, never slowness: it counts the host CPU time
 *     the job used (its QEMU's threads, or the program and its reaped
 *     children), divided by the CPUs it can keep busy at once (its vCPUs,
 *     at most the host's cores), so a boot on a host busy with other work
 *     gets the same budget as on an idle one. On an idle host that count
 *     runs at most as fast as the wall clock; a spinning hang uses its CPUs
 *     and is caught after timeout_s of them. A hang that uses no CPU (every
 *     vCPU halted) is caught by the wall clock at WALL_BACKSTOP x timeout_s.
 */
#define _GNU_SOURCE
#include "jobs.h"
#include "session.h"
#include "hostile.h"
#include "kunit_tool.h"
#include "options.h"
#include "qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 65536
#define LINE_MAX_LEN 65536
#define MAX_DIAG_PRINT 40       /* diagnostic lines printed per failed case */
#define KUNIT_TOOL_TIMEOUT_S 60
#define KUNIT_TOOL_OUT_MAX (4 << 20) /* bytes of kunit.py output kept */
#define WALL_BACKSTOP 4

volatile sig_atomic_t interrupted;
const char *kunit_tool_dir;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_case(const struct job *j, const struct ktap_case *c)
{
	/* Build the whole block, then write it at once. */
	char *name = c->suite ? xasprintf("%s/%s.%s", j->name, c->suite->name, c->name)
			      : xasprintf("%s/%s", j->name, c->name);
	if (c->status == KTAP_PASS) {
		printf("  ok    %s\n", name);
	} else if (c->status == KTAP_SKIP) {
		if (c->skip_reason && *c->skip_reason)
			printf("  SKIP  %s (%s)\n", name, c->skip_reason);
		else
			printf("  SKIP  %s\n", name);
	} else {
		printf("  FAIL  %s\n", name);
		int lines = 0;
		for (const char *s = c->diag; *s;) {
			size_t n = strcspn(s, "\n");
			if (++lines > MAX_DIAG_PRINT) {
				int more = 0;
				for (const char *q = s; *q; q++)
					more += *q == '\n';
				printf("        ... %d more line%s in %s\n", more, more == 1 ? "" : "s",
				       j->log_path);
				break;
			}
			printf("        %.*s\n", (int)n, s);
			s += n;
			if (*s)
				s++;
		}
	}
	fflush(stdout);
	free(name);
}

static void drain_events(struct job *j)
{
	const struct ktap_case *c;
	while ((c = ktap_next_event(j->parser)))
		print_case(j, c);
}

/* One complete line (with its terminator) from stream s of job j. */
static void handle_line(struct job *j, int s, const char *line, size_t len)
{
	if (s == 0) {
		if (j->log)
			fwrite(line, 1, len, j->log);
		if (!j->session) { /* a session's KTAP is its steps' (session_emit) */
			char *copy = xstrndup(line, len);
			ktap_feed_line(j->parser, copy);
			free(copy);
		}
	} else {
		/* stderr of QEMU / the program: tagged so it is recognisable */
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (!len)
			return;
		char *tagged = xasprintf("[%s stderr] %.*s\n", j->kind == KTAP_KIND_QEMU ? "qemu" : "host",
					 (int)len, line);
		if (j->log)
			fputs(tagged, j->log);
		ktap_feed_line(j->parser, tagged);
		free(tagged);
	}
	if (j->log)
		fflush(j->log);
	drain_events(j);
	/* Where the time goes: each suite's start, as its header arrives. */
	size_t ns = ktap_suite_count(j->parser);
	while (j->nsuite_start < ns) {
		j->suite_start = xrealloc(j->suite_start, ns * sizeof(*j->suite_start));
		j->suite_start[j->nsuite_start++] = now_s();
	}
}

/* Each suite's seconds, from its start to the next one's (the last: to the
 * job's end), into j->suite_seconds when the job ends. */
static void time_suites(struct job *j)
{
	j->suite_seconds = xrealloc(NULL, (j->nsuite_start + 1) * sizeof(*j->suite_seconds));
	for (size_t i = 0; i < j->nsuite_start; i++) {
		double to = i + 1 < j->nsuite_start ? j->suite_start[i + 1] : j->end;
		j->suite_seconds[i] = to - j->suite_start[i];
	}
}

/* The slowest suites of a boot, on one line: where its time went. */
static void print_slowest_suites(const struct job *j)
{
	enum { SHOW = 4 };
	if (!j->nsuite_start || j->kind != KTAP_KIND_QEMU)
		return;
	bool *shown = xrealloc(NULL, j->nsuite_start * sizeof(*shown));
	memset(shown, 0, j->nsuite_start * sizeof(*shown));
	printf("[%s] time: %.1f s to the first suite; slowest:", j->name,
	       j->suite_start[0] - j->start);
	for (size_t k = 0; k < SHOW && k < j->nsuite_start; k++) {
		size_t max = 0;
		double max_s = -1;
		for (size_t i = 0; i < j->nsuite_start; i++)
			if (!shown[i] && j->suite_seconds[i] > max_s)
				max = i, max_s = j->suite_seconds[i];
		shown[max] = true;
		printf("%s %s %.1f s", k ? "," : "", ktap_suite_at(j->parser, max)->name, max_s);
	}
	printf("\n");
	free(shown);
}

static void lb_feed(struct job *j, int s, const char *data, size_t n)
{
	struct linebuf *lb = &j->lb[s];
	for (size_t i = 0; i < n; i++) {
		if (lb->len + 1 >= lb->cap) {
			lb->cap = lb->cap ? lb->cap * 2 : 256;
			lb->buf = xrealloc(lb->buf, lb->cap);
		}
		lb->buf[lb->len++] = data[i];
		if (data[i] == '\n' || data[i] == '\r' || lb->len >= LINE_MAX_LEN) {
			handle_line(j, s, lb->buf, lb->len);
			lb->len = 0;
		}
	}
}

static void lb_flush(struct job *j, int s)
{
	struct linebuf *lb = &j->lb[s];
	if (lb->len)
		handle_line(j, s, lb->buf, lb->len);
	lb->len = 0;
}

/* In a child just forked: its own process group (so that kill(-pid) ends
 * all it starts), the signals the runner handles back to their defaults,
 * stdin from in (-1: /dev/null), stdout and stderr to out and err. Exits
 * 127 if it cannot. */
static void child_setup(int in, int out, int err)
{
	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (in < 0)
		in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
}

/* ---- A session's three hands (session.h's struct session_io) ---- */

static void session_emit(void *ctx, const char *line)
{
	struct job *j = ctx;
	if (j->log) {
		fputs(line, j->log);
		fflush(j->log);
	}
	ktap_feed_line(j->parser, line);
	drain_events(j);
}

static void session_send(void *ctx, const char *bytes, size_t len)
{
	struct job *j = ctx;
	while (j->in_fd >= 0 && len) {
		ssize_t put = write(j->in_fd, bytes, len);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0) { /* QEMU is gone: its end will be judged */
			close(j->in_fd);
			j->in_fd = -1;
			return;
		}
		bytes += put;
		len -= (size_t)put;
	}
}

static void session_stop(void *ctx)
{
	struct job *j = ctx;
	if (j->state == JOB_RUNNING && !j->reaped)
		kill(-j->pid, SIGKILL);
}

void job_attach_session(struct job *j)
{
	struct session_io io = {session_emit, session_send, session_stop, j};
	j->session = session_run_new(j->topo->session, j->topo->kernel, &io);
}

/* CPU time (user + system) of a running process and of its children it
 * has reaped, from /proc/PID/stat, the system part in *sys; -1 if it
 * cannot be read. */
static double proc_cpu_s(pid_t pid, double *sys)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* The name (field 2) may hold spaces and parentheses: fields count
	 * from the last ')'. utime, stime, cutime, cstime are 14-17. */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	unsigned long long v[15];
	if (sscanf(p + 1, " %*c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
		   &v[11], &v[12], &v[13]) != 14)
		return -1;
	static long hz;
	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	double tick = (double)(hz > 0 ? hz : 100);
	*sys = (double)(v[11] + v[13]) / tick;
	return (double)(v[10] + v[11] + v[12] + v[13]) / tick;
}

/* The job's CPU and system time so far, kept only when larger: a read
 * that fails (-1) leaves the last one. */
static void job_read_cpu(struct job *j)
{
	double sys, cpu = proc_cpu_s(j->pid, &sys);
	if (cpu > j->cpu_s) {
		j->cpu_s = cpu;
		j->sys_s = sys;
	}
}

/* Fork the job's process in its own process group. Returns 0 or -1. */
static int start_job(struct job *j, char *err, size_t errlen)
{
	int p_out[2], p_err[2], p_in[2] = {-1, -1};
	j->start = now_s();
	j->wall_deadline = j->start + (j->backstop_s ? (double)j->backstop_s
						      : (double)WALL_BACKSTOP * j->timeout_s);
	j->cpu_s = j->sys_s = 0;
	j->cpu_read_at = 0;
	if (pipe2(p_out, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(p_err, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(p_out[0]);
		close(p_out[1]);
		return -1;
	}
	fflush(NULL);
	pid_t pid = -1;
	if (j->session && pipe2(p_in, O_CLOEXEC)) /* the session types on QEMU's stdin */
		snprintf(err, errlen, "pipe: %s", strerror(errno));
	else if ((pid = fork()) < 0)
		snprintf(err, errlen, "fork: %s", strerror(errno));
	if (pid < 0) {
		close(p_out[0]);
		close(p_out[1]);
		close(p_err[0]);
		close(p_err[1]);
		if (p_in[0] >= 0) {
			close(p_in[0]);
			close(p_in[1]);
		}
		return -1;
	}
	if (pid == 0) {
		child_setup(p_in[0], p_out[1], p_err[1]);
		if (j->topo)
			qemu_child_setup();
		execvp(j->argv.v[0], j->argv.v);
		dprintf(2, "%s: cannot run %s: %s\n", progname, j->argv.v[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* also in the parent, so kill(-pid) works at once */
	close(p_out[1]);
	close(p_err[1]);
	if (p_in[0] >= 0)
		close(p_in[0]);
	j->in_fd = p_in[1];
	j->pid = pid;
	j->fd[0] = p_out[0];
	j->fd[1] = p_err[0];
	fcntl(j->fd[0], F_SETFL, O_NONBLOCK);
	fcntl(j->fd[1], F_SETFL, O_NONBLOCK);
	j->state = JOB_RUNNING;
	if (j->session)
		session_run_start(j->session, now_s());
	return 0;
}

/* Reap the job if it has exited, killing whatever is left of its group
 * first (the zombie leader keeps the group id reserved until reaped). */
static void try_reap(struct job *j)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)j->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid != j->pid)
		return;
	job_read_cpu(j); /* a zombie still has its times */
	kill(-j->pid, SIGKILL);
	int status;
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->end = now_s();
	j->reaped = true;
	if (WIFEXITED(status))
		j->exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		j->exit_status = KTAP_EXIT_SIGNAL(WTERMSIG(status));
	else
		j->exit_status = 255;
}

/* The Python that runs kunit.py: $KUNIT_PYTHON, else Debian's own
 * (/usr/bin/python3, the python3 package tools/deps.sh installs), else
 * python3 from PATH. kunit.py needs only the standard library, and a
 * version manager's shim earlier in PATH (pyenv's is a shell script that
 * runs pyenv, then the interpreter) doubled each parse's 0.1 s of CPU,
 * once per boot. */
static const char *kunit_python(void)
{
	const char *env = getenv("KUNIT_PYTHON");
	if (env && *env)
		return env;
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* Starts "PYTHON DIR/tools/testing/kunit/kunit.py parse LOG" (LOG
 * absolute: kunit.py chdirs to the kernel tree root), its stdout+stderr
 * on j->kt_fd; it runs beside the other jobs (kunit_tool_poll reads it,
 * kunit_tool_finish judges it). False, with *why set, if it could not be
 * started. */
static bool kunit_tool_start(struct job *j, const char *log_abs, char **why)
{
	int p[2];
	char *py = xasprintf("%s/tools/testing/kunit/kunit.py", kunit_tool_dir);
	if (pipe2(p, O_CLOEXEC)) {
		*why = xasprintf("%s: pipe: %s\n", progname, strerror(errno));
		free(py);
		return false;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		*why = xasprintf("%s: fork: %s\n", progname, strerror(errno));
		close(p[0]);
		close(p[1]);
		free(py);
		return false;
	}
	if (pid == 0) {
		child_setup(-1, p[1], p[1]);
		const char *python = kunit_python();
		execlp(python, python, py, "parse", log_abs, (char *)NULL);
		dprintf(2, "%s: cannot run %s: %s\n", progname, python, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);
	free(py);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	j->kt_pid = pid;
	j->kt_fd = p[0];
	j->kt_out = (struct linebuf){0};
	j->kt_deadline = now_s() + KUNIT_TOOL_TIMEOUT_S;
	j->kt_timed_out = false;
	return true;
}

/* Reads what kunit.py printed (at most KUNIT_TOOL_OUT_MAX bytes kept). */
static void kunit_tool_read(struct job *j)
{
	char buf[READ_CHUNK];
	for (;;) {
		ssize_t got = read(j->kt_fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return;
		if (got <= 0) {
			close(j->kt_fd);
			j->kt_fd = -1;
			return;
		}
		struct linebuf *b = &j->kt_out;
		if (b->len < KUNIT_TOOL_OUT_MAX) {
			if (b->len + (size_t)got + 1 > b->cap) {
				b->cap = (b->len + (size_t)got + 1) * 2;
				b->buf = xrealloc(b->buf, b->cap);
			}
			memcpy(b->buf + b->len, buf, (size_t)got);
			b->len += (size_t)got;
		}
	}
}

/* kunit.py's exit status (ktap.h encoding), once its output has closed
 * and it has exited, or been killed at its deadline; -1 while it runs. */
static int kunit_tool_poll(struct job *j)
{
	if (!j->kt_timed_out && (now_s() >= j->kt_deadline || interrupted)) {
		kill(-j->kt_pid, SIGKILL);
		j->kt_timed_out = !interrupted;
		if (j->kt_fd >= 0)
			close(j->kt_fd);
		j->kt_fd = -1;
	}
	if (j->kt_fd >= 0)
		return -1;
	int status;
	pid_t r;
	while ((r = waitpid(j->kt_pid, &status, j->kt_timed_out || interrupted ? 0 : WNOHANG)) < 0 &&
	       errno == EINTR)
		;
	if (r == 0)
		return -1;
	kill(-j->kt_pid, SIGKILL); /* anything it left behind */
	if (r < 0)
		return 255;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return KTAP_EXIT_SIGNAL(WTERMSIG(status));
	return 255;
}

/* --kunit-tool: the check that Linux's kunit_tool parses this boot's log
 * with no error and the same counts, reported as case kunit_tool.parse:
 * out is what kunit.py printed, st its exit status. */
static void kunit_tool_check(struct job *j, char *out, int st, bool timed_out)
{
	const struct ktap_verdict *v = j->verdict;
	char *diag = NULL;
	FILE *f = fopen(j->kt_path, "we");
	if (f) {
		fputs(out, f);
		fprintf(f, "# exit status %d%s\n", st, timed_out ? " (timed out)" : "");
		fclose(f);
	}
	enum ktap_status ks = kunit_tool_judge(out, st, timed_out, KUNIT_TOOL_TIMEOUT_S, v->passed,
					       v->failed, v->skipped, &diag);
	if (ks == KTAP_FAIL) {
		char *d = xasprintf("%skunit.py output: %s\n", diag, j->kt_path);
		free(diag);
		diag = d;
	}
	ktap_add_check(j->parser, "kunit_tool", "parse", ks, NULL, diag);
	free(diag);
}

/* The end of a job, after its kunit.py check if it has one. */
static void complete_job(struct job *j)
{
	/* After kunit.py's cross-check: its counts are of the boot's own KTAP,
	 * which this added case is not part of. */
	if (j->topo && j->topo->nexpect_log) {
		if (j->log)
			fflush(j->log);
		hostile_log_check(j->parser, j->log_path, j->topo);
		drain_events(j);
	}
	const struct ktap_verdict *v = j->verdict;
	time_suites(j);
	print_slowest_suites(j);
	if (v->pass)
		printf("[%s] PASS %d passed, %d failed, %d skipped (%.1f s, CPU %.1f s, system %.1f s of it)\n",
		       j->name, v->passed, v->failed, v->skipped, j->end - j->start, j->cpu_s, j->sys_s);
	else
		printf("[%s] FAIL: %s (log: %s)\n", j->name, v->reason_text, j->log_path);
	fflush(stdout);
	if (j->log) {
		fclose(j->log);
		j->log = NULL;
	}
	j->state = JOB_DONE;
}

/* The job's program has ended: its verdict, then either its kunit.py
 * check starts (JOB_CHECKING; kunit_tool_done completes it) or the job
 * completes now. */
static void finish_job(struct job *j)
{
	lb_flush(j, 0);
	lb_flush(j, 1);
	if (j->session) {
		if (j->in_fd >= 0)
			close(j->in_fd);
		j->in_fd = -1;
		j->exit_status = session_run_finish(j->session, j->exit_status, j->timed_out);
		session_run_free(j->session);
		j->session = NULL;
	}
	j->verdict = ktap_finish(j->parser, j->exit_status, j->timed_out);
	drain_events(j);
	if (j->kt_path && !interrupted) {
		if (!ktap_started(j->parser)) {
			ktap_add_check(j->parser, "kunit_tool", "parse", KTAP_SKIP,
				       "no KTAP output to parse; the boot failed", NULL);
			drain_events(j);
		} else {
			if (j->log)
				fflush(j->log);
			char *abs = realpath(j->log_path, NULL), *why = NULL;
			if (abs && kunit_tool_start(j, abs, &why)) {
				free(abs);
				j->state = JOB_CHECKING;
				return;
			}
			if (!why)
				why = xasprintf("%s: %s: %s\n", progname, j->log_path, strerror(errno));
			kunit_tool_check(j, why, 127, false);
			free(why);
			free(abs);
			drain_events(j);
		}
	}
	complete_job(j);
}

/* A JOB_CHECKING job whose kunit.py is done: judged, then completed. */
static bool kunit_tool_done(struct job *j)
{
	int st = kunit_tool_poll(j);
	if (st < 0)
		return false;
	struct linebuf *b = &j->kt_out;
	b->buf = xrealloc(b->buf, b->len + 1);
	b->buf[b->len] = '\0';
	kunit_tool_check(j, b->buf, st, j->kt_timed_out);
	free(b->buf);
	*b = (struct linebuf){0};
	drain_events(j);
	complete_job(j);
	return true;
}

/* A job that could not be started: judged as a crash with no output. */
static void fail_start(struct job *j, const char *msg)
{
	char *line = xasprintf("%s: %s\n", progname, msg);
	handle_line(j, 1, line, strlen(line));
	free(line);
	j->end = now_s();
	j->reaped = true;
	j->exit_status = 127;
	finish_job(j);
}

static void kill_all(struct job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].state == JOB_CHECKING && jobs[i].kt_fd >= 0) {
			kill(-jobs[i].kt_pid, SIGKILL);
			while (waitpid(jobs[i].kt_pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	for (size_t i = 0; i < n; i++)
		if (jobs[i].state == JOB_RUNNING && !jobs[i].reaped) {
			kill(-jobs[i].pid, SIGKILL);
			while (waitpid(jobs[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
			jobs[i].reaped = true;
		}
}

static struct job *next_job(struct job *jobs, size_t n)
{
	struct job *best = NULL;
	for (size_t i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		if (j->state != JOB_PENDING)
			continue;
		if (!j->topo)
			return j;
		if (!best || j->est_s > best->est_s)
			best = j;
	}
	return best;
}

/* The host's idle time so far, in seconds of one CPU (/proc/stat's idle
 * and iowait); negative when it cannot be read. */
static double host_idle_s(void)
{
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return -1;
	unsigned long long user, nice, sys, idle, iowait;
	int got = fscanf(f, "cpu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait);
	fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	if (got != 5 || hz <= 0)
		return -1;
	return (double)(idle + iowait) / (double)hz;
}

/* Filling idle time: a boot that waits (a guest halted on a timer, ten
 * seconds for an absent CPU, firmware waiting on a device) keeps its slot
 * but not the host's CPU. When the host has had at least
 * IDLE_CORES_TO_FILL of a CPU idle over each of the last IDLE_SAMPLES
 * samples of IDLE_SAMPLE_S, with every slot taken, one more job starts
 * beside them (never more than one over maxjobs, and only when maxjobs is
 * 2 or more: --jobs 1 means one at a time). A host busy with other work
 * has no idle time to fill. Timeouts count each job's own CPU time, so a
 * job slowed by the extra one keeps its budget. */
#define IDLE_SAMPLE_S 0.5
#define IDLE_SAMPLES 2
#define IDLE_CORES_TO_FILL 0.7

void run_jobs(struct job *jobs, size_t n, long maxjobs)
{
	size_t next = 0, done = 0;
	long running = 0;
	double sample_at = now_s(), sample_idle = host_idle_s();
	int idle_samples = 0;
	struct pollfd *pfd = xrealloc(NULL, 2 * n * sizeof(*pfd));
	struct job **pjob = xrealloc(NULL, 2 * n * sizeof(*pjob));
	int *pstream = xrealloc(NULL, 2 * n * sizeof(*pstream));
	char err[512];

	while (done < n) {
		if (interrupted) {
			kill_all(jobs, n);
			printf("interrupted\n");
			fflush(stdout);
			exit(130);
		}
		double t = now_s();
		if (t - sample_at >= IDLE_SAMPLE_S) {
			double idle = host_idle_s();
			bool idle_host = idle >= 0 && sample_idle >= 0 &&
					 (idle - sample_idle) / (t - sample_at) >= IDLE_CORES_TO_FILL;
			idle_samples = running >= maxjobs && idle_host ? idle_samples + 1 : 0;
			sample_at = t;
			sample_idle = idle;
		}
		long allowed = maxjobs + (maxjobs >= 2 && idle_samples >= IDLE_SAMPLES);
		while (running < allowed && next < n) {
			/* Samples start over with the new job among them. */
			idle_samples = 0;
			sample_at = t;
			sample_idle = host_idle_s();
			struct job *j = next_job(jobs, n);
			next++;
			if (j->topo)
				printf("[%s] booting %s(%s, %s firmware, timeout %d s%s)\n", j->name,
				       j->topo->kernel == KERNEL_LINUX ? "Linux " : "",
				       j->topo->description[0] ? j->topo->description : j->name,
				       firmware_name(j->topo->firmware), j->timeout_s,
				       j->topo->expect == EXPECT_PANIC ? ", expecting a kernel panic"
								       : "");
			else
				printf("[%s] running %s\n", j->name, j->argv.v[0]);
			fflush(stdout);
			if (start_job(j, err, sizeof(err))) {
				fail_start(j, err);
				done++;
			} else {
				running++;
			}
		}
		nfds_t np = 0;
		double now = now_s();
		int timeout_ms = 200; /* also bounds the latency of SIGINT handling */
		for (size_t i = 0; i < n; i++) {
			struct job *j = &jobs[i];
			if (j->state == JOB_CHECKING) {
				if (j->kt_fd >= 0) {
					pfd[np] = (struct pollfd){.fd = j->kt_fd, .events = POLLIN};
					pjob[np] = j;
					pstream[np++] = 2;
				}
				if (timeout_ms > 20)
					timeout_ms = 20; /* its exit, or its deadline */
				continue;
			}
			if (j->state != JOB_RUNNING)
				continue;
			for (int s = 0; s < 2; s++)
				if (j->fd[s] >= 0) {
					pfd[np] = (struct pollfd){.fd = j->fd[s], .events = POLLIN};
					pjob[np] = j;
					pstream[np++] = s;
				}
			if (!j->timed_out) {
				double ms = (j->wall_deadline - now) * 1000.0 + 1;
				if (ms < timeout_ms)
					timeout_ms = ms < 0 ? 0 : (int)ms;
			}
			if (j->fd[0] < 0 && j->fd[1] < 0 && timeout_ms > 20)
				timeout_ms = 20; /* output closed: waiting for exit */
			double left = j->session ? session_run_tick(j->session, now) : -1;
			if (left >= 0 && left * 1000.0 + 1 < timeout_ms)
				timeout_ms = (int)(left * 1000.0) + 1;
		}
		int r = poll(pfd, np, timeout_ms);
		if (r < 0 && errno != EINTR) {
			perror("poll");
			kill_all(jobs, n);
			exit(1);
		}
		for (nfds_t k = 0; r > 0 && k < np; k++) {
			if (!pfd[k].revents)
				continue;
			struct job *j = pjob[k];
			int s = pstream[k];
			if (s == 2) {
				kunit_tool_read(j);
				continue;
			}
			char buf[READ_CHUNK];
			ssize_t got = read(j->fd[s], buf, sizeof(buf));
			if (got > 0) {
				lb_feed(j, s, buf, (size_t)got);
				if (s == 0 && j->session)
					session_run_output(j->session, buf, (size_t)got, now_s());
			} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
				close(j->fd[s]);
				j->fd[s] = -1;
			}
		}
		now = now_s();
		for (size_t i = 0; i < n; i++) {
			struct job *j = &jobs[i];
			if (j->state == JOB_CHECKING) {
				if (kunit_tool_done(j))
					done++;
				continue;
			}
			if (j->state != JOB_RUNNING)
				continue;
			if (j->session && !j->reaped)
				session_run_tick(j->session, now);
			if (!j->reaped)
				try_reap(j);
			if (!j->reaped && !j->timed_out) {
				/* The loop wakes at every burst of output: read
				 * the CPU time at most ten times a second. */
				if (now - j->cpu_read_at >= 0.1) {
					job_read_cpu(j);
					j->cpu_read_at = now;
				}
				bool cpu_out = j->cpu_s >= (double)j->timeout_s * j->cpus;
				bool wall_out = now >= j->wall_deadline;
				if (cpu_out || wall_out) {
					kill(-j->pid, SIGKILL);
					j->timed_out = true;
					char *line = xasprintf(
						"%s: timeout: %.0f s of CPU time on %d usable CPU%s "
						"(budget %d s each), %.0f s of wall-clock time%s\n",
						progname, j->cpu_s, j->cpus, j->cpus == 1 ? "" : "s",
						j->timeout_s, now - j->start,
						wall_out ? " (the backstop for a boot using no CPU)" : "");
					fputs(line, stdout);
					if (j->log)
						fputs(line, j->log);
					free(line);
					fflush(stdout);
				}
			}
			if (j->reaped && j->fd[0] < 0 && j->fd[1] < 0) {
				/* Its slot is free now; its kunit.py check, if
				 * any, runs beside the next job. */
				finish_job(j);
				running--;
				if (j->state == JOB_DONE)
					done++;
			}
		}
	}
	free(pfd);
	free(pjob);
	free(pstream);
}
