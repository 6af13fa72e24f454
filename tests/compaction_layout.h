/* The fragmented layouts the compaction suites build (tests/
 * compaction_layout.c): every 2 MiB block of a node that the allocator
 * will give is taken (so none is free), and then a run of N
 * pfn-consecutive movable pageblocks is laid out: each block gets
 * PER_BLOCK of the case's pages, every fourth page of it, moved there by
 * the same migrate_isolated_page compaction uses, and the other three of
 * each four pages are freed. No block of the run is then free as a
 * whole; a block may also keep, right after its last page, a pinned page
 * of the case's (an extra reference, as get_user_pages takes) or a kernel
 * page (not on the LRU).
 *
 * What compaction must achieve is derived from that layout by the two
 * scanners' rule (layout_model): the pages of the lowest blocks move into
 * the free pages of the highest, block by block, until the scanners meet,
 * and a source block with no pinned or kernel page ends up free.
 *
 * The case's pages are whatever it says (struct layout's page_of: the
 * anonymous pages of a test mm, the pages of a shmem object or a tmpfs
 * file); the layout gives back at the end of the case every block and
 * page it took. */
#ifndef TESTS_COMPACTION_LAYOUT_H
#define TESTS_COMPACTION_LAYOUT_H

#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "mm/compaction_internal.h"
#include "mm/page_alloc.h"

#define PER_BLOCK 128 /* the case's pages in each block of the run: every 4th */
#define MAX_RUN 16
#define NO_BLOCK (-1)
/* The order-9 blocks taken from the node, no reclaim, no kswapd (a woken
 * kswapd would wake kcompactd when it sleeps); held untouched, and those
 * of the run checked when they are split (mm/gfp.h). */
#define TAKE_GFP (__GFP_THISNODE | __GFP_NOWARN | __GFP_MOVABLE | __GFP_UNTOUCHED)

struct mm_struct;

struct layout {
	int nid;
	unsigned nblocks;
	unsigned long lo; /* the run's first pfn */
	int pin_block, kernel_block;
	struct page *pinned;
	/* The case's pages: npages of them (the last one the pinned one when
	 * pin_block is a block), page i being page_of(L, i) now (NULL: none
	 * there). */
	unsigned long npages;
	struct page *(*page_of)(const struct layout *L, unsigned long i);
	struct mm_struct *mm; /* the case's, for page_of */
	void *priv;	      /* the case's, for page_of */
};

/* The layout's node: this CPU's, or the nearest with memory. */
int nid_with_memory(void);
/* No kcompactd moves pages under the case: proactive compaction off
 * until it ends, and every kcompactd idle. */
void quiet_kcompactd(struct kunit *test);
/* Starts L: its node, its blocks and where the pinned and kernel pages
 * go; kcompactd quiet. The case then makes its pages and sets npages and
 * page_of. */
void layout_begin(struct kunit *test, struct layout *L, unsigned nblocks, int pin_block, int kernel_block);
/* Takes the node's blocks and lays the case's pages out in a run of them
 * (skips the case when the node has no such run). */
void layout_place(struct kunit *test, struct layout *L);
/* The scanners' rule on the layout: the pages moved, and a mask of the
 * blocks left free. */
unsigned long layout_model(const struct layout *L, unsigned long *free_mask);
/* Takes every free order-9 block of the node (given back at the end);
 * the mask of those that are blocks of the run. */
unsigned long take_run_blocks(const struct layout *L);
/* An order-9 block the case took, given back at its end. */
void hold_block(struct page *p);
/* The case's pages in each block of the run, into its report. */
void report_blocks(struct kunit *test, const struct layout *L);
/* The "Node <nid>," lines of a /proc file into the case's report. */
void report_node_lines(struct kunit *test, const char *path, int nid, const char *when);
/* old (a page on the LRU) moved into new as compaction moves it
 * (isolate_lru_page, migrate_isolated_page): 0, or the error, new then
 * still the caller's and old back on the LRU. */
int move_page_into(struct page *old, struct page *new);

/* rounds compactions of the run, each once crew (started, its workers
 * faulting and zapping the layout's pages) has made 256 more steps; then
 * the crew stopped and checked, the figures into the case's report.
 * Returns the pages moved. */
unsigned long compact_beside_crew(struct kunit *test, const struct layout *L, struct test_crew *crew, int rounds);

#endif
