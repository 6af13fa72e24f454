/* user-linux-runner: runs the user test and crash programs (tests/user/,
 * built once with musl-gcc -static, plus their glibc builds, into
 * build/user/<name>.elf: the very files the ISO carries) on the host Linux
 * and reports them as one KTAP version 1 suite, "user_linux", one case per
 * program, so that `mmlab-runner test --host` counts them beside the
 * kernel's "user" suite, where the same files run as mmlab processes.
 *
 * Verdicts, the same protocol the kernel applies:
 *   test program:  exit 0 = ok, exit 77 = ok # SKIP <its last output line>,
 *                  anything else (other status, a signal, a timeout) = not ok;
 *   crash program: killed by SIGSEGV = ok, anything else = not ok.
 * A program's output (stdout and stderr, one pipe) becomes the case's "# "
 * diagnostics, then a line saying how it ended. Each program runs in its
 * own process group with stdin from /dev/null and no core dumps, and is
 * killed after --timeout seconds (default 60); what it wrote until then is
 * kept. A program that cannot be started (execv fails) is told apart from
 * one that exits with 127.
 *
 * Usage: user-linux-runner [--dir DIR] [--suffix S] [--suite NAME]
 *                          [--timeout S] [NAME...]
 * DIR defaults to ../user beside this executable and S to ".elf"; programs
 * are DIR/<name><suffix>. The program lists come from USER_TEST_NAMES /
 * USER_CRASH_NAMES (space-separated, given by tests/user/user.mk with -D);
 * NAMEs select some of them. Exit status 0 if every case passed or was
 * skipped, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef USER_TEST_NAMES
#error "build with -DUSER_TEST_NAMES='\"name ...\"' (tests/user/user.mk does)"
#endif
#ifndef USER_CRASH_NAMES
#error "build with -DUSER_CRASH_NAMES='\"name ...\"' (tests/user/user.mk does)"
#endif

#define SKIP_STATUS 77
#define MAX_PROGRAMS 64
#define MAX_OUTPUT (256 * 1024) /* kept per program; more is cut */

struct program {
	char name[64];
	bool crash;
};

struct outcome {
	bool timed_out;
	bool exec_failed;
	int exec_errno; /* execv's, when it failed */
	int status; /* waitpid's */
	char *output;
	size_t len;
};

static struct program programs[MAX_PROGRAMS];
static size_t nprograms;

static void add_programs(const char *list, bool crash)
{
	const char *p = list;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (nprograms == MAX_PROGRAMS || n >= sizeof(programs[0].name)) {
			fprintf(stderr, "user-linux-runner: too many or too long program names\n");
			exit(2);
		}
		memcpy(programs[nprograms].name, p, n);
		programs[nprograms].name[n] = 0;
		programs[nprograms].crash = crash;
		nprograms++;
		p += n;
	}
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void append(struct outcome *o, const char *buf, size_t n)
{
	if (o->len + n > MAX_OUTPUT)
		n = MAX_OUTPUT - o->len;
	if (!n)
		return;
	char *grown = realloc(o->output, o->len + n + 1);
	if (!grown)
		return;
	o->output = grown;
	memcpy(o->output + o->len, buf, n);
	o->len += n;
	o->output[o->len] = 0;
}

/* Reads what is in the pipe now, without waiting for more. */
static void drain(int fd, struct outcome *o)
{
	char buf[4096];
	ssize_t n;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n > 0)
			append(o, buf, (size_t)n);
	}
}

/* Runs one program. A failed execv is told apart from the program's own
 * exit status (127 is a status like any other) by a close-on-exec pipe:
 * a successful exec closes it unwritten, a failed one carries errno. */
static struct outcome run(const char *path, const char *name, int timeout_s)
{
	struct outcome o = { 0 };
	int fds[2], errp[2];
	if (pipe(fds) || pipe2(errp, O_CLOEXEC)) {
		perror("user-linux-runner: pipe");
		exit(2);
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("user-linux-runner: fork");
		exit(2);
	}
	if (pid == 0) {
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		close(errp[0]);
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		char *argv[] = { (char *)name, NULL };
		execv(path, argv);
		int err = errno;
		ssize_t w = write(errp[1], &err, sizeof(err));
		(void)w;
		_exit(127);
	}
	setpgid(pid, pid); /* also here: no race with the kill below */
	close(fds[1]);
	close(errp[1]);
	int err;
	ssize_t got;
	while ((got = read(errp[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(errp[0]);
	if (got == (ssize_t)sizeof(err)) {
		o.exec_failed = true;
		o.exec_errno = err;
	}
	long long deadline = now_ms() + timeout_s * 1000LL;
	bool open_pipe = true;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			o.timed_out = true;
			kill(-pid, SIGKILL);
			waitpid(pid, &o.status, 0);
			drain(fds[0], &o); /* what it wrote before it was killed */
			close(fds[0]);
			return o;
		}
		if (open_pipe) {
			struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
			int r = poll(&pfd, 1, (int)(left < 100 ? left : 100));
			if (r > 0) {
				char buf[4096];
				ssize_t n = read(fds[0], buf, sizeof(buf));
				if (n > 0)
					append(&o, buf, (size_t)n);
				else if (n == 0 || errno != EINTR)
					open_pipe = false;
			}
		} else {
			usleep(10000);
		}
		/* WNOWAIT: the program stays a zombie, so its pid (the group's
		 * id) cannot be reused before the group is killed. */
		siginfo_t si = { 0 };
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) {
			kill(-pid, SIGKILL); /* what it left running in its group */
			waitpid(pid, &o.status, 0);
			drain(fds[0], &o); /* the program is gone; read what is left */
			close(fds[0]);
			return o;
		}
	}
}

/* One output line as a diagnostic: a tab becomes a space, any other
 * control character (NUL included) a '?'. */
static void diag_line(const char *line, size_t n)
{
	printf("    # ");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];
		putchar(c == '\t' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : c);
	}
	putchar('\n');
}

