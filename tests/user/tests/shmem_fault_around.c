/* Fault-around on shared mappings, as the kernel reports it: a read of
 * one byte of a MAP_SHARED memfd, MAP_SHARED | MAP_ANONYMOUS region or
 * /dev/zero mapping maps, besides its page, the pages the object already
 * has in the aligned window around it (Linux's do_read_fault ->
 * do_fault_around -> filemap_map_pages, shmem_vm_ops.map_pages): none
 * past the file's end, none for a hole, and it makes no page (mincore,
 * which tells the object's pages of a shared mapping, reads the same
 * before and after). A System V segment maps its one page (Linux's
 * shm_vm_ops has no map_pages). MAP_POPULATE of a shared memfd whose
 * pages are all there takes one fault (getrusage's ru_minflt) a window.
 * What is mapped is read from /proc/self/pagemap (PM_PRESENT) and smaps'
 * Rss.
 *
 * The window (fault_around_bytes) is measured first: a 2 MiB memfd, all
 * of it written, its entries dropped (MADV_DONTNEED), then one byte read
 * must map an aligned run of a power of two of pages around it. On mmlab
 * it is 16 pages (64 KiB: Linux's default; mmlab has no debugfs knob); on
 * Linux, /sys/kernel/debug/fault_around_bytes when it can be read, else
 * whatever power of two the run shows (1 if the owner turned it off).
 * Each mapping is MADV_NOHUGEPAGE before its pages are made, so that none
 * is huge whatever shmem_enabled says (Linux's shmem_is_huge checks the
 * VMA's VM_NOHUGEPAGE first, as mmlab's). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define HPAGE (2ul << 20)
#define NPAGES 64 /* the detailed cases' size */
#define READ_AT 37

static long pg;

/* len bytes mapped at a 2 MiB-aligned address (so that every window is
 * aligned as the offsets are), shared, from fd (-1: anonymous). */
static char *map_aligned(size_t len, int flags, int fd)
{
	char *m = map_aligned_2m(len, flags, fd);
	if (!m)
		return NULL;
	madvise(m, len, MADV_NOHUGEPAGE); /* EINVAL without THP: nothing to turn off */
	return m;
}

/* present[i]: whether pagemap says page i of p is mapped. */
static bool read_present(const char *p, long n, bool *present)
{
	uint64_t e[512];
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || n > 512)
		return false;
	long got = pread(fd, e, (size_t)n * 8, (off_t)((uintptr_t)p / (uintptr_t)pg * 8));
	close(fd);
	if (got != n * 8)
		return false;
	for (long i = 0; i < n; i++)
		present[i] = e[i] & PM_PRESENT;
	return true;
}

static long count(const bool *v, long n)
{
	long c = 0;
	for (long i = 0; i < n; i++)
		c += v[i];
	return c;
}

/* Every page of p written, then its entries dropped: the object keeps
 * the pages, nothing is mapped. */
static void fill_and_unmap(char *p, long n)
{
	for (long i = 0; i < n; i++)
		memset(p + i * pg, (int)(i & 0xff), (size_t)pg);
	CHECK_CMP(madvise(p, (size_t)(n * pg), MADV_DONTNEED), ==, 0);
}

/* The window in pages: measured, and checked against what the kernel
 * says where it says it. 0 when it cannot be measured. */
