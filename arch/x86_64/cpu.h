/* Thin wrappers around x86 instructions: port I/O, MSRs, control registers,
 * CPUID. The only header outside arch/ that may use inline assembly through. */
#ifndef ARCH_X86_64_CPU_H
#define ARCH_X86_64_CPU_H

#include "kernel/types.h"

static inline void outb(u16 port, u8 v) { __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port)); }
static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u16 inw(u16 port)
{
	u16 v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline u32 inl(u16 port)
{
	u32 v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}
static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

#define MSR_EFER 0xc0000080
#define EFER_SCE (1ull << 0)
#define EFER_LME (1ull << 8)
#define EFER_NXE (1ull << 11)

#define X86_CR0_WP (1ul << 16)
#define X86_CR4_PGE (1ul << 7)
#define X86_CR4_OSFXSR (1ul << 9)
#define X86_CR4_OSXMMEXCPT (1ul << 10)
#define X86_CR4_SMEP (1ul << 20)
#define X86_CR4_SMAP (1ul << 21)

#define DEFINE_CR(n)                                                          \
	static inline u64 read_cr##n(void)                                    \
	{                                                                     \
		u64 v;                                                        \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));             \
		return v;                                                     \
	}                                                                     \
	static inline void write_cr##n(u64 v) { __asm__ volatile("mov %0, %%cr" #n ::"r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void cpuid_count(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}
static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d) { cpuid_count(leaf, 0, a, b, c, d); }

static inline u64 read_rflags(void)
{
	u64 f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void local_irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void halt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}
static inline void invlpg(unsigned long addr) { __asm__ volatile("invlpg (%0)" ::"r"(addr) : "memory"); }

#endif
