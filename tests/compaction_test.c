/* Compaction (mm/compaction.c, mm/compaction_isolate.c, mm/kcompactd.c).
 *
 * The layout cases fragment a node on purpose: every 2 MiB block of the
 * node that the allocator will give is taken (so none is free), a test mm
 * faults its pages in, and then a run of N pfn-consecutive movable
 * pageblocks is laid out as the case says: each block gets 128 of the
 * mm's pages, every fourth page of it, moved there by the same
 * migrate_isolated_page compaction uses, and the other three of each four
 * pages are freed. No block of the run is then free as a whole; a block
 * may also keep, right after its last page, a pinned page of the mm's
 * (an extra reference, as get_user_pages takes) or a kernel page (not on
 * the LRU). What compaction must achieve
 * is derived from that layout by the two scanners' rule: the pages of the
 * lowest blocks move into the free pages of the highest, block by block,
 * until the scanners meet, and a source block with no pinned or kernel
 * page ends up free. Every page's data is checked afterwards, in every mm
 * that maps it.
 *
 * kcompactd's proactive compaction is off in each case (a node with every
 * block taken looks fragmented to it), and the case waits until no
 * kcompactd is running, so that only the case moves pages. Every case
 * gives back what it took: its blocks, its pages and its mm (test_mm's
 * leak check). */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_mm.h"
#include "tests/test_pages.h"
#include "tests/test_proc.h"
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_fs.h"
#include "mm/mmu_context.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/compaction_internal.h"
#include "mm/migrate.h"
#include "mm/mm_types.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"
#include "tests/test_migrate.h"

#define BASE 0x40000000ul
#define PER_BLOCK 128 /* the mm's pages in each block of the run: every 4th */
#define MAX_RUN 16
#define NO_BLOCK (-1)
/* The order-9 blocks taken from the node, no reclaim, no kswapd (a woken
 * kswapd would wake kcompactd when it sleeps). */
#define TAKE_GFP (__GFP_THISNODE | __GFP_NOWARN | __GFP_MOVABLE)

static u64 pattern(unsigned long i)
{
	return 0xc0ffee0000000000ull ^ (i * 0x9e3779b97f4a7c15ull);
}

/* The case's hold on the node's blocks: each order-9 block taken, linked
 * through its lru, freed at the end (those of the run are split and
 * become the layout's). */
static LIST_HEAD(blocks);
static struct held kept; /* order-0 pages the layout keeps (kernel pages, blocks served) */

static void release_blocks(void *unused)
{
	(void)unused;
	while (!list_empty(&blocks)) {
		struct page *p = list_first_entry(&blocks, struct page, lru);
		list_del(&p->lru);
		__free_pages(p, pageblock_order);
	}
}

static int saved_proactiveness;
static void restore_proactiveness(void *unused)
{
	(void)unused;
	sysctl_compaction_proactiveness = saved_proactiveness;
}

/* No kcompactd moves pages under the case. */
static void quiet_kcompactd(struct kunit *test)
{
	saved_proactiveness = sysctl_compaction_proactiveness;
	sysctl_compaction_proactiveness = 0;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_proactiveness, NULL), 0);
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		while (kcompactd_busy(nid))
			cond_resched();
}

struct layout {
	int nid;
	unsigned nblocks;
	unsigned long lo; /* the run's first pfn */
	int pin_block, kernel_block;
	struct page *pinned;
	struct mm_struct *mm;
	unsigned long npages; /* the mm's pages */
};

static void unpin(void *ctx)
{
	struct layout *L = ctx;
	if (L->pinned)
		put_page(L->pinned);
	L->pinned = NULL;
}

static int nid_with_memory(void)
{
	int nid = numa_node_id();
	return node_data[nid]->managed_pages ? nid : node_data[nid]->fallback[0];
}

