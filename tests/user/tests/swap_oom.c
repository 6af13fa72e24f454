/* The OOM killer with swap on, on the runner's swap disk
 * (common/swap_disk.h). With an area on, running out of memory means
 * running out of memory and swap: Linux 6.1's reclaim counts anonymous
 * pages as reclaimable while a free slot is left (should_reclaim_retry,
 * get_nr_swap_pages), so the killer comes only once the area is (nearly)
 * full. The program makes the area small, so that this takes seconds,
 * not minutes: it rewrites the disk's header (the same header with a
 * smaller last_page, SWAP_MIB) and turns it on; the original header goes
 * back at the end, for the programs after it.
 *
 * Then three processes at once over every node, each asking for 55% of
 * what memory and swap have free (MemAvailable + SwapFree: no two fit,
 * one alone does), at oom_score_adj 1000, 800 and 0, each writing every
 * page of its part (4 KiB pages: a THP would have to be split before it
 * can go to swap) and holding it, each started once the one before holds
 * its part. The second one's faults fill the swap area and then kill the
 * one at 1000; the last one's kill the one at 800, and the last lives.
 * Checked:
 *   - exactly two kills (/proc/vmstat oom_kill), both SIGKILL;
 *   - the swap area was used before the kills: pswpout grew by at least
 *     half the area's pages (less would mean the killer came while
 *     anonymous memory could still go out);
 *   - the survivor's every page reads back as it wrote it (those that went
 *     to swap come back by swap-in);
 *   - swapoff succeeds afterwards, and the kernel is there to say so.
 *
 * The OOM with swap off is the `oom` program's (every node, and a node
 * under MPOL_BIND). */
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "oom_wait.h"
#include "swap_disk.h"

#define MIB (1l << 20)
#define PAGE 4096l
#define SWAP_MIB 16l

static long word_of(long pg, int adj) { return pg * 1000003 + adj; }

/* A child at oom_score_adj adj: writes every page of mib MiB, says 'r'
 * through out, then waits for a byte on in: it checks every page and
 * exits 0 if each is as written (4: a page was not). Killed before, it
 * never gets there. */
static pid_t child(int adj, long mib, int out, int in)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	if (!set_oom_score_adj(adj))
		_exit(2);
	size_t size = (size_t)(mib * MIB);
	long *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	madvise(p, size, MADV_NOHUGEPAGE);
	for (long pg = 0; pg < mib * MIB / PAGE; pg++)
		p[pg * PAGE / 8] = word_of(pg, adj);
	char c;
	if (write(out, "r", 1) != 1 || read(in, &c, 1) != 1)
		_exit(2);
	for (long pg = 0; pg < mib * MIB / PAGE; pg++)
		if (p[pg * PAGE / 8] != word_of(pg, adj))
			_exit(4);
	_exit(0);
}

/* Waits for pid's "r" on fd: true when it came, false when pid died
 * first (it is reaped then: *status has how). */
static bool ready(int fd, pid_t pid, int *status)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char c;
		if (poll(&p, 1, 100) == 1)
			return read(fd, &c, 1) == 1;
		if (waitpid(pid, status, WNOHANG) == pid)
			return false;
	}
}

int main(void)
{
	test_begin("swap_oom");
	static unsigned char hdr[4096], small[4096];
	swap_disk_or_skip(hdr);
	if (!has_cap(CAP_SYS_ADMIN))
		test_skip("no CAP_SYS_ADMIN: swapon needs it");
	if (proc_swaps_count() != 0)
		test_skip("a swap area is on already: this program turns its own on and off");
	if (file_long("/proc/sys/vm/panic_on_oom") != 0 ||
	    file_long("/proc/sys/vm/oom_kill_allocating_task") != 0)
		test_skip("vm.panic_on_oom or vm.oom_kill_allocating_task is set");
	struct swap_header_info *h = (struct swap_header_info *)small;
	memcpy(small, hdr, sizeof(small));
	uint32_t last = (uint32_t)(SWAP_MIB * MIB / PAGE);
	if (h->version != 1 || h->nr_badpages || h->last_page < last)
		test_skip("the disk's area (version %u, last_page %u, %u bad pages) is not mkswap's plain "
			  "one of at least %ld MiB",
			  h->version, h->last_page, h->nr_badpages, SWAP_MIB);
	h->last_page = last;
	if (!CHECK_CMP(swap_disk_write_header(small), ==, 0))
		return test_end();
	if (!CHECKF(sys_swapon(SWAP_DISK, 0) == 0, "swapon %s: %s", SWAP_DISK, errno_name(errno))) {
		swap_disk_write_header(hdr);
		return test_end();
	}
	/* The area's usable pages: last_page of them (page 0 is the header). */
	long swap_kb = meminfo_kb("SwapTotal");
	CHECK_CMP(swap_kb, ==, (long)last * (PAGE / 1024));

	long part = (meminfo_kb("MemAvailable") + meminfo_kb("SwapFree")) * 55 / 100 / 1024;
	printf("swap_oom: a %ld MiB area; three processes of %ld MiB each (MemAvailable %ld kB, "
	       "SwapFree %ld kB), one after the other\n",
	       SWAP_MIB, part, meminfo_kb("MemAvailable"), meminfo_kb("SwapFree"));
	long kills = oom_kills(), out = vmstat_value("pswpout");
	CHECK(kills >= 0 && out >= 0);
	int up[2], down[2];
	CHECK(pipe(up) == 0 && pipe(down) == 0);
	int status = 0;
	long long t0 = now_ns();
	pid_t first = child(1000, part, up[1], down[0]);
	CHECKF(ready(up[0], first, &status), "the first process died filling: status %#x", status);
	long long t1 = now_ns();
	pid_t second = child(800, part, up[1], down[0]);
	CHECK(oom_killed(first, up[0], kills + 1));
	long long t2 = now_ns();
	CHECKF(ready(up[0], second, &status), "the second process died filling: status %#x", status);
	long long t3 = now_ns();
	pid_t last_one = child(0, part, up[1], down[0]);
	CHECK(oom_killed(second, up[0], kills + 2));
	long long t4 = now_ns();
	bool alive = CHECKF(ready(up[0], last_one, &status), "the last process died filling: status %#x", status);
	long long t5 = now_ns();
	printf("figure: seconds: first filled %.1f; second to the first kill %.1f, filled %.1f; "
	       "last to the second kill %.1f, filled %.1f\n",
	       (double)(t1 - t0) / 1e9, (double)(t2 - t1) / 1e9, (double)(t3 - t2) / 1e9, (double)(t4 - t3) / 1e9,
	       (double)(t5 - t4) / 1e9);
	long kills_now = oom_kills(), out_now = vmstat_value("pswpout");
	printf("swap_oom: oom_kill +%ld, pswpout +%ld (the area: %ld pages), SwapFree %ld kB\n",
	       kills_now - kills, out_now - out, (long)last, meminfo_kb("SwapFree"));
	CHECK_CMP(kills_now - kills, ==, 2);
	CHECK_CMP(out_now - out, >=, (long)last / 2);
	/* The survivor reads every page back. */
	if (alive) {
		CHECK(write(down[1], "c", 1) == 1);
		CHECK(waitpid(last_one, &status, 0) == last_one);
		CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "the survivor: status %#x (exit 4: a page not as written)", status);
	}
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff %s: %s", SWAP_DISK, errno_name(errno));
	CHECK_CMP(proc_swaps_count(), ==, 0);
	CHECK_CMP(swap_disk_write_header(hdr), ==, 0);
	return test_end();
}
