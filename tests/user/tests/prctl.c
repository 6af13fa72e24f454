/* prctl(2), held beside Linux's: PR_SET_NAME/PR_GET_NAME (15 bytes kept,
 * /proc/self/status Name), PR_SET_DUMPABLE/GET (0 and 1 only, inherited
 * by fork), PR_SET_THP_DISABLE/GET (status THP_enabled, inherited),
 * PR_SET_MDWE/GET (a mapping may not be writable and executable, nor gain
 * exec; kept once set; inherited by fork unless PR_MDWE_NO_INHERIT: in a
 * child, as Linux 6.6's mdwe_test does in its own children; kept by a
 * program it execs, unless NO_INHERIT),
 * PR_SET_PDEATHSIG (the signal comes when the thread that made the
 * process ends, even if its process goes on; and when the parent process
 * ends), PR_SET_CHILD_SUBREAPER (an orphan goes to the nearest subreaper
 * ancestor), PR_SET_NO_NEW_PRIVS/GET, PR_GET_TID_ADDRESS, and -EINVAL for
 * an unknown option; what exec keeps of them.
 *
 * MDWE came with Linux 6.3 (PR_MDWE_NO_INHERIT with 6.6): an older
 * kernel's EINVAL skips that part. */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_GET_MDWE 66
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1UL
#endif
#ifndef PR_MDWE_NO_INHERIT
#define PR_MDWE_NO_INHERIT 2UL
#endif
#ifndef PR_GET_TID_ADDRESS
#define PR_GET_TID_ADDRESS 40
#endif

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void name(void)
{
	char buf[32], status[4096];
	CHECK(prctl(PR_SET_NAME, (unsigned long)"prctl-test", 0, 0, 0) == 0);
	memset(buf, 'x', sizeof(buf));
	CHECK(prctl(PR_GET_NAME, (unsigned long)buf, 0, 0, 0) == 0);
	CHECK(strcmp(buf, "prctl-test") == 0 && buf[15] == 0 && buf[16] == 'x');
	CHECK(read_file("/proc/self/status", status, sizeof(status)) > 0 &&
	      strncmp(status, "Name:\tprctl-test\n", 17) == 0);
	/* Longer than 15 bytes: the first 15 are kept. */
	CHECK(prctl(PR_SET_NAME, (unsigned long)"0123456789abcdefghij", 0, 0, 0) == 0);
	CHECK(prctl(PR_GET_NAME, (unsigned long)buf, 0, 0, 0) == 0);
	CHECK(strcmp(buf, "0123456789abcde") == 0);
	CHECK_ERRNO(prctl(PR_SET_NAME, 8UL, 0, 0, 0), EFAULT);
	CHECK_ERRNO(prctl(PR_GET_NAME, 8UL, 0, 0, 0), EFAULT);
	CHECK(prctl(PR_SET_NAME, (unsigned long)"prctl", 0, 0, 0) == 0);
}

static void dumpable(void)
{
	CHECK_CMP(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), ==, 1);
	CHECK_ERRNO(prctl(PR_SET_DUMPABLE, 2, 0, 0, 0), EINVAL);
	CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
	CHECK_CMP(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), ==, 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : 1);
	CHECK_CMP(wait_status_of(pid), ==, 0);
	CHECK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0);
	CHECK_CMP(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), ==, 1);
}

static void thp_disable(void)
{
	char status[4096];
	CHECK_CMP(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), ==, 0);
	CHECK_ERRNO(prctl(PR_GET_THP_DISABLE, 1, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_SET_THP_DISABLE, 1, 1, 0, 0), EINVAL);
	CHECK(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0);
	CHECK_CMP(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), ==, 1);
	CHECK(read_file("/proc/self/status", status, sizeof(status)) > 0);
	CHECK(strstr(status, "\nTHP_enabled:\t0\n") != NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 ? 0 : 1);
	CHECK_CMP(wait_status_of(pid), ==, 0);
	CHECK(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) == 0);
	CHECK_CMP(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), ==, 0);
	CHECK(read_file("/proc/self/status", status, sizeof(status)) > 0);
	CHECK(strstr(status, "\nTHP_enabled:\t1\n") != NULL);
}

static char self_path[256];

/* In a child (MDWE cannot be undone): 0 when every expectation held,
 * else the number of the first that did not. */
