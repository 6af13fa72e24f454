/* program_run.c: run one user program and judge it (program_run.h). Moved
 * out of linux_runner.c so that the Linux guest's init (tools/linux/init.c)
 * judges exactly as the host runner does. */
#include "program_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PR_SET_MEMORY_MERGE_ 67 /* Linux 6.4; not in every libc's headers */

long long program_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void append(struct outcome *o, const char *buf, size_t n)
{
	if (o->len + n > PROGRAM_MAX_OUTPUT)
		n = PROGRAM_MAX_OUTPUT - o->len;
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
struct outcome program_run(const char *path, const char *name, int timeout_s)
{
	char *argv[] = { (char *)name, NULL };
	return program_run_argv(path, argv, timeout_s);
}

struct outcome program_run_argv(const char *path, char *const argv[], int timeout_s)
{
	struct outcome o = { 0 };
	long long t0 = program_now_ms();
	int fds[2], errp[2];
	if (pipe(fds) || pipe2(errp, O_CLOEXEC)) {
		perror("program_run: pipe");
		exit(2);
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("program_run: fork");
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
		/* Two settings a process inherits from whatever started the
		 * runner (a service manager may set them) and keeps across
		 * execve: KSM merging of all its memory (systemd's MemoryKSM=),
		 * which would make written pages shared behind a program's
		 * back, and THP disabled. Each program starts without them; a
		 * kernel that lacks the call (KSM's needs 6.4) says EINVAL, and
		 * nothing is lost. */
		prctl(PR_SET_MEMORY_MERGE_, 0, 0, 0, 0);
		prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
		/* Ignored signals and the blocked mask are kept across execve
		 * too: a non-interactive shell starts a command it puts in the
		 * background with SIGINT and SIGQUIT ignored, and a program
		 * that checks what a signal does would see it ignored. Each
		 * program starts with every signal at its default and none
		 * blocked (SIGKILL, SIGSTOP and the C library's own refuse
		 * the call, harmlessly). */
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
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
	long long deadline = program_now_ms() + timeout_s * 1000LL;
	bool open_pipe = true;
	for (;;) {
		long long left = deadline - program_now_ms();
		if (left <= 0) {
			o.timed_out = true;
			kill(-pid, SIGKILL);
			waitpid(pid, &o.status, 0);
			drain(fds[0], &o); /* what it wrote before it was killed */
			close(fds[0]);
			o.ms = program_now_ms() - t0;
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
			o.ms = program_now_ms() - t0;
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

enum program_verdict program_report(const struct program *p, const char *path,
				    const struct outcome *o, unsigned number, int timeout_s)
{
	/* Lines end at '\n' only: a NUL (binary output) is a character,
	 * shown as '?' like the other control characters. */
	for (size_t i = 0; i < o->len;) {
		const char *nl = memchr(o->output + i, '\n', o->len - i);
		size_t n = nl ? (size_t)(nl - (o->output + i)) : o->len - i;
		size_t linelen = n;
		if (linelen && o->output[i + linelen - 1] == '\r')
			linelen--;
		diag_line(o->output + i, linelen);
		i += n + (i + n < o->len);
	}
	if (o->len == PROGRAM_MAX_OUTPUT)
		printf("    # (output cut at %d bytes)\n", PROGRAM_MAX_OUTPUT);

	bool ok = false, skipped = false;
	char why[PATH_MAX + 256];
	if (o->timed_out) {
		snprintf(why, sizeof(why), "timed out after %d s (killed)", timeout_s);
	} else if (o->exec_failed) {
		snprintf(why, sizeof(why), "could not be started (%s: %s)", path, strerror(o->exec_errno));
	} else if (WIFSIGNALED(o->status)) {
		int sig = WTERMSIG(o->status);
		ok = p->crash && sig == SIGSEGV;
		snprintf(why, sizeof(why), "killed by signal %d (%s)%s", sig, strsignal(sig),
			 p->crash ? (ok ? ", as a crash program must be" : ", expected SIGSEGV") : "");
	} else {
		int st = WEXITSTATUS(o->status);
		if (p->crash) {
			snprintf(why, sizeof(why), "exited with status %d: a crash program must be killed by a fault", st);
		} else {
			int skip = p->selftest ? PROGRAM_KSFT_SKIP_STATUS : PROGRAM_SKIP_STATUS;
			ok = st == 0 || st == skip;
			skipped = st == skip;
			snprintf(why, sizeof(why), "exit status %d%s", st,
				 st == 0 ? " (pass)" : skipped ? " (skip)" : " (fail)");
		}
	}
	printf("    # %s: %s, %lld ms\n", p->name, why, o->ms);
	if (!ok) {
		printf("    not ok %u %s\n", number, p->name);
	} else if (skipped) {
		char reason[160];
		last_line(o, reason, sizeof(reason));
		printf("    ok %u %s # SKIP %s\n", number, p->name, reason);
	} else {
		printf("    ok %u %s\n", number, p->name);
	}
	fflush(stdout);
	return !ok ? PROGRAM_FAIL : skipped ? PROGRAM_SKIP : PROGRAM_PASS;
}
