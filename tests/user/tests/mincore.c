/* mincore(2) on private anonymous memory, as Linux answers (mm/mincore.c):
 * a page never touched is 0, a written page 1, a page only read 1 too (the
 * zero page is mapped by a present PTE, and mincore looks at
 * pte_present), a PROT_NONE page still 1, a page given back with
 * MADV_DONTNEED 0 again. Errors in Linux's order: an unaligned start
 * EINVAL, a range past the user address space or wrapping ENOMEM, an
 * unmapped start ENOMEM, a hole after the start ENOMEM after the bytes of
 * the mapped part were written, a vec that cannot be written EFAULT.
 * Nothing here differs between mmlab and Linux. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define PAGES 16

/* The system call itself (libc wrappers do not differ here, but this
 * keeps the arguments exactly as given). */
static long sys_mincore(void *start, size_t len, unsigned char *vec)
{
	return syscall(SYS_mincore, start, len, vec);
}

static int resident(const unsigned char *vec, int from, int to)
{
	int n = 0;
	for (int i = from; i < to; i++)
		n += vec[i] & 1;
	return n;
}

int main(void)
{
	test_begin("mincore");
	unsigned char vec[PAGES];
	unsigned char *p = mmap(NULL, PAGES * PAGE_4K, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return test_end();
	small_pages(p, PAGES * PAGE_4K); /* one page a fault, even with multi-size THP */

	CHECK_CMP(sys_mincore(p, PAGES * PAGE_4K, vec), ==, 0);
	CHECK_CMP(resident(vec, 0, PAGES), ==, 0); /* never touched */

	touch_pages(p, 4 * PAGE_4K, 1);                 /* pages 0..3 written */
	volatile unsigned char sink = p[4 * PAGE_4K] + p[5 * PAGE_4K]; /* 4, 5 read */
	(void)sink;
	CHECK_CMP(sys_mincore(p, PAGES * PAGE_4K, vec), ==, 0);
	CHECK_CMP(resident(vec, 0, 4), ==, 4);
	CHECKF(vec[4] == 1 && vec[5] == 1, "pages only read are resident (%s): %u %u",
	       reads_map_zero_page() ? "the zero page" : "pages of their own", vec[4], vec[5]);
	CHECK_CMP(resident(vec, 6, PAGES), ==, 0);
	/* Only the low bit is defined; Linux writes 0 or 1. */
	CHECK_CMP(vec[0], ==, 1);

	/* A PROT_NONE page keeps its PTE present (x86's pte_present). */
	CHECK(mprotect(p + 2 * PAGE_4K, PAGE_4K, PROT_NONE) == 0);
	CHECK(madvise(p, 2 * PAGE_4K, MADV_DONTNEED) == 0);
	CHECK_CMP(sys_mincore(p, PAGES * PAGE_4K, vec), ==, 0);
	CHECKF(vec[0] == 0 && vec[1] == 0, "MADV_DONTNEED pages are not resident: %u %u", vec[0], vec[1]);
	CHECKF(vec[2] == 1, "a PROT_NONE page is resident: %u", vec[2]);
	CHECK_CMP(vec[3], ==, 1);
	CHECK(mprotect(p + 2 * PAGE_4K, PAGE_4K, PROT_READ | PROT_WRITE) == 0);

	/* A length that is not a page multiple counts its last part page. */
	memset(vec, 0xff, sizeof(vec));
	CHECK_CMP(sys_mincore(p + 3 * PAGE_4K, PAGE_4K + 1, vec), ==, 0);
	CHECKF(vec[0] == 1 && vec[1] == 1 && vec[2] == 0xff, "two bytes for a page and one: %u %u %#x",
	       vec[0], vec[1], vec[2]);

	/* Errors, in Linux's order. */
	CHECK_ERRNO(sys_mincore(p + 1, PAGE_4K, vec), EINVAL);
	CHECK_ERRNO(sys_mincore((void *)1, PAGE_4K, NULL), EINVAL); /* alignment first */
	CHECK_ERRNO(sys_mincore((void *)0x7fffffff0000ul, 1ul << 40, vec), ENOMEM);
	CHECK_ERRNO(sys_mincore((void *)0x10000ul, -0x8000ul, vec), ENOMEM); /* wraps */
	CHECK_ERRNO(sys_mincore(p, PAGE_4K, NULL), EFAULT);
	CHECK(mprotect(p + 8 * PAGE_4K, PAGE_4K, PROT_READ) == 0);
	CHECK_ERRNO(sys_mincore(p, PAGE_4K, p + 8 * PAGE_4K), EFAULT); /* vec read-only */
	CHECK(mprotect(p + 8 * PAGE_4K, PAGE_4K, PROT_READ | PROT_WRITE) == 0);

	/* A hole: the start unmapped, or a hole after it. */
	CHECK(munmap(p + 12 * PAGE_4K, PAGE_4K) == 0);
	CHECK_ERRNO(sys_mincore(p + 12 * PAGE_4K, PAGE_4K, vec), ENOMEM);
	CHECK_CMP(sys_mincore(p + 12 * PAGE_4K, 0, vec), ==, 0); /* nothing asked */
	touch_pages(p + 10 * PAGE_4K, 2 * PAGE_4K, 2);
	memset(vec, 0xff, sizeof(vec));
	CHECK_ERRNO(sys_mincore(p + 10 * PAGE_4K, 4 * PAGE_4K, vec), ENOMEM);
	CHECKF(vec[0] == 1 && vec[1] == 1 && vec[2] == 0xff,
	       "the mapped part before the hole is written, nothing after: %u %u %#x", vec[0], vec[1],
	       vec[2]);

	CHECK(munmap(p, 12 * PAGE_4K) == 0);
	CHECK(munmap(p + 13 * PAGE_4K, 3 * PAGE_4K) == 0);
	return test_end();
}
