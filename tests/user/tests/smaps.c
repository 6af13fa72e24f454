/* /proc/self/smaps and smaps_rollup as Linux serves them
 * (fs/proc/task_mmu.c show_smap, show_smaps_rollup): a VMA's block of
 * lines after its maps line, with Rss counted from the page tables.
 *
 * A VMA of its own (64 pages between two PROT_NONE guards, so it merges
 * with nothing): Size 256 kB; Rss 0 before any touch, then exactly what
 * was written (Anonymous, Pss and Private_Dirty the same; nothing shared,
 * swapped, locked or huge), the zero page of reads not counted (Linux: not
 * a normal page; on a kernel that backs reads with pages of their own,
 * they count), pages given back with MADV_DONTNEED gone again. The lines
 * come in Linux's order; smaps_rollup's Rss is the sum of every VMA's.
 * Nothing here differs between mmlab and Linux. THPeligible is 0 on mmlab
 * (256 kB holds no aligned 2 MiB, whatever the THP mode); Linux 6.1 and
 * 6.12 say the same for that reason, but the check stays mmlab's alone. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define PAGES 64
#define BUF_SIZE (1u << 20)

static char smaps[BUF_SIZE], rollup[8192];

/* The block of the VMA that starts at start (its maps line included, up to
 * the next VMA's), NUL-terminated in place; NULL if not found. */
static char *vma_block(char *text, const void *start)
{
	char head[32];
	snprintf(head, sizeof(head), "%08lx-", (unsigned long)(uintptr_t)start);
	for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, head, strlen(head)))
			continue;
		char *end = strstr(line, "\nVmFlags:");
		if (end && (end = strchr(end + 1, '\n')))
			end[1] = 0;
		return line;
	}
	return NULL;
}

/* The kB figure of a field in a block ("Rss" -> the number after "Rss:"). */
static long kb(const char *block, const char *name)
{
	char key[32];
	snprintf(key, sizeof(key), "\n%s:", name);
	const char *line = strstr(block, key);
	return line ? field_after(line + 1, key + 1) : -1;
}

static bool read_smaps(void)
{
	return read_file("/proc/self/smaps", smaps, sizeof(smaps)) > 0;
}

/* The Rss of the VMA at start, read now. */
static long vma_rss(const void *start)
{
	if (!read_smaps())
		return -1;
	char *b = vma_block(smaps, start);
	return b ? kb(b, "Rss") : -1;
}

/* Linux's lines, in order, that every version since 6.1 prints. */
static const char *const labels[] = {
	"Size:", "KernelPageSize:", "MMUPageSize:", "Rss:", "Pss:", "Pss_Dirty:", "Shared_Clean:",
	"Shared_Dirty:", "Private_Clean:", "Private_Dirty:", "Referenced:", "Anonymous:", "LazyFree:",
	"AnonHugePages:", "ShmemPmdMapped:", "FilePmdMapped:", "Shared_Hugetlb:", "Private_Hugetlb:",
	"Swap:", "SwapPss:", "Locked:", "THPeligible:", "VmFlags:",
};

