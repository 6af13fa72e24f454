/* The workload of Qi Zheng's "Free user PTE page table pages" series
 * (2021): a huge sparse anonymous mapping (50 GiB, MAP_NORESERVE) of which
 * 2 MiB chunks are written and then given back with MADV_DONTNEED, as
 * jemalloc/tcmalloc do. The pages go, the PTE tables that mapped them stay
 * (one 4 KiB table per 2 MiB) unless the kernel frees empty ones: VmPTE is
 * the figure to watch. Shared by tests/pte_table_growth.c (a few chunks)
 * and bench/pte_table_growth_full.c (all 25,600). */
#ifndef MMLAB_USER_PTE_WORKLOAD_H
#define MMLAB_USER_PTE_WORKLOAD_H

#include <stdio.h>
#include <sys/mman.h>

#include "check.h"

#define PTE_WORKLOAD_SIZE (50 * GiB)
#define PTE_WORKLOAD_CHUNK (2 * MiB)

struct pte_figures {
	long pte, rss, size; /* VmPTE, VmRSS, VmSize in kB */
};

static inline struct pte_figures pte_figures_now(void)
{
	struct pte_figures f = { status_kb("VmPTE"), status_kb("VmRSS"), status_kb("VmSize") };
	return f;
}

struct pte_workload {
	unsigned long chunks;          /* how many 2 MiB chunks, from the start */
	unsigned long pages_per_chunk; /* pages written in each (512 = all) */
	struct pte_figures before, mapped, after;
	long long ns;                  /* the touch + MADV_DONTNEED loop */
	char *base;                    /* left mapped for the caller to unmap */
	int madvise_errors;
};

/* Maps the 50 GiB, runs the loop; false if the mmap failed. Transparent
 * huge pages are turned off for the range (where the kernel has them) so
 * that every chunk really is mapped through a PTE table, as in the
 * series' measurements. */
static inline bool pte_workload_run(struct pte_workload *w)
{
	w->before = pte_figures_now();
	w->base = mmap(NULL, PTE_WORKLOAD_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (w->base == MAP_FAILED)
		return false;
	madvise(w->base, PTE_WORKLOAD_SIZE, MADV_NOHUGEPAGE);
	w->mapped = pte_figures_now();
	unsigned long stride = PTE_WORKLOAD_CHUNK / w->pages_per_chunk;
	w->madvise_errors = 0;
	long long t0 = now_ns();
	for (unsigned long i = 0; i < w->chunks; i++) {
		volatile char *chunk = w->base + i * PTE_WORKLOAD_CHUNK;
		for (unsigned long off = 0; off < PTE_WORKLOAD_CHUNK; off += stride)
			chunk[off] = 1;
		if (madvise((char *)chunk, PTE_WORKLOAD_CHUNK, MADV_DONTNEED))
			w->madvise_errors++;
	}
	w->ns = now_ns() - t0;
	w->after = pte_figures_now();
	return true;
}

static inline void pte_figures_print(const char *prefix, const struct pte_workload *w)
{
	printf("%sbefore: VmPTE %ld kB, VmRSS %ld kB, VmSize %ld kB\n", prefix, w->before.pte,
	       w->before.rss, w->before.size);
	printf("%smapped: VmPTE %ld kB, VmRSS %ld kB, VmSize %ld kB\n", prefix, w->mapped.pte,
	       w->mapped.rss, w->mapped.size);
	printf("%safter %lu chunks x %lu pages written + MADV_DONTNEED: VmPTE %ld kB, VmRSS %ld kB, VmSize %ld kB\n",
	       prefix, w->chunks, w->pages_per_chunk, w->after.pte, w->after.rss, w->after.size);
}

#endif