static int mdwe_child(unsigned long flags)
{
	long page = sysconf(_SC_PAGESIZE);
	if (prctl(PR_SET_MDWE, flags, 0, 0, 0) != 0)
		return 1;
	if (prctl(PR_GET_MDWE, 0, 0, 0, 0) != (long)flags)
		return 2;
	/* Set again the same: fine; anything else: EPERM. */
	if (prctl(PR_SET_MDWE, flags, 0, 0, 0) != 0)
		return 3;
	if (prctl(PR_SET_MDWE, 0, 0, 0, 0) != -1 || errno != EPERM)
		return 4;
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED || errno != EACCES)
		return 5;
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 6;
	if (mprotect(p, page, PROT_READ | PROT_EXEC) != 0)
		return 7;
	if (mprotect(p, page, PROT_READ | PROT_WRITE | PROT_EXEC) != -1 || errno != EACCES)
		return 8;
	void *q = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED || mprotect(q, page, PROT_READ | PROT_EXEC) != -1 || errno != EACCES)
		return 9;
	/* A program it execs keeps MDWE, unless NO_INHERIT, and still
	 * loads (its segments are not writable and executable). */
	pid_t ex = fork();
	if (ex == 0) {
		char *const args[] = { "mdwe_exec", NULL };
		execv(self_path, args);
		_exit(20);
	}
	int st = -1;
	if (waitpid(ex, &st, 0) != ex || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != (flags & PR_MDWE_NO_INHERIT ? 0 : (int)flags))
		return 11;
	/* A child of this one: MDWE too, unless NO_INHERIT. */
	bool inherit = !(flags & PR_MDWE_NO_INHERIT);
	pid_t pid = fork();
	if (pid == 0) {
		if (prctl(PR_GET_MDWE, 0, 0, 0, 0) != (inherit ? (long)flags : 0))
			_exit(1);
		void *r = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		_exit((r == MAP_FAILED) == inherit ? 0 : 2);
	}
	if (wait_status_of(pid) != 0)
		return 10;
	return 0;
}

/* This program's file, which exec can run: /proc/self/exe on both
 * kernels (mmlab starts its programs by execve of /bin/<name>). */
static void find_self(void)
{
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	self_path[n > 0 ? n : 0] = 0;
}

static void mdwe(void)
{
	errno = 0;
	long r = prctl(PR_GET_MDWE, 0, 0, 0, 0);
	if (r < 0 && errno == EINVAL && !on_mmlab()) {
		check_skip("PR_GET_MDWE: EINVAL (MDWE came with Linux 6.3)");
		return;
	}
	CHECK_CMP(r, ==, 0);
	CHECK_ERRNO(prctl(PR_SET_MDWE, 4, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_SET_MDWE, PR_MDWE_NO_INHERIT, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 1, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_GET_MDWE, 1, 0, 0, 0), EINVAL);
	/* Not set: W+X is allowed. */
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	munmap(p, 4096);
	pid_t pid = fork();
	if (pid == 0)
		_exit(mdwe_child(PR_MDWE_REFUSE_EXEC_GAIN));
	CHECK_CMP(wait_status_of(pid), ==, 0);
	pid = fork();
	if (pid == 0)
		_exit(mdwe_child(PR_MDWE_REFUSE_EXEC_GAIN | PR_MDWE_NO_INHERIT));
	CHECK_CMP(wait_status_of(pid), ==, 0);
	CHECK_CMP(prctl(PR_GET_MDWE, 0, 0, 0, 0), ==, 0);
}

/* ---- PR_SET_PDEATHSIG ---- */

struct shared {
	volatile int ready, got, ppid_after;
};
static struct shared *sh;
static volatile sig_atomic_t got_sig;
static void on_sig(int sig) { got_sig = sig; }

/* The process that asks for sig when its parent thread ends: says it is
 * ready, waits up to 5 s for the signal. */
static int pdeath_child(int sig)
{
	struct sigaction sa = { .sa_handler = on_sig };
	sigaction(sig, &sa, NULL);
	if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0)
		return 1;
	int got = 0;
	if (prctl(PR_GET_PDEATHSIG, (unsigned long)&got, 0, 0, 0) != 0 || got != sig)
		return 2;
	sh->ready = 1;
	for (int i = 0; i < 5000 && !got_sig; i++)
		sleep_ms(1);
	sh->got = got_sig;
	sh->ppid_after = getppid();
	return got_sig == sig ? 0 : 3;
}

static pid_t thread_child;
static void *forking_thread(void *arg)
{
	(void)arg;
	thread_child = fork();
	if (thread_child == 0)
		_exit(pdeath_child(SIGUSR1));
	while (!sh->ready)
		sleep_ms(1);
	return NULL; /* the thread that made it ends here */
}

/* The process that runs forking_thread: its child's signal comes when
 * the thread ends, and the child is still this process's. */
static int thread_parent(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, forking_thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 10;
	int status = wait_status_of(thread_child);
	if (sh->ppid_after != getpid())
		return 11;
	return status;
}

