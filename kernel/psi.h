/* Pressure stall information (Linux 6.1's kernel/sched/psi.c,
 * include/linux/psi.h and psi_types.h): how much wall-clock time tasks
 * lost waiting for memory, I/O or a CPU, as /proc/pressure/memory, io and
 * cpu show it.
 *
 * Each CPU counts its tasks in four states (psi_group_cpu.tasks): waiting
 * for I/O (NR_IOWAIT: asleep in wait_for_completion_io), stalled on memory
 * (NR_MEMSTALL: inside psi_memstall_enter/leave, asleep or not), runnable
 * (NR_RUNNING, running included) and runnable while stalled on memory
 * (NR_MEMSTALL_RUNNING: a reclaimer, which runs but is not productive).
 * Whether a task is the CPU's current one is a bit of the state mask
 * (PSI_ONCPU), not a count, as in Linux 6.1. From the counts each change
 * derives the CPU's states (SOME: some task stalls; FULL: every non-idle
 * task stalls) and adds the time spent in the states before the change to
 * per-CPU buckets (record_times). The buckets are folded into one
 * system-wide total per state, each CPU weighted by its non-idle time
 * (collect_percpu_times), and every PSI_FREQ (2 s and a tick) into three
 * decaying averages (calc_avgs, Linux's fixed-point loadavg arithmetic).
 *
 * Invariants: a task's psi_flags are the TSK_* bits it counts in on
 * task->cpu; a CPU's psi_group_cpu changes only under that CPU's run-queue
 * lock, interrupts off, inside its sequence count, so an aggregator on any
 * CPU reads a consistent snapshot without the lock. The aggregated
 * fields (total, avg*) are under avgs_lock (a spinlock, irqsave: the
 * boot CPU's tick runs the periodic aggregation).
 *
 * mmlab has one group, psi_system (Linux's cgroups add one per cgroup). */
#ifndef KERNEL_PSI_H
#define KERNEL_PSI_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "kernel/topology.h"
#include "kernel/types.h"
#include "kernel/wait.h"

struct completion;
struct task_struct;
struct seq_buf;

/* Tracked task states (Linux's enum psi_task_count). */
enum psi_task_count {
	NR_IOWAIT,
	NR_MEMSTALL,
	NR_RUNNING,
	NR_MEMSTALL_RUNNING,
	NR_PSI_TASK_COUNTS = 4,
};

/* task->psi_flags: which counts the task is in. */
#define TSK_IOWAIT (1 << NR_IOWAIT)
#define TSK_MEMSTALL (1 << NR_MEMSTALL)
#define TSK_RUNNING (1 << NR_RUNNING)
#define TSK_MEMSTALL_RUNNING (1 << NR_MEMSTALL_RUNNING)
/* Only one task is on a CPU at a time: no count, a state-mask bit. */
#define TSK_ONCPU (1 << NR_PSI_TASK_COUNTS)

/* Resources (Linux 6.1's without PSI_IRQ, which needs
 * CONFIG_IRQ_TIME_ACCOUNTING: mmlab does not account interrupt time). */
enum psi_res {
	PSI_IO,
	PSI_MEM,
	PSI_CPU,
	NR_PSI_RESOURCES,
};

enum psi_states {
	PSI_IO_SOME,
	PSI_IO_FULL,
	PSI_MEM_SOME,
	PSI_MEM_FULL,
	PSI_CPU_SOME,
	PSI_CPU_FULL,
	/* Only per CPU, to weigh the CPU in the global average: */
	PSI_NONIDLE,
	NR_PSI_STATES,
};

/* TSK_ONCPU in the state mask. */
#define PSI_ONCPU (1 << NR_PSI_STATES)

/* The two readers of the per-CPU buckets, each with its own "previous"
 * snapshot: the averages (and /proc reads), and the triggers' poller. */
enum psi_aggregators {
	PSI_AVGS = 0,
	PSI_POLL,
	NR_PSI_AGGREGATORS,
};