/* Every order-9 block of nid the allocator gives without reclaim. */
static void take_blocks(int nid)
{
	for (bool more = true; more;) {
		struct page *p;
		more = false;
		while ((p = alloc_pages_node(nid, TAKE_GFP, pageblock_order))) {
			list_add(&p->lru, &blocks);
			more = true;
		}
		drain_all_pages();
	}
}

/* The first of n blocks taken that are pfn-consecutive and movable, or 0. */
static unsigned long find_run(unsigned n)
{
	struct page *p;
	list_for_each_entry(p, &blocks, lru) {
		unsigned long start = page_to_pfn(p);
		unsigned found = 0;
		for (unsigned b = 0; b < n; b++) {
			struct page *q;
			list_for_each_entry(q, &blocks, lru)
				if (page_to_pfn(q) == start + b * pageblock_nr_pages &&
				    get_pageblock_migratetype(q) == MIGRATE_MOVABLE) {
					found++;
					break;
				}
		}
		if (found == n)
			return start;
	}
	return 0;
}

static unsigned long user_pfn(struct mm_struct *mm, unsigned long i)
{
	pte_t pte = test_mm_pte(mm, BASE + i * PAGE_SIZE);
	return pte_present(pte) ? pte_pfn(pte) : 0;
}

/* The mm's page i into new, as compaction moves it. */
static int move_into(struct mm_struct *mm, unsigned long i, struct page *new)
{
	struct page *old = pfn_to_page(user_pfn(mm, i));
	get_page(old);
	int err = isolate_lru_page(old);
	put_page(old);
	if (err)
		return err;
	err = migrate_isolated_page(old, new);
	if (err)
		putback_lru_page(old);
	return err;
}

static void make_layout(struct kunit *test, struct layout *L, unsigned nblocks, int pin_block, int kernel_block)
{
	*L = (struct layout){ .nid = nid_with_memory(), .nblocks = nblocks, .pin_block = pin_block,
			      .kernel_block = kernel_block };
	KUNIT_ASSERT_LE(test, nblocks, (unsigned)MAX_RUN);
	quiet_kcompactd(test);
	L->mm = test_mm_create(test, TEST_MM_CURRENT);
	/* One more page for the pinned one. */
	L->npages = (unsigned long)nblocks * PER_BLOCK + (pin_block != NO_BLOCK);
	test_mm_map_anon(test, L->mm, BASE, L->npages * PAGE_SIZE);
	for (unsigned long i = 0; i < L->npages; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(L->mm, BASE + i * PAGE_SIZE, pattern(i)), 0);
	held_init_released_at_end(test, &kept);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, release_blocks, NULL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, unpin, L), 0);
	take_blocks(L->nid);
	L->lo = find_run(nblocks);
	/* A small node (sixteen-node's are 64 MiB, node 0 with the kernel's
	 * own pages in it) may have no such run to lay out: the layout
	 * cannot be made there. */
	if (!L->lo)
		kunit_skip(test, "no %u consecutive movable pageblocks free on node %d", nblocks, L->nid);
	for (unsigned b = 0; b < nblocks; b++) {
		struct page *head = pfn_to_page(L->lo + b * pageblock_nr_pages);
		list_del(&head->lru);
		split_page(head, pageblock_order);
		for (unsigned k = 0; k < PER_BLOCK; k++) {
			unsigned long i = (unsigned long)b * PER_BLOCK + k;
			struct page *slot = head + 4 * k;
			int err = move_into(L->mm, i, slot);
			if (err)
				__free_page(slot);
			KUNIT_ASSERT_EQ(test, err, 0);
			for (unsigned j = 1; j < 4; j++) {
				/* The page after the last one mapped: a pinned
				 * page of the mm's, or a kernel page (not on the
				 * LRU), in the blocks the case names. */
				if (k == PER_BLOCK - 1 && j == 1 && (int)b == pin_block) {
					err = move_into(L->mm, L->npages - 1, slot + 1);
					if (err)
						__free_page(slot + 1);
					KUNIT_ASSERT_EQ(test, err, 0);
					get_page(slot + 1); /* as get_user_pages */
					L->pinned = slot + 1;
				} else if (k == PER_BLOCK - 1 && j == 1 && (int)b == kernel_block) {
					held_add(&kept, slot + 1, 0);
				} else {
					__free_page(slot + j);
				}
			}
		}
	}
	drain_all_pages();
	/* The pages the mm faulted first were freed by the moves: any
	 * order-9 block they made whole is taken too. */
	take_blocks(L->nid);
}

