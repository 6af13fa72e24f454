/* Anonymous pages pushed out with MADV_PAGEOUT and brought back, on the
 * runner's swap disk (common/swap_disk.h), as Linux 6.1 does it:
 *   - after MADV_PAGEOUT every page of a private buffer this process
 *     alone maps is a swap entry: pagemap's PM_SWAP (bit 62) without
 *     PM_PRESENT, its swap type 0 in bits 0-4 and an offset within the
 *     area above them; VmSwap (within Linux's lag of a thread's
 *     counts) and smaps' Swap count them, SwapFree went
 *     down by as much, vmstat's pswpout grew by at least as much;
 *   - fork after a pageout: the child has the entries too (VmSwap); it
 *     reads every byte back, each page either by a major fault
 *     (getrusage's ru_majflt, vmstat's pgmajfault and pswpin) or found in
 *     the swap cache where a fault before read it ahead (swap_ra_hit):
 *     on mmlab the two add up to the pages; Linux may also find pages
 *     still in the swap cache, its write-out being asynchronous (at most
 *     the pages there); its writes stay its own;
 *   - the parent reads every byte back from the swap cache the child's
 *     reads filled (no major fault on mmlab); its pages are present
 *     again, VmSwap back to 0;
 *   - MADV_COLD keeps the data where it is; an mlocked VMA refuses both
 *     (EINVAL).
 * The work runs in a child, pinned to one CPU (Linux drains only the
 * CPU's own LRU batch before MADV_PAGEOUT); the parent turns swap on
 * before and off after, when the child's exit has freed its entries. */
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "swap_disk.h"

#define NPAGES 256
#define PAGE 4096ul
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static unsigned char expected(size_t page, size_t i, unsigned seed) { return (unsigned char)(page * 7 + i * 13 + seed); }

static void fill(unsigned char *p, unsigned seed)
{
	for (size_t pg = 0; pg < NPAGES; pg++)
		for (size_t i = 0; i < PAGE; i++)
			p[pg * PAGE + i] = expected(pg, i, seed);
}

static size_t bad_bytes(const unsigned char *p, unsigned seed)
{
	size_t bad = 0;
	for (size_t pg = 0; pg < NPAGES; pg++)
		for (size_t i = 0; i < PAGE; i++)
			bad += p[pg * PAGE + i] != expected(pg, i, seed);
	return bad;
}

/* Pages of [p, p + NPAGES) pagemap shows swapped (PM_SWAP, not present,
 * type 0, offset inside the area) and present. */
static void pagemap_counts(const void *p, unsigned long area_pages, int *swapped, int *present, int *bad_entry)
{
	*swapped = *present = *bad_entry = 0;
	uint64_t e[NPAGES];
	if (!pagemap_read(p, NPAGES, e)) {
		*bad_entry = -1;
		return;
	}
	for (int i = 0; i < NPAGES; i++) {
		if (e[i] & PM_PRESENT)
			(*present)++;
		if (e[i] & PM_SWAP) {
			(*swapped)++;
			uint64_t frame = e[i] & ((1ull << 55) - 1);
			unsigned type = frame & 31;
			uint64_t offset = frame >> 5;
			if ((e[i] & PM_PRESENT) || type != 0 || offset == 0 || offset > area_pages)
				(*bad_entry)++;
		}
	}
}

/* VmSwap against what it should be: exact on mmlab; on Linux 6.1 within
 * its per-thread lag (LINUX_VMSWAP_LAG_KB). */
static void check_vmswap(long kb, const char *when)
{
	long got = status_kb("VmSwap"), slack = on_mmlab() ? 0 : LINUX_VMSWAP_LAG_KB;
	CHECKF(got >= kb - slack && got <= kb + slack, "VmSwap %ld kB %s (expected %ld kB, within %ld)", got, when, kb,
	       slack);
}

static long majflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

