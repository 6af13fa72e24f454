/* The page allocator among CPUs and tasks: a per-CPU list is touched by its
 * own CPU only (drain_all_pages asks every CPU by IPI, so a list is never
 * drained under its owner while the owner has interrupts off), the shrinker
 * list stays locked while shrink_slab walks it, the NUMA counters lose no
 * count when CPUs allocate at once, and a __GFP_NOFAIL request
 * waiting for memory lets the other tasks of its CPU run (and free).
 *
 * Waits are bounded as hang guards, or as the window in which a broken rule
 * would show (WINDOW_NS): the fixed code's outcome never depends on them. A
 * hang guard (kunit_wait_while_progressing) runs out only after
 * KUNIT_HANG_GUARD_NS without progress (a step, or a count the awaited work
 * moves): a loaded host makes the work slow, never stand still. Every case gives back what it took (free_pages_restored
 * checks). */
#include "arch/x86_64/cpu.h"
#include "kernel/sched_mm.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_pages.h"

#define WINDOW_NS 200000000ull       /* 200 ms for a broken rule to show */


static bool wait_for_step(volatile unsigned long *step, unsigned long target)
{
	return kunit_wait_while_progressing(step, target, NULL);
}

static void set_step(volatile unsigned long *step, unsigned long v) { __atomic_store_n(step, v, __ATOMIC_RELEASE); }

static bool node_has_managed_pages(int nid) { return node_data[nid] && node_data[nid]->managed_pages; }

/* ---- per-CPU lists ------------------------------------------------------- */

struct list_owner {
	int nid;
	volatile unsigned long step; /* 1: list filled, interrupts off; 2: drain called; 3: done */
	int count_before, count_during;
};

/* On the owning CPU: fills its list for nid, then holds interrupts off (as
 * the allocator does while it works on the list) and watches the list. */
static int hold_own_list(void *data)
{
	struct list_owner *o = data;
	struct per_cpu_pages *pcp = &node_data[o->nid]->pcp[smp_processor_id()];
	struct page *pages[32];
	unsigned long flags;

	for (int i = 0; i < 32; i++)
		pages[i] = alloc_pages_node(o->nid, GFP_KERNEL | __GFP_THISNODE, 0);
	for (int i = 0; i < 32; i++)
		if (pages[i])
			__free_pages(pages[i], 0); /* onto this CPU's list */
	local_irq_save(flags);
	o->count_before = __atomic_load_n(&pcp->count, __ATOMIC_RELAXED);
	set_step(&o->step, 1);
	wait_for_step(&o->step, 2);
	u64 end = ktime_get_ns() + WINDOW_NS;
	while (ktime_get_ns() < end && __atomic_load_n(&pcp->count, __ATOMIC_RELAXED) == o->count_before)
		cpu_relax();
	o->count_during = __atomic_load_n(&pcp->count, __ATOMIC_RELAXED);
	local_irq_restore(flags); /* the drain's IPI is taken here */
	set_step(&o->step, 3);
	return 0;
}

static void drain_leaves_a_list_alone_while_its_cpu_has_interrupts_off(struct kunit *test)
{
	unsigned cpu = test_other_cpu();
	if (cpu == NR_CPUS)
		kunit_skip(test, "needs a second CPU");
	int nid = cpu_to_node(cpu);
	if (nid < 0 || !node_has_managed_pages(nid))
		nid = node_data[numa_node_id()]->fallback[0];
	struct list_owner o = { .nid = nid };
	struct task_struct *t = kthread_run_on_cpu(hold_own_list, &o, cpu, "pcp_owner/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_TRUE(test, wait_for_step(&o.step, 1));
	set_step(&o.step, 2);
	drain_all_pages(); /* returns once every CPU has drained its own lists */
	KUNIT_EXPECT_EQ(test, node_data[nid]->pcp[cpu].count, 0);
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	KUNIT_EXPECT_GT(test, o.count_before, 0);
	/* Not a page moved while its owner had interrupts off. */
	KUNIT_EXPECT_EQ(test, o.count_during, o.count_before);
}

/* ---- NUMA counters ------------------------------------------------------- */

#define COUNTING_ROUNDS 100000

struct counting {
	int nid;
	volatile unsigned long step; /* 1: the partner is ready; 2: go; 3: the partner is done */
	unsigned long failed;
	volatile unsigned long rounds; /* the partner's, as it goes */
};

static unsigned long count_allocations(int nid, volatile unsigned long *rounds)
{
	unsigned long failed = 0;
	for (int i = 0; i < COUNTING_ROUNDS; i++) {
		if (rounds)
			__atomic_store_n(rounds, (unsigned long)i, __ATOMIC_RELAXED);
		struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_NOWARN | __GFP_UNTOUCHED, 0);
		if (!p) {
			failed++;
			continue;
		}
		__free_pages(p, 0);
	}
	return failed;
}

