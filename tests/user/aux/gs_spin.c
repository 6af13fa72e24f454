/* For the kernel's entry tests (tests/entry_test.c): spin's loop (no system
 * call) with a GS base of the test's choice, written with wrgsbase, so that
 * NMIs land in user mode while the base is, say, a kernel-half address.
 *
 *   gs_spin FLAG_ADDRESS GS_BASE [GUARD_SECONDS]
 *
 * It maps a page at FLAG_ADDRESS (MAP_FIXED_NOREPLACE), sets its GS base
 * to GS_BASE, writes 1 in the page's first word and loops while the word is
 * 1; the test writes 2 there to end it. It exits 0 if its GS base is still
 * GS_BASE then, 4 if not, 77 where FSGSBASE is off (AT_HWCAP2), 3 if the
 * hang guard (default 600 s, rdtsc calibrated against CLOCK_MONOTONIC over
 * 20 ms first) ended the loop, 2 on bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#define HWCAP2_FSGSBASE 2

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
	if (argc < 3) {
		printf("usage: gs_spin FLAG_ADDRESS GS_BASE [GUARD_SECONDS]\n");
		return 2;
	}
	if (!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE)) {
		printf("gs_spin: FSGSBASE is off\n");
		return 77;
	}
	unsigned long addr = strtoul(argv[1], NULL, 0);
	unsigned long gs = strtoul(argv[2], NULL, 0);
	long guard_s = argc > 3 ? atol(argv[3]) : 600;
	volatile int *flag = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (flag != (volatile int *)addr) {
		printf("gs_spin: cannot map the flag page at %#lx\n", addr);
		return 2;
	}
	long long t0 = now_ns();
	unsigned long long c0 = rdtsc();
	while (now_ns() - t0 < 20000000LL)
		;
	unsigned long long per_ms = (rdtsc() - c0) / 20 + 1;
	unsigned long long end = rdtsc() + per_ms * 1000ull * (unsigned long long)guard_s;

	unsigned long old, seen;
	__asm__ volatile("rdgsbase %0" : "=r"(old));
	__asm__ volatile("wrgsbase %0" ::"r"(gs) : "memory");
	/* No system call and nothing that uses GS from here ... */
	int stopped_early = !__sync_bool_compare_and_swap(flag, 0, 1);
	while (!stopped_early && *flag == 1 && rdtsc() < end)
		;
	__asm__ volatile("rdgsbase %0" : "=r"(seen));
	__asm__ volatile("wrgsbase %0" ::"r"(old) : "memory");
	/* ... to here. */
	if (seen != gs) {
		printf("gs_spin: GS base %#lx, not the %#lx written\n", seen, gs);
		return 4;
	}
	if (!stopped_early && *flag == 1) {
		printf("gs_spin: never told to stop (hang guard of %ld s)\n", guard_s);
		return 3;
	}
	printf("gs_spin: told to stop, GS base %#lx kept\n", gs);
	return 0;
}