static void pdeathsig(void)
{
	int v = -1;
	CHECK(prctl(PR_GET_PDEATHSIG, (unsigned long)&v, 0, 0, 0) == 0 && v == 0);
	CHECK_ERRNO(prctl(PR_SET_PDEATHSIG, 65, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_GET_PDEATHSIG, 8UL, 0, 0, 0), EFAULT);

	/* The creating thread ends, its process goes on. */
	memset((void *)sh, 0, sizeof(*sh));
	pid_t pid = fork();
	if (pid == 0)
		_exit(thread_parent());
	CHECK_CMP(wait_status_of(pid), ==, 0);
	CHECK_CMP(sh->got, ==, SIGUSR1);

	/* The parent process ends: the orphan gets its signal and is ours
	 * (a subreaper: see subreaper()). */
	memset((void *)sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0) {
		pid_t c = fork();
		if (c == 0)
			_exit(pdeath_child(SIGUSR2));
		while (!sh->ready)
			sleep_ms(1);
		_exit(c > 0 ? 0 : 1);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
	/* The orphan is ours now: wait for any child. */
	int status = -1;
	pid_t orphan = wait(&status);
	CHECK(orphan > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_CMP(sh->got, ==, SIGUSR2);
	CHECK_CMP(sh->ppid_after, ==, getpid());
}

/* A subreaper in the middle: its grandchild's orphan comes to it, not to
 * the top. */
static void subreaper(void)
{
	memset((void *)sh, 0, sizeof(*sh));
	pid_t pid = fork();
	if (pid == 0) {
		int v = -1;
		if (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&v, 0, 0, 0) != 0 || v != 0)
			_exit(1);
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
			_exit(2);
		if (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&v, 0, 0, 0) != 0 || v != 1)
			_exit(3);
		pid_t mid = fork();
		if (mid == 0) {
			pid_t parent = getpid(); /* before the fork: mid may end first */
			pid_t leaf = fork();
			if (leaf == 0) {
				while (getppid() == parent)
					sleep_ms(1);
				sh->ppid_after = getppid();
				_exit(7);
			}
			_exit(leaf > 0 ? 0 : 1);
		}
		if (wait_status_of(mid) != 0)
			_exit(4);
		int status = -1;
		pid_t leaf = wait(&status);
		if (leaf <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 7)
			_exit(5);
		_exit(sh->ppid_after == getpid() ? 0 : 6);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
	/* Not inherited by fork. */
	pid = fork();
	if (pid == 0) {
		int v = -1;
		_exit(prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&v, 0, 0, 0) == 0 && v == 0 ? 0 : 1);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
}

static void no_new_privs_and_tid_address(void)
{
	char status[4096];
	CHECK_ERRNO(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL);
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	CHECK_CMP(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), ==, 1);
	CHECK(read_file("/proc/self/status", status, sizeof(status)) > 0);
	CHECK(strstr(status, "\nNoNewPrivs:\t1\n") != NULL);

	int *old = NULL, *now = NULL;
	static int word;
	errno = 0;
	if (prctl(PR_GET_TID_ADDRESS, (unsigned long)&old, 0, 0, 0) != 0) {
		CHECK(!on_mmlab() && errno == EINVAL);
		check_skip("PR_GET_TID_ADDRESS: EINVAL (a Linux without CONFIG_CHECKPOINT_RESTORE)");
		return;
	}
	CHECK(old != NULL);
	CHECK_CMP(syscall(SYS_set_tid_address, &word), ==, syscall(SYS_gettid));
	CHECK(prctl(PR_GET_TID_ADDRESS, (unsigned long)&now, 0, 0, 0) == 0 && now == &word);
	syscall(SYS_set_tid_address, old);
	CHECK_ERRNO(prctl(PR_GET_TID_ADDRESS, 8UL, 0, 0, 0), EFAULT);
}

/* What exec keeps (Linux's mmf_init_flags and the task's own fields):
 * THP_DISABLE, the parent-death signal, no-new-privs; the dumpable mode
 * goes back to 1 (setup_new_exec). In a child. */
static void exec_keeps(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		char *const args[] = { "flags_exec", NULL };
		execv(self_path, args);
		_exit(100);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
}

int main(int argc, char **argv)
{
	/* Run by mdwe_child's exec: say what MDWE the new program has. */
	if (argc > 0 && !strcmp(argv[0], "mdwe_exec"))
		return (int)prctl(PR_GET_MDWE, 0, 0, 0, 0);
	/* Run by exec_keeps: what the new program kept (0: as expected). */
	if (argc > 0 && !strcmp(argv[0], "flags_exec")) {
		int sig = 0;
		prctl(PR_GET_PDEATHSIG, (unsigned long)&sig, 0, 0, 0);
		return (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1) | (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 1) << 1 |
		       (sig != SIGUSR2) << 2 | (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) << 3;
	}
	test_begin("prctl");
	find_self();
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		test_skip("no shared page");
	/* Orphans come to this process on both kernels (on mmlab it is its
	 * tree's process 1 anyway). */
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	CHECK_ERRNO(prctl(9999, 0, 0, 0, 0), EINVAL);
	name();
	dumpable();
	thp_disable();
	mdwe();
	pdeathsig();
	subreaper();
	exec_keeps();
	no_new_privs_and_tid_address();
	return test_end();
}
