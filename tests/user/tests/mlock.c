/* mlock(2) and its family as a program sees them, the same on mmlab and on
 * Linux:
 *   - bad flags are EINVAL (mlock2, mlockall with none, unknown or only
 *     MCL_ONFAULT); a range with a hole is ENOMEM;
 *   - mlock of an unaligned start locks from its page on, as many pages as
 *     cover the length, faults them in (mincore), splits the VMA (smaps:
 *     Locked, "lo") and counts in VmLck; munlock undoes it;
 *   - mlock2(MLOCK_ONFAULT) locks without faulting in ("lf"), a touch
 *     faults one page;
 *   - mlockall(MCL_FUTURE) locks and faults in the mappings made after it;
 *     munlockall ends that;
 *   - skipped where this process may not lock 64 KiB (no CAP_IPC_LOCK and
 *     RLIMIT_MEMLOCK too low: mlock_allowed()); mlockall(MCL_FUTURE) is
 *     skipped where it is refused (EPERM: RLIMIT_MEMLOCK of 0);
 *   - on mmlab, mlock is a bulk populate: a THP-eligible range as long as
 *     clear_huge_page_threshold_kb has its huge pages cleared the way
 *     MADV_POPULATE_WRITE's are (clear_huge_page_uncached in /proc/vmstat:
 *     uncached where the CPU has a non-temporal method that is not slow),
 *     when the method is auto and the faults got huge pages. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif
#define MLOCK_ONFAULT_ 1

static long mlock2_(const void *p, size_t len, int flags) { return syscall(325, p, len, flags); }

/* Resident pages of [p, p + pages * 4 KiB) by mincore. */
static long resident(const void *p, unsigned long pages)
{
	unsigned char vec[64];
	if (pages > sizeof(vec) || mincore((void *)p, pages * PAGE_4K, vec))
		return -1;
	long n = 0;
	for (unsigned long i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

/* Whether the smaps VmFlags line of the VMA at p has word. */
static bool vmflag(const void *p, const char *word)
{
	static char text[1 << 20];
	if (read_file("/proc/self/smaps", text, sizeof(text)) <= 0)
		return false;
	char head[32];
	snprintf(head, sizeof(head), "%08lx-", (unsigned long)(uintptr_t)p);
	char *at = strstr(text, head);
	char *flags = at ? strstr(at, "VmFlags:") : NULL;
	if (!flags)
		return false;
	char *end = strchr(flags, '\n');
	char want[8];
	snprintf(want, sizeof(want), " %s ", word);
	size_t n = end ? (size_t)(end - flags) : strlen(flags);
	char line[256];
	snprintf(line, sizeof(line), "%.*s ", (int)(n < 250 ? n : 250), flags);
	if (!strstr(line, want))
		printf("# %p: no \"%s\" in \"%s\"\n", p, word, line);
	return strstr(line, want) != NULL;
}

int main(void)
{
	test_begin("mlock");
	char why[160];
	if (!mlock_allowed(16 * PAGE_4K, why, sizeof(why)))
		test_skip("%s", why);
	char *p = mmap(NULL, 16 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return test_end();
	small_pages(p, 16 * PAGE_4K); /* one page a fault, even with multi-size THP */
	CHECK_ERRNO(mlock2_(p, PAGE_4K, 2), EINVAL);
	CHECK_ERRNO(mlockall(0), EINVAL);
	CHECK_ERRNO(mlockall(MCL_ONFAULT), EINVAL);
	CHECK_ERRNO(mlockall(8), EINVAL);
	long lck0 = status_kb("VmLck");

	/* mlock from an unaligned start: pages 0..8 (8 pages + 100 bytes). */
	CHECK_CMP(resident(p, 16), ==, 0);
	CHECK(mlock(p + 100, 8 * PAGE_4K) == 0);
	CHECK_CMP(resident(p, 9), ==, 9);
	CHECK_CMP(resident(p + 9 * PAGE_4K, 7), ==, 0);
	CHECK_CMP(status_kb("VmLck"), ==, lck0 + 36);
	CHECK_CMP(smaps_kb(p, "Size"), ==, 36);
	CHECK_CMP(smaps_kb(p, "Locked"), ==, 36);
	CHECK(vmflag(p, "lo"));
	CHECK(!vmflag(p + 9 * PAGE_4K, "lo"));
	CHECK(munlock(p, 16 * PAGE_4K) == 0);
	CHECK_CMP(status_kb("VmLck"), ==, lck0);
	CHECK_CMP(smaps_kb(p, "Locked"), ==, 0);
	CHECK(!vmflag(p, "lo"));

	/* MLOCK_ONFAULT: locked, nothing faulted in until touched. */
	CHECK(mlock2_(p + 10 * PAGE_4K, 4 * PAGE_4K, MLOCK_ONFAULT_) == 0);
	CHECK(vmflag(p + 10 * PAGE_4K, "lo"));
	/* "lf" since Linux 6.2 (6.1 prints "??" for the bit). */
	CHECK(vmflag(p + 10 * PAGE_4K, "lf") || (!on_mmlab() && vmflag(p + 10 * PAGE_4K, "??")));
	CHECK_CMP(resident(p + 10 * PAGE_4K, 4), ==, 0);
	p[11 * PAGE_4K] = 1;
	CHECK_CMP(resident(p + 10 * PAGE_4K, 4), ==, 1);
	CHECK(munlock(p, 16 * PAGE_4K) == 0);

	/* A hole in the range. */
	CHECK(munmap(p + 4 * PAGE_4K, PAGE_4K) == 0);
	CHECK_ERRNO(mlock(p, 8 * PAGE_4K), ENOMEM);
	CHECK_ERRNO(munlock(p, 8 * PAGE_4K), ENOMEM);
	CHECK(munmap(p, 16 * PAGE_4K) == 0);

	/* mlockall(MCL_FUTURE): the next mapping comes in locked and faulted. */
	if (mlockall(MCL_FUTURE) == 0) {
		char *q = mmap(NULL, 4 * PAGE_4K, RW, ANON, -1, 0);
		if (CHECK(q != MAP_FAILED)) {
			CHECK_CMP(resident(q, 4), ==, 4);
			CHECK(vmflag(q, "lo"));
		}
		CHECK(munlockall() == 0);
		char *r = mmap(NULL, 4 * PAGE_4K, RW, ANON, -1, 0);
		if (CHECK(r != MAP_FAILED)) {
			CHECK_CMP(resident(r, 4), ==, 0);
			munmap(r, 4 * PAGE_4K);
		}
		if (q != MAP_FAILED) {
			CHECK(!vmflag(q, "lo"));
			munmap(q, 4 * PAGE_4K);
		}
		CHECK_CMP(status_kb("VmLck"), ==, lck0);
	} else {
		check_skip("mlockall(MCL_FUTURE): %s (RLIMIT_MEMLOCK of 0?)", errno_name(errno));
	}

	/* mmlab: mlock as the bulk hint. */
	char method[32] = "";
	long threshold_kb = -1;
	if (on_mmlab() && read_file("/proc/sys/vm/clear_huge_page_method", method, sizeof(method)) > 0) {
		char buf[32];
		if (read_file("/proc/sys/vm/clear_huge_page_threshold_kb", buf, sizeof(buf)) > 0)
			threshold_kb = strtol(buf, NULL, 10);
	}
	if (!strncmp(method, "auto", 4) && threshold_kb > 0 && threshold_kb <= 32 * 1024) {
		/* The same populate twice, THP-eligible and as long as the
		 * threshold: by MADV_POPULATE_WRITE (a bulk hint already), then
		 * by mlock; both clear their huge pages the same way. */
		unsigned long len = ((unsigned long)threshold_kb * KiB + 2 * MiB - 1) & ~(2 * MiB - 1);
		long thp[2] = { 0, 0 }, unc[2] = { 0, 0 };
		for (int way = 0; way < 2; way++) {
			char *raw = mmap(NULL, len + 2 * MiB, RW, ANON, -1, 0);
			if (!CHECK(raw != MAP_FAILED))
				break;
			char *h = (char *)(((uintptr_t)raw + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
			CHECK(madvise(h, len, MADV_HUGEPAGE) == 0);
			long thp0 = vmstat_value("thp_fault_alloc"), unc0 = vmstat_value("clear_huge_page_uncached");
			CHECK((way ? mlock(h, len) : madvise(h, len, 23 /* MADV_POPULATE_WRITE */)) == 0);
			thp[way] = vmstat_value("thp_fault_alloc") - thp0;
			unc[way] = vmstat_value("clear_huge_page_uncached") - unc0;
			CHECK(all_bytes(h, len, 0));
			if (way)
				CHECK(munlock(h, len) == 0);
			munmap(raw, len + 2 * MiB);
		}
		printf("# %lu MiB (threshold %ld kB): MADV_POPULATE_WRITE thp +%ld uncached +%ld; mlock thp +%ld "
		       "uncached +%ld\n", len >> 20, threshold_kb, thp[0], unc[0], thp[1], unc[1]);
		/* Where both got huge pages, mlock's went the populate's way:
		 * uncached for every one, or for none. */
		if (thp[0] && thp[1]) {
			CHECK_CMP(unc[0] == thp[0], ==, unc[1] == thp[1]);
			CHECK_CMP(unc[0] == 0, ==, unc[1] == 0);
		}
	}
	return test_end();
}
