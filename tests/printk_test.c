/* vsnprintf: every conversion and modifier the kernel uses, and truncation. */
#include "kernel/printk.h"
#include "lib/string.h"
#include "tests/kunit.h"

/* No format attribute: lets the tests pass what GCC would refuse to
 * compile (a NULL %s, an unknown conversion). */
static int format_unchecked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#define CHECK_FMT(test, expected, ...)                                       \
	do {                                                                 \
		char buf[128];                                               \
		int n = format_unchecked(buf, sizeof(buf), __VA_ARGS__);     \
		KUNIT_EXPECT_STREQ(test, buf, expected);                     \
		KUNIT_EXPECT_EQ(test, n, (int)strlen(expected));             \
	} while (0)

static void integers(struct kunit *test)
{
	CHECK_FMT(test, "42 -42 42", "%d %i %u", 42, -42, 42u);
	CHECK_FMT(test, "-2147483648", "%d", (int)0x80000000);
	CHECK_FMT(test, "4294967295", "%u", 0xffffffffu);
	CHECK_FMT(test, "ff FF 0xff 17", "%x %X %#x %o", 255, 255, 255, 15);
	CHECK_FMT(test, "ffffffffffffffff", "%lx", ~0ul);
	CHECK_FMT(test, "-9223372036854775808", "%lld", (long long)INT64_MIN);
	CHECK_FMT(test, "18446744073709551615", "%llu", ~0ull);
	CHECK_FMT(test, "123456789012 ", "%zu %.0s", (size_t)123456789012ull, "");
	CHECK_FMT(test, "-1 255 65535", "%ld %hhu %hu", -1l, (unsigned char)255, (unsigned short)65535);
}

static void width_and_padding(struct kunit *test)
{
	CHECK_FMT(test, "   42", "%5d", 42);
	CHECK_FMT(test, "00042", "%05d", 42);
	CHECK_FMT(test, "-0042", "%05d", -42);
	CHECK_FMT(test, "42   |", "%-5d|", 42);
	CHECK_FMT(test, "0000beef", "%08x", 0xbeef);
	CHECK_FMT(test, "0x00ff", "%#06x", 255);
	CHECK_FMT(test, "  ab|ab  |", "%4s|%-4s|", "ab", "ab");
	CHECK_FMT(test, "   7", "%*d", 4, 7);
	CHECK_FMT(test, "abc", "%.3s", "abcdef");
	CHECK_FMT(test, "+5  5", "%+d %2d", 5, 5);
}

static void strings_chars_pointers(struct kunit *test)
{
	CHECK_FMT(test, "x y%", "%c %s%%", 'x', "y");
	CHECK_FMT(test, "(null)", "%s", (char *)NULL);
	CHECK_FMT(test, "ffffffff80001234", "%p", (void *)0xffffffff80001234ul);
	CHECK_FMT(test, "0000000000000010", "%p", (void *)16);
	CHECK_FMT(test, "%q", "%q");
}

static void truncation(struct kunit *test)
{
	char buf[8];
	memset(buf, 'X', sizeof(buf));
	int n = snprintf(buf, 5, "%s", "abcdefgh");
	KUNIT_EXPECT_EQ(test, n, 8);
	KUNIT_EXPECT_STREQ(test, buf, "abcd");
	KUNIT_EXPECT_EQ(test, buf[5], 'X'); /* nothing written past size */
	n = snprintf(NULL, 0, "%d", 12345);
	KUNIT_EXPECT_EQ(test, n, 5);
}

static void log_levels_filter_the_console(struct kunit *test)
{
	char buf[256];
	struct printk_capture cap;
	int saved = console_loglevel;

	const char *prefix = printk_set_line_prefix(NULL);
	console_loglevel = 4;
	printk_capture_begin(&cap, buf, sizeof(buf));
	cap.console_filter = true; /* see what the console would show */
	pr_err("shown-err\n");
	pr_warn("shown-warn\n");
	pr_info("hidden-info\n");
	pr_debug("hidden-debug\n");
	printk(KERN_ALWAYS "shown-always\n");
	printk_capture_end(&cap);
	console_loglevel = saved;
	printk_set_line_prefix(prefix);

	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "shown-err"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "shown-warn"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "shown-always"));
	KUNIT_EXPECT_NULL(test, strstr(buf, "hidden"));
	KUNIT_EXPECT_NULL(test, strstr(buf, "\001")); /* level marker not printed */
}

static struct kunit_case printk_cases[] = {
	KUNIT_CASE(integers),
	KUNIT_CASE(width_and_padding),
	KUNIT_CASE(strings_chars_pointers),
	KUNIT_CASE(truncation),
	KUNIT_CASE(log_levels_filter_the_console),
	{}
};
static struct kunit_suite printk_suite = { .name = "printk", .test_cases = printk_cases };
kunit_test_suite(printk_suite);
