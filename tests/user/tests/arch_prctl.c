/* arch_prctl(2): the FS and GS bases round-trip (SET then GET, and a
 * %fs-/%gs-relative load sees the new base), they survive a sched_yield,
 * Linux's errors (EPERM for a base at or above TASK_SIZE_MAX, EINVAL for an
 * unknown option, EFAULT for a GET to a bad pointer), and, where the kernel
 * enabled FSGSBASE (AT_HWCAP2 bit 1), rdfsbase/wrfsbase in user mode with
 * arch_prctl's GET seeing a base set by wrfsbase.
 *
 * The C library may keep its thread pointer in FS (glibc and musl do): while
 * FS is changed only raw system calls run, and FS is put back before any
 * library call. */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_arch_prctl
#define SYS_arch_prctl 158
#endif
#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004
#define AT_HWCAP2 26
#define HWCAP2_FSGSBASE 2
#define TASK_SIZE_MAX 0x00007ffffffff000UL

static long raw2(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return ret;
}

static unsigned long auxv_get(char **envp, unsigned long type)
{
	while (*envp)
		envp++;
	for (unsigned long *a = (unsigned long *)(envp + 1); a[0]; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}

static uint64_t fs_words[2] = { 0x1122334455667788ULL, 0x99aabbccddeeff00ULL };
static uint64_t gs_words[2] = { 0x0badc0dedeadbeefULL, 0x5555aaaa5555aaaaULL };

static void fs_round_trip(void)
{
	unsigned long old = 0, got = 0, got_after_yield = 0;
	uint64_t w0, w1, w_after_yield;
	long r_get_old = raw2(SYS_arch_prctl, ARCH_GET_FS, (long)&old);
	long r_set = raw2(SYS_arch_prctl, ARCH_SET_FS, (long)fs_words);
	long r_get = raw2(SYS_arch_prctl, ARCH_GET_FS, (long)&got);
	__asm__ volatile("movq %%fs:0, %0" : "=r"(w0));
	__asm__ volatile("movq %%fs:8, %0" : "=r"(w1));
	for (int i = 0; i < 20; i++)
		raw2(SYS_sched_yield, 0, 0);
	raw2(SYS_arch_prctl, ARCH_GET_FS, (long)&got_after_yield);
	__asm__ volatile("movq %%fs:8, %0" : "=r"(w_after_yield));
	long r_restore = raw2(SYS_arch_prctl, ARCH_SET_FS, (long)old);
	/* The library's FS is back: checks may run. */
	CHECK_CMP(r_get_old, ==, 0);
	CHECK_CMP(r_set, ==, 0);
	CHECK_CMP(r_get, ==, 0);
	CHECK(got == (unsigned long)fs_words);
	CHECK(w0 == fs_words[0]);
	CHECK(w1 == fs_words[1]);
	CHECK(got_after_yield == (unsigned long)fs_words);
	CHECK(w_after_yield == fs_words[1]);
	CHECK_CMP(r_restore, ==, 0);
	note("FS base was %#lx; set to %p and back", old, (void *)fs_words);
}

static void gs_round_trip(void)
{
	unsigned long old = 0, got = 0;
	uint64_t w0, w1;
	long r_get_old = raw2(SYS_arch_prctl, ARCH_GET_GS, (long)&old);
	long r_set = raw2(SYS_arch_prctl, ARCH_SET_GS, (long)gs_words);
	long r_get = raw2(SYS_arch_prctl, ARCH_GET_GS, (long)&got);
	__asm__ volatile("movq %%gs:0, %0" : "=r"(w0));
	for (int i = 0; i < 20; i++)
		raw2(SYS_sched_yield, 0, 0);
	__asm__ volatile("movq %%gs:8, %0" : "=r"(w1));
	long r_restore = raw2(SYS_arch_prctl, ARCH_SET_GS, (long)old);
	CHECK_CMP(r_get_old, ==, 0);
	CHECK_CMP(r_set, ==, 0);
	CHECK_CMP(r_get, ==, 0);
	CHECK(got == (unsigned long)gs_words);
	CHECK(w0 == gs_words[0]);
	CHECK(w1 == gs_words[1]);
	CHECK_CMP(r_restore, ==, 0);
}

static void errors(void)
{
	unsigned long v;
	/* TASK_SIZE_MAX is 2^47 - 4096 with 4-level paging (mmlab, most
	 * hosts). Linux with 5-level paging (QEMU's -cpu max has LA57, and
	 * Debian's 6.1 uses it) takes bases up to 2^56 - 4096: the border is
	 * the one of the width user_va_bits() finds (a base below it would be
	 * accepted, and the C library's FS lost). The kernel half is refused
	 * by both. */
	unsigned long border = user_va_bits() == 56 ? (1UL << 56) - 4096 : TASK_SIZE_MAX;
	note("%d-bit user addresses: bases from %#lx refused", user_va_bits(), border);
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_FS, border), EPERM);
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_GS, border), EPERM);
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_GS, 0xffff800000000000UL), EPERM);
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_FS, 0xffff800000000000UL), EPERM);
	CHECK_ERRNO(syscall(SYS_arch_prctl, 0x1234, 0), EINVAL);
	/* do_arch_prctl_common's: CPUID is enabled (1) on both kernels; the
	 * xstate features offered include x87 and SSE. */
	CHECK_CMP(syscall(SYS_arch_prctl, 0x1011 /* ARCH_GET_CPUID */, 0), ==, 1);
	unsigned long supp = 0;
	CHECK(syscall(SYS_arch_prctl, 0x1021 /* ARCH_GET_XCOMP_SUPP */, &supp) == 0 && (supp & 3) == 3);
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_GET_FS, 8UL), EFAULT);
	CHECK_ERRNO(syscall(SYS_arch_prctl, ARCH_GET_GS, TASK_SIZE_MAX), EFAULT);
	/* The refused SETs changed nothing. */
	CHECK(syscall(SYS_arch_prctl, ARCH_GET_FS, &v) == 0 && v < TASK_SIZE_MAX);
}

