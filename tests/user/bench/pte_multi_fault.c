/* Benchmark: the shape of the cover letter's fault benchmark (Kamezawa's
 * multi-fault, as Qi Zheng's 2021 series ran it), for what it leaves in
 * VmPTE: THREADS threads each own an 8 MiB slice of one mapping and write
 * every page of its first 2 MiB; then thread 0 gives every slice's 2 MiB
 * back with MADV_DONTNEED; ROUNDS times, the threads meeting at a barrier
 * between the phases.
 *
 * Where the slices lie against the 2 MiB PTE-table boundaries decides what
 * the scan design (Linux 6.14's CONFIG_PT_RECLAIM, mmlab's pte_reclaim=scan)
 * can free: it frees a table only when one MADV_DONTNEED covered all of it.
 * With the slices on a table boundary (offset 0) each 2 MiB is exactly
 * one table, which the scan frees; half a table off (offset 1024 kB: a
 * mapping that does not start on a 2 MiB boundary, as mmlab's and pre-6.7
 * Linux's mmap place it) each 2 MiB straddles two tables, neither
 * covered whole, and the scan frees none, while the refcount design frees
 * every table whose last entry goes, and Linux 6.1 (off) frees nothing.
 *
 * Prints faults per second, ns per fault (the write phase, wall clock:
 * under QEMU -icount shift=0 on one TCG thread, ns are guest instructions
 * of all the CPUs together, so this is instructions per fault), and VmPTE
 * before, after the rounds (the tables left empty) and after munmap.
 * Options after --bench: --threads N, --rounds N (16), --offset-kb K.
 * Without --threads it runs T = 1, 2 and 4 threads (the series reported
 * 1, 8 and 16); without --offset-kb each T runs at offset 0, then 1024. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "check.h"

#define SLICE (8 * MiB)
#define TOUCHED (2 * MiB)

static char *base;
static long nr_threads, rounds;
static pthread_barrier_t barrier;
static long long fault_ns; /* thread 0's view of each write phase */

static void *worker(void *arg)
{
	long id = (long)arg;
	volatile char *slice = base + id * SLICE;
	for (long r = 0; r < rounds; r++) {
		pthread_barrier_wait(&barrier);
		long long t0 = now_ns();
		for (size_t off = 0; off < TOUCHED; off += PAGE_4K)
			slice[off] = (char)r;
		pthread_barrier_wait(&barrier);
		if (id == 0) {
			fault_ns += now_ns() - t0;
			for (long t = 0; t < nr_threads; t++)
				if (madvise(base + t * SLICE, TOUCHED, MADV_DONTNEED))
					perror("pte_multi_fault: madvise");
		}
	}
	return NULL;
}

/* One run with the slices at offset bytes past a 2 MiB boundary; 0 or 1
 * (bad options, no memory). */
static int run_once(long offset)
{
	fault_ns = 0;
	long pte_start = status_kb("VmPTE");
	/* Room to put the slices at offset past a 2 MiB boundary. */
	size_t len = (size_t)nr_threads * SLICE + 4 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("pte_multi_fault: mmap");
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE); /* 4 KiB faults even where THP is "always" */
	base = (char *)((((unsigned long)p + 2 * MiB - 1) & ~(2 * MiB - 1)) + (unsigned long)offset);
	pthread_barrier_init(&barrier, NULL, (unsigned)nr_threads);
	pthread_t tids[64];
	for (long t = 1; t < nr_threads; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)t)) {
			fprintf(stderr, "pte_multi_fault: pthread_create failed\n");
			return 1;
		}
	worker((void *)0);
	for (long t = 1; t < nr_threads; t++)
		pthread_join(tids[t], NULL);
	pthread_barrier_destroy(&barrier);
	long pte_after = status_kb("VmPTE");
	munmap(p, len);
	long pte_end = status_kb("VmPTE");
	long long faults = nr_threads * rounds * (long long)(TOUCHED / PAGE_4K);
	long kb = offset / (long)KiB;
	printf("bench: pte_multi_fault T=%ld rounds: %ld rounds\n", nr_threads, rounds);
	printf("bench: pte_multi_fault T=%ld offset %ld kB: page faults per second: %.0f faults/s\n", nr_threads, kb,
	       fault_ns ? faults * 1e9 / (double)fault_ns : 0.0);
	printf("bench: pte_multi_fault T=%ld offset %ld kB: time per fault: %.1f ns\n", nr_threads, kb,
	       (double)fault_ns / (double)faults);
	printf("bench: pte_multi_fault T=%ld offset %ld kB: VmPTE before: %ld kB\n", nr_threads, kb, pte_start);
	printf("bench: pte_multi_fault T=%ld offset %ld kB: VmPTE after the rounds: %ld kB\n", nr_threads, kb, pte_after);
	printf("bench: pte_multi_fault T=%ld offset %ld kB: VmPTE left by the rounds: %ld kB\n", nr_threads, kb,
	       pte_after - pte_start);
	printf("bench: pte_multi_fault T=%ld offset %ld kB: VmPTE after munmap: %ld kB\n", nr_threads, kb, pte_end);
	return 0;
}

int main(int argc, char **argv)
{
	long threads = arg_long(argc, argv, "--threads", 0);
	rounds = arg_long(argc, argv, "--rounds", 16);
	long offset_kb = arg_long(argc, argv, "--offset-kb", -1);
	if (threads < 0 || threads > 64 || rounds < 1 || offset_kb < -1 || offset_kb >= 2048) {
		fprintf(stderr, "pte_multi_fault: bad options\n");
		return 1;
	}
	static const long default_threads[] = { 1, 2, 4 };
	for (unsigned i = 0; i < sizeof(default_threads) / sizeof(default_threads[0]); i++) {
		nr_threads = threads ? threads : default_threads[i];
		/* Both placements unless one is asked for: on a table
		 * boundary, then half a table off. */
		if (offset_kb >= 0 ? run_once(offset_kb * (long)KiB)
				   : run_once(0) || run_once(1024 * (long)KiB))
			return 1;
		if (threads)
			break;
	}
	return 0;
}