/* The mm's pages in each block of the run, for the case's report. */
static void report_blocks(struct kunit *test, const struct layout *L)
{
	unsigned long count[MAX_RUN] = { 0 };
	for (unsigned long i = 0; i < L->npages; i++) {
		unsigned long pfn = user_pfn(L->mm, i);
		if (pfn >= L->lo && pfn < L->lo + L->nblocks * pageblock_nr_pages)
			count[(pfn - L->lo) >> pageblock_order]++;
	}
	for (unsigned b = 0; b < L->nblocks; b++)
		kunit_info(test, "block %u: %lu of the mm's pages", b, count[b]);
}

/* The scanners' rule on the layout (see the top of the file): the pages
 * moved, and a mask of the blocks left free. */
static unsigned long layout_model(const struct layout *L, unsigned long *free_mask)
{
	long movable[MAX_RUN], room[MAX_RUN];
	for (unsigned b = 0; b < L->nblocks; b++) {
		bool stuck = (int)b == L->pin_block || (int)b == L->kernel_block;
		movable[b] = PER_BLOCK;
		room[b] = (long)pageblock_nr_pages - PER_BLOCK - stuck;
	}
	unsigned long moved = 0;
	unsigned i = 0, j = L->nblocks - 1;
	for (; i < j; i++) {
		while (movable[i] && i < j) {
			long t = movable[i] < room[j] ? movable[i] : room[j];
			movable[i] -= t;
			room[j] -= t;
			moved += (unsigned long)t;
			if (!room[j])
				j--;
		}
	}
	*free_mask = 0;
	for (unsigned b = 0; b < i && b < L->nblocks; b++)
		if (!movable[b] && (int)b != L->pin_block && (int)b != L->kernel_block)
			*free_mask |= 1ul << b;
	return moved;
}

/* Takes every free order-9 block of nid; the mask of those that are
 * blocks of the run (the others are held too, and given back at the
 * end). */
static unsigned long take_run_blocks(const struct layout *L)
{
	unsigned long mask = 0;
	struct page *p;
	drain_all_pages();
	while ((p = alloc_pages_node(L->nid, TAKE_GFP, pageblock_order))) {
		unsigned long pfn = page_to_pfn(p);
		list_add(&p->lru, &blocks);
		if (pfn >= L->lo && pfn < L->lo + L->nblocks * pageblock_nr_pages)
			mask |= 1ul << ((pfn - L->lo) >> pageblock_order);
	}
	return mask;
}

/* Every page of the mm still holds its data, on the layout's node. */
static void expect_data(struct kunit *test, const struct layout *L, struct mm_struct *mm)
{
	unsigned long bad = 0, elsewhere = 0;
	for (unsigned long i = 0; i < L->npages; i++) {
		if (test_mm_read_u64(mm, BASE + i * PAGE_SIZE) != pattern(i))
			bad++;
		unsigned long pfn = user_pfn(mm, i);
		if (!pfn || page_to_nid(pfn_to_page(pfn)) != L->nid)
			elsewhere++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, elsewhere, 0ul);
}

/* The lines of a /proc file about node nid ("Node <nid>," lines), into
 * the case's report: /proc/buddyinfo and /proc/pagetypeinfo before and
 * after a compaction (docs/compaction.md shows them). */
