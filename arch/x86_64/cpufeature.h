/* CPU feature detection: CPUID bits gathered once at boot into a table, in
 * the X86_FEATURE_* style of Linux, so code asks boot_cpu_has(X86_FEATURE_NX)
 * instead of decoding CPUID itself. */
#ifndef ARCH_X86_64_CPUFEATURE_H
#define ARCH_X86_64_CPUFEATURE_H

#include "kernel/types.h"

enum x86_feature {
	X86_FEATURE_FPU,
	X86_FEATURE_TSC,
	X86_FEATURE_PAE,
	X86_FEATURE_APIC,
	X86_FEATURE_PGE,
	X86_FEATURE_PAT,
	X86_FEATURE_CLFLUSH,
	X86_FEATURE_SSE2,
	X86_FEATURE_PCID,
	X86_FEATURE_X2APIC,
	X86_FEATURE_TSC_DEADLINE,
	X86_FEATURE_XSAVE,
	X86_FEATURE_AVX,
	X86_FEATURE_HYPERVISOR,
	X86_FEATURE_FSGSBASE,
	X86_FEATURE_SMEP,
	X86_FEATURE_ERMS,
	X86_FEATURE_INVPCID,
	X86_FEATURE_SMAP,
	X86_FEATURE_CLFLUSHOPT,
	X86_FEATURE_LA57,
	X86_FEATURE_FSRM,
	X86_FEATURE_NX,
	X86_FEATURE_PDPE1GB,
	X86_FEATURE_RDTSCP,
	X86_FEATURE_LM,
	X86_FEATURE_CONSTANT_TSC,
	X86_FEATURE_CLZERO,
	X86_FEATURE_AVX2,
	X86_FEATURE_AVX512F,
	X86_FEATURE_RDRAND,
	X86_FEATURE_RDSEED,
	/* Synthetic: no CPUID bit, set from a quirk table (Ankur Arora's
	 * "x86/cpuid: add X86_FEATURE_MOVNT_SLOW"): MOVNTI loses to cached
	 * stores on this CPU even above the cache size. */
	X86_FEATURE_MOVNT_SLOW,
	NR_X86_FEATURES
};

struct cpuinfo_x86 {
	char vendor[13];
	char model_name[49];
	u32 family, model, stepping;
	u32 max_leaf, max_ext_leaf;
	u32 initial_apic_id;
	u32 phys_bits, virt_bits;
	u32 cache_line_size;
	u64 features; /* bit n = enum x86_feature n */
};

extern struct cpuinfo_x86 boot_cpu_data;

void cpu_detect(struct cpuinfo_x86 *c);
static inline bool boot_cpu_has(enum x86_feature f) { return boot_cpu_data.features >> f & 1; }
const char *x86_feature_name(enum x86_feature f);
/* Switches on what the kernel relies on: EFER.NXE where the CPU has NX
 * (the kernel page tables set NX bits) and CR0.WP (read-only kernel pages
 * stay read-only for the kernel too). */
void cpu_init_features(void);
void print_cpu_info(const struct cpuinfo_x86 *c);

#endif
