/* The address space the gdb check looks at (tools/gdb/gdb-check): one of
 * each kind of mapping the helpers describe, then a stop for the debugger
 * (Linux's "echo g > /proc/sysrq-trigger", which enters kgdb; mmlab stops
 * where gdb breaks, kernel/debugger.h), then exit. Booted with
 * `run=gdb_target debugger_facts`, the kernel prints what it sees of this
 * process right before the stop, and the check compares the helpers'
 * output with that. On Linux without a debugger the write does nothing. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define MPOL_BIND 2
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

static void touch(char *p, unsigned long len)
{
	for (unsigned long off = 0; off < len; off += PAGE_4K)
		p[off] = 1;
}

int main(void)
{
	/* A transparent huge page: 2 MiB aligned inside a larger mapping. */
	char *big = mmap(NULL, 6 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *thp = (char *)(((uintptr_t)big + 2 * MiB - 1) & ~(2 * MiB - 1));
	madvise(big, 6 * MiB, MADV_HUGEPAGE);
	touch(thp, 2 * MiB);

	/* 16 pages bound to node 1 (on a one-node machine mbind fails and
	 * they come from node 0: the check reads the policy from the kernel). */
	char *bound = mmap(NULL, 64 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long mask = 1ul << 1;
	syscall(SYS_mbind, bound, 64 * KiB, MPOL_BIND, &mask, 64, 0);
	touch(bound, 64 * KiB);

	/* A sparse mapping, its last quarter made read-only (two VMAs): pages
	 * 0-2 and 8 written, the rest never touched. */
	char *sparse = mmap(NULL, 16 * PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	touch(sparse, 3 * PAGE_4K);
	sparse[8 * PAGE_4K] = 1;
	mprotect(sparse + 12 * PAGE_4K, 4 * PAGE_4K, PROT_READ);

	/* A shared anonymous page: a page of a file on the internal tmpfs,
	 * in that file's page cache. */
	char *shared = mmap(NULL, 4 * PAGE_4K, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared != MAP_FAILED)
		touch(shared, 4 * PAGE_4K);

	/* A hugetlb page, if the machine has a pool. */
	char *huge = mmap(NULL, 2 * MiB, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (huge != MAP_FAILED)
		huge[0] = 1;

	printf("gdb_target: pid %d: thp %p bound %p sparse %p shared %p hugetlb %p\n", (int)getpid(), thp,
	       bound, sparse, shared == MAP_FAILED ? NULL : shared, huge == MAP_FAILED ? NULL : huge);
	fflush(stdout);
	int fd = open("/proc/sysrq-trigger", O_WRONLY);
	/* Page tables freed after an RCU grace period (pagetable_free_deferred):
	 * grace periods and callbacks for mm-rcu to count. */
	char *gone = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone != MAP_FAILED) {
		for (unsigned long off = 0; off < 8 * MiB; off += 2 * MiB)
			gone[off] = 1;
		munmap(gone, 8 * MiB);
	}
	if (fd >= 0) {
		if (write(fd, "g", 1) != 1)
			perror("gdb_target: sysrq-trigger");
		close(fd);
	}
	printf("gdb_target: resumed\n");
	return 0;
}
