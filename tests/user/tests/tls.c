/* Thread-local storage under threads: __thread variables (initialised from
 * the TLS image and zero-filled .tbss) have one copy per thread, at
 * distinct addresses, starting from their initial values in every thread;
 * errno is per thread; the thread pointer (%fs:0, which both glibc and musl
 * point at the thread's own descriptor) equals pthread_self() and the FS
 * base the kernel reports (arch_prctl ARCH_GET_FS), and the static TLS
 * block lies just below it (x86-64 TLS variant II).
 *
 * All threads stay alive until every address has been recorded (a barrier),
 * so that an address reused after a thread's exit cannot pass for a
 * distinct one. Standard C + POSIX threads only: builds with musl and
 * glibc, runs on mmlab and Linux alike. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define NTHREADS 8
#ifndef ARCH_GET_FS
#define ARCH_GET_FS 0x1003 /* <asm/prctl.h>, which musl-gcc does not see */
#endif

static __thread int tls_init = 42;                 /* .tdata */
static __thread long tls_array[64] = { 7, 8, 9 };  /* .tdata, mostly zero */
static __thread char tls_zero[256];                /* .tbss */
static __thread int *tls_self;                     /* .tbss: points at own tls_init */

struct result {
	int index;
	int start_ok;        /* initial values seen at thread start */
	int value_kept;      /* own values still there after every thread wrote its own */
	int errno_expected;  /* the error this thread provoked */
	int errno_seen;      /* errno after the barrier */
	void *addr_init, *addr_zero, *addr_errno;
	uintptr_t tp;        /* %fs:0 */
	uintptr_t self;      /* pthread_self() */
	uintptr_t fsbase;    /* arch_prctl(ARCH_GET_FS) */
	long fsbase_ret;
	pid_t tid;
};

static struct result results[NTHREADS + 1]; /* [NTHREADS]: the main thread */
static pthread_barrier_t barrier;

