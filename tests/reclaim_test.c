/* Watermarks (Linux 6.1's __setup_per_zone_wmarks, mm/page_alloc_init.c)
 * and kswapd (mm/kswapd.c): the formula checked against each node's
 * managed pages; kswapd woken below low, reclaiming through the
 * shrinkers up to high and sleeping there, and giving a node up after
 * MAX_RECLAIM_RETRIES passes that reclaim nothing, rather than spin.
 *
 * kswapd runs on the boot CPU, as this runner does: the cases let it run
 * by yielding (cond_resched) and wait on its counters, never on time; a
 * wait gives up after a number of yields no working kswapd needs. */
#include "tests/kunit.h"
#include "tests/test_pages.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "mm/kswapd.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

#define MAX_YIELDS 1000000ul

/* held_release, then the per-CPU lists drained: the node's count shows
 * the pages. */
static void held_release_drained(void *arg)
{
	held_release(arg);
	drain_all_pages();
}

/* The node the runner's CPU allocates from. */
static int test_node(void)
{
	int nid = numa_node_id();
	return node_data[nid]->managed_pages ? nid : node_data[nid]->fallback[0];
}

static unsigned long int_sqrt_ul(unsigned long x)
{
	unsigned long r = 0;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

static void check_watermarks(struct kunit *test)
{
	unsigned long total = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (NODE_DATA(nid))
			total += NODE_DATA(nid)->managed_pages;
	unsigned long pages_min = (unsigned long)min_free_kbytes >> (PAGE_SHIFT - 10);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (!pgdat)
			continue;
		unsigned long managed = pgdat->managed_pages, min = pages_min * managed / total;
		unsigned long step = managed * (unsigned long)watermark_scale_factor / 10000;
		if (min / 4 > step)
			step = min / 4;
		KUNIT_EXPECT_EQ(test, pgdat->watermark[WMARK_MIN], min);
		KUNIT_EXPECT_EQ(test, pgdat->watermark[WMARK_LOW], min + step);
		KUNIT_EXPECT_EQ(test, pgdat->watermark[WMARK_HIGH], min + 2 * step);
	}
}

static int saved_min_free_kbytes, saved_scale;
static void restore_watermarks(void *unused)
{
	(void)unused;
	watermark_scale_factor_write(saved_scale);
	min_free_kbytes_write(saved_min_free_kbytes);
}

/* min_free_kbytes is 4 * sqrt(the managed KiB), clamped to [128, 262144]
 * (calculate_min_free_kbytes: nothing wrote it before this case); each
 * node's min its share by managed pages; low and high one and two steps
 * above, the step the larger of min / 4 and watermark_scale_factor
 * (10 by default) / 10000 of its managed pages. Writes recompute them. */
static void watermarks_follow_linux_6_1(struct kunit *test)
{
	unsigned long total = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (NODE_DATA(nid))
			total += NODE_DATA(nid)->managed_pages;
	/* Computed at boot from the pages managed then; pages given to the
	 * allocator since (the initramfs, boot memory) do not move it, as in
	 * Linux: it can only be below the figure for today's pages. */
	unsigned long now = int_sqrt_ul(total * (PAGE_SIZE / 1024) * 16);
	now = now < 128 ? 128 : now > 262144 ? 262144 : now;
	KUNIT_EXPECT_LE(test, (unsigned long)min_free_kbytes, now);
	KUNIT_EXPECT_GE(test, min_free_kbytes, 128);
	KUNIT_EXPECT_EQ(test, watermark_scale_factor, 10);
	saved_min_free_kbytes = min_free_kbytes;
	saved_scale = watermark_scale_factor;
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, restore_watermarks, NULL), 0);
	/* Written again (the same factor): computed from today's pages. */
	KUNIT_EXPECT_EQ(test, watermark_scale_factor_write(10), 0);
	check_watermarks(test);
	kunit_info(test, "min_free_kbytes %d over %lu managed pages", min_free_kbytes, total);

	KUNIT_EXPECT_EQ(test, watermark_scale_factor_write(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, watermark_scale_factor_write(3001), -EINVAL);
	KUNIT_EXPECT_EQ(test, min_free_kbytes_write(-1), -EINVAL);
	KUNIT_EXPECT_EQ(test, watermark_scale_factor, 10);
	KUNIT_EXPECT_EQ(test, watermark_scale_factor_write(1000), 0);
	check_watermarks(test);
	KUNIT_EXPECT_EQ(test, min_free_kbytes_write(2 * saved_min_free_kbytes), 0);
	KUNIT_EXPECT_EQ(test, min_free_kbytes, 2 * saved_min_free_kbytes);
	check_watermarks(test);
}

/* Yields until cond holds or MAX_YIELDS yields have passed. */
#define YIELD_UNTIL(cond)                                                   \
	({                                                                  \
		unsigned long __n = 0;                                      \
		while (!(cond) && __n++ < MAX_YIELDS)                       \
			cond_resched();                                     \
		(cond);                                                     \
	})

static bool kswapd_asleep_after(int nid, unsigned long sleeps)
{
	struct kswapd_stats st;
	kswapd_stats(nid, &st);
	return st.sleeps > sleeps;
}

/* With nothing to reclaim (no swap, no shrinker with objects), a node
 * taken below low wakes kswapd, which makes MAX_RECLAIM_RETRIES passes
 * without progress and sleeps, the node hopeless: a further wakeup does
 * not wake it. Frees that bring the node above high make it hopeful
 * again. */
/* The runner's node, its kswapd's counters in *before, held's pages
 * given back drained at the end; the node not hopeless to begin with. */
static bool kswapd_asleep(int nid)
{
	struct kswapd_stats st;
	kswapd_stats(nid, &st);
	return st.asleep;
}

