/* The OOM killer from user space (Linux 6.1's mm/oom_kill.c): three
 * children bound (MPOL_BIND) to one node, with different oom_score_adj.
 * A small one at 1000 and a larger one at 500 hold their memory; a third,
 * at 0, fills the node past its size. The killer must take the small one
 * first (its oom_score_adj outweighs the others' size: oom_badness adds
 * adj thousandths of the node's pages), then the filler, which by then
 * holds nearly the whole node, over the one at 500; that one lives.
 * Both kills are SIGKILL, and /proc/vmstat's oom_kill counts exactly two.
 *
 * Then every node at once: three unbound fillers, each asking for 65% of
 * the memory available (no two fit), at oom_score_adj 1000, 800
 * and 0, which hold what they got, each started once the one before
 * holds its part. The second one's faults kill the one at 1000; the
 * last one's kill the one at 800 (its adj alone outweighs the last one's
 * size), and the last lives: exactly two more kills, and the kernel is
 * still there to say so. All but FILL_MIB of the memory available is
 * first put in the hugetlb pool, whose pages are neither available nor
 * touched: the machine runs out over FILL_MIB, not over all of its
 * memory. (Each MiB a guest touches costs time under TCG, and more on a
 * host that backs a guest's memory only when first touched: filling
 * every node took 20 of the 25 s this program took on a 4 GiB machine.)
 * The order of the kills does not change: oom_badness weighs adj against
 * all of RAM, the pool's pages included.
 *
 * It provokes an OOM, so it runs only where that is safe: on mmlab, and
 * on Linux as the runner's guest (its init, /init, is our parent, PID 1).
 * On the host's Linux it skips. It also skips with swap on (the filler
 * would swap rather than run out), and with vm.panic_on_oom or
 * vm.oom_kill_allocating_task set (another outcome by design). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "numa_policy.h"
#include "oom_wait.h"

#define MIB (1l << 20)
/* What the fillers of every node share (see the top of the file), and a
 * filler's part of what is available, in percent. What Linux 6.1 can
 * really allocate differs from MemAvailable by tens of MiB either way
 * (its min watermarks are below the reserves MemAvailable leaves out; not
 * all it counts can be had): over 256 MiB two fillers of 55% fitted, over
 * 384 MiB one of 75% did not. Over 768 MiB, 65% keeps a margin of more
 * than 200 MiB both ways (one filler leaves 269 MiB, two ask 230 MiB
 * more than there is). */
#define FILL_MIB 768
#define FILLER_PERCENT 65

/* The pool's size before this program grew it, to put back at exit. */
static long pool0 = -1;

static void pool_put_back(void)
{
	if (pool0 >= 0 && !hugetlb_pool_set(pool0))
		printf("oom: the hugetlb pool could not be put back to %ld pages\n", pool0);
	pool0 = -1;
}

/* Puts all but FILL_MIB of the memory available in the 2 MiB hugetlb
 * pool, if there is a pool of this program's own to grow; as much as the
 * free 2 MiB blocks allow. */
static void shrink_what_is_available(void)
{
	long avail = meminfo_kb("MemAvailable") / 1024;
	if (avail <= 2 * FILL_MIB)
		return;
	setting_lock(HUGETLB_POOL "nr_hugepages"); /* held until exit */
	long nr0 = hugetlb_pool("nr_hugepages");
	if (nr0 < 0 || hugetlb_pool("resv_hugepages") || hugetlb_pool("surplus_hugepages")) {
		printf("oom: no hugetlb pool of this program's own: every node is filled whole\n");
		return;
	}
	pool0 = nr0;
	atexit(pool_put_back); /* the children leave with _exit: only ours */
	hugetlb_pool_set(nr0 + (avail - FILL_MIB) / 2);
	printf("oom: %ld of %ld MiB available put in the hugetlb pool\n",
	       (hugetlb_pool("nr_hugepages") - nr0) * 2, avail);
}

/* The node's MemTotal in MiB (/sys/devices/system/node/nodeN/meminfo). */
static long node_mib(int nid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	const char *at = strstr(buf, "MemTotal:");
	return at ? strtol(at + 9, NULL, 10) / 1024 : -1;
}

/* A child: oom_score_adj adj, bound to nid (-1: not bound), touches mib MiB (huge pages
 * asked for when huge), tells the parent through fd, then waits to be
 * killed (hold) or exits 3 (it got everything: no OOM). */
static pid_t child(int adj, int nid, long mib, bool huge, bool hold, int fd)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	if (!set_oom_score_adj(adj))
		_exit(2);
	unsigned long mask = 1ul << nid;
	if (nid >= 0 && set_mempolicy(MPOL_BIND, &mask, 64))
		_exit(2);
	char *p = mmap(NULL, (size_t)(mib * MIB), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	if (huge)
		madvise(p, (size_t)(mib * MIB), MADV_HUGEPAGE); /* fewer faults; a fallback is fine */
	for (long off = 0; off < mib * MIB; off += 4096)
		p[off] = 1;
	if (write(fd, "r", 1) != 1)
		_exit(2);
	if (!hold)
		_exit(3);
	for (;;)
		pause();
}

