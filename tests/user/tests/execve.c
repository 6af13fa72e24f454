/* execve(2) and execveat(2), held beside Linux's: this program runs itself
 * again (by the path of its own file, which /proc/self/exe names) from a vfork
 * child, and the new program checks what it got: its arguments and
 * environment, AT_EXECFN, its parent, the descriptors (an O_CLOEXEC one
 * closed, the others open), the signal actions (handlers back to SIG_DFL,
 * SIG_IGN kept) and the blocked mask kept. The vfork parent goes on once
 * the child has exec'd. A threaded process's exec, by its leader or by
 * another thread, ends its other threads (the new program has one, with
 * the process's pid as its thread id, and the same parent); a child that has exec'd cannot be moved to
 * another process group (EACCES). The errnos before the point of no return:
 * ENOENT, ENOTDIR, EACCES (a directory, a file that is not executable),
 * EFAULT, EINVAL (execveat's flags). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "raw_thread.h"

#define STACK_SIZE (64 * 1024)

extern char **environ;
static char self[256];

/* The path of this program's file, which exec can run: /proc/self/exe
 * on both kernels (mmlab starts its programs by execve of /bin/<name>). */
static void find_self(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
}

/* The new program: argv = { "exec_child", path, parent, keep_fd,
 * cloexec_fd }; returns a mask of what was wrong (0: all right). */
static int child_checks(int argc, char **argv)
{
	int bad = 0;
	if (argc != 5 || strcmp(argv[0], "exec_child"))
		return 1;
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	bad |= (!execfn || strcmp(execfn, argv[1])) << 1;
	bad |= (getppid() != atoi(argv[2])) << 2;
	struct stat st;
	bad |= (fstat(atoi(argv[3]), &st) != 0) << 3;
	bad |= !(fstat(atoi(argv[4]), &st) == -1 && errno == EBADF) << 4;
	int nenv = 0;
	for (char **e = environ; *e; e++)
		nenv++;
	const char *v = getenv("EXEC_TEST");
	bad |= (nenv != 2 || !v || strcmp(v, "value=1") || !getenv("SECOND")) << 5;
	struct sigaction sa;
	sigaction(SIGUSR1, NULL, &sa);
	bad |= (sa.sa_handler != SIG_DFL) << 6;
	sigaction(SIGUSR2, NULL, &sa);
	bad |= (sa.sa_handler != SIG_IGN) << 7;
	sigset_t mask;
	sigprocmask(SIG_BLOCK, NULL, &mask);
	bad |= (!sigismember(&mask, SIGTERM)) << 8;
	return bad;
}

/* After an exec from a threaded process: one thread, and the process's
 * pid and parent as before (argv = { "exec_threads", pid, parent }),
 * whichever thread exec'd. */
