/* Benchmark: migrate_pages(2) of the same number of pages (--pages, default
 * 8,192 = 32 MiB) into a node that holds them all, into one that has room
 * for half of them, and into one that is full. Under mmlab's
 * `make bench-migrate` (QEMU -icount shift=0) a nanosecond is one guest
 * instruction, so the three compare exactly. The target is the memory node
 * with the least free memory; this process fills it (bound there) to leave
 * the room each case needs. Needs two nodes with memory.
 *
 * With --lock-pages N (or migrate_cost.lock_pages=N on mmlab's command
 * line, read from /proc/cmdline), last, the mmap_lock: a second thread maps and
 * unmaps a page over and over (each a writer of the lock) while
 * migrate_pages moves N pages that fit; its slowest mmap+munmap says how
 * long the migration kept it out. Not under -icount: with every vCPU on
 * one thread, each hand-over of the lock between the two waits for the
 * other vCPU's turn, and the run takes many minutes. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>

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

static volatile int writer_stop, writer_started;
static long long writer_worst;
static long writer_rounds;

static void *writer(void *arg)
{
	(void)arg;
	writer_started = 1;
	while (!writer_stop) {
		long long t0 = now_ns();
		void *p = mmap(NULL, MW_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, MW_PAGE);
		long long t = now_ns() - t0;
		if (t > writer_worst)
			writer_worst = t;
		writer_rounds++;
	}
	return NULL;
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

	/* The mmap_lock during a long migration. */
	static char cmdline[4096];
	long def_big = 0;
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0) {
		const char *c = strstr(cmdline, "migrate_cost.lock_pages=");
		if (c)
			def_big = atol(c + strlen("migrate_cost.lock_pages="));
	}
	unsigned long big = (unsigned long)arg_long(argc, argv, "--lock-pages", def_big);
	if (!big)
		return 0;
	if ((unsigned long)mw_node_free_kb(target) * 1024 < big * MW_PAGE + 64 * MiB ||
	    (unsigned long)mw_node_free_kb(source) * 1024 < big * MW_PAGE + 64 * MiB) {
		printf("bench: migrate_pages beside a writer of the mmap_lock: skipped (no room for %lu MiB)\n",
		       big * MW_PAGE / MiB);
		return 0;
	}
	m = mw_map_on(big, 1ul << source);
	pthread_t t;
	if (!m || pthread_create(&t, NULL, writer, NULL))
		return 1;
	while (!writer_started)
		sched_yield();
	/* 100 rounds alone first: what one costs without a migration. */
	long long w0 = now_ns();
	while (writer_rounds < 100 && now_ns() - w0 < 1000000000ll)
		sched_yield();
	long before = writer_rounds;
	long long worst_before = writer_worst;
	writer_worst = 0;
	/* The thread runs during the call only (the checks after it take
	 * the lock page by page, and would only wait on it). */
	long long t0 = now_ns();
	long r = mw_migrate_pages(1ul << source, 1ul << target);
	long long took = now_ns() - t0;
	writer_stop = 1;
	pthread_join(t, NULL);
	moved = mw_pages_on(m, big, target);
	printf("bench: migrate_pages of %lu pages beside a thread mapping and unmapping a page: %lld ns, "
	       "returned %ld, %ld moved%s; the thread's slowest mmap+munmap %lld ns (%ld rounds)\n",
	       big, took, r, moved, mw_first_bad(m, big) == big ? "" : ", DATA LOST", writer_worst,
	       writer_rounds - before);
	printf("bench: ... the same thread before the call: slowest of %ld rounds %lld ns\n", before, worst_before);
	munmap(m, big * MW_PAGE);
	return 0;
}
