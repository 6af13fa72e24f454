/* Benchmark: the fault benchmark of Qi Zheng's 2021 cover letter
 * (Kamezawa's multi-fault, 2010), for T = 1, 2 and 4 threads. One
 * anonymous mapping holds a slice of SLICE (8 MiB) per thread; in each
 * round every thread writes one byte in each page of the first TOUCH
 * (2 MiB) of its slice (512 faults), all wait at a barrier, then thread 0
 * gives every slice's touched 2 MiB back with MADV_DONTNEED, and all wait
 * again. As in the original, the mapping is not aligned to 2 MiB (here on
 * purpose: it starts 1 MiB past a 2 MiB boundary), so each touched range
 * spans two PTE tables and no MADV_DONTNEED covers a whole table: the
 * refcount design frees the emptied tables, the scan design (Linux 6.14's
 * CONFIG_PT_RECLAIM, which only reclaims tables a zap covers whole) does
 * not, and the VmPTE printed at the end shows it.
 *
 * Prints per T: page faults per second and ns per fault over the touch
 * phases (the wall time of the parallel phase divided by all the faults of
 * all threads: under QEMU -icount shift=0 on one TCG thread, ns are guest
 * instructions, so this is instructions per fault summed over the CPUs),
 * the MADV_DONTNEED phase per page, and VmPTE before the mapping and after
 * the last round. Options after --bench: --rounds N (default 64). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"

#define SLICE (8 * MiB)
#define TOUCH (2 * MiB)
#define MAX_T 4

static char *base;
static int nthreads;
static long rounds;
static pthread_barrier_t barrier;
static long long touch_ns, dontneed_ns;
static int madvise_errors;

static void *worker(void *arg)
{
	long id = (long)arg;
	char *slice = base + id * SLICE;
	for (long r = 0; r < rounds; r++) {
		long long t0 = 0;
		if (id == 0)
			t0 = now_ns();
		pthread_barrier_wait(&barrier); /* everyone starts faulting together */
		touch_pages(slice, TOUCH, (unsigned char)(r + 1));
		pthread_barrier_wait(&barrier); /* every thread's 512 faults are done */
		if (id == 0) {
			long long t1 = now_ns();
			for (int t = 0; t < nthreads; t++)
				if (madvise(base + t * SLICE, TOUCH, MADV_DONTNEED))
					madvise_errors++;
			touch_ns += t1 - t0;
			dontneed_ns += now_ns() - t1;
		}
		pthread_barrier_wait(&barrier); /* the slices are empty again */
	}
	return NULL;
}

static int run(int t)
{
	nthreads = t;
	touch_ns = dontneed_ns = 0;
	madvise_errors = 0;
	long pte_before = status_kb("VmPTE");
	size_t len = (size_t)t * SLICE + 2 * MiB;
	char *p = mmap(NULL, len + 2 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("multi_fault_threads: mmap");
		return 1;
	}
	madvise(p, len + 2 * MiB, MADV_NOHUGEPAGE);
	/* 1 MiB past the first 2 MiB boundary inside the mapping. */
	base = (char *)((((unsigned long)p + 2 * MiB - 1) & ~(2 * MiB - 1)) + MiB);
	pthread_barrier_init(&barrier, NULL, (unsigned)t);
	pthread_t th[MAX_T];
	for (long i = 1; i < t; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i)) {
			perror("multi_fault_threads: pthread_create");
			return 1;
		}
	worker((void *)0);
	for (long i = 1; i < t; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
	long pte_after = status_kb("VmPTE");
	long long faults = (long long)t * (long long)(TOUCH / PAGE_4K) * rounds;
	printf("bench: multi_fault_threads T=%d page faults per second: %.0f faults/s\n", t,
	       touch_ns ? (double)faults * 1e9 / (double)touch_ns : 0.0);
	printf("bench: multi_fault_threads T=%d time per fault: %.1f ns\n", t,
	       (double)touch_ns / (double)faults);
	printf("bench: multi_fault_threads T=%d MADV_DONTNEED per page: %.1f ns\n", t,
	       (double)dontneed_ns / (double)faults);
	printf("bench: multi_fault_threads T=%d VmPTE before the mapping: %ld kB\n", t, pte_before);
	printf("bench: multi_fault_threads T=%d VmPTE after %ld rounds: %ld kB\n", t, rounds,
	       pte_after);
	munmap(p, len + 2 * MiB);
	if (madvise_errors) {
		fprintf(stderr, "multi_fault_threads: %d MADV_DONTNEED calls failed\n", madvise_errors);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	rounds = arg_long(argc, argv, "--rounds", 64);
	static const int threads[] = { 1, 2, 4 };
	for (unsigned i = 0; i < sizeof(threads) / sizeof(threads[0]); i++)
		if (run(threads[i]))
			return 1;
	return 0;
}
