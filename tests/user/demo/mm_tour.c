/* What `make run` shows: a process's memory as it maps, reads, writes,
 * discards and unmaps anonymous memory, told through the figures Linux
 * programs read (/proc/self/status, /proc/meminfo). The same program runs
 * on Linux unchanged (build/user/mm_tour.elf is one musl-gcc -static build)
 * for the side-by-side view. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "pte_workload.h"

#define TOUR_SIZE (64 * MiB)

/* One line: the figures, and the page faults taken since the line before
 * (getrusage's ru_minflt: every fault the kernel handled for us). */
static void show(const char *what)
{
	static long last_minflt;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  %-44s VmSize %8ld kB  VmRSS %7ld kB  VmPTE %5ld kB  MemFree %8ld kB  faults %6ld\n", what,
	       status_kb("VmSize"), status_kb("VmRSS"), status_kb("VmPTE"), meminfo_kb("MemFree"),
	       ru.ru_minflt - last_minflt);
	getrusage(RUSAGE_SELF, &ru); /* the reads above fault too: not the next step's */
	last_minflt = ru.ru_minflt;
}

int main(void)
{
	printf("mm_tour: process %d; each line is read from /proc/self/status, /proc/meminfo and\n"
	       "getrusage (the page faults since the line before)\n",
	       (int)getpid());
	show("at start");
	char *p = mmap(NULL, TOUR_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("mm_tour: mmap failed: %s\n", errno_name(errno));
		return 1;
	}
	show("mmap 64 MiB (nothing touched yet)");
	volatile unsigned long sum = 0;
	for (size_t off = 0; off < TOUR_SIZE; off += PAGE_4K)
		sum += (unsigned char)p[off];
	show("read every page (the shared zero page)");
	touch_pages(p, TOUR_SIZE, 0xa5);
	show("write every page (a page of its own each)");
	madvise(p, TOUR_SIZE / 2, MADV_DONTNEED);
	show("MADV_DONTNEED on the first half");
	mprotect(p + TOUR_SIZE / 2, TOUR_SIZE / 2, PROT_READ);
	show("mprotect(PROT_READ) on the second half");
	munmap(p, TOUR_SIZE);
	show("munmap all of it");
	char *h = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h != MAP_FAILED) {
		madvise(h, 4 * MiB, MADV_HUGEPAGE);
		show("mmap 4 MiB, MADV_HUGEPAGE");
		touch_pages(h, 4 * MiB, 0x5a);
		show("write every page (2 MiB pages: a fault each)");
		munmap(h, 4 * MiB);
		show("munmap it");
	}

	printf("mm_tour: the 2021 \"free user PTE page table pages\" workload, scaled to 256 chunks:\n");
	struct pte_workload w = { .chunks = 256, .pages_per_chunk = 512 };
	if (!pte_workload_run(&w))
		return 1;
	printf("  50 GiB MAP_NORESERVE, 256 x (write 2 MiB, MADV_DONTNEED) in %lld ms\n", w.ns / 1000000);
	long growth = w.after.pte - w.before.pte;
	if (growth >= (long)w.chunks * 4)
		printf("  VmPTE %ld -> %ld kB: the emptied PTE tables stay (%ld kB for 256 chunks;\n"
		       "  25,600 chunks leave about 100 MB: `make bench` runs them all)\n",
		       w.before.pte, w.after.pte, growth);
	else
		printf("  VmPTE %ld -> %ld kB: this kernel frees emptied PTE tables\n", w.before.pte,
		       w.after.pte);
	munmap(w.base, PTE_WORKLOAD_SIZE);
	show("after munmap of the 50 GiB");
	return (int)(sum & 0);
}
