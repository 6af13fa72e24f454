/* Benchmark: the cost of a page fault under each memory policy, and of
 * moving pages between nodes. For each policy (none, local, preferred,
 * bind to the local node, bind to every node with the home node set,
 * preferred-many with the home node, interleave, weighted interleave) it
 * maps --pages pages (default 2048), sets the policy with mbind, writes one
 * byte of each page and prints ns per fault; then move_pages moves them all
 * to another node and back and prints pages per second. Under mmlab's
 * `make bench-mempolicy` (QEMU -icount shift=0) a nanosecond is one guest
 * instruction, so the modes' costs compare exactly. On a one-node machine
 * only the first three are run. After each policy's figure a line says
 * where its pages landed ("placement, POLICY: N0=a N1=b ... pages", by
 * move_pages without nodes, after the timed loop), from a CPU of the
 * first node with memory: the placement make report draws, the same on
 * any kernel (under Linux 6.1 on a four-node machine too, where the
 * times are not instructions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#define MAXNODE 65

enum { DEFAULT, PREFERRED, BIND, INTERLEAVE, LOCAL, PREFERRED_MANY, WEIGHTED_INTERLEAVE };

static long mbind_(void *p, unsigned long len, int mode, const unsigned long *mask)
{
	return syscall(237, p, len, mode, mask, MAXNODE, 0);
}

/* Where the pages of the last faults() call landed, per node. */
static long placed[64];
static int placed_nodes; /* 0: not known */

/* The node of each of the pages at p, counted into placed[]. */
static void count_placement(char *p, long pages)
{
	static void *v[1 << 16];
	static int st[1 << 16];
	memset(placed, 0, sizeof(placed));
	placed_nodes = 0;
	if (pages > (1 << 16))
		return;
	for (long i = 0; i < pages; i++)
		v[i] = p + i * PAGE_4K;
	if (syscall(279, 0, pages, v, NULL, st, 0))
		return;
	for (long i = 0; i < pages; i++) {
		if (st[i] < 0 || st[i] >= 64)
			continue;
		placed[st[i]]++;
		if (st[i] + 1 > placed_nodes)
			placed_nodes = st[i] + 1;
	}
}

static void print_placement(const char *policy, int nodes)
{
	if (!placed_nodes)
		return;
	printf("bench: mempolicy_fault placement, %s:", policy);
	for (int n = 0; n < nodes && n < 64; n++)
		printf(" N%d=%ld", n, placed[n]);
	printf(" pages\n");
}

/* ns per fault over pages pages under mode/mask (home: -1 for none). */
static double faults(long pages, int mode, unsigned long mask, int home)
{
	size_t len = (size_t)pages * PAGE_4K;
	char *p = mmap(NULL, len, RW, ANON, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE); /* Linux: 4 KiB faults, as mmlab's */
	if (mode != DEFAULT && mbind_(p, len, mode, mode == LOCAL ? NULL : &mask)) {
		munmap(p, len);
		return -2;
	}
	if (home >= 0 && syscall(450, p, len, home, 0)) {
		munmap(p, len);
		return -3;
	}
	long long t0 = now_ns();
	for (long i = 0; i < pages; i++)
		p[i * PAGE_4K] = 1;
	long long t = now_ns() - t0;
	count_placement(p, pages);
	munmap(p, len);
	return (double)t / pages;
}

