/* Crash program: a fault in one thread kills the whole process. Three
 * threads besides main: one sleeping (blocked on a condition variable that
 * is never signalled), one spinning, and one that, once the others are
 * running, writes to address 0. On Linux the SIGSEGV is for the process:
 * every thread dies. The main thread joins the faulting thread: if that
 * join ever returns, the kernel ended the thread alone and the process
 * lives on, which is the failure (reported, exit 0). */
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t started;
static pthread_mutex_t never_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile unsigned long spins;

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	pthread_mutex_lock(&never_lock);
	for (;;)
		pthread_cond_wait(&never, &never_lock);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	for (;;)
		spins++;
	return NULL;
}

static void *faulter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	printf("thread_fault: a thread writes to address 0 while two others run and sleep; "
	       "the kernel must kill the whole process\n");
	fflush(stdout);
	volatile int *null = 0;
	__asm__ volatile("" : "+r"(null)); /* a real store, not a compiler trap */
	*null = 42;
	printf("thread_fault: FAIL: the write to address 0 did not fault\n");
	fflush(stdout);
	return NULL;
}

int main(void)
{
	pthread_t s, p, f;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&started, NULL, 4);
	if (pthread_create(&s, NULL, sleeper, NULL) || pthread_create(&p, NULL, spinner, NULL) ||
	    pthread_create(&f, NULL, faulter, NULL)) {
		printf("thread_fault: FAIL: pthread_create failed\n");
		return 0; /* not a fault: the runner counts it as a failure */
	}
	pthread_barrier_wait(&started);
	pthread_join(f, NULL);
	printf("thread_fault: FAIL: the faulting thread ended and the process lives on (%lu spins)\n",
	       spins);
	return 0;
}
