/* Waiting for signals, held beside Linux's: sigsuspend (the handler runs
 * with the suspend mask plus its own, the caller's mask comes back, the
 * call fails with EINTR), pause (EINTR after a handler), sigtimedwait and
 * sigwaitinfo (a pending signal of the set taken with its siginfo and no
 * handler run, real-time ones in order with their values, EAGAIN at the
 * timeout, EINTR for another signal's handler, a signal sent by a child
 * while waiting, one whose default is to be ignored sent while waiting,
 * EINVAL for a bad timeout or set size).
 *
 * The signals come from this process itself while blocked (then they wait
 * in the queue), or from a clone(CLONE_VM) child that keeps sending until
 * the parent has seen the wait end: nothing depends on timing. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define STACK_SIZE (64 * 1024)

static char *stack;
static volatile int go, parent_pid, nag_sig, usr1_count, in_handler_ok;
/* nag_when_waiting: the child starts once the parent says it is about to
 * wait (waiting), a little after, so that its signals come during the
 * wait (one that came before would be taken all the same). */
static volatile int nag_when_waiting, waiting;
static volatile unsigned long mask_in_handler;

static void raw_sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };
	syscall(SYS_nanosleep, &ts, NULL);
}

/* A child that sends nag_sig to the parent until go. */
static int nag(void *arg)
{
	(void)arg;
	while (nag_when_waiting && !waiting && !go)
		raw_sleep_ms(1);
	if (nag_when_waiting)
		raw_sleep_ms(20);
	while (!go) {
		syscall(SYS_kill, parent_pid, nag_sig);
		raw_sleep_ms(1);
	}
	return 0;
}

static pid_t start_nagging(int sig)
{
	go = 0;
	waiting = 0;
	nag_sig = sig;
	parent_pid = getpid();
	return clone(nag, stack + STACK_SIZE, CLONE_VM | SIGCHLD, NULL);
}

static void stop_nagging(pid_t pid)
{
	go = 1;
	int status;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
}

static void on_usr1(int sig)
{
	(void)sig;
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	/* The suspend mask (SIGUSR2 blocked) plus the handled signal. */
	in_handler_ok = sigismember(&cur, SIGUSR1) && sigismember(&cur, SIGUSR2) && !sigismember(&cur, SIGTERM);
	usr1_count++;
}

static bool mask_is(int sig_in, int sig_out)
{
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, sig_in) && !sigismember(&cur, sig_out);
}

static void suspend(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	sigset_t block, old, during;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
	/* Pending while blocked: sigsuspend's mask lets it in at once. */
	CHECK(kill(getpid(), SIGUSR1) == 0);
	CHECK_CMP(usr1_count, ==, 0);
	sigemptyset(&during);
	sigaddset(&during, SIGUSR2);
	CHECK_ERRNO(sigsuspend(&during), EINTR);
	CHECK_CMP(usr1_count, ==, 1);
	CHECK(in_handler_ok);
	/* The caller's mask is back: SIGUSR1 and SIGTERM blocked, SIGUSR2 not. */
	CHECK(mask_is(SIGUSR1, SIGUSR2) && mask_is(SIGTERM, SIGUSR2));
	/* A signal that comes while it sleeps (from a child). */
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
	pid_t pid = start_nagging(SIGUSR1);
	CHECK_ERRNO(sigsuspend(&during), EINTR);
	CHECK(mask_is(SIGUSR1, SIGUSR2));
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	stop_nagging(pid);
	/* pause: a handler ends it with EINTR. */
	int before = usr1_count;
	pid = start_nagging(SIGUSR1);
	CHECK_ERRNO(pause(), EINTR);
	CHECK_CMP(usr1_count, >, before);
	stop_nagging(pid);
	sigset_t none;
	sigemptyset(&none);
	CHECK_ERRNO(syscall(SYS_rt_sigsuspend, &none, 4), EINVAL);
	CHECK_ERRNO(syscall(SYS_rt_sigsuspend, (void *)8, 8), EFAULT);
}