int main(void)
{
	test_begin("smaps");
	memset(smaps, 1, sizeof(smaps)); /* the buffers' pages are there before any Rss is read */
	memset(rollup, 1, sizeof(rollup));
	unsigned char *g = mmap(NULL, (PAGES + 2) * PAGE_4K, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(g != MAP_FAILED))
		return test_end();
	unsigned char *p = g + PAGE_4K;
	CHECK(mprotect(p, PAGES * PAGE_4K, PROT_READ | PROT_WRITE) == 0);
	small_pages(p, PAGES * PAGE_4K); /* one page a fault, even with multi-size THP */

	if (!CHECK(read_smaps()))
		return test_end();
	char *b = vma_block(smaps, p);
	if (!CHECK(b != NULL))
		return test_end();
	/* The block's lines in Linux's order. */
	const char *at = b;
	bool ordered = true;
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]) && ordered; i++) {
		char key[32];
		snprintf(key, sizeof(key), "\n%s", labels[i]);
		const char *next = strstr(at, key);
		ordered = next != NULL;
		if (!ordered)
			note("smaps: no %s after the previous line", labels[i]);
		at = next;
	}
	CHECK(ordered);
	CHECK_CMP(kb(b, "Size"), ==, PAGES * 4);
	CHECK_CMP(kb(b, "KernelPageSize"), ==, 4);
	CHECK_CMP(kb(b, "MMUPageSize"), ==, 4);
	CHECK_CMP(kb(b, "Rss"), ==, 0);
	const char *flags = strstr(b, "\nVmFlags: ");
	CHECKF(flags && !strncmp(flags, "\nVmFlags: rd wr mr mw me ", 25), "VmFlags of private read-write memory");
	if (on_mmlab())
		CHECK_CMP(kb(b, "THPeligible"), ==, 0); /* too small for a THP */

	/* 10 pages written. */
	touch_pages(p, 10 * PAGE_4K, 7);
	if (CHECK(read_smaps()) && CHECK((b = vma_block(smaps, p)) != NULL)) {
		CHECK_CMP(kb(b, "Rss"), ==, 40);
		CHECK_CMP(kb(b, "Pss"), ==, 40);
		CHECK_CMP(kb(b, "Pss_Dirty"), ==, 40);
		CHECK_CMP(kb(b, "Anonymous"), ==, 40);
		CHECK_CMP(kb(b, "Private_Dirty"), ==, 40);
		CHECK_CMP(kb(b, "Private_Clean"), ==, 0);
		CHECK_CMP(kb(b, "Shared_Clean") + kb(b, "Shared_Dirty"), ==, 0);
		CHECK_CMP(kb(b, "Referenced"), ==, 40);
		CHECK_CMP(kb(b, "AnonHugePages"), ==, 0);
		CHECK_CMP(kb(b, "Swap"), ==, 0);
		CHECK_CMP(kb(b, "SwapPss"), ==, 0);
		CHECK_CMP(kb(b, "Locked"), ==, 0);
		CHECK_CMP(kb(b, "LazyFree"), ==, 0);
	}

	/* 6 more pages only read: the zero page is not in Rss. */
	unsigned sum = 0;
	for (int i = 20; i < 26; i++)
		sum += ((volatile unsigned char *)p)[i * PAGE_4K];
	CHECK_CMP(sum, ==, 0);
	long read_rss = vma_rss(p);
	if (reads_map_zero_page())
		CHECK_CMP(read_rss, ==, 40);
	else
		CHECK_CMP(read_rss, ==, 40 + 6 * 4);

	/* 4 of the written pages given back. */
	CHECK(madvise(p + 2 * PAGE_4K, 4 * PAGE_4K, MADV_DONTNEED) == 0);
	CHECK_CMP(vma_rss(p), ==, read_rss - 16);

	/* smaps_rollup: the sum of every VMA's Rss, read back to back. */
	bool both = read_smaps() && read_file("/proc/self/smaps_rollup", rollup, sizeof(rollup)) > 0;
	if (CHECK(both)) {
		long sum_rss = 0;
		for (const char *r = strstr(smaps, "\nRss:"); r; r = strstr(r + 1, "\nRss:"))
			sum_rss += field_after(r + 1, "Rss:");
		const char *line = strstr(rollup, "\nRss:");
		CHECKF(strstr(rollup, "[rollup]\n") != NULL, "the rollup's header names it");
		CHECK(line != NULL);
		if (line)
			CHECK_CMP(field_after(line + 1, "Rss:"), ==, sum_rss);
		CHECK(strstr(rollup, "\nPss_Anon:") != NULL);
		CHECK(strstr(rollup, "\nVmFlags:") == NULL);
		note("smaps_rollup Rss %ld kB, VmRSS %ld kB", sum_rss, status_kb("VmRSS"));
	}

	CHECK(munmap(g, (PAGES + 2) * PAGE_4K) == 0);
	return test_end();
}
