/* The freestanding string and memory routines the kernel (and GCC) use. */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "kernel/types.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);

/* Parses an unsigned integer (decimal, or hex with 0x) from s[0..len).
 * Returns 0 on success, -EINVAL when the text is not a number, -ERANGE on
 * overflow. */
int parse_u64(const char *s, size_t len, u64 *out);
int parse_s64(const char *s, size_t len, s64 *out);

/* A hex digit's value, -1 for anything else (Linux's hex_to_bin). */
static inline int hex_to_bin(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Shell-style glob with '*' and '?', as used by ktest.filter. */
bool glob_match(const char *pattern, const char *text);

#endif
