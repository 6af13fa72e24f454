/* The scheduler's side of time (Linux's kernel/time/timer.c's
 * schedule_timeout, hrtimer.c's schedule_hrtimeout, kernel/sched/
 * cputime.c and loadavg.c, and core.c's scheduler_tick): sleeping until a
 * deadline or a wakeup, on a sleep timer of the CPU the task sleeps on
 * (kernel/sched.c's invariants: a sleeper does not move, so its timer
 * fires on its own CPU, under its run queue's lock); the tick's CPU time
 * and slice; the load average. */
#include "kernel/sched_internal.h"
#include "arch/x86_64/smpboot.h"
#include "kernel/psi.h"
#include "kernel/time.h"

/* Sleeps until expires (ktime_get_ns) or a wakeup, whichever comes first
 * (the caller sets its state first). The timer goes on this CPU's list,
 * and rq stays this one's even if the task comes back on another CPU (a
 * wakeup before schedule() left it runnable and its mask changed):
 * removing it below must lock the list it is on. While the task sleeps it
 * does not move, so the timer interrupt that fires the timer is its own
 * CPU's (ttwu_locked under rq->lock), at expires in high-resolution mode
 * (tick_program_event), else at the first tick after it. */
static void schedule_until(u64 expires)
{
	struct rq *rq = this_rq();
	struct sleep_timer t = { .task = current, .fired = false, .expires = expires };
	unsigned long flags;
	spin_lock_irqsave(&rq->lock, flags);
	list_add_tail(&t.entry, &rq->timers);
	tick_program_event(expires);
	spin_unlock_irqrestore(&rq->lock, flags);

	schedule();

	/* The timer interrupt takes a fired timer off the list under the
	 * lock; after this nothing refers to t. */
	spin_lock_irqsave(&rq->lock, flags);
	if (!t.fired)
		list_del(&t.entry);
	spin_unlock_irqrestore(&rq->lock, flags);
}

long schedule_timeout(long timeout)
{
	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout <= 0) {
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	u64 expires = ktime_get_ns() + (u64)timeout * TICK_NSEC;
	schedule_until(expires);
	u64 now = ktime_get_ns();
	return now >= expires ? 0 : (long)((expires - now + TICK_NSEC - 1) / TICK_NSEC);
}

