/* How much of a MADV_HUGEPAGE region khugepaged turns back into THPs, and
 * within how many of its full scans, after the region's huge pages were
 * broken up: the same program on mmlab and on Linux (6.1 in the
 * linux-ring machine), printing its figures as "figure:" lines
 * (docs/khugepaged.md has them).
 *
 * Anonymous memory: 16 MiB on a 2 MiB boundary, MADV_HUGEPAGE, every page
 * written (THPs at the faults, as many as the kernel gives), then one page
 * of each 2 MiB made read-only and writable again (mprotect): each PMD is
 * split into 512 PTEs of the same THP and the VMA merged back. shmem: a
 * memfd of 16 MiB (shmem_enabled "advise"), mapped MAP_SHARED with
 * MADV_HUGEPAGE, written, then one page of each 2 MiB punched out
 * (fallocate PUNCH_HOLE, which splits the huge page in the page cache) and
 * written again: 512 small pages per 2 MiB. After each full scan
 * (khugepaged/full_scans) it counts the 2 MiB blocks mapped huge
 * (AnonHugePages, ShmemPmdMapped of the VMA in /proc/self/smaps; the
 * shmem range is read first, since a file collapse leaves the mapping to
 * the next fault), a figure for each of the first four. Both kernels,
 * with max_ptes_none at its default (511), must collapse all 8 of each
 * (within 32 full scans: follow_scans says why not four), every byte as
 * written.
 *
 * It runs only on a machine booted for the tests (mmlab's, or Linux's with
 * "ktest" on its command line), never on the host it was built on, where
 * it skips. It sets khugepaged's sleeps (a minute while a region is made
 * and broken up, so that khugepaged does not start early, then 10 ms),
 * THP's enabled ("madvise" if it was "never") and shmem_enabled
 * ("advise"), and puts them back; where it cannot write them it skips. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define THP "/sys/kernel/mm/transparent_hugepage/"
#define KDIR THP "khugepaged/"
#define HPAGE (2 * MiB)
#define NPMD 8
#define SCANS 4      /* full scans shown as figures */
#define MAX_SCANS 32 /* full scans waited for at most */
#define PUNCH_AT 77 /* the page of each 2 MiB broken up */

static long knob(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), KDIR "%s", name);
	return file_long(path);
}

static bool set_knob(const char *name, long v)
{
	char path[256], buf[32];
	snprintf(path, sizeof(path), KDIR "%s", name);
	snprintf(buf, sizeof(buf), "%ld", v);
	return write_file(path, buf);
}

/* The word in brackets of a sysfs mode file, in out. */
static bool mode_of(const char *path, char *out, size_t size)
{
	char buf[256];
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
	if (!a || !b || (size_t)(b - a) > size)
		return false;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = 0;
	return true;
}

static uint64_t word(int k, long i) { return (uint64_t)k << 32 | (uint64_t)i << 1 | 1; }

static void write_page(char *p, int k, long i)
{
	for (size_t w = 0; w < PAGE_4K / 8; w += 64)
		((uint64_t *)(p + k * HPAGE + i * PAGE_4K))[w] = word(k, i) + w;
}

static long bad_pages(const char *p)
{
	long bad = 0;
	for (int k = 0; k < NPMD; k++)
		for (long i = 0; i < 512; i++)
			for (size_t w = 0; w < PAGE_4K / 8; w += 64)
				if (((const uint64_t *)(p + k * HPAGE + i * PAGE_4K))[w] != word(k, i) + w) {
					bad++;
					break;
				}
	return bad;
}

/* Reads one byte of every page (a file collapse maps at the next fault). */
static void touch_all(const char *p)
{
	for (size_t off = 0; off < NPMD * HPAGE; off += PAGE_4K)
		(void)*(const volatile char *)(p + off);
}

/* What a shortfall leaves to look at: the collapse and compaction counters
 * of /proc/vmstat (a huge page khugepaged could not allocate, a range it
 * gave up on) and /proc/buddyinfo, one line each. */
static void show_counters(const char *what)
{
	static char buf[16384];
	static const char *const files[] = { "/proc/vmstat", "/proc/buddyinfo" };
	for (int f = 0; f < 2; f++) {
		if (read_file(files[f], buf, sizeof(buf)) <= 0)
			continue;
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			if (f == 1 || !strncmp(line, "thp_", 4) || !strncmp(line, "compact_", 8))
				printf("%s short: %s\n", what, line);
	}
}

