/* The program break: sbrk(0) reads it, sbrk(+n) grows the heap (new memory
 * reads as zeros, VmSize grows by the pages it spans), sbrk(-n) shrinks it
 * (VmSize falls back), memory that was given back is zero when the break
 * grows over it again, and a break the kernel refuses (far beyond the
 * address space) fails with ENOMEM and leaves the break where it was. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static uintptr_t page_up(uintptr_t v)
{
	return (v + PAGE_4K - 1) & ~(PAGE_4K - 1);
}

int main(void)
{
	test_begin("brk_sbrk");
	char *start = sbrk(0);
	CHECK(start != (void *)-1);
	CHECK(start != NULL);
	note("initial break %p", start);

	long size0 = status_kb("VmSize");
	const intptr_t grow = 256 * 1024 + 100;
	char *old = sbrk(grow);
	CHECKF(old == start, "sbrk(%ld) returns the old break %p (got %p)", (long)grow, start, old);
	char *now = sbrk(0);
	CHECKF(now == start + grow, "the break moved to %p (now %p)", start + grow, now);
	long size1 = status_kb("VmSize");
	long expect_kb = (long)(page_up((uintptr_t)start + grow) - page_up((uintptr_t)start)) / 1024;
	CHECK_CMP(size1 - size0, ==, expect_kb);
	CHECK(all_bytes(start, (size_t)grow, 0));
	memset(start, 0xcd, (size_t)grow);
	CHECK(all_bytes(start, (size_t)grow, 0xcd));

	/* Shrink by half: the top half's pages are gone from VmSize. */
	char *before = sbrk(-grow / 2);
	CHECK(before == start + grow);
	char *mid = sbrk(0);
	CHECK(mid == start + grow - grow / 2);
	long size2 = status_kb("VmSize");
	CHECK_CMP(size1 - size2, ==,
		  (long)(page_up((uintptr_t)start + grow) - page_up((uintptr_t)mid)) / 1024);
	CHECK(all_bytes(start, (size_t)(mid - start), 0xcd));

	/* Grow again: the pages handed back come back zero-filled. The part of
	 * the page that held the break stays (it was never unmapped). */
	CHECK(sbrk(grow / 2) == mid);
	char *pg = (char *)page_up((uintptr_t)mid);
	CHECK(all_bytes(pg, (size_t)(start + grow - pg), 0));
	CHECK(all_bytes(start, (size_t)(mid - start), 0xcd));

	/* brk() itself: 0 on success. */
	CHECK(brk(start + 8192) == 0);
	CHECK(sbrk(0) == start + 8192);
	/* Refused: the break does not move. */
	CHECK_ERRNO(brk((void *)0x7ffffffff0000000UL), ENOMEM);
	CHECK(sbrk(0) == start + 8192);
	CHECK_ERRNO(sbrk((intptr_t)1 << 50), ENOMEM);
	CHECK(sbrk(0) == start + 8192);

	CHECK(brk(start) == 0);
	CHECK(sbrk(0) == start);
	CHECK_CMP(status_kb("VmSize"), ==, size0);
	return test_end();
}
