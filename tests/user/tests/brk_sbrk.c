/* The program break, through the brk system call itself (musl's sbrk()
 * only reads the break and its brk() always fails: musl's malloc owns the
 * break; and the C libraries' wrappers are not what is tested here). The
 * call returns the break after it: brk(0) reads it, growing it maps zeroed
 * memory (VmSize grows by the pages it spans), shrinking it unmaps (VmSize
 * falls back), memory that was given back is zero when the break grows over
 * it again, and a break the kernel refuses (far beyond the address space)
 * returns the old break unchanged (glibc's wrapper makes that ENOMEM). Like
 * Linux's sys_brk (mm/mmap.c). Nothing here calls malloc, the break's other
 * user, so the break is where the C library's start-up left it (glibc's
 * malloc may have moved it: the test only moves it above that). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static uintptr_t page_up(uintptr_t v)
{
	return (v + PAGE_4K - 1) & ~(PAGE_4K - 1);
}

/* The system call: the break after the call. */
static char *sys_brk(void *want)
{
	return (char *)syscall(SYS_brk, want);
}

int main(void)
{
	test_begin("brk_sbrk");
	char *start = sys_brk(NULL);
	CHECK(start != (void *)-1);
	CHECK(start != NULL);
	note("initial break %p", start);

	long size0 = status_kb("VmSize");
	const intptr_t grow = 256 * 1024 + 100;
	char *now = sys_brk(start + grow);
	CHECKF(now == start + grow, "brk(start + %ld) moves the break to %p (got %p)", (long)grow,
	       start + grow, now);
	CHECK(sys_brk(NULL) == start + grow);
	long size1 = status_kb("VmSize");
	long expect_kb = (long)(page_up((uintptr_t)start + grow) - page_up((uintptr_t)start)) / 1024;
	CHECK_CMP(size1 - size0, ==, expect_kb);
	CHECK(all_bytes(start, (size_t)grow, 0));
	memset(start, 0xcd, (size_t)grow);
	CHECK(all_bytes(start, (size_t)grow, 0xcd));

	/* Shrink by half: the top half's pages are gone from VmSize. */
	char *mid = start + grow - grow / 2;
	CHECK(sys_brk(mid) == mid);
	CHECK(sys_brk(NULL) == mid);
	long size2 = status_kb("VmSize");
	CHECK_CMP(size1 - size2, ==,
		  (long)(page_up((uintptr_t)start + grow) - page_up((uintptr_t)mid)) / 1024);
	CHECK(all_bytes(start, (size_t)(mid - start), 0xcd));

	/* Grow again: the pages handed back come back zero-filled. The part of
	 * the page that held the break stays (it was never unmapped). */
	CHECK(sys_brk(start + grow) == start + grow);
	char *pg = (char *)page_up((uintptr_t)mid);
	CHECK(all_bytes(pg, (size_t)(start + grow - pg), 0));
	CHECK(all_bytes(start, (size_t)(mid - start), 0xcd));

	CHECK(sys_brk(start + 8192) == start + 8192);
	/* Refused: the call returns the break, which does not move. */
	CHECK(sys_brk((void *)0x7ffffffff0000000UL) == start + 8192);
	CHECK(sys_brk(NULL) == start + 8192);
	CHECK(sys_brk(start + 8192 + ((intptr_t)1 << 50)) == start + 8192);
	CHECK(sys_brk(NULL) == start + 8192);
	/* sbrk(0) (the one sbrk both C libraries have) reads the same break. */
	CHECK(sbrk(0) == start + 8192);

	CHECK(sys_brk(start) == start);
	CHECK(sys_brk(NULL) == start);
	CHECK_CMP(status_kb("VmSize"), ==, size0);
	return test_end();
}