static int threads_check(int argc, char **argv)
{
	char buf[2048];
	if (argc != 3 || read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return 1;
	int bad = (field_after(buf, "Threads:") != 1) << 1;
	bad |= (getpid() != atoi(argv[1]) || syscall(SYS_gettid) != getpid()) << 2;
	bad |= (getppid() != atoi(argv[2])) << 3;
	return bad;
}

static void on_usr1(int sig) { (void)sig; }

static void exec_from_vfork(void)
{
	int keep = open("/proc/self/status", O_RDONLY);
	int cloexec = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	CHECK(keep >= 0 && cloexec >= 0);
	struct sigaction sa = { .sa_handler = on_usr1 };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	sa.sa_handler = SIG_IGN;
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
	char parent[16], keep_s[16], cloexec_s[16];
	snprintf(parent, sizeof(parent), "%d", getpid());
	snprintf(keep_s, sizeof(keep_s), "%d", keep);
	snprintf(cloexec_s, sizeof(cloexec_s), "%d", cloexec);
	char *const argv[] = { "exec_child", self, parent, keep_s, cloexec_s, NULL };
	char *const envp[] = { "EXEC_TEST=value=1", "SECOND=2", NULL };
	pid_t pid = vfork();
	if (pid == 0) {
		execve(self, argv, envp);
		_exit(127);
	}
	CHECK_CMP(pid, >, 0);
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the new program: status %#x", status);
	/* Ours as they were. */
	struct stat st;
	CHECK(fstat(cloexec, &st) == 0);
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	sa.sa_handler = SIG_DFL;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	close(keep);
	close(cloexec);
}

static char *stacks;

static int spin(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("pause" ::: "memory");
	return 0;
}

static char exec_pid[16], exec_ppid[16];
static volatile int exec_go; /* the child's pid is in exec_pid */
static const struct timespec one_ms = { 0, 1000000 }, one_s = { 1, 0 };
static char *exec_argv[] = { "exec_threads", exec_pid, exec_ppid, NULL };
static char *const exec_envp[] = { NULL };

/* The second thread execs while the leader sleeps. */
static int exec_now(void *arg)
{
	(void)arg;
	raw3(59, self, exec_argv, exec_envp);
	raw1(NR_exit_group, 102);
	return 0;
}

/* A process with a second thread: the leader execs while the thread
 * spins, or (by_thread) the thread execs while the leader sleeps. Raw
 * calls only (it shares our memory and thread pointer). */
static int threaded_exec(void *arg)
{
	bool by_thread = arg != NULL;
	int ctid = 0;
	while (!exec_go)
		raw2(NR_nanosleep, &one_ms, 0);
	if (raw_clone(T_THREAD_FLAGS & ~(T_CLONE_SETTLS | T_CLONE_PARENT_SETTID), stacks + 2 * STACK_SIZE, NULL,
		      &ctid, 0, by_thread ? exec_now : spin, NULL) <= 0)
		return 100;
	if (by_thread)
		for (;;)
			raw2(NR_nanosleep, &one_s, 0);
	raw3(59, self, exec_argv, exec_envp);
	return 101;
}

static void exec_from_threads(void)
{
	for (int by_thread = 0; by_thread < 2; by_thread++) {
		snprintf(exec_ppid, sizeof(exec_ppid), "%d", getpid());
		exec_go = 0;
		pid_t pid = clone(threaded_exec, stacks + STACK_SIZE, CLONE_VM | SIGCHLD, by_thread ? (void *)1 : NULL);
		CHECK_CMP(pid, >, 0);
		snprintf(exec_pid, sizeof(exec_pid), "%d", pid);
		__atomic_store_n(&exec_go, 1, __ATOMIC_SEQ_CST);
		int status = -1;
		CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
		CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exec from a threaded process (by %s): status %#x",
		       by_thread ? "a thread" : "its leader", status);
	}
}

/* A child that has exec'd can no longer be moved to another process
 * group by its parent (setpgid's EACCES). */
static void setpgid_after_exec(void)
{
	char *const argv[] = { "exec_wait", NULL };
	char *const envp[] = { NULL };
	pid_t pid = vfork();
	if (pid == 0) {
		execve(self, argv, envp);
		_exit(127);
	}
	/* vfork returns once the child's exec has dropped the old mm, a
	 * moment before Linux counts the exec (begin_new_exec's
	 * self_exec_id): on one CPU the parent may run in between, when
	 * setpgid still succeeds. Wait (at most a second) for the exec to
	 * count. */
	for (int i = 0; i < 200 && setpgid(pid, pid) == 0; i++)
		usleep(5000);
	CHECK_ERRNO(setpgid(pid, pid), EACCES);
	CHECK(kill(pid, SIGKILL) == 0);
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void errnos(void)
{
	char *const argv[] = { "x", NULL };
	char *const envp[] = { NULL };
	char path[300];
	CHECK_ERRNO(execve("/nonexistent/program", argv, envp), ENOENT);
	CHECK_ERRNO(execve("", argv, envp), ENOENT);
	CHECK_ERRNO(execve("/proc", argv, envp), EACCES);
	CHECK_ERRNO(execve("/proc/self/status", argv, envp), EACCES);
	snprintf(path, sizeof(path), "%s/", self);
	CHECK_ERRNO(execve(path, argv, envp), ENOTDIR);
	CHECK_ERRNO(syscall(SYS_execve, NULL, argv, envp), EFAULT);
	CHECK_ERRNO(syscall(SYS_execve, self, (void *)8, envp), EFAULT);
	CHECK_ERRNO(syscall(SYS_execveat, AT_FDCWD, self, argv, envp, 0x8000), EINVAL);
	/* Still this program. */
	CHECK_CMP(getpid(), >, 0);
}

int main(int argc, char **argv)
{
	if (argc > 0 && !strcmp(argv[0], "exec_child"))
		return child_checks(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "exec_threads"))
		return threads_check(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "exec_wait"))
		for (;;)
			pause();
	test_begin("execve");
	find_self();
	stacks = mmap(NULL, 2 * STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stacks == MAP_FAILED)
		test_skip("no memory for the stacks");
	exec_from_vfork();
	exec_from_threads();
	setpgid_after_exec();
	errnos();
	return test_end();
}
