/* Number parsing and malloc of the mmlab user C library.
 *
 * malloc: every block has a 16-byte header (its capacity, and whether it is
 * a mapping of its own). Requests up to 64 KiB are rounded up to a power of
 * two, served from that class's free list or carved from a 1 MiB arena
 * mmap'ed on demand; larger ones get a private mapping that free() unmaps.
 * Arena memory is never given back. Nothing here touches the program break,
 * which belongs to the program (tests move it themselves). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* Parses the magnitude; *neg tells the sign, *overflow whether it exceeded
 * ULLONG_MAX. *end is s when no digit was found, as the standard asks. */
static unsigned long long parse(const char *s, char **end, int base, int *neg, int *overflow)
{
	const char *p = s;
	unsigned long long v = 0;
	int any = 0;
	*neg = 0;
	*overflow = 0;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    digit_value(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	for (int d; (d = digit_value(*p)) < base; p++) {
		any = 1;
		if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
			*overflow = 1;
		else
			v = v * (unsigned)base + (unsigned)d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	return v;
}

/* A base other than 0 or 2..36: EINVAL, 0, and *end untouched (glibc). */
static bool bad_base(int base)
{
	if (base == 0 || (base >= 2 && base <= 36))
		return false;
	errno = EINVAL;
	return true;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	int neg, overflow;
	if (bad_base(base))
		return 0;
	unsigned long long v = parse(s, end, base, &neg, &overflow);
	if (overflow) {
		errno = ERANGE;
		return ULLONG_MAX;
	}
	return neg ? -v : v;
}

long long strtoll(const char *s, char **end, int base)
{
	int neg, overflow;
	if (bad_base(base))
		return 0;
	unsigned long long v = parse(s, end, base, &neg, &overflow);
	if (overflow || v > (unsigned long long)LLONG_MAX + neg) {
		errno = ERANGE;
		return neg ? LLONG_MIN : LLONG_MAX;
	}
	return neg ? (long long)-v : (long long)v;
}

unsigned long strtoul(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

long strtol(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

long atol(const char *s)
{
	return strtol(s, NULL, 10);
}

int abs(int x)
{
	return x < 0 ? -x : x;
}

long labs(long x)
{
	return x < 0 ? -x : x;
}

struct block_header {
	size_t capacity; /* usable bytes after the header */
	size_t mapped;   /* 1: the block is a mapping of its own */
};

#define MIN_SHIFT 4   /* 16 bytes */
#define MAX_SHIFT 16  /* 64 KiB */
#define ARENA_SIZE (1UL << 20)

static void *free_lists[MAX_SHIFT + 1];
static char *arena_next, *arena_end;

void *malloc(size_t size)
{
	struct block_header *h;
	if (size > SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	if (size > (1UL << MAX_SHIFT)) {
		size_t len = (size + sizeof(*h) + 4095) & ~4095UL;
		h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h == MAP_FAILED)
			return NULL;
		h->capacity = len - sizeof(*h);
		h->mapped = 1;
		return h + 1;
	}
	unsigned shift = MIN_SHIFT;
	while ((1UL << shift) < size)
		shift++;
	if (free_lists[shift]) {
		void *p = free_lists[shift];
		free_lists[shift] = *(void **)p;
		return p;
	}
	size_t need = sizeof(*h) + (1UL << shift);
	if (!arena_next || (size_t)(arena_end - arena_next) < need) {
		char *a = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			return NULL;
		arena_next = a;
		arena_end = a + ARENA_SIZE;
	}
	h = (struct block_header *)arena_next;
	arena_next += need;
	h->capacity = 1UL << shift;
	h->mapped = 0;
	return h + 1;
}

void free(void *p)
{
	if (!p)
		return;
	struct block_header *h = (struct block_header *)p - 1;
	if (h->mapped) {
		munmap(h, h->capacity + sizeof(*h));
		return;
	}
	unsigned shift = MIN_SHIFT;
	while ((1UL << shift) < h->capacity)
		shift++;
	*(void **)p = free_lists[shift];
	free_lists[shift] = p;
}

void *calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = malloc(n * size);
	return p ? memset(p, 0, n * size) : NULL;
}

/* realloc(p, 0) frees p and returns NULL, as glibc does. */
void *realloc(void *p, size_t size)
{
	if (!p)
		return malloc(size);
	if (!size) {
		free(p);
		return NULL;
	}
	struct block_header *h = (struct block_header *)p - 1;
	if (size <= h->capacity)
		return p;
	void *q = malloc(size);
	if (q) {
		memcpy(q, p, h->capacity);
		free(p);
	}
	return q;
}
