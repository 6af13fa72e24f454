/* The OOM killer (mm/oom_kill.c, mm/oom_reaper.c): user processes
 * (tests/user/aux/oom_hog.c) hold memory on a node with different
 * oom_score_adj, the test takes the rest of the node, and a last process
 * asks for more than is left. The one with the highest badness is killed
 * (oom_score_adj steers it past a larger one), its memory comes back, the
 * asking process gets what it asked for and exits 0, the report names the
 * victim, and the kernel carries on with every page back.
 *
 * Every wait is for an event (a process's RSS reaching what it touches, a
 * process's end); a bound on one is only a hang guard. */
#include "tests/kunit.h"
#include "tests/test_pages.h"
#include "fs/programs.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "mm/mm_types.h"
#include "mm/mmu_context.h"
#include "mm/oom.h"
#include "mm/page_alloc.h"
#include "mm/vmstat.h"

#define GUARD_TICKS 3000 /* 30 s of this CPU's ticks: only to turn a hang into a failure */
#define MIB_PAGES 256ul

struct hog {
	struct task_struct *p;
	struct mm_struct *mm; /* a reference while the case needs it, else NULL */
	int tgid;
};

/* Starts oom_hog (adj, mib, node: -1 for no binding) holding its memory,
 * and waits until it holds all of it. With keep_mm the case keeps a
 * reference on its mm (the victim's memory then outlives its exit, until
 * the reaper frees it). */
static void hog_start(struct kunit *test, struct hog *h, int adj, int mib, int node, bool keep_mm)
{
	char adj_arg[8], mib_arg[8], node_arg[8];
	snprintf(adj_arg, sizeof(adj_arg), "%d", adj);
	snprintf(mib_arg, sizeof(mib_arg), "%d", mib);
	snprintf(node_arg, sizeof(node_arg), "%d", node);
	const char *const argv[] = { "oom_hog", adj_arg, mib_arg, node_arg, "hold", NULL };
	struct process_spawn_args args = { .name = "oom_hog", .path = "/bin/oom_hog", .argv = argv,
					   .cpu = smp_processor_id(), .want_mm = true };
	int err = 0;
	h->p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, h->p);
	h->tgid = h->p->tgid;
	h->mm = process_started_mm(h->p);
	KUNIT_ASSERT_NOT_NULL(test, h->mm);
	unsigned long start = ticks_on_cpu(smp_processor_id());
	while (get_mm_counter(h->mm, MM_ANONPAGES) < (unsigned long)mib * MIB_PAGES && READ_ONCE(h->p->mm) &&
	       ticks_on_cpu(smp_processor_id()) - start < GUARD_TICKS)
		schedule_timeout_uninterruptible(1);
	KUNIT_ASSERT_GE(test, get_mm_counter(h->mm, MM_ANONPAGES), (unsigned long)mib * MIB_PAGES);
	if (!keep_mm) {
		mmput(h->mm);
		h->mm = NULL;
	}
}

/* Whether the hog is alive and not being killed. */
static bool hog_alive(struct hog *h)
{
	return READ_ONCE(h->p->mm) && !sigkill_pending(h->p);
}

/* Ends a hog (SIGKILL, as a kill(2) would send) and waits for it. */
static void hog_kill(struct hog *h, struct process_result *res)
{
	struct kernel_siginfo info = { .si_signo = SIGKILL, .si_code = SI_KERNEL };
	send_signal(SIGKILL, &info, h->p, true);
	process_wait(h->p, res);
}

/* Runs oom_hog asking for mib MiB (bound to node, -1: none) to the end. */
static bool trigger(int mib, int node, struct process_result *res)
{
	char mib_arg[8], node_arg[8];
	snprintf(mib_arg, sizeof(mib_arg), "%d", mib);
	snprintf(node_arg, sizeof(node_arg), "%d", node);
	const char *const argv[] = { "oom_hog", "0", mib_arg, node_arg, "exit", NULL };
	int err = 0;
	return process_run("oom_hog", argv, smp_processor_id(), res, &err);
}

/* A node with memory other than this CPU's (whose memory the processes'
 * kernel side uses), and a third one if there is (-1 if not). */
static int other_node(int except1, int except2)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (nid != except1 && nid != except2 && node_has_memory(nid))
			return nid;
	return -1;
}

/* Everything the node gives above its min watermark: the large blocks
 * first (fast), then page by page with direct reclaim's drain of every
 * CPU's lists (__GFP_NORETRY: never the OOM killer). */
static void fill_node(struct held *h, int nid)
{
	exhaust_node(h, nid, GFP_NOWAIT);
	nodemask_t only = nodemask_of_node(nid);
	struct page *p;
	while ((p = __alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY | __GFP_UNTOUCHED, 0, nid, &only)))
		held_add(h, p, 0);
}

static char captured[32768];

