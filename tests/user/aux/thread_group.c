/* For the kernel's thread tests (tests/thread_test.c): a process of
 * several threads that ends in a chosen way, so the kernel can check the
 * result and that every thread's memory, task and kernel stack is freed.
 *
 *   thread_group MODE N
 *
 * N threads (1..16) are started with the flags glibc's pthread_create
 * passes; each counts itself in, then:
 *   spin         spins without system calls; main calls exit_group(7)
 *   sleep        sleeps in nanosleep (600 s); main calls exit_group(9)
 *   leader_exit  waits (yielding) for the leader's set_tid_address word to
 *                clear, then for /proc/self/stat to show the leader as a
 *                zombie, then exit(3) (4 if it never does); the leader
 *                calls exit(5) first: the process's status is the last
 *                thread's, 3 (as Linux's)
 *   fault        spin, but the last one writes to address 0: the fault
 *                kills every thread
 *   thread_exit_group  spin, but the last one calls exit_group(11) while
 *                the leader spins too
 * Every wait is for an event (a count, a word); nothing depends on time. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "raw_thread.h"

#define STACK_SIZE (64 * 1024)
#define MAX_THREADS 16

static volatile int started;
static volatile int leader_word;
static int nthreads;
static const char *mode;

static __attribute__((noreturn)) void spin_forever(void)
{
	for (;;)
		__asm__ volatile("pause" ::: "memory");
}

/* Once the leader has exited, /proc/self/stat shows it as its group's
 * zombie ('Z', no PF_KTHREAD in the flags), as Linux's: read with raw
 * system calls (this thread has no C library state), until the leader's
 * exit has got that far (a bounded number of yields). */
static bool leader_is_zombie(void)
{
	for (int tries = 0; tries < 100000; tries++) {
		char buf[1024];
		long fd = raw6(2 /* open */, (long)"/proc/self/stat", 0, 0, 0, 0, 0);
		if (fd < 0)
			return false;
		long n = raw6(0 /* read */, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
		raw1(3 /* close */, fd);
		if (n <= 0)
			return false;
		buf[n] = 0;
		char *close = strrchr(buf, ')');
		if (!close)
			return false;
		if (close[2] == 'Z') {
			/* Fields 4 to 9 follow: ppid pgrp session tty_nr tpgid flags. */
			char *q = close + 4;
			for (int field = 4; field < 9; field++)
				q = strchr(q, ' ') + 1;
			return (strtoul(q, NULL, 10) & 0x00200000ul) == 0; /* PF_KTHREAD */
		}
		raw_yield();
	}
	return false;
}

static int thread_fn(void *arg)
{
	long i = (long)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	bool last = i == nthreads - 1;
	if (!strcmp(mode, "sleep")) {
		struct {
			long sec, nsec;
		} t = { 600, 0 };
		for (;;)
			raw2(NR_nanosleep, &t, 0);
	}
	if (!strcmp(mode, "leader_exit")) {
		while (leader_word != 0)
			raw_yield();
		return leader_is_zombie() ? 3 : 4;
	}
	/* Every thread is in before the last one acts. */
	while (last && started < nthreads)
		raw_yield();
	if (last && !strcmp(mode, "fault"))
		*(volatile int *)0 = 1;
	if (last && !strcmp(mode, "thread_exit_group"))
		raw1(NR_exit_group, 11);
	spin_forever();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		printf("usage: thread_group MODE N\n");
		return 2;
	}
	mode = argv[1];
	nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAX_THREADS) {
		printf("thread_group: N must be 1..%d\n", MAX_THREADS);
		return 2;
	}
	leader_word = (int)raw0(NR_gettid);
	raw1(NR_set_tid_address, &leader_word);
	for (long i = 0; i < nthreads; i++) {
		char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		static int ctid[MAX_THREADS];
		long tid = stack == MAP_FAILED ? -12
					       : raw_clone(T_THREAD_FLAGS & ~(T_CLONE_SETTLS | T_CLONE_PARENT_SETTID),
							   stack + STACK_SIZE, NULL, &ctid[i], 0, thread_fn, (void *)i);
		if (tid < 0) {
			printf("thread_group: clone %ld failed: %ld\n", i, tid);
			return 3;
		}
	}
	printf("thread_group: %s with %d threads\n", mode, nthreads);
	while (started < nthreads)
		raw_yield();
	if (!strcmp(mode, "spin"))
		raw1(NR_exit_group, 7);
	if (!strcmp(mode, "sleep"))
		raw1(NR_exit_group, 9);
	if (!strcmp(mode, "leader_exit"))
		raw1(NR_exit, 5);
	spin_forever(); /* fault, thread_exit_group: another thread ends us */
}
