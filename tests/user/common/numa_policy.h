/* NUMA policy system calls and the machine's nodes for user test programs
 * (tests/user/tests/mempolicy.c, shmem_policy.c): raw syscall(2) wrappers,
 * so no libnuma is needed; the topology from /sys/devices/system/node
 * (read_topology: the node count, the nodes with memory, the distances);
 * pinning to a node's CPU; a page's node (get_mempolicy with
 * MPOL_F_NODE | MPOL_F_ADDR) (a mapping's line of /proc/self/numa_maps is
 * check.h's numa_maps_line). Header-only: each program is one file linked with common/check.c. */
#ifndef MMLAB_USER_NUMA_POLICY_H
#define MMLAB_USER_NUMA_POLICY_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_WEIGHTED_INTERLEAVE 6 /* Linux 6.9 */
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)
#define MPOL_MF_STRICT (1 << 0)

#define SYS_mbind_ 237
#define SYS_set_mempolicy_ 238
#define SYS_get_mempolicy_ 239
#define SYS_set_mempolicy_home_node_ 450
#define SYS_sched_setaffinity_ 203
#define SYS_move_pages_ 279
#define SYS_migrate_pages_ 256
#define MPOL_MF_MOVE (1 << 1)
#define MPOL_MF_MOVE_ALL (1 << 2)

#define BAD_PTR ((void *)8)
#define MAXNODE 65 /* one word of bits: get_nodes reads maxnode - 1 of them */

static inline long set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy_, mode, mask, maxnode);
}
static inline long get_mempolicy(int *mode, unsigned long *mask, unsigned long maxnode, void *addr, unsigned long flags)
{
	return syscall(SYS_get_mempolicy_, mode, mask, maxnode, addr, flags);
}
static inline long mbind(void *start, unsigned long len, int mode, const unsigned long *mask, unsigned long maxnode,
		  unsigned flags)
{
	return syscall(SYS_mbind_, start, len, mode, mask, maxnode, flags);
}
static inline long home_node(void *start, unsigned long len, unsigned long node, unsigned long flags)
{
	return syscall(SYS_set_mempolicy_home_node_, start, len, node, flags);
}

static inline long move_pages(int pid, unsigned long n, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages_, pid, n, pages, nodes, status, flags);
}

static int nr_nodes __attribute__((unused));			/* nodes 0..nr_nodes-1 exist */
static unsigned long has_memory __attribute__((unused));	/* /sys/devices/system/node/has_memory */
static int dist[64][64] __attribute__((unused));

/* "0-2,5\n" into a mask of up to 64 bits; false if malformed. */
static inline bool parse_list(const char *s, unsigned long *mask)
{
	*mask = 0;
	while (*s && *s != '\n') {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;
		if (e == s || a > 63)
			return false;
		s = e;
		if (*s == '-') {
			b = strtoul(s + 1, &e, 10);
			if (e == s + 1 || b > 63 || b < a)
				return false;
			s = e;
		}
		for (unsigned long i = a; i <= b; i++)
			*mask |= 1ul << i;
		if (*s == ',')
			s++;
	}
	return true;
}

static inline void read_topology(void)
{
	char buf[512], path[96];
	unsigned long possible = 0;
	if (read_file("/sys/devices/system/node/possible", buf, sizeof(buf)) > 0 && parse_list(buf, &possible))
		while (possible >> nr_nodes & 1)
			nr_nodes++;
	if (read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)) <= 0 || !parse_list(buf, &has_memory))
		has_memory = 1;
	for (int a = 0; a < nr_nodes; a++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", a);
		if (read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		char *s = buf;
		for (int b = 0; b < nr_nodes; b++)
			dist[a][b] = (int)strtol(s, &s, 10);
	}
}

/* Pins the program to a CPU of node nid; false if the node has none. */
static inline bool run_on_node(int nid)
{
	char buf[256], path[96];
	unsigned long cpus;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", nid);
	if (read_file(path, buf, sizeof(buf)) <= 0 || !parse_list(buf, &cpus) || !cpus)
		return false;
	unsigned long one = cpus & -cpus;
	return syscall(SYS_sched_setaffinity_, 0, sizeof(one), &one) == 0;
}

/* The node of the page at p (touching it for reading if it is not there). */
static inline int node_of(void *p)
{
	int nid = -1;
	if (get_mempolicy(&nid, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR))
		return -1;
	return nid;
}

static inline int maps_lines_in(unsigned long lo, unsigned long hi)
{
	static char buf[1 << 16];
	if (read_file("/proc/self/maps", buf, sizeof(buf)) <= 0)
		return -1;
	int n = 0;
	for (char *s = buf; *s;) {
		unsigned long a = strtoul(s, &s, 16), b = strtoul(s + 1, &s, 16);
		if (a >= lo && b <= hi)
			n++;
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	return n;
}

#endif