static void need_hog(struct kunit *test)
{
	if (!find_user_program("oom_hog"))
		kunit_skip(test, "the ISO has no program oom_hog");
	if (sysctl_panic_on_oom || sysctl_oom_kill_allocating_task)
		kunit_skip(test, "vm.panic_on_oom or vm.oom_kill_allocating_task is set");
}

/* The report's kill lines, for the log. */
static void show_kills(struct kunit *test)
{
	for (const char *l = strstr(captured, "Out of memory"); l; l = strstr(l + 1, "Out of memory")) {
		const char *e = strchr(l, '\n');
		kunit_info(test, "%.*s", e ? (int)(e - l) : 120, l);
	}
}

static void expect_killed_by_oom(struct kunit *test, struct hog *victim, const char *constraint)
{
	char line[80];
	show_kills(test);
	snprintf(line, sizeof(line), "Out of memory: Killed process %d (oom_hog) total-vm:", victim->tgid);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, line));
	snprintf(line, sizeof(line), "oom-kill:constraint=%s", constraint);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, line));
	snprintf(line, sizeof(line), "task=oom_hog,pid=%d,", victim->tgid);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, line));
}

/* With the node(s) held full but 4 MiB, runs a process asking for 8 MiB
 * more than is free (bound to node, -1: none) under a printk capture,
 * waits for the victim it should cost (16 MiB), and gives the held pages
 * back. (What is free is asked after the fill: a node whose fill leaves
 * more, as the reserved pools of some machines do, is asked for more.) */
static bool ask_past_the_full_node(struct held *held, int node, struct hog *victim, struct process_result *res,
				   struct process_result *victim_res)
{
	struct printk_capture cap;
	held_give_back(held, 4 * MIB_PAGES);
	drain_all_pages();
	/* What an allocation can still have: the free pages above each
	 * node's min watermark (on a large machine the mins alone are more
	 * than the victim's 16 MiB). */
	unsigned long free = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!node_has_memory(nid) || (node >= 0 && nid != node))
			continue;
		unsigned long f = node_free_pages(nid), min = NODE_DATA(nid)->watermark[WMARK_MIN];
		free += f > min ? f - min : 0;
	}
	printk_capture_begin(&cap, captured, sizeof(captured));
	bool ran = trigger((int)(free / MIB_PAGES) + 8, node, res);
	printk_capture_end(&cap);
	process_wait(victim->p, victim_res);
	held_release(held);
	return ran;
}

/* MPOL_BIND to one node, that node full: the victim is chosen among the
 * processes whose policy may use the node (the larger one at
 * oom_score_adj 0 stays, the smaller at 500 goes; one bound elsewhere at
 * 1000 is not eligible at all), and the report says so. */
static void bind_oom_kills_within_the_policy_nodes(struct kunit *test)
{
	need_hog(test);
	int here = numa_node_id();
	int full = other_node(here, -1), elsewhere = other_node(here, full);
	if (!node_has_memory(here) || full < 0)
		kunit_skip(test, "needs two nodes with memory");
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct hog big, steered, outside = { 0 };
	hog_start(test, &big, 0, 24, full, false);
	hog_start(test, &steered, 500, 16, full, false);
	if (elsewhere >= 0)
		hog_start(test, &outside, 1000, 4, elsewhere, false);
	unsigned long kills = oom_kills(), events = all_vm_events(OOM_KILL);
	static struct held held;
	held_init_released_at_end(test, &held);
	fill_node(&held, full);
	struct process_result res, victim_res, other_res;
	bool ran = ask_past_the_full_node(&held, full, &steered, &res, &victim_res);
	kunit_info(test, "node %d full; the asking process: %s", full,
		   ran ? (res.killed ? res.reason : res.last_line) : "did not start");
	KUNIT_EXPECT_TRUE(test, ran);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
	KUNIT_EXPECT_TRUE(test, victim_res.killed);
	KUNIT_EXPECT_EQ(test, victim_res.signal, SIGKILL);
	KUNIT_EXPECT_TRUE(test, hog_alive(&big));
	KUNIT_EXPECT_EQ(test, oom_kills() - kills, 1);
	KUNIT_EXPECT_EQ(test, all_vm_events(OOM_KILL) - events, 1);
	expect_killed_by_oom(test, &steered, "CONSTRAINT_MEMORY_POLICY");
	char mask[48];
	snprintf(mask, sizeof(mask), ",nodemask=%d,", full);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, mask));
	/* The report's header and its task list (the three eligible ones). */
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "invoked oom-killer: gfp_mask="));
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents "
							 "oom_score_adj name"));
	if (elsewhere >= 0) {
		KUNIT_EXPECT_TRUE(test, hog_alive(&outside));
		char row[32];
		snprintf(row, sizeof(row), "[%7d]", outside.tgid);
		KUNIT_EXPECT_NULL(test, strstr(captured, row));
		hog_kill(&outside, &other_res);
	}
	hog_kill(&big, &other_res);
	drain_all_pages();
	kunit_expect_resources_back(test, &before);
}

