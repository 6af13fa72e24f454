/* Copy-on-write at fork in the shapes fork_basic leaves out, held beside
 * Linux's: memory made read-only by mprotect before the fork (each side
 * that makes it writable again and writes gets its own copy), a
 * transparent huge page (the child's write to one byte leaves the
 * parent's 2 MiB as they were), a hugetlb page (the whole 2 MiB page is
 * copied, taken from the pool), MADV_DONTFORK (the child has no such
 * range: msync says ENOMEM) and MADV_WIPEONFORK (the child finds zeroes,
 * the parent its data), and a fork by a process with threads writing
 * beside it (the child has one thread, the caller's, and memory as it
 * was: its copy of each page whole). Each child checks its side and says
 * in its exit status which check failed (one bit each); the parent checks
 * its own. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define HPAGE (2 * MiB)
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* Forks; the child runs child(p, len) and exits with what it returns
 * (0: all its checks held). The child's status, or -1 if fork failed. */
static int in_child(int (*child)(char *, size_t), char *p, size_t len)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(child(p, len));
	int status = 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A 2 MiB-aligned range of len bytes inside a larger mapping (*map, *map_len
 * to unmap). */
static char *aligned_anon(size_t len, char **map, size_t *map_len)
{
	*map_len = len + HPAGE;
	*map = mmap(NULL, *map_len, RW, ANON, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)*map + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
}

/* --- mprotect before fork ------------------------------------------------- */

static int mprotect_child(char *p, size_t len)
{
	int bad = 0;
	bad |= !all_bytes(p, len, 0x11) << 0;
	bad |= (mprotect(p, len, RW) != 0) << 1;
	memset(p, 0x22, len);
	bad |= !all_bytes(p, len, 0x22) << 2;
	return bad;
}

