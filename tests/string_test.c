/* The freestanding string helpers that parsing code relies on. */
#include "lib/string.h"
#include "tests/kunit.h"

static void numbers(struct kunit *test)
{
	u64 v;
	s64 s;
	KUNIT_EXPECT_EQ(test, parse_u64("1234", 4, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 1234);
	KUNIT_EXPECT_EQ(test, parse_u64("0xfF", 4, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 255);
	KUNIT_EXPECT_EQ(test, parse_u64("18446744073709551615", 20, &v), 0);
	KUNIT_EXPECT_EQ(test, v, UINT64_MAX);
	KUNIT_EXPECT_EQ(test, parse_u64("18446744073709551616", 20, &v), -ERANGE);
	KUNIT_EXPECT_EQ(test, parse_u64("", 0, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse_u64("0x", 2, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse_u64("12a", 3, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse_s64("-9223372036854775808", 20, &s), 0);
	KUNIT_EXPECT_EQ(test, s, INT64_MIN);
	KUNIT_EXPECT_EQ(test, parse_s64("9223372036854775808", 19, &s), -ERANGE);
	KUNIT_EXPECT_EQ(test, parse_s64("-", 1, &s), -EINVAL);
}

static void globs(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, glob_match("*", ""));
	KUNIT_EXPECT_TRUE(test, glob_match("a*c", "abbbc"));
	KUNIT_EXPECT_FALSE(test, glob_match("a*c", "abbbd"));
	KUNIT_EXPECT_TRUE(test, glob_match("a?c", "abc"));
	KUNIT_EXPECT_FALSE(test, glob_match("a?c", "ac"));
	KUNIT_EXPECT_TRUE(test, glob_match("*b*b*", "abxb"));
	KUNIT_EXPECT_FALSE(test, glob_match("abc", "abcd"));
}

static void copies(struct kunit *test)
{
	char buf[4];
	KUNIT_EXPECT_EQ(test, strlcpy(buf, "hello", sizeof(buf)), 5);
	KUNIT_EXPECT_STREQ(test, buf, "hel");
	KUNIT_EXPECT_EQ(test, strlcat(buf, "x", sizeof(buf)), 4);
	KUNIT_EXPECT_STREQ(test, buf, "hel");
	char over[8] = "abcdef";
	memmove(over + 1, over, 5);
	KUNIT_EXPECT_STREQ(test, over, "aabcde");
	KUNIT_EXPECT_NOT_NULL(test, strstr("haystack", "st"));
	KUNIT_EXPECT_NULL(test, strstr("haystack", "sts"));
	KUNIT_EXPECT_LT(test, memcmp("ab", "ac", 2), 0);
}

/* strchr finds the first c, strrchr the last; both find the NUL when c is 0. */
static void searches(struct kunit *test)
{
	const char *s = "/sbin/init";
	KUNIT_EXPECT_PTR_EQ(test, strchr(s, '/'), s);
	KUNIT_EXPECT_PTR_EQ(test, strrchr(s, '/'), s + 5);
	KUNIT_EXPECT_PTR_EQ(test, strrchr(s, 't'), s + 9);
	KUNIT_EXPECT_PTR_EQ(test, strrchr(s, 0), s + 10);
	KUNIT_EXPECT_NULL(test, strrchr(s, 'x'));
	KUNIT_EXPECT_NULL(test, strrchr("", '/'));
	const char *word = "init";
	KUNIT_EXPECT_PTR_EQ(test, strrchr(word, 'i'), word + 2);
}

static struct kunit_case string_cases[] = {
	KUNIT_CASE(numbers), KUNIT_CASE(globs), KUNIT_CASE(copies), KUNIT_CASE(searches), {}
};
static struct kunit_suite string_suite = { .name = "string", .test_cases = string_cases };
kunit_test_suite(string_suite);
