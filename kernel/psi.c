/* Pressure stall information: the per-CPU state machine, its aggregation
 * and the averages (Linux 6.1's kernel/sched/psi.c; the model and the
 * invariants are in kernel/psi.h). /proc/pressure/ is kernel/psi_proc.c's.
 *
 * Locking: a CPU's psi_group_cpu under its run-queue lock (the scheduler's
 * hooks hold it; psi_memstall_enter/leave take it through
 * rq_lock_this_cpu), written inside its sequence count; the group's
 * aggregated fields under avgs_lock, taken with interrupts off (the boot
 * CPU's tick aggregates). */
#include "kernel/psi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smpboot.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/seq_buf.h"
#include "lib/string.h"

bool psi_enable = true;
kernel_param_flag("psi", psi_enable, "pressure stall information, /proc/pressure/ (Linux's psi=)");

static bool psi_bug;
/* Set once psi_init has counted the boot task: the hooks do nothing
 * before (nor ever with psi=0). */
static bool psi_ready;
static u64 psi_period;

struct psi_group psi_system;

bool psi_bug_seen(void) { return READ_ONCE(psi_bug); }
u64 psi_period_ns(void) { return (u64)PSI_FREQ * TICK_NSEC; }

static inline u64 nsecs_to_jiffies(u64 ns) { return ns / TICK_NSEC; }

/* The sequence count of a CPU's bucket (Linux's seqcount_t): the writer
 * holds the run-queue lock, so writers never race each other. */
static inline void psi_write_begin(struct psi_group_cpu *groupc)
{
	WRITE_ONCE(groupc->seq, groupc->seq + 1);
	barrier(); /* x86 keeps stores in order: the compiler must too */
}

static inline void psi_write_end(struct psi_group_cpu *groupc)
{
	barrier();
	WRITE_ONCE(groupc->seq, groupc->seq + 1);
}

static inline unsigned int psi_read_begin(const struct psi_group_cpu *groupc)
{
	unsigned int seq;
	while ((seq = READ_ONCE(groupc->seq)) & 1)
		cpu_relax();
	barrier(); /* loads stay in order on x86 */
	return seq;
}

static inline bool psi_read_retry(const struct psi_group_cpu *groupc, unsigned int seq)
{
	barrier();
	return READ_ONCE(groupc->seq) != seq;
}

void psi_group_init(struct psi_group *group, u64 (*clock)(void))
{
	memset(group, 0, sizeof(*group));
	group->clock = clock;
	spin_lock_init(&group->avgs_lock);
	spin_lock_init(&group->trigger_lock);
	INIT_LIST_HEAD(&group->triggers);
	group->poll_min_period = ~0u;
	group->polling_next_update = ~0ull;
	if (!psi_period)
		psi_period = psi_period_ns();
	group->avg_last_update = psi_group_clock(group);
	group->avg_next_update = group->avg_last_update + psi_period;
}

/* Linux 6.1's test_state for each state, at once. */
static u32 test_states(const unsigned int *tasks, u32 state_mask)
{
	const bool oncpu = state_mask & PSI_ONCPU;

	if (tasks[NR_IOWAIT]) {
		state_mask |= 1 << PSI_IO_SOME;
		if (!tasks[NR_RUNNING])
			state_mask |= 1 << PSI_IO_FULL;
	}
	if (tasks[NR_MEMSTALL]) {
		state_mask |= 1 << PSI_MEM_SOME;
		if (tasks[NR_RUNNING] == tasks[NR_MEMSTALL_RUNNING])
			state_mask |= 1 << PSI_MEM_FULL;
	}
	if (tasks[NR_RUNNING] > oncpu)
		state_mask |= 1 << PSI_CPU_SOME;
	if (tasks[NR_RUNNING] && !oncpu)
		state_mask |= 1 << PSI_CPU_FULL;
	if (tasks[NR_IOWAIT] || tasks[NR_MEMSTALL] || tasks[NR_RUNNING])
		state_mask |= 1 << PSI_NONIDLE;
	return state_mask;
}

/* Linux's record_times: the time since the last change goes to the states
 * the CPU was in. */
