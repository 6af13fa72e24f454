/* madvise(2) on anonymous private memory: MADV_DONTNEED zeroes the range
 * and gives its pages back (VmRSS falls), MADV_FREE (lazy: each page then
 * reads as its old contents or as zeros, and a new write sticks),
 * MADV_WILLNEED, MADV_HUGEPAGE/MADV_NOHUGEPAGE (accepted where transparent
 * huge pages exist: mmlab always accepts them; on Linux without
 * CONFIG_TRANSPARENT_HUGEPAGE they are EINVAL, and
 * /sys/kernel/mm/transparent_hugepage tells which), and the
 * errors: unknown advice and unaligned start (EINVAL), unmapped range
 * (ENOMEM). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#define LEN (64 * PAGE_4K)

static void dontneed(void)
{
	/* Asked first: on Linux the answer is probed (once), and the probe's
	 * own pages (stack, stdio) must not fall between the figures below. */
	bool zero = reads_map_zero_page();
	char *p = mmap(NULL, LEN, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	madvise(p, LEN, MADV_NOHUGEPAGE); /* count 4 KiB pages, even where THP is "always" */
	/* The figures are taken with nothing printed between them: a check's
	 * output may touch a new page of the stack or of stdio, which an exact
	 * RSS (smaps_rollup) would count. */
	long rss0 = rss_kb();
	memset(p, 0xab, LEN);
	long rss1 = rss_kb();
	int advised = madvise(p + 16 * PAGE_4K, 32 * PAGE_4K, MADV_DONTNEED);
	long rss2 = rss_kb();
	bool zeroed = all_bytes(p + 16 * PAGE_4K, 32 * PAGE_4K, 0);
	bool kept = all_bytes(p, 16 * PAGE_4K, 0xab) && all_bytes(p + 48 * PAGE_4K, 16 * PAGE_4K, 0xab);
	/* Reading the zeroed pages did not bring them back (zero page)...
	 * (where reads get pages of their own, they did, all 32) */
	long rss3 = rss_kb();
	/* ...writing does, one page at a time. */
	p[20 * PAGE_4K] = 1;
	long rss4 = rss_kb();
	note("64 pages written, then 32 MADV_DONTNEED: RSS %ld -> %ld -> %ld kB", rss0, rss1, rss2);
	CHECK_CMP(rss1 - rss0, >=, (long)(LEN / KiB));
	CHECK(advised == 0);
	CHECK_CMP(rss1 - rss2, ==, 32 * 4);
	CHECK(zeroed);
	CHECK(kept);
	CHECK_CMP(rss3 - rss2, ==, zero ? 0 : 32 * 4);
	CHECK_CMP(rss4 - rss3, ==, zero ? 4 : 0);
	/* An unaligned length is rounded up to the page. */
	CHECK(madvise(p, 1, MADV_DONTNEED) == 0);
	CHECK(all_bytes(p, PAGE_4K, 0) && all_bytes(p + PAGE_4K, PAGE_4K, 0xab));
	CHECK(madvise(p, 0, MADV_DONTNEED) == 0);
	CHECK(munmap(p, LEN) == 0);
}

static void lazy_free(void)
{
	char *p = mmap(NULL, LEN, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	memset(p, 0x77, LEN);
	CHECK(madvise(p, LEN, MADV_FREE) == 0);
	bool old_or_zero = true;
	for (size_t off = 0; off < LEN; off += PAGE_4K)
		old_or_zero &= all_bytes(p + off, PAGE_4K, 0x77) || all_bytes(p + off, PAGE_4K, 0);
	CHECKF(old_or_zero, "after MADV_FREE every page holds its old bytes or zeros");
	long rss = rss_kb();
	note("after MADV_FREE of 64 written pages: RSS %ld kB (freed lazily on Linux)", rss);
	memset(p, 0x11, LEN);
	CHECK(all_bytes(p, LEN, 0x11));
	CHECK(munmap(p, LEN) == 0);
}

/* mmlab: always (it has no such file); Linux: where the file is. */
static bool thp_available(void)
{
	if (on_mmlab())
		return true;
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void hints(void)
{
	char *p = mmap(NULL, LEN, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	memset(p, 0x42, LEN);
	CHECK(madvise(p, LEN, MADV_WILLNEED) == 0);
	CHECK(all_bytes(p, LEN, 0x42));
	bool thp = thp_available();
	note("transparent huge pages %s on this kernel (%s)", thp ? "configured" : "not configured",
	     on_mmlab() ? "mmlab" : "Linux");
	if (thp) {
		CHECK(madvise(p, LEN, MADV_HUGEPAGE) == 0);
		CHECK(madvise(p, LEN, MADV_NOHUGEPAGE) == 0);
	} else {
		CHECK_ERRNO(madvise(p, LEN, MADV_HUGEPAGE), EINVAL);
		CHECK_ERRNO(madvise(p, LEN, MADV_NOHUGEPAGE), EINVAL);
	}
	CHECK(all_bytes(p, LEN, 0x42));
	CHECK(munmap(p, LEN) == 0);
}

static void errors(void)
{
	char *p = mmap(NULL, 4 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	p[0] = 9;
	CHECK_ERRNO(madvise(p, PAGE_4K, 12345), EINVAL);
	CHECK_ERRNO(madvise(p, PAGE_4K, -1), EINVAL);
	CHECK_ERRNO(madvise(p + 1, PAGE_4K, MADV_DONTNEED), EINVAL);
	CHECK_ERRNO(madvise(p + 2048, PAGE_4K, MADV_WILLNEED), EINVAL);
	CHECK(p[0] == 9);
	CHECK(munmap(p, 4 * PAGE_4K) == 0);
	CHECK_ERRNO(madvise(p, 4 * PAGE_4K, MADV_DONTNEED), ENOMEM);
	CHECK_ERRNO(madvise(p, 4 * PAGE_4K, MADV_WILLNEED), ENOMEM);
	CHECK_ERRNO(madvise((void *)0x300000000000UL, 64 * MiB, MADV_FREE), ENOMEM);
}

int main(void)
{
	test_begin("madvise_advice");
	dontneed();
	lazy_free();
	hints();
	errors();
	return test_end();
}