static uintptr_t thread_pointer(void)
{
	uintptr_t tp;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* Makes a system call fail with an error that depends on i, through libc's
 * wrappers (which set errno); returns the error expected. */
static int provoke_error(int i)
{
	switch (i % 4) {
	case 0:
		close(-1);
		return EBADF;
	case 1:
		open("/nonexistent-tls-test-file", O_RDONLY);
		return ENOENT;
	case 2:
		munmap((void *)(uintptr_t)1, PAGE_4K); /* unaligned */
		return EINVAL;
	default:
		lseek(-1 - i, 0, SEEK_SET);
		return EBADF;
	}
}

static void *body(void *arg)
{
	struct result *r = arg;
	int i = r->index;

	bool zero = true;
	for (size_t k = 0; k < sizeof(tls_zero); k++)
		zero &= tls_zero[k] == 0;
	r->start_ok = tls_init == 42 && tls_array[0] == 7 && tls_array[2] == 9 &&
		      tls_array[63] == 0 && zero && tls_self == NULL;

	r->addr_init = &tls_init;
	r->addr_zero = tls_zero;
	r->addr_errno = &errno;
	r->tp = thread_pointer();
	r->self = (uintptr_t)pthread_self();
	r->fsbase_ret = syscall(SYS_arch_prctl, ARCH_GET_FS, &r->fsbase);
	r->tid = (pid_t)syscall(SYS_gettid);

	/* Every thread writes its own values, then all wait, then each
	 * checks its own: a shared copy would hold someone else's. */
	tls_init = 1000 + i;
	tls_array[63] = 2000 + i;
	memset(tls_zero, 'a' + i, sizeof(tls_zero));
	tls_self = &tls_init;
	r->errno_expected = provoke_error(i);
	pthread_barrier_wait(&barrier);
	r->errno_seen = errno;
	pthread_barrier_wait(&barrier);
	sched_yield();
	bool kept = tls_init == 1000 + i && tls_array[63] == 2000 + i && tls_self == &tls_init;
	for (size_t k = 0; k < sizeof(tls_zero); k++)
		kept &= tls_zero[k] == 'a' + i;
	r->value_kept = kept;
	/* Stay alive until every thread has recorded its addresses. */
	pthread_barrier_wait(&barrier);
	return NULL;
}

int main(void)
{
	test_begin("tls");
	pthread_t th[NTHREADS];

	CHECK(pthread_barrier_init(&barrier, NULL, NTHREADS + 1) == 0);
	for (int i = 0; i <= NTHREADS; i++)
		results[i].index = i;
	int created = 0;
	for (int i = 0; i < NTHREADS; i++) {
		if (pthread_create(&th[i], NULL, body, &results[i]) != 0)
			break;
		created++;
	}
	if (!CHECK_CMP(created, ==, NTHREADS)) {
		/* The others wait at a barrier that can never fill. */
		return test_end();
	}
	/* The main thread takes part as thread NTHREADS. */
	body(&results[NTHREADS]);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	int start_ok = 0, kept = 0, errno_ok = 0, tp_self = 0, tp_fs = 0, below = 0;
	int distinct_init = 1, distinct_zero = 1, distinct_errno = 1, distinct_tp = 1, distinct_tid = 1;
	for (int i = 0; i <= NTHREADS; i++) {
		struct result *r = &results[i];
		start_ok += r->start_ok;
		kept += r->value_kept;
		errno_ok += r->errno_seen == r->errno_expected;
		tp_self += r->tp == r->self;
		tp_fs += r->fsbase_ret == 0 && r->fsbase == r->tp;
		/* Variant II: the static TLS block ends at the thread pointer. */
		below += (uintptr_t)r->addr_init < r->tp && r->tp - (uintptr_t)r->addr_init < 64 * KiB &&
			 (uintptr_t)r->addr_zero < r->tp && r->tp - (uintptr_t)r->addr_zero < 64 * KiB;
		if (r->errno_seen != r->errno_expected)
			note("thread %d: errno %s, expected %s", i, errno_name(r->errno_seen),
			     errno_name(r->errno_expected));
		if (r->tp != r->self || r->fsbase != r->tp)
			note("thread %d: %%fs:0 %#lx, pthread_self %#lx, ARCH_GET_FS %#lx (ret %ld)", i,
			     (unsigned long)r->tp, (unsigned long)r->self, (unsigned long)r->fsbase,
			     r->fsbase_ret);
		for (int j = 0; j < i; j++) {
			distinct_init &= r->addr_init != results[j].addr_init;
			distinct_zero &= r->addr_zero != results[j].addr_zero;
			distinct_errno &= r->addr_errno != results[j].addr_errno;
			distinct_tp &= r->tp != results[j].tp;
			distinct_tid &= r->tid != results[j].tid;
		}
	}
	note("main: &tls_init %p, thread pointer %#lx; thread 0: &tls_init %p, thread pointer %#lx",
	     results[NTHREADS].addr_init, (unsigned long)results[NTHREADS].tp, results[0].addr_init,
	     (unsigned long)results[0].tp);
	const int n = NTHREADS + 1;
	CHECKF(start_ok == n, "every thread starts with the TLS image: initialised values, zero .tbss (%d/%d)",
	       start_ok, n);
	CHECKF(kept == n, "each thread's __thread values survive the others' writes (%d/%d)", kept, n);
	CHECKF(distinct_init && distinct_zero, "__thread variables are at distinct addresses in every thread");
	CHECKF(errno_ok == n, "errno is per thread: each sees its own error after all failed (%d/%d)",
	       errno_ok, n);
	CHECKF(distinct_errno, "&errno differs between threads");
	CHECKF(tp_self == n, "thread pointer %%fs:0 == pthread_self() (%d/%d)", tp_self, n);
	CHECKF(tp_fs == n, "arch_prctl(ARCH_GET_FS) == %%fs:0 (%d/%d)", tp_fs, n);
	CHECKF(distinct_tp, "thread pointers are distinct");
	CHECKF(below == n, "the static TLS block lies within 64 KiB below the thread pointer (%d/%d)",
	       below, n);
	CHECKF(distinct_tid, "thread ids are distinct");
	CHECK(tls_init == 1000 + NTHREADS); /* main's own copy, as it left it */
	pthread_barrier_destroy(&barrier);
	return test_end();
}
