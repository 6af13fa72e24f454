/* mmap(2) semantics and errors on anonymous private memory: placement with
 * and without a hint, MAP_FIXED replacing what was there, MAP_FIXED_NOREPLACE,
 * MAP_NORESERVE, MAP_POPULATE, the EINVAL/ENOMEM cases, and how the
 * resident set follows reads (the shared zero page: no RSS) and writes (one
 * page each), as seen in /proc/self/status. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

static void placement(void)
{
	char *a = mmap(NULL, 8 * PAGE_4K, RW, ANON, -1, 0);
	CHECK(a != MAP_FAILED);
	CHECKF(((uintptr_t)a & (PAGE_4K - 1)) == 0, "mapping without hint at %p is page aligned", a);
	CHECK(all_bytes(a, 8 * PAGE_4K, 0));
	memset(a, 0x5a, 8 * PAGE_4K);
	CHECK(all_bytes(a, 8 * PAGE_4K, 0x5a));

	/* A hint at a free address is taken as is (Linux does when it is free);
	 * 48 TiB is far from anything either kernel places by itself. */
	char *hint = (char *)0x300000000000UL;
	char *b = mmap(hint, 4 * PAGE_4K, RW, ANON, -1, 0);
	CHECK(b != MAP_FAILED);
	CHECKF(b == hint, "hint %p honoured (got %p)", hint, b);
	/* A hint on top of a mapping is only a hint: somewhere else, no error. */
	char *c = mmap(a, 4 * PAGE_4K, RW, ANON, -1, 0);
	CHECKF(c != MAP_FAILED && c != a, "hint on a used range %p moves elsewhere (got %p)", a, c);
	CHECK(all_bytes(a, 8 * PAGE_4K, 0x5a));

	/* MAP_FIXED over the middle of a: old contents gone, zero-filled. */
	char *f = mmap(a + 2 * PAGE_4K, 2 * PAGE_4K, RW, ANON | MAP_FIXED, -1, 0);
	CHECKF(f == a + 2 * PAGE_4K, "MAP_FIXED at %p lands there (got %p)", a + 2 * PAGE_4K, f);
	CHECK(all_bytes(a + 2 * PAGE_4K, 2 * PAGE_4K, 0));
	CHECK(all_bytes(a, 2 * PAGE_4K, 0x5a));
	CHECK(all_bytes(a + 4 * PAGE_4K, 4 * PAGE_4K, 0x5a));

	/* MAP_FIXED_NOREPLACE: EEXIST on any overlap, fine on a free range. */
	CHECK_ERRNO(mmap(a + 7 * PAGE_4K, 2 * PAGE_4K, RW, ANON | MAP_FIXED_NOREPLACE, -1, 0), EEXIST);
	CHECK(all_bytes(a + 7 * PAGE_4K, PAGE_4K, 0x5a));
	char *free_at = (char *)0x300040000000UL;
	char *n = mmap(free_at, PAGE_4K, RW, ANON | MAP_FIXED_NOREPLACE, -1, 0);
	CHECKF(n == free_at, "MAP_FIXED_NOREPLACE on a free range %p (got %p)", free_at, n);

	CHECK(munmap(a, 8 * PAGE_4K) == 0);
	CHECK(munmap(b, 4 * PAGE_4K) == 0);
	CHECK(munmap(c, 4 * PAGE_4K) == 0);
	CHECK(munmap(n, PAGE_4K) == 0);
}

static void errors(void)
{
	CHECK_ERRNO(mmap(NULL, 0, RW, ANON, -1, 0), EINVAL);
	CHECK_ERRNO(mmap((void *)0x10000100, PAGE_4K, RW, ANON | MAP_FIXED, -1, 0), EINVAL);
	CHECK_ERRNO(mmap(NULL, PAGE_4K, RW, MAP_ANONYMOUS, -1, 0), EINVAL);
	CHECK_ERRNO(mmap(NULL, 1UL << 47, RW, ANON | MAP_NORESERVE, -1, 0), ENOMEM);
	CHECK_ERRNO(mmap(NULL, -PAGE_4K, RW, ANON | MAP_NORESERVE, -1, 0), ENOMEM);
	CHECK_ERRNO(mmap(NULL, -1UL, RW, ANON, -1, 0), ENOMEM);
	/* An anonymous mapping with a nonzero (page-aligned) offset is fine on
	 * Linux (the offset is ignored); an unaligned one is EINVAL. */
	CHECK_ERRNO(mmap(NULL, PAGE_4K, RW, ANON, -1, 100), EINVAL);
}

