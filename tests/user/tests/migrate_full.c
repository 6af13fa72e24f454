/* Page migration into a node that cannot hold the pages: migrate_pages(2),
 * move_pages(2) and mbind(2)'s MPOL_MF_MOVE return what Linux returns, the
 * pages that did not fit stay where they were, and every page keeps its
 * data. The same file runs on mmlab and on Linux (linux-ring).
 *
 * The machine decides the sizes: the target is the memory node with the
 * least free memory; it is filled with pages of this process until
 * room is left (64 MiB, less on a small machine), and then a mapping of
 * twice that on the node with the most free memory is moved there. Skipped with one node, or where the target is too large to fill
 * in reasonable time under emulation. */
#include <errno.h>

#include "check.h"
#include "migrate_workload.h"

/* Linux 6.1 keeps about 24 MiB of a 1 GiB node from these allocations
 * (its watermarks and lowmem reserves): with 24 MiB of room it OOM-killed
 * the filler; with 64 it moves about 40 MiB before ENOMEM. */
#define MAX_ROOM (64 * MiB)
#define MAX_PAGES (2 * MAX_ROOM / MW_PAGE)
#define MAX_FILL (1536 * MiB)
#define UNSET 0x7eadbeef

static void *pages[MAX_PAGES];
static int nodes[MAX_PAGES], status[MAX_PAGES], now[MAX_PAGES];

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
	/* Room for at least 4 MiB, and twice the room on both nodes, with
	 * 16 MiB to spare on each (the rest of this process, the kernel, the
	 * watermarks): the last migration must fit. */
	unsigned long room = MAX_ROOM;
	if (free_t < 16 * MiB || room > (free_t - 16 * MiB) / 2)
		room = free_t > 16 * MiB ? (free_t - 16 * MiB) / 2 : 0;
	if (free_s < 16 * MiB || room > (free_s - 16 * MiB) / 2)
		room = free_s > 16 * MiB ? (free_s - 16 * MiB) / 2 : 0;
	if (room < 4 * MiB)
		test_skip("no room for 8 MiB and more on nodes %d and %d", source, target);
	const unsigned long PAGES = 2 * room / MW_PAGE;

	/* The target filled but for room (page tables and the kernel's own
	 * allocations take a little of it too). */
	unsigned long fill = (free_t - room) / MW_PAGE;
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
	note("migrate_pages of %lu pages into the full node: %ld moved, %ld stayed, %lld ms", PAGES,
	     on_t, on_s, (t1 - t0) / 1000000);
	CHECK_CMP(on_t + on_s, ==, PAGES);
	CHECK_CMP(on_t, >, 0); /* the room is far above the watermarks */
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
	/* Linux may also find a page it cannot isolate from its LRU at that
	 * moment (one in a per-CPU batch): its status is -EBUSY, and it ends
	 * the run before it as any page not queued does. */
	long there = 0, unset = 0, busy = 0, other = 0, wrong = 0;
	CHECK(mw_move_pages(PAGES, pages, NULL, now, 0) == 0);
	for (unsigned long i = 0; i < PAGES; i++) {
		if (status[i] == target && now[i] != target && wrong++ == 0)
			note("page %lu: status %d, on node %d", i, status[i], now[i]);
		if (status[i] == target)
			there++;
		else if (status[i] == UNSET)
			unset++;
		else if (status[i] == -EBUSY)
			busy++;
		else if (other++ == 0)
			note("page %lu: status %d", i, status[i]);
	}
	note("move_pages: %ld statuses say node %d, %ld -EBUSY, %ld left unset", there, target, busy, unset);
	CHECK_CMP(other, ==, 0);
	CHECK_CMP(wrong, ==, 0); /* a page said to be on the target is there */
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