static void timedwait(void)
{
	sigset_t set, old;
	siginfo_t si;
	struct timespec zero = { 0, 0 }, short_wait = { 0, 20 * 1000000 }, bad = { 0, -1 };
	int before = usr1_count;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN + 1);
	CHECK(sigprocmask(SIG_BLOCK, &set, &old) == 0);
	/* Nothing pending: EAGAIN at once, and after a short wait. */
	CHECK_ERRNO(sigtimedwait(&set, &si, &zero), EAGAIN);
	CHECK_ERRNO(sigtimedwait(&set, &si, &short_wait), EAGAIN);
	CHECK_ERRNO(sigtimedwait(&set, &si, &bad), EINVAL);
	CHECK_ERRNO(syscall(SYS_rt_sigtimedwait, &set, &si, NULL, 4), EINVAL);
	/* Pending: taken with its siginfo, the handler not run. */
	CHECK(kill(getpid(), SIGUSR1) == 0);
	memset(&si, 0, sizeof(si));
	CHECK_CMP(sigtimedwait(&set, &si, &zero), ==, SIGUSR1);
	CHECK(si.si_signo == SIGUSR1 && si.si_code == SI_USER && si.si_pid == getpid());
	CHECK_CMP(usr1_count, ==, before);
	/* Real-time ones queue, each with its value, in order. */
	for (int v = 1; v <= 3; v++)
		CHECK(sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = v }) == 0);
	for (int v = 1; v <= 3; v++) {
		memset(&si, 0, sizeof(si));
		CHECK_CMP(sigwaitinfo(&set, &si), ==, SIGRTMIN + 1);
		CHECK(si.si_code == SI_QUEUE && si.si_value.sival_int == v);
	}
	/* From a child, while waiting (or before: taken either way). */
	pid_t pid = start_nagging(SIGUSR1);
	memset(&si, 0, sizeof(si));
	CHECK_CMP(sigwaitinfo(&set, &si), ==, SIGUSR1);
	CHECK_CMP(si.si_pid, ==, pid);
	stop_nagging(pid);
	/* Drain what the child sent after. */
	while (sigtimedwait(&set, &si, &zero) > 0)
		;
	/* A signal whose default is to be ignored (SIGURG), blocked and
	 * awaited, sent while the wait is under way: taken, not dropped as
	 * ignored (the wait unblocks what it awaits; Linux's real_blocked
	 * keeps it blocked for sig_ignored). The 30 s only bound a kernel
	 * that drops it. */
	sigset_t urg;
	struct timespec long_wait = { 30, 0 };
	sigemptyset(&urg);
	sigaddset(&urg, SIGURG);
	CHECK(sigprocmask(SIG_BLOCK, &urg, NULL) == 0);
	nag_when_waiting = 1;
	pid = start_nagging(SIGURG);
	waiting = 1;
	CHECK_CMP(sigtimedwait(&urg, &si, &long_wait), ==, SIGURG);
	stop_nagging(pid);
	nag_when_waiting = 0;
	while (sigtimedwait(&urg, &si, &zero) > 0)
		;
	CHECK(sigprocmask(SIG_UNBLOCK, &urg, NULL) == 0);
	/* Another signal with a handler ends the wait: EINTR. */
	sigset_t only_rt;
	sigemptyset(&only_rt);
	sigaddset(&only_rt, SIGRTMIN + 1);
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	CHECK(sigprocmask(SIG_BLOCK, &only_rt, NULL) == 0);
	pid = start_nagging(SIGUSR1);
	/* The system call itself: musl's sigtimedwait tries again after EINTR. */
	CHECK_ERRNO(syscall(SYS_rt_sigtimedwait, &only_rt, &si, NULL, 8), EINTR);
	stop_nagging(pid);
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	struct sigaction sa = { .sa_handler = SIG_DFL };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

int main(void)
{
	test_begin("sigwait");
	stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		test_skip("no memory for the child's stack");
	suspend();
	timedwait();
	return test_end();
}