static void record_times(struct psi_group_cpu *groupc, u64 now)
{
	/* A change made for this CPU from another one (a wakeup's enqueue)
	 * reads that CPU's clock (Linux reads cpu_clock(cpu) of this one): a
	 * clock a little behind must not make a negative delta, which the
	 * u32 buckets would take as 4 s. */
	if ((s64)(now - groupc->state_start) < 0)
		now = groupc->state_start;
	u32 delta = (u32)(now - groupc->state_start);
	groupc->state_start = now;

	if (groupc->state_mask & (1 << PSI_IO_SOME)) {
		groupc->times[PSI_IO_SOME] += delta;
		if (groupc->state_mask & (1 << PSI_IO_FULL))
			groupc->times[PSI_IO_FULL] += delta;
	}
	if (groupc->state_mask & (1 << PSI_MEM_SOME)) {
		groupc->times[PSI_MEM_SOME] += delta;
		if (groupc->state_mask & (1 << PSI_MEM_FULL))
			groupc->times[PSI_MEM_FULL] += delta;
	}
	if (groupc->state_mask & (1 << PSI_CPU_SOME)) {
		groupc->times[PSI_CPU_SOME] += delta;
		if (groupc->state_mask & (1 << PSI_CPU_FULL))
			groupc->times[PSI_CPU_FULL] += delta;
	}
	if (groupc->state_mask & (1 << PSI_NONIDLE))
		groupc->times[PSI_NONIDLE] += delta;
}

/* The periodic aggregation is due PSI_FREQ from now unless it is pending
 * already (Linux's schedule_delayed_work when !delayed_work_pending). */
