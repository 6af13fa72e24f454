/* Pressure stall information (kernel/psi.c, kernel/psi_proc.c):
 *   - the averages' fixed-point arithmetic against values worked out by
 *     hand from Linux 6.1's calc_avgs/calc_load/fixed_power_int;
 *   - the per-CPU state machine and its aggregation on a group of the
 *     test's own, driven by a clock of the test's own, so every state
 *     time, total and average is an exact number;
 *   - psi_memstall_enter/leave nesting and the counts of the running CPU
 *     in the system group (a stalled sleeper, an I/O waiter, a queued
 *     task), each back where it started, and following a task that
 *     moves to another CPU;
 *   - /proc/pressure/'s format and memory's total growing across a stall.
 * The triggers are tests/psi_trigger_test.c's.
 * Nothing waits for a time to pass but the last case, which waits for
 * ticks to pass while stalled: an outcome, not a figure, is asserted. */
#include "arch/x86_64/cpu.h"
#include "fs/poll.h"
#include "fs/proc/proc_fs.h"
#include "kernel/psi.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "lib/seq_buf.h"
#include "lib/string.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "tests/kunit.h"

#define STATE(s) (1u << (s))

/* 1/exp(2s/10s), 1/exp(2s/60s), 1/exp(2s/300s) in 11-bit fixed point. */
static const unsigned long exps[3] = { EXP_10s, EXP_60s, EXP_300s };

static void calc_avgs_follow_linux_formula(struct kunit *test)
{
	/* fixed_power_int(1677, 11, 3): result = (2048 * 1677 + 1024) >> 11
	 * = 1677; x = (1677^2 + 1024) >> 11 = 1373; result = (1677 * 1373 +
	 * 1024) >> 11 = 1124. The same steps give 1853 and 2006. */
	static const unsigned long cubed[3] = { 1124, 1853, 2006 };
	for (int i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, fixed_power_int(exps[i], FSHIFT, 3), cubed[i]);
	KUNIT_EXPECT_EQ(test, fixed_power_int(EXP_10s, FSHIFT, 0), FIXED_1);

	u64 period = psi_period_ns();
	/* A full period stalled: pct = 100 * 2048 = 204800, and from 0
	 * calc_load gives (204800 * (2048 - exp) + 2047) / 2048: 37100 for
	 * 1677 (18.11%), 6700 for 1981 (3.27%), 1400 for 2034 (0.68%). */
	unsigned long avg[3] = { 0, 0, 0 };
	psi_calc_avgs(avg, 0, period, period);
	KUNIT_EXPECT_EQ(test, avg[0], 37100ul);
	KUNIT_EXPECT_EQ(test, avg[1], 6700ul);
	KUNIT_EXPECT_EQ(test, avg[2], 1400ul);
	/* Half of it: pct 50: 18550, 3350, 700 (9.05%, 1.63%, 0.34%). */
	unsigned long half[3] = { 0, 0, 0 };
	psi_calc_avgs(half, 0, period / 2, period);
	KUNIT_EXPECT_EQ(test, half[0], 18550ul);
	KUNIT_EXPECT_EQ(test, half[1], 3350ul);
	KUNIT_EXPECT_EQ(test, half[2], 700ul);
	/* Then three periods missed (calc_load_n toward 0 with exp cubed,
	 * 18550 * 1124 / 2048 = 10180) and an idle one (10180 * 1677 / 2048
	 * = 8335); likewise 2931 and 680. */
	psi_calc_avgs(half, 3, 0, period);
	KUNIT_EXPECT_EQ(test, half[0], 8335ul);
	KUNIT_EXPECT_EQ(test, half[1], 2931ul);
	KUNIT_EXPECT_EQ(test, half[2], 680ul);
	/* A sample longer than the period never reads above 100%: the
	 * aggregator clamps it (update_averages), calc_avgs takes it as is. */
	unsigned long full[3] = { 0, 0, 0 };
	for (int i = 0; i < 200; i++)
		psi_calc_avgs(full, 0, period, period);
	KUNIT_EXPECT_EQ(test, LOAD_INT(full[0]), 100ul); /* rounding up reaches the steady value */
}