static void fsgsbase(char **envp)
{
	unsigned long hwcap2 = auxv_get(envp, AT_HWCAP2);
	unsigned int a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
	note("AT_HWCAP2 %#lx, CPUID.7.EBX.FSGSBASE %u", hwcap2, b & 1);
	if (!(hwcap2 & HWCAP2_FSGSBASE)) {
		note("FSGSBASE not enabled by the kernel: rdfsbase would be #UD, not tried");
		return;
	}
	CHECK(b & 1); /* enabled only where the CPU has it */
	unsigned long old, read_back, via_prctl = 0, after_yield, gs_old, gs_read, gs_prctl = 0;
	uint64_t w;
	__asm__ volatile("rdfsbase %0" : "=r"(old));
	__asm__ volatile("wrfsbase %0" ::"r"((unsigned long)fs_words));
	__asm__ volatile("rdfsbase %0" : "=r"(read_back));
	raw2(SYS_arch_prctl, ARCH_GET_FS, (long)&via_prctl);
	for (int i = 0; i < 20; i++)
		raw2(SYS_sched_yield, 0, 0);
	__asm__ volatile("rdfsbase %0" : "=r"(after_yield));
	__asm__ volatile("movq %%fs:8, %0" : "=r"(w));
	__asm__ volatile("wrfsbase %0" ::"r"(old));
	__asm__ volatile("rdgsbase %0" : "=r"(gs_old));
	__asm__ volatile("wrgsbase %0" ::"r"((unsigned long)gs_words));
	raw2(SYS_sched_yield, 0, 0);
	__asm__ volatile("rdgsbase %0" : "=r"(gs_read));
	raw2(SYS_arch_prctl, ARCH_GET_GS, (long)&gs_prctl);
	__asm__ volatile("wrgsbase %0" ::"r"(gs_old));
	CHECK(read_back == (unsigned long)fs_words);
	CHECKF(via_prctl == (unsigned long)fs_words, "ARCH_GET_FS sees wrfsbase's %p: %#lx",
	       (void *)fs_words, via_prctl);
	CHECKF(after_yield == (unsigned long)fs_words, "the wrfsbase base survives yields: %#lx",
	       after_yield);
	CHECK(w == fs_words[1]);
	CHECK(gs_read == (unsigned long)gs_words);
	CHECK(gs_prctl == (unsigned long)gs_words);
}

int main(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	test_begin("arch_prctl");
	fs_round_trip();
	gs_round_trip();
	errors();
	fsgsbase(envp);
	return test_end();
}
