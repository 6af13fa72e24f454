/* madvise(MADV_COLLAPSE) (Linux 6.1) as a program sees it, the same on
 * mmlab and on Linux: 4 MiB of 4 KiB pages written one by one become two
 * THPs (AnonHugePages 4096 kB in the VMA's smaps line), every byte kept;
 * a range already huge collapses again with success; a sparse 2 MiB (one
 * page written, one read) becomes a THP too (max_ptes_none does not
 * apply) and reads zero where nothing was written; an anonymous VMA never
 * faulted, an empty 2 MiB beside a faulted one, and a VMA with
 * MADV_NOHUGEPAGE are EINVAL; so is a range that ends before its first
 * aligned 2 MiB starts, while one that ends just there succeeds with
 * nothing to do; a hole is ENOMEM; advice 26 is EINVAL on mmlab.
 *
 * The program never changes a setting: MADV_COLLAPSE ignores the sysfs
 * mode. Where a THP cannot be had (Linux under fragmentation: ENOMEM or
 * EAGAIN, Linux's madvise_collapse_errno), the huge-page checks of that
 * step are skipped, saying so; on mmlab, whose machines have free 2 MiB
 * blocks, both must succeed. Skipped on a Linux without THP or older than
 * 6.1 (MADV_COLLAPSE is EINVAL there even for a full range), and in a
 * process that inherited PR_SET_THP_DISABLE. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#define HPAGE (2 * MiB)

/* len bytes mapped on a 2 MiB boundary. */
static char *map_aligned(size_t len) { return map_aligned_2m(len, ANON, -1); }

/* A distinct, never-zero word per 8 bytes of page i. */
static uint64_t word(uint64_t seed, size_t i, size_t w) { return (seed << 40 ^ i << 20 ^ w * 0x9e37ull) | 1; }

static void fill(char *p, size_t pages, uint64_t seed)
{
	for (size_t i = 0; i < pages; i++)
		for (size_t w = 0; w < PAGE_4K / 8; w++)
			((uint64_t *)(p + i * PAGE_4K))[w] = word(seed, i, w);
}

static size_t bad_pages(const char *p, size_t pages, uint64_t seed, const char *filled)
{
	size_t bad = 0;
	for (size_t i = 0; i < pages; i++)
		for (size_t w = 0; w < PAGE_4K / 8; w++)
			if (((const uint64_t *)(p + i * PAGE_4K))[w] != (filled[i] ? word(seed, i, w) : 0)) {
				bad++;
				break;
			}
	return bad;
}

/* MADV_COLLAPSE of [p, p + len): 0, or the errno. A THP that could not be
 * had (ENOMEM, EAGAIN) is a skip on Linux and a failure on mmlab. */
static int collapse(void *p, size_t len)
{
	return madvise(p, len, MADV_COLLAPSE) ? errno : 0;
}

static bool got_thps(int err, const char *what)
{
	if (!err)
		return true;
	if ((err == ENOMEM || err == EAGAIN) && !on_mmlab()) {
		check_skip("%s: no THP could be had (%s): the huge-page checks of this step", what, errno_name(err));
		return false;
	}
	CHECKF(false, "%s: MADV_COLLAPSE gave %s", what, errno_name(err));
	return false;
}

