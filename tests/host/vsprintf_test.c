/* The kernel's vsnprintf (lib/vsprintf.c) beside the C library's: every
 * conversion, flag, width, precision and length modifier the kernel uses
 * gives the same bytes and the same return value as C's snprintf, in a
 * buffer large enough and in buffers that cut the output short (never a
 * byte past size, always NUL-terminated, the full length returned). %p
 * and the few cases where Linux's rule is not C's are checked against
 * Linux's. The
 * kernel's file is compiled into this program under other names, so the
 * two live side by side. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tests/host/ktest.h"

static int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

#define vsnprintf kernel_vsnprintf
#define snprintf kernel_snprintf
#include "lib/vsprintf.c"
#undef vsnprintf
#undef snprintf

/* Formats fmt with both at every size from 0 to past the full length;
 * every difference is a failure naming the format and the size. */
static void __attribute__((format(printf, 3, 4))) same(struct ktest *t, int line, const char *fmt, ...)
{
	char want[256], got[256];
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = libc_vsnprintf(want, sizeof(want), fmt, aq);
	va_end(aq);
	/* The whole output first, then every cut. */
	for (size_t i = 0, size = (size_t)n + 1; i <= (size_t)n + 3 && size < sizeof(got);
	     size = i++) {
		memset(got, 0x5a, sizeof(got));
		va_copy(aq, ap);
		int m = kernel_vsnprintf(got, size, fmt, aq);
		va_end(aq);
		char expect[256] = "";
		memcpy(expect, want, size);
		if (size)
			expect[size - 1 < (size_t)n ? size - 1 : (size_t)n] = 0;
		bool ok = m == n && (!size || !memcmp(got, expect, strlen(expect) + 1)) &&
			  (size_t)size + 1 < sizeof(got) && (unsigned char)got[size] == 0x5a;
		if (!ok) {
			printf("# line %d: \"%s\" size %zu: got %d \"%.*s\", want %d \"%s\"\n", line, fmt, size, m,
			       (int)(size ? strnlen(got, size) : 0), got, n, expect);
			t->failed = true;
			break;
		}
	}
	va_end(ap);
}

#define SAME(t, ...) same(t, __LINE__, __VA_ARGS__)

static void integers(struct ktest *t)
{
	SAME(t, "%d %i %u", 0, -1, 4000000000u);
	SAME(t, "%d %d", INT_MIN, INT_MAX);
	SAME(t, "%ld %lu %lld %llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
	SAME(t, "%zu %zd %td", (size_t)-1, (ssize_t)-5, (ptrdiff_t)-7);
	SAME(t, "%hd %hu %hhd %hhu", 70000, 70000, 300, 300);
	SAME(t, "%x %X %o %lx %llX", 0xdeadbeefu, 0xabcdefu, 0755u, 0xfffffffffffful, 0x1234abcdull);
	SAME(t, "[%5d] [%-5d] [%05d] [%+d] [% d] [%+d]", 42, 42, 42, 42, 42, -42);
	SAME(t, "[%08x] [%-8x|] [%#x] [%#o] [%#X]", 0xbeefu, 0xbeefu, 0xbeefu, 8u, 0xabu);
	SAME(t, "[%*d] [%-*d] [%*d]", 6, 7, 6, 7, -6, 7);
	SAME(t, "[%.3d] [%8.3d] [%-8.3d|] [%.0d]", 5, 5, 5, 1);
	SAME(t, "[%05d] [%05d] [%+05d]", -42, 0, 42);
	SAME(t, "%lu kB%8lu kB", 123ul, 4567ul);
}

static void strings_and_chars(struct ktest *t)
{
	SAME(t, "[%s] [%10s] [%-10s|] [%.3s] [%10.2s]", "abc", "abc", "abc", "abcdef", "abcdef");
	SAME(t, "[%c%c%c] [%3c] [%-3c|]", 'a', 'b', 'c', 'x', 'y');
	SAME(t, "[%*s] [%.*s]", 7, "pad", 2, "precision");
	SAME(t, "100%% and %s", "more");
	SAME(t, "%s", "");
	SAME(t, "no conversions at all, a longer line to cut at every size");
}

/* %p: the whole address in 16 hex digits (Linux hashes it; the C library
 * prints 0x...); NULL too. */
static void pointers(struct ktest *t)
{
	char buf[64];
	KTEST_EXPECT_EQ(t, kernel_snprintf(buf, sizeof(buf), "%p", (void *)0xffff888000001000ul), 16);
	KTEST_EXPECT_TRUE(t, !strcmp(buf, "ffff888000001000"));
	KTEST_EXPECT_EQ(t, kernel_snprintf(buf, sizeof(buf), "[%p]", (void *)0), 18);
	KTEST_EXPECT_TRUE(t, !strcmp(buf, "[0000000000000000]"));
}

/* Where C and Linux part, Linux's rule (lib/vsprintf.c number(): at least
 * one digit, and the '#' prefix whatever the value), and what C leaves
 * undefined: NULL for %s prints "(null)", an unknown conversion is shown,
 * not eaten. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
static void kernel_rules(struct ktest *t)
{
	char buf[64];
	KTEST_EXPECT_EQ(t, kernel_snprintf(buf, sizeof(buf), "%s", (char *)0), 6);
	KTEST_EXPECT_TRUE(t, !strcmp(buf, "(null)"));
	KTEST_EXPECT_EQ(t, kernel_snprintf(buf, sizeof(buf), "a%qb"), 4);
	KTEST_EXPECT_TRUE(t, !strcmp(buf, "a%qb"));
	KTEST_EXPECT_EQ(t, kernel_snprintf(NULL, 0, "%d", 12345), 5);
	KTEST_EXPECT_EQ(t, kernel_snprintf(buf, sizeof(buf), "[%#x] [%#o] [%.0d] [%#.3o] [%#X]", 0u, 0u, 0, 8u,
					   0xabu), 28);
	KTEST_EXPECT_TRUE(t, !strcmp(buf, "[0x0] [00] [0] [0010] [0XAB]"));
}
#pragma GCC diagnostic pop

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(integers), KTEST_CASE(strings_and_chars), KTEST_CASE(pointers),
		KTEST_CASE(kernel_rules),
	};
	return ktest_run_suite("host_vsprintf", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
