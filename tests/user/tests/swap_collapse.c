/* MADV_COLLAPSE over swap entries, on the runner's swap disk
 * (common/swap_disk.h), as Linux 6.1's collapse reads them in
 * (__collapse_huge_page_swapin): 2 MiB on a 2 MiB boundary, written in
 * 4 KiB pages (MADV_NOHUGEPAGE), 65 of its pages pushed out with
 * MADV_PAGEOUT (one more than khugepaged's max_ptes_swap default, which
 * MADV_COLLAPSE does not heed), then MADV_HUGEPAGE and MADV_COLLAPSE: 0,
 * one THP (smaps' AnonHugePages 2048 kB for the range), no page swapped
 * any more (pagemap, VmSwap within Linux's lag), every byte intact.
 *
 * The work runs in a child pinned to one CPU (Linux drains only the CPU's
 * own LRU batch before MADV_PAGEOUT); the parent turns swap on before and
 * off after. Where no THP can be had on Linux (ENOMEM, EAGAIN: Linux's
 * madvise_collapse_errno under fragmentation) the THP checks are skipped,
 * saying so; mmlab's swap machine has free 2 MiB blocks, so there it must
 * succeed. Skipped without THP, without MADV_COLLAPSE (Linux before 6.1)
 * and away from the runner's swap disk. */
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "swap_disk.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define PAGE 4096ul
#define NPAGES 512
#define SWAPPED 65

static uint64_t word(size_t page, size_t w) { return (page << 32 ^ w * 0x9e3779b9ull) | 1; }

static size_t bad_pages(const unsigned char *p)
{
	size_t bad = 0;
	for (size_t i = 0; i < NPAGES; i++)
		for (size_t w = 0; w < PAGE / 8; w++)
			if (((const uint64_t *)(p + i * PAGE))[w] != word(i, w)) {
				bad++;
				break;
			}
	return bad;
}

/* Pages of [p, p + NPAGES) pagemap shows swapped and present. */
static void pagemap_counts(const void *p, int *swapped, int *present)
{
	static uint64_t e[NPAGES];
	*swapped = *present = -1;
	if (!pagemap_read(p, NPAGES, e))
		return;
	*swapped = *present = 0;
	for (int i = 0; i < NPAGES; i++) {
		*swapped += !!(e[i] & PM_SWAP);
		*present += !!(e[i] & PM_PRESENT);
	}
}

static void check_vmswap(long kb, const char *when)
{
	long got = status_kb("VmSwap"), slack = on_mmlab() ? 0 : LINUX_VMSWAP_LAG_KB;
	CHECKF(got >= kb - slack && got <= kb + slack, "VmSwap %ld kB %s (expected %ld kB, within %ld)", got, when, kb,
	       slack);
}

static int child(void)
{
	pin_to_this_cpu();
	unsigned char *p = map_aligned_2m(NPAGES * PAGE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (!CHECKF(p != NULL, "mmap of 2 MiB on a 2 MiB boundary"))
		return test_end();
	CHECK(madvise(p, NPAGES * PAGE, MADV_NOHUGEPAGE) == 0);
	for (size_t i = 0; i < NPAGES; i++)
		for (size_t w = 0; w < PAGE / 8; w++)
			((uint64_t *)(p + i * PAGE))[w] = word(i, w);
	/* Pages 100 to 164 out. */
	CHECK(madvise(p + 100 * PAGE, SWAPPED * PAGE, MADV_PAGEOUT) == 0);
	int swapped, present;
	pagemap_counts(p, &swapped, &present);
	CHECKF(swapped == SWAPPED && present == NPAGES - SWAPPED,
	       "after MADV_PAGEOUT of %d pages pagemap shows %d swapped, %d of %d present", SWAPPED, swapped, present,
	       NPAGES);
	check_vmswap(SWAPPED * 4, "after MADV_PAGEOUT");

	CHECK(madvise(p, NPAGES * PAGE, MADV_HUGEPAGE) == 0);
	int err = madvise(p, NPAGES * PAGE, MADV_COLLAPSE) ? errno : 0;
	if (err == EINVAL && !on_mmlab()) {
		check_skip("MADV_COLLAPSE is EINVAL here (a Linux before 6.1, or THP disabled for this process)");
	} else if ((err == ENOMEM || err == EAGAIN) && !on_mmlab()) {
		check_skip("MADV_COLLAPSE: no THP could be had (%s): the huge-page checks", errno_name(err));
	} else if (CHECKF(err == 0, "MADV_COLLAPSE over %d swap entries: %s", SWAPPED, err ? errno_name(err) : "0")) {
		CHECK_CMP(smaps_kb(p, "AnonHugePages"), ==, 2048);
		pagemap_counts(p, &swapped, &present);
		CHECKF(swapped == 0 && present == NPAGES, "after the collapse %d swapped, %d of %d present", swapped,
		       present, NPAGES);
		check_vmswap(0, "after the collapse");
	}
	CHECKF(bad_pages(p) == 0, "every page keeps its data");
	munmap(p, NPAGES * PAGE);
	return test_end();
}

int main(void)
{
	test_begin("swap_collapse");
	if (!thp_pmd_mode())
		test_skip("no transparent huge pages");
	return swap_run_child(child, "child");
}