/* MAP_NORESERVE: 8 GiB of address space, more than the machine may have;
 * only what is touched becomes resident. Where the kernel is set to refuse
 * it (vm.overcommit_memory = 2 charges it all the same, or RLIMIT_AS is
 * too low: noreserve_refusal()), the refusal is checked instead. */
static void noreserve(void)
{
	long size0 = status_kb("VmSize"), rss0 = rss_kb();
	size_t len = 8 * GiB;
	char *p = map_noreserve(len, "8 GiB MAP_NORESERVE");
	if (!p)
		return;
	/* Where transparent huge pages are "always" on, each write would fault
	 * in 2 MiB; this is about reservation, so ask for small pages (an
	 * error just means there are no huge pages here). */
	madvise(p, len, MADV_NOHUGEPAGE);
	long size1 = status_kb("VmSize");
	CHECK_CMP(size1 - size0, ==, (long)(len / KiB));
	p[0] = 1;
	p[len / 2] = 2;
	p[len - 1] = 3;
	long rss1 = rss_kb();
	note("8 GiB MAP_NORESERVE: VmSize %ld -> %ld kB, RSS %ld -> %ld kB after 3 writes",
	     size0, size1, rss0, rss1);
	CHECK_CMP(rss1 - rss0, <, 4096);
	CHECK(p[0] == 1 && p[len / 2] == 2 && p[len - 1] == 3);
	CHECK(munmap(p, len) == 0);
	CHECK_CMP(status_kb("VmSize"), ==, size0);
}

static void populate(void)
{
	size_t len = 1 * MiB;
	long rss0 = rss_kb();
	char *p = mmap(NULL, len, RW, ANON | MAP_POPULATE, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	long rss1 = rss_kb();
	bool zeroes = all_bytes(p, len, 0);
	int unmapped = munmap(p, len);
	long rss2 = rss_kb(); /* nothing printed since rss1 (see zero_page) */
	note("MAP_POPULATE of 1 MiB: RSS %ld -> %ld kB, %ld after munmap", rss0, rss1, rss2);
	CHECK_CMP(rss1 - rss0, >=, (long)(len / KiB));
	CHECK_CMP(rss1 - rss0, <, (long)(len / KiB) + 512);
	CHECK(zeroes);
	CHECK(unmapped == 0);
	CHECK_CMP(rss1 - rss2, >=, (long)(len / KiB));
}

/* Reads map the shared zero page (not counted in RSS); a write allocates
 * one page. 16 pages: too small for a transparent huge page on Linux. */
static void zero_page(void)
{
	size_t len = 16 * PAGE_4K;
	char *p = mmap(NULL, len, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	small_pages(p, len); /* one page a fault, even with multi-size THP */
	/* Where reads get pages of their own (some Linux hosts), the reads
	 * cost the 16 pages and the writes nothing more. */
	bool zero = reads_map_zero_page();
	/* The four figures are taken with nothing printed between them: a
	 * check's output may touch a new page of the stack or of stdio, which
	 * an exact RSS (smaps_rollup) would count. */
	long rss0 = rss_kb();
	bool read_zero = all_bytes(p, len, 0);
	long rss1 = rss_kb();
	p[5 * PAGE_4K + 7] = 1;
	long rss2 = rss_kb();
	bool kept = p[5 * PAGE_4K + 7] == 1 && all_bytes(p, 5 * PAGE_4K, 0);
	/* A write to a page first read (zero page) replaces it: +1 page. */
	p[2 * PAGE_4K] = 2;
	long rss3 = rss_kb();
	note("reading 16 never-written pages: RSS %ld -> %ld kB", rss0, rss1);
	note("writing one of them: RSS %ld -> %ld kB, then another: %ld kB", rss1, rss2, rss3);
	CHECK(read_zero);
	CHECK_CMP(rss1 - rss0, ==, zero ? 0 : 16 * 4);
	CHECK_CMP(rss2 - rss1, ==, zero ? 4 : 0);
	CHECK(kept);
	CHECK_CMP(rss3 - rss2, ==, zero ? 4 : 0);
	CHECK(munmap(p, len) == 0);
}

int main(void)
{
	test_begin("mmap_basic");
	placement();
	errors();
	noreserve();
	populate();
	zero_page();
	return test_end();
}