static long measure_window(void)
{
	long n = (long)(HPAGE / (unsigned long)pg), at = 300;
	int fd = memfd_create("fault_around_window", 0);
	if (!CHECK(fd >= 0) || !CHECK_CMP(ftruncate(fd, (off_t)HPAGE), ==, 0))
		return 0;
	char *p = map_aligned(HPAGE, MAP_SHARED, fd);
	long window = 0;
	bool present[512];
	if (CHECK(p != NULL)) {
		fill_and_unmap(p, n);
		CHECK(read_present(p, n, present) && count(present, n) == 0);
		volatile char c = p[at * pg];
		CHECK_CMP(c, ==, at & 0xff);
		if (CHECK(read_present(p, n, present))) {
			long lo = at, hi = at;
			while (lo > 0 && present[lo - 1])
				lo--;
			while (hi < n - 1 && present[hi + 1])
				hi++;
			window = hi - lo + 1;
			/* One aligned run of a power of two, nothing else. */
			CHECK(present[at]);
			CHECK_CMP(count(present, n), ==, window);
			CHECK_CMP(window & (window - 1), ==, 0);
			CHECK_CMP(lo % window, ==, 0);
			CHECK_CMP(smaps_kb(p, "Rss"), ==, window * pg / 1024);
		}
		CHECK_CMP(munmap(p, HPAGE), ==, 0);
	}
	close(fd);
	char buf[64];
	if (on_mmlab()) {
		CHECK_CMP(window, ==, 65536 / pg); /* mmlab's fault_around_bytes */
	} else if (read_file("/sys/kernel/debug/fault_around_bytes", buf, sizeof(buf)) > 0) {
		long bytes = atol(buf);
		CHECK_CMP(window, ==, bytes > pg ? bytes / pg : 1);
	} else {
		note("fault_around_bytes unreadable (%s): the run measured %ld pages", strerror(errno), window);
	}
	return window;
}

/* A read of page READ_AT of p (npages, the object's pages below eof
 * pages) maps exactly the object's pages of its window below eof; no
 * page made. Then a write through a neighbour mapped so, read back
 * through fd (the memfd) if there is one. */
static void check_read(const char *what, char *p, long eof, long window, int fd)
{
	unsigned char before[NPAGES], after[NPAGES];
	bool present[NPAGES];
	CHECK(read_present(p, NPAGES, present) && count(present, NPAGES) == 0);
	if (!CHECK_CMP(mincore(p, NPAGES * pg, before), ==, 0))
		return;
	volatile char c = p[READ_AT * pg + 5];
	CHECK_CMP(c, ==, READ_AT);
	if (!CHECK(read_present(p, NPAGES, present)))
		return;
	long first = READ_AT / window * window, expected = 0, wrong = 0;
	for (long i = 0; i < NPAGES; i++) {
		bool want = i >= first && i < first + window && i < eof && (before[i] & 1);
		expected += want;
		if (present[i] != want && !wrong++)
			CHECKF(false, "%s: page %ld %s", what, i, want ? "not mapped" : "mapped");
	}
	CHECKF(wrong == 0, "%s: %ld of %ld pages mapped as the window says", what, expected, (long)NPAGES);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, expected * pg / 1024);
	CHECK_CMP(mincore(p, NPAGES * pg, after), ==, 0);
	CHECKF(!memcmp(before, after, NPAGES), "%s: no page made", what);
	/* A write through the first neighbour mapped around the read. */
	for (long i = first; i < first + window; i++) {
		if (i == READ_AT || !present[i])
			continue;
		p[i * pg + 9] = 0x5a;
		char b = 0;
		if (fd >= 0) {
			CHECK_CMP(pread(fd, &b, 1, i * pg + 9), ==, 1);
			CHECKF(b == 0x5a, "%s: read(2) sees the write through page %ld", what, i);
		}
		break;
	}
}

/* A memfd of NPAGES pages with a hole at 40 and 41 and its end inside
 * page 46; then a shared anonymous region and a /dev/zero mapping with
 * the same hole (MADV_REMOVE). */
