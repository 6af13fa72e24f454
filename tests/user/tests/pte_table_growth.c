/* The "Free user PTE page table pages" workload, scaled down (128 chunks of
 * 2 MiB, every page written, then MADV_DONTNEED; common/pte_workload.h).
 * VmSize must grow by the 50 GiB mapped and VmRSS come back to where it
 * was. VmPTE follows what the kernel says it does (pte_tables_fate()):
 *   - tables kept (mmlab with pte_reclaim=off, Linux before 6.13): VmPTE
 *     has grown by at least a table (4 kB) per chunk;
 *   - tables freed (mmlab with pte_reclaim=scan or refcount): the PTE
 *     tables and the PMD tables the chunks emptied are gone, so VmPTE ends
 *     no more than 4 kB above where it started (the lockless-walk tests' bound: a PUD
 *     table the mapping may have needed);
 *   - Linux 6.13 or later: CONFIG_PT_RECLAIM frees empty PTE tables on
 *     MADV_DONTNEED, other builds keep them; the figure is only printed.
 * After munmap the tables go: on mmlab all of them (VmPTE back within 8 kB
 * of where it started). Linux frees them too, but the figure it shows right
 * after munmap has been seen a few kB above that (up to 12 kB here, on a
 * host Linux 6.18 with CONFIG_PT_RECLAIM, from run to run), so there it
 * must only not exceed what the workload left. */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"
#include "pte_workload.h"

#define CHUNKS 128

int main(void)
{
	test_begin("pte_table_growth");
	struct pte_workload w = { .chunks = CHUNKS, .pages_per_chunk = PTE_WORKLOAD_CHUNK / PAGE_4K };
	/* The workload maps 50 GiB and 2 MiB with MAP_NORESERVE: where the
	 * kernel is set to refuse that (noreserve_refusal()), the refusal is
	 * what is checked. */
	bool certain;
	const char *limit = noreserve_refusal(PTE_WORKLOAD_SIZE + PTE_WORKLOAD_CHUNK, &certain);
	errno = 0;
	bool ran = pte_workload_run(&w);
	int err = errno;
	if (limit && (certain || !ran)) {
		CHECKF(!ran && err == ENOMEM, "the workload's mapping is refused with ENOMEM (%s)",
		       ran ? "made" : errno_name(err));
		if (ran)
			munmap(w.base, PTE_WORKLOAD_SIZE);
		test_skip("the workload's 50 GiB MAP_NORESERVE mapping: %s", limit);
	}
	if (!CHECK(ran))
		return test_end();
	pte_figures_print("", &w);
	note("%d chunks in %lld ms", CHUNKS, w.ns / 1000000);
	CHECK_CMP(w.madvise_errors, ==, 0);
	CHECK_CMP(w.mapped.size - w.before.size, ==, (long)(PTE_WORKLOAD_SIZE / KiB));
	CHECK_CMP(w.after.size, ==, w.mapped.size);
	/* "About where it started": within 1 MiB (the stack, libc's buffers). */
	CHECK_CMP(w.after.rss - w.before.rss, <, 1024);
	long pte_growth = w.after.pte - w.before.pte;
	char kernel[64];
	switch (pte_tables_fate(kernel, sizeof(kernel))) {
	case PTE_TABLES_KEPT:
		note("%s keeps empty page tables: VmPTE grew by %ld kB", kernel, pte_growth);
		CHECK_CMP(pte_growth, >=, CHUNKS * 4);
		break;
	case PTE_TABLES_FREED:
		note("%s frees empty page tables: VmPTE grew by %ld kB", kernel, pte_growth);
		CHECK_CMP(pte_growth, <=, 4);
		break;
	case PTE_TABLES_UNKNOWN:
		CHECK(!on_mmlab()); /* mmlab always says */
		note("%s: VmPTE grew by %ld kB for %d chunks (%s)", kernel, pte_growth, CHUNKS,
		     pte_growth >= CHUNKS * 4 ? "empty PTE tables kept"
					      : "empty PTE tables freed: CONFIG_PT_RECLAIM");
		break;
	}
	CHECK(munmap(w.base, PTE_WORKLOAD_SIZE) == 0);
	struct pte_figures end = pte_figures_now();
	note("after munmap: VmPTE %ld kB, VmRSS %ld kB, VmSize %ld kB", end.pte, end.rss, end.size);
	CHECK_CMP(end.size, ==, w.before.size);
	if (on_mmlab())
		CHECK_CMP(end.pte, <=, w.before.pte + 8); /* munmap frees the tables */
	else
		CHECK_CMP(end.pte, <=, w.after.pte);
	return test_end();
}