static int count_on_partner(void *data)
{
	struct counting *c = data;
	set_step(&c->step, 1);
	wait_for_step(&c->step, 2);
	c->failed = count_allocations(c->nid, &c->rounds);
	set_step(&c->step, 3);
	return 0;
}

/* Two CPUs allocate from the same node at once: every allocation is
 * counted, once. With one counter shared by the CPUs and no atomics, the
 * two read-modify-writes overlap and counts are lost (on the default
 * machine under TCG, about 10,000 of the 200,000 hits when tried). */
static void numa_counters_lose_nothing_across_cpus(struct kunit *test)
{
	unsigned cpu = test_other_cpu();
	if (cpu == NR_CPUS)
		kunit_skip(test, "needs a second CPU");
	int nid = node_data[numa_node_id()]->fallback[0];
	KUNIT_ASSERT_TRUE(test, node_has_managed_pages(nid));
	unsigned long before[NR_NUMA_STAT_ITEMS];
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
		before[i] = node_numa_event_state(nid, (enum numa_stat_item)i);

	struct counting c = { .nid = nid };
	struct task_struct *t = kthread_run_on_cpu(count_on_partner, &c, cpu, "numa_count/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_TRUE(test, wait_for_step(&c.step, 1));
	set_step(&c.step, 2);
	unsigned long failed = count_allocations(nid, NULL);
	/* 100,000 rounds take seconds under TCG, many more on a loaded host. */
	KUNIT_EXPECT_TRUE(test, kunit_wait_while_progressing(&c.step, 3, &c.rounds));
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	KUNIT_EXPECT_EQ(test, failed + c.failed, 0);

	unsigned long d[NR_NUMA_STAT_ITEMS];
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
		d[i] = node_numa_event_state(nid, (enum numa_stat_item)i) - before[i];
	/* Other allocations may have run meanwhile (more, never fewer), but
	 * every allocation on the node is a hit or a miss, and local or
	 * other. */
	KUNIT_EXPECT_GE(test, d[NUMA_HIT], 2ul * COUNTING_ROUNDS);
	KUNIT_EXPECT_EQ(test, d[NUMA_HIT] + d[NUMA_MISS], d[NUMA_LOCAL] + d[NUMA_OTHER]);
	/* The sum is over every CPU's own counters. */
	unsigned long mine = node_data[nid]->per_cpu_nodestats[smp_processor_id()].numa_events[NUMA_HIT];
	KUNIT_EXPECT_GE(test, mine, (unsigned long)COUNTING_ROUNDS);
	KUNIT_EXPECT_GE(test, node_data[nid]->per_cpu_nodestats[cpu].numa_events[NUMA_HIT],
			(unsigned long)COUNTING_ROUNDS);
}

/* ---- shrinkers ----------------------------------------------------------- */

struct unregisterer {
	struct shrinker *victim;
	volatile unsigned long step; /* 1: go; 2: calling unregister_shrinker; 3: it returned */
	unsigned long step_seen_in_walk;
};
static struct unregisterer partner;

/* A registered shrinker is unregistered however the case ends: one left on
 * the list would be called by the next reclaim, from a dead case. Shrinkers
 * given to it are static, since the case's stack is gone when it runs. */
static void unregister_shrinker_action(void *s) { unregister_shrinker(s); }

static int unregister_when_told(void *data)
{
	struct unregisterer *u = data;
	wait_for_step(&u->step, 1);
	set_step(&u->step, 2);
	unregister_shrinker(u->victim);
	set_step(&u->step, 3);
	return 0;
}

static unsigned long one_object(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	/* The case counts direct reclaim's calls: kswapd's are not its. */
	if (current_is_kswapd())
		return 0;
	return 1;
}

static unsigned long no_objects(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 0;
}

/* During the walk: lets the other CPU unregister a shrinker, and looks
 * whether it got through while the walk is still going. */
static unsigned long scan_while_partner_unregisters(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	set_step(&partner.step, 1);
	wait_for_step(&partner.step, 2);
	u64 end = ktime_get_ns() + WINDOW_NS;
	while (ktime_get_ns() < end && __atomic_load_n(&partner.step, __ATOMIC_ACQUIRE) < 3)
		cpu_relax();
	partner.step_seen_in_walk = __atomic_load_n(&partner.step, __ATOMIC_ACQUIRE);
	return 0;
}

static void shrinker_list_is_locked_during_the_walk(struct kunit *test)
{
	unsigned cpu = test_other_cpu();
	if (cpu == NR_CPUS)
		kunit_skip(test, "needs a second CPU");
	static struct shrinker walker = { .count_objects = one_object,
					  .scan_objects = scan_while_partner_unregisters };
	static struct shrinker victim = { .count_objects = no_objects, .scan_objects = no_objects };
	register_shrinker(&walker);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_shrinker_action, &walker), 0);
	register_shrinker(&victim); /* after walker in the list */
	partner = (struct unregisterer){ .victim = &victim };
	struct task_struct *t = kthread_run_on_cpu(unregister_when_told, &partner, cpu, "unregister/%u");
	if (!t) /* the partner would have unregistered it */
		unregister_shrinker(&victim);
	KUNIT_ASSERT_NOT_NULL(test, t);
	shrink_slab(GFP_KERNEL, numa_node_id());
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	kunit_release_action(test, unregister_shrinker_action, &walker);
	KUNIT_EXPECT_EQ(test, partner.step, 3);
	/* The other CPU waited for the walk to end. */
	KUNIT_EXPECT_EQ(test, partner.step_seen_in_walk, 2);
}

