/* Read-copy update, for a non-preemptible kernel (Linux's "Tree RCU"
 * reduced to one level, with its names).
 *
 * Readers: rcu_read_lock(); p = rcu_dereference(gp); ... rcu_read_unlock();
 * A read-side critical section must not sleep (schedule() inside one is
 * reported as a BUG). Since the kernel is not preemptible, a reader stays on
 * its CPU and keeps it until the section ends, so the read side is only a
 * per-CPU nesting count (kept for those checks).
 *
 * Updaters: publish with rcu_assign_pointer(gp, new); retire the old object
 * with call_rcu(&old->rcu, free_fn), or synchronize_rcu() then free it.
 *
 * The guarantee: a callback queued by call_rcu() runs only after every CPU
 * online when the grace period started has passed a quiescent state (a
 * context switch, the idle loop, cond_resched(), or a tick that interrupted
 * user mode or the idle task), so no reader that could have seen the old
 * object is still inside its section. Callbacks run in the kernel thread
 * "rcuc/N" of the CPU that queued them, in the order they were queued,
 * never in call_rcu's caller and never in interrupt context. */
#ifndef KERNEL_RCU_H
#define KERNEL_RCU_H

#include "kernel/percpu.h"
#include "kernel/types.h"

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *head);

DECLARE_PER_CPU(int, rcu_read_lock_nesting);

void __rcu_read_unlock_underflow(void);

/* One read of this CPU's offset for the read and the write of the count
 * (the task cannot move to another CPU in between: nothing here sleeps). */
static inline void rcu_read_lock(void)
{
	int *nesting = this_cpu_ptr(&rcu_read_lock_nesting);
	*nesting += 1;
	barrier(); /* the section's loads stay after the increment */
}

static inline void rcu_read_unlock(void)
{
	barrier(); /* the section's loads stay before the decrement */
	int *nesting = this_cpu_ptr(&rcu_read_lock_nesting);
	int n = *nesting - 1;
	if (unlikely(n < 0)) {
		__rcu_read_unlock_underflow();
		return;
	}
	*nesting = n;
}

/* Whether this CPU is inside a read-side critical section. */
static inline bool rcu_read_lock_held(void) { return this_cpu_read(rcu_read_lock_nesting) > 0; }

/* A release store: the object's initialisation is visible before the
 * pointer to it. */
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
/* A single load the compiler cannot repeat or move before the section's
 * start; on x86 loads are not reordered with dependent loads, so this is
 * Linux's READ_ONCE-based rcu_dereference. */
#define rcu_dereference(p)                                                            \
	({                                                                            \
		__typeof__(p) __p = READ_ONCE(p);                                     \
		barrier();                                                            \
		__p;                                                                  \
	})
#define rcu_access_pointer(p) READ_ONCE(p)
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)

/* Queues func(head) to run after a grace period, on this CPU's list. May be
 * called from interrupt handlers. */
void call_rcu(struct rcu_head *head, rcu_callback_t func);
/* Waits for a full grace period (sleeps: not in a read-side section). */
void synchronize_rcu(void);
/* Waits until every callback queued (on any CPU) before it has run. */
void rcu_barrier(void);

/* Quiescent states, reported by the scheduler: at every context switch
 * (also checks for a switch inside a read-side section), and from
 * cond_resched() and the idle loop. */
void rcu_note_context_switch(void);
void rcu_all_qs(void);

struct rcu_stats {
	unsigned long gp_completed; /* grace periods ended */
	unsigned long cbs_queued;   /* call_rcu() calls */
	unsigned long cbs_invoked;  /* callbacks started (counted before each runs) */
	unsigned long cbs_pending;  /* queued, not yet invoked */
	u64 gp_max_ns;              /* the longest grace period */
	unsigned long sleep_bugs;   /* schedule() inside a read-side section */
	/* GPs whose TSC length went backwards or beyond the ticks that passed */
	unsigned long gp_clock_anomalies;
};
/* A GP's length from its TSC times, bounded by the jiffies between them
 * (kernel/rcu.c); *anomaly says the bound or a backwards clock applied. */
u64 rcu_gp_duration_ns(u64 start_ns, u64 end_ns, u64 start_jiffies, u64 end_jiffies,
		       bool *anomaly);
void rcu_get_stats(struct rcu_stats *s);
/* One line: "rcu: N grace periods, ... ". */
void rcu_print_stats(void);
/* The number of grace periods completed so far. */
unsigned long rcu_gp_completed(void);

/* After sched_init_smp: the per-CPU callback threads and the tick hook. */
void rcu_init(void);

#endif
