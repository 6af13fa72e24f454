/* AVX2 in user mode, and the kernel keeping a task's vector registers: all
 * sixteen ymm registers (both 128-bit halves) hold a pattern of this
 * process's own while it yields the CPU many times; afterwards they still
 * hold it. Run alone it checks the state survives system calls and
 * switches to kernel threads; tests/cpu_test.c runs two copies at once on
 * one CPU (argument "pair": more yields), so each switch goes from one
 * copy's registers to the other's. Also: a new program starts with the
 * default MXCSR (0x1f80) and x87 control word (0x37f), and AVX2 integer
 * instructions give their results. Skipped (exit 77) where CPUID or XCR0
 * says AVX2 is not usable. */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static bool avx2_usable(void)
{
	unsigned r[4];
	cpuid(0, 0, r);
	unsigned max = r[0];
	cpuid(1, 0, r);
	if (!(r[2] >> 27 & 1) || !(r[2] >> 28 & 1)) { /* OSXSAVE, AVX */
		note("CPUID.1:ECX: OSXSAVE %u AVX %u", r[2] >> 27 & 1, r[2] >> 28 & 1);
		return false;
	}
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	note("XCR0 %#x", lo);
	if ((lo & 6) != 6)
		return false;
	if (max < 7)
		return false;
	cpuid(7, 0, r);
	return r[1] >> 5 & 1;
}

static uint64_t in[16][4], out[16][4];

/* Loads ymm0-15, yields n times (raw system calls only: no compiled code
 * runs that could use the registers), stores ymm0-15. */
static void hold_across_yields(long n)
{
	__asm__ volatile(
		"vmovdqu 0x000(%[in]), %%ymm0\n\t"
		"vmovdqu 0x020(%[in]), %%ymm1\n\t"
		"vmovdqu 0x040(%[in]), %%ymm2\n\t"
		"vmovdqu 0x060(%[in]), %%ymm3\n\t"
		"vmovdqu 0x080(%[in]), %%ymm4\n\t"
		"vmovdqu 0x0a0(%[in]), %%ymm5\n\t"
		"vmovdqu 0x0c0(%[in]), %%ymm6\n\t"
		"vmovdqu 0x0e0(%[in]), %%ymm7\n\t"
		"vmovdqu 0x100(%[in]), %%ymm8\n\t"
		"vmovdqu 0x120(%[in]), %%ymm9\n\t"
		"vmovdqu 0x140(%[in]), %%ymm10\n\t"
		"vmovdqu 0x160(%[in]), %%ymm11\n\t"
		"vmovdqu 0x180(%[in]), %%ymm12\n\t"
		"vmovdqu 0x1a0(%[in]), %%ymm13\n\t"
		"vmovdqu 0x1c0(%[in]), %%ymm14\n\t"
		"vmovdqu 0x1e0(%[in]), %%ymm15\n\t"
		"mov %[n], %%r12\n\t"
		"1:\n\t"
		"mov $24, %%eax\n\t" /* sched_yield */
		"syscall\n\t"
		"dec %%r12\n\t"
		"jnz 1b\n\t"
		"vmovdqu %%ymm0, 0x000(%[out])\n\t"
		"vmovdqu %%ymm1, 0x020(%[out])\n\t"
		"vmovdqu %%ymm2, 0x040(%[out])\n\t"
		"vmovdqu %%ymm3, 0x060(%[out])\n\t"
		"vmovdqu %%ymm4, 0x080(%[out])\n\t"
		"vmovdqu %%ymm5, 0x0a0(%[out])\n\t"
		"vmovdqu %%ymm6, 0x0c0(%[out])\n\t"
		"vmovdqu %%ymm7, 0x0e0(%[out])\n\t"
		"vmovdqu %%ymm8, 0x100(%[out])\n\t"
		"vmovdqu %%ymm9, 0x120(%[out])\n\t"
		"vmovdqu %%ymm10, 0x140(%[out])\n\t"
		"vmovdqu %%ymm11, 0x160(%[out])\n\t"
		"vmovdqu %%ymm12, 0x180(%[out])\n\t"
		"vmovdqu %%ymm13, 0x1a0(%[out])\n\t"
		"vmovdqu %%ymm14, 0x1c0(%[out])\n\t"
		"vmovdqu %%ymm15, 0x1e0(%[out])\n\t"
		"vzeroupper\n\t"
		:
		: [in] "r"(in), [out] "r"(out), [n] "r"(n)
		: "rax", "rcx", "r11", "r12", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
		  "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

static void fresh_state(void)
{
	unsigned int mxcsr = 0;
	unsigned short fcw = 0;
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	CHECK_CMP(mxcsr, ==, 0x1f80);
	CHECK_CMP(fcw, ==, 0x37f);
}

static void avx2_arithmetic(void)
{
	/* vpaddd on 8 lanes, and vpermq moving the high half down. */
	static uint32_t a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
	static uint32_t sum[8];
	static uint64_t q[4] = { 1, 2, 3, 4 }, perm[4];
	__asm__ volatile("vmovdqu %[a], %%ymm0\n\t"
			 "vpaddd %[b], %%ymm0, %%ymm0\n\t"
			 "vmovdqu %%ymm0, %[s]\n\t"
			 "vpermq $0x1b, %[q], %%ymm1\n\t" /* reverse the four quadwords */
			 "vmovdqu %%ymm1, %[p]\n\t"
			 "vzeroupper"
			 : [s] "=m"(sum), [p] "=m"(perm)
			 : [a] "m"(a), [b] "m"(b), [q] "m"(q)
			 : "xmm0", "xmm1");
	bool ok = true;
	for (int i = 0; i < 8; i++)
		ok &= sum[i] == a[i] + b[i];
	CHECKF(ok, "vpaddd adds eight lanes");
	CHECKF(perm[0] == 4 && perm[1] == 3 && perm[2] == 2 && perm[3] == 1, "vpermq reverses: %llu %llu %llu %llu",
	       (unsigned long long)perm[0], (unsigned long long)perm[1], (unsigned long long)perm[2],
	       (unsigned long long)perm[3]);
}

int main(int argc, char **argv)
{
	test_begin("avx_state");
	fresh_state();
	if (!avx2_usable())
		test_skip("AVX2 is not usable here (CPUID/XCR0)");
	avx2_arithmetic();
	bool pair = argc > 1 && !strcmp(argv[1], "pair");
	uint64_t seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
	for (int r = 0; r < 16; r++)
		for (int l = 0; l < 4; l++)
			in[r][l] = seed ^ ((uint64_t)r << 56) ^ ((uint64_t)l << 48) ^ 0x0101010101010101ULL * (uint64_t)(r * 4 + l + 1);
	long n = pair ? 3000 : 300;
	hold_across_yields(n);
	int bad = 0;
	for (int r = 0; r < 16; r++)
		for (int l = 0; l < 4; l++)
			if (out[r][l] != in[r][l]) {
				if (bad++ < 4)
					note("ymm%d lane %d: %#llx, expected %#llx", r, l, (unsigned long long)out[r][l],
					     (unsigned long long)in[r][l]);
			}
	CHECKF(!bad, "ymm0-15 (both halves) kept across %ld yields (%d lanes wrong)", n, bad);
	return test_end();
}
