/* What the scheduler's files share (Linux's kernel/sched/sched.h): the
 * per-CPU run queue and the sleep timers on it, and the calls one file
 * makes into the other. kernel/sched.c has the run queues' invariants and
 * locking; kernel/sched_time.c the sleeps with a timeout, the tick's
 * accounting and the load average. Everyone else uses kernel/sched.h. */
#ifndef KERNEL_SCHED_INTERNAL_H
#define KERNEL_SCHED_INTERNAL_H

#include "kernel/sched.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "lib/list.h"

struct sleep_timer {
	struct list_head entry; /* on rq->timers */
	u64 expires;            /* ktime_get_ns() */
	struct task_struct *task;
	bool fired;
};

struct rq {
	spinlock_t lock;
	struct list_head queue;  /* runnable tasks other than curr, FIFO */
	unsigned int nr_queued;
	/* Linux's TIF_NEED_RESCHED for curr: the tick found others waiting
	 * (its slice is over), or a task woke onto this queue. Read at the
	 * return to user mode; schedule() clears it. */
	bool need_resched;
	struct task_struct *curr;
	struct task_struct *idle;
	struct list_head timers; /* sleep_timers of this CPU's tasks */
	unsigned long nr_switches;
	unsigned long nr_resched_ipis;
	struct kernel_cpustat cpustat; /* written by this CPU only: its tick, its idle accounting */
	u64 idle_entrytime; /* ktime_get_ns() when its idle task halted; 0 while not halted */
};

DECLARE_PER_CPU(struct rq, runqueues);
#define cpu_rq(cpu) (&per_cpu(runqueues, (cpu)))
#define this_rq() this_cpu_ptr(&runqueues)

/* kernel/sched.c: the wakeup of p under rq->lock (*moved: p was detached
 * for another CPU, to attach_task once the lock is dropped), and the
 * attach of a detached task to the queue of its CPU. */
bool ttwu_locked(struct rq *rq, struct task_struct *p, unsigned int state, bool *moved, bool preempt);
void attach_task(struct task_struct *p);

/* kernel/sched_time.c: each CPU's tick hook (the CPU time charged, the
 * slice's end, the load average on the boot CPU) and timer expiry (the
 * sleepers due woken; returns the earliest expiry left), which sched_init
 * registers. */
void sched_tick(bool user);
u64 run_sleep_timers(u64 now);

#endif