static int child(unsigned long area_pages)
{
	pin_to_this_cpu();
	unsigned char *p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECKF(p != MAP_FAILED, "mmap of %d pages", NPAGES))
		return test_end();
	fill(p, 1);
	long swapfree0 = meminfo_kb("SwapFree"), pswpout0 = vmstat_value("pswpout");
	CHECK(madvise(p, NPAGES * PAGE, MADV_COLD) == 0);
	CHECKF(bad_bytes(p, 1) == 0, "MADV_COLD keeps every byte");
	CHECK(madvise(p, NPAGES * PAGE, MADV_PAGEOUT) == 0);
	int swapped, present, bad;
	pagemap_counts(p, area_pages, &swapped, &present, &bad);
	CHECKF(swapped == NPAGES && present == 0 && bad == 0,
	       "after MADV_PAGEOUT pagemap shows %d of %d pages swapped (type 0, offset in the area), %d present, "
	       "%d bad entries", swapped, NPAGES, present, bad);
	check_vmswap(NPAGES * 4, "after MADV_PAGEOUT");
	CHECK_CMP(smaps_kb(p, "Swap"), ==, NPAGES * 4);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, 0);
	CHECK_CMP(swapfree0 - meminfo_kb("SwapFree"), >=, NPAGES * 4);
	CHECK_CMP(vmstat_value("pswpout") - pswpout0, >=, NPAGES);

	/* fork after the pageout: the child has the entries too; it reads
	 * every page from the disk, by major faults or ahead of them, and its
	 * writes stay its own. */
	pid_t pid = fork();
	if (pid == 0) {
		check_vmswap(NPAGES * 4, "in the child of the fork");
		long maj0 = majflt(), pgmaj0 = vmstat_value("pgmajfault"), pswpin0 = vmstat_value("pswpin");
		long hit0 = vmstat_value("swap_ra_hit");
		CHECKF(bad_bytes(p, 1) == 0, "the child reads every byte back");
		long maj = majflt() - maj0, hits = vmstat_value("swap_ra_hit") - hit0;
		check_vmswap(0, "after the child's reads");
		note("%s: %ld major faults and %ld readahead hits for %d pages", on_mmlab() ? "mmlab" : "Linux", maj,
		     hits, NPAGES);
		if (on_mmlab()) {
			CHECK_CMP(maj, >=, 1);
			/* Each page is read by its own fault or ahead of it (the
			 * write-out is synchronous: nothing else is in the
			 * cache). */
			CHECK_CMP(maj + hits, ==, NPAGES);
			CHECK_CMP(vmstat_value("pgmajfault") - pgmaj0, >=, maj);
			CHECK_CMP(vmstat_value("pswpin") - pswpin0, >=, NPAGES);
		} else {
			/* Some pages may still be in the swap cache, its
			 * write-out being asynchronous. */
			CHECK_CMP(maj + hits, <=, NPAGES);
		}
		fill(p, 2);
		CHECKF(bad_bytes(p, 2) == 0, "the child's own writes");
		_exit(test_end());
	}
	int st = wait_status_of(pid);
	CHECKF(st == 0, "the forked child's checks passed (status %d)", st);
	check_vmswap(NPAGES * 4, "in the parent after the child's exit");

	/* The parent reads them too: the child's reads left the pages in the
	 * swap cache, since the parent's entries still named their slots (a
	 * minor fault each, on mmlab). */
	long maj0 = majflt();
	CHECKF(bad_bytes(p, 1) == 0, "every byte read back by the parent after the child's writes");
	pagemap_counts(p, area_pages, &swapped, &present, &bad);
	CHECKF(present == NPAGES && swapped == 0, "all %d pages present again (%d), none swapped (%d)", NPAGES, present,
	       swapped);
	check_vmswap(0, "after the parent's reads");
	if (on_mmlab())
		CHECK_CMP(majflt() - maj0, ==, 0);

	/* An mlocked VMA: both refused, the pages stay. */
	if (mlock(p, 16 * PAGE) == 0) {
		CHECK_ERRNO(madvise(p, 16 * PAGE, MADV_PAGEOUT), EINVAL);
		CHECK_ERRNO(madvise(p, 16 * PAGE, MADV_COLD), EINVAL);
		pagemap_counts(p, area_pages, &swapped, &present, &bad);
		CHECKF(swapped == 0, "no page swapped after MADV_PAGEOUT of the mlocked part");
		munlock(p, 16 * PAGE);
	} else {
		check_skip("mlock of 16 pages: %s", errno_name(errno));
	}
	munmap(p, NPAGES * PAGE);
	return test_end();
}

int main(void)
{
	test_begin("swap_pageout");
	unsigned char hdr[4096];
	const struct swap_header_info *h = (const void *)hdr;
	if (!swap_on_or_skip(hdr))
		return test_end();
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(h->last_page));
	return swap_child_end(pid, "child");
}