/* The test groups' clock. */
static u64 fake_now;
static u64 fake_clock(void) { return READ_ONCE(fake_now); }

static void free_group(void *g) { kfree(g); }

static struct psi_group *test_group(struct kunit *test)
{
	struct psi_group *g = kzalloc(sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_group, g), 0);
	fake_now = 1000;
	psi_group_init(g, fake_clock);
	return g;
}

static void change_at(struct psi_group *g, unsigned int cpu, unsigned int clear, unsigned int set, u64 t)
{
	fake_now = t;
	psi_group_change(g, cpu, clear, set, t, false);
}

static void state_machine_and_averages(struct kunit *test)
{
	struct psi_group *g = test_group(test);
	u64 p = psi_period_ns(), t0 = fake_now;
	struct psi_group_cpu *c = &g->pcpu[0];

	/* One task runs: non-idle, on the CPU, nothing stalls. */
	change_at(g, 0, 0, TSK_RUNNING | TSK_ONCPU, t0);
	KUNIT_EXPECT_EQ(test, c->state_mask, PSI_ONCPU | STATE(PSI_NONIDLE));
	/* Halfway, it reclaims: its memory stall is SOME and, with nobody
	 * else productive (running == memstall_running), FULL. */
	change_at(g, 0, 0, TSK_MEMSTALL | TSK_MEMSTALL_RUNNING, t0 + p / 2);
	KUNIT_EXPECT_EQ(test, c->state_mask,
			PSI_ONCPU | STATE(PSI_NONIDLE) | STATE(PSI_MEM_SOME) | STATE(PSI_MEM_FULL));
	KUNIT_EXPECT_EQ(test, c->tasks[NR_MEMSTALL], 1u);

	/* At the end of the period: half of it stalled, on the only CPU with
	 * non-idle time (201 jiffies, the weight): totals of exactly p / 2. */
	fake_now = t0 + p;
	u32 changed;
	psi_collect_percpu_times(g, PSI_AVGS, &changed);
	KUNIT_EXPECT_EQ(test, g->total[PSI_AVGS][PSI_MEM_SOME], p / 2);
	KUNIT_EXPECT_EQ(test, g->total[PSI_AVGS][PSI_MEM_FULL], p / 2);
	KUNIT_EXPECT_EQ(test, g->total[PSI_AVGS][PSI_CPU_SOME], 0ull);
	KUNIT_EXPECT_EQ(test, g->total[PSI_AVGS][PSI_IO_SOME], 0ull);
	KUNIT_EXPECT_EQ(test, changed, STATE(PSI_NONIDLE) | STATE(PSI_MEM_SOME) | STATE(PSI_MEM_FULL));
	/* The averages: a sample of 50% over the period (values above). */
	g->avg_next_update = psi_update_averages(g, fake_now);
	KUNIT_EXPECT_EQ(test, g->avg_next_update, t0 + 2 * p);
	KUNIT_EXPECT_EQ(test, g->avg[PSI_MEM_SOME][0], 18550ul);
	KUNIT_EXPECT_EQ(test, g->avg[PSI_MEM_FULL][2], 700ul);
	KUNIT_EXPECT_EQ(test, g->avg[PSI_CPU_SOME][0], 0ul);

	/* Linux's format: two digits, total in microseconds. */
	char *buf = kmalloc(512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0, 512);
	struct seq_buf m = { .buffer = buf, .size = 511 };
	psi_show(&m, g, PSI_MEM);
	KUNIT_EXPECT_STREQ(test, buf,
			   "some avg10=9.05 avg60=1.63 avg300=0.34 total=1005000\n"
			   "full avg10=9.05 avg60=1.63 avg300=0.34 total=1005000\n");
	kfree(buf);

	/* A second task becomes runnable: it waits for the CPU (CPU SOME).
	 * Now the reclaimer's stall is only SOME: the other could work. */
	change_at(g, 0, 0, TSK_RUNNING, t0 + p + 1000);
	KUNIT_EXPECT_EQ(test, c->state_mask,
			PSI_ONCPU | STATE(PSI_NONIDLE) | STATE(PSI_MEM_SOME) | STATE(PSI_CPU_SOME));
	/* The reclaimer sleeps in an I/O wait (off the CPU, still stalled),
	 * the other runs: I/O and memory SOME, not FULL. */
	change_at(g, 0, TSK_RUNNING | TSK_MEMSTALL_RUNNING, TSK_IOWAIT, t0 + p + 3000);
	KUNIT_EXPECT_EQ(test, c->state_mask,
			PSI_ONCPU | STATE(PSI_NONIDLE) | STATE(PSI_MEM_SOME) | STATE(PSI_IO_SOME));
	/* The other one sleeps too, and the CPU idles: both FULL. */
	change_at(g, 0, TSK_RUNNING | TSK_ONCPU, 0, t0 + p + 7000);
	KUNIT_EXPECT_EQ(test, c->state_mask,
			STATE(PSI_NONIDLE) | STATE(PSI_MEM_SOME) | STATE(PSI_MEM_FULL) | STATE(PSI_IO_SOME) |
				STATE(PSI_IO_FULL));
	/* The wait ends, the stall ends: idle. */
	change_at(g, 0, TSK_IOWAIT | TSK_MEMSTALL, 0, t0 + p + 15000);
	KUNIT_EXPECT_EQ(test, c->state_mask, 0u);
	for (int t = 0; t < NR_PSI_TASK_COUNTS; t++)
		KUNIT_EXPECT_EQ(test, c->tasks[t], 0u);
	/* The buckets, in ns: CPU SOME 2000 (1000..3000), I/O SOME 12000
	 * (3000..15000) of which FULL 8000, memory SOME p / 2 + 15000 of which
	 * FULL p / 2 + 9000 (up to 1000, then 7000..15000). */
	KUNIT_EXPECT_EQ(test, c->times[PSI_CPU_SOME], 2000u);
	KUNIT_EXPECT_EQ(test, c->times[PSI_IO_SOME], 12000u);
	KUNIT_EXPECT_EQ(test, c->times[PSI_IO_FULL], 8000u);
	KUNIT_EXPECT_EQ(test, c->times[PSI_MEM_SOME], (u32)(p / 2 + 15000));
	KUNIT_EXPECT_EQ(test, c->times[PSI_MEM_FULL], (u32)(p / 2 + 9000));

	/* Four periods later with nothing since: three missed, one sampled
	 * (whose deltas of 15 us weigh 0 jiffies of non-idle time: nothing). */
	fake_now = t0 + 5 * p;
	psi_collect_percpu_times(g, PSI_AVGS, &changed);
	u64 next = psi_update_averages(g, fake_now);
	KUNIT_EXPECT_EQ(test, next, t0 + 6 * p);
	KUNIT_EXPECT_EQ(test, g->avg[PSI_MEM_SOME][0], 8335ul);
	KUNIT_EXPECT_EQ(test, g->avg[PSI_MEM_SOME][1], 2931ul);
	KUNIT_EXPECT_FALSE(test, psi_bug_seen());
}

