/* For the kernel's process-tree tests (tests/process_tree_test.c): a
 * process that makes children (clone(CLONE_VM|SIGCHLD), vfork) and ends
 * in a chosen way, so the kernel can check that every process of the
 * tree is freed, whoever reaps it.
 *
 *   process_family MODE N
 *
 *   leave    N children, each with a child of its own, all left running:
 *            the children spin in user mode, sleep in nanosleep (600 s),
 *            wait in wait4 for their own child, or sleep in vfork for a
 *            child that spins; the grandchildren spin; exits 0 once all
 *            have started, without waiting for anyone
 *   zombies  N children that exit at once, never waited for; exits 0
 *            once all have ended (waitid WNOWAIT)
 *   reap_up, reap_down
 *            N children that end one at a time, in the order they were
 *            made or the reverse, each reaped by wait4(-1) with its own
 *            status; exits with how many were right (N)
 *   foreign  a child whose child (ours' grandchild) may not be waited for
 *            by us (ECHILD), then both reaped; exits 0 if all held
 *   exec     N vfork children that execve /bin/exit_with with their index,
 *            each reaped with that status; then this process itself
 *            execs /bin/exit_with N (so the kernel sees exit_with's end)
 *   exec_thread  a second thread execs /bin/exit_with N while the leader
 *            sleeps: the thread becomes the process's leader
 *   stopped  N children that stop themselves (SIGSTOP), each seen stopped
 *            by wait4(WUNTRACED); exits 0 leaving them stopped
 * Children make only raw system calls: they share our memory and thread
 * pointer. Every wait is for an event; nothing depends on time. */
#include <stdbool.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE (16 * 1024)
#define MAX_CHILDREN 64

static char *stacks;
static volatile int started, turn, go;
static volatile int grandchild_pid;
static char exec_code[16];

static void spin_forever(void)
{
	for (;;)
		__asm__ volatile("pause" ::: "memory");
}

static void raw_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	syscall(SYS_nanosleep, &ts, NULL);
}

static void *stack_top(int slot) { return stacks + (size_t)(slot + 1) * STACK_SIZE; }

static int spinner(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	spin_forever();
	return 0;
}

/* A child of the leave mode, by its index. */
static int leaver(void *arg)
{
	int i = (int)(intptr_t)arg;
	int gc = (int)clone(spinner, stack_top(MAX_CHILDREN + i), CLONE_VM | SIGCHLD, NULL);
	if (gc <= 0)
		syscall(SYS_exit_group, 1);
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	switch (i % 4) {
	case 0:
		spin_forever();
		break;
	case 1:
		raw_sleep_ms(600000);
		break;
	case 2:
		syscall(SYS_wait4, gc, NULL, 0, NULL);
		break;
	default: {
		/* A vfork parent sleeping for a child that never ends. */
		int pid = (int)syscall(SYS_vfork);
		if (pid == 0)
			spin_forever();
		break;
	}
	}
	return 0;
}

static int exit_now(void *arg) { return (int)(intptr_t)arg; }

static int stop_self(void *arg)
{
	(void)arg;
	syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
	spin_forever();
	return 0;
}

/* Ends when its turn comes. */
static int in_turn(void *arg)
{
	int i = (int)(intptr_t)arg;
	while (__atomic_load_n(&turn, __ATOMIC_SEQ_CST) != i)
		raw_sleep_ms(1);
	return i & 0x7f;
}

static int parent_of_grandchild(void *arg)
{
	(void)arg;
	grandchild_pid = (int)clone(in_turn, stack_top(MAX_CHILDREN), CLONE_VM | SIGCHLD, (void *)1);
	while (!go)
		raw_sleep_ms(1);
	int status;
	return syscall(SYS_wait4, grandchild_pid, &status, 0, NULL) == grandchild_pid ? 0 : 1;
}

/* A thread of ours that execs /bin/exit_with exec_code (raw calls only:
 * it shares our thread pointer). */
