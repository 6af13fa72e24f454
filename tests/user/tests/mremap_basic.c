/* mremap(2) as a program sees it, the same checks on Linux and mmlab:
 * the errnos, shrinking and growing in place, moving (MREMAP_MAYMOVE,
 * MREMAP_FIXED over a mapping, MREMAP_DONTUNMAP), a whole 2 MiB PTE table
 * moved and a range inside one, the VMAs a move leaves (/proc/self/maps:
 * a faulted mapping keeps its page offsets, so it merges back with its
 * other half but not with a fresh neighbour), contents and RSS kept, and
 * VmPTE back where it started once everything is unmapped.
 *
 * Everything lives in a region of its own (REGION, MAP_FIXED_NOREPLACE),
 * so that its page tables are its own on both kernels. Unmapped and
 * read-only ranges are observed through the kernel (no signals on mmlab):
 * pread(2) into a page that cannot be stored to fails with EFAULT. The
 * system call is made directly: musl's mremap() checks lengths itself. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)
#define P PAGE_4K
#define REGION ((char *)0x300000000000ul) /* a 512 GiB PGD entry of its own */
#define PMD (2 * MiB)
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15
#endif
#define MAYMOVE MREMAP_MAYMOVE
#define FIXED (MREMAP_FIXED | MREMAP_MAYMOVE)
#define DONTUNMAP (MREMAP_DONTUNMAP | MREMAP_MAYMOVE)

static int status_fd = -1;