/* Running averages: every PSI_FREQ ticks (HZ: kernel/time.h), with 1/exp(2s/10s), 1/exp(2s/60s)
 * and 1/exp(2s/300s) in FSHIFT (11 bit) fixed point (Linux's). */
#define PSI_FREQ (2 * HZ + 1)
#define EXP_10s 1677
#define EXP_60s 1981
#define EXP_300s 2034

struct psi_group_cpu {
	unsigned int seq;                      /* odd while a change is being written */
	unsigned int tasks[NR_PSI_TASK_COUNTS];
	u32 state_mask;                        /* 1 << enum psi_states, and PSI_ONCPU */
	u32 times[NR_PSI_STATES];              /* ns in each state (wraps: read as deltas) */
	u64 state_start;                       /* the clock at the last change */
	u32 times_prev[NR_PSI_AGGREGATORS][NR_PSI_STATES]; /* each aggregator's last look */
};

struct psi_group {
	struct psi_group_cpu pcpu[NR_CPUS];
	/* The clock (ns), NULL for ktime_get_ns (Linux's cpu_clock and
	 * sched_clock): the tests give a group a clock of their own. */
	u64 (*clock)(void);
	spinlock_t avgs_lock;
	/* The periodic aggregation (Linux's avgs_work, a delayed work): the
	 * jiffy it is due at, 0 when it is not pending. */
	u64 avgs_work_due;
	u64 avg_total[NR_PSI_STATES - 1];
	u64 avg_last_update;
	u64 avg_next_update;
	u64 total[NR_PSI_AGGREGATORS][NR_PSI_STATES - 1]; /* ns */
	unsigned long avg[NR_PSI_STATES - 1][3];         /* FSHIFT fixed-point percent */
	/* Triggers (kernel/psi_trigger.c; Linux 6.1's poll_* fields), under
	 * trigger_lock (irqsave: the boot CPU's tick polls them). Linux's
	 * psimon thread and poll_timer are the tick here: poll_work_due is
	 * the jiffy the poll is due at (0: none), poll_scheduled Linux's. */
	spinlock_t trigger_lock;
	struct list_head triggers;
	u32 nr_triggers[NR_PSI_STATES - 1];
	u32 poll_states;
	u64 poll_min_period;
	u64 polling_total[NR_PSI_STATES - 1];
	u64 polling_next_update;
	u64 polling_until;
	int poll_scheduled;
	u64 poll_work_due;
};

/* A tracking window (Linux's struct psi_window), in ns. */
struct psi_window {
	u64 size;
	u64 start_time;
	u64 start_value;
	u64 prev_growth;
};

/* One trigger: an open /proc/pressure/ file that was written
 * "<some|full> <threshold us> <window us>" (Linux's struct psi_trigger). */
struct psi_trigger {
	enum psi_states state;
	u64 threshold;              /* ns */
	struct list_head node;      /* on group->triggers */
	struct psi_group *group;
	wait_queue_head_t event_wait;
	int event;                  /* an event not yet seen by poll (POLLPRI) */
	struct psi_window win;
	u64 last_event_time;
	bool pending_event;         /* a breach waiting out the rate limit */
};

extern struct psi_group psi_system;

u64 ktime_get_ns(void);
static inline u64 psi_group_clock(const struct psi_group *group)
{
	return group->clock ? group->clock() : ktime_get_ns();
}
/* psi= on the command line (Linux's setup_psi): false leaves every hook a
 * no-op and /proc/pressure/ empty of files. */
extern bool psi_enable;

/* Boot, once the clock runs and before any task but init and the idle
 * tasks exists (sched_init_smp): the system group, and init, the boot
 * CPU's current task, counted as running there. */
void psi_init(struct task_struct *init);

/* Marks the current task stalled on memory (reclaim, compaction, a
 * refault's read) until psi_memstall_leave; nested sections count once
 * (*flags remembers whether this one was the outer one). */
void psi_memstall_enter(unsigned long *flags);
void psi_memstall_leave(unsigned long *flags);

