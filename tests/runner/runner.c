/*
 * runner.c - mmlab-runner: boots the mmlab kernel under QEMU on every test
 * topology (and runs host test programs), streams and judges their KTAP
 * output, and writes JUnit XML / JSON reports.
 *
 * Build (from the repository root):
 *   gcc -std=gnu11 -Wall -Wextra -Werror -O2 -o build/host/mmlab-runner tests/runner/runner.c tests/runner/ktap.c tests/runner/topology.c tests/runner/report.c
 *   gcc -std=gnu11 -Wall -Wextra -Werror -O2 -fsanitize=address,undefined -o build/host/runner-selftest tests/runner/selftest.c tests/runner/ktap.c
 *
 * Invariants:
 *   - the verdict of every run comes from ktap.c alone; this file only moves
 *     bytes (process spawning, pipes, poll(), timeouts, logs);
 *   - each child runs in its own process group, which is SIGKILLed on
 *     timeout and after the child exits (so nothing is left behind), and
 *     every child is reaped;
 *   - progress is printed by this single-threaded process, one complete
 *     line (or one case with its diagnostics) at a time, flushed at once, so
 *     lines of parallel boots never interleave;
 *   - the last line printed by "test" is exactly "N passed, N failed, N
 *     skipped" and the exit status is 0 only if every run passed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "report.h"
#include "topology.h"

#define EXIT_USAGE 2
#define READ_CHUNK 65536
#define LINE_MAX_LEN 65536
#define MAX_DIAG_PRINT 40       /* diagnostic lines printed per failed case */
#define HOST_TIMEOUT_S 120
#define KUNIT_TOOL_TIMEOUT_S 60
#define KUNIT_TOOL_OUT_MAX (4 << 20) /* bytes of kunit.py output kept */

static const char *progname = "mmlab-runner";
static volatile sig_atomic_t interrupted;
static const char *kunit_tool_dir; /* --kunit-tool DIR, or NULL */

/* ------------------------------------------------------------ helpers */

static void die_oom(void)
{
	fprintf(stderr, "%s: out of memory\n", progname);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	void *r = realloc(p, n ? n : 1);
	if (!r)
		die_oom();
	return r;
}

static char *xstrdup(const char *s)
{
	char *r = strdup(s);
	if (!r)
		die_oom();
	return r;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* NULL-terminated growable argv. */
struct strvec {
	char **v;
	size_t n, cap;
};

static void sv_push(struct strvec *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 32;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

static void sv_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777);
	free(p);
	return r && errno != EEXIST ? -1 : 0;
}

static int copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return -1;
	}
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		close(in);
		return -1;
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				rc = -1;
				break;
			}
			off += w;
		}
		if (rc)
			break;
	}
	if (close(out))
		rc = -1;
	close(in);
	if (rc)
		snprintf(err, errlen, "copying %s to %s: %s", src, dst, strerror(errno));
	return rc;
}

/* Shell-quote one word for print-cmd. */
static void print_quoted(FILE *f, const char *s)
{
	bool safe = *s != '\0';
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("@%_+=:,./-", *p))
			safe = false;
	if (safe) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* ------------------------------------------------------------ options */

enum mode { MODE_TEST, MODE_RUN, MODE_PRINT };

