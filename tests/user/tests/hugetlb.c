/* MAP_HUGETLB as a program sees it, the same on mmlab and on Linux: the
 * program grows the 2 MiB pool by three pages (as root, through
 * /proc/sys/vm/nr_hugepages; skipped when it cannot), then
 *   - a mapping of two pages reserves two (resv_hugepages, HugePages_Rsvd)
 *     and is aligned to 2 MiB; a third mapping that the free pages beyond
 *     the reserved ones cannot cover fails with ENOMEM; MAP_NORESERVE
 *     takes none;
 *   - written, each page is zero but for what was written, consumes its
 *     reservation, and shows in smaps (KernelPageSize 2048 kB,
 *     Private_Hugetlb, not in Rss), in status's HugetlbPages and in
 *     numa_maps (" huge", anon=2, kernelpagesize_kB=2048); mincore says resident;
 *   - munmap or mprotect of an unaligned part is EINVAL, MADV_FREE is
 *     EINVAL, an unknown page size (MAP_HUGE_SHIFT) is EINVAL;
 *   - MADV_DONTNEED of a page gives it back (zero again on the next touch);
 *   - munmap gives every page and reservation back;
 *   - three threads touching three new pages at once, in a pool with no
 *     page to spare, all get them (the faults of one page wait for each
 *     other: none finds its page's reservation taken and gets SIGBUS);
 * and the pool is set back to what it was. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#define HPAGE (2 * MiB)
#define POOL HUGETLB_POOL

static char text[1 << 20];

static char *shared;
static volatile int go;

static void *toucher(void *arg)
{
	long me = (long)arg;
	while (!go)
		;
	for (int r = 0; r < 3; r++)
		shared[((me + r) % 3) * HPAGE + me * 64] = (char)(1 + me);
	return NULL;
}

int main(void)
{
	test_begin("hugetlb");
	long resv0, nr0 = hugetlb_pool_grow(3, &resv0);
	long free0 = hugetlb_pool("free_hugepages");
	printf("# pool %ld -> %ld, %ld free, %ld reserved\n", nr0, nr0 + 3, free0, resv0);

	char *p = mmap(NULL, 2 * HPAGE, RW, ANON | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	if (!CHECK(p != MAP_FAILED)) {
		hugetlb_pool_set(nr0);
		return test_end();
	}
	CHECK_CMP((long)((uintptr_t)p & (HPAGE - 1)), ==, 0);
	CHECK_CMP(hugetlb_pool("resv_hugepages"), ==, resv0 + 2);
	/* /proc/meminfo's counts are the default size's: 2 MiB on both. */
	if (CHECK(read_file("/proc/meminfo", text, sizeof(text)) > 0)) {
		CHECK_CMP(field_after(text, "HugePages_Rsvd:"), ==, resv0 + 2);
	}
	/* One page more than the free pages beyond the reserved ones. */
	long spare = hugetlb_pool("free_hugepages") - hugetlb_pool("resv_hugepages");
	CHECK_CMP(spare, ==, free0 - resv0 - 2);
	CHECK_ERRNO((long)mmap(NULL, (unsigned long)(spare + 1) * HPAGE, RW, ANON | MAP_HUGETLB, -1, 0), ENOMEM);
	char *nr = mmap(NULL, 4 * HPAGE, RW, ANON | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
	CHECK(nr != MAP_FAILED);
	CHECK_CMP(hugetlb_pool("resv_hugepages"), ==, resv0 + 2);
	if (nr != MAP_FAILED)
		CHECK(munmap(nr, 4 * HPAGE) == 0);
	CHECK_ERRNO((long)mmap(NULL, HPAGE, RW, ANON | MAP_HUGETLB | (22 << MAP_HUGE_SHIFT), -1, 0), EINVAL);

	/* Written: the word in each 4 KiB page, the rest zero. */
	for (unsigned long i = 0; i < 2 * HPAGE / PAGE_4K; i++)
		*(unsigned long *)(p + i * PAGE_4K) = 0x5000 + i;
	bool zero = true;
	for (unsigned long i = 0; i < 2 * HPAGE / PAGE_4K; i++)
		zero = zero && all_bytes(p + i * PAGE_4K + 8, PAGE_4K - 8, 0);
	CHECKF(zero, "every page zero but the word written");
	CHECK_CMP(hugetlb_pool("resv_hugepages"), ==, resv0);
	CHECK_CMP(hugetlb_pool("free_hugepages"), ==, free0 - 2);
	CHECK_CMP(smaps_kb(p, "KernelPageSize"), ==, 2048);
	CHECK_CMP(smaps_kb(p, "MMUPageSize"), ==, 2048);
	CHECK_CMP(smaps_kb(p, "Private_Hugetlb"), ==, 4096);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, 0);
	CHECK_CMP(smaps_kb(p, "AnonHugePages"), ==, 0);
	CHECK_CMP(status_kb("HugetlbPages"), ==, 4096);
	char line[512];
	if (CHECK(numa_maps_line(p, line, sizeof(line)))) {
		printf("# numa_maps: %s\n", line);
		CHECKF(strstr(line, " huge ") && strstr(line, "kernelpagesize_kB=2048"), "numa_maps: %s", line);
		/* A private mapping's hugetlb pages are anonymous (Linux's
		 * hugetlb_add_new_anon_rmap). */
		CHECKF(strstr(line, " anon=2 ") != NULL, "numa_maps anon=2: %s", line);
	}
	unsigned char vec[2 * HPAGE / PAGE_4K];
	CHECK(mincore(p, 2 * HPAGE, vec) == 0);
	CHECKF(all_bytes(vec, sizeof(vec), 1), "mincore: every 4 KiB resident");

	/* What a hugetlb VMA refuses. */
	CHECK_ERRNO(munmap(p + PAGE_4K, PAGE_4K), EINVAL);
	CHECK_ERRNO(mprotect(p, PAGE_4K, PROT_READ), EINVAL);
	CHECK_ERRNO(madvise(p, HPAGE, MADV_FREE), EINVAL);

	/* The second page given back, then zero again (its reservation
	 * comes back with it on Linux 6.8 and later, and on mmlab). */
	CHECK(madvise(p + HPAGE, HPAGE, MADV_DONTNEED) == 0);
	CHECK_CMP(smaps_kb(p, "Private_Hugetlb"), ==, 2048);
	CHECK(all_bytes(p + HPAGE, HPAGE, 0));
	CHECK_CMP(*(unsigned long *)p, ==, 0x5000);

	CHECK(munmap(p, 2 * HPAGE) == 0);
	CHECK_CMP(hugetlb_pool("resv_hugepages"), ==, resv0);
	CHECK_CMP(hugetlb_pool("free_hugepages"), ==, free0);
	CHECK_CMP(status_kb("HugetlbPages"), ==, 0);

	/* Every free page reserved by one mapping; three threads fault its
	 * first three pages. */
	unsigned long all_free = (unsigned long)(hugetlb_pool("free_hugepages") - hugetlb_pool("resv_hugepages"));
	shared = mmap(NULL, all_free * HPAGE, RW, ANON | MAP_HUGETLB, -1, 0);
	if (CHECK(shared != MAP_FAILED)) {
		CHECK_CMP(hugetlb_pool("free_hugepages") - hugetlb_pool("resv_hugepages"), ==, 0); /* none to spare */
		pthread_t t[3];
		for (long i = 0; i < 3; i++)
			CHECK(pthread_create(&t[i], NULL, toucher, (void *)i) == 0);
		go = 1;
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		bool all = true;
		for (int pg = 0; pg < 3; pg++)
			for (int me = 0; me < 3; me++)
				all = all && shared[pg * HPAGE + me * 64] == 1 + me;
		CHECKF(all, "three threads wrote all three pages");
		CHECK(munmap(shared, all_free * HPAGE) == 0);
	}
	CHECK(hugetlb_pool_set(nr0));
	return test_end();
}
