/* The user C library itself (tests/user/lib on mmlab, glibc on Linux, both
 * held to the same expected strings): snprintf's conversions, flags and
 * truncation (the float conversions with any precision, %a), strtol/strtoul, the string functions, malloc/calloc/realloc/
 * free (small and mmap'ed blocks), sysconf and the initial stack (argv). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char out[256];

#define FMT(expect, ...)                                                                 \
	do {                                                                             \
		int _n = snprintf(out, sizeof(out), __VA_ARGS__);                        \
		CHECKF(!strcmp(out, expect) && _n == (int)strlen(expect),                \
		       "snprintf(%s) = \"%s\" (expected \"%s\")", #__VA_ARGS__, out, expect); \
	} while (0)

static void formats(void)
{
	FMT("42 -7 0", "%d %i %u", 42, -7, 0u);
	FMT("[   42] [42   ] [00042] [+42] [ 42]", "[%5d] [%-5d] [%05d] [%+d] [% d]", 42, 42, 42, 42, 42);
	FMT("-2147483648 4294967295", "%d %u", INT_MIN, UINT_MAX);
	FMT("-9223372036854775808 18446744073709551615", "%ld %lu", LONG_MIN, ULONG_MAX);
	FMT("9223372036854775807", "%lld", LLONG_MAX);
	FMT("ff FF 0xff 0XFF 377 0377", "%x %X %#x %#X %o %#o", 255, 255, 255, 255, 255, 255);
	FMT("0 0", "%#x %#o", 0, 0);
	FMT("[0000ff] [   0xff] [0x00ff]", "[%06x] [%#7x] [%#06x]", 255, 255, 255);
	FMT("[  007] [007]", "[%5.3d] [%.3d]", 7, 7);
	FMT("[] [0]", "[%.0d] [%.1d]", 0, 0);
	FMT("-1 255 65535", "%hhd %hhu %hu", (char)-1, 255, 65535);
	FMT("123456789012 4096 -5", "%zu %zd %td", (size_t)123456789012ULL, (ssize_t)4096, (ptrdiff_t)-5);
	FMT("7 -7", "%jd %jd", (intmax_t)7, (intmax_t)-7);
	FMT("a [  b] [c  ] %", "%c [%3c] [%-3c] %%", 'a', 'b', 'c');
	FMT("hello [   hi] [hi   ] [hel]", "%s [%5s] [%-5s] [%.3s]", "hello", "hi", "hi", "hello");
	FMT("[hel  ]", "[%-*.*s]", 5, 3, "hello");
	FMT("[   42]", "[%*d]", 5, 42);
	FMT("[42   ]", "[%*d]", -5, 42);
	FMT("0x1000 (nil)", "%p %p", (void *)0x1000, (void *)0);
	FMT("3.141593 3.14 3 -0.50 2.50", "%f %.2f %.0f %.2f %.2f", 3.14159265, 3.14159265, 3.14159265, -0.5, 2.5);
	FMT("[  1.5] [001.5] [1.5  ] +1.5", "[%5.1f] [%05.1f] [%-5.1f] %+.1f", 1.5, 1.5, 1.5, 1.5);
	FMT("1234567.890 0.001 100", "%.3f %.3f %.0f", 1234567.89, 0.0009999, 99.9);
	FMT("1.000000e+06 1.5e-03 1e+20", "%e %.1e %.0e", 1e6, 0.0015, 1e20);
	FMT("1e+06 0.0001 123.456 100", "%g %g %g %g", 1e6, 0.0001, 123.456, 100.0);
	FMT("inf -inf nan -nan", "%f %f %f %f", 1.0 / 0.0, -1.0 / 0.0, __builtin_nan(""), -__builtin_nan(""));
	FMT("-0.0 [  inf]", "%.1f [%5f]", -0.0, 1.0 / 0.0);
	FMT("18446744073709551616.0", "%.1f", 18446744073709551616.0);
	FMT("1.000000E+06 1.5E-03 1E+20 INF -NAN", "%E %.1E %.0E %E %E", 1e6, 0.0015, 1e20, 1.0 / 0.0,
	    -__builtin_nan(""));
	FMT("1E+06 0.0001 1.5E-07 INF NAN", "%G %G %G %G %G", 1e6, 0.0001, 1.5e-7, 1.0 / 0.0, __builtin_nan(""));
	FMT("INF -NAN 2.50", "%F %F %.2F", 1.0 / 0.0, -__builtin_nan(""), 2.5);
	FMT("0x1p+0 0x1p-1 -0x1.4p+1 0x0p+0 0x1.999999999999ap-4", "%a %a %a %a %a", 1.0, 0.5, -2.5, 0.0, 0.1);
	FMT("0x0.0000000000001p-1022 0x1.fffffffffffffp+1023 inf -NAN", "%a %a %a %A", 4.9e-324,
	    1.7976931348623157e308, 1.0 / 0.0, -__builtin_nan(""));
	/* Rounded half to even; a carry into the leading digit makes it 2. */
	FMT("0x2p+0 0x1p+1 0x1.0p+0 0x1.2p+0 0x1p-1022 0x2p-1022 0x1.00p-1022", "%.0a %.0a %.1a %.1a %.0a %.0a %.2a",
	    1.5, 2.5, 1.03125, 1.09375, 0x0.fffffffffffffp-1022, 0x1.fffffffffffffp-1022, 0x0.fffffffffffffp-1022);
	FMT("0X1.FFP+7 0x1.p+0 0x00001p+0 +0x1p+0 [0x1p+0      ] 0x1.00000000000000000000p+0",
	    "%A %#a %010a %+a [%-12a] %.20a", 255.5, 1.0, 1.0, 1.0, 1.0, 1.0);
	/* L: a long double argument (formatted as a double); later ones keep their place. */
	FMT("3.500000 2.25e+00 x 1e-10 1E-10 7", "%Lf %.2Le %s %Lg %LG %d", 3.5L, 2.25L, "x", 1e-10L, 1e-10L, 7);
	FMT("1.5 x 0x1p+0 y", "%G %s %a %s", 1.5, "x", 1.0, "y");
	/* Precision past 60 digits: still exact. */
	FMT("0.1000000000000000055511151231257827021181583404541015625000000000000000", "%.70f", 0.1);
	FMT("1.00000000000000005551115123125782702118158340454101562500000000000000000000000000e-01", "%.80e", 0.1);
	/* NULL for %s: "(null)" if it fits the precision, else nothing. */
	const char *null = NULL;
	__asm__("" : "+r"(null));
	FMT("[] [] [(null)] [(null)] [        ]", "[%.3s] [%.5s] [%.6s] [%s] [%8.3s]", null, null, null, null, null);
	FMT("[0] [] [] [0]", "[%#.0o] [%.0o] [%#.0x] [%#o]", 0, 0, 0, 0);

	/* Far past what a double has (1074 fraction digits at most, 767
	 * significant): the digits, then only zeros. */
	static char wide[1200];
	int w = snprintf(wide, sizeof(wide), "%.1100f", 0.1);
	CHECKF(w == 1102 && !strncmp(wide, "0.1000000000000000055511151231257827021181583404541015625", 57) &&
		       strspn(wide + 57, "0") == 1045,
	       "%%.1100f of 0.1: %d characters", w);
	w = snprintf(wide, sizeof(wide), "%#.900g|%.900g", 0.1, 0.1);
	CHECKF(w == 902 + 1 + 57 && strspn(wide + 57, "0") == 845 &&
		       !strcmp(wide + 902, "|0.1000000000000000055511151231257827021181583404541015625"),
	       "%%#.900g|%%.900g of 0.1: %d characters", w);
	w = snprintf(wide, sizeof(wide), "%.1000e", 1e300);
	CHECKF(w == 1007 && !strncmp(wide, "1.0000000000000000525047602552044202487044685811081591549158541155118024", 72) &&
		       !strcmp(wide + 997, "00000e+300"),
	       "%%.1000e of 1e300: %d characters", w);

	/* Truncation: the return value is what would have been written. */
	char small[6];
	size_t six = sizeof(small), one = 1;
	__asm__("" : "+r"(six), "+r"(one)); /* gcc would warn about the truncation we test */
	int n = snprintf(small, six, "%s", "truncated");
	CHECK(n == 9 && !strcmp(small, "trunc"));
	n = snprintf(NULL, 0, "%d", 12345);
	CHECK_CMP(n, ==, 5);
	n = snprintf(small, one, "abc");
	CHECK(n == 3 && small[0] == 0);
}

