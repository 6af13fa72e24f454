/* Swap-in readahead (Linux 6.1's swapin_readahead), the same checks on
 * mmlab and on Linux 6.1 on the runner's swap disk (common/swap_disk.h):
 * a buffer pushed out with MADV_PAGEOUT (push_out says how), then
 * read back in address order, every byte checked; each page out of memory
 * (mincore) comes back by a major fault or read ahead of one:
 *   - with page-cluster as the kernel has it (/proc/sys/vm/page-cluster:
 *     at most 2^page-cluster pages read per fault), the read-back costs
 *     fewer major faults than pages: at most half, and at least
 *     pages / 2^page-cluster; the pages read ahead count swap_ra, those a
 *     later fault finds swap_ra_hit;
 *   - with page-cluster 0, one page per fault: swap_ra does not move (on
 *     mmlab every page is a major fault);
 *   - the same with the disk said to be non-rotational
 *     (/sys/block/vda/queue/rotational 0 before swapon), where both
 *     kernels read ahead by the VMA's page tables instead of the disk's
 *     clusters (vma_ra_enabled true).
 * The work runs in a child pinned to one CPU (Linux drains only the CPU's
 * own LRU batch before MADV_PAGEOUT); the parent turns swap on and off
 * around it and puts the settings back. */
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "swap_disk.h"

#define NPAGES 512
#define PAGE 4096ul
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#define PAGE_CLUSTER "/proc/sys/vm/page-cluster"
#define ROTATIONAL "/sys/block/vda/queue/rotational"
#define VMA_RA "/sys/kernel/mm/swap/vma_ra_enabled"

static unsigned char expected(size_t page, size_t i, unsigned seed) { return (unsigned char)(page * 11 + i * 7 + seed); }

static long majflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* Pages of [p, p + NPAGES) that pagemap shows swapped and not present. */
static int swapped_pages(const unsigned char *p)
{
	static uint64_t e[NPAGES];
	if (!pagemap_read(p, NPAGES, e))
		return -1;
	int swapped = 0;
	for (int i = 0; i < NPAGES; i++)
		swapped += (e[i] & PM_SWAP) && !(e[i] & PM_PRESENT);
	return swapped;
}

/* Pages of [p, p + NPAGES) in memory (mincore: mapped, or in the swap
 * cache). */
static int resident_pages(unsigned char *p)
{
	static unsigned char vec[NPAGES];
	if (mincore(p, NPAGES * PAGE, vec))
		return -1;
	int n = 0;
	for (int i = 0; i < NPAGES; i++)
		n += vec[i] & 1;
	return n;
}

/* Every page of p out of memory: Linux's MADV_PAGEOUT starts the writes
 * and leaves the pages in the swap cache while they run (mmlab's writes
 * are synchronous: out at once). Until mincore sees none in memory: the
 * pages read back (from the cache), pushed out again; once its write is
 * done a clean page in the swap cache goes at once, without another
 * write (a page still being written is kept: one more round). */
static void push_out(unsigned char *p, unsigned seed, const char *what)
{
	for (size_t pg = 0; pg < NPAGES; pg++)
		for (size_t i = 0; i < PAGE; i++)
			p[pg * PAGE + i] = expected(pg, i, seed);
	CHECK(madvise(p, NPAGES * PAGE, MADV_PAGEOUT) == 0);
	int rounds = 0;
	while (resident_pages(p) > 0 && rounds < 300) {
		usleep(10000);
		volatile size_t sum = 0;
		for (size_t pg = 0; pg < NPAGES; pg++)
			sum += p[pg * PAGE];
		CHECK(madvise(p, NPAGES * PAGE, MADV_PAGEOUT) == 0);
		rounds++;
	}
	note("%s: %d more MADV_PAGEOUT rounds after the first", what, rounds);
}

/* One round: pushed out, read back in order; checks as the top says for
 * a window of at most 2^cluster pages. */