struct opts {
	enum mode mode;
	const char *iso, *topo_dir, *results, *filter, *accel, *kunit_tool;
	const char *extra_cmdline; /* --cmdline: words appended to the topology's */
	const char **names; /* --topology (test) or NAME (run/print-cmd) */
	size_t nnames;
	const char **hosts;
	size_t nhosts;
	long jobs;
	bool gdb, test_flag;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage:\n"
		"  %1$s test --iso ISO --topologies DIR --results DIR [--topology NAME]...\n"
		"            [--filter GLOB] [--accel tcg|kvm] [--jobs N] [--host PROGRAM]...\n"
		"            [--kunit-tool DIR]   (DIR contains tools/testing/kunit/kunit.py)\n"
		"  %1$s run --iso ISO --topologies DIR [--results DIR] [--accel tcg|kvm] [--gdb]\n"
		"            [--cmdline WORDS] NAME   (WORDS: extra kernel options, e.g. \"bench\")\n"
		"  %1$s print-cmd --iso ISO --topologies DIR [--results DIR] [--accel tcg|kvm]\n"
		"            [--filter GLOB] [--gdb] [--test] NAME\n"
		"environment: ACCEL (default for --accel), QEMU (emulator binary),\n"
		"             OVMF_CODE, OVMF_VARS (UEFI firmware images)\n",
		progname);
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	exit(EXIT_USAGE);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	if (argc < 2)
		usage_error("missing command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		exit(0);
	}
	if (!strcmp(argv[1], "test"))
		o->mode = MODE_TEST;
	else if (!strcmp(argv[1], "run"))
		o->mode = MODE_RUN;
	else if (!strcmp(argv[1], "print-cmd"))
		o->mode = MODE_PRINT;
	else
		usage_error("unknown command '%s'", argv[1]);
	o->accel = getenv("ACCEL") && *getenv("ACCEL") ? getenv("ACCEL") : "tcg";
	o->names = xrealloc(NULL, (size_t)argc * sizeof(*o->names));
	o->hosts = xrealloc(NULL, (size_t)argc * sizeof(*o->hosts));
	for (int i = 2; i < argc; i++) {
		char *a = argv[i];
		const char *val = NULL;
		char *eq = NULL;
		static const char *const with_value[] = {"--iso", "--topologies", "--results",
			"--topology", "--filter", "--accel", "--jobs", "--host", "--kunit-tool", "--cmdline",
			NULL};
		bool takes = false;
		if (a[0] == '-' && a[1] == '-' && (eq = strchr(a, '=')))
			*eq = '\0';
		for (int k = 0; with_value[k]; k++)
			takes |= !strcmp(a, with_value[k]);
		if (takes) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				usage_error("option %s needs a value", a);
		} else if (eq) {
			usage_error("option %s takes no value", a);
		}
		if (!strcmp(a, "--iso"))
			o->iso = val;
		else if (!strcmp(a, "--topologies"))
			o->topo_dir = val;
		else if (!strcmp(a, "--results"))
			o->results = val;
		else if (!strcmp(a, "--filter"))
			o->filter = val;
		else if (!strcmp(a, "--accel"))
			o->accel = val;
		else if (!strcmp(a, "--cmdline"))
			o->extra_cmdline = val;
		else if (!strcmp(a, "--kunit-tool")) {
			if (o->mode != MODE_TEST)
				usage_error("--kunit-tool is only valid with 'test'");
			o->kunit_tool = val;
		}
		else if (!strcmp(a, "--host")) {
			if (o->mode != MODE_TEST)
				usage_error("--host is only valid with 'test'");
			o->hosts[o->nhosts++] = val;
		} else if (!strcmp(a, "--topology")) {
			if (o->mode != MODE_TEST)
				usage_error("--topology is only valid with 'test' (give NAME instead)");
			o->names[o->nnames++] = val;
		} else if (!strcmp(a, "--jobs")) {
			char *end;
			o->jobs = strtol(val, &end, 10);
			if (*end || o->jobs < 1 || o->jobs > 1024)
				usage_error("--jobs needs a number from 1 to 1024, not '%s'", val);
		} else if (!strcmp(a, "--gdb")) {
			if (o->mode == MODE_TEST)
				usage_error("--gdb is not valid with 'test'");
			o->gdb = true;
		} else if (!strcmp(a, "--test")) {
			if (o->mode != MODE_PRINT)
				usage_error("--test is only valid with 'print-cmd'");
			o->test_flag = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (a[0] == '-') {
			usage_error("unknown option '%s'", a);
		} else {
			if (o->mode == MODE_TEST)
				usage_error("unexpected argument '%s' (use --topology NAME)", a);
			o->names[o->nnames++] = a;
		}
	}
	if (strcmp(o->accel, "tcg") && strcmp(o->accel, "kvm"))
		usage_error("accel must be 'tcg' or 'kvm', not '%s'", o->accel);
	if (o->mode != MODE_TEST) {
		if (o->mode == MODE_RUN && o->filter)
			usage_error("--filter is only valid with 'test' and 'print-cmd --test'");
		if (o->nnames != 1)
			usage_error("'%s' needs exactly one topology NAME", argv[1]);
		if (!o->iso || !o->topo_dir)
			usage_error("'%s' needs --iso and --topologies", argv[1]);
		if (!o->results)
			o->results = "build/test-results";
	} else {
		if (!o->results)
			usage_error("'test' needs --results");
		if (!o->topo_dir && o->nnames)
			usage_error("--topology needs --topologies");
		if (o->topo_dir && !o->iso)
			usage_error("--topologies needs --iso");
		if (!o->topo_dir && !o->nhosts)
			usage_error("nothing to test: give --topologies/--iso and/or --host");
		if (o->kunit_tool) {
			char *py = xasprintf("%s/tools/testing/kunit/kunit.py", o->kunit_tool);
			if (access(py, R_OK))
				usage_error("--kunit-tool %s: cannot read %s: %s", o->kunit_tool, py,
					    strerror(errno));
			free(py);
		}
		if (!o->jobs) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			o->jobs = n > 0 ? n : 1;
		}
	}
}

