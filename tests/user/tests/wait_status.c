/* Waiting for children, held beside Linux's: wait4's status for an exit
 * (the low byte of the code) and for each signal whose default action
 * terminates (WIFSIGNALED, WTERMSIG, and WCOREDUMP for the core-dump
 * signals), WNOHANG before the child has ended, waitid (P_PID, P_ALL,
 * P_PGID, WNOWAIT leaving the child waitable, the siginfo's si_code and
 * si_status, zeros under WNOHANG), the SIGCHLD a parent gets (SA_SIGINFO:
 * CLD_EXITED/CLD_KILLED, si_pid, si_status), children reaped by the
 * kernel under SIG_IGN and SA_NOCLDWAIT (then ECHILD), a wait interrupted
 * by a handler (EINTR), the errnos (ECHILD, EINVAL), and
 * getrusage(RUSAGE_CHILDREN) and wait4's rusage counting a child's page
 * faults.
 *
 * The children are clone(CLONE_VM|SIGCHLD) processes: they share the
 * parent's memory (no copy-on-write needed), run on stacks of their own,
 * and make only raw system calls (their thread pointer is the parent's:
 * errno and raise() would be the parent's).
 *
 * WCOREDUMP: mmlab writes no core file and sets the bit for every
 * core-dump signal of a dumpable process; whether Linux dumps depends on
 * the machine (core_pattern, RLIMIT_CORE), so the test makes the process
 * non-dumpable (PR_SET_DUMPABLE 0: no dump, no bit on either kernel), and
 * on mmlab alone also checks the bit with the process dumpable. */

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define STACK_SIZE (64 * 1024)

static char *stacks;        /* one per concurrent child */
static volatile int go;     /* set by the parent: a child waiting for it may end */
static volatile int parent_pid;

static long raw_getpid(void) { return syscall(SYS_getpid); }

static void raw_sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };
	syscall(SYS_nanosleep, &ts, NULL);
}

/* A child: the process made by clone(CLONE_VM|SIGCHLD) with fn(arg). */
static pid_t child(int (*fn)(void *), void *arg, int slot, int exit_signal)
{
	return clone(fn, stacks + (slot + 1) * STACK_SIZE, CLONE_VM | exit_signal, arg);
}

static int exit_with(void *arg) { syscall(SYS_exit_group, (int)(intptr_t)arg); return 0; }
static int kill_self(void *arg)
{
	syscall(SYS_kill, raw_getpid(), (int)(intptr_t)arg);
	return 100; /* only if the signal did not end it */
}
static int wait_for_go(void *arg)
{
	while (!go)
		raw_sleep_ms(1);
	return (int)(intptr_t)arg;
}

static bool core_signal(int sig)
{
	return sig == SIGQUIT || sig == SIGILL || sig == SIGTRAP || sig == SIGABRT || sig == SIGBUS ||
	       sig == SIGFPE || sig == SIGSEGV || sig == SIGXCPU || sig == SIGXFSZ || sig == SIGSYS;
}

static void exit_statuses(void)
{
	static const int codes[] = { 0, 1, 42, 255, 256, 257 };
	for (unsigned i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		pid_t pid = child(exit_with, (void *)(intptr_t)codes[i], 0, SIGCHLD);
		CHECK_CMP(pid, >, 0);
		int status = -1;
		CHECK_CMP(wait4(pid, &status, 0, NULL), ==, pid);
		CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == (codes[i] & 0xff),
		       "exit(%d): status %#x", codes[i], status);
	}
}

static void signal_statuses(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
				    SIGKILL, SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT,
				    SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS, 40, 64 };
	/* Not dumpable: no core, no WCOREDUMP, on both kernels; dumpable
	 * (mmlab only, see above): the bit for the core-dump signals. The
	 * children share this memory, and so its dumpable mode. */
	for (int dumpable = 0; dumpable <= (on_mmlab() ? 1 : 0); dumpable++) {
		CHECK(prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0) == 0);
		for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			int sig = sigs[i];
			pid_t pid = child(kill_self, (void *)(intptr_t)sig, 0, SIGCHLD);
			int status = -1;
			CHECK_CMP(wait4(pid, &status, 0, NULL), ==, pid);
			bool core = dumpable && core_signal(sig);
			CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == sig && !!WCOREDUMP(status) == core,
			       "killed by signal %d: status %#x (core bit expected %d)", sig, status, core);
		}
	}
	CHECK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0);
}

