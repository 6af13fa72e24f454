/* POSIX thread synchronisation under contention (futexes underneath):
 * - a mutex: NTHREADS threads each add 1 to a plain counter M times under
 *   it; the total is exact;
 * - condition variables: producers and consumers through a small bounded
 *   queue; every item is consumed exactly once;
 * - a barrier: rounds in lockstep (each thread sees every other thread's
 *   round number before anyone moves on), PTHREAD_BARRIER_SERIAL_THREAD
 *   returned to exactly one thread per round;
 * - a recursive mutex (locked three times by its owner, trylock from
 *   another thread fails with EBUSY until the third unlock), an
 *   error-checking mutex (EDEADLK on relock, EPERM for an unlock by a
 *   non-owner), trylock on a held normal mutex (EBUSY), and a timed wait
 *   whose deadline has passed (ETIMEDOUT).
 * Thread count from the machine: 2 x online CPUs, between 2 and 8.
 * Iterations: --iters N (default 10000 per thread for the mutex). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MAXTHREADS 8

static int nthreads;
static long iters;

/* ---- mutex counter ---- */
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long counter;

static void *count_body(void *arg)
{
	(void)arg;
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&counter_lock);
		long c = counter; /* a read-modify-write the lock must protect */
		if ((i & 255) == 0)
			sched_yield(); /* holding the lock: the others pile up on it */
		counter = c + 1;
		pthread_mutex_unlock(&counter_lock);
	}
	return NULL;
}

static void mutex_counter(void)
{
	pthread_t th[MAXTHREADS];
	int n = 0;
	counter = 0;
	for (int i = 0; i < nthreads; i++)
		n += pthread_create(&th[n], NULL, count_body, NULL) == 0;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	CHECK_CMP(n, ==, nthreads);
	CHECKF(counter == n * iters, "mutex: %d threads x %ld increments = %ld (got %ld)", n, iters,
	       n * iters, (long)counter);
}

/* ---- producer/consumer ---- */
#define QSIZE 8
static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	int items[QSIZE];
	int head, count;
	int producers_left;
} q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, 0, 0 };
static int items_per_producer;
static unsigned char *consumed; /* times each item was taken */
static int bad_items;

static void *producer(void *arg)
{
	int base = (int)(long)arg * items_per_producer;
	for (int k = 0; k < items_per_producer; k++) {
		pthread_mutex_lock(&q.lock);
		while (q.count == QSIZE)
			pthread_cond_wait(&q.not_full, &q.lock);
		q.items[(q.head + q.count) % QSIZE] = base + k;
		q.count++;
		pthread_cond_signal(&q.not_empty);
		pthread_mutex_unlock(&q.lock);
	}
	pthread_mutex_lock(&q.lock);
	if (--q.producers_left == 0)
		pthread_cond_broadcast(&q.not_empty); /* consumers: no more coming */
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

static void *consumer(void *arg)
{
	long taken = 0;
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&q.lock);
		while (q.count == 0 && q.producers_left > 0)
			pthread_cond_wait(&q.not_empty, &q.lock);
		if (q.count == 0) {
			pthread_mutex_unlock(&q.lock);
			break;
		}
		int item = q.items[q.head];
		q.head = (q.head + 1) % QSIZE;
		q.count--;
		if (item >= 0 && item < items_per_producer * (nthreads / 2))
			consumed[item]++; /* under the lock: no other writer */
		else
			bad_items++;
		pthread_cond_signal(&q.not_full);
		pthread_mutex_unlock(&q.lock);
		taken++;
	}
	return (void *)taken;
}

static void producer_consumer(void)
{
	int np = nthreads / 2, nc = nthreads - np;
	items_per_producer = (int)(iters / 4);
	int total = np * items_per_producer;
	consumed = calloc((size_t)total, 1);
	if (!CHECK(consumed != NULL))
		return;
	q.producers_left = np;
	pthread_t th[MAXTHREADS];
	int created = 0;
	for (int i = 0; i < nc; i++)
		created += pthread_create(&th[i], NULL, consumer, NULL) == 0;
	for (int i = 0; i < np; i++)
		created += pthread_create(&th[nc + i], NULL, producer, (void *)(long)i) == 0;
	if (!CHECK_CMP(created, ==, nthreads))
		exit(test_end()); /* a missing producer would leave the consumers waiting */
	long taken_sum = 0, busy = 0;
	for (int i = 0; i < nc; i++) {
		void *r;
		pthread_join(th[i], &r);
		taken_sum += (long)r;
		busy += (long)r > 0;
	}
	for (int i = 0; i < np; i++)
		pthread_join(th[nc + i], NULL);
	int once = 0;
	for (int i = 0; i < total; i++)
		once += consumed[i] == 1;
	CHECKF(once == total && bad_items == 0,
	       "condvar queue: %d producers, %d consumers: each of %d items consumed exactly once (%d, %d bad)",
	       np, nc, total, once, bad_items);
	CHECK_CMP(taken_sum, ==, total);
	CHECK_CMP(q.count, ==, 0);
	note("consumers that took at least one item: %ld of %d", busy, nc);
	free(consumed);
}