static void numbers(void)
{
	char *end;
	CHECK_CMP(strtol("  -123xyz", &end, 10), ==, -123);
	CHECK(!strcmp(end, "xyz"));
	CHECK_CMP(strtol("0x1F", NULL, 0), ==, 31);
	CHECK_CMP(strtol("0x1F", NULL, 16), ==, 31);
	CHECK_CMP(strtol("017", NULL, 0), ==, 15);
	CHECK_CMP(strtol("z", NULL, 36), ==, 35);
	CHECK_CMP(strtoul("4294967296", NULL, 10), ==, 4294967296L);
	errno = 0;
	CHECK_CMP(strtol("99999999999999999999", &end, 10), ==, LONG_MAX);
	CHECK(errno == ERANGE && *end == 0);
	errno = 0;
	CHECK_CMP(strtol("-99999999999999999999", NULL, 10), ==, LONG_MIN);
	CHECK(errno == ERANGE);
	CHECK_CMP(strtol("-9223372036854775808", NULL, 10), ==, LONG_MIN);
	const char *none = "  +x";
	CHECK(strtol(none, &end, 10) == 0 && end == none);
	CHECK_CMP(atoi("  42 "), ==, 42);
	CHECK_CMP(strtoull("18446744073709551615", NULL, 10), ==, (long long)ULLONG_MAX);
	/* A base other than 0 or 2..36: 0 and EINVAL. */
	static const int bad_bases[] = { 1, 37, -1 };
	for (unsigned i = 0; i < sizeof(bad_bases) / sizeof(bad_bases[0]); i++) {
		errno = 0;
		CHECKF(strtol("10", NULL, bad_bases[i]) == 0 && errno == EINVAL, "strtol base %d", bad_bases[i]);
		errno = 0;
		CHECKF(strtoul("10", NULL, bad_bases[i]) == 0 && errno == EINVAL, "strtoul base %d", bad_bases[i]);
	}
}