static void report_node_lines(struct kunit *test, const char *path, int nid, const char *when)
{
	char *s = test_proc_read(test, path);
	for (char *line = s; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(line, "Node", 4)) {
			const char *q = line + 4;
			while (*q == ' ')
				q++;
			int n = 0;
			while (*q >= '0' && *q <= '9')
				n = n * 10 + (*q++ - '0');
			if (*q == ',' && n == nid)
				kunit_info(test, "%s %s: %s", path, when, line);
		}
		line = nl ? nl + 1 : NULL;
	}
	test_proc_free(test, s);
}

/* A fragmented run: no order-9 block before, exactly the blocks the model
 * says after; the pinned block and the kernel page's block stay in use;
 * the pages moved are the model's, their data intact; the counters
 * moved. */
static void compaction_frees_the_blocks_the_layout_allows(struct kunit *test)
{
	static struct layout L;
	make_layout(test, &L, 4, 0, 2);
	struct page *p = alloc_pages_node(L.nid, TAKE_GFP, pageblock_order);
	KUNIT_EXPECT_NULL(test, p);
	if (p)
		list_add(&p->lru, &blocks);

	unsigned long want_free, want_moved = layout_model(&L, &want_free);
	unsigned long scanned = all_vm_events(COMPACTMIGRATE_SCANNED), isolated = all_vm_events(COMPACTISOLATED);
	report_node_lines(test, "/proc/buddyinfo", L.nid, "before");
	report_node_lines(test, "/proc/pagetypeinfo", L.nid, "before");
	struct compact_range_result r;
	compact_range(L.nid, L.lo, L.lo + L.nblocks * pageblock_nr_pages, -1, 0, &r);
	drain_all_pages();
	report_node_lines(test, "/proc/buddyinfo", L.nid, "after");
	report_node_lines(test, "/proc/pagetypeinfo", L.nid, "after");
	kunit_info(test, "node %d pfn %#lx: result %d, %lu scanned, %lu free scanned, %lu isolated, %lu moved", L.nid,
		   L.lo, r.result, r.migrate_scanned, r.free_scanned, r.isolated, r.migrated);
	report_blocks(test, &L);
	KUNIT_EXPECT_EQ(test, r.result, COMPACT_COMPLETE);
	KUNIT_EXPECT_EQ(test, r.migrated, want_moved);
	KUNIT_EXPECT_EQ(test, take_run_blocks(&L), want_free);
	KUNIT_EXPECT_EQ(test, want_free, 1ul << 1); /* the layout's own answer: block 1 alone */
	expect_data(test, &L, L.mm);
	KUNIT_EXPECT_GE(test, all_vm_events(COMPACTMIGRATE_SCANNED) - scanned, r.migrate_scanned);
	KUNIT_EXPECT_GE(test, all_vm_events(COMPACTISOLATED) - isolated, r.isolated);
	KUNIT_EXPECT_GT(test, r.migrate_scanned, 0ul);
	/* The pinned page stayed where it was, still mapped. */
	KUNIT_EXPECT_EQ(test, user_pfn(L.mm, L.npages - 1), page_to_pfn(L.pinned));
}

/* A page that fork shared is moved with both mappings: the parent's and
 * the child's entries name the same new page, which holds the data. */