/* ------------------------------------------------------- QEMU command */

static const char *ovmf_file(const char *env, const char *preferred, const char *fallback)
{
	const char *e = getenv(env);
	if (e && *e)
		return e;
	return access(preferred, R_OK) == 0 ? preferred : fallback;
}

static const char *ovmf_code(void)
{
	return ovmf_file("OVMF_CODE", "/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_CODE.fd");
}

static const char *ovmf_vars(void)
{
	return ovmf_file("OVMF_VARS", "/usr/share/OVMF/OVMF_VARS_4M.fd", "/usr/share/OVMF/OVMF_VARS.fd");
}

static const char *qemu_binary(void)
{
	const char *q = getenv("QEMU");
	return q && *q ? q : "qemu-system-x86_64";
}

/* The kernel command line S passed through fw_cfg. */
static char *kernel_cmdline(const struct topology *t, bool test, const char *filter,
			    const char *extra)
{
	size_t cap = 64 + (filter ? strlen(filter) : 0) + (extra ? strlen(extra) : 0);
	for (size_t i = 0; i < t->ncmdline; i++)
		cap += strlen(t->cmdline[i]) + 1;
	char *s = xrealloc(NULL, cap);
	s[0] = '\0';
	if (test) {
		strcat(s, "ktest");
		if (filter) {
			strcat(s, " ktest.filter=");
			strcat(s, filter);
		}
	}
	for (size_t i = 0; i < t->ncmdline; i++) {
		if (s[0])
			strcat(s, " ");
		strcat(s, t->cmdline[i]);
	}
	if (extra && *extra) {
		if (s[0])
			strcat(s, " ");
		strcat(s, extra);
	}
	return s;
}

/* QEMU's option parser splits on ',': a literal comma is written ",,". */
static char *qemu_opt_escape(const char *s)
{
	char *r = xrealloc(NULL, 2 * strlen(s) + 1), *o = r;
	for (; *s; s++) {
		*o++ = *s;
		if (*s == ',')
			*o++ = ',';
	}
	*o = '\0';
	return r;
}

static char *vars_copy_path(const struct opts *o, const struct topology *t)
{
	return xasprintf("%s/%s.OVMF_VARS.fd", o->results, t->name);
}

static void build_qemu_argv(struct strvec *av, const struct opts *o, const struct topology *t,
			    bool test, const char *vars_path)
{
	sv_push(av, qemu_binary());
	for (size_t i = 0; i < t->nqemu; i++)
		sv_push(av, t->qemu_args[i]);
	static const char *const common[] = {"-display", "none", "-vga", "none", "-serial", "stdio",
		"-monitor", "none", "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
		NULL};
	sv_push(av, "-cdrom");
	sv_push(av, o->iso);
	for (int i = 0; common[i]; i++)
		sv_push(av, common[i]);
	char *cmd = kernel_cmdline(t, test, test ? o->filter : NULL, o->extra_cmdline);
	if (cmd[0]) { /* QEMU rejects an empty string=; no file means "" */
		char *esc = qemu_opt_escape(cmd);
		char *arg = xasprintf("name=opt/mmlab/cmdline,string=%s", esc);
		sv_push(av, "-fw_cfg");
		sv_push(av, arg);
		free(arg);
		free(esc);
	}
	free(cmd);
	if (!strcmp(o->accel, "kvm")) {
		sv_push(av, "-accel");
		sv_push(av, "kvm");
		sv_push(av, "-cpu");
		sv_push(av, "host");
	} else {
		sv_push(av, "-accel");
		sv_push(av, "tcg,thread=multi");
		sv_push(av, "-cpu");
		sv_push(av, "max");
	}
	if (t->firmware == FIRMWARE_UEFI) {
		char *code = qemu_opt_escape(ovmf_code());
		char *vars = qemu_opt_escape(vars_path);
		char *a = xasprintf("if=pflash,format=raw,readonly=on,file=%s", code);
		char *b = xasprintf("if=pflash,format=raw,file=%s", vars);
		sv_push(av, "-drive");
		sv_push(av, a);
		sv_push(av, "-drive");
		sv_push(av, b);
		free(a);
		free(b);
		free(code);
		free(vars);
	}
	if (o->gdb) {
		sv_push(av, "-s");
		sv_push(av, "-S");
	}
}

