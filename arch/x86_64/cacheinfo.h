/* The CPU facts the page clearing policy needs, from CPUID through a
 * function pointer (arch/x86_64/cacheinfo.c says why, and which leaf). */
#ifndef ARCH_X86_64_CACHEINFO_H
#define ARCH_X86_64_CACHEINFO_H

#include "kernel/types.h"
#include "mm/clear_page.h"

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};
typedef void (*cpuid_fn)(u32 leaf, u32 subleaf, struct cpuid_regs *r);

enum x86_vendor { X86_VENDOR_INTEL, X86_VENDOR_AMD, X86_VENDOR_OTHER };

/* The largest one cache CPUID may describe before it is not believed. */
#define X86_LLC_MAX_AMD (128ull << 20)
#define X86_LLC_MAX_OTHER (512ull << 20)

/* X86_FEATURE_MOVNT_SLOW's quirk table. */
bool x86_movnt_slow(enum x86_vendor vendor, unsigned family, unsigned model);
void clear_page_cpu_from_cpuid(cpuid_fn cpuid, struct clear_page_cpu *out);

#endif
