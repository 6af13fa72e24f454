/* Transparent huge pages as a program sees them, the same on mmlab and on
 * Linux: /sys/kernel/mm/transparent_hugepage/enabled and defrag in Linux's
 * format (every word, the one in force in brackets); 4 MiB on a 2 MiB
 * boundary with MADV_HUGEPAGE is THPeligible and, written, is zero but for
 * what was written and is backed by huge pages: AnonHugePages of its VMA in /proc/self/smaps,
 * as many as /proc/vmstat's thp_fault_alloc went up by at least; a munmap
 * of one 4 KiB page in the middle splits its huge page (thp_split_pmd goes
 * up, AnonHugePages down by 2048 kB) and every other byte stays; a
 * MADV_DONTNEED of a whole 2 MiB gives it back, and it reads zero again.
 *
 * Whether huge pages can be had depends on the machine: with the mode
 * "never" the huge-page checks are skipped; on mmlab, with free 2 MiB
 * blocks in /proc/buddyinfo, both 2 MiB must be huge; on Linux, which may
 * fall back under fragmentation or memory pressure (and under the defrag
 * mode in force), what smaps says must agree with vmstat. The mode for
 * 2 MiB pages is thp_pmd_mode(): Linux 6.8 and later let
 * hugepages-2048kB/enabled override the top-level one. Skipped on a Linux
 * without THP, and in a process that inherited PR_SET_THP_DISABLE. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#define HPAGE (2 * MiB)

static char text[1 << 16];

/* The mode in brackets, and whether the line has Linux's shape: the words
 * in Linux's order, exactly one of them bracketed. */
static bool read_mode(const char *path, const char *const *words, int n, char *mode, size_t size)
{
	char buf[256];
	long len = read_file(path, buf, sizeof(buf));
	if (len <= 0 || buf[len - 1] != '\n')
		return false;
	buf[len - 1] = 0;
	char want[256] = "";
	int found = 0;
	for (int i = 0; i < n; i++) {
		char bracketed[64];
		snprintf(bracketed, sizeof(bracketed), "[%s]", words[i]);
		const char *at = strstr(buf, bracketed);
		bool cur = at && (at == buf || at[-1] == ' ');
		if (cur) {
			found++;
			snprintf(mode, size, "%s", words[i]);
		}
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s%s%s", i ? " " : "", cur ? "[" : "",
			 words[i], cur ? "]" : "");
	}
	return found == 1 && !strcmp(buf, want);
}

/* Free blocks of order 9 or more, all nodes (/proc/buddyinfo's columns). */
static long free_huge_blocks(void)
{
	if (read_file("/proc/buddyinfo", text, sizeof(text)) <= 0)
		return -1;
	long blocks = 0;
	for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *p = strstr(line, "zone");
		if (!p)
			continue;
		/* "zone", blanks, the zone's name, then one count per order */
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		for (int order = 0; *p && *p != '\n'; order++) {
			char *end;
			long c = strtol(p, &end, 10);
			if (end == p)
				break;
			p = end;
			if (order >= 9)
				blocks += c << (order - 9);
		}
	}
	return blocks;
}

