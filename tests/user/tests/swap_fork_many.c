/* A process whose pages are out on swap forks 100 children that all
 * hold the swap entries at once, on the runner's swap disk
 * (common/swap_disk.h), as Linux 6.1 allows: a slot's count byte holds
 * 62 references (SWAP_MAP_MAX), past that the count goes on in count
 * continuation pages (add_swap_count_continuation), so every fork
 * succeeds.
 *   - MADV_PAGEOUT puts the buffer out (pagemap's PM_SWAP);
 *   - 100 forks succeed while every child waits on a pipe, holding its
 *     copy of the entries; the parent's smaps shows its Swap whole and its
 *     SwapPss shared by the 101 processes naming each slot (Linux's
 *     swp_swapcount counts the continuations too);
 *   - the pipe closed, every child reads every byte back and exits 0;
 *   - the parent's pages are still out, and read back whole.
 * The work runs in a child pinned to one CPU (Linux drains only the CPU's
 * own LRU batch before MADV_PAGEOUT); the parent turns swap on before and
 * off after. */
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "swap_disk.h"

#define NPAGES 256
#define PAGE 4096ul
#define FORKS 100
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static unsigned char expected(size_t page, size_t i) { return (unsigned char)(page * 5 + i * 3 + 1); }

static size_t bad_bytes(const unsigned char *p)
{
	size_t bad = 0;
	for (size_t pg = 0; pg < NPAGES; pg++)
		for (size_t i = 0; i < PAGE; i++)
			bad += p[pg * PAGE + i] != expected(pg, i);
	return bad;
}

static long swapped_pages(const void *p)
{
	static uint64_t e[NPAGES];
	if (!pagemap_read(p, NPAGES, e))
		return -1;
	long swapped = 0;
	for (int i = 0; i < NPAGES; i++)
		swapped += (e[i] & PM_SWAP) != 0;
	return swapped;
}

static int worker(void)
{
	pin_to_this_cpu();
	unsigned char *p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECKF(p != MAP_FAILED, "mmap of %d pages", NPAGES))
		return test_end();
	for (size_t pg = 0; pg < NPAGES; pg++)
		for (size_t i = 0; i < PAGE; i++)
			p[pg * PAGE + i] = expected(pg, i);
	CHECK(madvise(p, NPAGES * PAGE, MADV_PAGEOUT) == 0);
	CHECK_CMP(swapped_pages(p), ==, NPAGES);

	int go[2];
	if (!CHECK(pipe(go) == 0))
		return test_end();
	pid_t kids[FORKS];
	int made = 0;
	for (; made < FORKS; made++) {
		pid_t pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			close(go[1]);
			char c;
			/* Holds the entries until the parent has forked all. */
			while (read(go[0], &c, 1) > 0)
				;
			_exit(bad_bytes(p) == 0 && swapped_pages(p) == 0 ? 0 : 1);
		}
		kids[made] = pid;
	}
	int fork_errno = errno;
	CHECKF(made == FORKS, "%d of %d forks with %d pages out on swap (the last: %s)", made, FORKS, NPAGES,
	       made == FORKS ? "ok" : errno_name(fork_errno));
	/* Each slot is named by the 1 + made processes' entries: the
	 * parent's share of each swapped page is 1 / (1 + made) (smaps
	 * SwapPss: Linux sums PAGE_SIZE << 12 / count per entry, then
	 * shifts to kB). */
	CHECK_CMP(swapped_pages(p), ==, NPAGES);
	CHECK_CMP(smaps_kb(p, "Swap"), ==, NPAGES * 4);
	long want_pss = (long)(((NPAGES * ((PAGE << 12) / (unsigned long)(1 + made)))) >> 22);
	long pss = smaps_kb(p, "SwapPss");
	note("SwapPss %ld kB with %d sharers of each slot (expected %ld kB)", pss, 1 + made, want_pss);
	CHECK_CMP(pss, ==, want_pss);
	close(go[1]);
	close(go[0]);
	int passed = 0;
	for (int k = 0; k < made; k++)
		passed += wait_status_of(kids[k]) == 0;
	CHECKF(passed == made, "%d of %d children read every byte back", passed, made);
	CHECK_CMP(swapped_pages(p), ==, NPAGES);
	CHECKF(bad_bytes(p) == 0, "the parent reads every byte back");
	munmap(p, NPAGES * PAGE);
	return test_end();
}

int main(void)
{
	test_begin("swap_fork_many");
	return swap_run_child(worker, "worker");
}