static void cow_after_mprotect(void)
{
	size_t len = 4 * PAGE_4K;
	char *p = mmap(NULL, len, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	memset(p, 0x11, len);
	CHECK_CMP(mprotect(p, len, PROT_READ), ==, 0);
	CHECK_CMP(in_child(mprotect_child, p, len), ==, 0);
	CHECK(all_bytes(p, len, 0x11)); /* the child's writes were its own */
	CHECK_CMP(mprotect(p, len, RW), ==, 0);
	memset(p, 0x33, len);
	CHECK(all_bytes(p, len, 0x33));
	CHECK_CMP(munmap(p, len), ==, 0);
}

/* --- a transparent huge page ---------------------------------------------- */

static int thp_child(char *p, size_t len)
{
	int bad = 0;
	bad |= (p[0] != 0x44 || p[len - 1] != 0x44) << 0;
	p[4096] = 0x55;
	bad |= (p[4096] != 0x55) << 1;
	bad |= (p[0] != 0x44 || p[len - 1] != 0x44) << 2; /* the rest kept in its copy */
	return bad;
}

static void cow_of_a_thp(void)
{
	const char *mode = thp_pmd_mode();
	if (!mode || !strcmp(mode, "never")) {
		check_skip("no transparent huge pages here (%s)", mode ? "never" : "no THP");
		return;
	}
	char *map;
	size_t map_len;
	char *p = aligned_anon(HPAGE, &map, &map_len);
	if (!CHECK(p != NULL))
		return;
	madvise(p, HPAGE, MADV_HUGEPAGE);
	memset(p, 0x44, HPAGE);
	long thp_kb = smaps_kb(p, "AnonHugePages");
	printf("# AnonHugePages of the range: %ld kB\n", thp_kb);
	if (thp_kb < 2048) {
		check_skip("the kernel backed the range with small pages (AnonHugePages %ld kB)", thp_kb);
	} else {
		CHECK_CMP(in_child(thp_child, p, HPAGE), ==, 0);
		CHECK(all_bytes(p, HPAGE, 0x44)); /* the child's byte is not ours */
		p[8192] = 0x66;                  /* ours again, writable */
		CHECK(p[8192] == 0x66 && p[4096] == 0x44);
	}
	CHECK_CMP(munmap(map, map_len), ==, 0);
}

/* --- a hugetlb page ----------------------------------------------------------- */

static int hugetlb_child(char *p, size_t len)
{
	int bad = 0;
	bad |= !all_bytes(p, len, 0x77) << 0;
	p[123] = 0x78; /* a copy of the whole page, from the pool */
	bad |= (p[123] != 0x78 || p[len - 1] != 0x77) << 1;
	return bad;
}

static void cow_of_a_hugetlb_page(void)
{
	if (!on_mmlab() && meminfo_kb("Hugepagesize") != 2048) {
		check_skip("the default huge page size is not 2 MiB");
		return;
	}
	int lock = setting_lock(HUGETLB_POOL "nr_hugepages");
	long nr0 = hugetlb_pool("nr_hugepages");
	if (nr0 < 0 || hugetlb_pool("resv_hugepages") || hugetlb_pool("surplus_hugepages") ||
	    (!on_mmlab() && hugetlb_pool("nr_overcommit_hugepages") > 0)) {
		setting_unlock(lock);
		check_skip("no 2 MiB hugetlb pool of this program's own to use");
		return;
	}
	if (!hugetlb_pool_set(nr0 + 2)) {
		hugetlb_pool_set(nr0);
		setting_unlock(lock);
		check_skip("the pool could not grow by 2 pages (root? free 2 MiB blocks?)");
		return;
	}
	long free0 = hugetlb_pool("free_hugepages");
	char *p = mmap(NULL, HPAGE, RW, ANON | MAP_HUGETLB, -1, 0);
	if (CHECK(p != MAP_FAILED)) {
		memset(p, 0x77, HPAGE);
		CHECK_CMP(hugetlb_pool("free_hugepages"), ==, free0 - 1);
		CHECK_CMP(in_child(hugetlb_child, p, HPAGE), ==, 0);
		CHECK(all_bytes(p, HPAGE, 0x77));
		/* The child's copy went back to the pool with it; ours is ours
		 * alone again: written in place, no page taken. */
		CHECK_CMP(hugetlb_pool("free_hugepages"), ==, free0 - 1);
		p[7] = 0x79;
		CHECK_CMP(hugetlb_pool("free_hugepages"), ==, free0 - 1);
		CHECK_CMP(munmap(p, HPAGE), ==, 0);
	}
	CHECK(hugetlb_pool_set(nr0));
	setting_unlock(lock);
}

/* --- MADV_DONTFORK, MADV_WIPEONFORK -------------------------------------- */

static int dontfork_child(char *p, size_t len)
{
	/* Not mapped in the child: msync of an unmapped range is ENOMEM. */
	return msync(p, len, MS_ASYNC) == 0 || errno != ENOMEM;
}

static int wipeonfork_child(char *p, size_t len)
{
	int bad = !all_bytes(p, len, 0) << 0;
	memset(p, 0x5a, len); /* writable, and its own */
	bad |= !all_bytes(p, len, 0x5a) << 1;
	return bad;
}

static void dontfork_and_wipeonfork(void)
{
	size_t len = 4 * PAGE_4K;
	char *p = mmap(NULL, len, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	memset(p, 0x61, len);
	CHECK_CMP(madvise(p, len, MADV_DONTFORK), ==, 0);
	CHECK_CMP(in_child(dontfork_child, p, len), ==, 0);
	CHECK(all_bytes(p, len, 0x61));
	CHECK_CMP(madvise(p, len, MADV_DOFORK), ==, 0);
	CHECK_CMP(madvise(p, len, MADV_WIPEONFORK), ==, 0);
	CHECK_CMP(in_child(wipeonfork_child, p, len), ==, 0);
	CHECK(all_bytes(p, len, 0x61));
	CHECK_CMP(madvise(p, len, MADV_KEEPONFORK), ==, 0);
	CHECK_CMP(munmap(p, len), ==, 0);
}

/* --- a process with threads ------------------------------------------------ */

#define WRITERS 2
static volatile long *counters; /* one page each: writer i counts in its page's every word */
static volatile int stop_writers;

/* Each writer yields after each pass over its page: on a machine with
 * fewer CPUs than threads, the forking thread and the child then get the
 * CPU back at once instead of after the writers' time slices; where each
 * thread has a CPU, the yield returns at once and the writers keep
 * writing as the fork copies. */
static void *writer(void *arg)
{
	volatile long *page = counters + (uintptr_t)arg * (PAGE_4K / sizeof(long));
	for (long n = 1; !stop_writers; n++) {
		for (size_t w = 0; w < PAGE_4K / sizeof(long); w++)
			page[w] = n;
		sched_yield();
	}
	return NULL;
}

static int threaded_child(char *p, size_t len)
{
	int bad = 0;
	bad |= (status_kb("Threads") != 1) << 0; /* the forking thread alone */
	/* Each writer's page as it was at one moment: the words of a page
	 * may differ by one round of its writer (it was writing them as the
	 * fork copied), never more, and nobody writes them now. */
	for (int i = 0; i < WRITERS; i++) {
		const volatile long *page = (const volatile long *)(p + (size_t)i * PAGE_4K);
		long first = page[0];
		for (size_t w = 0; w < PAGE_4K / sizeof(long); w++)
			if (page[w] != first && page[w] != first - 1 && page[w] != first + 1)
				bad |= 1 << 1;
		struct timespec ms = { 0, 2000000 };
		nanosleep(&ms, NULL); /* the parent's writers run meanwhile */
		bad |= (page[0] != first) << 2; /* not theirs: frozen here */
	}
	memset(p, 0, len); /* its own copies */
	return bad;
}

static void fork_with_threads(void)
{
	size_t len = WRITERS * PAGE_4K;
	counters = mmap(NULL, len, RW, ANON, -1, 0);
	if (!CHECK(counters != MAP_FAILED))
		return;
	pthread_t t[WRITERS];
	int started = 0;
	for (; started < WRITERS; started++)
		if (pthread_create(&t[started], NULL, writer, (void *)(uintptr_t)started))
			break;
	CHECK_CMP(started, ==, WRITERS);
	while (started == WRITERS && (counters[0] < 100 || counters[PAGE_4K / sizeof(long)] < 100))
		sched_yield();
	CHECK_CMP(in_child(threaded_child, (char *)counters, len), ==, 0);
	long before = counters[0];
	while (started == WRITERS && counters[0] == before)
		sched_yield(); /* the parent's writers go on in its pages, after the child's memset */
	stop_writers = 1;
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	CHECK(counters[0] > 0);
	CHECK_CMP(munmap((void *)counters, len), ==, 0);
}

int main(void)
{
	test_begin("fork_cow");
	cow_after_mprotect();
	cow_of_a_thp();
	cow_of_a_hugetlb_page();
	dontfork_and_wipeonfork();
	fork_with_threads();
	return test_end();
}
