/* vm.overcommit_memory = 0 (the heuristic, both kernels' default): a
 * private writable mapping larger than RAM plus swap is refused at mmap
 * (ENOMEM), with MAP_POPULATE too, before a page is touched (issue 15: a
 * populated 6 GiB mmap on a 4 GiB machine filled memory until the process
 * was killed); MAP_NORESERVE and read-only mappings of that size are not
 * charged and pass. Sizes come from /proc/meminfo (MemTotal, SwapTotal),
 * never from the machine's description. Skipped where another mode is set
 * (a host with vm.overcommit_memory = 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

int main(void)
{
	test_begin("overcommit_guess");
	char mode[16];
	if (read_file("/proc/sys/vm/overcommit_memory", mode, sizeof(mode)) <= 0)
		test_skip("no /proc/sys/vm/overcommit_memory");
	if (atoi(mode) != 0)
		test_skip("vm.overcommit_memory is %d, not the heuristic", atoi(mode));
	long mem_kb = meminfo_kb("MemTotal"), swap_kb = meminfo_kb("SwapTotal");
	long limit_kb = meminfo_kb("CommitLimit"), committed_kb = meminfo_kb("Committed_AS");
	CHECK_CMP(mem_kb, >, 0);
	CHECK_CMP(swap_kb, >=, 0);
	CHECK_CMP(limit_kb, >, 0);
	CHECK_CMP(committed_kb, >, 0); /* this program's own data and stack at least */
	note("MemTotal %ld kB, SwapTotal %ld kB, CommitLimit %ld kB, Committed_AS %ld kB", mem_kb,
	     swap_kb, limit_kb, committed_kb);

	/* RAM + swap + 64 MiB: more than the heuristic lets one request have. */
	size_t big = ((size_t)mem_kb + (size_t)swap_kb) * KiB + 64 * MiB;
	const int rw = PROT_READ | PROT_WRITE, anon = MAP_PRIVATE | MAP_ANONYMOUS;
	long rss = rss_kb();
	CHECK_ERRNO(mmap(NULL, big, rw, anon | MAP_POPULATE, -1, 0), ENOMEM);
	CHECK_ERRNO(mmap(NULL, big, rw, anon, -1, 0), ENOMEM);
	/* Nothing was faulted in for the refused request. */
	CHECK_CMP(rss_kb(), <, rss + 4 * 1024);

	/* Not charged: MAP_NORESERVE (honoured in mode 0) and read-only memory. */
	void *p = mmap(NULL, big, rw, anon | MAP_NORESERVE, -1, 0);
	CHECKF(p != MAP_FAILED, "a %zu MiB MAP_NORESERVE mapping is made", big >> 20);
	if (p != MAP_FAILED)
		CHECK(munmap(p, big) == 0);
	p = mmap(NULL, big, PROT_READ, anon, -1, 0);
	CHECKF(p != MAP_FAILED, "a %zu MiB read-only mapping is made", big >> 20);
	if (p != MAP_FAILED) {
		/* Making it writable charges it: refused the same way. */
		CHECK_ERRNO(mprotect(p, big, rw), ENOMEM);
		CHECK(munmap(p, big) == 0);
	}

	/* A charge is seen in Committed_AS (exactly on mmlab; on Linux other
	 * processes move it too). */
	if (on_mmlab()) {
		long before = meminfo_kb("Committed_AS");
		size_t len = 64 * MiB;
		void *q = mmap(NULL, len, rw, anon, -1, 0);
		CHECK(q != MAP_FAILED);
		CHECK_CMP(meminfo_kb("Committed_AS"), ==, before + (long)(len / KiB));
		if (q != MAP_FAILED)
			CHECK(munmap(q, len) == 0);
		CHECK_CMP(meminfo_kb("Committed_AS"), ==, before);
	}
	return test_end();
}
