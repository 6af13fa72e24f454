/* The target of a page migration (alloc_migration_target) on a node with
 * no free page: it fails after one round of the allocator's slow path (a
 * THP's after none: compaction is skipped there), as Linux's does where
 * nothing on the node is reclaimable, so that a
 * migration into a full node pays one round and not the seventeen a plain
 * GFP_USER request goes through. The rounds are counted by a shrinker
 * that frees nothing (shrink_slab asks every shrinker once a round). The
 * node is given back however the case ends. */
#include "lib/list.h"
#include "kernel/sched_mm.h"
#include "mm/migrate.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "tests/kunit.h"

static LIST_HEAD(held);
static unsigned long rounds;

static unsigned long count_round(struct shrinker *s, struct shrink_control *sc)
{
	(void)s, (void)sc;
	/* The case counts direct reclaim's calls: kswapd's are not its. */
	if (current_is_kswapd())
		return 0;
	rounds++;
	return 0;
}

static unsigned long scan_nothing(struct shrinker *s, struct shrink_control *sc)
{
	(void)s, (void)sc;
	return SHRINK_STOP;
}

static struct shrinker round_counter = { .count_objects = count_round, .scan_objects = scan_nothing };

static void give_back(void *unused)
{
	(void)unused;
	while (!list_empty(&held)) {
		struct page *p = list_first_entry(&held, struct page, lru);
		list_del(&p->lru);
		__free_pages(p, PageHead(p) ? (unsigned)p->private : 0);
	}
}

static void unregister_counter(void *s) { unregister_shrinker(s); }

/* Takes every page node nid gives without reclaim, largest blocks first,
 * then again after the other CPUs gave back their per-CPU lists. */
static void take_node(int nid)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int order = MAX_PAGE_ORDER; order >= 0; order--) {
			struct page *p;
			while ((p = alloc_pages_node(nid, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN | __GFP_UNTOUCHED,
						      (unsigned)order)))
				list_add(&p->lru, &held);
		}
		drain_all_pages();
	}
}

static void target_on_a_full_node_costs_one_round(struct kunit *test)
{
	/* This CPU's node, or the nearest with memory when it has none. */
	int nid = numa_node_id();
	if (!node_data[nid]->managed_pages)
		nid = node_data[nid]->fallback[0];
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, give_back, NULL), 0);
	take_node(nid);
	KUNIT_ASSERT_EQ(test, register_shrinker(&round_counter), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_counter, &round_counter), 0);

	rounds = 0;
	struct page *p = alloc_migration_target(NULL, 0, 0, &nid);
	KUNIT_EXPECT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, rounds, 1ul);
	if (p)
		list_add(&p->lru, &held);

	/* A THP's target: no round at all. A costly __GFP_NORETRY request
	 * compacts first, and compaction is skipped on a node with too few
	 * free pages (compaction_suitable), after which Linux 6.1's slow
	 * path gives up without reclaim. */
	rounds = 0;
	p = alloc_migration_target(NULL, 0, HPAGE_PMD_ORDER, &nid);
	KUNIT_EXPECT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, rounds, 0ul);
	if (p)
		list_add(&p->lru, &held);

	/* The same request without __GFP_NORETRY: Linux 6.1's
	 * should_reclaim_retry gives up as soon as the node's free and
	 * reclaimable pages could not pass its min watermark (nothing is
	 * reclaimable here: no swap), and __GFP_THISNODE keeps the OOM
	 * killer out: one round too. */
	rounds = 0;
	p = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NOWARN, 0);
	KUNIT_EXPECT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, rounds, 1ul);
	kunit_info(test, "without __GFP_NORETRY: %lu rounds", rounds);
	if (p)
		list_add(&p->lru, &held);
}

static struct kunit_case migrate_cases[] = {
	KUNIT_CASE(target_on_a_full_node_costs_one_round),
	{},
};

static struct kunit_suite migrate_suite = { .name = "migrate", .test_cases = migrate_cases };
kunit_test_suite(migrate_suite);