int main(void)
{
	test_begin("madv_collapse");
	if (!thp_pmd_mode())
		test_skip("no transparent huge pages in this kernel");
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1)
		test_skip("THP disabled for this process (PR_SET_THP_DISABLE inherited)");

	/* 4 MiB written page by page (4 KiB pages unless the mode is
	 * "always", when the faults may map THPs already: the collapse then
	 * has nothing to do, and succeeds). */
	char *p = map_aligned(2 * HPAGE);
	CHECK(p != NULL);
	if (!p)
		return test_end();
	/* Never faulted: the VMA has nothing to collapse (no anon_vma). */
	CHECK_ERRNO(madvise(p, HPAGE, MADV_COLLAPSE), EINVAL);
	fill(p, 2 * HPAGE / PAGE_4K, 1);
	int err = collapse(p, 2 * HPAGE);
	if (err == EINVAL && !on_mmlab())
		test_skip("MADV_COLLAPSE is EINVAL for a full range: a kernel before Linux 6.1");
	static char all[2 * HPAGE / PAGE_4K];
	memset(all, 1, sizeof(all));
	if (got_thps(err, "4 MiB written")) {
		CHECK_CMP(smaps_kb(p, "AnonHugePages"), ==, 4096);
		CHECK_CMP(smaps_kb(p, "Rss"), ==, 4096);
		/* Huge already: success again. */
		CHECK_CMP(collapse(p, 2 * HPAGE), ==, 0);
	}
	CHECK_CMP(bad_pages(p, 2 * HPAGE / PAGE_4K, 1, all), ==, 0);
	/* A hole after the first 2 MiB: the rest is collapsed, then ENOMEM. */
	CHECK_CMP(munmap(p + HPAGE, HPAGE), ==, 0);
	CHECK_ERRNO(madvise(p, 2 * HPAGE, MADV_COLLAPSE), ENOMEM);
	CHECK_CMP(munmap(p, HPAGE), ==, 0);

	/* A sparse 2 MiB: one page written, one read (the zero page). */
	char *q = map_aligned(2 * HPAGE);
	CHECK(q != NULL);
	if (!q)
		return test_end();
	small_pages(q, 2 * HPAGE);
	fill(q + 100 * PAGE_4K, 1, 2);
	volatile char sink = q[300 * PAGE_4K];
	(void)sink;
	/* The VMA has MADV_NOHUGEPAGE now if small_pages() asked for it: then
	 * that refusal is checked, and MADV_HUGEPAGE clears it. */
	if (smaps_kb(q, "THPeligible") == 0 && thp_small_sizes()) {
		CHECK_ERRNO(madvise(q, HPAGE, MADV_COLLAPSE), EINVAL);
		CHECK_CMP(madvise(q, 2 * HPAGE, MADV_HUGEPAGE), ==, 0);
	}
	/* The second 2 MiB: no PTE table at all. */
	CHECK_ERRNO(madvise(q + HPAGE, HPAGE, MADV_COLLAPSE), EINVAL);
	/* A range that ends before its first aligned 2 MiB starts: EINVAL
	 * (Linux counts the THPs wanted in unsigned arithmetic); one that ends
	 * just there wants none, and succeeds. */
	CHECK_ERRNO(madvise(q + PAGE_4K, HPAGE - 2 * PAGE_4K, MADV_COLLAPSE), EINVAL);
	CHECK_CMP(collapse(q + PAGE_4K, HPAGE - PAGE_4K), ==, 0);
	if (got_thps(collapse(q, HPAGE), "one page of 512"))
		CHECK_CMP(smaps_kb(q, "AnonHugePages"), ==, 2048);
	/* Every byte: the page written (page 0 of its fill), zeroes elsewhere. */
	size_t bad = 0;
	for (size_t i = 0; i < HPAGE / PAGE_4K; i++)
		for (size_t w = 0; w < PAGE_4K / 8; w++)
			if (((const uint64_t *)(q + i * PAGE_4K))[w] != (i == 100 ? word(2, 0, w) : 0)) {
				bad++;
				break;
			}
	CHECK_CMP(bad, ==, 0);
	/* MADV_NOHUGEPAGE refuses, whatever the mode. */
	CHECK_CMP(madvise(q, HPAGE, MADV_NOHUGEPAGE), ==, 0);
	CHECK_ERRNO(madvise(q, HPAGE, MADV_COLLAPSE), EINVAL);
	/* Advice 26 (MADV_GUARD_INSTALL only since Linux 6.13) on 6.1. */
	if (on_mmlab())
		CHECK_ERRNO(madvise(q, HPAGE, 26), EINVAL);
	CHECK_CMP(munmap(q, 2 * HPAGE), ==, 0);
	return test_end();
}
