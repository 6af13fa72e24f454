/* drivers/char/random.c: the ChaCha20 block function against RFC 8439's test
 * vector, get_random_bytes() giving different bytes each call and filling
 * odd lengths, and the seed source being what CPUID offers. */
#include "arch/x86_64/cpufeature.h"
#include "drivers/char/random.h"
#include "lib/string.h"
#include "tests/kunit.h"

/* RFC 8439 section 2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:
 * 00:00:00:00, block counter 1. */
static void chacha20_rfc8439_block(struct kunit *test)
{
	u32 key[8];
	u8 bytes[32];
	for (int i = 0; i < 32; i++)
		bytes[i] = (u8)i;
	memcpy(key, bytes, sizeof(key));
	static const u8 want[64] = {
		0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15, 0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20,
		0x71, 0xc4, 0xc7, 0xd1, 0xf4, 0xc7, 0x33, 0xc0, 0x68, 0x03, 0x04, 0x22, 0xaa, 0x9a,
		0xc3, 0xd4, 0x6c, 0x4e, 0xd2, 0x82, 0x64, 0x46, 0x07, 0x9f, 0xaa, 0x09, 0x14, 0xc2,
		0xd7, 0x05, 0xd9, 0x8b, 0x02, 0xa2, 0xb5, 0x12, 0x9c, 0xd1, 0xde, 0x16, 0x4e, 0xb9,
		0xcb, 0xd0, 0x83, 0xe8, 0xa2, 0x50, 0x3c, 0x4e,
	};
	u8 out[64];
	/* Words 12-15: counter 1, nonce words 0x09000000, 0x4a000000, 0. */
	chacha20_block(key, 1ull | 0x09000000ull << 32, 0x4a000000ull, out);
	KUNIT_EXPECT_MEMEQ(test, out, want, sizeof(want));
}

static void get_random_bytes_differ(struct kunit *test)
{
	u8 a[37], b[37], zero[37];
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(zero, 0, sizeof(zero));
	get_random_bytes(a, sizeof(a));
	get_random_bytes(b, sizeof(b));
	KUNIT_EXPECT_NE(test, memcmp(a, b, sizeof(a)), 0);
	KUNIT_EXPECT_NE(test, memcmp(a, zero, sizeof(a)), 0);
	/* The last bytes of an odd length are written too. */
	u8 big[200];
	memset(big, 0, sizeof(big));
	get_random_bytes(big, sizeof(big));
	KUNIT_EXPECT_NE(test, memcmp(big + 192, zero, 8), 0);
	get_random_bytes(big, 0); /* nothing, no crash */
}

static void seed_source_is_the_best_the_cpu_has(struct kunit *test)
{
	const char *src = random_seed_source();
	kunit_info(test, "seeded from %s", src);
	if (boot_cpu_has(X86_FEATURE_RDSEED))
		KUNIT_EXPECT_STREQ(test, src, "rdseed");
	else if (boot_cpu_has(X86_FEATURE_RDRAND))
		KUNIT_EXPECT_STREQ(test, src, "rdrand");
	else
		KUNIT_EXPECT_STREQ(test, src, "tsc");
}

static struct kunit_case random_cases[] = {
	KUNIT_CASE(chacha20_rfc8439_block),
	KUNIT_CASE(get_random_bytes_differ),
	KUNIT_CASE(seed_source_is_the_best_the_cpu_has),
	{}
};

static struct kunit_suite random_suite = { .name = "random", .test_cases = random_cases };
kunit_test_suite(random_suite);
