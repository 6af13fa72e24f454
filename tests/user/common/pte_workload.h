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
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>

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

/* At most this many VmPTE samples along the loop (one every
 * sample_every chunks, and the last chunk's). */
#define PTE_WORKLOAD_SAMPLES 128

struct pte_workload {
	unsigned long chunks;          /* how many 2 MiB chunks, from the start */
	unsigned long pages_per_chunk; /* pages written in each (512 = all) */
	unsigned long sample_every;    /* VmPTE after every Nth chunk (0: never) */
	struct pte_figures before, mapped, after;
	long long ns;                  /* the touch + MADV_DONTNEED loop, samples left out */
	unsigned long samples;         /* how many of sample_chunk/sample_pte hold one */
	unsigned long sample_chunk[PTE_WORKLOAD_SAMPLES]; /* chunks done when sampled */
	long sample_pte[PTE_WORKLOAD_SAMPLES];            /* VmPTE then, kB */
	char *base;                    /* left mapped for the caller to unmap */
	int madvise_errors;
};

/* Maps the 50 GiB, runs the loop; false if the mmap failed. Transparent
 * huge pages are turned off for the range (where the kernel has them) so
 * that every chunk really is mapped through a PTE table, as in the
 * series' measurements. The mapping starts on a 2 MiB boundary, so that
 * each chunk is exactly one PTE table: Linux 6.7+ places an anonymous
 * mapping of 2 MiB or more so (thp_get_unmapped_area), mmlab and older
 * Linux do not, and a chunk straddling two tables is never covered whole
 * by one MADV_DONTNEED, which the scan design (CONFIG_PT_RECLAIM, mmlab's
 * pte_reclaim=scan) needs to free a table: bench/pte_multi_fault shows
 * that case. So the workload maps 2 MiB more and unmaps the ends. */
static inline bool pte_workload_run(struct pte_workload *w)
{
	w->before = pte_figures_now();
	size_t len = PTE_WORKLOAD_SIZE + PTE_WORKLOAD_CHUNK;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	w->base = (char *)(((unsigned long)p + PTE_WORKLOAD_CHUNK - 1) & ~(PTE_WORKLOAD_CHUNK - 1));
	if (w->base > p && munmap(p, (size_t)(w->base - p)))
		return false;
	char *end = w->base + PTE_WORKLOAD_SIZE;
	if (end < p + len && munmap(end, (size_t)(p + len - end)))
		return false;
	madvise(w->base, PTE_WORKLOAD_SIZE, MADV_NOHUGEPAGE);
	w->mapped = pte_figures_now();
	unsigned long stride = PTE_WORKLOAD_CHUNK / w->pages_per_chunk;
	w->madvise_errors = 0;
	w->samples = 0;
	long long t0 = now_ns(), sampling = 0;
	for (unsigned long i = 0; i < w->chunks; i++) {
		volatile char *chunk = w->base + i * PTE_WORKLOAD_CHUNK;
		for (unsigned long off = 0; off < PTE_WORKLOAD_CHUNK; off += stride)
			chunk[off] = 1;
		if (madvise((char *)chunk, PTE_WORKLOAD_CHUNK, MADV_DONTNEED))
			w->madvise_errors++;
		/* VmPTE as the workload goes: how the tables pile up or do
		 * not. Reading /proc/self/status is not the workload's, so
		 * its time is taken out of ns. */
		if (w->sample_every && ((i + 1) % w->sample_every == 0 || i + 1 == w->chunks) &&
		    w->samples < PTE_WORKLOAD_SAMPLES) {
			long long s0 = now_ns();
			w->sample_chunk[w->samples] = i + 1;
			w->sample_pte[w->samples++] = status_kb("VmPTE");
			sampling += now_ns() - s0;
		}
	}
	w->ns = now_ns() - t0 - sampling;
	w->after = pte_figures_now();
	return true;
}

/* What the kernel does with the PTE tables MADV_DONTNEED empties, as it
 * says itself: on mmlab /proc/sys/vm/pte_reclaim ("off": they stay, as in
 * Linux 6.1; "scan" and "refcount": they go, and with them the emptied PMD
 * tables); on Linux before 6.13 they stay, from 6.13 on it depends on the
 * build (CONFIG_PT_RECLAIM), which a process cannot see. */
enum pte_tables_fate { PTE_TABLES_KEPT, PTE_TABLES_FREED, PTE_TABLES_UNKNOWN };

static inline enum pte_tables_fate pte_tables_fate(char *what, size_t size)
{
	if (on_mmlab()) {
		char mode[32] = "";
		if (read_file("/proc/sys/vm/pte_reclaim", mode, sizeof(mode)) < 0) {
			snprintf(what, size, "mmlab without /proc/sys/vm/pte_reclaim");
			return PTE_TABLES_UNKNOWN;
		}
		mode[strcspn(mode, "\n")] = 0;
		snprintf(what, size, "mmlab, pte_reclaim=%s", mode);
		if (!strcmp(mode, "off"))
			return PTE_TABLES_KEPT;
		if (!strcmp(mode, "scan") || !strcmp(mode, "refcount"))
			return PTE_TABLES_FREED;
		return PTE_TABLES_UNKNOWN;
	}
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2) {
		snprintf(what, size, "an unknown kernel");
		return PTE_TABLES_UNKNOWN;
	}
	snprintf(what, size, "Linux %d.%d", major, minor);
	if (major < 6 || (major == 6 && minor < 13))
		return PTE_TABLES_KEPT;
	return PTE_TABLES_UNKNOWN;
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