int schedule_hrtimeout(u64 expires)
{
	if (ktime_get_ns() >= expires) {
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	schedule_until(expires);
	return ktime_get_ns() >= expires ? 0 : -EINTR;
}

long schedule_timeout_uninterruptible(long timeout)
{
	set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

/* Linux's tick-based CPU time (CONFIG_TICK_CPU_ACCOUNTING's
 * account_process_tick): the task a tick interrupts is charged the whole
 * tick, as user time when the tick came from user mode, else as system
 * time; an idle CPU charges nobody. A sample, not a measurement: a task
 * that runs between ticks is charged nothing, one that runs across a tick
 * for a moment a whole TICK_NSEC, as in Linux with this option. A CPU's
 * idle time is measured instead, from its halt to the interrupt that ends
 * it (as Linux's NO_HZ idle accounting, tick_nohz_stop_idle at irq_enter:
 * idle_irq_enter), so an idle CPU's tick charges nothing. */
static void account_process_tick(struct task_struct *p, bool user)
{
	/* The CPU's own figures (/proc/stat), Linux's account_user_time,
	 * account_system_time and account_idle_time: a CPU in its idle task
	 * is idle (no I/O wait here). */
	u64 *cpustat = this_rq()->cpustat.cpustat;
	/* Idle time is measured, not sampled (idle_irq_enter). */
	if (is_idle_task(p))
		return;
	int index = user ? CPUTIME_USER : CPUTIME_SYSTEM;
	WRITE_ONCE(cpustat[index], cpustat[index] + TICK_NSEC);
	if (user)
		p->utime += TICK_NSEC;
	else
		p->stime += TICK_NSEC;
}

/* Linux's load average (kernel/sched/loadavg.c): every LOAD_FREQ (5 s and
 * a tick) the boot CPU's tick folds the number of active tasks into three
 * exponentially decaying averages, in FSHIFT fixed point. Linux's active
 * tasks are the runnable ones (running included) and the uninterruptible
 * sleepers; mmlab counts only the runnable ones (nr_running()), since its
 * kernel threads wait uninterruptibly where Linux's use TASK_IDLE, which
 * Linux leaves out. */
static unsigned long avenrun[3];
static u64 calc_load_update = LOAD_FREQ;

/* On a fixed grid of LOAD_FREQ, each sample 10 ticks after its window
 * opens (Linux's calc_global_load, which leaves the CPUs that long to fold
 * in their counts; here the counts are read directly). */
static void calc_global_load(void)
{
	if (jiffies < calc_load_update + 10)
		return;
	calc_load_update += LOAD_FREQ;
	unsigned long active = nr_running() * FIXED_1;
	WRITE_ONCE(avenrun[0], calc_load(avenrun[0], EXP_1, active));
	WRITE_ONCE(avenrun[1], calc_load(avenrun[1], EXP_5, active));
	WRITE_ONCE(avenrun[2], calc_load(avenrun[2], EXP_15, active));
}

void get_avenrun(unsigned long *loads, unsigned long offset, int shift)
{
	for (int i = 0; i < 3; i++)
		loads[i] = (READ_ONCE(avenrun[i]) + offset) << shift;
}

unsigned long nr_running(void)
{
	unsigned long n = 0;
	unsigned int cpu;
	for_each_online_cpu(cpu)
		if (sched_cpu_active(cpu))
			n += cpu_load(cpu);
	return n;
}

/* The tick (every CPU, interrupts off): charges the task it interrupted,
 * updates the load average (on the CPU that counts jiffies) and wakes this
 * CPU's expired sleepers. */
void sched_tick(bool user)
{
	unsigned int cpu = smp_processor_id();
	if (!sched_cpu_active(cpu))
		return;
	account_process_tick(current, user);
	/* A slice is one tick: with others waiting, the task gives way at
	 * its next return to user mode (a task in the kernel at its next
	 * cond_resched, which looks at the queue itself). */
	struct rq *rq = this_rq();
	if (READ_ONCE(rq->nr_queued))
		WRITE_ONCE(rq->need_resched, true);
	if (cpu == boot_cpu_index) {
		calc_global_load();
		psi_tick();
	}
}

/* The sleepers' timer expiry (register_timer_expiry), on every timer
 * interrupt of this CPU: wakes the sleepers whose timers are due, and
 * returns the earliest expiry left on this CPU. */
u64 run_sleep_timers(u64 now)
{
	unsigned int cpu = smp_processor_id();
	if (!sched_cpu_active(cpu))
		return KTIME_MAX;
	struct rq *rq = this_rq();
	if (list_empty(&rq->timers)) /* racy peek; the list is only ours to add to */
		return KTIME_MAX;
	u64 next = KTIME_MAX;
	struct sleep_timer *t, *n;
	struct task_struct *p, *pn;
	LIST_HEAD(moved); /* woken tasks that must change CPU, on their run_list */
	bool m;
	spin_lock(&rq->lock);
	list_for_each_entry_safe(t, n, &rq->timers, entry) {
		if (now >= t->expires) {
			list_del(&t->entry);
			t->fired = true;
			/* A sleeper's timer is on its own CPU's list (see
			 * schedule_until); a runnable task's may be elsewhere,
			 * and then its state keeps ttwu_locked from touching it. */
			if (ttwu_locked(rq, t->task, TASK_NORMAL, &m, true) && m)
				list_add_tail(&t->task->run_list, &moved);
		} else if (t->expires < next) {
			next = t->expires;
		}
	}
	spin_unlock(&rq->lock);
	/* Detached: nobody else touches them until they are attached. */
	list_for_each_entry_safe(p, pn, &moved, run_list) {
		list_del(&p->run_list);
		INIT_LIST_HEAD(&p->run_list);
		attach_task(p);
	}
	return next;
}
