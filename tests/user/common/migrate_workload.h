/* Migrating a process into a node that cannot hold it: the nodes and their
 * free memory from /sys/devices/system/node, anonymous memory bound to
 * nodes and written with a pattern that says where each page belongs, and
 * the raw migrate_pages(2), move_pages(2) and mbind(2) calls (no libnuma).
 * Shared by tests/migrate_full.c, the directed case of
 * tests/syscall_fuzz.c and bench/migrate_cost.c.
 *
 * What Linux does when the target runs out (6.1, mm/migrate.c's
 * migrate_pages: "When memory is low, don't bother to try to migrate other
 * folios, just exit"): the first page that finds no free page on the
 * target ends the call with ENOMEM; the pages moved before it stay moved.
 * move_pages(2) then stores no status for the run of pages that failed. */
#ifndef MMLAB_USER_MIGRATE_WORKLOAD_H
#define MMLAB_USER_MIGRATE_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define MW_MPOL_BIND 2
#define MW_MPOL_MF_STRICT (1 << 0)
#define MW_MPOL_MF_MOVE (1 << 1)
#define MW_MAXNODE 65 /* one word of node bits */
#define MW_PAGE 4096ul

static inline long mw_mbind(void *start, unsigned long len, int mode, unsigned long mask, unsigned flags)
{
	return syscall(237, start, len, mode, &mask, MW_MAXNODE, flags);
}
static inline long mw_migrate_pages(unsigned long from, unsigned long to)
{
	return syscall(256, 0, MW_MAXNODE, &from, &to);
}
static inline long mw_move_pages(unsigned long n, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(279, 0, n, pages, nodes, status, flags);
}

/* The nodes with memory, as a mask (node 0 alone when the file is
 * missing: a kernel without NUMA). */
static inline unsigned long mw_memory_nodes(void)
{
	char buf[256];
	unsigned long mask = 0;
	if (read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)) <= 0)
		return 1;
	for (const char *s = buf; *s && *s != '\n';) {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;
		if (e == s || a > 63)
			return mask ? mask : 1;
		s = e;
		if (*s == '-') {
			b = strtoul(s + 1, &e, 10);
			if (e == s + 1 || b > 63)
				return mask ? mask : 1;
			s = e;
		}
		for (unsigned long i = a; i <= b; i++)
			mask |= 1ul << i;
		if (*s == ',')
			s++;
	}
	return mask ? mask : 1;
}

/* A node's free memory in kB ("Node N MemFree:"), -1 if unknown. */
static inline long mw_node_free_kb(int nid)
{
	char path[80], key[32], buf[4096];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nid);
	snprintf(key, sizeof(key), "Node %d MemFree:", nid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return field_after(buf, key);
}

/* The memory node with the least free memory (the target), and the other
 * with the most (the source); false with fewer than two. */
static inline bool mw_pick_nodes(int *target, int *source)
{
	unsigned long mem = mw_memory_nodes();
	long least = -1, most = -1;
	*target = *source = -1;
	for (int n = 0; n < 64; n++) {
		long f = mem >> n & 1 ? mw_node_free_kb(n) : -1;
		if (f >= 0 && (least < 0 || f < least)) {
			least = f;
			*target = n;
		}
	}
	for (int n = 0; n < 64; n++) {
		long f = mem >> n & 1 && n != *target ? mw_node_free_kb(n) : -1;
		if (f > most) {
			most = f;
			*source = n;
		}
	}
	return *target >= 0 && *source >= 0;
}

/* What page i of a workload holds: its first and last words. */
static inline uint64_t mw_tag(unsigned long i) { return (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x6d6967; }

/* n pages of 4 KiB (no THP: pages are counted one by one) bound to the
 * nodes of mask, each written with its tag, at address at (MAP_FIXED) or
 * anywhere (NULL); NULL if the mmap or the mbind failed (nothing is left
 * mapped then). */
static inline char *mw_map_at(void *at, unsigned long n, unsigned long mask)
{
	char *p = mmap(at, n * MW_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at ? MAP_FIXED : 0), -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n * MW_PAGE, MADV_NOHUGEPAGE);
	if (mw_mbind(p, n * MW_PAGE, MW_MPOL_BIND, mask, 0)) {
		munmap(p, n * MW_PAGE);
		return NULL;
	}
	for (unsigned long i = 0; i < n; i++) {
		uint64_t *w = (uint64_t *)(p + i * MW_PAGE);
		w[0] = w[MW_PAGE / 8 - 1] = mw_tag(i);
	}
	return p;
}

static inline char *mw_map_on(unsigned long n, unsigned long mask) { return mw_map_at(NULL, n, mask); }

/* The first page whose tag is wrong, or n when every page is intact. */
static inline unsigned long mw_first_bad(const char *p, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		const uint64_t *w = (const uint64_t *)(p + i * MW_PAGE);
		if (w[0] != mw_tag(i) || w[MW_PAGE / 8 - 1] != mw_tag(i))
			return i;
	}
	return n;
}

/* How many of the n pages at p are on node nid (move_pages' query, 1,024
 * at a time); -1 if a query failed. */
static inline long mw_pages_on(const char *p, unsigned long n, int nid)
{
	static void *pages[1024];
	static int status[1024];
	long on = 0;
	for (unsigned long i = 0; i < n; i += 1024) {
		unsigned long k = n - i < 1024 ? n - i : 1024;
		for (unsigned long j = 0; j < k; j++)
			pages[j] = (void *)(p + (i + j) * MW_PAGE);
		if (mw_move_pages(k, pages, NULL, status, 0))
			return -1;
		for (unsigned long j = 0; j < k; j++)
			on += status[j] == nid;
	}
	return on;
}

#endif
