/* Compaction (mm/compaction.c, mm/compaction_isolate.c, mm/kcompactd.c)
 * of anonymous pages.
 *
 * The layout cases fragment a node on purpose (tests/compaction_layout.h):
 * a test mm faults its pages in, and a run of pfn-consecutive movable
 * pageblocks of an otherwise taken node gets 128 of them in every block,
 * every fourth page, the other pages free; a block may also keep a pinned
 * page of the mm or a kernel page. What compaction must achieve is derived
 * from that layout by the two scanners' rule (layout_model). Every page's
 * data is checked afterwards, in every mm that maps it. Shmem and tmpfs
 * pages: tests/compaction_shmem_test.c.
 *
 * kcompactd's proactive compaction is off in each case (a node with every
 * block taken looks fragmented to it), and the case waits until no
 * kcompactd is running, so that only the case moves pages. Every case
 * gives back what it took: its blocks, its pages and its mm (test_mm's
 * leak check). */
#include "tests/kunit.h"
#include "tests/compaction_layout.h"
#include "tests/test_cpu.h"
#include "tests/test_proc.h"
#include "tests/test_mm.h"
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

static u64 pattern(unsigned long i)
{
	return 0xc0ffee0000000000ull ^ (i * 0x9e3779b97f4a7c15ull);
}

static unsigned long user_pfn(struct mm_struct *mm, unsigned long i)
{
	pte_t pte = test_mm_pte(mm, BASE + i * PAGE_SIZE);
	return pte_present(pte) ? pte_pfn(pte) : 0;
}

static struct page *anon_page_of(const struct layout *L, unsigned long i)
{
	unsigned long pfn = user_pfn(L->mm, i);
	return pfn ? pfn_to_page(pfn) : NULL;
}

/* The layout of nblocks blocks with the anonymous pages of a test mm at
 * BASE, page i holding pattern(i). */
static void make_layout(struct kunit *test, struct layout *L, unsigned nblocks, int pin_block, int kernel_block)
{
	layout_begin(test, L, nblocks, pin_block, kernel_block);
	L->mm = test_mm_create(test, TEST_MM_CURRENT);
	/* One more page for the pinned one. */
	L->npages = (unsigned long)nblocks * PER_BLOCK + (pin_block != NO_BLOCK);
	L->page_of = anon_page_of;
	test_mm_map_anon(test, L->mm, BASE, L->npages * PAGE_SIZE);
	for (unsigned long i = 0; i < L->npages; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(L->mm, BASE + i * PAGE_SIZE, pattern(i)), 0);
	layout_place(test, L);
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
		hold_block(p);

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
	make_layout(test, &L, (unsigned)blocks_for_compaction(nid_with_memory()), NO_BLOCK, NO_BLOCK);
	pg_data_t *pgdat = node_data[L.nid];
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
		hold_block(p);
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
		hold_block(p);
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
		hold_block(p);
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
	unsigned long migrated = compact_beside_crew(test, &L, &stress_crew, STRESS_ROUNDS);
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