static void pages_mapped_by_two_processes_move_with_every_mapping(struct kunit *test)
{
	static struct layout L;
	make_layout(test, &L, 2, NO_BLOCK, NO_BLOCK);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(L.mm, &child), 0);
	unsigned long want_free, want_moved = layout_model(&L, &want_free);
	struct compact_range_result r;
	compact_range(L.nid, L.lo, L.lo + L.nblocks * pageblock_nr_pages, -1, 0, &r);
	KUNIT_EXPECT_EQ(test, r.migrated, want_moved);
	KUNIT_EXPECT_EQ(test, want_moved, (unsigned long)PER_BLOCK);
	unsigned long differ = 0, not_shared = 0, in_block0 = 0;
	for (unsigned long i = 0; i < L.npages; i++) {
		unsigned long a = user_pfn(L.mm, i), b = user_pfn(child, i);
		differ += a != b;
		not_shared += !a || page_mapcount(pfn_to_page(a)) != 2;
		in_block0 += a >= L.lo && a < L.lo + pageblock_nr_pages;
	}
	KUNIT_EXPECT_EQ(test, differ, 0ul);
	KUNIT_EXPECT_EQ(test, not_shared, 0ul);
	KUNIT_EXPECT_EQ(test, in_block0, 0ul);
	expect_data(test, &L, L.mm);
	expect_data(test, &L, child);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	mmput(child);
	KUNIT_EXPECT_EQ(test, take_run_blocks(&L), want_free);
	KUNIT_EXPECT_EQ(test, want_free, 1ul);
}

/* The blocks of a run for direct compaction and kcompactd: enough free
 * pages in it for compaction_suitable, the low watermark plus
 * compact_gap(9) above what the node has once its blocks are taken. */
static unsigned long blocks_for_compaction(int nid)
{
	pg_data_t *pgdat = node_data[nid];
	unsigned long need = pgdat->watermark[WMARK_LOW] + (2ul << pageblock_order) - pgdat->watermark[WMARK_MIN];
	unsigned long n = (need + (pageblock_nr_pages - PER_BLOCK) - 1) / (pageblock_nr_pages - PER_BLOCK) + 1;
	return n < 2 ? 2 : n;
}

/* An order-9 request that may reclaim compacts directly: it succeeds on
 * the fragmented node, and compact_stall and compact_success count it. */
static void direct_compaction_serves_an_order9_request(struct kunit *test)
{
	static struct layout L;
	int nid = nid_with_memory();
	pg_data_t *pgdat = node_data[nid];
	make_layout(test, &L, (unsigned)blocks_for_compaction(nid), NO_BLOCK, NO_BLOCK);
	KUNIT_ASSERT_EQ(test, compaction_suitable(pgdat, pageblock_order, WMARK_MIN), COMPACT_CONTINUE);
	compaction_defer_reset(pgdat, pageblock_order, true);
	/* Earlier compactions set the skip bits of blocks that were free
	 * then, this run's among them: the node starts afresh. */
	__reset_isolation_suitable(pgdat);
	unsigned long stall = all_vm_events(COMPACTSTALL), success = all_vm_events(COMPACTSUCCESS),
		      fail = all_vm_events(COMPACTFAIL);
	/* GFP_HIGHUSER_MOVABLE without kswapd, on this node only. */
	gfp_t gfp = (GFP_HIGHUSER_MOVABLE & ~__GFP_KSWAPD_RECLAIM) | __GFP_THISNODE | __GFP_NOWARN;
	struct page *p = alloc_pages_node(L.nid, gfp, pageblock_order);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p) {
		KUNIT_EXPECT_EQ(test, page_to_nid(p), L.nid);
		list_add(&p->lru, &blocks);
	}
	unsigned long stalls = all_vm_events(COMPACTSTALL) - stall;
	kunit_info(test, "%u blocks laid out; %lu stalls, %lu successes, %lu failures", L.nblocks, stalls,
		   all_vm_events(COMPACTSUCCESS) - success, all_vm_events(COMPACTFAIL) - fail);
	KUNIT_EXPECT_GE(test, stalls, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(COMPACTSUCCESS) - success, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(COMPACTFAIL) - fail, stalls - 1);
	expect_data(test, &L, L.mm);
	/* A non-blocking one never compacts: no stall. */
	stall = all_vm_events(COMPACTSTALL);
	p = alloc_pages_node(L.nid, TAKE_GFP, pageblock_order);
	if (p)
		list_add(&p->lru, &blocks);
	KUNIT_EXPECT_EQ(test, all_vm_events(COMPACTSTALL), stall);
}