/* Two CPUs' buckets: each weighs by its non-idle time. */
static void cpus_weigh_by_nonidle_time(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "one CPU: nothing to weigh");
	struct psi_group *g = test_group(test);
	u64 p = psi_period_ns(), t0 = fake_now;
	/* CPU 0 stalled the whole period, CPU 1 busy without a stall: half
	 * the potential was lost. */
	change_at(g, 0, 0, TSK_RUNNING | TSK_ONCPU | TSK_MEMSTALL | TSK_MEMSTALL_RUNNING, t0);
	change_at(g, 1, 0, TSK_RUNNING | TSK_ONCPU, t0);
	fake_now = t0 + p;
	psi_collect_percpu_times(g, PSI_AVGS, NULL);
	KUNIT_EXPECT_EQ(test, g->total[PSI_AVGS][PSI_MEM_SOME], p / 2);
	/* CPU 1 idle for the next period: CPU 0's stall is all there is. */
	change_at(g, 1, TSK_RUNNING | TSK_ONCPU, 0, t0 + p);
	fake_now = t0 + 2 * p;
	psi_collect_percpu_times(g, PSI_AVGS, NULL);
	KUNIT_EXPECT_EQ(test, g->total[PSI_AVGS][PSI_MEM_SOME], p / 2 + p);
	change_at(g, 0, TSK_RUNNING | TSK_ONCPU | TSK_MEMSTALL | TSK_MEMSTALL_RUNNING, 0, t0 + 2 * p);
	KUNIT_EXPECT_FALSE(test, psi_bug_seen());
}

