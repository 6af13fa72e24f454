/* swapoff(2) with pages out, on the runner's swap disk
 * (common/swap_disk.h), as Linux 6.1's try_to_unuse: a process and a
 * forked child of it each hold swap entries (the child's from the fork's
 * copy, then some pages of its own pushed out after writing them); the
 * parent turns swap off while both are alive. Then:
 *   - swapoff succeeded, /proc/swaps has no line, SwapTotal is back;
 *   - every page of both is present again (pagemap: none PM_SWAP), VmSwap
 *     0 (within Linux's lag of a thread's counts), and every
 *     byte is each process's own;
 *   - a second swapoff is EINVAL.
 * The child waits on a pipe for the parent's swapoff, then checks its
 * side and exits. */
#include <sys/mman.h>
#include <sys/wait.h>

#include "swap_disk.h"

#define NPAGES 128
#define PAGE 4096ul
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static unsigned char byte_of(size_t pg, size_t i, unsigned seed) { return (unsigned char)(pg * 5 + i * 3 + seed); }

static void fill(unsigned char *p, size_t from, size_t to, unsigned seed)
{
	for (size_t pg = from; pg < to; pg++)
		for (size_t i = 0; i < PAGE; i++)
			p[pg * PAGE + i] = byte_of(pg, i, seed);
}

static size_t bad_pages(const unsigned char *p, size_t from, size_t to, unsigned seed)
{
	size_t bad = 0;
	for (size_t pg = from; pg < to; pg++)
		for (size_t i = 0; i < PAGE; i++)
			if (p[pg * PAGE + i] != byte_of(pg, i, seed)) {
				bad++;
				break;
			}
	return bad;
}

/* How many of the NPAGES pages at p are swap entries, and present. */
static void count_pages(const void *p, int *swapped, int *present)
{
	uint64_t e[NPAGES];
	*swapped = *present = -1;
	if (!pagemap_read(p, NPAGES, e))
		return;
	*swapped = *present = 0;
	for (int i = 0; i < NPAGES; i++) {
		*swapped += !!(e[i] & PM_SWAP);
		*present += !!(e[i] & PM_PRESENT);
	}
}

static bool vmswap_zero(void)
{
	return status_kb("VmSwap") <= (on_mmlab() ? 0 : LINUX_VMSWAP_LAG_KB);
}

int main(void)
{
	test_begin("swap_swapoff");
	unsigned char hdr[4096];
	long total0 = meminfo_kb("SwapTotal");
	if (!swap_on_or_skip(hdr))
		return test_end();
	unsigned char *p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECKF(p != MAP_FAILED, "mmap")) {
		sys_swapoff(SWAP_DISK);
		return test_end();
	}
	fill(p, 0, NPAGES, 1);
	CHECK(madvise(p, NPAGES * PAGE, MADV_PAGEOUT) == 0);
	int swapped, present;
	count_pages(p, &swapped, &present);
	CHECKF(swapped == NPAGES, "the parent's %d pages swapped out (%d)", NPAGES, swapped);
	int go[2], ready[2];
	CHECK(pipe(go) == 0 && pipe(ready) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		/* Half its own: written (a private copy), then pushed out. */
		fill(p, 0, NPAGES / 2, 2);
		bool ok = madvise(p, NPAGES / 2 * PAGE, MADV_PAGEOUT) == 0;
		int s, pr;
		count_pages(p, &s, &pr);
		ok &= s == NPAGES; /* its own half and the fork's copies of the parent's */
		char c = ok ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		count_pages(p, &s, &pr);
		ok = s == 0 && pr == NPAGES && vmswap_zero() && bad_pages(p, 0, NPAGES / 2, 2) == 0 &&
		     bad_pages(p, NPAGES / 2, NPAGES, 1) == 0;
		_exit(ok ? 0 : 1);
	}
	char c = 0;
	CHECKF(read(ready[0], &c, 1) == 1 && c == 'y', "the child wrote half, pushed it out: all %d of its pages "
	       "swap entries", NPAGES);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff with both processes' pages out: %s", errno_name(errno));
	char line[256];
	CHECKF(!proc_swaps_line(SWAP_DISK, line, sizeof(line)), "no /proc/swaps line");
	CHECK_CMP(meminfo_kb("SwapTotal"), ==, total0);
	count_pages(p, &swapped, &present);
	CHECKF(swapped == 0 && present == NPAGES, "the parent's pages all present again (%d), none swapped (%d)",
	       present, swapped);
	CHECKF(vmswap_zero(), "VmSwap %ld kB", status_kb("VmSwap"));
	CHECKF(bad_pages(p, 0, NPAGES, 1) == 0, "every byte of the parent's is its own");
	CHECK(write(go[1], "g", 1) == 1);
	int st = wait_status_of(pid);
	CHECKF(st == 0, "the child's pages present again, VmSwap 0, every byte its own (status %d)", st);
	CHECK_ERRNO(sys_swapoff(SWAP_DISK), EINVAL);
	munmap(p, NPAGES * PAGE);
	return test_end();
}
