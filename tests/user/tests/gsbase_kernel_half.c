/* A user GS base in the kernel half, set with wrgsbase (allowed where the
 * kernel enabled FSGSBASE: AT_HWCAP2 bit 1), must be the program's own
 * business: system calls, yields (context switches), page faults and
 * whatever interrupts land while it spins all leave it as written, and the
 * kernel keeps running on its own per-CPU base (arch/x86_64/entry.asm: the
 * syscall entry swaps GS, the paranoid NMI/#DF/#MC entry no longer goes by
 * the sign of the base). The kernel-side half, NMIs taken while a program
 * spins with such a base, is tests/entry_test.c with tests/user/aux/gs_spin.
 * Same on Linux. Skips (77) where FSGSBASE is off. */
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "../common/check.h"

#define HWCAP2_FSGSBASE 2
#define ARCH_GET_GS 0x1004

static long raw2(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return ret;
}

static inline unsigned long rdgsbase(void)
{
	unsigned long v;
	__asm__ volatile("rdgsbase %0" : "=r"(v));
	return v;
}

static inline void wrgsbase(unsigned long v) { __asm__ volatile("wrgsbase %0" ::"r"(v) : "memory"); }

/* What one value went through, read back with rdgsbase after each step. */
struct seen {
	unsigned long after_getpid, after_yield, via_prctl, after_fault, after_spin;
	long prctl_ret;
	int fault_ok;
};

static void with_gs_base(unsigned long v, volatile char *fresh, struct seen *s)
{
	unsigned long old = rdgsbase(), got = 0;
	wrgsbase(v); /* nothing in here uses GS (musl's TLS is FS) */
	for (int i = 0; i < 50; i++)
		raw2(SYS_getpid, 0, 0);
	s->after_getpid = rdgsbase();
	for (int i = 0; i < 20; i++)
		raw2(SYS_sched_yield, 0, 0);
	s->after_yield = rdgsbase();
	s->prctl_ret = raw2(SYS_arch_prctl, ARCH_GET_GS, (long)&got);
	s->via_prctl = got;
	/* A page fault on a page never touched. */
	fresh[0] = 42;
	s->fault_ok = fresh[0] == 42;
	s->after_fault = rdgsbase();
	/* Interrupts (the tick, IPIs) land wherever they land in here: the
	 * base must come back from every one of them. */
	for (volatile unsigned long i = 0; i < 2000000; i++)
		;
	s->after_spin = rdgsbase();
	wrgsbase(old);
}

int main(void)
{
	test_begin("gsbase_kernel_half");
	if (!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE))
		test_skip("FSGSBASE not enabled by the kernel (AT_HWCAP2): wrgsbase is #UD here");
	static const unsigned long values[] = {
		0xffff800000000000UL, /* the bottom of the kernel half */
		0xffffffff80000000UL, /* where kernels put their image */
		0xfffffffffffff000UL, /* the top page */
		0xffff888000000003UL, /* unaligned, in a direct map's range */
		0x00007ffffffff001UL, /* the top of the user half, unaligned */
		1,
	};
	unsigned n = sizeof(values) / sizeof(values[0]);
	char *pages = mmap(NULL, n * PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	CHECK(pages != MAP_FAILED);
	if (pages == MAP_FAILED)
		return test_end();
	for (unsigned i = 0; i < n; i++) {
		struct seen s = { 0 };
		unsigned long v = values[i];
		with_gs_base(v, pages + i * PAGE_4K, &s);
		note("GS base %#lx", v);
		CHECKF(s.after_getpid == v, "after 50 getpid: %#lx", s.after_getpid);
		CHECKF(s.after_yield == v, "after 20 sched_yield: %#lx", s.after_yield);
		CHECKF(s.prctl_ret == 0 && s.via_prctl == v, "ARCH_GET_GS: %ld, %#lx", s.prctl_ret,
		       s.via_prctl);
		CHECK(s.fault_ok);
		CHECKF(s.after_fault == v, "after a page fault: %#lx", s.after_fault);
		CHECKF(s.after_spin == v, "after spinning: %#lx", s.after_spin);
	}
	CHECK(munmap(pages, n * PAGE_4K) == 0);
	return test_end();
}
