/* msync(2) on anonymous memory, the same on mmlab and on Linux: nothing to
 * write back, so what a program sees is the checks, in Linux's order:
 *   - flags other than MS_ASYNC, MS_INVALIDATE and MS_SYNC, an unaligned
 *     start, MS_ASYNC with MS_SYNC: EINVAL, before anything else;
 *   - a range that wraps: ENOMEM; an empty range: 0, mapped or not; the
 *     length is rounded up to whole pages;
 *   - a hole in the range: ENOMEM (a kernel address is one);
 *   - MS_INVALIDATE over locked memory: EBUSY, which wins over a hole
 *     before it; MS_SYNC and MS_ASYNC on locked memory: 0;
 *   - PROT_NONE memory: 0. */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

int main(void)
{
	test_begin("msync");
	char *p = mmap(NULL, 8 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return test_end();
	p[0] = 1;
	CHECK(msync(p, 8 * PAGE_4K, MS_ASYNC) == 0);
	CHECK(msync(p, 8 * PAGE_4K, MS_SYNC) == 0);
	CHECK(msync(p, 8 * PAGE_4K, MS_INVALIDATE) == 0);
	CHECK(msync(p, 8 * PAGE_4K, MS_SYNC | MS_INVALIDATE) == 0);
	CHECK(msync(p, 8 * PAGE_4K, 0) == 0);
	CHECK(msync(p, 100, MS_SYNC) == 0);
	CHECK(p[0] == 1);

	CHECK_ERRNO(msync(p + 1, PAGE_4K, MS_SYNC), EINVAL);
	CHECK_ERRNO(msync(p, PAGE_4K, 8), EINVAL);
	CHECK_ERRNO(msync(p, PAGE_4K, MS_ASYNC | MS_SYNC), EINVAL);
	/* EINVAL comes before the range is looked at. */
	CHECK_ERRNO(msync(p + 1, (size_t)-2 * PAGE_4K, MS_SYNC), EINVAL);
	CHECK_ERRNO(msync(p, (size_t)-2 * PAGE_4K, MS_SYNC), ENOMEM);
	CHECK(msync(p, 0, MS_SYNC) == 0);
	CHECK(msync((void *)0xffffffff80000000ul, 0, MS_SYNC) == 0);
	CHECK_ERRNO(msync((void *)0xffffffff80000000ul, PAGE_4K, MS_SYNC), ENOMEM);

	/* A hole at page 2. */
	CHECK(munmap(p + 2 * PAGE_4K, PAGE_4K) == 0);
	CHECK_ERRNO(msync(p, 8 * PAGE_4K, MS_SYNC), ENOMEM);
	CHECK_ERRNO(msync(p, 8 * PAGE_4K, MS_ASYNC), ENOMEM);
	CHECK_ERRNO(msync(p, 8 * PAGE_4K, 0), ENOMEM);
	CHECK_ERRNO(msync(p + 2 * PAGE_4K, PAGE_4K, MS_SYNC), ENOMEM);
	CHECK_ERRNO(msync(p + 2 * PAGE_4K, 2 * PAGE_4K, MS_INVALIDATE), ENOMEM);
	CHECK(msync(p + 3 * PAGE_4K, 5 * PAGE_4K, MS_SYNC) == 0);

	/* Page 4 locked, where this process may lock a page (root or
	 * RLIMIT_MEMLOCK: mlock_allowed()). */
	char why[160];
	if (!mlock_allowed(PAGE_4K, why, sizeof(why))) {
		check_skip("the locked cases: %s", why);
	} else if (CHECK(mlock(p + 4 * PAGE_4K, PAGE_4K) == 0)) {
		CHECK_ERRNO(msync(p + 3 * PAGE_4K, 3 * PAGE_4K, MS_INVALIDATE), EBUSY);
		CHECK_ERRNO(msync(p + 2 * PAGE_4K, 3 * PAGE_4K, MS_INVALIDATE), EBUSY);
		CHECK(msync(p + 3 * PAGE_4K, 3 * PAGE_4K, MS_SYNC) == 0);
		CHECK(msync(p + 3 * PAGE_4K, 3 * PAGE_4K, MS_ASYNC) == 0);
		CHECK(munlock(p + 4 * PAGE_4K, PAGE_4K) == 0);
		CHECK(msync(p + 3 * PAGE_4K, 3 * PAGE_4K, MS_INVALIDATE) == 0);
	}

	/* PROT_NONE. */
	CHECK(mprotect(p + 5 * PAGE_4K, 3 * PAGE_4K, PROT_NONE) == 0);
	CHECK(msync(p + 5 * PAGE_4K, 3 * PAGE_4K, MS_SYNC | MS_INVALIDATE) == 0);
	munmap(p, 8 * PAGE_4K);
	return test_end();
}
