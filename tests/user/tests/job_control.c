/* Stop and continue (job control without a terminal), held beside Linux's:
 * SIGSTOP and SIGTSTP stop a child, every thread of it (its counters stop
 * moving, /proc/<pid>/status says "T (stopped)"); wait4(WUNTRACED) reports
 * the stop once (status 0x7f | sig << 8), waitid(WSTOPPED|WNOWAIT) leaves
 * it to report again; the parent's SIGCHLD says CLD_STOPPED and
 * CLD_CONTINUED (none with SA_NOCLDSTOP); SIGCONT resumes the child,
 * wait4(WCONTINUED) reports it once (0xffff); SIGCONT discards a pending
 * stop signal and a stop signal a pending SIGCONT; SIGKILL ends a stopped
 * child; SIGTSTP does not stop a process of an orphaned process group
 * (SIGSTOP does); a group orphaned with a stopped process in it gets
 * SIGHUP and SIGCONT. mmlab's /proc has no directory for another process:
 * the State line is read on Linux only.
 *
 * Each child moves to a process group of its own (setpgid) first: its
 * parent, this program, is then in another group of the same session, so
 * the group is not orphaned whoever started the program. */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define NTHREADS 3

struct shared {
	volatile unsigned long count[NTHREADS + 1];
	volatile int ready;
	volatile unsigned long pending;
	volatile int pid;
};
static struct shared *sh;

static volatile int chld_count, chld_code, chld_status, chld_pid;

static void on_sigchld(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	chld_code = si->si_code;
	chld_status = si->si_status;
	chld_pid = si->si_pid;
	chld_count++;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void *counting(void *arg)
{
	volatile unsigned long *c = arg;
	for (;;) {
		(*c)++;
		sleep_ms(1);
	}
	return NULL;
}

enum { OWN_GROUP, NEW_SESSION };

/* A child that counts in NTHREADS threads and its main one. */
static pid_t start_child(int how)
{
	memset((void *)sh, 0, sizeof(*sh));
	pid_t pid = fork();
	if (pid == 0) {
		if (how == OWN_GROUP ? setpgid(0, 0) != 0 : setsid() < 0)
			_exit(90);
		for (int i = 0; i < NTHREADS; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, counting, (void *)&sh->count[i + 1]))
				_exit(91);
		}
		sh->ready = 1;
		counting((void *)&sh->count[0]);
	}
	CHECK_CMP(pid, >, 0);
	while (!sh->ready)
		sleep_ms(1);
	return pid;
}

