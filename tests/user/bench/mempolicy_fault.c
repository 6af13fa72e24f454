/* Benchmark: the cost of a page fault under each memory policy, and of
 * moving pages between nodes. For each policy (none, local, preferred,
 * bind to the local node, bind to every node with the home node set,
 * preferred-many with the home node, interleave, weighted interleave) it
 * maps --pages pages (default 2048), sets the policy with mbind, writes one
 * byte of each page and prints ns per fault; then move_pages moves them all
 * to another node and back and prints pages per second. Under mmlab's
 * `make bench-mempolicy` (QEMU -icount shift=0) a nanosecond is one guest
 * instruction, so the modes' costs compare exactly. On a one-node machine
 * only the first three are run. */
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
	munmap(p, len);
	return (double)t / pages;
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
	faults(pages / 4 + 1, DEFAULT, 0, -1); /* warm up */
	printf("bench: mempolicy_fault pages: %ld per policy\n", pages);
	printf("bench: mempolicy_fault default: %.0f ns per fault\n", faults(pages, DEFAULT, 0, -1));
	printf("bench: mempolicy_fault local: %.0f ns per fault\n", faults(pages, LOCAL, 0, -1));
	printf("bench: mempolicy_fault preferred: %.0f ns per fault\n",
	       faults(pages, PREFERRED, 1ul << first, -1));
	if (second < 0)
		return 0;
	printf("bench: mempolicy_fault bind (all nodes): %.0f ns per fault\n", faults(pages, BIND, mem, -1));
	printf("bench: mempolicy_fault bind, home node: %.0f ns per fault\n", faults(pages, BIND, mem, second));
	printf("bench: mempolicy_fault preferred many, home node: %.0f ns per fault\n",
	       faults(pages, PREFERRED_MANY, mem, second));
	printf("bench: mempolicy_fault interleave: %.0f ns per fault\n", faults(pages, INTERLEAVE, mem, -1));
	double w = faults(pages, WEIGHTED_INTERLEAVE, mem, -1);
	if (w >= 0)
		printf("bench: mempolicy_fault weighted interleave: %.0f ns per fault\n", w);

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
