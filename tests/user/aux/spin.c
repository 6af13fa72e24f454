/* For the kernel's process tests (tests/process_test.c): stays in user
 * mode, without a single system call, until the kernel tells it to stop.
 * Only a preemptible user mode lets anything else run on its CPU meanwhile.
 *
 *   spin ADDRESS [GUARD_SECONDS]
 *
 * It maps a page at ADDRESS (MAP_FIXED_NOREPLACE), writes 1 in its first
 * word once it is about to enter its loop, and loops while the word is 1;
 * the test writes 2 there, through the process's address space, to end it
 * (exit status 0). How long it spins is the test's choice, never a clock's:
 * the only clock is a hang guard (default 600 s, rdtsc calibrated against
 * CLOCK_MONOTONIC over 20 ms first) that turns a stop that never comes into
 * exit status 3. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static unsigned long long rdtsc(void)
{
	unsigned lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: spin ADDRESS [GUARD_SECONDS]\n");
		return 2;
	}
	unsigned long addr = strtoul(argv[1], NULL, 0);
	long guard_s = argc > 2 ? atol(argv[2]) : 600;
	volatile int *flag = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (flag != (volatile int *)addr) {
		printf("spin: cannot map the flag page at %#lx\n", addr);
		return 2;
	}
	long long t0 = now_ns();
	unsigned long long c0 = rdtsc();
	while (now_ns() - t0 < 20000000LL)
		;
	unsigned long long per_ms = (rdtsc() - c0) / 20 + 1;
	unsigned long long end = rdtsc() + per_ms * 1000ull * (unsigned long long)guard_s;
	if (!__sync_bool_compare_and_swap(flag, 0, 1)) { /* told to stop already */
		printf("spin: told to stop\n");
		return 0;
	}
	while (*flag == 1 && rdtsc() < end)
		; /* no system call in here */
	if (*flag == 1) {
		printf("spin: never told to stop (hang guard of %ld s)\n", guard_s);
		return 3;
	}
	printf("spin: told to stop\n");
	return 0;
}