/* Waits until khugepaged's count of full scans reaches target, at the
 * latest until deadline (now_ns; it only ends the wait for a khugepaged
 * that does not scan): whether it did. */
static bool wait_full_scans(long target, long long deadline)
{
	while (knob("full_scans") < target && now_ns() < deadline)
		usleep(5000);
	return knob("full_scans") >= target;
}

/* After each of the next full scans, the 2 MiB blocks of p mapped huge
 * (field of its smaps), printed as a figure for the first SCANS of them;
 * then on, up to MAX_SCANS, until every block is. Returns the last count.
 *
 * Why "until": a file collapse frees the old page table only under the
 * mmap lock taken for writing, tried and never waited for (Linux's
 * retract_page_tables, and khugepaged_collapse_pte_mapped_thps when it
 * comes back to it); this program's own looks between the scans (the
 * faults of touch_all, the walk of smaps) hold that lock for reading.
 * When khugepaged's passes fall on them, the table stays for a later
 * pass, and how many passes that takes is the scheduler's business: a
 * figure, not a check. */
static long follow_scans(const char *what, const char *p, const char *field, bool touch)
{
	/* khugepaged slept a minute while the region was made and broken
	 * up; a write of the knob wakes it, and from now on it scans every
	 * 10 ms. */
	long base = knob("full_scans"), huge = 0, s;
	set_knob("scan_sleep_millisecs", 10);
	long long t0 = now_ns();
	for (s = 1; s <= MAX_SCANS && (s <= SCANS || huge < NPMD); s++) {
		/* The count of full scans is what is waited for; the bound only
		 * ends a run whose khugepaged never scans (a failure). */
		if (!wait_full_scans(base + s, t0 + 120 * 1000000000ll)) {
			CHECKF(false, "%s: khugepaged's full scan %ld never came", what, s);
			return huge;
		}
		if (touch)
			touch_all(p);
		huge = smaps_kb(p, field) / 2048;
		if (s <= SCANS)
			printf("figure: %s after full scan %ld: %ld of %d huge (%.2f s)\n", what, s, huge, NPMD,
			       (double)(now_ns() - t0) / 1e9);
	}
	if (s - 1 > SCANS)
		printf("figure: %s after full scan %ld: %ld of %d huge (%.2f s)\n", what, s - 1, huge, NPMD,
		       (double)(now_ns() - t0) / 1e9);
	set_knob("scan_sleep_millisecs", 60000);
	if (huge < NPMD)
		show_counters(what);
	return huge;
}

/* A write of a sleep wakes khugepaged for one pass on both kernels (so
 * that the new sleep takes effect at once), and on a loaded host that
 * pass may come late: between a part's break-up and its check, where it
 * collapsed 1 and 3 of the 8 PMDs back on two machines of one loaded
 * run. So each part first waits for that pass to end, after which
 * khugepaged sleeps its minute. A pass ends a full scan when there is an
 * mm to scan: ours, with a THP in a MADV_HUGEPAGE mapping. Twice: a pass
 * already under way when the count is read ends the first wait, and the
 * write may then start another. */