/* This CPU's counts in the system group, read under its run-queue lock
 * (a wakeup from an interrupt changes them under the same lock); *load
 * gets the run queue's own count of runnable tasks at that moment, which
 * NR_RUNNING must equal. */
static void this_cpu_counts_load(unsigned int tasks[NR_PSI_TASK_COUNTS], u32 *mask, unsigned int *load)
{
	unsigned long flags;
	rq_lock_this_cpu(&flags);
	unsigned int cpu = smp_processor_id();
	struct psi_group_cpu *c = &psi_system.pcpu[cpu];
	memcpy(tasks, c->tasks, sizeof(c->tasks));
	*mask = c->state_mask;
	*load = cpu_load(cpu);
	rq_unlock_this_cpu(flags);
}

static void this_cpu_counts(unsigned int tasks[NR_PSI_TASK_COUNTS], u32 *mask)
{
	unsigned int load;
	this_cpu_counts_load(tasks, mask, &load);
}

static void memstall_sections_nest(struct kunit *test)
{
	if (!psi_enable)
		kunit_skip(test, "booted with psi=0");
	unsigned int base[NR_PSI_TASK_COUNTS], now[NR_PSI_TASK_COUNTS];
	u32 mask;
	unsigned long outer = 7, inner = 7;
	this_cpu_counts(base, &mask);
	KUNIT_EXPECT_TRUE(test, mask & PSI_ONCPU);
	KUNIT_EXPECT_TRUE(test, current->psi_flags & TSK_RUNNING);

	psi_memstall_enter(&outer);
	KUNIT_EXPECT_EQ(test, outer, 0ul);
	KUNIT_EXPECT_TRUE(test, current->in_memstall);
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL] + 1);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL_RUNNING], base[NR_MEMSTALL_RUNNING] + 1);
	/* The CPU's current task reclaims: FULL whatever else is runnable. */
	KUNIT_EXPECT_TRUE(test, mask & STATE(PSI_MEM_SOME));
	KUNIT_EXPECT_TRUE(test, mask & STATE(PSI_MEM_FULL));

	psi_memstall_enter(&inner); /* nested: counted once */
	KUNIT_EXPECT_EQ(test, inner, 1ul);
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL] + 1);
	psi_memstall_leave(&inner);
	KUNIT_EXPECT_TRUE(test, current->in_memstall);
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL] + 1);

	psi_memstall_leave(&outer);
	KUNIT_EXPECT_FALSE(test, current->in_memstall);
	KUNIT_EXPECT_EQ(test, current->psi_flags, (unsigned int)(TSK_RUNNING | TSK_ONCPU));
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL]);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL_RUNNING], base[NR_MEMSTALL_RUNNING]);
	KUNIT_EXPECT_FALSE(test, psi_bug_seen());
}

struct sleeper {
	wait_queue_head_t wq;
	bool go;
	struct completion io;
	bool memstall; /* stall on memory while asleep, else wait for "I/O" */
};

static int sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	if (s->memstall) {
		unsigned long pflags;
		psi_memstall_enter(&pflags);
		wait_event(s->wq, READ_ONCE(s->go));
		psi_memstall_leave(&pflags);
	} else {
		wait_for_completion_io(&s->io);
	}
	return 0;
}

static int quick_fn(void *arg)
{
	(void)arg;
	return 0;
}

