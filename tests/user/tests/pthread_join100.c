/* 100 short threads created and joined one after the other, then 100 more
 * ten at a time: each gets its argument, returns a value of its own (half
 * by returning from the start routine, half through pthread_exit()), which
 * pthread_join() hands back; every thread has the parent's getpid() and a
 * gettid() of its own (distinct from the process's and from every thread
 * alive at the same time); /proc/self/status "Threads:" counts the ten of a
 * batch while they are alive and 1 once all are joined; VmSize does not
 * grow from one batch to the next (stacks are unmapped, or kept in a libc
 * cache and reused).
 *
 * Thread ids of threads that were never alive together may legally be
 * reused by a kernel; Linux allocates them cyclically, so there they are
 * also distinct, but only the ids of live threads are required to differ. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define NSEQ 100
#define BATCH 10
#define NBATCHES 10

struct slot {
	int index;
	pid_t pid, tid;
	pthread_barrier_t *alive; /* batches: held until main has looked */
	int arg_ok;
};

static uintptr_t value_of(int i)
{
	return 0x1000u + (uintptr_t)i * 37u;
}

static void *body(void *arg)
{
	struct slot *s = arg;
	s->pid = getpid();
	s->tid = (pid_t)syscall(SYS_gettid);
	s->arg_ok = s->index >= 0 && s->index < NSEQ + BATCH * NBATCHES;
	if (s->alive) {
		pthread_barrier_wait(s->alive); /* all of the batch are alive */
		pthread_barrier_wait(s->alive); /* main has counted them */
	}
	if (s->index % 2)
		pthread_exit((void *)value_of(s->index));
	return (void *)value_of(s->index);
}

static struct slot slots[NSEQ + BATCH * NBATCHES];

int main(void)
{
	test_begin("pthread_join100");
	pid_t pid = getpid(), main_tid = (pid_t)syscall(SYS_gettid);
	CHECK_CMP(main_tid, ==, pid);
	char status[8192];
	long threads_field = read_file("/proc/self/status", status, sizeof(status)) > 0
				     ? field_after(status, "Threads:")
				     : -1;
	if (threads_field < 0)
		note("/proc/self/status has no Threads: field; thread counts not checked");
	else
		CHECK_CMP(threads_field, ==, 1);
	long size1 = -1; /* VmSize after the first batch */

	/* One at a time. */
	int created = 0, joined_ok = 0;
	for (int i = 0; i < NSEQ; i++) {
		pthread_t t;
		slots[i].index = i;
		if (pthread_create(&t, NULL, body, &slots[i]) != 0)
			break;
		created++;
		void *ret = NULL;
		if (pthread_join(t, &ret) == 0 && ret == (void *)value_of(i))
			joined_ok++;
	}
	CHECK_CMP(created, ==, NSEQ);
	CHECKF(joined_ok == NSEQ, "sequential: every join returns that thread's value (%d/%d)", joined_ok,
	       NSEQ);
	int pid_ok = 0, tid_other = 0, args = 0, distinct = 0;
	for (int i = 0; i < created; i++) {
		pid_ok += slots[i].pid == pid;
		tid_other += slots[i].tid > 0 && slots[i].tid != pid;
		args += slots[i].arg_ok;
		bool unique = true;
		for (int j = 0; j < i; j++)
			unique &= slots[j].tid != slots[i].tid;
		distinct += unique;
	}
	CHECKF(pid_ok == NSEQ, "sequential: getpid() in every thread is the parent's (%d/%d)", pid_ok, NSEQ);
	CHECKF(tid_other == NSEQ, "sequential: gettid() > 0 and != getpid() in every thread (%d/%d)",
	       tid_other, NSEQ);
	CHECKF(args == NSEQ, "sequential: every thread got its argument (%d/%d)", args, NSEQ);
	note("sequential: %d distinct thread ids among %d threads never alive together", distinct, NSEQ);

	/* Ten at a time, all ten alive together. */
	int bcreated = 0, bjoined = 0, live_distinct = 0, counted = 0;
	pid_ok = tid_other = args = 0;
	for (int b = 0; b < NBATCHES; b++) {
		/* The batch before is joined: its threads out of the count
		 * before this one's are counted. */
		if (threads_field >= 0)
			threads_settled(1, 2000);
		pthread_barrier_t alive;
		pthread_barrier_init(&alive, NULL, BATCH + 1);
		pthread_t th[BATCH];
		int n = 0;
		for (int k = 0; k < BATCH; k++) {
			struct slot *s = &slots[NSEQ + b * BATCH + k];
			s->index = NSEQ + b * BATCH + k;
			s->alive = &alive;
			if (pthread_create(&th[k], NULL, body, s) != 0)
				break;
			n++;
		}
		bcreated += n;
		if (n < BATCH) {
			/* The barrier cannot fill: give up (the threads stay blocked). */
			break;
		}
		pthread_barrier_wait(&alive);
		if (threads_field >= 0 && read_file("/proc/self/status", status, sizeof(status)) > 0) {
			long t = field_after(status, "Threads:");
			counted += t == BATCH + 1;
			if (t != BATCH + 1)
				note("batch %d: Threads: %ld with %d threads alive", b, t, BATCH + 1);
		}
		pthread_barrier_wait(&alive);
		for (int k = 0; k < n; k++) {
			int i = NSEQ + b * BATCH + k;
			void *ret = NULL;
			if (pthread_join(th[k], &ret) == 0 && ret == (void *)value_of(i))
				bjoined++;
			pid_ok += slots[i].pid == pid;
			tid_other += slots[i].tid > 0 && slots[i].tid != pid;
			args += slots[i].arg_ok;
			bool unique = true;
			for (int j = 0; j < k; j++)
				unique &= slots[NSEQ + b * BATCH + j].tid != slots[i].tid;
			live_distinct += unique;
		}
		pthread_barrier_destroy(&alive);
		if (b == 0)
			size1 = status_kb("VmSize");
	}
	const int nb = BATCH * NBATCHES;
	CHECK_CMP(bcreated, ==, nb);
	CHECKF(bjoined == nb, "batches: every join returns that thread's value (%d/%d)", bjoined, nb);
	CHECKF(pid_ok == nb, "batches: getpid() in every thread is the parent's (%d/%d)", pid_ok, nb);
	CHECKF(tid_other == nb, "batches: gettid() > 0 and != getpid() (%d/%d)", tid_other, nb);
	CHECKF(args == nb, "batches: every thread got its argument (%d/%d)", args, nb);
	CHECKF(live_distinct == nb, "batches: the ten live threads of a batch have distinct ids (%d/%d)",
	       live_distinct, nb);
	if (threads_field >= 0) {
		CHECKF(counted == NBATCHES, "Threads: %d with a batch alive, in every batch (%d/%d)",
		       BATCH + 1, counted, NBATCHES);
		/* The last batch's threads gone from the count too. */
		CHECK_CMP(threads_settled(1, 2000), ==, 1);
	}
	/* Joined threads' stacks are unmapped (musl) or kept in a cache and
	 * reused (glibc): either way nine more batches add nothing. */
	long grew = status_kb("VmSize") - size1;
	CHECKF(size1 > 0 && grew <= 1024, "VmSize after batches 2-10 vs after batch 1: %+ld kB (at most +1 MiB)",
	       grew);
	return test_end();
}