static void khugepaged_settle(void)
{
	char *reg = map_aligned_2m(HPAGE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (reg && madvise(reg, HPAGE, MADV_HUGEPAGE) == 0)
		reg[0] = 1;
	for (int round = 0; round < 2; round++) {
		long base = knob("full_scans");
		set_knob("scan_sleep_millisecs", 60000);
		/* A scan that never comes: follow_scans reports it. */
		wait_full_scans(base + 1, now_ns() + 20 * 1000000000ll);
	}
	if (reg)
		munmap(reg, HPAGE);
}

static void anon_part(void)
{
	khugepaged_settle();
	char *p = map_aligned_2m(NPMD * HPAGE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_CMP(madvise(p, NPMD * HPAGE, MADV_HUGEPAGE), ==, 0);
	for (int k = 0; k < NPMD; k++)
		for (long i = 0; i < 512; i++)
			write_page(p, k, i);
	printf("figure: anon at the faults: %ld of %d huge\n", smaps_kb(p, "AnonHugePages") / 2048, NPMD);
	for (int k = 0; k < NPMD; k++) {
		char *q = p + k * HPAGE + PUNCH_AT * PAGE_4K;
		CHECK_CMP(mprotect(q, PAGE_4K, PROT_READ), ==, 0);
		CHECK_CMP(mprotect(q, PAGE_4K, PROT_READ | PROT_WRITE), ==, 0);
	}
	CHECK_CMP(smaps_kb(p, "AnonHugePages"), ==, 0);
	CHECK_CMP(follow_scans("anon", p, "AnonHugePages", false), ==, NPMD);
	CHECK_CMP(bad_pages(p), ==, 0);
	munmap(p, NPMD * HPAGE);
}

static void shmem_part(void)
{
	int fd = (int)syscall(SYS_memfd_create, "khugepaged_restore", 0);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_CMP(ftruncate(fd, (off_t)(NPMD * HPAGE)), ==, 0);
	char *p = map_aligned_2m(NPMD * HPAGE, MAP_SHARED, fd);
	CHECK(p != NULL);
	if (!p) {
		close(fd);
		return;
	}
	CHECK_CMP(madvise(p, NPMD * HPAGE, MADV_HUGEPAGE), ==, 0);
	for (int k = 0; k < NPMD; k++)
		for (long i = 0; i < 512; i++)
			write_page(p, k, i);
	printf("figure: shmem at the faults: %ld of %d huge\n", smaps_kb(p, "ShmemPmdMapped") / 2048, NPMD);
	/* A punch splits the huge page unless something holds a reference
	 * to it at that moment (a pin, a page being isolated for a move);
	 * then, as Linux 6.1's truncate_inode_partial_folio, it zeroes the
	 * page and keeps it whole, and the touch maps it by PMD again (one
	 * of the 8 on a loaded host). Punched again, it splits. */
	for (int round = 0; round < 3; round++) {
		if (round)
			note("%ld KiB still mapped huge after the punches: punched again", smaps_kb(p, "ShmemPmdMapped"));
		for (int k = 0; k < NPMD; k++) {
			off_t off = (off_t)(k * HPAGE + PUNCH_AT * PAGE_4K);
			CHECK_CMP(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, PAGE_4K), ==, 0);
			write_page(p, k, PUNCH_AT);
		}
		touch_all(p);
		if (smaps_kb(p, "ShmemPmdMapped") == 0)
			break;
	}
	CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 0);
	CHECK_CMP(follow_scans("shmem", p, "ShmemPmdMapped", true), ==, NPMD);
	CHECK_CMP(bad_pages(p), ==, 0);
	munmap(p, NPMD * HPAGE);
	close(fd);
}

int main(void)
{
	test_begin("khugepaged_restore");
	/* Machine-wide settings, and full scans of a whole machine's
	 * processes (seconds each on a busy host): only on a machine booted
	 * for the tests, mmlab's or Linux's (tools/linux/init.c's "ktest"). */
	char cmdline[4096];
	if (!on_mmlab() && (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) <= 0 || !strstr(cmdline, "ktest")))
		test_skip("changes machine-wide THP and khugepaged settings: only on a machine booted for the tests");
	char enabled[32], shmem[32];
	if (!mode_of(THP "enabled", enabled, sizeof(enabled)) || !mode_of(THP "shmem_enabled", shmem, sizeof(shmem)) ||
	    knob("full_scans") < 0)
		test_skip("no THP or khugepaged files");
	long sleep_was = knob("scan_sleep_millisecs"), alloc_was = knob("alloc_sleep_millisecs");
	if (!set_knob("scan_sleep_millisecs", sleep_was))
		test_skip("cannot write khugepaged's knobs (not root)");
	int lock = setting_lock(KDIR "scan_sleep_millisecs");
	bool ok = set_knob("scan_sleep_millisecs", 60000) && set_knob("alloc_sleep_millisecs", 10) &&
		  (strcmp(enabled, "never") || write_file(THP "enabled", "madvise")) &&
		  write_file(THP "shmem_enabled", "advise");
	if (ok && knob("max_ptes_none") != 511)
		note("max_ptes_none is %ld, not the default 511", knob("max_ptes_none"));
	if (ok) {
		anon_part();
		shmem_part();
	}
	set_knob("scan_sleep_millisecs", sleep_was);
	set_knob("alloc_sleep_millisecs", alloc_was);
	write_file(THP "enabled", enabled);
	write_file(THP "shmem_enabled", shmem);
	setting_unlock(lock);
	if (!ok)
		test_skip("could not set the knobs it needs");
	return test_end();
}
