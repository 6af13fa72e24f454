/* Memory and string functions of the mmlab user C library. Simple loops:
 * user programs are tests, not string benchmarks. This file is built with
 * -fno-tree-loop-distribute-patterns so that gcc does not turn memset's
 * loop into a call to memset. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
		for (; n >= 8; n -= 8, d += 8, s += 8)
			*(uint64_t *)d = *(const uint64_t *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	if (((uintptr_t)d & 7) == 0) {
		uint64_t v = 0x0101010101010101ULL * (unsigned char)c;
		for (; n >= 8; n -= 8, d += 8)
			*(uint64_t *)d = v;
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	}
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	}
	return NULL;
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
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}

char *strcpy(char *restrict dst, const char *restrict src)
{
	char *d = dst;
	while ((*d++ = *src++))
		;
	return dst;
}

char *strncpy(char *restrict dst, const char *restrict src, size_t n)
{
	size_t i = 0;
	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = 0;
	return dst;
}

char *strcat(char *restrict dst, const char *restrict src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
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
	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

char *strstr(const char *h, const char *n)
{
	size_t len = strlen(n);
	for (; *h; h++) {
		if (!strncmp(h, n, len))
			return (char *)h;
	}
	return len ? NULL : (char *)h;
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;
	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;
	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

/* glibc's messages for the errors the tests meet; the rest by number. */
static const struct {
	int err;
	const char *msg;
} messages[] = {
	{ EPERM, "Operation not permitted" },
	{ ENOENT, "No such file or directory" },
	{ EINTR, "Interrupted system call" },
	{ EIO, "Input/output error" },
	{ EBADF, "Bad file descriptor" },
	{ EAGAIN, "Resource temporarily unavailable" },
	{ ENOMEM, "Cannot allocate memory" },
	{ EACCES, "Permission denied" },
	{ EFAULT, "Bad address" },
	{ EBUSY, "Device or resource busy" },
	{ EEXIST, "File exists" },
	{ ENOTDIR, "Not a directory" },
	{ EISDIR, "Is a directory" },
	{ EINVAL, "Invalid argument" },
	{ EMFILE, "Too many open files" },
	{ ESPIPE, "Illegal seek" },
	{ EROFS, "Read-only file system" },
	{ ERANGE, "Numerical result out of range" },
	{ ENAMETOOLONG, "File name too long" },
	{ ENOSYS, "Function not implemented" },
	{ EOPNOTSUPP, "Operation not supported" },
};

char *strerror(int err)
{
	static char unknown[32];
	if (!err)
		return "Success";
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		if (messages[i].err == err)
			return (char *)messages[i].msg;
	}
	snprintf(unknown, sizeof(unknown), "Unknown error %d", err);
	return unknown;
}
