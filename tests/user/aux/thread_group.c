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
 *                clear, then exit(3); the leader calls exit(5) first: the
 *                process's status is the last thread's, 3 (as Linux's)
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
		return 3;
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