/* Whether each of the first n counters moves within 5 s. */
static bool counting_n(int n)
{
	unsigned long before[NTHREADS + 1];
	for (int i = 0; i < n; i++)
		before[i] = sh->count[i];
	for (int ms = 0; ms < 5000; ms++) {
		bool all = true;
		for (int i = 0; i < n; i++)
			all &= sh->count[i] != before[i];
		if (all)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* Whether every thread of a start_child child counts. */
static bool all_counting(void) { return counting_n(NTHREADS + 1); }

/* Whether no counter moves in 50 ms. */
static bool none_counting(void)
{
	unsigned long before[NTHREADS + 1];
	for (int i = 0; i <= NTHREADS; i++)
		before[i] = sh->count[i];
	sleep_ms(50);
	for (int i = 0; i <= NTHREADS; i++)
		if (sh->count[i] != before[i])
			return false;
	return true;
}

/* The line of /proc/<pid>/status that starts with key (e.g. "State:"). */
static bool status_line(pid_t pid, const char *key, char *out, size_t size)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return false;
	char *p = strstr(buf, key);
	if (!p)
		return false;
	p += strlen(key);
	while (*p == '\t' || *p == ' ')
		p++;
	size_t n = strcspn(p, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

static void wait_chld_signal(int count)
{
	for (int ms = 0; ms < 5000 && chld_count < count; ms++)
		sleep_ms(1);
}

static void kill_child(pid_t pid)
{
	int status = -1;
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
}

static void stop_and_continue(void)
{
	char state[64];
	int status = -1;
	pid_t pid = start_child(OWN_GROUP);
	CHECK(all_counting());

	/* The SIGCHLD first: Linux reads the stop signal for it after the
	 * stop, when a wait may already have taken it (then si_status 0). */
	int seen = chld_count;
	CHECK(kill(pid, SIGSTOP) == 0);
	wait_chld_signal(seen + 1);
	CHECK_CMP(chld_count, ==, seen + 1);
	CHECK(chld_code == CLD_STOPPED && chld_status == SIGSTOP && chld_pid == pid);
	CHECK_CMP(waitpid(pid, &status, WUNTRACED), ==, pid);
	CHECKF(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP && status == 0x137f, "status %#x", status);
	CHECK(none_counting());
	if (!on_mmlab()) /* mmlab's /proc has the caller's own pid only */
		CHECK(status_line(pid, "State:", state, sizeof(state)) && strcmp(state, "T (stopped)") == 0);
	/* Reported once. */
	CHECK_CMP(waitpid(pid, &status, WUNTRACED | WNOHANG), ==, 0);
	/* A second stop signal to a stopped process: nothing new. */
	CHECK(kill(pid, SIGSTOP) == 0);
	sleep_ms(20);
	CHECK_CMP(waitpid(pid, &status, WUNTRACED | WNOHANG), ==, 0);

	CHECK(kill(pid, SIGCONT) == 0);
	CHECK_CMP(waitpid(pid, &status, WCONTINUED), ==, pid);
	CHECKF(WIFCONTINUED(status) && status == 0xffff, "status %#x", status);
	CHECK(all_counting());
	wait_chld_signal(seen + 2);
	CHECK(chld_code == CLD_CONTINUED && chld_status == SIGCONT && chld_pid == pid);
	CHECK_CMP(waitpid(pid, &status, WCONTINUED | WNOHANG), ==, 0);
	if (!on_mmlab())
		CHECK(status_line(pid, "State:", state, sizeof(state)) && strcmp(state, "T (stopped)") != 0);

	/* SIGTSTP, and waitid's WNOWAIT. */
	CHECK(kill(pid, SIGTSTP) == 0);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PID, pid, &si, WSTOPPED | WNOWAIT) == 0);
	CHECK(si.si_signo == SIGCHLD && si.si_code == CLD_STOPPED && si.si_status == SIGTSTP && si.si_pid == pid);
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PID, pid, &si, WSTOPPED) == 0);
	CHECK(si.si_code == CLD_STOPPED && si.si_status == SIGTSTP && si.si_pid == pid);
	memset(&si, 0x5a, sizeof(si));
	CHECK(waitid(P_PID, pid, &si, WSTOPPED | WNOHANG) == 0);
	CHECK(si.si_pid == 0 && si.si_signo == 0);
	CHECK(none_counting());
	CHECK(kill(pid, SIGCONT) == 0);
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PID, pid, &si, WCONTINUED | WNOWAIT) == 0);
	CHECK(si.si_code == CLD_CONTINUED && si.si_status == SIGCONT && si.si_pid == pid);
	CHECK_CMP(waitpid(pid, &status, WCONTINUED), ==, pid);
	CHECK(WIFCONTINUED(status));
	CHECK(all_counting());

	/* SIGKILL ends a stopped process. */
	CHECK(kill(pid, SIGSTOP) == 0);
	CHECK_CMP(waitpid(pid, &status, WUNTRACED), ==, pid);
	CHECK(WIFSTOPPED(status));
	kill_child(pid);
}

/* SA_NOCLDSTOP: no SIGCHLD for a stop or a continue; the waits still
 * see them. */
static void nocldstop(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigchld, .sa_flags = SA_SIGINFO | SA_RESTART | SA_NOCLDSTOP };
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	int status = -1;
	pid_t pid = start_child(OWN_GROUP);
	int seen = chld_count;
	CHECK(kill(pid, SIGSTOP) == 0);
	CHECK_CMP(waitpid(pid, &status, WUNTRACED), ==, pid);
	CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	CHECK(kill(pid, SIGCONT) == 0);
	CHECK_CMP(waitpid(pid, &status, WCONTINUED), ==, pid);
	CHECK(all_counting());
	CHECK_CMP(chld_count, ==, seen);
	kill_child(pid);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
}

/* The child blocks SIGTSTP and SIGCONT (a handler for SIGCONT, so it is
 * not ignored when it comes unblocked) and writes what is pending for it
 * (sigpending) each time it counts. */
static void on_cont(int sig) { (void)sig; }

/* What the child saw pending on its next count but one (the first may
 * have read it before the signal came). */
static unsigned long child_pending(void)
{
	unsigned long c = sh->count[0];
	for (int ms = 0; ms < 5000 && sh->count[0] < c + 2; ms++)
		sleep_ms(1);
	return sh->pending;
}