/* The scheduler's hooks (kernel/sched.c), with the run-queue lock of
 * p->cpu held, interrupts off (Linux's psi_enqueue, psi_dequeue,
 * psi_task_switch in kernel/sched/stats.h and psi.c):
 *   psi_enqueue: p becomes runnable on p->cpu; wakeup: it was asleep
 *     there (its sleep's I/O wait ends); otherwise it arrives from another
 *     CPU, where psi_dequeue_migrate took its counts off;
 *   psi_dequeue_migrate: p leaves p->cpu for another CPU, asleep or not;
 *   psi_task_switch: the CPU switches from prev to next; sleep: prev went
 *     to sleep (no longer runnable). */
void psi_enqueue(struct task_struct *p, bool wakeup);
void psi_dequeue_migrate(struct task_struct *p);
void psi_task_switch(struct task_struct *prev, struct task_struct *next, bool sleep);
/* The boot CPU's tick: runs the periodic aggregation when it is due. */
void psi_tick(void);

/* Linux's psi_show: the "some" and "full" lines of res into m. */
void psi_show(struct seq_buf *m, struct psi_group *group, enum psi_res res);

/* The parts below are the tests' (tests/psi_test.c), and the triggers'. */
void psi_group_init(struct psi_group *group, u64 (*clock)(void));
/* Linux's psi_group_change: the counts of cpu in group changed by clear and
 * set (TSK_* bits) at now; the states' time before now recorded. */
void psi_group_change(struct psi_group *group, unsigned int cpu, unsigned int clear, unsigned int set, u64 now,
		      bool wake_clock);
/* Linux's collect_percpu_times: folds the per-CPU buckets into
 * group->total[aggregator]; *changed_states (may be NULL) gets the states
 * that had time since the aggregator's last look. */
void psi_collect_percpu_times(struct psi_group *group, enum psi_aggregators aggregator, u32 *changed_states);
/* Linux's update_averages: feeds the totals since the last update into the
 * averages; returns when the next one is due. Under avgs_lock. */
u64 psi_update_averages(struct psi_group *group, u64 now);
/* Linux's calc_avgs: missed_periods of nothing, then one period with
 * time ns of stall in period ns. */
void psi_calc_avgs(unsigned long avg[3], int missed_periods, u64 time, u64 period);
/* Linux's calc_load_n (kernel/sched/loadavg.c): n steps of calc_load
 * toward active at once, exp raised to the nth power in fixed point
 * (fixed_power_int). */
unsigned long calc_load_n(unsigned long load, unsigned long exp, unsigned long active, unsigned int n);
unsigned long fixed_power_int(unsigned long x, unsigned int frac_bits, unsigned int n);
/* The period between averages, in ns (PSI_FREQ ticks). */
u64 psi_period_ns(void);
/* Whether an inconsistency was reported (Linux's psi_bug: a count going
 * below zero, a task's flags not matching a change): the tests check it
 * stays false. */
bool psi_bug_seen(void);

/* Triggers (kernel/psi_trigger.c, Linux's psi_trigger_create,
 * psi_trigger_destroy, psi_trigger_poll): buf "some|full <threshold us>
 * <window us>" for res; ERR_PTR-style: NULL with *err set (-EINVAL for a
 * malformed trigger or a window outside [500 ms, 10 s], -ENOMEM). */
struct psi_trigger *psi_trigger_create(struct psi_group *group, const char *buf, enum psi_res res, int *err);
void psi_trigger_destroy(struct psi_trigger *t);
struct file;
struct poll_table_struct;
unsigned int psi_trigger_poll(struct psi_trigger *t, struct file *file, struct poll_table_struct *wait);
/* psi_group_change's: the poll is due in delay jiffies (force: even if one
 * is scheduled). The tick's: runs it when due. */
void psi_schedule_poll_work(struct psi_group *group, u64 delay, bool force);
void psi_poll_tick(struct psi_group *group);

/* Linux's wait_for_completion_io: the wait counts as I/O wait
 * (task->in_iowait, NR_IOWAIT while asleep), as io_schedule's. */
void wait_for_completion_io(struct completion *x);

#endif
