/* AVX2 in user space, and the kernel's part in it: the YMM state must be
 * enabled (CR4.OSXSAVE, XCR0 bits 1-2) and saved and restored at every
 * switch, upper halves included.
 * - CPUID without AVX2: SKIP. CPUID with AVX2 but OSXSAVE clear or XCR0
 *   without SSE|YMM: FAIL (the kernel did not enable XSAVE for YMM).
 * - An AVX2 function (target("avx2"), _mm256 integer intrinsics) computes
 *   what scalar code computes.
 * - Two threads pinned to one CPU: A loads ymm0-15 with a pattern, then
 *   nanosleep()s or sched_yield()s and keeps yielding, all inside one asm
 *   block, until B has finished at least one round of its own AVX2 work
 *   with other values in every ymm register (so B has certainly run on that
 *   CPU while A's registers were live); then A stores ymm0-15 and compares.
 *   B checks its own results the same way, one round for each of A's
 *   (it sleeps on a futex until A posts the next, so no CPU time goes to
 *   spinning while A sleeps). No timing decides anything: A waits for B's
 *   progress counter, not for a clock.
 * Rounds: --rounds N (default 100 with nanosleep + 100 with sched_yield). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define B_STEPS 200 /* vpsubd steps per round of B */

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* ---- computing with AVX2 ---- */
#define N 1024
static int32_t va[N], vb[N], vout[N], sout[N];

__attribute__((target("avx2"))) static int64_t avx2_kernel(void)
{
	/* out = a * b + (a >> 3) - rotate8(b); returns the sum of out. */
	const __m256i rot = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0);
	__m256i sum = _mm256_setzero_si256();
	for (int i = 0; i < N; i += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)&va[i]);
		__m256i b = _mm256_loadu_si256((const __m256i *)&vb[i]);
		__m256i r = _mm256_add_epi32(_mm256_mullo_epi32(a, b), _mm256_srai_epi32(a, 3));
		r = _mm256_sub_epi32(r, _mm256_permutevar8x32_epi32(b, rot));
		_mm256_storeu_si256((__m256i *)&vout[i], r);
		/* widen to 64 bits before summing */
		sum = _mm256_add_epi64(sum, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(r)));
		sum = _mm256_add_epi64(sum, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(r, 1)));
	}
	int64_t lanes[4];
	_mm256_storeu_si256((__m256i *)lanes, sum);
	return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

static int64_t scalar_kernel(void)
{
	int64_t sum = 0;
	for (int i = 0; i < N; i += 8) {
		for (int k = 0; k < 8; k++) {
			int32_t a = va[i + k], b = vb[i + (k + 1) % 8];
			uint32_t prod = (uint32_t)a * (uint32_t)vb[i + k]; /* mullo: wraps */
			sout[i + k] = (int32_t)(prod + (uint32_t)(a >> 3) - (uint32_t)b);
			sum += sout[i + k];
		}
	}
	return sum;
}

/* ---- registers across switches ---- */
static int cpu = -1;
static volatile unsigned long b_rounds;
static volatile int b_stop;
static unsigned long b_errors;
static int b_cpu_ok;