/* ---- barrier rounds ---- */
static pthread_barrier_t rounds_barrier;
static volatile long round_of[MAXTHREADS];
static long barrier_rounds;
static long serial_count, lockstep_errors;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static void *barrier_body(void *arg)
{
	int me = (int)(long)arg;
	long serial = 0, errors = 0;
	for (long r = 1; r <= barrier_rounds; r++) {
		round_of[me] = r;
		if (pthread_barrier_wait(&rounds_barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
			serial++;
		/* Everyone has stored r, and nobody can store r + 1 before
		 * the second barrier. */
		for (int j = 0; j < nthreads; j++)
			errors += round_of[j] != r;
		if (pthread_barrier_wait(&rounds_barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
			serial++;
	}
	pthread_mutex_lock(&stats_lock);
	serial_count += serial;
	lockstep_errors += errors;
	pthread_mutex_unlock(&stats_lock);
	return NULL;
}

static void barrier_lockstep(void)
{
	barrier_rounds = iters / 20;
	pthread_barrier_init(&rounds_barrier, NULL, (unsigned)nthreads);
	pthread_t th[MAXTHREADS];
	int n = 0;
	for (int i = 0; i < nthreads; i++)
		n += pthread_create(&th[n], NULL, barrier_body, (void *)(long)i) == 0;
	if (!CHECK_CMP(n, ==, nthreads))
		exit(test_end()); /* the barrier can never fill */
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&rounds_barrier);
	CHECKF(lockstep_errors == 0, "barrier: %ld rounds of %d threads in lockstep (%ld mismatches)",
	       barrier_rounds, n, lockstep_errors);
	CHECKF(serial_count == 2 * barrier_rounds,
	       "barrier: exactly one PTHREAD_BARRIER_SERIAL_THREAD per wait (%ld for %ld waits)",
	       serial_count, 2 * barrier_rounds);
}

/* ---- recursive, error-checking, trylock, timed ---- */
static pthread_mutex_t *try_target;

static void *try_body(void *arg)
{
	(void)arg;
	int rc = pthread_mutex_trylock(try_target);
	if (rc == 0)
		pthread_mutex_unlock(try_target);
	return (void *)(long)rc;
}

/* pthread_mutex_trylock(m) from another thread; its result. */
static int trylock_elsewhere(pthread_mutex_t *m)
{
	pthread_t t;
	void *r = (void *)-1L;
	try_target = m;
	if (pthread_create(&t, NULL, try_body, NULL) != 0)
		return -1;
	pthread_join(t, &r);
	return (int)(long)r;
}

static void *unlock_body(void *arg)
{
	return (void *)(long)pthread_mutex_unlock(arg);
}

static void mutex_kinds(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t rec, chk, normal = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	CHECK(pthread_mutex_init(&rec, &a) == 0);
	CHECK(pthread_mutex_lock(&rec) == 0);
	CHECK(pthread_mutex_lock(&rec) == 0);
	CHECK(pthread_mutex_trylock(&rec) == 0); /* the owner: a third level */
	CHECK_CMP(trylock_elsewhere(&rec), ==, EBUSY);
	CHECK(pthread_mutex_unlock(&rec) == 0);
	CHECK(pthread_mutex_unlock(&rec) == 0);
	CHECKF(trylock_elsewhere(&rec) == EBUSY, "recursive: still held after 2 of 3 unlocks");
	CHECK(pthread_mutex_unlock(&rec) == 0);
	CHECKF(trylock_elsewhere(&rec) == 0, "recursive: free after the third unlock");
	CHECK(pthread_mutex_destroy(&rec) == 0);

	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	CHECK(pthread_mutex_init(&chk, &a) == 0);
	CHECK(pthread_mutex_lock(&chk) == 0);
	CHECK_CMP(pthread_mutex_lock(&chk), ==, EDEADLK);
	pthread_t t;
	void *r = NULL;
	if (CHECK(pthread_create(&t, NULL, unlock_body, &chk) == 0)) {
		pthread_join(t, &r);
		CHECKF((long)r == EPERM, "errorcheck: unlock by a non-owner -> EPERM (got %ld)", (long)r);
	}
	CHECK(pthread_mutex_unlock(&chk) == 0);
	CHECK_CMP(pthread_mutex_unlock(&chk), ==, EPERM); /* not locked any more */
	CHECK(pthread_mutex_destroy(&chk) == 0);
	pthread_mutexattr_destroy(&a);

	CHECK(pthread_mutex_lock(&normal) == 0);
	CHECK_CMP(trylock_elsewhere(&normal), ==, EBUSY);
	CHECK_CMP(pthread_mutex_trylock(&normal), ==, EBUSY);
	CHECK(pthread_mutex_unlock(&normal) == 0);
	CHECK_CMP(pthread_mutex_trylock(&normal), ==, 0);
	CHECK(pthread_mutex_unlock(&normal) == 0);

	/* A deadline already past: ETIMEDOUT, the mutex held again. */
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec past;
	clock_gettime(CLOCK_REALTIME, &past);
	past.tv_sec -= 1;
	pthread_mutex_lock(&normal);
	CHECK_CMP(pthread_cond_timedwait(&c, &normal, &past), ==, ETIMEDOUT);
	CHECK_CMP(trylock_elsewhere(&normal), ==, EBUSY);
	pthread_mutex_unlock(&normal);
	pthread_cond_destroy(&c);
}

int main(int argc, char **argv)
{
	test_begin("pthread_sync");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	nthreads = (int)(cpus < 1 ? 2 : cpus * 2);
	if (nthreads < 2)
		nthreads = 2;
	if (nthreads > MAXTHREADS)
		nthreads = MAXTHREADS;
	iters = arg_long(argc, argv, "--iters", 10000);
	if (iters < 20)
		iters = 20;
	note("%ld CPUs online: %d threads, %ld iterations", cpus, nthreads, iters);
	CHECK_CMP(cpus, >=, 1);

	mutex_counter();
	producer_consumer();
	barrier_lockstep();
	mutex_kinds();
	return test_end();
}
