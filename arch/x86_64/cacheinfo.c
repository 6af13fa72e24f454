/* What the page clearing policy needs to know about the CPU, from CPUID:
 * the size of one last-level cache (the series' arch threshold, "x86/
 * clear_page: add arch_clear_page_uncached_threshold()"), the string and
 * non-temporal store features, and the quirk table for CPUs where MOVNTI
 * loses ("x86/cpuid: add X86_FEATURE_MOVNT_SLOW", "set
 * X86_FEATURE_MOVNT_SLOW for Skylake").
 *
 * Portable: CPUID comes through a function pointer, so the kernel (its
 * cpuid instruction), the host benchmark (the host's) and the host test
 * (made-up leaves) share this code.
 *
 * Which leaf. Intel describes its caches in leaf 4, AMD (with TOPOEXT) in
 * 0x8000001D, both as one cache instance: the one a clearing CPU fills.
 * AMD's older 0x80000006 gives an L3 size in 512 KiB units that QEMU and
 * hypervisors fill with invented values: on the host this was written on
 * (AMD EPYC, family 19h model 11h, as a guest) 0x8000001D says 32 MiB, the
 * real size of one Genoa CCD's L3, while 0x80000006 says 320 MiB. So it is
 * read only when there is no 0x8000001D, and any answer above the largest
 * cache of its vendor's parts is not believed (the policy then uses the
 * series' 8 MiB default and says so): 128 MiB for AMD (one CCD with
 * 3D V-Cache has 96 MiB), 512 MiB for Intel (Granite Rapids reports its
 * 504 MiB L3 as one cache). A wrong answer that is still plausible is the
 * user's to correct with clear_huge_page_threshold_kb= (make bench prints
 * the crossover it measured natively). */
#include "arch/x86_64/cacheinfo.h"
#include "lib/string.h"

static const char *const llc_leaf_names[] = { "CPUID leaf 4", "CPUID leaf 0x8000001d", "CPUID leaf 0x80000006" };

/* Largest data or unified cache among the subleaves of leaf 4 or
 * 0x8000001D (same layout): ways x partitions x line size x sets. */
static u64 deterministic_llc(cpuid_fn cpuid, u32 leaf)
{
	struct cpuid_regs r;
	u64 best = 0;
	unsigned best_level = 0;
	for (u32 sub = 0; sub < 16; sub++) {
		cpuid(leaf, sub, &r);
		unsigned type = r.eax & 0x1f, level = (r.eax >> 5) & 7;
		if (!type)
			break;
		if (type == 2) /* instruction cache */
			continue;
		u64 size = (u64)((r.ebx >> 22) + 1) * (((r.ebx >> 12) & 0x3ff) + 1) * ((r.ebx & 0xfff) + 1) *
			   ((u64)r.ecx + 1);
		if (level > best_level || (level == best_level && size > best)) {
			best = size;
			best_level = level;
		}
	}
	return best;
}

bool x86_movnt_slow(enum x86_vendor vendor, unsigned family, unsigned model)
{
	/* Skylake: client 0x4e, 0x5e, server 0x55 (Linux's INTEL_FAM6_SKYLAKE_L,
	 * _SKYLAKE and _SKYLAKE_X). The series marks Skylake; which models it
	 * covers is mmlab's reading of "Skylake". */
	if (vendor != X86_VENDOR_INTEL || family != 6)
		return false;
	return model == 0x4e || model == 0x5e || model == 0x55;
}

void clear_page_cpu_from_cpuid(cpuid_fn cpuid, struct clear_page_cpu *out)
{
	struct cpuid_regs r;
	memset(out, 0, sizeof(*out));

	cpuid(0, 0, &r);
	u32 max_leaf = r.eax;
	char vendor_id[13];
	memcpy(vendor_id + 0, &r.ebx, 4);
	memcpy(vendor_id + 4, &r.edx, 4);
	memcpy(vendor_id + 8, &r.ecx, 4);
	vendor_id[12] = 0;
	enum x86_vendor vendor = !strcmp(vendor_id, "GenuineIntel")				? X86_VENDOR_INTEL
				 : !strcmp(vendor_id, "AuthenticAMD") || !strcmp(vendor_id, "HygonGenuine") ? X86_VENDOR_AMD
													     : X86_VENDOR_OTHER;
	cpuid(0x80000000, 0, &r);
	u32 max_ext = r.eax >= 0x80000000 ? r.eax : 0;

	cpuid(1, 0, &r);
	unsigned family = (r.eax >> 8) & 0xf, model = (r.eax >> 4) & 0xf;
	if (family == 0xf)
		family += (r.eax >> 20) & 0xff;
	if (family >= 6)
		model += ((r.eax >> 16) & 0xf) << 4;

	if (max_leaf >= 7) {
		cpuid(7, 0, &r);
		out->erms = r.ebx >> 9 & 1;
	}
	bool topoext = false;
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, &r);
		topoext = r.ecx >> 22 & 1;
	}
	if (max_ext >= 0x80000008) {
		cpuid(0x80000008, 0, &r);
		out->clzero = r.ebx & 1;
	}
	out->movnt_slow = x86_movnt_slow(vendor, family, model);
	out->zen = vendor == X86_VENDOR_AMD && family >= 0x17;

	u64 llc = 0;
	int source = -1;
	if (vendor == X86_VENDOR_AMD && topoext && max_ext >= 0x8000001d) {
		llc = deterministic_llc(cpuid, 0x8000001d);
		source = 1;
	} else if (vendor != X86_VENDOR_AMD && max_leaf >= 4) {
		llc = deterministic_llc(cpuid, 4);
		source = 0;
	}
	if (!llc && vendor == X86_VENDOR_AMD && max_ext >= 0x80000006) {
		cpuid(0x80000006, 0, &r);
		llc = (u64)(r.edx >> 18) << 19;       /* L3, 512 KiB units */
		if (!llc)
			llc = (u64)(r.ecx >> 16) << 10; /* L2, KiB */
		source = 2;
	}
	u64 most = vendor == X86_VENDOR_AMD ? X86_LLC_MAX_AMD : X86_LLC_MAX_OTHER;
	out->llc_source = source >= 0 ? llc_leaf_names[source] : NULL;
	out->llc_claimed = llc;
	out->llc_bytes = llc <= most ? llc : 0;
}
