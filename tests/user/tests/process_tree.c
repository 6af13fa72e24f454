/* Processes that make processes, held beside Linux's: vfork (the parent
 * sleeps until the child has exited, the child sees and changes the
 * parent's memory), clone(CLONE_VM) processes (their own pid, the caller
 * as parent, a copy of the signal actions), CLONE_PARENT, an orphan
 * reparented to the process that reaps orphans (this program makes
 * itself a child subreaper; on mmlab it is also its tree's process 1)
 * and reaped there, process groups and
 * sessions (setpgid, getpgid, getpgrp, setsid, getsid and their errnos),
 * kill to a process group, to the caller's group and to -1, and a fan of
 * 1,000 vfork children and 1,000 clone(CLONE_VM) children, each reaped
 * with its status.
 *
 * The children share the parent's memory and its thread pointer: they
 * make only raw system calls (errno and raise() would be the parent's). */

#include <errno.h>
#include <sched.h>
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

#define STACK_SIZE (16 * 1024)
#define FAN 1000

static char *stacks; /* FAN + 1 stacks */
static volatile int go, seen_ppid, seen_pid, grandchild, usr1_count;

static long raw(long nr) { return syscall(nr); }

static void raw_sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };
	syscall(SYS_nanosleep, &ts, NULL);
}

static pid_t child(int (*fn)(void *), void *arg, int slot, int flags)
{
	return clone(fn, stacks + (size_t)(slot + 1) * STACK_SIZE, CLONE_VM | flags, arg);
}

