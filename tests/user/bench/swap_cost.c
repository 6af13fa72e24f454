/* Benchmark: what swapping a page out and back in costs, on the runner's
 * swap disk (common/swap_disk.h; the bench machines swap-1cpu and
 * linux-swap-1cpu: make bench-swap). Under -icount shift=0 a nanosecond
 * of the guest's clock is one instruction while the CPU runs, but while
 * it waits for the disk (halted) the clock goes on in real time: each
 * figure is the clock's growth less the idle time counted meanwhile
 * (idle_ns: Linux's in ns, mmlab's /proc/stat measured but shown in
 * USER_HZ ticks of 10 ms, good to 10 ms over the whole phase, which
 * --pages makes long), per page.
 * Phases, on --pages pages (default 65536: 256 MiB) of private anonymous
 * memory in 4 KiB pages, each page written:
 *   - out: MADV_PAGEOUT of them all, until their writes are done
 *     (nr_writeback 0, polled every 50 ms: Linux writes asynchronously;
 *     mmlab's MADV_PAGEOUT returns with them written and the pages free,
 *     Linux's leaves them in the swap cache, freed by a later reclaim);
 *   - in: the pages read back in address order (one word each), after
 *     they were pushed out of memory entirely (mincore: none resident),
 *     with page-cluster as the kernel has it, then again with
 *     page-cluster 0 (one page per fault).
 * Each line: "bench: swap_cost <phase>: N ns" per page, and the major
 * faults and swap_ra per page beside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "swap_disk.h"

#define PAGE 4096ul

/* The CPUs' idle time so far, in ns: Linux's /proc/timer_list
 * (idle_sleeptime + iowait_sleeptime of each CPU, in ns) where it can be
 * read, else /proc/stat's cpu line (idle + iowait, in USER_HZ ticks of
 * 10 ms: good to 10 ms). */
static long long idle_ns(void)
{
	static char buf[1 << 16];
	if (read_file("/proc/timer_list", buf, sizeof(buf)) > 0) {
		long long sum = 0;
		bool found = false;
		for (char *l = buf; (l = strstr(l, "_sleeptime")); l++) {
			char *c = strchr(l, ':');
			if (!c)
				break;
			if (!strncmp(l - 4, "idle", 4) || !strncmp(l - 6, "iowait", 6)) {
				sum += strtoll(c + 1, NULL, 10);
				found = true;
			}
		}
		if (found)
			return sum;
	}
	if (read_file("/proc/stat", buf, sizeof(buf)) <= 0)
		return -1;
	unsigned long long v[5] = { 0 };
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
		return -1;
	return (long long)(v[3] + v[4]) * 10000000LL; /* USER_HZ 100 */
}

struct mark {
	long long ns, idle;
	long maj, ra, out, in;
};

static long majflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

static struct mark mark_now(void)
{
	struct mark m = { now_ns(), idle_ns(), majflt(), vmstat_value("swap_ra"), vmstat_value("pswpout"),
			  vmstat_value("pswpin") };
	return m;
}

static void report(const char *phase, struct mark a, struct mark b, long pages)
{
	long long busy = (b.ns - a.ns) - (b.idle - a.idle);
	printf("bench: swap_cost %s: %.0f ns\n", phase, (double)busy / (double)pages);
	printf("bench: swap_cost %s: %.3f major faults, %.3f swap_ra, %.3f pswpout, %.3f pswpin per page; "
	       "%.1f ms of the clock, %.0f ms idle\n",
	       phase, (double)(b.maj - a.maj) / (double)pages, (double)(b.ra - a.ra) / (double)pages,
	       (double)(b.out - a.out) / (double)pages, (double)(b.in - a.in) / (double)pages,
	       (double)(b.ns - a.ns) / 1e6, (double)(b.idle - a.idle) / 1e6);
	fflush(stdout);
}

static int resident(unsigned char *p, long pages, unsigned char *vec)
{
	if (mincore(p, (size_t)pages * PAGE, vec))
		return -1;
	int n = 0;
	for (long i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

/* Linux's writes end in the background: nr_writeback 0 (a node counter
 * whose per-CPU parts may lag: at most 2 s of waiting, then one 200 ms
 * sleep, time that counts as idle, not as instructions). */
static void wait_writeback(void)
{
	for (int i = 0; i < 40 && vmstat_value("nr_writeback") > 0; i++)
		usleep(50000);
	usleep(200000);
}

/* Out of memory entirely (swap_readahead.c's push_out: Linux keeps pages
 * in the swap cache while their writes run). */
static void push_out(unsigned char *p, long pages, unsigned char *vec)
{
	madvise(p, (size_t)pages * PAGE, MADV_PAGEOUT);
	for (int r = 0; r < 8 && resident(p, pages, vec) > 0; r++) {
		wait_writeback();
		volatile unsigned long sum = 0;
		for (long i = 0; i < pages; i++)
			sum += p[i * PAGE];
		madvise(p, (size_t)pages * PAGE, MADV_PAGEOUT);
	}
}

static void read_back(const char *phase, unsigned char *p, long pages)
{
	struct mark a = mark_now();
	volatile unsigned long sum = 0;
	for (long i = 0; i < pages; i++)
		sum += p[i * PAGE];
	struct mark b = mark_now();
	report(phase, a, b, pages);
}

int main(int argc, char **argv)
{
	long pages = arg_long(argc, argv, "--pages", 65536);
	unsigned char hdr[4096];
	swap_disk_or_skip(hdr);
	if (sys_swapon(SWAP_DISK, 0)) {
		printf("bench: swap_cost: swapon %s: %s\n", SWAP_DISK, errno_name(errno));
		return 1;
	}
	unsigned char *p = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *vec = malloc((size_t)pages);
	if (p == MAP_FAILED || !vec) {
		perror("swap_cost: mmap");
		return 1;
	}
	madvise(p, (size_t)pages * PAGE, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		memset(p + i * PAGE, (int)(i & 0xff) | 1, 64);

	printf("bench: swap_cost: %ld pages written\n", pages);
	fflush(stdout);
	struct mark a = mark_now();
	madvise(p, (size_t)pages * PAGE, MADV_PAGEOUT);
	wait_writeback();
	struct mark b = mark_now();
	report("out (MADV_PAGEOUT, written)", a, b, pages);

	push_out(p, pages, vec);
	printf("bench: swap_cost: %d of %ld pages resident before the read-back\n", resident(p, pages, vec), pages);
	read_back("in (read in order, page-cluster as set)", p, pages);

	char old[16] = "3";
	read_file("/proc/sys/vm/page-cluster", old, sizeof(old));
	int fd = open("/proc/sys/vm/page-cluster", O_WRONLY);
	if (fd >= 0 && write(fd, "0", 1) == 1) {
		push_out(p, pages, vec);
		read_back("in (read in order, page-cluster 0)", p, pages);
		lseek(fd, 0, SEEK_SET);
		if (write(fd, old, strcspn(old, "\n")) < 0)
			perror("swap_cost: page-cluster back");
	}
	if (fd >= 0)
		close(fd);
	munmap(p, (size_t)pages * PAGE);
	if (sys_swapoff(SWAP_DISK))
		printf("bench: swap_cost: swapoff: %s\n", errno_name(errno));
	return 0;
}
