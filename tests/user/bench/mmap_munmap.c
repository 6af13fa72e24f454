/* Benchmark: the cost of a short-lived mapping. Times ITERATIONS rounds of
 *   mmap(4 KiB) + munmap                  (VMA insert and remove only)
 *   mmap(4 KiB) + write one byte + munmap (plus a fault, a page, a PTE
 *                                          table, and the zap and flush)
 *   mmap(2 MiB) + write one byte + munmap (the same in a bigger VMA)
 * and prints ns per round. Options after --bench: --iterations N (default
 * 10000: a second or two under QEMU TCG). */
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

static long long run(long iterations, size_t len, bool touch)
{
	long long t0 = now_ns();
	for (long i = 0; i < iterations; i++) {
		volatile char *p = mmap(NULL, len, RW, ANON, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap_munmap: mmap");
			return -1;
		}
		if (touch)
			p[0] = 1;
		if (munmap((void *)p, len)) {
			perror("mmap_munmap: munmap");
			return -1;
		}
	}
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	long iterations = arg_long(argc, argv, "--iterations", 10000);
	run(iterations / 10 + 1, PAGE_4K, true); /* warm up: first-use costs out of the way */
	long long bare = run(iterations, PAGE_4K, false);
	long long touched = run(iterations, PAGE_4K, true);
	long long big = run(iterations, 2 * MiB, true);
	if (bare < 0 || touched < 0 || big < 0)
		return 1;
	printf("bench: mmap_munmap iterations: %ld rounds\n", iterations);
	printf("bench: mmap_munmap mmap+munmap 4 KiB, untouched: %.0f ns\n", (double)bare / iterations);
	printf("bench: mmap_munmap mmap+touch+munmap 4 KiB: %.0f ns\n", (double)touched / iterations);
	printf("bench: mmap_munmap mmap+touch+munmap 2 MiB: %.0f ns\n", (double)big / iterations);
	printf("bench: mmap_munmap touch and zap of one page: %.0f ns\n",
	       (double)(touched - bare) / iterations);
	return 0;
}