static int wait_exit(pid_t pid)
{
	int status = -1;
	long r;
	while ((r = waitpid(pid, &status, __WALL)) == -1 && errno == EINTR)
		;
	if (r != pid)
		return -1000 - (int)errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

static int report_ids(void *arg)
{
	(void)arg;
	seen_pid = (int)raw(SYS_getpid);
	seen_ppid = (int)raw(SYS_getppid);
	return 3;
}

static void vfork_and_clone_vm(void)
{
	pid_t me = getpid();
	volatile int shared = 0;
	pid_t pid = vfork();
	if (pid == 0) {
		/* The parent sleeps: its stack and memory are ours until _exit. */
		shared = (int)raw(SYS_getppid) == me ? 1 : 2;
		_exit(5);
	}
	CHECK_CMP(pid, >, 0);
	/* The child has run to its end before vfork returned here. */
	CHECK_CMP(shared, ==, 1);
	CHECK_CMP(wait_exit(pid), ==, 5);

	seen_pid = seen_ppid = 0;
	pid = child(report_ids, NULL, 0, SIGCHLD);
	CHECK_CMP(pid, >, 0);
	CHECK_CMP(wait_exit(pid), ==, 3);
	CHECK_CMP(seen_pid, ==, pid);
	CHECK_CMP(seen_ppid, ==, me);

	/* vfork's flags through clone: the same. */
	pid = child(report_ids, NULL, 0, CLONE_VFORK | SIGCHLD);
	CHECK_CMP(seen_pid, ==, pid);
	CHECK_CMP(wait_exit(pid), ==, 3);
}

/* A child of ours that makes a sibling of itself (CLONE_PARENT): the
 * sibling's parent is ours. */
static int make_sibling(void *arg)
{
	(void)arg;
	grandchild = (int)clone(report_ids, stacks + 3 * STACK_SIZE, CLONE_VM | CLONE_PARENT | SIGCHLD, NULL);
	return grandchild > 0 ? 0 : 1;
}

static void clone_parent(void)
{
	pid_t pid = child(make_sibling, NULL, 1, SIGCHLD);
	CHECK_CMP(wait_exit(pid), ==, 0);
	CHECK_CMP(wait_exit(grandchild), ==, 3);
	CHECK_CMP(seen_ppid, ==, getpid());
}

/* The grandchild: waits until its parent is gone, then says who its
 * parent is now. */
static int orphan(void *arg)
{
	int old_parent = (int)(intptr_t)arg;
	while ((int)raw(SYS_getppid) == old_parent)
		raw_sleep_ms(1);
	seen_ppid = (int)raw(SYS_getppid);
	return 4;
}

static int parent_of_orphan(void *arg)
{
	(void)arg;
	grandchild = (int)clone(orphan, stacks + 3 * STACK_SIZE, CLONE_VM | SIGCHLD, (void *)raw(SYS_getpid));
	return grandchild > 0 ? 0 : 1;
}

static void orphans(void)
{
	/* Orphans go to the nearest child subreaper, else to init (on
	 * mmlab, the process the kernel started: this one anyway). */
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	seen_ppid = 0;
	pid_t pid = child(parent_of_orphan, NULL, 1, SIGCHLD);
	CHECK_CMP(wait_exit(pid), ==, 0);
	/* Now ours: waitable here. */
	CHECK_CMP(wait_exit(grandchild), ==, 4);
	CHECK_CMP(seen_ppid, ==, getpid());
}

static int in_new_session(void *arg)
{
	(void)arg;
	int pid = (int)raw(SYS_getpid);
	if (syscall(SYS_setsid) != pid)
		return 1;
	if (syscall(SYS_getsid, 0) != pid || syscall(SYS_getpgid, 0) != pid)
		return 2;
	/* A session leader cannot make another. */
	if (syscall(SYS_setsid) != -1)
		return 3;
	while (!go)
		raw_sleep_ms(1);
	return 0;
}

static int group_leader_setsid(void *arg)
{
	(void)arg;
	if (syscall(SYS_setpgid, 0, 0) != 0)
		return 1;
	/* A process group of our id exists (ours): EPERM. */
	return syscall(SYS_setsid) == -1 ? 0 : 2;
}

static int wait_for_go(void *arg)
{
	while (!go)
		raw_sleep_ms(1);
	return (int)(intptr_t)arg;
}

static void groups_and_sessions(void)
{
	pid_t me = getpid(), pgrp = getpgrp(), sid = getsid(0);
	CHECK_CMP(getpgid(0), ==, pgrp);
	CHECK_CMP(getpgid(me), ==, pgrp);
	CHECK_CMP(getsid(me), ==, sid);
	CHECK_ERRNO(getpgid(0x7ffffff0), ESRCH);
	CHECK_ERRNO(getsid(0x7ffffff0), ESRCH);
	CHECK_ERRNO(setpgid(0, -1), EINVAL);
	CHECK_ERRNO(setpgid(0x7ffffff0, 0), ESRCH);

	/* /proc/self/stat's fields 4-6 and status's PPid say the same. */
	char buf[1024];
	CHECK(read_file("/proc/self/stat", buf, sizeof(buf)) > 0);
	char *close = strrchr(buf, ')');
	int ppid = -1, spgrp = -1, ssid = -1;
	CHECK(close && sscanf(close + 2, "%*c %d %d %d", &ppid, &spgrp, &ssid) == 3);
	CHECK(ppid == getppid() && spgrp == pgrp && ssid == sid);
	CHECK(read_file("/proc/self/status", buf, sizeof(buf)) > 0);
	CHECK_CMP(field_after(buf, "PPid:"), ==, getppid());

	go = 0;
	pid_t pid = child(wait_for_go, (void *)0, 0, SIGCHLD);
	CHECK_CMP(getpgid(pid), ==, pgrp);
	CHECK_CMP(getsid(pid), ==, sid);
	/* A child into a group of its own, then back into ours. */
	CHECK(setpgid(pid, pid) == 0);
	CHECK_CMP(getpgid(pid), ==, pid);
	CHECK(setpgid(pid, pgrp) == 0);
	CHECK_CMP(getpgid(pid), ==, pgrp);
	/* No such group in our session. */
	CHECK_ERRNO(setpgid(pid, 0x7ffffff0), EPERM);
	CHECK(setpgid(pid, 0) == 0);
	/* The group pid now exists: waitpid by group. */
	go = 1;
	int status = -1;
	CHECK_CMP(waitpid(-pid, &status, 0), ==, pid);

	/* A child in a session of its own: ours can no longer move it. */
	go = 0;
	pid = child(in_new_session, NULL, 0, SIGCHLD);
	while (getsid(pid) != pid)
		raw_sleep_ms(1);
	CHECK_CMP(getpgid(pid), ==, pid);
	CHECK_ERRNO(setpgid(pid, pid), EPERM);
	CHECK_ERRNO(setpgid(pid, pgrp), EPERM);
	go = 1;
	CHECK_CMP(wait_exit(pid), ==, 0);
	pid = child(group_leader_setsid, NULL, 0, SIGCHLD);
	CHECK_CMP(wait_exit(pid), ==, 0);
}

static void on_usr1(int sig) { (void)sig; __atomic_add_fetch(&usr1_count, 1, __ATOMIC_RELAXED); }

/* Waits for one SIGUSR1 (its own handler: a copy of the parent's). */
static int wait_usr1(void *arg)
{
	(void)arg;
	while (!usr1_count)
		raw_sleep_ms(1);
	return 0;
}

/* In a group of its own with a child of its own: kill(0) reaches both. */
static int kill_own_group(void *arg)
{
	(void)arg;
	if (syscall(SYS_setpgid, 0, 0) != 0)
		return 1;
	int gc = (int)clone(wait_for_go, stacks + 3 * STACK_SIZE, CLONE_VM | SIGCHLD, (void *)9);
	if (gc <= 0)
		return 2;
	grandchild = gc;
	if (syscall(SYS_kill, 0, SIGTERM) != 0)
		return 3;
	int status = 0;
	if (syscall(SYS_wait4, gc, &status, 0, NULL) != gc || !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
		return 4;
	return 5; /* not reached: SIGTERM ends us too */
}

static void kill_forms(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	usr1_count = 0;
	pid_t pid = child(wait_usr1, NULL, 0, SIGCHLD);
	CHECK(setpgid(pid, pid) == 0);
	/* kill(-pgrp): the child's group, not ours. */
	CHECK(kill(-pid, SIGUSR1) == 0);
	CHECK_CMP(wait_exit(pid), ==, 0);
	CHECK_ERRNO(kill(-0x7ffffff0, SIGUSR1), ESRCH);
	/* kill(-1, 0): someone we may signal exists (the child). */
	go = 0;
	pid = child(wait_for_go, (void *)0, 0, SIGCHLD);
	CHECK(kill(-1, 0) == 0);
	CHECK(kill(pid, 0) == 0);
	go = 1;
	CHECK_CMP(wait_exit(pid), ==, 0);
	/* A zombie can still be named. */
	pid = child(wait_for_go, (void *)0, 0, SIGCHLD);
	siginfo_t si;
	CHECK(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0);
	CHECK(kill(pid, 0) == 0);
	CHECK_CMP(wait_exit(pid), ==, 0);
	CHECK_ERRNO(kill(pid, 0), ESRCH);
	go = 0;
	grandchild = 0;
	pid = child(kill_own_group, NULL, 1, SIGCHLD);
	CHECK_CMP(wait_exit(pid), ==, -SIGTERM);
	/* Its child, killed with it, is an orphan: ours to reap. */
	CHECK_CMP(grandchild, >, 0);
	CHECK_CMP(wait_exit(grandchild), ==, -SIGTERM);
	sa.sa_handler = SIG_DFL;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

static int exit_code(void *arg) { return (int)(intptr_t)arg; }

/* FAN children at once (clone) and one after the other (vfork), every
 * one reaped with its own status. */
static void fan(void)
{
	if (!nproc_room(FAN))
		return;
	static pid_t pids[FAN];
	int made = 0, ok = 0;
	for (int i = 0; i < FAN; i++) {
		pids[i] = child(exit_code, (void *)(intptr_t)(i & 0x7f), i, SIGCHLD);
		made += pids[i] > 0;
	}
	CHECK_CMP(made, ==, FAN);
	for (int i = 0; i < made; i++) {
		int status = -1;
		pid_t pid = waitpid(-1, &status, 0);
		for (int j = 0; j < FAN; j++)
			if (pids[j] == pid) {
				ok += WIFEXITED(status) && WEXITSTATUS(status) == (j & 0x7f);
				pids[j] = 0;
				break;
			}
	}
	CHECK_CMP(ok, ==, FAN);
	CHECK_ERRNO(waitpid(-1, NULL, WNOHANG), ECHILD);
	ok = 0;
	for (int i = 0; i < FAN; i++) {
		pid_t pid = vfork();
		if (pid == 0)
			_exit(i & 0x7f);
		ok += pid > 0 && wait_exit(pid) == (i & 0x7f);
	}
	CHECK_CMP(ok, ==, FAN);
}

int main(void)
{
	test_begin("process_tree");
	stacks = mmap(NULL, (size_t)(FAN + 1) * STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (stacks == MAP_FAILED)
		test_skip("no memory for the children's stacks");
	vfork_and_clone_vm();
	clone_parent();
	orphans();
	groups_and_sessions();
	kill_forms();
	fan();
	return test_end();
}