/* kcompactd, woken for order 9 on the fragmented node, compacts it until
 * a block of the order is free there (compact_daemon_wake counts it). */
static void kcompactd_makes_the_order_free_when_woken(struct kunit *test)
{
	static struct layout L;
	make_layout(test, &L, (unsigned)blocks_for_compaction(nid_with_memory()), NO_BLOCK, NO_BLOCK);
	pg_data_t *pgdat = node_data[L.nid];
	KUNIT_ASSERT_EQ(test, compaction_suitable(pgdat, pageblock_order, WMARK_MIN), COMPACT_CONTINUE);
	compaction_defer_reset(pgdat, pageblock_order, true);
	/* Earlier compactions set the skip bits of blocks that were free
	 * then, this run's among them: the node starts afresh. */
	__reset_isolation_suitable(pgdat);
	unsigned long wakes = all_vm_events(KCOMPACTD_WAKE), scanned = all_vm_events(KCOMPACTD_MIGRATE_SCANNED);
	wakeup_kcompactd(pgdat, pageblock_order);
	KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(all_vm_events(KCOMPACTD_WAKE) > wakes && !kcompactd_busy(L.nid),
						NULL));
	KUNIT_EXPECT_GT(test, all_vm_events(KCOMPACTD_MIGRATE_SCANNED), scanned);
	drain_all_pages();
	struct page *p = alloc_pages_node(L.nid, TAKE_GFP, pageblock_order);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p)
		list_add(&p->lru, &blocks);
	expect_data(test, &L, L.mm);
}

/* Deferral as Linux's: after each failure twice as many attempts are
 * skipped (up to 63), only for the order that failed and above; a
 * success ends it; compaction_restarting once the full deferral ran. */
struct defer_state {
	pg_data_t *pgdat;
	unsigned int considered, shift;
	int order_failed;
};
static struct defer_state saved_defer;

static void restore_defer(void *unused)
{
	(void)unused;
	saved_defer.pgdat->compact_considered = saved_defer.considered;
	saved_defer.pgdat->compact_defer_shift = saved_defer.shift;
	saved_defer.pgdat->compact_order_failed = saved_defer.order_failed;
}

static unsigned deferred_run(pg_data_t *pgdat, int order)
{
	unsigned n = 0;
	while (compaction_deferred(pgdat, order))
		n++;
	return n;
}

static void deferral_doubles_and_resets(struct kunit *test)
{
	pg_data_t *pgdat = node_data[nid_with_memory()];
	saved_defer = (struct defer_state){ pgdat, pgdat->compact_considered, pgdat->compact_defer_shift,
					    pgdat->compact_order_failed };
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, restore_defer, NULL), 0);
	compaction_defer_reset(pgdat, 9, true);
	KUNIT_EXPECT_FALSE(test, compaction_deferred(pgdat, 9));
	for (unsigned shift = 1; shift <= 7; shift++) {
		defer_compaction(pgdat, 9);
		unsigned want = (1u << (shift < 6 ? shift : 6)) - 1;
		KUNIT_EXPECT_EQ(test, deferred_run(pgdat, 9), want);
	}
	KUNIT_EXPECT_TRUE(test, compaction_restarting(pgdat, 9));
	/* Lower orders than the one that failed are not deferred. */
	defer_compaction(pgdat, 9);
	KUNIT_EXPECT_FALSE(test, compaction_deferred(pgdat, 8));
	KUNIT_EXPECT_TRUE(test, compaction_deferred(pgdat, 10));
	/* A success at the order ends it. */
	compaction_defer_reset(pgdat, 9, true);
	KUNIT_EXPECT_FALSE(test, compaction_deferred(pgdat, 9));
	KUNIT_EXPECT_FALSE(test, compaction_restarting(pgdat, 9));
	KUNIT_EXPECT_EQ(test, pgdat->compact_order_failed, 10);
}

