/* Benchmark: migrate_pages(2) of the same number of pages (--pages, default
 * 8,192 = 32 MiB) into a node that holds them all, into one that has room
 * for half of them, and into one that is full. Under mmlab's
 * `make bench-migrate` (QEMU -icount shift=0) a nanosecond is one guest
 * instruction, so the three compare exactly. The target is the memory node
 * with the least free memory; this process fills it (bound there) to leave
 * the room each case needs. Needs two nodes with memory. */
#include <errno.h>

#include "check.h"
#include "migrate_workload.h"

/* migrate_pages of n pages from source to target: ns taken; *ret the
 * call's return (-errno on failure), *moved how many ended on target. */
static long long one_migration(char *m, unsigned long n, int source, int target, long *ret, long *moved)
{
	long long t0 = now_ns();
	long r = mw_migrate_pages(1ul << source, 1ul << target);
	long long t = now_ns() - t0;
	*ret = r < 0 ? -errno : r;
	*moved = mw_pages_on(m, n, target);
	if (mw_first_bad(m, n) != n)
		printf("bench: migrate_cost: DATA LOST\n");
	return t;
}

int main(int argc, char **argv)
{
	unsigned long n = (unsigned long)arg_long(argc, argv, "--pages", 8192);
	int target, source;
	if (!mw_pick_nodes(&target, &source)) {
		printf("bench: migrate_cost: skipped (fewer than two nodes with memory)\n");
		return 0;
	}
	long ret, moved;

	/* It fits. */
	char *m = mw_map_on(n, 1ul << source);
	if (!m)
		return 1;
	long long fits = one_migration(m, n, source, target, &ret, &moved);
	printf("bench: migrate_pages of %lu pages, node %d to %d, all fit: %lld ns (%lld per page), "
	       "returned %ld, %ld moved\n",
	       n, source, target, fits, fits / (long long)n, ret, moved);
	munmap(m, n * MW_PAGE);

	/* Room for half: the target filled but for n / 2 pages. */
	m = mw_map_on(n, 1ul << source);
	unsigned long free_t = (unsigned long)mw_node_free_kb(target) * 1024, room = n / 2 * MW_PAGE;
	unsigned long fill = free_t > room ? (free_t - room) / MW_PAGE : 0;
	char *f = fill ? mw_map_on(fill, 1ul << target) : NULL;
	if (!m || (fill && !f))
		return 1;
	long long half = one_migration(m, n, source, target, &ret, &moved);
	printf("bench: migrate_pages of %lu pages into room for %lu: %lld ns (%.2fx the fitting one), "
	       "returned %ld, %ld moved\n",
	       n, n / 2, half, (double)half / (double)fits, ret, moved);

	/* Full: the first page finds no room. */
	long long full = one_migration(m, n, source, target, &ret, &moved);
	printf("bench: migrate_pages of the %lu pages left into the full node: %lld ns, returned %ld, "
	       "%ld on the target\n",
	       n - (unsigned long)moved, full, ret, moved);
	munmap(m, n * MW_PAGE);
	if (f)
		munmap(f, fill * MW_PAGE);
	return 0;
}