/* The last non-empty line of the output (the skip reason), "SKIP: " cut. */
static void last_line(const struct outcome *o, char *buf, size_t size)
{
	const char *end = o->output ? o->output + o->len : NULL;
	snprintf(buf, size, "no reason given");
	if (!end)
		return;
	while (end > o->output && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	const char *start = end;
	while (start > o->output && start[-1] != '\n')
		start--;
	if (end - start > 6 && !strncmp(start, "SKIP: ", 6))
		start += 6;
	if (end > start) {
		size_t n = (size_t)(end - start) < size - 1 ? (size_t)(end - start) : size - 1;
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)start[i];
			buf[i] = (c < 0x20 || c == 0x7f || c == '#') ? ' ' : (char)c;
		}
		buf[n] = 0;
	}
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX + 16] = "";
	const char *suffix = ".elf", *suite = "user_linux";
	int timeout_s = 60;
	bool selected[MAX_PROGRAMS] = { false };
	bool any_selected = false;

	add_programs(USER_TEST_NAMES, false);
	add_programs(USER_CRASH_NAMES, true);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			snprintf(dir, sizeof(dir), "%s", argv[++i]);
		} else if (!strcmp(argv[i], "--suffix") && i + 1 < argc) {
			suffix = argv[++i];
		} else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
			suite = argv[++i];
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout_s = atoi(argv[++i]);
			if (timeout_s <= 0) {
				fprintf(stderr, "user-linux-runner: bad --timeout\n");
				return 2;
			}
		} else {
			size_t k = 0;
			while (k < nprograms && strcmp(programs[k].name, argv[i]))
				k++;
			if (k == nprograms) {
				fprintf(stderr, "usage: %s [--dir DIR] [--suffix S] [--suite NAME] [--timeout S] [NAME...]\n"
						"unknown program '%s'; known: %s %s\n",
					argv[0], argv[i], USER_TEST_NAMES, USER_CRASH_NAMES);
				return 2;
			}
			selected[k] = any_selected = true;
		}
	}
	if (!dir[0]) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			perror("user-linux-runner: /proc/self/exe");
			return 2;
		}
		self[n] = 0;
		char *slash = strrchr(self, '/');
		*slash = 0;
		snprintf(dir, sizeof(dir), "%s/../user", self);
	}

	size_t ncases = 0;
	for (size_t k = 0; k < nprograms; k++)
		ncases += !any_selected || selected[k];
	printf("KTAP version 1\n1..1\n");
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", suite, ncases);
	unsigned pass = 0, fail = 0, skip = 0, number = 0;
	for (size_t k = 0; k < nprograms; k++) {
		if (any_selected && !selected[k])
			continue;
		const struct program *p = &programs[k];
		char path[PATH_MAX + 160];
		snprintf(path, sizeof(path), "%s/%s%.60s", dir, p->name, suffix);
		long long t0 = now_ms();
		struct outcome o = run(path, p->name, timeout_s);
		long long ms = now_ms() - t0;

		/* Lines end at '\n' only: a NUL (binary output) is a character,
		 * shown as '?' like the other control characters. */
		for (size_t i = 0; i < o.len;) {
			const char *nl = memchr(o.output + i, '\n', o.len - i);
			size_t n = nl ? (size_t)(nl - (o.output + i)) : o.len - i;
			size_t linelen = n;
			if (linelen && o.output[i + linelen - 1] == '\r')
				linelen--;
			diag_line(o.output + i, linelen);
			i += n + (i + n < o.len);
		}
		if (o.len == MAX_OUTPUT)
			printf("    # (output cut at %d bytes)\n", MAX_OUTPUT);

		bool ok = false, skipped = false;
		char why[PATH_MAX + 256];
		if (o.timed_out) {
			snprintf(why, sizeof(why), "timed out after %d s (killed)", timeout_s);
		} else if (o.exec_failed) {
			snprintf(why, sizeof(why), "could not be started (%s: %s)", path, strerror(o.exec_errno));
		} else if (WIFSIGNALED(o.status)) {
			int sig = WTERMSIG(o.status);
			ok = p->crash && sig == SIGSEGV;
			snprintf(why, sizeof(why), "killed by signal %d (%s)%s", sig, strsignal(sig),
				 p->crash ? (ok ? ", as a crash program must be" : ", expected SIGSEGV") : "");
		} else {
			int st = WEXITSTATUS(o.status);
			if (p->crash) {
				snprintf(why, sizeof(why), "exited with status %d: a crash program must be killed by a fault", st);
			} else {
				ok = st == 0 || st == SKIP_STATUS;
				skipped = st == SKIP_STATUS;
				snprintf(why, sizeof(why), "exit status %d%s", st,
					 st == 0 ? " (pass)" : skipped ? " (skip)" : " (fail)");
			}
		}
		printf("    # %s: %s, %lld ms\n", p->name, why, ms);
		number++;
		if (!ok) {
			fail++;
			printf("    not ok %u %s\n", number, p->name);
		} else if (skipped) {
			char reason[160];
			last_line(&o, reason, sizeof(reason));
			skip++;
			printf("    ok %u %s # SKIP %s\n", number, p->name, reason);
		} else {
			pass++;
			printf("    ok %u %s\n", number, p->name);
		}
		fflush(stdout);
		free(o.output);
	}
	printf("# %s: pass:%u fail:%u skip:%u total:%u\n", suite, pass, fail, skip, number);
	printf("%s 1 %s\n", fail ? "not ok" : "ok", suite);
	return fail ? 1 : 0;
}