/* Skip hints: a block with its skip bit set is not scanned by a
 * compaction that honours the hints; __reset_isolation_suitable clears
 * it; a block scanned whole with nothing to isolate gets the bit. */
static void reset_hints(void *pgdat)
{
	__reset_isolation_suitable(pgdat);
}

static void skip_hints_are_honoured_set_and_reset(struct kunit *test)
{
	static struct layout L;
	make_layout(test, &L, 2, NO_BLOCK, NO_BLOCK);
	pg_data_t *pgdat = node_data[L.nid];
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, reset_hints, pgdat), 0);
	struct page *block0 = pfn_to_page(L.lo);
	unsigned long end = L.lo + L.nblocks * pageblock_nr_pages;
	struct compact_range_result r;
	set_pageblock_skip(block0);
	compact_range(L.nid, L.lo, end, -1, COMPACT_RANGE_SKIP_HINTS, &r);
	KUNIT_EXPECT_EQ(test, r.migrated, 0ul);
	__reset_isolation_suitable(pgdat);
	KUNIT_EXPECT_FALSE(test, get_pageblock_skip(block0));
	compact_range(L.nid, L.lo, end, -1, COMPACT_RANGE_SKIP_HINTS, &r);
	KUNIT_EXPECT_EQ(test, r.migrated, (unsigned long)PER_BLOCK);
	/* Block 0 is all free now: scanned whole, nothing isolated. */
	drain_all_pages();
	compact_range(L.nid, L.lo, end, -1, COMPACT_RANGE_SKIP_HINTS, &r);
	KUNIT_EXPECT_EQ(test, r.migrated, 0ul);
	KUNIT_EXPECT_TRUE(test, get_pageblock_skip(block0));
	expect_data(test, &L, L.mm);
}

/* Compaction beside faults, writes and zaps on every CPU (tests/
 * test_mm.c's stress workers: one step in 16 a MADV_DONTNEED) on a
 * fragmented run: the mm's pages are bound to the run's node (MPOL_BIND),
 * so the pages a zap frees and a fault takes are the run's, and each
 * compaction of the run finds pages to move. A page read back holds its
 * own value or is a fresh zero page; the tables' counts stay exact
 * (pte_ref_verify, and the mm's cleanup). */
#define STRESS_ROUNDS 6
#define ARG (BASE - PAGE_SIZE) /* a user page for mbind's mask */

static unsigned long stress_pages;

static int stress_access(unsigned long addr, unsigned long index, unsigned long seed, unsigned long n)
{
	(void)n;
	u64 v;
	if ((seed >> 24) % 2) {
		if (get_user_u64(&v, (void *)addr))
			return 1;
		return v != 0 && v != pattern(index);
	}
	return put_user_u64(pattern(index), (void *)addr) != 0;
}

static int stress_worker(struct test_worker *w)
{
	return test_mm_stress_worker(w, BASE, stress_pages, stress_access);
}

static struct test_crew stress_crew;

static void compaction_beside_faults_and_zaps_on_every_cpu(struct kunit *test)
{
	static struct layout L;
	make_layout(test, &L, 4, NO_BLOCK, NO_BLOCK);
	stress_pages = L.npages;
	test_mm_map_anon(test, L.mm, ARG, PAGE_SIZE);
	unsigned long mask = 1ul << L.nid;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)ARG, &mask, sizeof(mask)), 0ul);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_mbind, BASE, L.npages * PAGE_SIZE, MPOL_BIND, ARG, 64, 0), 0);
	test_crew_start(test, &stress_crew, stress_worker, L.mm, 0, TEST_CREW_OTHER_CPUS_OR_THIS);
	unsigned long migrated = 0, end = L.lo + L.nblocks * pageblock_nr_pages;
	for (int k = 0; k < STRESS_ROUNDS; k++) {
		unsigned long p = stress_crew.progress;
		KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(stress_crew.progress >= p + 256, &stress_crew.progress));
		struct compact_range_result r;
		compact_range(L.nid, L.lo, end, -1, 0, &r);
		migrated += r.migrated;
	}
	test_crew_stop(&stress_crew);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &stress_crew), 0ul);
	kunit_info(test, "%lu accesses and zaps by %u workers beside %d compactions: %lu pages moved",
		   stress_crew.progress, stress_crew.n, STRESS_ROUNDS, migrated);
	KUNIT_EXPECT_GT(test, migrated, 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(L.mm), 0ul);
	unsigned long bad = 0;
	for (unsigned long i = 0; i < L.npages; i++) {
		u64 v = test_mm_read_u64(L.mm, BASE + i * PAGE_SIZE);
		bad += v != 0 && v != pattern(i);
	}
	KUNIT_EXPECT_EQ(test, bad, 0ul);
}

