/* Freestanding implementations of the C string functions. GCC may emit calls
 * to memcpy/memset/memmove/memcmp itself, so these names are fixed. */
#include "lib/string.h"

/* Whole 64-byte lines with plain 8-byte loads and stores, as memset below:
 * QEMU's TCG (7.2, Debian 12's) runs a REP string instruction as one pass
 * through its translation block per element, REP MOVSQ a pass per 8 bytes
 * and REP MOVSB one per byte, where a line here is one block of sixteen
 * moves. The tail goes 8 bytes, then a byte, at a time. */
void *memcpy(void *dst, const void *src, size_t n)
{
	u64 *d = dst;
	const u64 *s = src;
	for (; n >= 64; n -= 64, d += 8, s += 8) {
		u64 a = s[0], b = s[1], c = s[2], e = s[3];
		d[0] = a; d[1] = b; d[2] = c; d[3] = e;
		a = s[4]; b = s[5]; c = s[6]; e = s[7];
		d[4] = a; d[5] = b; d[6] = c; d[7] = e;
	}
	for (; n >= 8; n -= 8)
		*d++ = *s++;
	u8 *db = (u8 *)d;
	const u8 *sb = (const u8 *)s;
	while (n--)
		*db++ = *sb++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	u8 *d = dst;
	u64 pattern = 0x0101010101010101ull * (u8)c;
	/* Whole 64-byte lines with plain 8-byte stores: under TCG a REP
	 * string instruction costs an emulated iteration per element, while
	 * an unrolled loop becomes one translated block of stores. */
	while (n && ((uintptr_t)d & 7)) {
		*d++ = (u8)c;
		n--;
	}
	u64 *w = (u64 *)d;
	for (; n >= 64; n -= 64, w += 8) {
		w[0] = pattern; w[1] = pattern; w[2] = pattern; w[3] = pattern;
		w[4] = pattern; w[5] = pattern; w[6] = pattern; w[7] = pattern;
	}
	d = (u8 *)w;
	while (n--)
		*d++ = (u8)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (u8)*a - (u8)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a - (u8)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;
	do {
		if (*s == (char)c)
			last = s;
	} while (*s++);
	return (char *)last;
}

char *strstr(const char *h, const char *n)
{
	size_t len = strlen(n);
	for (; *h; h++)
		if (!strncmp(h, n, len))
			return (char *)h;
	return len ? NULL : (char *)h;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = 0;
	}
	return len;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t used = strnlen(dst, size);
	if (used == size)
		return size + strlen(src);
	return used + strlcpy(dst + used, src, size - used);
}

int parse_u64(const char *s, size_t len, u64 *out)
{
	unsigned base = 10;
	u64 v = 0;
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int parse_s64(const char *s, size_t len, s64 *out)
{
	bool neg = len > 0 && s[0] == '-';
	u64 v;
	int err = parse_u64(s + neg, len - neg, &v);
	if (err)
		return err;
	if (v > (u64)INT64_MAX + neg)
		return -ERANGE;
	*out = neg ? (s64)(0 - v) : (s64)v;
	return 0;
}

bool glob_match(const char *p, const char *t)
{
	/* Iterative matcher with one backtrack point: linear in practice. */
	const char *star_p = NULL, *star_t = NULL;
	while (*t) {
		if (*p == '*') {
			star_p = ++p;
			star_t = t;
		} else if (*p == '?' || *p == *t) {
			p++;
			t++;
		} else if (star_p) {
			p = star_p;
			t = ++star_t;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == 0;
}