static void pending_discarded(void)
{
	int status = -1;
	memset((void *)sh, 0, sizeof(*sh));
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_cont };
		sigaction(SIGCONT, &sa, NULL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGTSTP);
		sigaddset(&set, SIGCONT);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (setpgid(0, 0))
			_exit(90);
		sh->ready = 1;
		for (;;) {
			sigset_t pend;
			sigpending(&pend);
			sh->pending = (sigismember(&pend, SIGTSTP) ? 1UL << (SIGTSTP - 1) : 0) |
				      (sigismember(&pend, SIGCONT) ? 1UL << (SIGCONT - 1) : 0);
			sh->count[0]++;
			sleep_ms(1);
		}
	}
	while (!sh->ready)
		sleep_ms(1);
	unsigned long tstp = 1UL << (SIGTSTP - 1), cont = 1UL << (SIGCONT - 1);
	CHECK_CMP(child_pending(), ==, 0);
	/* A blocked SIGCONT waits; a stop signal discards it (and, blocked,
	 * waits in its turn); SIGCONT discards that. */
	CHECK(kill(pid, SIGCONT) == 0);
	CHECK_CMP(child_pending(), ==, cont);
	CHECK(kill(pid, SIGTSTP) == 0);
	CHECK_CMP(child_pending(), ==, tstp);
	CHECK(kill(pid, SIGCONT) == 0);
	CHECK_CMP(child_pending(), ==, cont);
	/* SIGSTOP cannot be blocked: it stops the child, and a blocked
	 * SIGCONT still continues it (then waits, blocked). */
	CHECK(kill(pid, SIGSTOP) == 0);
	CHECK_CMP(waitpid(pid, &status, WUNTRACED), ==, pid);
	CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	CHECK(kill(pid, SIGCONT) == 0);
	CHECK_CMP(waitpid(pid, &status, WCONTINUED), ==, pid);
	CHECK(counting_n(1)); /* one thread here */
	CHECK_CMP(child_pending(), ==, cont);
	kill_child(pid);
}

/* A process that is alone in its session's only process group (setsid):
 * nobody outside could continue it, so SIGTSTP leaves it running. */
static void orphaned_group(void)
{
	int status = -1;
	pid_t pid = start_child(NEW_SESSION);
	CHECK(kill(pid, SIGTSTP) == 0);
	CHECK(all_counting());
	CHECK_CMP(waitpid(pid, &status, WUNTRACED | WNOHANG), ==, 0);
	CHECK(kill(pid, SIGSTOP) == 0);
	CHECK_CMP(waitpid(pid, &status, WUNTRACED), ==, pid);
	CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	kill_child(pid);
}

/* A process group that loses its last tie to its session while one of
 * its processes is stopped: every process of it gets SIGHUP, then
 * SIGCONT (Linux's kill_orphaned_pgrp), so the stopped one dies of the
 * SIGHUP. S leads a new session; its child C leads a group of it, where
 * C's child D stops; C ends, D goes to this program (a subreaper, in
 * another session): the group has no tie left. */
static void stopped_group_orphaned(void)
{
	memset((void *)sh, 0, sizeof(*sh));
	pid_t s = fork();
	if (s == 0) {
		if (setsid() < 0)
			_exit(90);
		pid_t c = fork();
		if (c == 0) {
			if (setpgid(0, 0))
				_exit(91);
			pid_t d = fork();
			if (d == 0) {
				kill(getpid(), SIGSTOP);
				for (;;)
					sleep_ms(1);
			}
			int st = 0;
			if (d < 0 || waitpid(d, &st, WUNTRACED) != d || !WIFSTOPPED(st))
				_exit(92);
			sh->pid = d;
			_exit(0); /* D's group is orphaned now */
		}
		int st = -1;
		_exit(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 93);
	}
	int status = -1;
	CHECK_CMP(waitpid(s, &status, 0), ==, s);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	pid_t d = sh->pid;
	CHECK_CMP(d, >, 0);
	if (d <= 0)
		return;
	/* D is ours now; it should die of SIGHUP at once. */
	pid_t r = 0;
	for (int ms = 0; ms < 5000 && (r = waitpid(d, &status, WNOHANG)) == 0; ms++)
		sleep_ms(1);
	CHECK_CMP(r, ==, d);
	if (r != d) {
		kill_child(d);
		return;
	}
	CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP, "status %#x", status);
}

int main(void)
{
	test_begin("job_control");
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		test_skip("no shared page");
	struct sigaction sa = { .sa_sigaction = on_sigchld, .sa_flags = SA_SIGINFO | SA_RESTART };
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	stop_and_continue();
	nocldstop();
	pending_discarded();
	orphaned_group();
	/* Orphans come to this program on both kernels (on mmlab it is its
	 * tree's process 1 anyway). */
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	stopped_group_orphaned();
	return test_end();
}