static void nohang_and_waitid(void)
{
	go = 0;
	pid_t pid = child(wait_for_go, (void *)7, 0, SIGCHLD);
	int status = -1;
	/* Still running: WNOHANG says 0, waitid's siginfo is zeros. */
	CHECK_CMP(wait4(pid, &status, WNOHANG, NULL), ==, 0);
	siginfo_t si;
	memset(&si, 0x5a, sizeof(si));
	CHECK(waitid(P_PID, pid, &si, WEXITED | WNOHANG) == 0);
	CHECK(si.si_signo == 0 && si.si_pid == 0 && si.si_code == 0 && si.si_status == 0);
	/* Accepted though nothing here ever stops. */
	CHECK_CMP(wait4(pid, &status, WNOHANG | WUNTRACED | WCONTINUED, NULL), ==, 0);
	go = 1;
	/* WNOWAIT: seen, and still there to wait for. */
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0);
	CHECK(si.si_signo == SIGCHLD && si.si_code == CLD_EXITED && si.si_pid == pid && si.si_status == 7);
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_ALL, 0, &si, WEXITED) == 0);
	CHECK(si.si_signo == SIGCHLD && si.si_code == CLD_EXITED && si.si_pid == pid && si.si_status == 7);
	CHECK_ERRNO(waitid(P_PID, pid, &si, WEXITED), ECHILD);

	/* A killed child's siginfo, by process group (ours). */
	pid = child(kill_self, (void *)SIGTERM, 0, SIGCHLD);
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PGID, 0, &si, WEXITED) == 0);
	CHECK(si.si_code == CLD_KILLED && si.si_pid == pid && si.si_status == SIGTERM);
	pid = child(exit_with, (void *)3, 0, SIGCHLD);
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PGID, getpgrp(), &si, WEXITED) == 0);
	CHECK(si.si_code == CLD_EXITED && si.si_pid == pid && si.si_status == 3);
	status = -1;
	pid = child(exit_with, (void *)4, 0, SIGCHLD);
	CHECK_CMP(waitpid(-getpgrp(), &status, 0), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	pid = child(exit_with, (void *)5, 0, SIGCHLD);
	CHECK_CMP(waitpid(0, &status, 0), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 5);
}

static void errnos(void)
{
	int status;
	siginfo_t si;
	CHECK_ERRNO(wait4(-1, &status, 0, NULL), ECHILD);
	CHECK_ERRNO(wait4(-1, &status, WNOHANG, NULL), ECHILD);
	CHECK_ERRNO(wait4(getpid(), &status, 0, NULL), ECHILD);
	CHECK_ERRNO(wait4(0x7ffffff0, &status, 0, NULL), ECHILD);
	CHECK_ERRNO(wait4(-1, &status, 0x10000, NULL), EINVAL);
	CHECK_ERRNO(wait4(-1, &status, WNOWAIT, NULL), EINVAL);
	CHECK_ERRNO(waitid(P_ALL, 0, &si, WNOHANG), EINVAL);
	CHECK_ERRNO(waitid(P_PID, 0, &si, WEXITED), EINVAL);
	CHECK_ERRNO(waitid(P_PGID, -1, &si, WEXITED), EINVAL);
	CHECK_ERRNO(waitid((idtype_t)42, 0, &si, WEXITED), EINVAL);
	/* P_PIDFD (3) with a descriptor that is not a pidfd, and a negative one. */
	CHECK_ERRNO(waitid((idtype_t)3, 1, &si, WEXITED), EBADF);
	CHECK_ERRNO(waitid((idtype_t)3, -1, &si, WEXITED), EINVAL);
	CHECK_ERRNO(waitid(P_ALL, 0, &si, WEXITED), ECHILD);
	/* The child is reaped before the status is stored: EFAULT, and then
	 * nothing left. */
	pid_t pid = child(exit_with, (void *)1, 0, SIGCHLD);
	CHECK_ERRNO(wait4(pid, (int *)8, 0, NULL), EFAULT);
	CHECK_ERRNO(wait4(pid, &status, WNOHANG, NULL), ECHILD);
}

/* A child with no exit signal (or another than SIGCHLD) is a "clone"
 * child: only __WCLONE or __WALL see it. */
static void clone_children(void)
{
	int status = -1;
	go = 0;
	pid_t pid = child(wait_for_go, (void *)9, 0, 0);
	CHECK_CMP(pid, >, 0);
	CHECK_ERRNO(wait4(pid, &status, WNOHANG, NULL), ECHILD);
	CHECK_CMP(wait4(pid, &status, WNOHANG | __WCLONE, NULL), ==, 0);
	go = 1;
	CHECK_CMP(wait4(pid, &status, __WALL, NULL), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	pid = child(exit_with, (void *)10, 0, SIGURG); /* ignored by default */
	CHECK_CMP(wait4(-1, &status, __WCLONE, NULL), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10);
}

static volatile int chld_count, chld_code, chld_pid, chld_status, usr1_count;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	chld_code = si->si_code;
	chld_pid = si->si_pid;
	chld_status = si->si_status;
	chld_count++;
}