static void strings(void)
{
	char buf[32];
	CHECK(strlen("") == 0 && strlen("abc") == 3 && strnlen("abcdef", 4) == 4);
	CHECK(strcmp("abc", "abd") < 0 && strcmp("b", "a") > 0 && strcmp("x", "x") == 0);
	CHECK(strncmp("abcx", "abcy", 3) == 0 && strncmp("ab", "abc", 3) < 0);
	CHECK(strcmp("\xff", "a") > 0); /* compared as unsigned char */
	strcpy(buf, "foo");
	strcat(buf, "bar");
	CHECK(!strcmp(buf, "foobar"));
	CHECK(strchr(buf, 'o') == buf + 1 && strrchr(buf, 'o') == buf + 2 && !strchr(buf, 'z'));
	CHECK(strchr(buf, 0) == buf + 6);
	CHECK(strstr(buf, "bar") == buf + 3 && !strstr(buf, "baz") && strstr(buf, "") == buf);
	CHECK(strspn("aabbc", "ab") == 4 && strcspn("abc:d", ":") == 3);
	memset(buf, 'x', sizeof(buf));
	strncpy(buf, "ab", 5);
	CHECK(!memcmp(buf, "ab\0\0\0x", 6));
	char m[16] = "0123456789";
	memmove(m + 2, m, 8);
	CHECK(!memcmp(m, "0101234567", 10));
	memmove(m, m + 2, 8);
	CHECK(!memcmp(m, "0123456767", 10));
	const char *hello = "hello";
	CHECK(memcmp("ab", "ac", 2) < 0 && memchr(hello, 'l', 5) == hello + 2 && !memchr(hello, 'z', 5));
	unsigned char big[100];
	memset(big + 1, 0xa5, 97);
	CHECK(big[1] == 0xa5 && big[97] == 0xa5 && all_bytes(big + 1, 97, 0xa5));
	char *d = strdup("copy");
	CHECK(d && !strcmp(d, "copy"));
	free(d);
	CHECK(!strcmp(strerror(EINVAL), "Invalid argument"));
}

static void heap(void)
{
	char *small[64];
	bool ok = true;
	for (int i = 0; i < 64; i++) {
		small[i] = malloc((size_t)(i * 37 + 1));
		ok &= small[i] && ((uintptr_t)small[i] & 15) == 0;
		if (small[i])
			memset(small[i], i, (size_t)(i * 37 + 1));
	}
	CHECKF(ok, "64 small blocks, 16-byte aligned");
	for (int i = 0; i < 64; i++)
		ok &= all_bytes(small[i], (size_t)(i * 37 + 1), (unsigned char)i);
	CHECKF(ok, "small blocks keep their contents");
	for (int i = 0; i < 64; i += 2)
		free(small[i]);
	char *again = malloc(100);
	CHECK(again != NULL);
	char *grown = realloc(again, 100000);
	CHECK(grown != NULL);
	memset(grown, 7, 100000);
	char *big = malloc(3 * MiB);
	CHECK(big != NULL && ((uintptr_t)big & 15) == 0);
	memset(big, 1, 3 * MiB);
	int *zeros = calloc(1000, sizeof(int));
	CHECK(zeros && all_bytes(zeros, 1000 * sizeof(int), 0));
	free(zeros);
	free(big);
	free(grown);
	for (int i = 1; i < 64; i += 2)
		free(small[i]);
	free(NULL);
	size_t huge = SIZE_MAX / 2;
	__asm__("" : "+r"(huge));
	CHECK(calloc(huge, 4) == NULL);
	/* realloc to 0 bytes frees the block and returns NULL (glibc). */
	char *gone = malloc(40);
	CHECK(gone != NULL);
	size_t zero = 0;
	__asm__("" : "+r"(zero));
	CHECK(realloc(gone, zero) == NULL);
}

int main(int argc, char **argv)
{
	test_begin("libc_basic");
	CHECK_CMP(argc, >=, 1);
	CHECK(argv[0] && strstr(argv[0], "libc_basic") && argv[argc] == NULL);
	CHECK_CMP(sysconf(_SC_PAGESIZE), ==, 4096);
	CHECK_CMP(getpagesize(), ==, 4096);
	formats();
	numbers();
	strings();
	heap();
	return test_end();
}