/* Until t sleeps (it runs on this CPU: the yield lets it). */
static void until_asleep(struct task_struct *t)
{
	while (READ_ONCE(t->on_rq) || READ_ONCE(t->__state) == TASK_RUNNING)
		schedule();
}

static void counts_follow_sleepers_and_runners(struct kunit *test)
{
	if (!psi_enable)
		kunit_skip(test, "booted with psi=0");
	unsigned int cpu = smp_processor_id();
	unsigned int base[NR_PSI_TASK_COUNTS], now[NR_PSI_TASK_COUNTS];
	u32 mask;
	struct sleeper a = { .memstall = true }, b = { .memstall = false };
	init_waitqueue_head(&a.wq);
	init_completion(&b.io);

	unsigned int load;
	/* The other tasks of this CPU that were runnable had their turn. */
	while (cpu_load(cpu) > 1)
		schedule();
	this_cpu_counts_load(base, &mask, &load);
	KUNIT_EXPECT_EQ(test, base[NR_RUNNING], load);
	struct task_struct *ta = kthread_create_on_cpu(sleeper_fn, &a, cpu, "psi_stall/%u");
	struct task_struct *tb = kthread_create_on_cpu(sleeper_fn, &b, cpu, "psi_iowait/%u");
	KUNIT_ASSERT_NOT_NULL(test, ta);
	KUNIT_ASSERT_NOT_NULL(test, tb);
	wake_up_process(ta);
	wake_up_process(tb);
	/* Queued behind this task: two more runnable, waiting for the CPU. */
	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	KUNIT_EXPECT_GE(test, now[NR_RUNNING], 3u);
	KUNIT_EXPECT_EQ(test, ta->psi_flags, (unsigned int)TSK_RUNNING);
	KUNIT_EXPECT_TRUE(test, mask & STATE(PSI_CPU_SOME));
	until_asleep(ta);
	until_asleep(tb);

	/* Asleep: one stalled on memory (not running), one in an I/O wait;
	 * this task still runs, so neither stall is FULL. */
	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL] + 1);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL_RUNNING], base[NR_MEMSTALL_RUNNING]);
	KUNIT_EXPECT_EQ(test, now[NR_IOWAIT], base[NR_IOWAIT] + 1);
	KUNIT_EXPECT_TRUE(test, mask & STATE(PSI_MEM_SOME));
	KUNIT_EXPECT_TRUE(test, mask & STATE(PSI_IO_SOME));
	KUNIT_EXPECT_FALSE(test, mask & STATE(PSI_IO_FULL));
	KUNIT_EXPECT_EQ(test, ta->psi_flags, (unsigned int)TSK_MEMSTALL);
	KUNIT_EXPECT_EQ(test, tb->psi_flags, (unsigned int)TSK_IOWAIT);

	/* Woken: the stalled one runnable and still stalled until it leaves
	 * its section; the I/O wait over. */
	WRITE_ONCE(a.go, true);
	wake_up(&a.wq);
	complete(&b.io);
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_IOWAIT], base[NR_IOWAIT]);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL_RUNNING], base[NR_MEMSTALL_RUNNING] + 1);
	KUNIT_EXPECT_EQ(test, kthread_join(ta), 0);
	KUNIT_EXPECT_EQ(test, kthread_join(tb), 0);

	/* A task that only runs and ends. */
	struct task_struct *tc = kthread_run_on_cpu(quick_fn, NULL, cpu, "psi_quick/%u");
	KUNIT_ASSERT_NOT_NULL(test, tc);
	KUNIT_EXPECT_EQ(test, kthread_join(tc), 0);

	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	for (int t = 0; t < NR_PSI_TASK_COUNTS; t++)
		if (t != NR_RUNNING)
			KUNIT_EXPECT_EQ(test, now[t], base[t]);
	KUNIT_EXPECT_FALSE(test, psi_bug_seen());
}

/* A stalled sleeper whose CPU is taken away from it wakes on another: its
 * counts leave this CPU with it (psi_dequeue_migrate, psi_enqueue of a
 * task arriving), as does a queued task moved by set_cpus_allowed_ptr. */