/* ---- __GFP_NOFAIL ---------------------------------------------------------- */

static struct held nofail_held;

static volatile int freer_ran;
static unsigned long nofail_scans;
static bool nofail_escaped;

/* Another task on the allocating CPU: gives the memory back when it runs. */
static int free_the_held_pages(void *data)
{
	(void)data;
	held_release(&nofail_held);
	freer_ran = 1;
	return 0;
}

/* The way out of a retry loop that never lets the freer run: after 200
 * rounds of reclaim the memory comes back anyway, and the case fails. */
static unsigned long escape_scan(struct shrinker *s, struct shrink_control *sc)
{
	(void)s;
	(void)sc;
	if (++nofail_scans == 200 && !list_empty(&nofail_held.list)) {
		held_release(&nofail_held);
		nofail_escaped = true;
	}
	return 0;
}

static void nofail_lets_other_tasks_free_memory(struct kunit *test)
{
	/* The CPU's own node, or its nearest with memory when it has none. */
	int nid = numa_node_id();
	if (!node_has_managed_pages(nid))
		nid = node_data[nid]->fallback[0];
	pg_data_t *pgdat = node_data[nid];
	held_init_released_at_end(test, &nofail_held);
	freer_ran = 0;
	nofail_scans = 0;
	nofail_escaped = false;
	struct task_struct *freer = kthread_create_on_cpu(free_the_held_pages, NULL, smp_processor_id(), "freer/%u");
	KUNIT_ASSERT_NOT_NULL(test, freer);

	/* The node goes down to its min watermark in blocks of every order
	 * (GFP_NOWAIT), then to 3/8 of it in single pages (GFP_ATOMIC): below
	 * the half of the reserve __GFP_NOFAIL may use. Not with high-order
	 * atomic requests, whose success sets the block aside as a highatomic
	 * reserve that order-0 requests cannot take; nor with such a reserve
	 * left by an earlier suite. Again after each drain, while it gives
	 * something back: pages other CPUs freed meanwhile sat on their
	 * per-CPU lists, out of reach until then. */
	unsigned long held_before;
	int passes = 0;
	do {
		held_before = nofail_held.pages;
		drop_highatomic_reserve(nid);
		drain_all_pages();
		exhaust_node(&nofail_held, nid, GFP_NOWAIT);
		struct page *single;
		while ((single = alloc_pages_node(nid, GFP_ATOMIC | __GFP_THISNODE | __GFP_NOWARN | __GFP_UNTOUCHED,
						   0)))
			held_add(&nofail_held, single, 0);
		drain_all_pages();
	} while (nofail_held.pages > held_before && pgdat->nr_free > pgdat->watermark[WMARK_MIN] / 2 &&
		 ++passes < 10);
	KUNIT_EXPECT_LE(test, pgdat->nr_free, pgdat->watermark[WMARK_MIN] / 2);

	static struct shrinker s = { .count_objects = one_object, .scan_objects = escape_scan };
	register_shrinker(&s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_shrinker_action, &s), 0);
	wake_up_process(freer); /* runnable here; runs when this task yields */
	struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_NOFAIL | __GFP_THISNODE, 0);
	kunit_release_action(test, unregister_shrinker_action, &s);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, freer_ran); /* it ran while the request waited */
	KUNIT_EXPECT_FALSE(test, nofail_escaped);
	kunit_info(test, "reclaim ran %lu time(s) before the request was served", nofail_scans);
	KUNIT_EXPECT_EQ(test, kthread_join(freer), 0);
	if (p)
		__free_pages(p, 0);
}

static struct kunit_case page_alloc_smp_cases[] = {
	KUNIT_CASE(drain_leaves_a_list_alone_while_its_cpu_has_interrupts_off),
	KUNIT_CASE(numa_counters_lose_nothing_across_cpus),
	KUNIT_CASE(shrinker_list_is_locked_during_the_walk),
	KUNIT_CASE(nofail_lets_other_tasks_free_memory),
	{}
};
static struct kunit_suite page_alloc_smp_suite = { .name = "page_alloc_smp", .test_cases = page_alloc_smp_cases };
kunit_test_suite(page_alloc_smp_suite);
