/* CPUID decoding into struct cpuinfo_x86. Each feature is one (leaf, subleaf,
 * register, bit) row, so adding one is a line in the table. */
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cacheinfo.h"
#include "kernel/printk.h"
#include "lib/string.h"

struct cpuinfo_x86 boot_cpu_data;

enum { EAX, EBX, ECX, EDX };
/* A leaf no CPU has, for the features set by code, not by a bit. */
#define SYNTHETIC_LEAF 0xffffffffu

static const struct {
	u32 leaf, subleaf;
	u8 reg, bit;
	const char *name;
} feature_bits[NR_X86_FEATURES] = {
	[X86_FEATURE_FPU] = { 1, 0, EDX, 0, "fpu" },
	[X86_FEATURE_TSC] = { 1, 0, EDX, 4, "tsc" },
	[X86_FEATURE_PAE] = { 1, 0, EDX, 6, "pae" },
	[X86_FEATURE_APIC] = { 1, 0, EDX, 9, "apic" },
	[X86_FEATURE_PGE] = { 1, 0, EDX, 13, "pge" },
	[X86_FEATURE_PAT] = { 1, 0, EDX, 16, "pat" },
	[X86_FEATURE_CLFLUSH] = { 1, 0, EDX, 19, "clflush" },
	[X86_FEATURE_SSE2] = { 1, 0, EDX, 26, "sse2" },
	[X86_FEATURE_PCID] = { 1, 0, ECX, 17, "pcid" },
	[X86_FEATURE_X2APIC] = { 1, 0, ECX, 21, "x2apic" },
	[X86_FEATURE_TSC_DEADLINE] = { 1, 0, ECX, 24, "tsc_deadline_timer" },
	[X86_FEATURE_XSAVE] = { 1, 0, ECX, 26, "xsave" },
	[X86_FEATURE_AVX] = { 1, 0, ECX, 28, "avx" },
	[X86_FEATURE_HYPERVISOR] = { 1, 0, ECX, 31, "hypervisor" },
	[X86_FEATURE_FSGSBASE] = { 7, 0, EBX, 0, "fsgsbase" },
	[X86_FEATURE_SMEP] = { 7, 0, EBX, 7, "smep" },
	[X86_FEATURE_ERMS] = { 7, 0, EBX, 9, "erms" },
	[X86_FEATURE_INVPCID] = { 7, 0, EBX, 10, "invpcid" },
	[X86_FEATURE_SMAP] = { 7, 0, EBX, 20, "smap" },
	[X86_FEATURE_CLFLUSHOPT] = { 7, 0, EBX, 23, "clflushopt" },
	[X86_FEATURE_LA57] = { 7, 0, ECX, 16, "la57" },
	[X86_FEATURE_FSRM] = { 7, 0, EDX, 4, "fsrm" },
	[X86_FEATURE_NX] = { 0x80000001, 0, EDX, 20, "nx" },
	[X86_FEATURE_PDPE1GB] = { 0x80000001, 0, EDX, 26, "pdpe1gb" },
	[X86_FEATURE_RDTSCP] = { 0x80000001, 0, EDX, 27, "rdtscp" },
	[X86_FEATURE_LM] = { 0x80000001, 0, EDX, 29, "lm" },
	[X86_FEATURE_CONSTANT_TSC] = { 0x80000007, 0, EDX, 8, "constant_tsc" },
	[X86_FEATURE_CLZERO] = { 0x80000008, 0, EBX, 0, "clzero" },
	[X86_FEATURE_AVX2] = { 7, 0, EBX, 5, "avx2" },
	[X86_FEATURE_AVX512F] = { 7, 0, EBX, 16, "avx512f" },
	[X86_FEATURE_RDRAND] = { 1, 0, ECX, 30, "rdrand" },
	[X86_FEATURE_RDSEED] = { 7, 0, EBX, 18, "rdseed" },
	/* No leaf: cpu_detect sets it from x86_movnt_slow()'s table. */
	[X86_FEATURE_MOVNT_SLOW] = { SYNTHETIC_LEAF, 0, EAX, 0, "movnt_slow" },
};

const char *x86_feature_name(enum x86_feature f)
{
	return f < NR_X86_FEATURES ? feature_bits[f].name : "?";
}

static bool leaf_exists(const struct cpuinfo_x86 *c, u32 leaf)
{
	if (leaf == SYNTHETIC_LEAF)
		return false;
	if (leaf >= 0x80000000)
		return c->max_ext_leaf >= leaf;
	return c->max_leaf >= leaf;
}