static void counts_move_with_the_task(struct kunit *test)
{
	if (!psi_enable)
		kunit_skip(test, "booted with psi=0");
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: nowhere to move");
	unsigned int cpu = smp_processor_id(), other, c;
	for_each_online_cpu(c)
		if (c != cpu)
			break;
	other = c;
	struct cpumask to_other = { 1ull << other };
	unsigned int base[NR_PSI_TASK_COUNTS], now[NR_PSI_TASK_COUNTS], load;
	u32 mask;
	struct sleeper a = { .memstall = true };
	init_waitqueue_head(&a.wq);

	while (cpu_load(cpu) > 1)
		schedule();
	this_cpu_counts_load(base, &mask, &load);
	struct task_struct *ta = kthread_create_on_cpu(sleeper_fn, &a, cpu, "psi_move/%u");
	KUNIT_ASSERT_NOT_NULL(test, ta);
	wake_up_process(ta);
	until_asleep(ta);
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL] + 1);
	/* Asleep, it stays here until its wakeup moves it. */
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(ta, &to_other), 0);
	this_cpu_counts(now, &mask);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL] + 1);
	WRITE_ONCE(a.go, true);
	wake_up(&a.wq);
	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ta->cpu), other);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL]);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	KUNIT_EXPECT_EQ(test, kthread_join(ta), 0);

	/* Queued here and not yet run: moved at once, RUNNING with it. */
	struct task_struct *tq = kthread_create_on_cpu(quick_fn, NULL, cpu, "psi_queued/%u");
	KUNIT_ASSERT_NOT_NULL(test, tq);
	wake_up_process(tq);
	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(tq, &to_other), 0);
	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	KUNIT_EXPECT_EQ(test, kthread_join(tq), 0);

	this_cpu_counts_load(now, &mask, &load);
	KUNIT_EXPECT_EQ(test, now[NR_RUNNING], load);
	KUNIT_EXPECT_EQ(test, now[NR_MEMSTALL], base[NR_MEMSTALL]);
	KUNIT_EXPECT_EQ(test, now[NR_IOWAIT], base[NR_IOWAIT]);
	KUNIT_EXPECT_FALSE(test, psi_bug_seen());
}

/* What this CPU's state mask was while the task ran. */
static int record_mask_fn(void *arg)
{
	unsigned int tasks[NR_PSI_TASK_COUNTS];
	this_cpu_counts(tasks, arg);
	return 0;
}

/* FULL follows the CPU's current task: while a reclaimer runs, nothing
 * productive runs; when it yields to a task that is not stalled, the
 * CPU's memory stall is only SOME (the switch recomputes the states even
 * though no count changed). */
static void memstall_full_follows_the_running_task(struct kunit *test)
{
	if (!psi_enable)
		kunit_skip(test, "booted with psi=0");
	unsigned int cpu = smp_processor_id(), tasks[NR_PSI_TASK_COUNTS];
	u32 mask, seen = 0;
	while (cpu_load(cpu) > 1)
		schedule();
	unsigned long pflags;
	psi_memstall_enter(&pflags);
	struct task_struct *t = kthread_create_on_cpu(record_mask_fn, &seen, cpu, "psi_other/%u");
	if (t)
		wake_up_process(t);
	this_cpu_counts(tasks, &mask);
	KUNIT_EXPECT_TRUE(test, mask & STATE(PSI_MEM_FULL)); /* we run, and reclaim */
	while (t && !READ_ONCE(seen))
		schedule(); /* a yield: we stay runnable and stalled */
	psi_memstall_leave(&pflags);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	KUNIT_EXPECT_TRUE(test, seen & STATE(PSI_MEM_SOME));
	KUNIT_EXPECT_FALSE(test, seen & STATE(PSI_MEM_FULL));
	KUNIT_EXPECT_FALSE(test, psi_bug_seen());
}

/* What a read of /proc/pressure/<res> gives (its generator,
 * kernel/psi_proc.c's psi_fill), into a kmalloc'd *text; total= of its
 * "some" line, -1 if none. */
