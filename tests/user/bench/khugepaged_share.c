/* Benchmark: the share of a MADV_HUGEPAGE region that khugepaged turns
 * back into THPs within a number of its full scans, the same program on
 * mmlab and on Linux. 32 MiB on a 2 MiB boundary is faulted as 4 KiB
 * pages (MADV_NOHUGEPAGE): 8 of its 16 PMDs full, 4 with 256 pages, 4
 * with one page; then MADV_HUGEPAGE registers it with khugepaged. After
 * each of khugepaged's full scans (khugepaged/full_scans), up to
 * --scans (4), it prints how many of the 16 are huge (AnonHugePages of
 * the VMA / 2048 kB) and the guest time since the madvise; then it checks
 * that every byte is still what was written.
 *
 * It changes khugepaged's knobs (scan_sleep_millisecs 100, and
 * alloc_sleep_millisecs 100; max_ptes_none, pages_to_scan and defrag as
 * they are), and puts them back, so it runs only on a machine booted for
 * it: when /proc/cmdline names it in run= (mmlab's, and Linux's in the
 * same QEMU machine through tools/linux/init.c). Anywhere else it says so
 * and measures nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define KDIR "/sys/kernel/mm/transparent_hugepage/khugepaged/"
#define HPAGE (2 * MiB)
#define NPMD 16

static long knob(const char *name)
{
	char buf[64];
	char path[256];
	snprintf(path, sizeof(path), KDIR "%s", name);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static bool set_knob(const char *name, long v)
{
	char path[256], buf[32];
	snprintf(path, sizeof(path), KDIR "%s", name);
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	int n = snprintf(buf, sizeof(buf), "%ld\n", v);
	bool ok = fwrite(buf, 1, (size_t)n, f) == (size_t)n;
	return fclose(f) == 0 && ok;
}

/* Pages written in PMD k: all, half or one. */
static long pages_in(int k) { return k < 8 ? 512 : k < 12 ? 256 : 1; }

int main(int argc, char **argv)
{
	long scans = arg_long(argc, argv, "--scans", 4);
	char cmdline[4096];
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) <= 0 || !strstr(cmdline, "khugepaged_share") ||
	    knob("full_scans") < 0) {
		printf("bench: khugepaged_share: not measured (it changes khugepaged's knobs: only on a machine "
		       "booted with run=khugepaged_share, with /sys/kernel/mm/transparent_hugepage/khugepaged)\n");
		return 0;
	}
	long was_sleep = knob("scan_sleep_millisecs"), was_alloc = knob("alloc_sleep_millisecs");
	char *raw = mmap(NULL, NPMD * HPAGE + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		perror("khugepaged_share: mmap");
		return 1;
	}
	char *p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
	madvise(p, NPMD * HPAGE, MADV_NOHUGEPAGE);
	for (int k = 0; k < NPMD; k++)
		for (long i = 0; i < pages_in(k); i++)
			*(uint64_t *)(p + k * HPAGE + i * PAGE_4K) = (uint64_t)k << 32 | (uint64_t)i | 1;
	printf("bench: khugepaged_share start: AnonHugePages %ld kB, max_ptes_none %ld, pages_to_scan %ld\n",
	       smaps_kb(p, "AnonHugePages"), knob("max_ptes_none"), knob("pages_to_scan"));
	set_knob("scan_sleep_millisecs", 100);
	set_knob("alloc_sleep_millisecs", 100);
	long base = knob("full_scans");
	long long t0 = now_ns();
	if (madvise(p, NPMD * HPAGE, MADV_HUGEPAGE))
		perror("khugepaged_share: MADV_HUGEPAGE");
	for (long s = 1; s <= scans; s++) {
		/* Polls the count of full scans; the figure is per scan, the
		 * time only says how long the scans took here. */
		while (knob("full_scans") < base + s)
			usleep(10000);
		long huge = smaps_kb(p, "AnonHugePages") / 2048;
		printf("bench: khugepaged_share after full scan %ld: %ld of %d PMDs huge (%ld%%), %.2f s\n", s, huge,
		       NPMD, huge * 100 / NPMD, (double)(now_ns() - t0) / 1e9);
	}
	set_knob("scan_sleep_millisecs", was_sleep);
	set_knob("alloc_sleep_millisecs", was_alloc);
	long bad = 0;
	for (int k = 0; k < NPMD; k++)
		for (long i = 0; i < 512; i++) {
			uint64_t v = *(uint64_t *)(p + k * HPAGE + i * PAGE_4K);
			if (v != (i < pages_in(k) ? ((uint64_t)k << 32 | (uint64_t)i | 1) : 0))
				bad++;
		}
	printf("bench: khugepaged_share pages not as written: %ld\n", bad);
	return bad ? 1 : 0;
}