void cpu_detect(struct cpuinfo_x86 *c)
{
	u32 r[4];

	memset(c, 0, sizeof(*c));
	cpuid(0, &r[EAX], &r[EBX], &r[ECX], &r[EDX]);
	c->max_leaf = r[EAX];
	memcpy(c->vendor + 0, &r[EBX], 4);
	memcpy(c->vendor + 4, &r[EDX], 4);
	memcpy(c->vendor + 8, &r[ECX], 4);
	cpuid(0x80000000, &r[EAX], &r[EBX], &r[ECX], &r[EDX]);
	c->max_ext_leaf = r[EAX] >= 0x80000000 ? r[EAX] : 0;

	cpuid(1, &r[EAX], &r[EBX], &r[ECX], &r[EDX]);
	c->family = (r[EAX] >> 8) & 0xf;
	c->model = (r[EAX] >> 4) & 0xf;
	c->stepping = r[EAX] & 0xf;
	if (c->family == 0xf)
		c->family += (r[EAX] >> 20) & 0xff;
	if (c->family >= 6)
		c->model += ((r[EAX] >> 16) & 0xf) << 4;
	c->initial_apic_id = r[EBX] >> 24;
	c->cache_line_size = ((r[EBX] >> 8) & 0xff) * 8;
	/* Leaf 1 has 8 bits for it; the x2APIC id (leaf 0xb's EDX, when the
	 * leaf exists: EBX non-zero) is whole, and is what the AP trampoline
	 * compares, so the boot CPU is found by the same id (as Linux's
	 * detect_extended_topology sets initial_apicid). */
	if (c->max_leaf >= 0xb) {
		cpuid_count(0xb, 0, &r[EAX], &r[EBX], &r[ECX], &r[EDX]);
		if (r[EBX])
			c->initial_apic_id = r[EDX];
	}

	for (unsigned f = 0; f < NR_X86_FEATURES; f++) {
		if (!leaf_exists(c, feature_bits[f].leaf))
			continue;
		cpuid_count(feature_bits[f].leaf, feature_bits[f].subleaf, &r[EAX], &r[EBX], &r[ECX],
			    &r[EDX]);
		if (r[feature_bits[f].reg] >> feature_bits[f].bit & 1)
			c->features |= 1ull << f;
	}

	enum x86_vendor vendor = !strcmp(c->vendor, "GenuineIntel") ? X86_VENDOR_INTEL
				 : !strcmp(c->vendor, "AuthenticAMD") || !strcmp(c->vendor, "HygonGenuine")
					 ? X86_VENDOR_AMD
					 : X86_VENDOR_OTHER;
	if (x86_movnt_slow(vendor, c->family, c->model))
		c->features |= 1ull << X86_FEATURE_MOVNT_SLOW;

	if (leaf_exists(c, 0x80000004)) {
		for (u32 i = 0; i < 3; i++) {
			cpuid(0x80000002 + i, &r[EAX], &r[EBX], &r[ECX], &r[EDX]);
			memcpy(c->model_name + 16 * i, r, 16);
		}
	}
	if (leaf_exists(c, 0x80000008)) {
		cpuid(0x80000008, &r[EAX], &r[EBX], &r[ECX], &r[EDX]);
		c->phys_bits = r[EAX] & 0xff;
		c->virt_bits = (r[EAX] >> 8) & 0xff;
	} else {
		c->phys_bits = 36;
		c->virt_bits = 48;
	}
}

void cpu_init_features(void)
{
	/* NX was switched on in EFER by the boot code when present; make sure,
	 * since boot_paging sets NX bits that would fault without it. */
	if (boot_cpu_has(X86_FEATURE_NX))
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | X86_CR0_WP);
	user_mode_cpu_init();
}

void print_cpu_info(const struct cpuinfo_x86 *c)
{
	char line[512];
	size_t len = 0;
	const char *name = c->model_name;

	while (*name == ' ')
		name++;
	pr_info("CPU: %s %s (family %u, model %u, stepping %u), %u-bit physical, %u-bit virtual\n",
		c->vendor, *name ? name : "(no brand string)", c->family, c->model, c->stepping,
		c->phys_bits, c->virt_bits);
	line[0] = 0;
	for (unsigned f = 0; f < NR_X86_FEATURES; f++)
		if (c->features >> f & 1)
			len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0, " %s",
					feature_bits[f].name);
	pr_info("CPU features:%s\n", line);
	len = 0;
	line[0] = 0;
	for (unsigned f = 0; f < NR_X86_FEATURES; f++)
		if (!(c->features >> f & 1))
			len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0, " %s",
					feature_bits[f].name);
	pr_info("CPU features absent:%s\n", len ? line : " none");
}