static int pin_self(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static bool on_cpu(void)
{
	return sched_getcpu() == cpu;
}

__attribute__((target("avx2"))) static void b_round(const uint8_t in[15][32], uint8_t out[15][32])
{
	__asm__ volatile(
		"vmovdqu 0*32(%[in]), %%ymm0\n\t"
		"vmovdqu 1*32(%[in]), %%ymm1\n\t"
		"vmovdqu 2*32(%[in]), %%ymm2\n\t"
		"vmovdqu 3*32(%[in]), %%ymm3\n\t"
		"vmovdqu 4*32(%[in]), %%ymm4\n\t"
		"vmovdqu 5*32(%[in]), %%ymm5\n\t"
		"vmovdqu 6*32(%[in]), %%ymm6\n\t"
		"vmovdqu 7*32(%[in]), %%ymm7\n\t"
		"vmovdqu 8*32(%[in]), %%ymm8\n\t"
		"vmovdqu 9*32(%[in]), %%ymm9\n\t"
		"vmovdqu 10*32(%[in]), %%ymm10\n\t"
		"vmovdqu 11*32(%[in]), %%ymm11\n\t"
		"vmovdqu 12*32(%[in]), %%ymm12\n\t"
		"vmovdqu 13*32(%[in]), %%ymm13\n\t"
		"vmovdqu 14*32(%[in]), %%ymm14\n\t"
		"vpcmpeqd %%ymm15, %%ymm15, %%ymm15\n\t" /* -1 in every lane */
		"mov %[steps], %%ecx\n"
		"1:\n\t"
		"vpsubd %%ymm15, %%ymm0, %%ymm0\n\t"
		"vpsubd %%ymm15, %%ymm1, %%ymm1\n\t"
		"vpsubd %%ymm15, %%ymm2, %%ymm2\n\t"
		"vpsubd %%ymm15, %%ymm3, %%ymm3\n\t"
		"vpsubd %%ymm15, %%ymm4, %%ymm4\n\t"
		"vpsubd %%ymm15, %%ymm5, %%ymm5\n\t"
		"vpsubd %%ymm15, %%ymm6, %%ymm6\n\t"
		"vpsubd %%ymm15, %%ymm7, %%ymm7\n\t"
		"vpsubd %%ymm15, %%ymm8, %%ymm8\n\t"
		"vpsubd %%ymm15, %%ymm9, %%ymm9\n\t"
		"vpsubd %%ymm15, %%ymm10, %%ymm10\n\t"
		"vpsubd %%ymm15, %%ymm11, %%ymm11\n\t"
		"vpsubd %%ymm15, %%ymm12, %%ymm12\n\t"
		"vpsubd %%ymm15, %%ymm13, %%ymm13\n\t"
		"vpsubd %%ymm15, %%ymm14, %%ymm14\n\t"
		"dec %%ecx\n\t"
		"jnz 1b\n\t"
		"vmovdqu %%ymm0, 0*32(%[out])\n\t"
		"vmovdqu %%ymm1, 1*32(%[out])\n\t"
		"vmovdqu %%ymm2, 2*32(%[out])\n\t"
		"vmovdqu %%ymm3, 3*32(%[out])\n\t"
		"vmovdqu %%ymm4, 4*32(%[out])\n\t"
		"vmovdqu %%ymm5, 5*32(%[out])\n\t"
		"vmovdqu %%ymm6, 6*32(%[out])\n\t"
		"vmovdqu %%ymm7, 7*32(%[out])\n\t"
		"vmovdqu %%ymm8, 8*32(%[out])\n\t"
		"vmovdqu %%ymm9, 9*32(%[out])\n\t"
		"vmovdqu %%ymm10, 10*32(%[out])\n\t"
		"vmovdqu %%ymm11, 11*32(%[out])\n\t"
		"vmovdqu %%ymm12, 12*32(%[out])\n\t"
		"vmovdqu %%ymm13, 13*32(%[out])\n\t"
		"vmovdqu %%ymm14, 14*32(%[out])\n\t"
		"vzeroupper\n\t"
		:
		: [in] "r"(in), [out] "r"(out), [steps] "i"(B_STEPS)
		: "rcx", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		  "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

/* B does one round for each of A's: it waits (FUTEX_WAIT, no spinning)
 * for A to post the next round, which A does just before it loads its
 * registers and leaves the CPU. So while A sleeps the CPU idles rather
 * than spinning through B's rounds. */
static volatile int a_round;
/* Linux's uapi numbers (musl's headers have no linux/futex.h). */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128

static void futex_op(volatile int *word, int op, int val)
{
	syscall(SYS_futex, (int *)word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void *thread_b(void *arg)
{
	(void)arg;
	uint8_t in[15][32], out[15][32];
	b_cpu_ok = pin_self() == 0 && on_cpu();
	int seen = 0;
	for (unsigned long r = 0;; r++) {
		while (a_round == seen && !b_stop)
			futex_op(&a_round, FUTEX_WAIT, seen);
		if (b_stop)
			break;
		seen = a_round;
		for (int k = 0; k < 15; k++)
			for (int j = 0; j < 32; j++)
				in[k][j] = (uint8_t)(0xc3 ^ (k * 17 + j * 5 + r));
		b_round((const uint8_t(*)[32])in, out);
		/* every 32-bit lane gained B_STEPS */
		bool good = true;
		for (int k = 0; k < 15; k++) {
			for (int j = 0; j < 32; j += 4) {
				uint32_t a, b;
				memcpy(&a, &in[k][j], 4);
				memcpy(&b, &out[k][j], 4);
				good &= b == a + B_STEPS;
			}
		}
		b_errors += !good;
		b_rounds = b_rounds + 1;
	}
	return NULL;
}

/* Loads ymm0-15 from in, posts B's next round (a_round, FUTEX_WAKE), makes
 * system call nr1 (arguments: arg1, 0), then sched_yield()s until
 * *progress changes, and stores ymm0-15 to out. The round is posted only
 * once the registers are loaded, and *progress read before that: B's round
 * runs while A's registers are live. */
__attribute__((target("avx2"))) static void a_hold(const uint8_t in[16][32], uint8_t out[16][32],
						     long nr1, const void *arg1,
						     const volatile unsigned long *progress)
{
	__asm__ volatile(
		"vmovdqu 0*32(%[in]), %%ymm0\n\t"
		"vmovdqu 1*32(%[in]), %%ymm1\n\t"
		"vmovdqu 2*32(%[in]), %%ymm2\n\t"
		"vmovdqu 3*32(%[in]), %%ymm3\n\t"
		"vmovdqu 4*32(%[in]), %%ymm4\n\t"
		"vmovdqu 5*32(%[in]), %%ymm5\n\t"
		"vmovdqu 6*32(%[in]), %%ymm6\n\t"
		"vmovdqu 7*32(%[in]), %%ymm7\n\t"
		"vmovdqu 8*32(%[in]), %%ymm8\n\t"
		"vmovdqu 9*32(%[in]), %%ymm9\n\t"
		"vmovdqu 10*32(%[in]), %%ymm10\n\t"
		"vmovdqu 11*32(%[in]), %%ymm11\n\t"
		"vmovdqu 12*32(%[in]), %%ymm12\n\t"
		"vmovdqu 13*32(%[in]), %%ymm13\n\t"
		"vmovdqu 14*32(%[in]), %%ymm14\n\t"
		"vmovdqu 15*32(%[in]), %%ymm15\n\t"
		"mov (%[prog]), %%r8\n\t"
		"incl (%[round])\n\t"
		"mov %[futex], %%eax\n\t"
		"mov %[round], %%rdi\n\t"
		"mov %[wake], %%esi\n\t"
		"mov $1, %%edx\n\t"
		"syscall\n\t"
		"mov %[nr1], %%rax\n\t"
		"mov %[a1], %%rdi\n\t"
		"xor %%esi, %%esi\n"
		"1:\n\t"
		"syscall\n\t"
		"mov %[yield], %%eax\n\t"
		"cmp (%[prog]), %%r8\n\t"
		"je 1b\n\t"
		"vmovdqu %%ymm0, 0*32(%[out])\n\t"
		"vmovdqu %%ymm1, 1*32(%[out])\n\t"
		"vmovdqu %%ymm2, 2*32(%[out])\n\t"
		"vmovdqu %%ymm3, 3*32(%[out])\n\t"
		"vmovdqu %%ymm4, 4*32(%[out])\n\t"
		"vmovdqu %%ymm5, 5*32(%[out])\n\t"
		"vmovdqu %%ymm6, 6*32(%[out])\n\t"
		"vmovdqu %%ymm7, 7*32(%[out])\n\t"
		"vmovdqu %%ymm8, 8*32(%[out])\n\t"
		"vmovdqu %%ymm9, 9*32(%[out])\n\t"
		"vmovdqu %%ymm10, 10*32(%[out])\n\t"
		"vmovdqu %%ymm11, 11*32(%[out])\n\t"
		"vmovdqu %%ymm12, 12*32(%[out])\n\t"
		"vmovdqu %%ymm13, 13*32(%[out])\n\t"
		"vmovdqu %%ymm14, 14*32(%[out])\n\t"
		"vmovdqu %%ymm15, 15*32(%[out])\n\t"
		"vzeroupper\n\t"
		:
		: [in] "r"(in), [out] "r"(out), [prog] "r"(progress), [round] "r"(&a_round),
		  [nr1] "r"(nr1), [a1] "r"(arg1), [yield] "i"(SYS_sched_yield), [futex] "i"(SYS_futex),
		  [wake] "i"(FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
		: "rax", "rdi", "rsi", "rdx", "rcx", "r11", "r8", "memory", "cc", "xmm0", "xmm1", "xmm2",
		  "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
		  "xmm14", "xmm15");
}

static void registers_across_switches(long rounds)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (!CHECK(sched_getaffinity(0, sizeof(set), &set) == 0))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &set)) {
			cpu = c;
			break;
		}
	}
	note("both threads pinned to CPU %d (%d CPUs allowed)", cpu, CPU_COUNT(&set));
	CHECK(pin_self() == 0);
	CHECKF(on_cpu(), "main thread runs on CPU %d after sched_setaffinity (sched_getcpu %d)", cpu,
	       sched_getcpu());

	pthread_t b;
	if (!CHECK(pthread_create(&b, NULL, thread_b, NULL) == 0))
		return;
	uint8_t in[16][32], out[16][32];
	long bad_lower = 0, bad_upper = 0, done = 0;
	struct timespec ts = { 0, 50000 };
	for (long r = 0; r < 2 * rounds; r++) {
		for (int k = 0; k < 16; k++)
			for (int j = 0; j < 32; j++)
				in[k][j] = (uint8_t)(0x5a ^ (k * 32 + j + 3 * r));
		memset(out, 0, sizeof(out));
		bool nap = r < rounds;
		a_hold((const uint8_t(*)[32])in, out, nap ? SYS_nanosleep : SYS_sched_yield,
		       nap ? (const void *)&ts : NULL, &b_rounds);
		for (int k = 0; k < 16; k++) {
			bad_lower += memcmp(in[k], out[k], 16) != 0;
			bad_upper += memcmp(in[k] + 16, out[k] + 16, 16) != 0;
		}
		done++;
	}
	b_stop = 1;
	futex_op(&a_round, FUTEX_WAKE, 1);
	pthread_join(b, NULL);
	CHECKF(b_cpu_ok, "thread B pinned to CPU %d too", cpu);
	CHECKF(on_cpu(), "main thread still on CPU %d", cpu);
	CHECKF(bad_lower == 0 && bad_upper == 0,
	       "ymm0-15 kept across %ld nanosleeps and %ld sched_yields, each while B ran AVX2 code on the "
	       "same CPU (registers changed: %ld lower halves, %ld upper halves)",
	       rounds, rounds, bad_lower, bad_upper);
	CHECKF(b_errors == 0 && b_rounds >= (unsigned long)done,
	       "thread B: %lu rounds of AVX2 work interleaved with A, all results right (%lu wrong)",
	       (unsigned long)b_rounds, b_errors);
}

int main(int argc, char **argv)
{
	test_begin("avx2");
	long rounds = arg_long(argc, argv, "--rounds", 100);
	unsigned eax, ebx, ecx, edx;

	__cpuid(0, eax, ebx, ecx, edx);
	unsigned max_leaf = eax;
	__cpuid(1, eax, ebx, ecx, edx);
	bool osxsave = ecx & (1u << 27), avx = ecx & (1u << 28);
	bool avx2 = false;
	if (max_leaf >= 7) {
		__cpuid_count(7, 0, eax, ebx, ecx, edx);
		avx2 = ebx & (1u << 5);
	}
	note("CPUID: AVX %d, AVX2 %d, OSXSAVE %d", avx, avx2, osxsave);
	if (!avx2 || !avx)
		test_skip("the CPU has no AVX2 (CPUID.7.0:EBX bit 5%s)", avx ? "" : ", nor AVX");
	if (!CHECKF(osxsave, "CPUID.1:ECX.OSXSAVE set: the kernel enabled XSAVE (CR4.OSXSAVE)"))
		return test_end(); /* xgetbv would be #UD */
	uint64_t xcr0 = xgetbv0();
	note("XCR0 = %#llx", (unsigned long long)xcr0);
	if (!CHECKF((xcr0 & 6) == 6, "XCR0 enables SSE and YMM state (bits 1-2)"))
		return test_end();

	for (int i = 0; i < N; i++) {
		va[i] = (int32_t)(i * 2654435761u) ^ (i << 7);
		vb[i] = (int32_t)(i * 40503u) - 77777 * (i & 3);
	}
	int64_t vs = avx2_kernel(), ss = scalar_kernel();
	CHECKF(vs == ss && memcmp(vout, sout, sizeof(vout)) == 0,
	       "AVX2 mullo/srai/permutevar8x32/cvtepi32_epi64 over %d ints equals scalar code (sum %lld vs %lld)",
	       N, (long long)vs, (long long)ss);

	registers_across_switches(rounds);
	return test_end();
}
