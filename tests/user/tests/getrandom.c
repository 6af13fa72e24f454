/* getrandom(2): two reads differ, the lengths (0, small, large, cut short
 * by an unmapped page), and Linux's errors in its order: EINVAL for unknown
 * flags and for GRND_INSECURE with GRND_RANDOM (before the buffer is looked
 * at), EFAULT for a buffer it cannot write at all. */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_getrandom
#define SYS_getrandom 318
#endif
#define GRND_NONBLOCK 0x0001
#define GRND_RANDOM 0x0002
#define GRND_INSECURE 0x0004

static long getrandom_(void *buf, size_t len, unsigned int flags)
{
	return syscall(SYS_getrandom, buf, len, flags);
}

static void differing(void)
{
	unsigned char a[32], b[32], zero[32];
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(zero, 0, sizeof(zero));
	CHECK_CMP(getrandom_(a, sizeof(a), 0), ==, 32);
	CHECK_CMP(getrandom_(b, sizeof(b), 0), ==, 32);
	CHECKF(memcmp(a, b, sizeof(a)) != 0, "two 32-byte reads differ");
	CHECKF(memcmp(a, zero, sizeof(a)) != 0, "a read is not all zero");
	CHECK_CMP(getrandom_(b, sizeof(b), GRND_NONBLOCK), ==, 32);
	CHECK_CMP(getrandom_(b, sizeof(b), GRND_RANDOM), ==, 32);
	CHECK_CMP(getrandom_(b, sizeof(b), GRND_INSECURE), ==, 32);
	CHECK_CMP(getrandom_(b, sizeof(b), GRND_RANDOM | GRND_NONBLOCK), ==, 32);
}

static void lengths(void)
{
	static unsigned char big[3 * 4096 + 100];
	CHECK_CMP(getrandom_(big, 0, 0), ==, 0);
	CHECK_CMP(getrandom_(NULL, 0, 0), ==, 0);
	CHECK_CMP(getrandom_(big, 1, 0), ==, 1);
	CHECK_CMP(getrandom_(big, sizeof(big), 0), ==, (long)sizeof(big));
	/* Every 64-byte stretch of a large read is non-zero somewhere: the
	 * whole buffer was written, not just its start. */
	bool all = true;
	for (size_t i = 0; i + 64 <= sizeof(big); i += 64) {
		bool nz = false;
		for (size_t j = 0; j < 64; j++)
			nz |= big[i + j] != 0;
		all &= nz;
	}
	CHECKF(all, "all of a %zu-byte read is written", sizeof(big));

	/* A buffer running into an unmapped page: the bytes before it. */
	char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	CHECK(munmap(p + 4096, 4096) == 0);
	long n = getrandom_(p + 4096 - 10, 100, 0);
	CHECKF(n > 0 && n <= 10, "a read across into an unmapped page gives what fits: %ld", n);
	CHECK_ERRNO(getrandom_(p + 4096, 16, 0), EFAULT);
	CHECK(munmap(p, 4096) == 0);
}

static void errors(void)
{
	unsigned char b[16];
	CHECK_ERRNO(getrandom_(b, sizeof(b), 0x8), EINVAL);
	CHECK_ERRNO(getrandom_(b, sizeof(b), ~0u), EINVAL);
	CHECK_ERRNO(getrandom_(b, sizeof(b), GRND_INSECURE | GRND_RANDOM), EINVAL);
	/* Flags are checked before the buffer. */
	CHECK_ERRNO(getrandom_((void *)8, sizeof(b), 0x10), EINVAL);
	CHECK_ERRNO(getrandom_((void *)8, sizeof(b), 0), EFAULT);
	CHECK_ERRNO(getrandom_((void *)0xffff800000000000UL, sizeof(b), 0), EFAULT);
}

int main(void)
{
	test_begin("getrandom");
	differing();
	lengths();
	errors();
	return test_end();
}
