/* Benchmark: the anonymous page-fault path. Writes one byte in each of
 * PAGES pages of a mapping (every write a fault: allocate, zero, map), then
 * MADV_DONTNEED the whole range (unmap, free, TLB flush), ROUNDS times.
 * Prints faults per second and ns per fault (the write loop only), and the
 * cost of one MADV_DONTNEED of the range. Options after --bench:
 * --pages N, --rounds N. Under QEMU TCG a fault costs ~5-20 us, so the
 * default 128 x 1024 faults take a few seconds. */
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"

int main(int argc, char **argv)
{
	long pages = arg_long(argc, argv, "--pages", 1024);
	long rounds = arg_long(argc, argv, "--rounds", 128);
	size_t len = (size_t)pages * PAGE_4K;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("multi_fault: mmap");
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE); /* 4 KiB faults even where THP is "always" */
	long long fault_ns = 0, dontneed_ns = 0, first_round_ns = 0;
	for (long r = 0; r < rounds; r++) {
		long long t0 = now_ns();
		touch_pages(p, len, (unsigned char)r);
		long long t1 = now_ns();
		if (madvise(p, len, MADV_DONTNEED)) {
			perror("multi_fault: madvise");
			return 1;
		}
		long long t2 = now_ns();
		if (r == 0)
			first_round_ns = t1 - t0; /* includes the page-table allocations */
		fault_ns += t1 - t0;
		dontneed_ns += t2 - t1;
	}
	long long faults = (long long)pages * rounds;
	printf("bench: multi_fault pages per round: %ld pages\n", pages);
	printf("bench: multi_fault rounds: %ld rounds\n", rounds);
	printf("bench: multi_fault page faults per second: %.0f faults/s\n",
	       fault_ns ? faults * 1e9 / (double)fault_ns : 0.0);
	printf("bench: multi_fault time per fault: %.1f ns\n", (double)fault_ns / (double)faults);
	printf("bench: multi_fault time per fault, first round: %.1f ns\n",
	       (double)first_round_ns / (double)pages);
	printf("bench: multi_fault MADV_DONTNEED of the range: %.0f ns\n",
	       (double)dontneed_ns / (double)rounds);
	printf("bench: multi_fault MADV_DONTNEED per page: %.1f ns\n",
	       (double)dontneed_ns / (double)faults);
	munmap(p, len);
	return 0;
}