int main(void)
{
	test_begin("thp");
	const char *pmd_mode = thp_pmd_mode();
	if (!pmd_mode)
		test_skip("no /sys/kernel/mm/transparent_hugepage: a kernel without THP");
	if (!on_mmlab() && prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0)
		test_skip("THP is disabled for this process (PR_SET_THP_DISABLE, inherited from what started it)");
	static const char *const enabled_words[] = { "always", "madvise", "never" };
	static const char *const defrag_words[] = { "always", "defer", "defer+madvise", "madvise", "never" };
	char enabled[16] = "", defrag[16] = "";
	CHECKF(read_mode("/sys/kernel/mm/transparent_hugepage/enabled", enabled_words, 3, enabled, sizeof(enabled)),
	       "transparent_hugepage/enabled in Linux's format (%s in force)", enabled);
	CHECKF(read_mode("/sys/kernel/mm/transparent_hugepage/defrag", defrag_words, 5, defrag, sizeof(defrag)),
	       "transparent_hugepage/defrag in Linux's format (%s in force)", defrag);
	long pmd = -1;
	if (read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", text, sizeof(text)) > 0)
		sscanf(text, "%ld", &pmd);
	CHECK_CMP(pmd, ==, (long)HPAGE);
	/* A kernel with THP says so in status, whatever the mode in force
	 * (Linux's task_thp_status: only PR_SET_THP_DISABLE makes it 0). */
	static char status[4096];
	if (CHECK(read_file("/proc/self/status", status, sizeof(status)) > 0))
		CHECK_CMP(field_after(status, "THP_enabled:"), ==, 1);

	/* 4 MiB on a 2 MiB boundary: map 6 MiB, keep the aligned middle. */
	char *raw = mmap(NULL, 3 * HPAGE, RW, ANON, -1, 0);
	if (!CHECK(raw != MAP_FAILED))
		return test_end();
	char *p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
	if (p > raw)
		munmap(raw, p - raw);
	if (p + 2 * HPAGE < raw + 3 * HPAGE)
		munmap(p + 2 * HPAGE, raw + 3 * HPAGE - (p + 2 * HPAGE));
	CHECK(madvise(p, 2 * HPAGE, MADV_HUGEPAGE) == 0);
	bool may = strcmp(pmd_mode, "never") != 0;
	if (strcmp(pmd_mode, enabled))
		note("hugepages-2048kB/enabled overrides the top-level mode: %s for 2 MiB pages", pmd_mode);
	CHECK_CMP(smaps_kb(p, "THPeligible"), ==, may ? 1 : 0);

	long blocks = free_huge_blocks();
	long allocs = vmstat_value("thp_fault_alloc");
	/* Written first (a read first would map the huge zero page, and a
	 * later write then gets 4 KiB pages, on both kernels): each 4 KiB page
	 * gets its index in its first word, and the rest of it reads zero. */
	for (unsigned long i = 0; i < 2 * HPAGE / PAGE_4K; i++)
		*(unsigned long *)(p + i * PAGE_4K) = 0x1000 + i;
	bool zero = true;
	for (unsigned long i = 0; i < 2 * HPAGE / PAGE_4K; i++)
		zero = zero && all_bytes(p + i * PAGE_4K + 8, PAGE_4K - 8, 0);
	CHECKF(zero, "every page zero but the word written");
	long huge_kb = smaps_kb(p, "AnonHugePages");
	long faulted = vmstat_value("thp_fault_alloc") - allocs;
	printf("# enabled %s, defrag %s, %ld free 2 MiB blocks: AnonHugePages %ld kB, thp_fault_alloc +%ld\n",
	       enabled, defrag, blocks, huge_kb, faulted);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, 4096);
	if (!may) {
		CHECK_CMP(huge_kb, ==, 0);
	} else {
		CHECK(huge_kb == 0 || huge_kb == 2048 || huge_kb == 4096);
		CHECK_CMP(faulted, >=, huge_kb / 2048);
		if (on_mmlab() && blocks >= 2)
			CHECK_CMP(huge_kb, ==, 4096);
	}

	/* One 4 KiB page out of the middle of the first: split, the rest kept. */
	long splits = vmstat_value("thp_split_pmd");
	CHECK(munmap(p + 100 * PAGE_4K, PAGE_4K) == 0);
	bool kept = true;
	for (unsigned long i = 0; i < 2 * HPAGE / PAGE_4K; i++)
		if (i != 100 && *(unsigned long *)(p + i * PAGE_4K) != 0x1000 + i)
			kept = false;
	CHECKF(kept, "every other page kept its word after the munmap");
	/* Two VMAs now: [p, page 100) and [page 101, 4 MiB). */
	char *rest = p + 101 * PAGE_4K, *second = p + HPAGE;
	if (huge_kb == 4096) {
		CHECK_CMP(vmstat_value("thp_split_pmd") - splits, >=, 1);
		CHECK_CMP(smaps_kb(p, "AnonHugePages"), ==, 0);
		CHECK_CMP(smaps_kb(rest, "AnonHugePages"), ==, 2048); /* the second, still huge */
	}
	/* The whole second 2 MiB given back: gone, then zero again. */
	CHECK(madvise(second, HPAGE, MADV_DONTNEED) == 0);
	CHECK_CMP(smaps_kb(rest, "Rss"), ==, (long)(HPAGE / PAGE_4K - 101) * 4);
	CHECK_CMP(smaps_kb(rest, "AnonHugePages"), ==, 0);
	CHECK(all_bytes(second, HPAGE, 0));
	CHECK(munmap(p, 2 * HPAGE) == 0);
	return test_end();
}