/* The first CPU of node nid, from sysfs ("0-3\n" or "2\n"), or -1. */
static int first_cpu_of(int nid)
{
	char path[96], buf[256];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", nid);
	if (read_file(path, buf, sizeof(buf)) <= 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	return (int)strtol(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	long pages = arg_long(argc, argv, "--pages", 2048);
	char buf[256];
	unsigned long mem = 1;
	if (read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)) > 0) {
		/* "0-3\n" or "0,2\n": enough for the machines here. */
		mem = 0;
		for (char *s = buf; *s && *s != '\n';) {
			int a = (int)strtol(s, &s, 10), b = a;
			if (*s == '-')
				b = (int)strtol(s + 1, &s, 10);
			for (int n = a; n <= b && n < 64; n++)
				mem |= 1ul << n;
			if (*s == ',')
				s++;
		}
	}
	int first = __builtin_ctzl(mem), second = mem & (mem - 1) ? __builtin_ctzl(mem & (mem - 1)) : -1;
	int nodes = 64 - __builtin_clzl(mem);
	/* Fault from the first node's CPU, so that "local" means one node
	 * on every kernel (Linux's scheduler may start the program on any). */
	int cpu = first_cpu_of(first);
	if (cpu >= 0 && cpu < 64) {
		unsigned long one = 1ul << cpu;
		if (syscall(203, 0, sizeof(one), &one) == 0)
			printf("bench: mempolicy_fault faulting CPU: %d of node %d\n", cpu, first);
	}
	faults(pages / 4 + 1, DEFAULT, 0, -1); /* warm up */
	printf("bench: mempolicy_fault pages: %ld per policy\n", pages);
	printf("bench: mempolicy_fault default: %.0f ns per fault\n", faults(pages, DEFAULT, 0, -1));
	print_placement("default", nodes);
	printf("bench: mempolicy_fault local: %.0f ns per fault\n", faults(pages, LOCAL, 0, -1));
	print_placement("local", nodes);
	printf("bench: mempolicy_fault preferred: %.0f ns per fault\n",
	       faults(pages, PREFERRED, 1ul << first, -1));
	print_placement("preferred", nodes);
	if (second < 0)
		return 0;
	printf("bench: mempolicy_fault home node: %d\n", second);
	printf("bench: mempolicy_fault bind (all nodes): %.0f ns per fault\n", faults(pages, BIND, mem, -1));
	print_placement("bind (all nodes)", nodes);
	printf("bench: mempolicy_fault bind, home node: %.0f ns per fault\n", faults(pages, BIND, mem, second));
	print_placement("bind, home node", nodes);
	printf("bench: mempolicy_fault preferred many, home node: %.0f ns per fault\n",
	       faults(pages, PREFERRED_MANY, mem, second));
	print_placement("preferred many, home node", nodes);
	printf("bench: mempolicy_fault interleave: %.0f ns per fault\n", faults(pages, INTERLEAVE, mem, -1));
	print_placement("interleave", nodes);
	double w = faults(pages, WEIGHTED_INTERLEAVE, mem, -1);
	if (w >= 0) {
		printf("bench: mempolicy_fault weighted interleave: %.0f ns per fault\n", w);
		print_placement("weighted interleave", nodes);
	}

	/* move_pages: every page to the second node and back. */
	size_t len = (size_t)pages * PAGE_4K;
	char *p = mmap(NULL, len, RW, ANON, -1, 0);
	static void *v[1 << 16];
	static int to[1 << 16], st[1 << 16];
	if (p == MAP_FAILED || pages > (1 << 16))
		return 1;
	madvise(p, len, MADV_NOHUGEPAGE);
	unsigned long one = 1ul << first;
	mbind_(p, len, BIND, &one);
	for (long i = 0; i < pages; i++) {
		p[i * PAGE_4K] = 1;
		v[i] = p + i * PAGE_4K;
	}
	long long t = 0;
	for (int round = 0; round < 2; round++) {
		int target = round ? first : second;
		for (long i = 0; i < pages; i++)
			to[i] = target;
		long long t0 = now_ns();
		if (syscall(279, 0, pages, v, to, st, 2 /* MPOL_MF_MOVE */))
			return 1;
		t += now_ns() - t0;
	}
	printf("bench: mempolicy_fault move_pages: %.0f ns per page, %.0f pages per second\n",
	       (double)t / (2 * pages), 2e9 * pages / (double)t);
	munmap(p, len);
	return 0;
}
