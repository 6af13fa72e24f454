/* vm.overcommit_memory as the kernel has it set (/proc/sys/vm), each mode
 * held to what Linux's mm/util.c and mmap do with it:
 *   - 0, the heuristic (both kernels' default): a private writable mapping
 *     larger than RAM plus swap is refused at mmap (ENOMEM), with
 *     MAP_POPULATE too, before a page is touched (found by the hostile user-space tests: a populated
 *     6 GiB mmap on a 4 GiB machine filled memory until the process was
 *     killed); MAP_NORESERVE and read-only mappings of that size are not
 *     charged and pass, and making the read-only one writable is refused;
 *   - 1, always: the same sizes are all made (and never touched);
 *   - 2, never: a request over CommitLimit is refused, MAP_NORESERVE ones
 *     too (in this mode mmap charges them all the same), and so is making
 *     a read-only mapping of that size writable; the read-only mapping
 *     itself is not charged and is made.
 * Sizes come from /proc/meminfo (MemTotal, SwapTotal, CommitLimit), never
 * from the machine's description. A finite RLIMIT_AS would refuse these
 * sizes on its own: the program is skipped there. On mmlab, a charge is
 * seen exactly in Committed_AS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* A mapping of big bytes is made (and unmapped again). */
static void made(size_t big, int prot, int flags, const char *what)
{
	void *p = mmap(NULL, big, prot, flags, -1, 0);
	CHECKF(p != MAP_FAILED, "a %zu MiB %s mapping is made", big >> 20, what);
	if (p != MAP_FAILED)
		CHECK(munmap(p, big) == 0);
}

/* Read-only memory is never charged: a big read-only mapping is made.
 * Making it writable charges it: refused with err where the mode refuses
 * big, made where err is 0. */
static void read_only_then_writable(size_t big, int err)
{
	void *p = mmap(NULL, big, PROT_READ, ANON, -1, 0);
	CHECKF(p != MAP_FAILED, "a %zu MiB read-only mapping is made", big >> 20);
	if (p == MAP_FAILED)
		return;
	if (err)
		CHECK_ERRNO(mprotect(p, big, RW), err);
	else
		CHECK(mprotect(p, big, RW) == 0);
	CHECK(munmap(p, big) == 0);
}

/* Mode 0: more than RAM + swap is refused unless not charged. */
static void guess(size_t big)
{
	long rss = rss_kb();
	CHECK_ERRNO(mmap(NULL, big, RW, ANON | MAP_POPULATE, -1, 0), ENOMEM);
	CHECK_ERRNO(mmap(NULL, big, RW, ANON, -1, 0), ENOMEM);
	/* Nothing was faulted in for the refused request. */
	CHECK_CMP(rss_kb(), <, rss + 4 * 1024);

	/* Not charged: MAP_NORESERVE (honoured in mode 0) and read-only memory. */
	made(big, RW, ANON | MAP_NORESERVE, "MAP_NORESERVE");
	read_only_then_writable(big, ENOMEM);
}

/* Mode 1: every request is made. Nothing is touched (and no MAP_POPULATE:
 * that would fault in more than the machine has). */
static void always(size_t big)
{
	made(big, RW, ANON, "writable");
	made(big, RW, ANON | MAP_NORESERVE, "MAP_NORESERVE");
	read_only_then_writable(big, 0);
}

/* Mode 2: more than CommitLimit is refused, MAP_NORESERVE or not. */
static void never(size_t big)
{
	long rss = rss_kb();
	CHECK_ERRNO(mmap(NULL, big, RW, ANON | MAP_POPULATE, -1, 0), ENOMEM);
	CHECK_ERRNO(mmap(NULL, big, RW, ANON, -1, 0), ENOMEM);
	CHECK_ERRNO(mmap(NULL, big, RW, ANON | MAP_NORESERVE, -1, 0), ENOMEM);
	CHECK_CMP(rss_kb(), <, rss + 4 * 1024);
	read_only_then_writable(big, ENOMEM);
}

int main(void)
{
	test_begin("overcommit_guess");
	int mode = overcommit_mode();
	if (mode < 0)
		test_skip("no /proc/sys/vm/overcommit_memory");
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
		test_skip("RLIMIT_AS is %llu kB: it alone would refuse the sizes mapped here",
			  (unsigned long long)as.rlim_cur >> 10);
	long mem_kb = meminfo_kb("MemTotal"), swap_kb = meminfo_kb("SwapTotal");
	long limit_kb = meminfo_kb("CommitLimit"), committed_kb = meminfo_kb("Committed_AS");
	CHECK_CMP(mem_kb, >, 0);
	CHECK_CMP(swap_kb, >=, 0);
	CHECK_CMP(limit_kb, >, 0);
	CHECK_CMP(committed_kb, >, 0); /* this program's own data and stack at least */
	note("vm.overcommit_memory %d: MemTotal %ld kB, SwapTotal %ld kB, CommitLimit %ld kB, Committed_AS %ld kB",
	     mode, mem_kb, swap_kb, limit_kb, committed_kb);

	/* RAM + swap + 64 MiB: more than the heuristic lets one request have. */
	size_t big = ((size_t)mem_kb + (size_t)swap_kb) * KiB + 64 * MiB;
	switch (mode) {
	case 0:
		guess(big);
		break;
	case 1:
		always(big);
		break;
	case 2: {
		/* Over CommitLimit whatever else is committed (overcommit_ratio
		 * above 100 makes it larger than RAM + swap). */
		size_t over = (size_t)limit_kb * KiB + 64 * MiB;
		never(over > big ? over : big);
		break;
	}
	default:
		test_skip("vm.overcommit_memory is %d, a mode this program does not know", mode);
	}

	/* A charge is seen in Committed_AS (exactly on mmlab; on Linux other
	 * processes move it too). */
	if (on_mmlab()) {
		long before = meminfo_kb("Committed_AS");
		size_t len = 64 * MiB;
		void *q = mmap(NULL, len, RW, ANON, -1, 0);
		CHECK(q != MAP_FAILED);
		CHECK_CMP(meminfo_kb("Committed_AS"), ==, before + (long)(len / KiB));
		if (q != MAP_FAILED)
			CHECK(munmap(q, len) == 0);
		CHECK_CMP(meminfo_kb("Committed_AS"), ==, before);
	}
	return test_end();
}
