/* Benchmark: the full "Free user PTE page table pages" workload
 * (common/pte_workload.h): 50 GiB mapped, all 25,600 chunks of 2 MiB
 * written and given back with MADV_DONTNEED. Without freeing empty PTE
 * tables VmPTE ends ~100 MB (25,600 x 4 kB); with it, near where it began.
 * Every page of every chunk is written, as in the series: 13.1 million
 * faults (about 45 s under QEMU TCG on our 2-core machine, measured from
 * the scaled-down test's rate). Options after --bench: --chunks N (default
 * 25600), --pages-per-chunk N (a divisor of 512, default 512; fewer pages
 * end with the same page tables, since one write already instantiates a
 * chunk's PTE table), --samples N (VmPTE read N times along the loop,
 * default 100, at most 127: the lines "VmPTE at chunk C: K kB", which
 * make report plots). */
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"
#include "pte_workload.h"

int main(int argc, char **argv)
{
	struct pte_workload w = {
		.chunks = (unsigned long)arg_long(argc, argv, "--chunks", 25600),
		.pages_per_chunk = (unsigned long)arg_long(argc, argv, "--pages-per-chunk", 512),
	};
	long samples = arg_long(argc, argv, "--samples", 100);
	if (samples > 0 && samples < PTE_WORKLOAD_SAMPLES)
		w.sample_every = (w.chunks + (unsigned long)samples - 1) / (unsigned long)samples;
	if (w.chunks > PTE_WORKLOAD_SIZE / PTE_WORKLOAD_CHUNK || !w.pages_per_chunk ||
	    w.pages_per_chunk > 512 || 512 % w.pages_per_chunk) {
		printf("pte_table_growth_full: --chunks at most 25600, --pages-per-chunk a divisor of 512\n");
		return 1;
	}
	if (!pte_workload_run(&w)) {
		perror("pte_table_growth_full: mmap of 50 GiB");
		return 1;
	}
	pte_figures_print("pte_table_growth_full: ", &w);
	unsigned long faults = w.chunks * w.pages_per_chunk;
	printf("bench: pte_table_growth_full chunks: %lu chunks\n", w.chunks);
	printf("bench: pte_table_growth_full pages written per chunk: %lu pages\n", w.pages_per_chunk);
	printf("bench: pte_table_growth_full VmPTE before: %ld kB\n", w.before.pte);
	printf("bench: pte_table_growth_full VmPTE after: %ld kB\n", w.after.pte);
	for (unsigned long i = 0; i < w.samples; i++)
		printf("bench: pte_table_growth_full VmPTE at chunk %lu: %ld kB\n", w.sample_chunk[i], w.sample_pte[i]);
	printf("bench: pte_table_growth_full VmPTE growth: %ld kB\n", w.after.pte - w.before.pte);
	printf("bench: pte_table_growth_full VmRSS before: %ld kB\n", w.before.rss);
	printf("bench: pte_table_growth_full VmRSS after: %ld kB\n", w.after.rss);
	printf("bench: pte_table_growth_full VmSize before: %ld kB\n", w.before.size);
	printf("bench: pte_table_growth_full VmSize after: %ld kB\n", w.after.size);
	printf("bench: pte_table_growth_full time: %.3f s\n", (double)w.ns / 1e9);
	printf("bench: pte_table_growth_full time per chunk: %.0f ns\n", (double)w.ns / (double)w.chunks);
	printf("bench: pte_table_growth_full time per fault (with the MADV_DONTNEED share): %.0f ns\n",
	       (double)w.ns / (double)faults);
	if (w.madvise_errors)
		printf("pte_table_growth_full: %d MADV_DONTNEED calls failed\n", w.madvise_errors);
	long long t0 = now_ns();
	munmap(w.base, PTE_WORKLOAD_SIZE);
	printf("bench: pte_table_growth_full munmap of 50 GiB: %.0f us\n", (double)(now_ns() - t0) / 1e3);
	printf("bench: pte_table_growth_full VmPTE after munmap: %ld kB\n", status_kb("VmPTE"));
	return w.madvise_errors ? 1 : 0;
}