/* How pid ended: the signal that killed it, or 0 (it exited). */
static int reap_signal(pid_t pid)
{
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

int main(void)
{
	test_begin("oom");
	if (!on_mmlab() && !in_runner_guest())
		test_skip("provokes the OOM killer: runs only on mmlab and on Linux as the runner's guest, "
			  "never on the host");
	if (meminfo_kb("SwapTotal") != 0)
		test_skip("swap is on: the filler would swap rather than run out");
	if (file_long("/proc/sys/vm/panic_on_oom") != 0 ||
	    file_long("/proc/sys/vm/oom_kill_allocating_task") != 0)
		test_skip("vm.panic_on_oom or vm.oom_kill_allocating_task is set");
	read_topology();
	/* The bound part fills its node whole: the smallest node of 256 MiB
	 * or more (6 GiB machines have a 4.5 GiB node beside a 1.5 GiB one),
	 * of nodes within an eighth of each other's size the last (away from
	 * node 0, where the kernel is); else the last node with memory. */
	long mib[64], smallest = -1;
	for (int n = 0; n < nr_nodes; n++) {
		mib[n] = has_memory >> n & 1 ? node_mib(n) : -1;
		if (mib[n] >= 256 && (smallest < 0 || mib[n] < smallest))
			smallest = mib[n];
	}
	int nid = -1;
	long size = -1;
	for (int n = 0; n < nr_nodes; n++) {
		if (mib[n] >= 0 && (smallest < 0 || (mib[n] >= smallest && mib[n] <= smallest + smallest / 8))) {
			nid = n;
			size = mib[n];
		}
	}
	if (size <= 64)
		test_skip("no node with memory to fill (node %d: %ld MiB)", nid, size);
	printf("oom: filling node %d (%ld MiB)\n", nid, size);
	long kills = oom_kills();
	CHECK(kills >= 0);

	int fds[2];
	CHECK(pipe(fds) == 0);
	char c;
	/* The filler's RSS when the second kill comes must beat the 32 MiB
	 * process's 500 (half the node's pages, in badness): about the
	 * node less the kernel's and the others' share, against half the
	 * node plus 32 MiB. Below 256 MiB that no longer holds, and Linux
	 * would rightly take the 32 MiB one. */
	if (size < 256) {
		printf("oom: node %d has %ld MiB, under 256: the bound part is left out\n", nid, size);
	} else {
		pid_t small = child(1000, nid, 8, false, true, fds[1]);
		CHECK(read(fds[0], &c, 1) == 1);
		pid_t larger = child(500, nid, 32, false, true, fds[1]);
		CHECK(read(fds[0], &c, 1) == 1);
		pid_t filler = child(0, nid, size, true, false, fds[1]);

		/* The filler asks for the whole node: killed, or it got it
		 * all and exits 3. Either way it ends. */
		CHECK_CMP(reap_signal(filler), ==, SIGKILL);
		CHECK(oom_killed(small, -1, kills + 2));
		int status;
		CHECK_CMP(waitpid(larger, &status, WNOHANG), ==, 0); /* alive */
		CHECK_CMP(oom_kills() - kills, ==, 2);
		kill(larger, SIGKILL);
		CHECK(waitpid(larger, &status, 0) == larger && WIFSIGNALED(status));
	}

	/* Every node at once, over FILL_MIB. */
	shrink_what_is_available();
	/* Of what is available (a hugetlb pool, the kernel's own, are not):
	 * two fillers of FILLER_PERCENT cannot both fit, one alone can.
	 * Each starts once the one before holds its part, so that each OOM
	 * has one victim to wait for: three at once left the killer, on a
	 * loaded Linux 6.1, a third kill while the first two victims' memory
	 * was still on its way back. */
	long part = meminfo_kb("MemAvailable") * FILLER_PERCENT / 100 / 1024;
	printf("oom: three fillers of %ld MiB each, every node, one after the other\n", part);
	kills = oom_kills();
	int status;
	pid_t first = child(1000, -1, part, true, true, fds[1]);
	CHECK(read(fds[0], &c, 1) == 1);
	pid_t second = child(800, -1, part, true, true, fds[1]);
	CHECK(oom_killed(first, fds[0], kills + 1));
	CHECK(read(fds[0], &c, 1) == 1);
	pid_t last = child(0, -1, part, true, true, fds[1]);
	/* No child after it: were it killed too, the read below ends (no
	 * writer left) instead of waiting for ever. */
	close(fds[1]);
	CHECK(oom_killed(second, fds[0], kills + 2));
	/* The last one holds what it asked for. */
	CHECK(read(fds[0], &c, 1) == 1);
	CHECK_CMP(waitpid(last, &status, WNOHANG), ==, 0);
	CHECK_CMP(oom_kills() - kills, ==, 2);
	kill(last, SIGKILL);
	CHECK(waitpid(last, &status, 0) == last && WIFSIGNALED(status));
	if (pool0 >= 0) {
		long nr0 = pool0;
		pool_put_back();
		CHECK_CMP(hugetlb_pool("nr_hugepages"), ==, nr0);
	}
	return test_end();
}