static void round_trip(unsigned char *p, unsigned seed, int cluster, const char *what)
{
	push_out(p, seed, what);
	int swapped = swapped_pages(p), resident = resident_pages(p);
	note("%s: %d of %d pages swapped out, %d of them still in the swap cache", what, swapped, NPAGES, resident);
	CHECKF(swapped == NPAGES, "%s: %d of %d pages swapped out", what, swapped, NPAGES);
	/* The pages the read-back must bring from the disk. */
	int out = NPAGES - resident;
	CHECKF(out >= NPAGES / 2, "%s: %d of %d pages out of memory", what, out, NPAGES);
	if (on_mmlab())
		CHECK_CMP(out, ==, NPAGES);
	long maj0 = majflt(), pswpin0 = vmstat_value("pswpin"), ra0 = vmstat_value("swap_ra");
	long hit0 = vmstat_value("swap_ra_hit");
	size_t bad = 0;
	for (size_t pg = 0; pg < NPAGES; pg++)
		for (size_t i = 0; i < PAGE; i++)
			bad += p[pg * PAGE + i] != expected(pg, i, seed);
	long maj = majflt() - maj0, pswpin = vmstat_value("pswpin") - pswpin0;
	long ra = vmstat_value("swap_ra") - ra0, hits = vmstat_value("swap_ra_hit") - hit0;
	CHECKF(bad == 0, "%s: every byte read back (%zu wrong)", what, bad);
	note("%s: %d pages read back with %ld major faults, pswpin %ld, swap_ra %ld, swap_ra_hit %ld", what, out,
	     maj, pswpin, ra, hits);
	CHECK_CMP(hits, <=, ra);
	/* Each page out is read by its own fault or ahead of one (reclaim
	 * may push a cached one out meanwhile: at most all). */
	CHECK_CMP(maj + hits, >=, out);
	CHECK_CMP(maj + hits, <=, NPAGES);
	CHECK_CMP(pswpin, >=, out);
	if (cluster == 0) {
		CHECK_CMP(ra, ==, 0);
		CHECK_CMP(hits, ==, 0);
		CHECK_CMP(maj, >=, out);
		return;
	}
	/* No fault reads more than 2^cluster pages. */
	CHECK_CMP(maj, >=, out >> cluster);
	/* Once the faults are seen to follow each other, each reads ahead:
	 * at least two pages per fault. */
	CHECK_CMP(maj, <=, out / 2 + 1);
	CHECK_CMP(ra, >=, 1);
}

static int child(void)
{
	pin_to_this_cpu();
	unsigned char *p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECKF(p != MAP_FAILED, "mmap of %d pages", NPAGES))
		return test_end();
	/* 4 KiB pages: MADV_PAGEOUT leaves a THP alone (mmlab) or splits it
	 * (Linux). */
	madvise(p, NPAGES * PAGE, MADV_NOHUGEPAGE);
	int cluster = (int)file_long(PAGE_CLUSTER);
	CHECKF(cluster >= 0, "%s reads %d", PAGE_CLUSTER, cluster);
	if (cluster > 0) {
		round_trip(p, 1, cluster, "page-cluster as set");
	} else {
		check_skip("page-cluster is 0 here: no readahead to see");
	}
	if (CHECKF(write_file(PAGE_CLUSTER, "0"), "page-cluster set to 0"))
		round_trip(p, 2, 0, "page-cluster 0");
	char buf[8];
	snprintf(buf, sizeof(buf), "%d", cluster);
	CHECKF(write_file(PAGE_CLUSTER, buf), "page-cluster back to %d", cluster);
	munmap(p, NPAGES * PAGE);
	return test_end();
}

static int run_child(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	return wait_status_of(pid);
}

int main(void)
{
	test_begin("swap_readahead");
	unsigned char hdr[4096];
	if (!swap_on_or_skip(hdr))
		return test_end();
	char vma_ra[16] = "";
	CHECKF(read_file(VMA_RA, vma_ra, sizeof(vma_ra)) > 0 &&
		       (!strcmp(vma_ra, "true\n") || !strcmp(vma_ra, "false\n")),
	       "%s reads true or false ('%s')", VMA_RA, vma_ra);
	long rotational = file_long(ROTATIONAL);
	note("%s: %ld, vma_ra_enabled %.*s: %s readahead", ROTATIONAL, rotational, (int)strcspn(vma_ra, "\n"), vma_ra,
	     rotational == 0 && !strcmp(vma_ra, "true\n") ? "VMA" : "cluster");
	int st = run_child();
	CHECKF(st == 0, "the checks in the child passed (status %d)", st);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff: %s", errno_name(errno));

	/* The VMA policy: the disk non-rotational before swapon. */
	if (rotational == 1 && !strcmp(vma_ra, "true\n")) {
		if (CHECKF(write_file(ROTATIONAL, "0"), "%s set to 0", ROTATIONAL)) {
			if (CHECKF(sys_swapon(SWAP_DISK, 0) == 0, "swapon on the non-rotational disk: %s",
				   errno_name(errno))) {
				note("VMA readahead now");
				st = run_child();
				CHECKF(st == 0, "the checks in the child passed with VMA readahead (status %d)", st);
				CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff: %s", errno_name(errno));
			}
			CHECKF(write_file(ROTATIONAL, "1"), "%s back to 1", ROTATIONAL);
		}
	} else {
		check_skip("the disk is not rotational, or VMA readahead is off: one policy only");
	}
	return test_end();
}