/* Every node full, no policy: the highest badness machine-wide goes. */
static void unconstrained_oom_kills_the_highest_badness(struct kunit *test)
{
	need_hog(test);
	int here = numa_node_id();
	if (!node_has_memory(here))
		kunit_skip(test, "this CPU's node %d has no memory", here);
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct hog big, steered;
	hog_start(test, &big, 0, 24, -1, false);
	hog_start(test, &steered, 500, 16, -1, false);
	unsigned long kills = oom_kills();
	static struct held held;
	held_init_released_at_end(test, &held);
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_has_memory(nid))
			fill_node(&held, nid);
	struct process_result res, victim_res, other_res;
	bool ran = ask_past_the_full_node(&held, -1, &steered, &res, &victim_res);
	KUNIT_EXPECT_TRUE(test, ran);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
	KUNIT_EXPECT_TRUE(test, victim_res.killed);
	KUNIT_EXPECT_EQ(test, victim_res.signal, SIGKILL);
	KUNIT_EXPECT_TRUE(test, hog_alive(&big));
	KUNIT_EXPECT_EQ(test, oom_kills() - kills, 1);
	expect_killed_by_oom(test, &steered, "CONSTRAINT_NONE");
	hog_kill(&big, &other_res);
	drain_all_pages();
	kunit_expect_resources_back(test, &before);
}

static void restore_oom_reaper_delay(void *delay)
{
	__atomic_store_n(&oom_reaper_delay, (unsigned long)delay, __ATOMIC_RELAXED);
}

/* A victim whose memory its exit cannot free (the case holds its mm, as
 * a task blocked in the kernel would): the oom_reaper frees its private
 * memory, sets MMF_OOM_SKIP and says so; meanwhile nobody else is killed,
 * and the asking process then gets its memory. The reaper's delay is a
 * tenth of a second here, not Linux's 2 s: the asking process retries
 * reclaim and the OOM killer all the while (as on Linux), and 2 s of that
 * on every machine of the matrix checked nothing more. */
static void reaper_frees_a_pinned_victim(struct kunit *test)
{
	need_hog(test);
	int here = numa_node_id();
	int full = other_node(here, -1);
	if (!node_has_memory(here) || full < 0)
		kunit_skip(test, "needs two nodes with memory");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_oom_reaper_delay, (void *)oom_reaper_delay), 0);
	oom_reaper_delay = HZ / 10;
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct hog victim;
	hog_start(test, &victim, 500, 16, full, true);
	unsigned long kills = oom_kills(), reaped = oom_reaped();
	static struct held held;
	held_init_released_at_end(test, &held);
	fill_node(&held, full);
	struct process_result res, victim_res;
	bool ran = ask_past_the_full_node(&held, full, &victim, &res, &victim_res);
	KUNIT_EXPECT_TRUE(test, ran);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
	KUNIT_EXPECT_TRUE(test, victim_res.killed);
	KUNIT_EXPECT_EQ(test, oom_kills() - kills, 1);
	KUNIT_EXPECT_EQ(test, oom_reaped() - reaped, 1);
	KUNIT_EXPECT_TRUE(test, mm_flag_test(victim.mm, MMF_OOM_SKIP));
	KUNIT_EXPECT_EQ(test, get_mm_counter(victim.mm, MM_ANONPAGES), 0);
	char line[96];
	snprintf(line, sizeof(line), "oom_reaper: reaped process %d (oom_hog), now anon-rss:0kB", victim.tgid);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, line));
	mmput(victim.mm);
	drain_all_pages();
	kunit_expect_resources_back(test, &before);
}

/* Nothing killable (the case's own kernel thread asks): the allocation
 * fails, and the kernel says so, where Linux would panic. */
static void nothing_killable_fails_the_allocation(struct kunit *test)
{
	int here = numa_node_id();
	if (!node_has_memory(here))
		kunit_skip(test, "this CPU's node %d has no memory", here);
	struct kunit_resources before;
	kunit_resources_take(&before);
	static struct held held;
	held_init_released_at_end(test, &held);
	fill_node(&held, here);
	nodemask_t only = nodemask_of_node(here);
	unsigned long kills = oom_kills();
	struct page *p = __alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0, here, &only);
	KUNIT_EXPECT_NULL(test, p);
	if (p)
		__free_page(p);
	KUNIT_EXPECT_EQ(test, oom_kills(), kills);
	held_release(&held);
	drain_all_pages();
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case oom_cases[] = {
	KUNIT_CASE(bind_oom_kills_within_the_policy_nodes),
	KUNIT_CASE(unconstrained_oom_kills_the_highest_badness),
	KUNIT_CASE(reaper_frees_a_pinned_victim),
	KUNIT_CASE(nothing_killable_fails_the_allocation),
	{},
};

static struct kunit_suite oom_suite = { .name = "oom", .test_cases = oom_cases };
kunit_test_suite(oom_suite);