static long sys_mremap(void *old, unsigned long old_len, unsigned long new_len, unsigned long flags,
		       void *new_addr)
{
	return syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

/* Maps [addr, addr + len) read-write, where nothing is mapped. */
static char *map_at(char *addr, unsigned long len)
{
	char *p = mmap(addr, len, RW, ANON | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || p != addr)
		test_skip("cannot map %p (%s): the region is not free here", (void *)addr,
			  p == MAP_FAILED ? errno_name(errno) : "elsewhere");
	/* A 2 MiB-aligned mapping must stay small pages on Linux (THP) for
	 * the table checks: the same advice on both kernels. */
	CHECK(madvise(p, len, MADV_NOHUGEPAGE) == 0);
	return p;
}

/* Writes seed + i at the start of page i of n pages. */
static void fill(char *p, unsigned long n, long seed)
{
	for (unsigned long i = 0; i < n; i++)
		*(long *)(p + i * P) = seed + (long)i;
}

static bool filled(const char *p, unsigned long n, long seed)
{
	for (unsigned long i = 0; i < n; i++)
		if (*(const long *)(p + i * P) != seed + (long)i)
			return false;
	return true;
}

static bool zeroes(const char *p, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (*(const long *)(p + i * P))
			return false;
	return true;
}

/* Can the kernel store into p? (copies one byte of /proc/self/status) */
static bool kernel_can_store(void *p)
{
	return pread(status_fd, p, 1, 0) == 1;
}

/* The number of /proc/self/maps lines that start inside [lo, hi). */
static int vmas_in(const char *lo, const char *hi)
{
	static char maps[65536];
	if (read_file("/proc/self/maps", maps, sizeof(maps)) < 0)
		return -1;
	int n = 0;
	for (char *line = maps; line && *line;) {
		char *end;
		unsigned long start = strtoul(line, &end, 16);
		if (start >= (uintptr_t)lo && start < (uintptr_t)hi)
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

static void errors(void)
{
	char *a = map_at(REGION, 4 * P), *b = map_at(REGION + 8 * P, 4 * P);
	fill(a, 4, 100);
	fill(b, 4, 200);
	CHECK_ERRNO(sys_mremap(a, 4 * P, 4 * P, 8, 0), EINVAL);           /* unknown flag */
	CHECK_ERRNO(sys_mremap(a + 1, 4 * P, 4 * P, 0, 0), EINVAL);       /* unaligned */
	CHECK_ERRNO(sys_mremap(a, 4 * P, 0, MAYMOVE, 0), EINVAL);         /* new_len 0 */
	CHECK_ERRNO(sys_mremap(a, 4 * P, 4 * P, MREMAP_FIXED, REGION + 64 * P), EINVAL);
	CHECK_ERRNO(sys_mremap(a, 4 * P, 4 * P, MREMAP_DONTUNMAP, REGION + 64 * P), EINVAL);
	CHECK_ERRNO(sys_mremap(a, 4 * P, 8 * P, DONTUNMAP, 0), EINVAL);   /* and resize */
	CHECK_ERRNO(sys_mremap(a, 4 * P, 4 * P, FIXED, REGION + 64 * P + 8), EINVAL);
	CHECK_ERRNO(sys_mremap(REGION + 5 * P, P, 2 * P, MAYMOVE, 0), EFAULT); /* no VMA */
	CHECK_ERRNO(sys_mremap(a, 0, 4 * P, MAYMOVE, 0), EINVAL);         /* private duplicate */
	CHECK_ERRNO(sys_mremap(a, 6 * P, 8 * P, MAYMOVE, 0), EFAULT);     /* leaves its VMA */
	CHECK_ERRNO(sys_mremap(a, 4 * P, 4 * P, FIXED, a + 2 * P), EINVAL); /* overlap */
	CHECK_ERRNO(sys_mremap(a, 4 * P, 4 * P, FIXED, (void *)(1ul << 63)), EINVAL);
	CHECK_ERRNO(sys_mremap(a, 4 * P, 12 * P, 0, 0), ENOMEM);          /* b is in the way */
	CHECK(sys_mremap(a, 4 * P, 4 * P, 0, 0) == (long)a);              /* nothing to do */
	/* A shrink whose old range runs past the end of user space, or wraps:
	 * refused before anything is unmapped (Linux's munmap checks the
	 * tail's range), not a tail unmapped to the top, stack and all. The
	 * first is what a random-argument fuzzer found. */
	CHECK_ERRNO(sys_mremap(a, 0x6e77e1ff8bbd37abul, 0x158f, MAYMOVE, 0), EINVAL);
	CHECK_ERRNO(sys_mremap(a, -P, 2 * P, MAYMOVE, 0), EINVAL);
	CHECK_ERRNO(sys_mremap(a, -P, 2 * P, 0, 0), EINVAL);
	volatile char deep[8192]; /* the stack above still answers */
	deep[0] = deep[8191] = 1;
	CHECK(deep[0] + deep[8191] == 2);
	CHECK(filled(a, 4, 100) && filled(b, 4, 200));
	CHECK(munmap(a, 12 * P) == 0);
}

static void shrink_and_grow_in_place(void)
{
	char *a = map_at(REGION, 8 * P);
	fill(a, 8, 300);
	CHECK(sys_mremap(a, 8 * P, 5 * P, 0, 0) == (long)a);
	CHECK(filled(a, 5, 300));
	CHECK_ERRNO(pread(status_fd, a + 5 * P, 1, 0), EFAULT);
	CHECK(sys_mremap(a, 5 * P - 100, 3 * P + 1, 0, 0) == (long)a); /* rounded: 5 -> 4 pages */
	CHECK_ERRNO(pread(status_fd, a + 4 * P, 1, 0), EFAULT);
	/* Growing where the gap allows: the same address, zero pages added. */
	CHECK(sys_mremap(a, 4 * P, 7 * P, 0, 0) == (long)a);
	CHECK(filled(a, 4, 300) && zeroes(a + 4 * P, 3));
	CHECK(kernel_can_store(a + 6 * P));
	int vmas = vmas_in(REGION, REGION + 64 * P);
	CHECKF(vmas == 1, "one VMA after growing (%d)", vmas);
	CHECK(munmap(a, 7 * P) == 0);

	/* Two never-written mappings: growing one up to the other merges them. */
	char *u = map_at(REGION + 64 * P, 2 * P);
	map_at(REGION + 68 * P, 2 * P);
	CHECK(sys_mremap(u, 2 * P, 4 * P, 0, 0) == (long)u);
	vmas = vmas_in(REGION + 64 * P, REGION + 128 * P);
	CHECKF(vmas == 1, "grown up to its neighbour, one VMA (%d)", vmas);
	CHECK(zeroes(u, 6));
	CHECK(munmap(u, 6 * P) == 0);
}

static void move(void)
{
	char *a = map_at(REGION, 4 * P);
	map_at(REGION + 4 * P, P); /* in the way */
	fill(a, 4, 400);
	long rss_before = rss_kb();
	long r = sys_mremap(a, 4 * P, 8 * P, MAYMOVE, 0);
	long rss_after = rss_kb();
	if (!CHECK(r != -1))
		return;
	char *m = (char *)r;
	CHECK(m != a);
	CHECK_CMP(rss_after, ==, rss_before); /* the pages moved, none was copied */
	CHECK(filled(m, 4, 400) && zeroes(m + 4 * P, 4));
	CHECK_ERRNO(pread(status_fd, a, 1, 0), EFAULT);
	CHECK(munmap(m, 8 * P) == 0);
	CHECK(munmap(REGION + 4 * P, P) == 0);

	/* MREMAP_FIXED over a mapping: what was there goes first. */
	a = map_at(REGION, 8 * P);
	char *d = map_at(REGION + 64 * P, 8 * P);
	fill(a, 8, 500);
	fill(d, 8, 600);
	CHECK(sys_mremap(a + 2 * P, 4 * P, 4 * P, FIXED, d + 2 * P) == (long)(d + 2 * P));
	CHECK(filled(d, 2, 600) && filled(d + 2 * P, 4, 502) && filled(d + 6 * P, 2, 606));
	CHECK(filled(a, 2, 500) && filled(a + 6 * P, 2, 506));
	CHECK_ERRNO(pread(status_fd, a + 2 * P, 1, 0), EFAULT);
	int vmas = vmas_in(REGION, REGION + 128 * P);
	CHECKF(vmas == 5, "two halves, the moved piece between two halves (%d VMAs)", vmas);
	/* And growing on the way. */
	char *g = REGION + 200 * P;
	CHECK(sys_mremap(d + 2 * P, 4 * P, 6 * P, FIXED, g) == (long)g);
	CHECK(filled(g, 4, 502) && zeroes(g + 4 * P, 2));
	CHECK(munmap(REGION, 256 * P) == 0);
}

static void dontunmap(void)
{
	char *a = map_at(REGION, 4 * P);
	fill(a, 4, 700);
	/* MREMAP_DONTUNMAP alone takes new_addr as a hint (free: taken). */
	char *hint = REGION + 32 * P;
	long r = sys_mremap(a, 4 * P, 4 * P, DONTUNMAP, hint);
	if (!CHECK(r != -1))
		return;
	char *m = (char *)r;
	CHECK(m == hint);
	CHECK(filled(m, 4, 700));
	/* The old range stays mapped, empty. */
	CHECK(zeroes(a, 4));
	CHECK(kernel_can_store(a + 3 * P));
	char *f = REGION + 100 * P;
	CHECK(sys_mremap(m, 4 * P, 4 * P, DONTUNMAP | MREMAP_FIXED, f) == (long)f);
	CHECK(filled(f, 4, 700) && zeroes(m, 4));
	int vmas = vmas_in(REGION, REGION + 128 * P);
	CHECKF(vmas == 3, "the old, the emptied and the new range: 3 VMAs (%d)", vmas);
	CHECK(munmap(REGION, 128 * P) == 0);
}

/* A whole, aligned 2 MiB moves as one PTE table on both kernels (Linux's
 * move_normal_pmd); a program sees the contents and RSS kept, and VmPTE
 * neither growing nor, after munmap, left behind. */
static void tables(long vmpte_start)
{
	char *t = REGION + 4 * PMD;
	map_at(t, PMD);
	fill(t, 1, 800);
	fill(t + 100 * P, 1, 900);
	fill(t + 511 * P, 1, 1000);
	long vmpte = status_kb("VmPTE"), rss = rss_kb();
	char *t2 = REGION + 8 * PMD;
	long r = sys_mremap(t, PMD, PMD, FIXED, t2);
	long vmpte_moved = status_kb("VmPTE"), rss_moved = rss_kb();
	CHECK(r == (long)t2);
	CHECK_CMP(vmpte_moved, ==, vmpte);
	CHECK_CMP(rss_moved, ==, rss);
	CHECK(filled(t2, 1, 800) && filled(t2 + 100 * P, 1, 900) && filled(t2 + 511 * P, 1, 1000));
	CHECK(zeroes(t2 + 200 * P, 1));
	CHECK_ERRNO(pread(status_fd, t, 1, 0), EFAULT);
	/* A few pages inside one table, entry by entry, then across two. */
	char *s = t2 + 300 * P;
	CHECK(sys_mremap(t2 + 100 * P, P, P, FIXED, s) == (long)s);
	CHECK(filled(s, 1, 900));
	char *x = REGION + 12 * PMD - 2 * P;
	CHECK(sys_mremap(t2 + 510 * P, 2 * P, 2 * P, FIXED, x) == (long)x);
	CHECK(zeroes(x, 1) && filled(x + P, 1, 1000));
	CHECK(munmap(REGION, 16 * PMD) == 0);
	CHECK_CMP(status_kb("VmPTE"), ==, vmpte_start);
}

/* The VMAs a move leaves: a written mapping keeps its page offsets where
 * it goes (Linux's vm_pgoff), so it does not merge with a fresh mapping
 * beside it there, but joins its other half again when moved back. */
static void merges(void)
{
	char *a = map_at(REGION, 8 * P);
	fill(a, 8, 1100);
	char *d = REGION + 100 * P;
	CHECK(sys_mremap(a + 4 * P, 4 * P, 4 * P, FIXED, d) == (long)d);
	map_at(d + 4 * P, 4 * P);
	int vmas = vmas_in(d, d + 8 * P);
	CHECKF(vmas == 2, "a moved mapping and a fresh one beside it: 2 VMAs (%d)", vmas);
	CHECK(munmap(d + 4 * P, 4 * P) == 0);
	CHECK(sys_mremap(d, 4 * P, 4 * P, FIXED, a + 4 * P) == (long)(a + 4 * P));
	vmas = vmas_in(REGION, REGION + 128 * P);
	CHECKF(vmas == 1, "moved back: one VMA again (%d)", vmas);
	CHECK(filled(a, 8, 1100));
	CHECK(munmap(a, 8 * P) == 0);
}

/* Touches 64 KiB of stack below the caller's frame, so that the page
 * tables the calls below it will need are there before VmPTE is first
 * read: where Linux randomises the stack, its top may sit just above a
 * 2 MiB boundary, and a deeper call would then add a PTE table of its own
 * (VmPTE +4 kB, about one run in 750 on a host Linux 6.18). */
static __attribute__((noinline)) void stack_tables(void)
{
	volatile char deep[64 * 1024];
	for (size_t off = 0; off < sizeof(deep); off += PAGE_4K)
		deep[off] = 0;
	deep[sizeof(deep) - 1] = 0;
}

int main(void)
{
	test_begin("mremap_basic");
	stack_tables();
	status_fd = open("/proc/self/status", O_RDONLY);
	CHECK(status_fd >= 0);
	vmas_in(REGION, REGION); /* its buffer's pages (and tables) exist from here on */
	long vmpte_start = status_kb("VmPTE");
	rss_kb(); /* its first call faults in a page of its own */
	errors();
	shrink_and_grow_in_place();
	CHECK_CMP(status_kb("VmPTE"), ==, vmpte_start);
	/* A move without MREMAP_FIXED goes where the kernel chooses, beside
	 * mappings whose tables may outlive it (free_pgd_range keeps a table
	 * a neighbour's 2 MiB shares): VmPTE is compared from here on. */
	move();
	vmpte_start = status_kb("VmPTE");
	dontunmap();
	tables(vmpte_start);
	merges();
	CHECK_CMP(status_kb("VmPTE"), ==, vmpte_start);
	return test_end();
}
