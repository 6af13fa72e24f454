/* For the kernel's process tests (tests/process_test.c): stays in user
 * mode for argv[1] milliseconds without a single system call, then exits
 * 0. Only a preemptible user mode lets anything else run on its CPU
 * meanwhile. The time is read with rdtsc (a user-mode instruction),
 * calibrated against CLOCK_MONOTONIC over 20 ms first. */
#include <stdio.h>
#include <stdlib.h>
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
	long ms = argc > 1 ? atol(argv[1]) : 100;
	long long t0 = now_ns();
	unsigned long long c0 = rdtsc();
	while (now_ns() - t0 < 20000000LL)
		;
	unsigned long long per_ms = (rdtsc() - c0) / 20 + 1;
	unsigned long long end = rdtsc() + per_ms * (unsigned long long)ms;
	while (rdtsc() < end)
		; /* no system call in here */
	printf("spin: done (about %ld ms in user mode)\n", ms);
	return 0;
}
