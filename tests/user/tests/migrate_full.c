/* Page migration into a node that cannot hold the pages: migrate_pages(2),
 * move_pages(2) and mbind(2)'s MPOL_MF_MOVE return what Linux returns, the
 * pages that did not fit stay where they were, and every page keeps its
 * data. The same file runs on mmlab and on Linux (linux-ring).
 *
 * The machine decides the sizes: the target is the memory node with the
 * least free memory; it is filled with pages of this process until
 * ROOM is left, and then a mapping of twice ROOM on another node is moved
 * there. Skipped with one node, or where the target is too large to fill
 * in reasonable time under emulation. */
#include <errno.h>

#include "check.h"
#include "migrate_workload.h"

#define ROOM (24 * MiB)
#define PAGES (2 * ROOM / MW_PAGE)
#define MAX_FILL (1536 * MiB)
#define UNSET 0x7eadbeef

static void *pages[PAGES];
static int nodes[PAGES], status[PAGES];

int main(void)
{
	test_begin("migrate_full");
	int target, source;
	if (!mw_pick_nodes(&target, &source))
		test_skip("fewer than two nodes with memory");
	unsigned long free_t = (unsigned long)mw_node_free_kb(target) * 1024;
	unsigned long free_s = (unsigned long)mw_node_free_kb(source) * 1024;
	note("target node %d: %lu MiB free; source node %d: %lu MiB free", target, free_t / MiB, source,
	     free_s / MiB);
	if (free_t > MAX_FILL)
		test_skip("node %d has %lu MiB free: too much to fill here", target, free_t / MiB);
	if (free_s < PAGES * MW_PAGE + 16 * MiB)
		test_skip("node %d has no room for %lu MiB", source, PAGES * MW_PAGE / MiB);

	/* The target filled but for ROOM (page tables and the kernel's own
	 * allocations take a little of it too). */
	unsigned long fill = free_t > ROOM ? (free_t - ROOM) / MW_PAGE : 0;
	char *f = fill ? mw_map_on(fill, 1ul << target) : NULL;
	CHECK(!fill || f);
	char *m = mw_map_on(PAGES, 1ul << source);
	CHECK(m);
	if ((fill && !f) || !m)
		return test_end();
	CHECK_CMP(mw_pages_on(m, PAGES, source), ==, PAGES);
	note("node %d filled with %lu MiB, %lu MiB free now", target, fill * MW_PAGE / MiB,
	     mw_node_free_kb(target) / 1024);

	/* migrate_pages: ENOMEM once the target is full; what fitted moved. */
	long long t0 = now_ns();
	CHECK_ERRNO(mw_migrate_pages(1ul << source, 1ul << target), ENOMEM);
	long long t1 = now_ns();
	long on_t = mw_pages_on(m, PAGES, target), on_s = mw_pages_on(m, PAGES, source);
	note("migrate_pages of %lu pages into the full node: %ld moved, %ld stayed, %lld ms", (unsigned long)PAGES,
	     on_t, on_s, (t1 - t0) / 1000000);
	CHECK_CMP(on_t + on_s, ==, PAGES);
	CHECK_CMP(on_t, >, 0); /* ROOM is far above the watermarks */
	CHECK_CMP(on_s, >, 0);
	CHECK_CMP(mw_first_bad(m, PAGES), ==, PAGES);

	/* move_pages of all of them: the pages already there get their node,
	 * the run that does not fit ends the call with ENOMEM and stores no
	 * status. */
	for (unsigned long i = 0; i < PAGES; i++) {
		pages[i] = m + i * MW_PAGE;
		nodes[i] = target;
		status[i] = UNSET;
	}
	CHECK_ERRNO(mw_move_pages(PAGES, pages, nodes, status, MW_MPOL_MF_MOVE), ENOMEM);
	long there = 0, unset = 0, other = 0;
	for (unsigned long i = 0; i < PAGES; i++) {
		if (status[i] == target)
			there++;
		else if (status[i] == UNSET)
			unset++;
		else if (other++ == 0)
			note("page %lu: status %d", i, status[i]);
	}
	note("move_pages: %ld statuses say node %d, %ld left unset", there, target, unset);
	CHECK_CMP(other, ==, 0);
	CHECK_CMP(there, >=, on_t); /* every page that was there, in order */
	CHECK_CMP(unset, >, 0);
	CHECK_CMP(mw_pages_on(m, PAGES, target) + mw_pages_on(m, PAGES, source), ==, PAGES);
	CHECK_CMP(mw_first_bad(m, PAGES), ==, PAGES);

	/* mbind with MPOL_MF_MOVE to the full node: EIO under MPOL_MF_STRICT,
	 * success without (the pages left behind are not its business). */
	CHECK_ERRNO(mw_mbind(m, PAGES * MW_PAGE, MW_MPOL_BIND, 1ul << target, MW_MPOL_MF_MOVE | MW_MPOL_MF_STRICT),
		    EIO);
	CHECK_CMP(mw_mbind(m, PAGES * MW_PAGE, MW_MPOL_BIND, 1ul << target, MW_MPOL_MF_MOVE), ==, 0);
	CHECK_CMP(mw_first_bad(m, PAGES), ==, PAGES);

	/* With the filler gone everything fits: 0 pages left behind. */
	if (f)
		CHECK(munmap(f, fill * MW_PAGE) == 0);
	t0 = now_ns();
	CHECK_CMP(mw_migrate_pages(1ul << source, 1ul << target), ==, 0);
	t1 = now_ns();
	CHECK_CMP(mw_pages_on(m, PAGES, target), ==, PAGES);
	CHECK_CMP(mw_first_bad(m, PAGES), ==, PAGES);
	note("migrate_pages of the rest once it fits: %lld ms", (t1 - t0) / 1000000);
	CHECK(munmap(m, PAGES * MW_PAGE) == 0);
	return test_end();
}