static void psi_schedule_avgs_work(struct psi_group *group, u64 delay)
{
	u64 expected = 0;
	__atomic_compare_exchange_n(&group->avgs_work_due, &expected, jiffies + delay, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

void psi_group_change(struct psi_group *group, unsigned int cpu, unsigned int clear, unsigned int set, u64 now,
		      bool wake_clock)
{
	struct psi_group_cpu *groupc = &group->pcpu[cpu];
	unsigned int t, m;
	u32 state_mask;

	psi_write_begin(groupc);
	/* TSK_ONCPU has no count: it is the PSI_ONCPU bit, cleared, set or
	 * carried over. */
	if (clear & TSK_ONCPU) {
		state_mask = 0;
		clear &= ~TSK_ONCPU;
	} else if (set & TSK_ONCPU) {
		state_mask = PSI_ONCPU;
		set &= ~TSK_ONCPU;
	} else {
		state_mask = groupc->state_mask & PSI_ONCPU;
	}

	for (t = 0, m = clear; m; m &= ~(1u << t), t++) {
		if (!(m & (1u << t)))
			continue;
		if (groupc->tasks[t]) {
			groupc->tasks[t]--;
		} else if (!psi_bug) {
			pr_err("psi: task underflow! cpu=%u t=%u tasks=[%u %u %u %u] clear=%x set=%x\n", cpu, t,
			       groupc->tasks[0], groupc->tasks[1], groupc->tasks[2], groupc->tasks[3], clear, set);
			psi_bug = true;
		}
	}
	for (t = 0; set; set &= ~(1u << t), t++)
		if (set & (1u << t))
			groupc->tasks[t]++;

	state_mask = test_states(groupc->tasks, state_mask);
	/* A memory stall is FULL also while the CPU's current task reclaims:
	 * nothing productive could run there even if it were runnable. */
	if ((state_mask & PSI_ONCPU) && group == &psi_system && READ_ONCE(cpu_curr(cpu)->in_memstall))
		state_mask |= 1 << PSI_MEM_FULL;

	record_times(groupc, now);
	groupc->state_mask = state_mask;
	psi_write_end(groupc);

	if (state_mask & READ_ONCE(group->poll_states))
		psi_schedule_poll_work(group, 1, false);

	if (wake_clock)
		psi_schedule_avgs_work(group, PSI_FREQ);
}

/* Linux's psi_flags_change: the flags must say what the change assumes. */
static void psi_flags_change(struct task_struct *task, unsigned int clear, unsigned int set)
{
	if (((task->psi_flags & set) || (task->psi_flags & clear) != clear) && !psi_bug) {
		pr_err("psi: inconsistent task state! task=%d:%s cpu=%u psi_flags=%x clear=%x set=%x\n", task->pid,
		       task->comm, task->cpu, task->psi_flags, clear, set);
		psi_bug = true;
	}
	task->psi_flags &= ~clear;
	task->psi_flags |= set;
}

/* Linux's psi_task_change, for the one group. Idle tasks never count
 * (Linux's !task->pid). */
static void psi_task_change(struct task_struct *task, unsigned int clear, unsigned int set)
{
	if (is_idle_task(task))
		return;
	psi_flags_change(task, clear, set);
	psi_group_change(&psi_system, task->cpu, clear, set, psi_group_clock(&psi_system), true);
}

void psi_init(struct task_struct *init)
{
	psi_group_init(&psi_system, NULL);
	if (!psi_enable)
		return;
	unsigned long irq;
	rq_lock_this_cpu(&irq);
	psi_task_change(init, 0, TSK_RUNNING | TSK_ONCPU);
	WRITE_ONCE(psi_ready, true);
	rq_unlock_this_cpu(irq);
}

/* Linux's psi_enqueue (kernel/sched/stats.h), with its wake-requeue case
 * folded in: a task arriving from another CPU carries its memory stall
 * along, and a wakeup ends the I/O wait it slept in. */
void psi_enqueue(struct task_struct *p, bool wakeup)
{
	unsigned int clear = 0, set = TSK_RUNNING;
	if (!READ_ONCE(psi_ready))
		return;
	if (p->in_memstall)
		set |= TSK_MEMSTALL_RUNNING;
	if (!wakeup) {
		if (p->in_memstall)
			set |= TSK_MEMSTALL;
	} else {
		clear |= p->psi_flags & TSK_IOWAIT;
	}
	psi_task_change(p, clear, set);
}

/* Linux's psi_dequeue for a migration and psi_ttwu_dequeue for a wakeup
 * elsewhere: every count p is in leaves its old CPU. */
void psi_dequeue_migrate(struct task_struct *p)
{
	if (!READ_ONCE(psi_ready) || !p->psi_flags)
		return;
	psi_task_change(p, p->psi_flags, 0);
}

/* Linux's psi_task_switch for the one group: next goes on the CPU; prev
 * leaves it, and when it goes to sleep stops running (and starts an I/O
 * wait if it sleeps in one). */
void psi_task_switch(struct task_struct *prev, struct task_struct *next, bool sleep)
{
	if (!READ_ONCE(psi_ready))
		return;
	unsigned int cpu = prev->cpu;
	u64 now = psi_group_clock(&psi_system);
	/* Linux sets TSK_ONCPU on next's groups up to the first that has it
	 * already (prev's, while prev is not idle), and takes prev's off up
	 * to there: with one group, only an idle prev or next changes the
	 * PSI_ONCPU bit. */
	bool next_counts = !is_idle_task(next);
	bool oncpu_already = psi_system.pcpu[cpu].state_mask & PSI_ONCPU;
	if (next_counts) {
		psi_flags_change(next, 0, TSK_ONCPU);
		if (!oncpu_already)
			psi_group_change(&psi_system, cpu, 0, TSK_ONCPU, now, true);
	}
	if (!is_idle_task(prev)) {
		unsigned int clear = TSK_ONCPU, set = 0;
		if (sleep) {
			clear |= TSK_RUNNING;
			if (prev->in_memstall)
				clear |= TSK_MEMSTALL_RUNNING;
			if (prev->in_iowait)
				set |= TSK_IOWAIT;
		}
		psi_flags_change(prev, clear, set);
		if (!next_counts) {
			psi_group_change(&psi_system, cpu, clear, set, now, true);
		} else {
			/* The CPU stays occupied (next's now). Any other
			 * difference between the two, prev's sleep or only one
			 * of them in a memory stall (FULL follows the CPU's
			 * current task), is a change of the CPU's states. */
			clear &= ~TSK_ONCPU;
			if (clear || set || ((prev->psi_flags ^ next->psi_flags) & ~TSK_ONCPU))
				psi_group_change(&psi_system, cpu, clear, set, now, true);
		}
	}
}

/* Linux's psi_memstall_enter: the run-queue lock makes the flag and the
 * counts change at once with respect to the scheduler's hooks. */
void psi_memstall_enter(unsigned long *flags)
{
	if (!READ_ONCE(psi_ready))
		return;
	*flags = current->in_memstall;
	if (*flags)
		return;
	unsigned long irq;
	rq_lock_this_cpu(&irq);
	current->in_memstall = true;
	psi_task_change(current, 0, TSK_MEMSTALL | TSK_MEMSTALL_RUNNING);
	rq_unlock_this_cpu(irq);
}

void psi_memstall_leave(unsigned long *flags)
{
	if (!READ_ONCE(psi_ready))
		return;
	if (*flags)
		return;
	unsigned long irq;
	rq_lock_this_cpu(&irq);
	current->in_memstall = false;
	psi_task_change(current, TSK_MEMSTALL | TSK_MEMSTALL_RUNNING, 0);
	rq_unlock_this_cpu(irq);
}

void wait_for_completion_io(struct completion *x)
{
	struct task_struct *me = current;
	bool old = me->in_iowait;
	me->in_iowait = true;
	wait_for_completion(x);
	me->in_iowait = old;
}

/* Linux's get_recent_times: cpu's buckets since the aggregator's last look
 * (the state it is in now counted up to now). */
static void get_recent_times(struct psi_group *group, unsigned int cpu, enum psi_aggregators aggregator,
			     u32 *times, u32 *pchanged_states)
{
	struct psi_group_cpu *groupc = &group->pcpu[cpu];
	u64 now, state_start;
	unsigned int seq;
	u32 state_mask;

	*pchanged_states = 0;
	do {
		seq = psi_read_begin(groupc);
		now = psi_group_clock(group);
		memcpy(times, groupc->times, sizeof(groupc->times));
		state_mask = groupc->state_mask;
		state_start = groupc->state_start;
	} while (psi_read_retry(groupc, seq));

	if ((s64)(now - state_start) < 0) /* this CPU's clock a little behind (record_times) */
		now = state_start;
	for (int s = 0; s < NR_PSI_STATES; s++) {
		if (state_mask & (1u << s))
			times[s] += (u32)(now - state_start);
		u32 delta = times[s] - groupc->times_prev[aggregator][s];
		groupc->times_prev[aggregator][s] = times[s];
		times[s] = delta;
		if (delta)
			*pchanged_states |= 1u << s;
	}
}

unsigned long fixed_power_int(unsigned long x, unsigned int frac_bits, unsigned int n)
{
	unsigned long result = 1ul << frac_bits;
	if (n) {
		for (;;) {
			if (n & 1) {
				result *= x;
				result += 1ul << (frac_bits - 1);
				result >>= frac_bits;
			}
			n >>= 1;
			if (!n)
				break;
			x *= x;
			x += 1ul << (frac_bits - 1);
			x >>= frac_bits;
		}
	}
	return result;
}

unsigned long calc_load_n(unsigned long load, unsigned long exp, unsigned long active, unsigned int n)
{
	return calc_load(load, fixed_power_int(exp, FSHIFT, n), active);
}

void psi_calc_avgs(unsigned long avg[3], int missed_periods, u64 time, u64 period)
{
	/* Zeroes for the periods of no activity. */
	if (missed_periods) {
		avg[0] = calc_load_n(avg[0], EXP_10s, 0, (unsigned int)missed_periods);
		avg[1] = calc_load_n(avg[1], EXP_60s, 0, (unsigned int)missed_periods);
		avg[2] = calc_load_n(avg[2], EXP_300s, 0, (unsigned int)missed_periods);
	}
	/* The most recent period. */
	unsigned long pct = (unsigned long)(time * 100 / period);
	pct *= FIXED_1;
	avg[0] = calc_load(avg[0], EXP_10s, pct);
	avg[1] = calc_load(avg[1], EXP_60s, pct);
	avg[2] = calc_load(avg[2], EXP_300s, pct);
}

void psi_collect_percpu_times(struct psi_group *group, enum psi_aggregators aggregator, u32 *pchanged_states)
{
	u64 deltas[NR_PSI_STATES - 1] = { 0 };
	unsigned long nonidle_total = 0;
	u32 changed_states = 0;

	/* Each CPU weighted by its non-idle time in the period (in jiffies,
	 * as Linux's), so that idle or unevenly loaded CPUs do not dilute
	 * the stall of the busy ones. */
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		u32 times[NR_PSI_STATES], cpu_changed;
		get_recent_times(group, cpu, aggregator, times, &cpu_changed);
		changed_states |= cpu_changed;
		u32 nonidle = (u32)nsecs_to_jiffies(times[PSI_NONIDLE]);
		nonidle_total += nonidle;
		for (int s = 0; s < PSI_NONIDLE; s++)
			deltas[s] += (u64)times[s] * nonidle;
	}
	for (int s = 0; s < NR_PSI_STATES - 1; s++)
		group->total[aggregator][s] += deltas[s] / (nonidle_total ? nonidle_total : 1);
	if (pchanged_states)
		*pchanged_states = changed_states;
}

u64 psi_update_averages(struct psi_group *group, u64 now)
{
	unsigned long missed_periods = 0;
	u64 expires = group->avg_next_update;
	if (now - expires >= psi_period)
		missed_periods = (unsigned long)((now - expires) / psi_period);
	/* A fixed grid of psi_period against drift; the samples span the
	 * time that really passed. */
	u64 avg_next_update = expires + (1 + missed_periods) * psi_period;
	u64 period = now - (group->avg_last_update + missed_periods * psi_period);
	group->avg_last_update = now;

	for (int s = 0; s < NR_PSI_STATES - 1; s++) {
		u32 sample = (u32)(group->total[PSI_AVGS][s] - group->avg_total[s]);
		/* A delta that slipped into this period from the last may
		 * make it longer than the period: never above 100%, the rest
		 * reported in the next one. */
		if (sample > period)
			sample = (u32)period;
		group->avg_total[s] += sample;
		psi_calc_avgs(group->avg[s], (int)missed_periods, sample, period);
	}
	return avg_next_update;
}

/* Linux's psi_avgs_work: fold the buckets, update the averages when due,
 * and come back at the next period while anything is not idle. */
static void psi_avgs_work(struct psi_group *group)
{
	u32 changed_states;
	unsigned long flags;
	spin_lock_irqsave(&group->avgs_lock, flags);
	u64 now = psi_group_clock(group);
	psi_collect_percpu_times(group, PSI_AVGS, &changed_states);
	if (now >= group->avg_next_update)
		group->avg_next_update = psi_update_averages(group, now);
	if (changed_states & (1u << PSI_NONIDLE))
		psi_schedule_avgs_work(group, nsecs_to_jiffies(group->avg_next_update - now) + 1);
	spin_unlock_irqrestore(&group->avgs_lock, flags);
}

void psi_tick(void)
{
	if (!READ_ONCE(psi_ready) || smp_processor_id() != boot_cpu_index)
		return;
	psi_poll_tick(&psi_system);
	u64 due = READ_ONCE(psi_system.avgs_work_due);
	if (!due || jiffies < due)
		return;
	/* No longer pending while it runs (a workqueue's), so a change now
	 * schedules it again. */
	WRITE_ONCE(psi_system.avgs_work_due, 0);
	psi_avgs_work(&psi_system);
}

void psi_show(struct seq_buf *m, struct psi_group *group, enum psi_res res)
{
	unsigned long flags;
	/* The averages brought up to date first. */
	spin_lock_irqsave(&group->avgs_lock, flags);
	u64 now = psi_group_clock(group);
	psi_collect_percpu_times(group, PSI_AVGS, NULL);
	if (now >= group->avg_next_update)
		group->avg_next_update = psi_update_averages(group, now);
	unsigned long avg[2][3] = { { 0 } };
	u64 total[2] = { 0 };
	for (int full = 0; full < 2; full++) {
		/* CPU FULL is undefined at the system level: zeroes. */
		if (group == &psi_system && res == PSI_CPU && full)
			continue;
		for (int w = 0; w < 3; w++)
			avg[full][w] = group->avg[res * 2 + full][w];
		total[full] = group->total[PSI_AVGS][res * 2 + full] / 1000;
	}
	spin_unlock_irqrestore(&group->avgs_lock, flags);
	for (int full = 0; full < 2; full++)
		seq_buf_printf(m, "%s avg10=%lu.%02lu avg60=%lu.%02lu avg300=%lu.%02lu total=%llu\n",
			       full ? "full" : "some", LOAD_INT(avg[full][0]), LOAD_FRAC(avg[full][0]),
			       LOAD_INT(avg[full][1]), LOAD_FRAC(avg[full][1]), LOAD_INT(avg[full][2]),
			       LOAD_FRAC(avg[full][2]), (unsigned long long)total[full]);
}