static int exec_exit_with(void *arg)
{
	(void)arg;
	static char *const args[] = { "exit_with", exec_code, NULL };
	static char *const envp[] = { NULL };
	syscall(SYS_execve, "/bin/exit_with", args, envp);
	syscall(SYS_exit_group, 10);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "leave";
	int n = argc > 2 ? atoi(argv[2]) : 4;
	if (n < 1 || n > MAX_CHILDREN)
		return 2;
	stacks = mmap(NULL, (size_t)(2 * MAX_CHILDREN + 1) * STACK_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stacks == MAP_FAILED)
		return 3;
	if (!strcmp(mode, "leave")) {
		for (int i = 0; i < n; i++)
			if (clone(leaver, stack_top(i), CLONE_VM | SIGCHLD, (void *)(intptr_t)i) <= 0)
				return 4;
		/* Each child and each grandchild counts itself in. */
		while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 2 * n)
			raw_sleep_ms(1);
		return 0;
	}
	if (!strcmp(mode, "stopped")) {
		for (int i = 0; i < n; i++) {
			int pid = (int)clone(stop_self, stack_top(i), CLONE_VM | SIGCHLD, NULL), status = 0;
			if (pid <= 0)
				return 4;
			if (syscall(SYS_wait4, pid, &status, WUNTRACED, NULL) != pid || !WIFSTOPPED(status) ||
			    WSTOPSIG(status) != SIGSTOP)
				return 5;
		}
		return 0;
	}
	if (!strcmp(mode, "zombies")) {
		int pids[MAX_CHILDREN];
		for (int i = 0; i < n; i++)
			if ((pids[i] = clone(exit_now, stack_top(i), CLONE_VM | SIGCHLD, (void *)(intptr_t)i)) <= 0)
				return 4;
		for (int i = 0; i < n; i++) {
			siginfo_t si;
			if (waitid(P_PID, pids[i], &si, WEXITED | WNOWAIT) != 0)
				return 5;
		}
		return 0;
	}
	if (!strcmp(mode, "reap_up") || !strcmp(mode, "reap_down")) {
		bool up = !strcmp(mode, "reap_up");
		int pids[MAX_CHILDREN], right = 0;
		turn = -1;
		for (int i = 0; i < n; i++)
			if ((pids[i] = clone(in_turn, stack_top(i), CLONE_VM | SIGCHLD, (void *)(intptr_t)i)) <= 0)
				return 4;
		for (int k = 0; k < n; k++) {
			int i = up ? k : n - 1 - k, status = -1;
			__atomic_store_n(&turn, i, __ATOMIC_SEQ_CST);
			pid_t pid = wait4(-1, &status, 0, NULL);
			right += pid == pids[i] && WIFEXITED(status) && WEXITSTATUS(status) == (i & 0x7f);
		}
		return wait4(-1, NULL, WNOHANG, NULL) == -1 && errno == ECHILD ? right : 100 + right;
	}
	if (!strcmp(mode, "foreign")) {
		int status, bad = 0;
		pid_t pid = clone(parent_of_grandchild, stack_top(1), CLONE_VM | SIGCHLD, NULL);
		while (!grandchild_pid)
			raw_sleep_ms(1);
		bad |= !(wait4(grandchild_pid, &status, WNOHANG, NULL) == -1 && errno == ECHILD);
		bad |= !(wait4(grandchild_pid, &status, 0, NULL) == -1 && errno == ECHILD) << 1;
		turn = 1;
		go = 1;
		bad |= !(wait4(pid, &status, 0, NULL) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) << 2;
		return bad;
	}
	if (!strcmp(mode, "exec")) {
		char *const envp[] = { NULL };
		for (int i = 0; i < n; i++) {
			char code[16];
			snprintf(code, sizeof(code), "%d", i);
			char *const args[] = { "exit_with", code, NULL };
			pid_t pid = vfork();
			if (pid == 0) {
				execve("/bin/exit_with", args, envp);
				_exit(127);
			}
			int status = -1;
			if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != i)
				return 7;
		}
		char code[16];
		snprintf(code, sizeof(code), "%d", n);
		char *const args[] = { "exit_with", code, NULL };
		execve("/bin/exit_with", args, envp);
		return 8;
	}
	if (!strcmp(mode, "exec_thread")) {
		snprintf(exec_code, sizeof(exec_code), "%d", n);
		if (clone(exec_exit_with, stack_top(0),
			  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL) <= 0)
			return 9;
		for (;;)
			raw_sleep_ms(1000);
	}
	return 6;
}