static void sigchld(void)
{
	struct sigaction sa = { .sa_sigaction = on_chld, .sa_flags = SA_SIGINFO };
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	/* Blocked until the child is reaped, then delivered as it is
	 * unblocked (before sigprocmask returns). */
	CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
	chld_count = 0;
	pid_t pid = child(exit_with, (void *)6, 0, SIGCHLD);
	int status;
	CHECK_CMP(wait4(pid, &status, 0, NULL), ==, pid);
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	CHECK_CMP(chld_count, ==, 1);
	CHECK(chld_code == CLD_EXITED && chld_pid == pid && chld_status == 6);
	CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
	pid = child(kill_self, (void *)SIGKILL, 0, SIGCHLD);
	CHECK_CMP(wait4(pid, &status, 0, NULL), ==, pid);
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	CHECK_CMP(chld_count, ==, 2);
	CHECK(chld_code == CLD_KILLED && chld_pid == pid && chld_status == SIGKILL);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
}

/* SIG_IGN for SIGCHLD, or SA_NOCLDWAIT: nobody waits for the children;
 * a wait sleeps until they are all gone, then finds none. */
static void autoreap(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	for (int i = 0; i < 4; i++)
		CHECK_CMP(child(exit_with, (void *)1, i, SIGCHLD), >, 0);
	int status;
	CHECK_ERRNO(wait4(-1, &status, 0, NULL), ECHILD);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDWAIT;
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	for (int i = 0; i < 4; i++)
		CHECK_CMP(child(exit_with, (void *)1, i, SIGCHLD), >, 0);
	CHECK_ERRNO(wait4(-1, &status, 0, NULL), ECHILD);
	sa.sa_flags = 0;
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	/* Waitable again. */
	pid_t pid = child(exit_with, (void *)2, 0, SIGCHLD);
	CHECK_CMP(wait4(-1, &status, 0, NULL), ==, pid);
}

static void on_usr1(int sig) { (void)sig; usr1_count++; }

/* Keeps signalling the parent until it says it has seen a wait end. */
static int nag_parent(void *arg)
{
	(void)arg;
	while (!go) {
		syscall(SYS_kill, parent_pid, SIGUSR1);
		raw_sleep_ms(1);
	}
	return 11;
}

static void interrupted(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	go = 0;
	parent_pid = getpid();
	pid_t pid = child(nag_parent, NULL, 0, SIGCHLD);
	int status = -1;
	/* The child cannot end before go: a handler must end this wait. */
	CHECK_ERRNO(wait4(pid, &status, 0, NULL), EINTR);
	CHECK_CMP(usr1_count, >, 0);
	go = 1;
	/* A signal sent before the child saw go may still end a wait. */
	long r;
	while ((r = wait4(pid, &status, 0, NULL)) == -1 && errno == EINTR)
		;
	CHECK_CMP(r, ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 11);
	sa.sa_handler = SIG_DFL;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

#define TOUCH_PAGES 64
static char *touch_area;

static int touch(void *arg)
{
	(void)arg;
	for (int i = 0; i < TOUCH_PAGES; i++)
		touch_area[i * 4096] = 1;
	return 0;
}

static void rusage_children(void)
{
	struct rusage before, after, ru;
	CHECK(getrusage(RUSAGE_CHILDREN, &before) == 0);
	touch_area = mmap(NULL, TOUCH_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(touch_area != MAP_FAILED);
	small_pages(touch_area, TOUCH_PAGES * 4096);
	pid_t pid = child(touch, NULL, 0, SIGCHLD);
	int status;
	memset(&ru, 0, sizeof(ru));
	CHECK_CMP(wait4(pid, &status, 0, &ru), ==, pid);
	CHECK_CMP(ru.ru_minflt, >=, TOUCH_PAGES);
	CHECK_CMP(ru.ru_maxrss, >, 0);
	CHECK(getrusage(RUSAGE_CHILDREN, &after) == 0);
	CHECK_CMP(after.ru_minflt - before.ru_minflt, >=, TOUCH_PAGES);
	CHECK_CMP(after.ru_maxrss, >=, ru.ru_maxrss);
	/* Not the caller's own: RUSAGE_SELF did not take the child's faults
	 * (the child's are at least TOUCH_PAGES more than ours since). */
	munmap(touch_area, TOUCH_PAGES * 4096);
}

int main(void)
{
	test_begin("wait_status");
	stacks = mmap(NULL, 5 * STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stacks == MAP_FAILED)
		test_skip("no memory for the children's stacks");
	exit_statuses();
	signal_statuses();
	nohang_and_waitid();
	errnos();
	clone_children();
	sigchld();
	autoreap();
	interrupted();
	rusage_children();
	return test_end();
}