/* The files: the sysctls' defaults, a write to compact_memory and to a
 * node's compact file compacts (the scan counters move), and /proc/vmstat
 * has Linux 6.1's compact_* lines in its order. */
static void compaction_files_and_counters(struct kunit *test)
{
	static const struct {
		const char *path, *want;
	} sysctls[] = {
		{ "/proc/sys/vm/compaction_proactiveness", "20\n" },
		{ "/proc/sys/vm/extfrag_threshold", "500\n" },
		{ "/proc/sys/vm/compact_unevictable_allowed", "1\n" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(sysctls); i++) {
		char *s = test_proc_read(test, sysctls[i].path);
		KUNIT_EXPECT_STREQ(test, s, sysctls[i].want);
		test_proc_free(test, s);
	}
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/extfrag_threshold", current, "1001", 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/compact_unevictable_allowed", current, "2", 1),
			-EINVAL);
	unsigned long scanned = all_vm_events(COMPACTMIGRATE_SCANNED);
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/compact_memory", current, "1", 1), 0);
	unsigned long after_all = all_vm_events(COMPACTMIGRATE_SCANNED);
	KUNIT_EXPECT_GT(test, after_all, scanned);
	char path[64];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact", nid_with_memory());
	KUNIT_EXPECT_EQ(test, procfs_write_path(path, current, "1", 1), 0);
	KUNIT_EXPECT_GT(test, all_vm_events(COMPACTMIGRATE_SCANNED), after_all);

	static const char *const names[] = {
		"oom_kill", "compact_migrate_scanned", "compact_free_scanned", "compact_isolated",
		"compact_stall", "compact_fail", "compact_success", "compact_daemon_wake",
		"compact_daemon_migrate_scanned", "compact_daemon_free_scanned", "unevictable_pgs_culled",
	};
	char *s = test_proc_read(test, "/proc/vmstat");
	const char *at = s;
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		char line[48];
		snprintf(line, sizeof(line), "\n%s ", names[i]);
		const char *found = strstr(at, line);
		if (!found)
			kunit_info(test, "%s is not in its place in /proc/vmstat", names[i]);
		KUNIT_EXPECT_NOT_NULL(test, found);
		if (found)
			at = found + 1;
	}
	test_proc_free(test, s);
}

static struct kunit_case compaction_cases[] = {
	KUNIT_CASE(compaction_frees_the_blocks_the_layout_allows),
	KUNIT_CASE(pages_mapped_by_two_processes_move_with_every_mapping),
	KUNIT_CASE(direct_compaction_serves_an_order9_request),
	KUNIT_CASE(kcompactd_makes_the_order_free_when_woken),
	KUNIT_CASE(deferral_doubles_and_resets),
	KUNIT_CASE(skip_hints_are_honoured_set_and_reset),
	KUNIT_CASE(compaction_beside_faults_and_zaps_on_every_cpu),
	KUNIT_CASE(compaction_files_and_counters),
	{},
};

static struct kunit_suite compaction_suite = { .name = "compaction", .test_cases = compaction_cases };
kunit_test_suite(compaction_suite);