static pg_data_t *kswapd_case_init(struct kunit *test, struct held *held, struct kswapd_stats *before)
{
	int nid = test_node();
	pg_data_t *pgdat = NODE_DATA(nid);
	kswapd_stats(nid, before);
	if (!before->running)
		kunit_skip(test, "no kswapd on node %d", nid);
	/* Asleep to begin with: a suite before this one (the OOM killer's)
	 * may leave it balancing a node its victims are still giving back,
	 * and a wakeup then finds it awake and counts nothing. */
	KUNIT_ASSERT_TRUE(test, YIELD_UNTIL(kswapd_asleep(nid)));
	/* It may have gone to sleep on a balanced node after a pass that
	 * freed nothing (kswapd_failures 1): a wakeup of a node above high
	 * makes it hopeful again (0), as after the frees that lifted it. */
	drain_all_pages();
	if (node_watermark_ok(pgdat, 0, pgdat->watermark[WMARK_HIGH]))
		wakeup_kswapd(pgdat, GFP_KERNEL, 0);
	kswapd_stats(nid, before);
	held_init(held);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, held_release_drained, held), 0);
	drain_all_pages();
	KUNIT_ASSERT_EQ(test, pgdat->kswapd_failures, 0);
	return pgdat;
}

static void kswapd_gives_up_without_reclaimable_pages(struct kunit *test)
{
	static struct held held;
	struct kswapd_stats before, after;
	pg_data_t *pgdat = kswapd_case_init(test, &held, &before);
	int nid = pgdat->node_id;
	/* GFP_NOWAIT: down to min, waking kswapd below low, never reclaiming
	 * itself. */
	exhaust_node(&held, nid, GFP_NOWAIT);
	KUNIT_EXPECT_FALSE(test, node_watermark_ok(pgdat, 0, pgdat->watermark[WMARK_LOW]));
	KUNIT_EXPECT_TRUE(test, YIELD_UNTIL(kswapd_asleep_after(nid, before.sleeps) &&
					    READ_ONCE(pgdat->kswapd_failures) >= MAX_RECLAIM_RETRIES));
	kswapd_stats(nid, &after);
	KUNIT_EXPECT_EQ(test, after.wakeups - before.wakeups, 1ul);
	KUNIT_EXPECT_EQ(test, after.runs - before.runs, (unsigned long)MAX_RECLAIM_RETRIES);
	KUNIT_EXPECT_EQ(test, after.failures, MAX_RECLAIM_RETRIES);
	/* Hopeless: another allocation below low leaves it asleep. */
	KUNIT_EXPECT_NULL(test, alloc_pages_node(nid, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN, 0));
	for (int i = 0; i < 100; i++)
		cond_resched();
	kswapd_stats(nid, &before);
	KUNIT_EXPECT_EQ(test, before.wakeups, after.wakeups);
	KUNIT_EXPECT_EQ(test, before.runs, after.runs);
	/* Frees take the node above high: hopeful again. */
	held_release_drained(&held);
	KUNIT_EXPECT_TRUE(test, node_watermark_ok(pgdat, 0, pgdat->watermark[WMARK_HIGH]));
	KUNIT_EXPECT_EQ(test, pgdat->kswapd_failures, 0);
}

/* A shrinker holding pages of the node, for kswapd only: kswapd, woken
 * below low, reclaims them and sleeps once the node is above high. */
static struct held stash;
static unsigned long stash_scans;

static unsigned long stash_count(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	return current_is_kswapd() ? stash.pages : 0;
}

static unsigned long stash_scan(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	unsigned long freed = stash.pages;
	stash_scans++;
	held_release_drained(&stash);
	return freed;
}

static struct shrinker stash_shrinker = { .count_objects = stash_count, .scan_objects = stash_scan };
static void unregister_stash(void *s) { unregister_shrinker(s); }

static void kswapd_reclaims_to_high_and_sleeps(struct kunit *test)
{
	static struct held held;
	struct kswapd_stats before, after;
	held_init(&stash);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, held_release_drained, &stash), 0);
	pg_data_t *pgdat = kswapd_case_init(test, &held, &before);
	int nid = pgdat->node_id;
	/* The stash: twice the high watermark, enough to take the node from
	 * min to above high. */
	unsigned long want = 2 * pgdat->watermark[WMARK_HIGH] + 2;
	while (stash.pages < want) {
		struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		list_add(&p->lru, &stash.list);
		stash.pages++;
	}
	stash_scans = 0;
	register_shrinker(&stash_shrinker);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_stash, &stash_shrinker), 0);
	exhaust_node(&held, nid, GFP_NOWAIT);
	KUNIT_EXPECT_TRUE(test, YIELD_UNTIL(kswapd_asleep_after(nid, before.sleeps)));
	kswapd_stats(nid, &after);
	KUNIT_EXPECT_GE(test, after.wakeups - before.wakeups, 1ul);
	KUNIT_EXPECT_EQ(test, stash_scans, 1ul);
	KUNIT_EXPECT_EQ(test, stash.pages, 0ul);
	KUNIT_EXPECT_EQ(test, after.failures, 0);
	drain_all_pages();
	KUNIT_EXPECT_TRUE(test, node_watermark_ok(pgdat, 0, pgdat->watermark[WMARK_HIGH]));
}

static struct kunit_case reclaim_cases[] = {
	KUNIT_CASE(watermarks_follow_linux_6_1),
	KUNIT_CASE(kswapd_gives_up_without_reclaimable_pages),
	KUNIT_CASE(kswapd_reclaims_to_high_and_sleeps),
	{},
};

static struct kunit_suite reclaim_suite = { .name = "reclaim", .test_cases = reclaim_cases };
kunit_test_suite(reclaim_suite);