/* ------------------------------------------------------------ jobs */

enum job_state { JOB_PENDING, JOB_RUNNING, JOB_DONE };

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
	int timeout_s;

	enum job_state state;
	pid_t pid;            /* also the process group id */
	int fd[2];            /* stdout, stderr pipes (-1 when closed) */
	struct linebuf lb[2];
	FILE *log;
	double start, deadline, end;
	bool timed_out, reaped;
	int exit_status;      /* ktap.h encoding */

	struct ktap_parser *parser;
	const struct ktap_verdict *verdict;
};

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
		char *copy = strndup(line, len);
		if (!copy)
			die_oom();
		ktap_feed_line(j->parser, copy);
		free(copy);
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

/* Fork the job's process in its own process group. Returns 0 or -1. */
static int start_job(struct job *j, char *err, size_t errlen)
{
	int p_out[2], p_err[2];
	j->start = now_s();
	j->deadline = j->start + j->timeout_s;
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
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p_out[0]);
		close(p_out[1]);
		close(p_err[0]);
		close(p_err[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(p_out[1], 1) < 0 ||
		    dup2(p_err[1], 2) < 0)
			_exit(127);
		execvp(j->argv.v[0], j->argv.v);
		dprintf(2, "%s: cannot run %s: %s\n", progname, j->argv.v[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* also in the parent, so kill(-pid) works at once */
	close(p_out[1]);
	close(p_err[1]);
	j->pid = pid;
	j->fd[0] = p_out[0];
	j->fd[1] = p_err[0];
	fcntl(j->fd[0], F_SETFL, O_NONBLOCK);
	fcntl(j->fd[1], F_SETFL, O_NONBLOCK);
	j->state = JOB_RUNNING;
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

/* Run "python3 DIR/tools/testing/kunit/kunit.py parse LOG" (LOG absolute:
 * kunit.py chdirs to the kernel tree root) with stdout+stderr captured in
 * *out. Returns the exit status (ktap.h encoding); *timed_out if killed. */
static int run_kunit_py(const char *log_abs, char **out, bool *timed_out)
{
	struct linebuf b = {0};
	int p[2];
	*timed_out = false;
	*out = NULL;
	char *py = xasprintf("%s/tools/testing/kunit/kunit.py", kunit_tool_dir);
	if (pipe2(p, O_CLOEXEC)) {
		*out = xasprintf("%s: pipe: %s\n", progname, strerror(errno));
		free(py);
		return 127;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		*out = xasprintf("%s: fork: %s\n", progname, strerror(errno));
		close(p[0]);
		close(p[1]);
		free(py);
		return 127;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(127);
		execlp("python3", "python3", py, "parse", log_abs, (char *)NULL);
		dprintf(2, "%s: cannot run python3: %s\n", progname, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);
	free(py);
	double deadline = now_s() + KUNIT_TOOL_TIMEOUT_S;
	for (;;) {
		double left = deadline - now_s();
		if (left <= 0 || interrupted) {
			kill(-pid, SIGKILL);
			*timed_out = !interrupted;
			break;
		}
		struct pollfd pfd = {.fd = p[0], .events = POLLIN};
		int r = poll(&pfd, 1, left > 0.2 ? 200 : (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		char buf[READ_CHUNK];
		ssize_t got = read(p[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (b.len + (size_t)got + 1 > b.cap) {
			b.cap = (b.len + (size_t)got + 1) * 2;
			b.buf = xrealloc(b.buf, b.cap);
		}
		if (b.len < KUNIT_TOOL_OUT_MAX) {
			memcpy(b.buf + b.len, buf, (size_t)got);
			b.len += (size_t)got;
		}
	}
	close(p[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL); /* anything it left behind */
	b.buf = xrealloc(b.buf, b.len + 1);
	b.buf[b.len] = '\0';
	*out = b.buf;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return KTAP_EXIT_SIGNAL(WTERMSIG(status));
	return 255;
}

/* --kunit-tool: check that Linux's kunit_tool parses this boot's log with
 * no error and the same counts; reported as case kunit_tool.parse. */
static void kunit_tool_check(struct job *j)
{
	const struct ktap_verdict *v = j->verdict;
	if (!ktap_started(j->parser)) {
		ktap_add_check(j->parser, "kunit_tool", "parse", KTAP_SKIP,
			       "no KTAP output to parse; the boot failed", NULL);
		return;
	}
	char *abs = realpath(j->log_path, NULL);
	char *out = NULL, *diag = NULL;
	bool timed_out = false;
	int st = abs ? run_kunit_py(abs, &out, &timed_out) : 127;
	if (!out)
		out = xasprintf("%s: %s: %s\n", progname, j->log_path, strerror(errno));
	FILE *f = fopen(j->kt_path, "w");
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
	free(out);
	free(abs);
}

static void finish_job(struct job *j)
{
	lb_flush(j, 0);
	lb_flush(j, 1);
	j->verdict = ktap_finish(j->parser, j->exit_status, j->timed_out);
	drain_events(j);
	if (j->kt_path && !interrupted) {
		if (j->log)
			fflush(j->log);
		kunit_tool_check(j);
		drain_events(j);
	}
	const struct ktap_verdict *v = j->verdict;
	if (v->pass)
		printf("[%s] PASS %d passed, %d failed, %d skipped (%.1f s)\n", j->name, v->passed,
		       v->failed, v->skipped, j->end - j->start);
	else
		printf("[%s] FAIL: %s (log: %s)\n", j->name, v->reason_text, j->log_path);
	fflush(stdout);
	if (j->log) {
		fclose(j->log);
		j->log = NULL;
	}
	j->state = JOB_DONE;
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
		if (jobs[i].state == JOB_RUNNING && !jobs[i].reaped) {
			kill(-jobs[i].pid, SIGKILL);
			while (waitpid(jobs[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
			jobs[i].reaped = true;
		}
}

static void run_jobs(struct job *jobs, size_t n, long maxjobs)
{
	size_t next = 0, done = 0;
	long running = 0;
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
		while (running < maxjobs && next < n) {
			struct job *j = &jobs[next++];
			if (j->topo)
				printf("[%s] booting (%s, %s firmware, timeout %d s%s)\n", j->name,
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
			if (j->state != JOB_RUNNING)
				continue;
			for (int s = 0; s < 2; s++)
				if (j->fd[s] >= 0) {
					pfd[np] = (struct pollfd){.fd = j->fd[s], .events = POLLIN};
					pjob[np] = j;
					pstream[np++] = s;
				}
			if (!j->timed_out) {
				double ms = (j->deadline - now) * 1000.0 + 1;
				if (ms < timeout_ms)
					timeout_ms = ms < 0 ? 0 : (int)ms;
			}
			if (j->fd[0] < 0 && j->fd[1] < 0 && timeout_ms > 20)
				timeout_ms = 20; /* output closed: waiting for exit */
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
			char buf[READ_CHUNK];
			ssize_t got = read(j->fd[s], buf, sizeof(buf));
			if (got > 0) {
				lb_feed(j, s, buf, (size_t)got);
			} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
				close(j->fd[s]);
				j->fd[s] = -1;
			}
		}
		now = now_s();
		for (size_t i = 0; i < n; i++) {
			struct job *j = &jobs[i];
			if (j->state != JOB_RUNNING)
				continue;
			if (!j->reaped)
				try_reap(j);
			if (!j->reaped && !j->timed_out && now >= j->deadline) {
				kill(-j->pid, SIGKILL);
				j->timed_out = true;
			}
			if (j->reaped && j->fd[0] < 0 && j->fd[1] < 0) {
				double t0 = now_s();
				finish_job(j);
				/* kunit.py ran synchronously: do not charge that
				 * time to the boots still running */
				double spent = now_s() - t0;
				for (size_t k = 0; k < n; k++)
					if (jobs[k].state == JOB_RUNNING)
						jobs[k].deadline += spent;
				running--;
				done++;
			}
		}
	}
	free(pfd);
	free(pjob);
	free(pstream);
}

/* ------------------------------------------------------------ commands */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static const struct topology *find_topology(const struct topology *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

static void unknown_topology(const char *name, const struct topology *t, size_t n, const char *dir)
{
	fprintf(stderr, "%s: unknown topology '%s'; available in %s:", progname, name, dir);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", t[i].name);
	fprintf(stderr, "%s\n", n ? "" : " (none)");
	exit(EXIT_USAGE);
}

static struct topology *load_topologies(const char *dir, size_t *n)
{
	struct topology *t;
	char err[1024];
	if (topology_load_dir(dir, &t, n, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		exit(EXIT_USAGE);
	}
	return t;
}

static int cmd_test(const struct opts *o)
{
	struct topology *topos = NULL;
	size_t ntopos = 0;
	const struct topology **sel = NULL;
	size_t nsel = 0;
	if (o->topo_dir) {
		topos = load_topologies(o->topo_dir, &ntopos);
		sel = xrealloc(NULL, (ntopos + o->nnames + 1) * sizeof(*sel));
		if (o->nnames) {
			for (size_t i = 0; i < o->nnames; i++) {
				const struct topology *t = find_topology(topos, ntopos, o->names[i]);
				if (!t)
					unknown_topology(o->names[i], topos, ntopos, o->topo_dir);
				bool dup = false; /* each topology boots once */
				for (size_t k = 0; k < nsel; k++)
					dup |= sel[k] == t;
				if (!dup)
					sel[nsel++] = t;
			}
		} else {
			for (size_t i = 0; i < ntopos; i++)
				sel[nsel++] = &topos[i];
		}
		if (!nsel && !o->nhosts)
			usage_error("no topologies in %s and no --host programs", o->topo_dir);
		if (nsel && access(o->iso, R_OK)) {
			fprintf(stderr, "%s: cannot read ISO %s: %s\n", progname, o->iso, strerror(errno));
			exit(EXIT_USAGE);
		}
	}
	if (mkdir_p(o->results)) {
		fprintf(stderr, "%s: cannot create %s: %s\n", progname, o->results, strerror(errno));
		return 1;
	}

	size_t njobs = o->nhosts + nsel;
	struct job *jobs = xrealloc(NULL, njobs * sizeof(*jobs));
	memset(jobs, 0, njobs * sizeof(*jobs));
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		j->fd[0] = j->fd[1] = -1;
		if (i < o->nhosts) {
			const char *prog = o->hosts[i];
			const char *base = strrchr(prog, '/');
			base = base ? base + 1 : prog;
			j->name = xasprintf("host-%s", base);
			for (size_t k = 0, dup = 1; k < i; k++) /* keep names (and logs) unique */
				if (!strcmp(jobs[k].name, j->name)) {
					free(j->name);
					j->name = xasprintf("host-%s-%zu", base, ++dup);
					k = (size_t)-1;
				}
			j->kind = KTAP_KIND_HOST;
			j->timeout_s = HOST_TIMEOUT_S;
			sv_push(&j->argv, prog);
		} else {
			const struct topology *t = sel[i - o->nhosts];
			j->name = xstrdup(t->name);
			j->topo = t;
			j->kind = KTAP_KIND_QEMU;
			j->timeout_s = t->timeout_s;
			if (t->firmware == FIRMWARE_UEFI)
				j->vars_path = vars_copy_path(o, t);
			build_qemu_argv(&j->argv, o, t, true, j->vars_path);
		}
		j->log_path = xasprintf("%s/%s.log", o->results, j->name);
		bool panic = j->topo && j->topo->expect == EXPECT_PANIC;
		/* a boot that must panic prints no KTAP: nothing for kunit.py */
		if (o->kunit_tool && j->kind == KTAP_KIND_QEMU && !panic)
			j->kt_path = xasprintf("%s/%s.kunit_tool.log", o->results, j->name);
		j->parser = ktap_new(j->kind, j->timeout_s);
		if (panic)
			ktap_expect_panic(j->parser, (const char *const *)j->topo->expect_output,
					  j->topo->nexpect_output);
	}
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Logs and firmware copies are prepared before anything starts. */
	int rc = 0;
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		char err[1024];
		j->log = fopen(j->log_path, "w");
		if (!j->log) {
			fprintf(stderr, "%s: %s: %s\n", progname, j->log_path, strerror(errno));
			rc = 1;
		}
		if (j->log) {
			fprintf(j->log, "# mmlab-runner:");
			for (size_t k = 0; k < j->argv.n; k++) {
				fputc(' ', j->log);
				print_quoted(j->log, j->argv.v[k]);
			}
			fputc('\n', j->log);
		}
		if (j->vars_path && copy_file(ovmf_vars(), j->vars_path, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", progname, err);
			rc = 1;
		}
	}
	if (rc) {
		printf("0 passed, 0 failed, 0 skipped\n");
		return 1;
	}

	run_jobs(jobs, njobs, o->jobs);

	struct run_record *recs = xrealloc(NULL, njobs * sizeof(*recs));
	int passed = 0, failed = 0, skipped = 0;
	bool all_pass = true;
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		recs[i] = (struct run_record){
			.name = j->name,
			.kind = j->kind,
			.firmware = j->topo ? firmware_name(j->topo->firmware) : NULL,
			.log_path = j->log_path,
			.exit_status = j->exit_status,
			.timed_out = j->timed_out,
			.duration_s = j->end - j->start,
			.parser = j->parser,
			.verdict = j->verdict,
		};
		passed += j->verdict->passed;
		failed += j->verdict->failed;
		skipped += j->verdict->skipped;
		all_pass &= j->verdict->pass;
	}
	char err[1024];
	char *junit = xasprintf("%s/junit.xml", o->results);
	char *json = xasprintf("%s/results.json", o->results);
	if (report_write_junit(junit, recs, njobs, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		all_pass = false;
	}
	if (report_write_json(json, recs, njobs, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		all_pass = false;
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	fflush(stdout);

	for (size_t i = 0; i < njobs; i++) {
		ktap_free(jobs[i].parser);
		sv_free(&jobs[i].argv);
		free(jobs[i].name);
		free(jobs[i].log_path);
		free(jobs[i].kt_path);
		free(jobs[i].vars_path);
		free(jobs[i].lb[0].buf);
		free(jobs[i].lb[1].buf);
	}
	free(jobs);
	free(recs);
	free(junit);
	free(json);
	free(sel);
	topology_free_all(topos, ntopos);
	return all_pass && failed == 0 ? 0 : 1;
}

static int cmd_run_or_print(const struct opts *o)
{
	size_t ntopos;
	struct topology *topos = load_topologies(o->topo_dir, &ntopos);
	const struct topology *t = find_topology(topos, ntopos, o->names[0]);
	if (!t)
		unknown_topology(o->names[0], topos, ntopos, o->topo_dir);
	bool test = o->mode == MODE_PRINT && o->test_flag;
	char *vars = t->firmware == FIRMWARE_UEFI ? vars_copy_path(o, t) : NULL;
	struct strvec av = {0};
	build_qemu_argv(&av, o, t, test, vars);

	if (o->mode == MODE_PRINT) {
		for (size_t i = 0; i < av.n; i++) {
			if (i)
				putchar(' ');
			print_quoted(stdout, av.v[i]);
		}
		putchar('\n');
		sv_free(&av);
		free(vars);
		topology_free_all(topos, ntopos);
		return 0;
	}

	char err[1024];
	if (vars && mkdir_p(o->results)) {
		fprintf(stderr, "%s: cannot create %s: %s\n", progname, o->results, strerror(errno));
		return 1;
	}
	if (vars && copy_file(ovmf_vars(), vars, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		return 1;
	}
	if (o->gdb)
		printf("QEMU is waiting for GDB on localhost:1234\n");
	fflush(stdout);
	/* Like system(): the terminal's ^C goes to QEMU, we report its status. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(av.v[0], av.v);
		fprintf(stderr, "%s: cannot run %s: %s\n", progname, av.v[0], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			return 1;
		}
	}
	int rc = 0;
	int want = t->expect == EXPECT_PANIC ? KTAP_QEMU_EXIT_PANIC : KTAP_QEMU_EXIT_PASS;
	if (WIFEXITED(status) && WEXITSTATUS(status) == want) {
		rc = 0;
	} else {
		const char *exp = t->expect == EXPECT_PANIC ? " (expected a kernel panic, 37)" : "";
		if (WIFSIGNALED(status))
			printf("kernel exited with status signal %d%s\n", WTERMSIG(status), exp);
		else
			printf("kernel exited with status %d%s\n", WEXITSTATUS(status), exp);
		rc = 1;
	}
	sv_free(&av);
	free(vars);
	topology_free_all(topos, ntopos);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(argc, argv, &o);
	kunit_tool_dir = o.kunit_tool;
	int rc = o.mode == MODE_TEST ? cmd_test(&o) : cmd_run_or_print(&o);
	free(o.names);
	free(o.hosts);
	return rc;
}
