/* In-kernel benchmarks of vmalloc (boot with "bench": bench_mm.c calls
 * run_vmalloc_benchmarks). Timed with the TSC; under TCG the figures are
 * emulated, and with `make bench ICOUNT=1` (-icount shift=0) every guest
 * nanosecond is one instruction, so they count instructions exactly.
 *
 *   - vmalloc + vfree of 4 KiB, 64 KiB, 2 MiB and 64 MiB, with the lazy
 *     purge as it runs (its flushes fall on the pairs that trigger them);
 *   - TLB flushes (flush_tlb_kernel_range calls) for 1,000 vmalloc+vfree
 *     pairs with the lazy purge, against an eager flush at every vfree;
 *   - kvmalloc + kvfree of the same sizes, and which allocator served them
 *     (kmalloc first, vmalloc when kmalloc could not). */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/tsc.h"
#include "kernel/printk.h"
#include "mm/util.h"
#include "mm/vmalloc.h"
#include "tests/bench.h"

#define RUNS 9

static u64 ns_of(u64 cycles) { return tsc_cycles_to_ns(cycles); }

static void bench_pair(unsigned long size, const char *what, unsigned iters)
{
	u64 t[RUNS];
	unsigned failed = 0;
	vm_unmap_aliases();
	for (int r = 0; r < RUNS; r++) {
		u64 s = rdtsc();
		for (unsigned i = 0; i < iters; i++) {
			void *p = vmalloc(size);
			failed += !p;
			vfree(p);
		}
		t[r] = ns_of(rdtsc() - s) / iters;
	}
	pr_info("  vmalloc+vfree %-10s %10lu ns per pair%s\n", what, bench_median(t, RUNS),
		failed ? " (some allocations failed)" : "");
}

static void bench_flushes(bool eager)
{
	struct vmalloc_stats a, b;
	vm_unmap_aliases();
	vmap_lazy_disabled = eager;
	vmalloc_get_stats(&a);
	u64 s = rdtsc();
	for (int i = 0; i < 1000; i++)
		vfree(vmalloc(PAGE_SIZE));
	vm_unmap_aliases(); /* the lazy ones are flushed too, once */
	u64 ns = ns_of(rdtsc() - s);
	vmalloc_get_stats(&b);
	vmap_lazy_disabled = false;
	pr_info("  1,000 vmalloc(4 KiB)+vfree, %s: %4lu TLB flushes, %8lu ns per pair\n",
		eager ? "eager flush at every vfree" : "lazy purge (lazy_max_pages)", b.flushes - a.flushes,
		ns / 1000);
}

static void bench_kvpair(unsigned long size, const char *what, unsigned iters)
{
	u64 t[RUNS];
	unsigned failed = 0;
	unsigned long km = kvmalloc_kmalloc_count, vm = kvmalloc_vmalloc_count;
	vm_unmap_aliases();
	for (int r = 0; r < RUNS; r++) {
		u64 s = rdtsc();
		for (unsigned i = 0; i < iters; i++) {
			void *p = kvmalloc(size, GFP_KERNEL);
			failed += !p;
			kvfree(p);
		}
		t[r] = ns_of(rdtsc() - s) / iters;
	}
	pr_info("  kvmalloc+kvfree %-10s %10lu ns per pair, %lu by kmalloc, %lu by vmalloc%s\n", what,
		bench_median(t, RUNS), kvmalloc_kmalloc_count - km, kvmalloc_vmalloc_count - vm,
		failed ? " (some allocations failed)" : "");
}

void run_vmalloc_benchmarks(void)
{
	pr_info("vmalloc (lazy_max_pages %lu):\n", lazy_max_pages());
	bench_pair(PAGE_SIZE, "4 KiB", 200);
	bench_pair(64 << 10, "64 KiB", 100);
	bench_pair(2 << 20, "2 MiB", 10);
	bench_pair(64 << 20, "64 MiB", 1);
	bench_flushes(false);
	bench_flushes(true);
	bench_kvpair(PAGE_SIZE, "4 KiB", 200);
	bench_kvpair(64 << 10, "64 KiB", 100);
	bench_kvpair(2 << 20, "2 MiB", 10);
	bench_kvpair(64 << 20, "64 MiB", 1);
}