static void check_objects(long window)
{
	int fd = memfd_create("fault_around", 0);
	if (CHECK(fd >= 0) && CHECK_CMP(ftruncate(fd, NPAGES * pg), ==, 0)) {
		char *p = map_aligned(NPAGES * pg, MAP_SHARED, fd);
		if (CHECK(p != NULL)) {
			fill_and_unmap(p, NPAGES);
			CHECK_CMP(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 40 * pg, 2 * pg), ==, 0);
			CHECK_CMP(ftruncate(fd, 46 * pg + 100), ==, 0);
			check_read("memfd", p, 47, window, fd);
			CHECK_CMP(munmap(p, NPAGES * pg), ==, 0);
		}
	}
	if (fd >= 0)
		close(fd);
	int zero = open("/dev/zero", O_RDWR);
	CHECK(zero >= 0);
	for (int round = 0; round < 2; round++) {
		const char *what = round ? "/dev/zero" : "MAP_SHARED|MAP_ANONYMOUS";
		if (round && zero < 0)
			break;
		char *p = round ? map_aligned(NPAGES * pg, MAP_SHARED, zero)
				: map_aligned(NPAGES * pg, MAP_SHARED | MAP_ANONYMOUS, -1);
		if (!CHECKF(p != NULL, "%s mapped", what))
			continue;
		fill_and_unmap(p, NPAGES);
		CHECK_CMP(madvise(p + 40 * pg, 2 * pg, MADV_REMOVE), ==, 0);
		check_read(what, p, NPAGES, window, -1);
		CHECK_CMP(munmap(p, NPAGES * pg), ==, 0);
	}
	if (zero >= 0)
		close(zero);
}

static long minor_faults(void)
{
	struct rusage r;
	return getrusage(RUSAGE_SELF, &r) ? -1 : r.ru_minflt;
}

/* MAP_POPULATE of a shared memfd whose pages are all there: populate
 * reads (a shared mapping is populated for reading, Linux's
 * populate_vma_page_range), and each read fault maps its window, so it
 * takes one fault a window and every page ends mapped. */
static void check_populate(long window)
{
	int fd = memfd_create("fault_around_populate", 0);
	if (!CHECK(fd >= 0))
		return;
	char *p = NULL;
	if (CHECK_CMP(ftruncate(fd, NPAGES * pg), ==, 0) && CHECK((p = map_aligned(NPAGES * pg, MAP_SHARED, fd)))) {
		fill_and_unmap(p, NPAGES);
		CHECK_CMP(munmap(p, NPAGES * pg), ==, 0);
		char *want = p;
		long before = minor_faults();
		p = mmap(want, NPAGES * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0);
		long faults = minor_faults() - before;
		if (CHECK(p == want)) {
			bool present[NPAGES];
			CHECK(read_present(p, NPAGES, present) && count(present, NPAGES) == NPAGES);
			CHECK_CMP(faults, ==, (NPAGES + window - 1) / window);
			CHECK_CMP(munmap(p, NPAGES * pg), ==, 0);
		}
	}
	close(fd);
}

/* A System V segment: its read maps its page alone. */
static void check_sysv(void)
{
	int id = shmget(IPC_PRIVATE, (size_t)(NPAGES * pg), IPC_CREAT | 0600);
	if (id < 0) {
		check_skip("shmget: %s", strerror(errno));
		return;
	}
	char *p = shmat(id, NULL, 0);
	CHECK_CMP(shmctl(id, IPC_RMID, NULL), ==, 0);
	if (!CHECK(p != (char *)-1))
		return;
	madvise(p, (size_t)(NPAGES * pg), MADV_NOHUGEPAGE);
	fill_and_unmap(p, NPAGES);
	volatile char c = p[READ_AT * pg];
	CHECK_CMP(c, ==, READ_AT);
	bool present[NPAGES];
	if (CHECK(read_present(p, NPAGES, present))) {
		CHECK(present[READ_AT]);
		CHECK_CMP(count(present, NPAGES), ==, 1);
	}
	CHECK_CMP(smaps_kb(p, "Rss"), ==, pg / 1024);
	CHECK_CMP(shmdt(p), ==, 0);
}

int main(void)
{
	test_begin("shmem_fault_around");
	pg = sysconf(_SC_PAGESIZE);
	long window = measure_window();
	if (window > 0) {
		check_objects(window);
		check_populate(window);
	}
	check_sysv();
	return test_end();
}