static long long pressure_some_total(enum psi_res res, char **text)
{
	*text = kzalloc(256, GFP_KERNEL);
	if (!*text)
		return -1;
	struct seq_buf m = { .buffer = *text, .size = 255 };
	psi_show(&m, &psi_system, res);
	const char *t = strstr(*text, "total=");
	if (!t)
		return -1;
	long long v = 0;
	for (t += 6; *t >= '0' && *t <= '9'; t++)
		v = v * 10 + (*t - '0');
	return v;
}

static bool line_has_format(const char *line, const char *kind)
{
	/* "<kind> avg10=D.DD avg60=D.DD avg300=D.DD total=D\n" */
	static const char *keys[] = { " avg10=", " avg60=", " avg300=" };
	size_t k = strlen(kind);
	if (strncmp(line, kind, k))
		return false;
	const char *p = line + k;
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(keys[i]);
		if (strncmp(p, keys[i], n))
			return false;
		p += n;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p[0] != '.' || p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9')
			return false;
		p += 3;
	}
	if (strncmp(p, " total=", 7))
		return false;
	p += 7;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '\n';
}

static void proc_pressure_format_and_growth(struct kunit *test)
{
	if (!psi_enable)
		kunit_skip(test, "booted with psi=0: no /proc/pressure");
	/* Found where Linux has them. */
	static const char *files[] = { "/proc/pressure/io", "/proc/pressure/memory", "/proc/pressure/cpu" };
	for (int i = 0; i < 3; i++) {
		struct proc_node node;
		KUNIT_EXPECT_EQ(test, procfs_lookup(files[i], current, &node), 0);
	}
	for (int i = 0; i < 3; i++) {
		char *text = NULL;
		KUNIT_EXPECT_GE(test, pressure_some_total((enum psi_res)i, &text), 0ll);
		if (!text)
			continue;
		const char *second = strchr(text, '\n');
		KUNIT_EXPECT_TRUE(test, line_has_format(text, "some"));
		KUNIT_EXPECT_TRUE(test, second && line_has_format(second + 1, "full"));
		KUNIT_EXPECT_TRUE(test, second && strchr(second + 1, '\n') && !strchr(second + 1, '\n')[1]);
		if (i == 2) /* CPU FULL is undefined for the system: zeros */
			KUNIT_EXPECT_TRUE(test, second && !strcmp(second + 1,
								  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"));
		kfree(text);
	}

	unsigned int stalled = 0;
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		stalled += READ_ONCE(psi_system.pcpu[c].tasks[NR_MEMSTALL]);
	kunit_info(test, "tasks in a memory stall now: %u", stalled);

	/* Stalled for a few ticks: memory's total grows. */
	char *text = NULL;
	long long before = pressure_some_total(PSI_MEM, &text);
	kfree(text);
	unsigned long pflags;
	psi_memstall_enter(&pflags);
	u64 until = jiffies + 3;
	while (READ_ONCE(jiffies) < until)
		cpu_relax();
	psi_memstall_leave(&pflags);
	text = NULL;
	long long after = pressure_some_total(PSI_MEM, &text);
	kfree(text);
	KUNIT_EXPECT_GT(test, after, before);
	kunit_info(test, "memory some total %lld -> %lld us across a stall of 3 ticks", before, after);
}

static struct kunit_case psi_cases[] = {
	KUNIT_CASE(calc_avgs_follow_linux_formula),
	KUNIT_CASE(state_machine_and_averages),
	KUNIT_CASE(cpus_weigh_by_nonidle_time),
	KUNIT_CASE(memstall_sections_nest),
	KUNIT_CASE(counts_follow_sleepers_and_runners),
	KUNIT_CASE(counts_move_with_the_task),
	KUNIT_CASE(memstall_full_follows_the_running_task),
	KUNIT_CASE(proc_pressure_format_and_growth),
	{}
};

static struct kunit_suite psi_suite = { .name = "psi", .test_cases = psi_cases };
kunit_test_suite(psi_suite);
