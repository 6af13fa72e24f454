/* The "VM creation" of Ankur Arora's "Use uncached stores while clearing
 * huge pages" (v2 cover letter, 2021-10-20,
 * https://lore.kernel.org/all/20211020170305.376118-1-ankur.a.arora@oracle.com/): a guest's memory
 * preallocated on huge pages) as a program: for each page size (2 MiB;
 * 1 GiB when the pool can get one) and each clearing method the kernel
 * offers (/proc/sys/vm/clear_huge_page_method: auto, orig, rep, erms,
 * movnt, clzero, extent; a method the CPU lacks is refused and skipped),
 * it grows the pool, maps N MiB (--mib N, else vm_create.mib=N on the
 * kernel's command line, else 64: make test's size; make bench-hugetlb
 * gives the cover letter's 1024) with MAP_HUGETLB|MAP_POPULATE, and checks that
 *   - every byte reads back zero (all of them, 8 bytes at a time);
 *   - the pages went through the method asked for: /proc/vmstat's
 *     clear_huge_page_<method>_pages went up by the mapping's size, and
 *     clear_huge_page_cached, _uncached and _extent say which path (auto
 *     picks per extent: the bulk hint makes a populate this large uncached
 *     where the CPU has MOVNTI or CLZERO);
 *   - the fence assertion never fired (clear_huge_page_incoherent stays 0);
 * then unmaps and gives the pool back. One line per run:
 *   bench: vm_create 2M auto: 1024 MiB in <ms> ms, zero ok, cached +0 uncached +512 extent +0
 * Under QEMU's TCG every store costs about the same, so the milliseconds
 * are the emulator's, not the method's: the speed of each method is
 * measured natively (make bench-host, docs/huge_pages.md). On Linux (no
 * such sysctl) only the kernel's own method runs, and needs root for the
 * pool. Exit status: 0 when every run checked out, 1 when one did not, 77
 * when no pool could be had for any. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

/* vm_create.mib=N on the kernel's command line, or def. */
static long cmdline_mib(long def)
{
	char line[1024];
	if (read_file("/proc/cmdline", line, sizeof(line)) <= 0)
		return def;
	const char *at = strstr(line, "vm_create.mib=");
	return at ? strtol(at + 14, NULL, 10) : def;
}

static unsigned runs;

static bool all_zero(const void *p, size_t len)
{
	const uint64_t *w = p;
	uint64_t acc = 0;
	for (size_t i = 0; i < len / 8; i++)
		acc |= w[i];
	return !acc;
}

/* One run: returns false when a check failed. */
static bool run(const char *size_name, unsigned long page, unsigned sizelog, const char *method, unsigned long bytes)
{
	char pool_path[128];
	snprintf(pool_path, sizeof(pool_path), "/sys/kernel/mm/hugepages/hugepages-%lukB/nr_hugepages", page >> 10);
	/* The pool is the machine's: held for this run alone among the
	 * suite's programs from its first read to its last write. */
	int lock = setting_lock(pool_path);
	long pool0 = file_long(pool_path);
	long want = (long)(bytes / page);
	if (pool0 < 0 || !file_write_long(pool_path, pool0 + want) || file_long(pool_path) < pool0 + want) {
		file_write_long(pool_path, pool0);
		printf("bench: vm_create %s %s: skipped (the pool could not grow by %ld pages)\n", size_name, method, want);
		setting_unlock(lock);
		return true;
	}
	runs++;
	/* auto picks per extent: only the three paths' sums say what it did. */
	bool forced = strcmp(method, "auto") && strcmp(method, "kernel's");
	char name[64];
	snprintf(name, sizeof(name), "clear_huge_page_%s_pages", forced ? method : "extent");
	long pages0 = vmstat_value(name), cached0 = vmstat_value("clear_huge_page_cached"),
	     uncached0 = vmstat_value("clear_huge_page_uncached"), extent0 = vmstat_value("clear_huge_page_extent"),
	     bad0 = vmstat_value("clear_huge_page_incoherent");
	long long t0 = now_ns();
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE | (int)(sizelog << MAP_HUGE_SHIFT), -1, 0);
	long long t1 = now_ns();
	bool ok = p != MAP_FAILED;
	if (ok) {
		bool zero = all_zero(p, bytes);
		long cached = vmstat_value("clear_huge_page_cached") - cached0, uncached = vmstat_value("clear_huge_page_uncached") - uncached0,
		     extent = vmstat_value("clear_huge_page_extent") - extent0;
		long pages = vmstat_value(name) - pages0, bad = vmstat_value("clear_huge_page_incoherent") - bad0;
		bool mmlab = on_mmlab();
		/* On mmlab the method asked for cleared every page (auto: some
		 * method did, counted by the three paths). */
		bool path_ok = !mmlab || (forced ? pages == (long)(bytes >> 12)
						 : cached + uncached + extent >= (long)(bytes / page));
		ok = zero && path_ok && (!mmlab || bad == 0);
		char forced_pages[96] = "";
		if (forced)
			snprintf(forced_pages, sizeof(forced_pages), ", %s +%ld", name, pages);
		printf("bench: vm_create %s %s: %lu MiB in %lld ms, zero %s, cached +%ld uncached +%ld extent +%ld%s, "
		       "fence assertions +%ld%s\n",
		       size_name, method, bytes >> 20, (t1 - t0) / 1000000, zero ? "ok" : "NOT ZERO", cached, uncached,
		       extent, forced_pages, bad, ok ? "" : " FAILED");
		munmap(p, bytes);
	} else {
		printf("bench: vm_create %s %s: mmap failed: %s FAILED\n", size_name, method, errno_name(errno));
	}
	file_write_long(pool_path, pool0);
	setting_unlock(lock);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned long bytes = (unsigned long)arg_long(argc, argv, "--mib", cmdline_mib(64)) << 20;
	static const char *const methods[] = { "auto", "orig", "rep", "erms", "movnt", "clzero", "extent" };
	const char *sysctl = "/proc/sys/vm/clear_huge_page_method";
	char saved[32] = "";
	bool have_sysctl = read_file(sysctl, saved, sizeof(saved)) > 0;
	bool ok = true;
	struct { const char *name; unsigned long page; unsigned sizelog; } sizes[] = {
		{ "2M", 2ul << 20, 21 }, { "1G", 1ul << 30, 30 },
	};
	for (unsigned s = 0; s < 2; s++) {
		unsigned long len = (bytes + sizes[s].page - 1) & ~(sizes[s].page - 1);
		for (unsigned m = 0; m < (have_sysctl ? sizeof(methods) / sizeof(methods[0]) : 1); m++) {
			if (have_sysctl && !write_file(sysctl, methods[m])) {
				printf("bench: vm_create %s %s: skipped (the CPU has no such method)\n", sizes[s].name, methods[m]);
				continue;
			}
			ok = run(sizes[s].name, sizes[s].page, sizes[s].sizelog, have_sysctl ? methods[m] : "kernel's", len) && ok;
		}
	}
	if (have_sysctl)
		write_file(sysctl, saved);
	return !ok ? 1 : runs ? 0 : 77;
}
