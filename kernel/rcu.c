/* RCU grace periods and callbacks (see kernel/rcu.h for the API).
 *
 * Grace periods. rcu_state.gp_seq counts them as Linux's: even while idle,
 * odd while one runs, so GP n is gp_seq 2n-1 and ends when gp_seq reaches
 * 2n. Starting a GP sets qsmask to the online CPUs; each CPU clears its own
 * bit at its first quiescent state after it saw the bit set:
 *   - a context switch (schedule(), before it takes the run-queue lock),
 *   - cond_resched() and each pass of the idle loop,
 *   - a tick that interrupted user mode or the idle task (a CPU in hlt is
 *     woken by its tick, so an idle CPU reports at least every tick; a GP
 *     start also sends the reschedule IPI to idle CPUs to report at once).
 * None of these can happen inside a read-side section (the kernel is not
 * preemptible; a switch inside one is reported as a BUG and not counted),
 * so when qsmask is empty every reader that was running when the GP began
 * has finished. The CPU that clears the last bit ends the GP there and
 * then, and starts the next one if some callback needs it: the state
 * machine is driven by the quiescent states themselves (no GP thread), so
 * a GP is never ended early and never stalls while CPUs keep passing
 * quiescent states. All of rcu_state changes under rcu_state.lock.
 *
 * Callbacks. Each CPU keeps its callbacks in three segments, in order:
 *   done  - their GP has ended: ready to invoke;
 *   wait  - ready once gp_seq reaches wait_snap;
 *   next  - queued since the last look, no GP assigned yet.
 * Assigning a GP (rcu_accelerate_cbs) reads gp_seq under rcu_state.lock
 * after the callbacks were queued, and asks for the first GP that starts
 * after that moment (rcu_seq_snap): callbacks queued before GP n started
 * never ride on GP n. The CPU's kernel thread "rcuc/N" advances the
 * segments and invokes done callbacks, in queue order, with interrupts on.
 * It is woken when a GP ends and, as a backstop, by its own tick.
 *
 * Locks: rcu_data.lock (per CPU) -> rcu_state.lock; both with interrupts
 * off. The scheduler calls in before taking its run-queue lock, and tasks
 * are woken only after rcu_state.lock is released. */
#include "kernel/rcu.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/traps.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/wait.h"

struct rcu_cblist {
	struct rcu_head *head;
	struct rcu_head **tail;
	unsigned long len;
};

struct rcu_data {
	spinlock_t lock;
	struct rcu_cblist done, wait, next;
	unsigned long wait_snap;    /* gp_seq at which wait is done */
	struct task_struct *rcuc;   /* the callback thread */
	unsigned long cbs_invoked;
};

static struct {
	spinlock_t lock;
	unsigned long gp_seq;        /* even: idle, odd: a GP runs */
	unsigned long gp_seq_needed; /* the furthest gp_seq a callback waits for */
	unsigned long qsmask;        /* CPUs yet to report for this GP */
	u64 gp_start_ns;
	u64 gp_start_jiffies;
	u64 gp_max_ns;
	unsigned long gp_clock_anomalies;
	unsigned long cbs_queued;
	unsigned long sleep_bugs;
	bool ready;
} rcu_state = { .lock = __SPIN_LOCK_UNLOCKED };

DEFINE_PER_CPU(int, rcu_read_lock_nesting);
DEFINE_PER_CPU(struct rcu_data, rcu_data);

static void rcu_cblist_init(struct rcu_cblist *l)
{
	l->head = NULL;
	l->tail = &l->head;
	l->len = 0;
}

static void rcu_cblist_enqueue(struct rcu_cblist *l, struct rcu_head *h)
{
	h->next = NULL;
	*l->tail = h;
	l->tail = &h->next;
	l->len++;
}

/* Appends all of from to to, and empties from. */
static void rcu_cblist_splice(struct rcu_cblist *to, struct rcu_cblist *from)
{
	if (!from->head)
		return;
	*to->tail = from->head;
	to->tail = from->tail;
	to->len += from->len;
	rcu_cblist_init(from);
}

/* The gp_seq value at which a full GP will have passed since now. */
static unsigned long rcu_seq_snap(unsigned long s) { return (s + 3) & ~1ul; }

void __rcu_read_unlock_underflow(void)
{
	pr_err("BUG: rcu_read_unlock() without rcu_read_lock() on CPU %u (task %s)\n",
	       smp_processor_id(), current ? current->comm : "?");
}

/* The CPUs to send the reschedule IPI to for a new GP: the idle ones, which
 * would otherwise report only at their next tick. */
static void rcu_kick_idle_cpus(unsigned long mask)
{
	unsigned int me = smp_processor_id(), cpu;
	for_each_online_cpu(cpu)
		if (cpu != me && (mask >> cpu & 1) && idle_cpu(cpu))
			apic_send_ipi(cpu_physical_id(cpu), RESCHEDULE_VECTOR);
}

/* Caller holds rcu_state.lock. Returns the CPUs to kick. */
static unsigned long rcu_start_gp_locked(void)
{
	if ((rcu_state.gp_seq & 1) || rcu_state.gp_seq >= rcu_state.gp_seq_needed)
		return 0;
	rcu_state.gp_start_ns = ktime_get_ns();
	rcu_state.gp_start_jiffies = jiffies;
	WRITE_ONCE(rcu_state.gp_seq, rcu_state.gp_seq + 1);
	unsigned long mask = __atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE);
	__atomic_store_n(&rcu_state.qsmask, mask, __ATOMIC_RELEASE);
	return mask;
}

/* A grace period starts on one CPU and ends on another, so its length is a
 * difference of two CPUs' TSC readings: a TSC that differs between CPUs or
 * jumps (QEMU's TCG reads the host's; a hostile-firmware run saw a longest GP of
 * 12,599,969,831 us in a 241 s run) made the unsigned difference huge, and
 * nothing bounded it. Linux times GPs in jiffies (rcu_state.gp_start,
 * gp_max in rcu_gp_init/rcu_gp_cleanup): one counter, moved by one CPU's
 * tick. mmlab keeps the TSC's resolution but never reports a negative
 * length, nor more than the ticks that passed plus the two partial ticks
 * at the ends and one second: ticks are lost, not the TSC, while a loaded
 * host does not run the boot CPU's vCPU (QEMU coalesces missed LAPIC timer
 * periods), and a second of such lag is not what this guards against. */
u64 rcu_gp_duration_ns(u64 start_ns, u64 end_ns, u64 start_jiffies, u64 end_jiffies,
		       bool *anomaly)
{
	u64 ticks = end_jiffies >= start_jiffies ? end_jiffies - start_jiffies : 0;
	u64 bound = (ticks + 2) * TICK_NSEC + NSEC_PER_SEC;
	*anomaly = end_ns < start_ns || end_ns - start_ns > bound;
	if (end_ns < start_ns)
		return 0;
	return min(end_ns - start_ns, bound);
}

/* Caller holds rcu_state.lock; every CPU has reported. */
static void rcu_end_gp_locked(void)
{
	bool anomaly;
	u64 now = ktime_get_ns();
	u64 len = rcu_gp_duration_ns(rcu_state.gp_start_ns, now, rcu_state.gp_start_jiffies,
				     jiffies, &anomaly);
	if (anomaly && !rcu_state.gp_clock_anomalies++)
		pr_warn("rcu: the clock disagrees with the tick: a grace period from %llu ns to %llu "
			"ns took %llu ticks; counted as %llu ns\n",
			(unsigned long long)rcu_state.gp_start_ns, (unsigned long long)now,
			(unsigned long long)(jiffies - rcu_state.gp_start_jiffies),
			(unsigned long long)len);
	if (len > rcu_state.gp_max_ns)
		rcu_state.gp_max_ns = len;
	__atomic_store_n(&rcu_state.gp_seq, rcu_state.gp_seq + 1, __ATOMIC_RELEASE);
}

/* After a GP ended: wake the callback threads with callbacks waiting. */
static void rcu_wake_cb_threads(void)
{
	unsigned int cpu;
	for_each_online_cpu(cpu) {
		struct rcu_data *rdp = &per_cpu(rcu_data, cpu);
		if (rdp->rcuc && (READ_ONCE(rdp->wait.len) || READ_ONCE(rdp->done.len)))
			wake_up_process(rdp->rcuc);
	}
}

/* This CPU passed a quiescent state. Cheap when it owes nothing. */
static void rcu_qs(void)
{
	unsigned int cpu = smp_processor_id();
	if (!(__atomic_load_n(&rcu_state.qsmask, __ATOMIC_ACQUIRE) >> cpu & 1))
		return;
	unsigned long flags, kick = 0;
	bool ended = false;
	/* The lock (a full barrier) also orders the readers' loads that came
	 * before this QS ahead of the GP's end as the updater sees it. */
	spin_lock_irqsave(&rcu_state.lock, flags);
	unsigned long mask = rcu_state.qsmask;
	if (mask >> cpu & 1) {
		mask &= ~(1ul << cpu);
		__atomic_store_n(&rcu_state.qsmask, mask, __ATOMIC_RELEASE);
		if (!mask) {
			rcu_end_gp_locked();
			ended = true;
			kick = rcu_start_gp_locked();
		}
	}
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		rcu_wake_cb_threads();
	if (kick)
		rcu_kick_idle_cpus(kick);
}

void rcu_note_context_switch(void)
{
	int nesting = this_cpu_read(rcu_read_lock_nesting);
	if (unlikely(nesting > 0)) {
		/* Not a quiescent state: the section is still open on this CPU. */
		__atomic_fetch_add(&rcu_state.sleep_bugs, 1, __ATOMIC_RELAXED);
		pr_err("BUG: Illegal context switch in RCU read-side critical section: schedule() "
		       "called by %s on CPU %u with rcu_read_lock nesting %d\n",
		       current->comm, smp_processor_id(), nesting);
		show_backtrace((u64)(uintptr_t)__builtin_return_address(0),
			       (u64)(uintptr_t)__builtin_frame_address(0));
		return;
	}
	rcu_qs();
}

void rcu_all_qs(void)
{
	if (this_cpu_read(rcu_read_lock_nesting) == 0)
		rcu_qs();
}

/* Caller holds rdp->lock. Moves wait to done if its GP ended, then gives
 * next a GP (merging it into wait when they need the same one). Returns the
 * CPUs to kick if that started a GP. */
static unsigned long rcu_advance_cbs(struct rcu_data *rdp)
{
	unsigned long kick = 0, seq = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
	if (rdp->wait.len && seq >= rdp->wait_snap)
		rcu_cblist_splice(&rdp->done, &rdp->wait);
	if (!rdp->next.len)
		return 0;
	spin_lock(&rcu_state.lock);
	unsigned long snap = rcu_seq_snap(rcu_state.gp_seq);
	if (!rdp->wait.len || rdp->wait_snap == snap) {
		rcu_cblist_splice(&rdp->wait, &rdp->next);
		rdp->wait_snap = snap;
		if (rcu_state.gp_seq_needed < snap)
			rcu_state.gp_seq_needed = snap;
		kick = rcu_start_gp_locked();
	}
	/* Else next waits until wait is done (its GP is already asked for). */
	spin_unlock(&rcu_state.lock);
	return kick;
}

static void rcu_enqueue(unsigned int cpu, struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp = &per_cpu(rcu_data, cpu);
	unsigned long flags;
	head->func = func;
	spin_lock_irqsave(&rdp->lock, flags);
	rcu_cblist_enqueue(&rdp->next, head);
	unsigned long kick = rcu_advance_cbs(rdp);
	bool ready = rdp->done.len != 0;
	spin_unlock_irqrestore(&rdp->lock, flags);
	__atomic_fetch_add(&rcu_state.cbs_queued, 1, __ATOMIC_RELAXED);
	if (ready)
		wake_up_process(rdp->rcuc);
	if (kick)
		rcu_kick_idle_cpus(kick);
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	if (unlikely(!rcu_state.ready))
		panic("BUG: call_rcu() before rcu_init()");
	rcu_enqueue(smp_processor_id(), head, func);
}

/* Whether rcuc has work: callbacks to invoke, or segments to advance. */
static bool rcu_cbs_ready(struct rcu_data *rdp)
{
	unsigned long flags;
	spin_lock_irqsave(&rdp->lock, flags);
	unsigned long seq = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
	bool ready = rdp->done.len || (rdp->wait.len && seq >= rdp->wait_snap) ||
		     (rdp->next.len && !rdp->wait.len);
	spin_unlock_irqrestore(&rdp->lock, flags);
	return ready;
}

/* rcuc/N: runs this CPU's callbacks whose grace period has ended. */
static int rcu_cpu_kthread(void *arg)
{
	struct rcu_data *rdp = arg;
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!rcu_cbs_ready(rdp))
			schedule();
		__set_current_state(TASK_RUNNING);

		unsigned long flags;
		spin_lock_irqsave(&rdp->lock, flags);
		unsigned long kick = rcu_advance_cbs(rdp);
		struct rcu_cblist batch = rdp->done;
		if (!batch.head)
			batch.tail = &batch.head;
		rcu_cblist_init(&rdp->done);
		spin_unlock_irqrestore(&rdp->lock, flags);
		if (kick)
			rcu_kick_idle_cpus(kick);

		for (struct rcu_head *h = batch.head, *n; h; h = n) {
			n = h->next;
			WRITE_ONCE(rdp->cbs_invoked, rdp->cbs_invoked + 1);
			h->func(h); /* may free h */
			cond_resched();
		}
	}
	return 0;
}

/* The tick (every CPU, interrupts off). */
static void rcu_sched_clock_irq(bool user)
{
	if (!rcu_state.ready)
		return;
	struct task_struct *t = current;
	if ((user || is_idle_task(t)) && this_cpu_read(rcu_read_lock_nesting) == 0)
		rcu_qs();
	/* Backstop for a missed wakeup: callbacks ready, rcuc asleep. */
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	if (rdp->rcuc && READ_ONCE(rdp->rcuc->__state) != TASK_RUNNING && rcu_cbs_ready(rdp))
		wake_up_process(rdp->rcuc);
}

struct rcu_synchronize {
	struct rcu_head head;
	struct completion completion;
};

static void wakeme_after_rcu(struct rcu_head *head)
{
	struct rcu_synchronize *rs = container_of(head, struct rcu_synchronize, head);
	complete(&rs->completion);
}

void synchronize_rcu(void)
{
	if (rcu_read_lock_held())
		pr_err("BUG: synchronize_rcu() inside an RCU read-side critical section (%s, CPU %u)\n",
		       current->comm, smp_processor_id());
	struct rcu_synchronize rs;
	init_completion(&rs.completion);
	call_rcu(&rs.head, wakeme_after_rcu);
	wait_for_completion(&rs.completion);
}

struct rcu_barrier_cpu {
	struct rcu_head head;
	struct rcu_barrier_state *state;
};
struct rcu_barrier_state {
	unsigned long pending;
	struct completion done;
	struct rcu_barrier_cpu cpus[NR_CPUS];
};

static void rcu_barrier_callback(struct rcu_head *head)
{
	struct rcu_barrier_state *s = container_of(head, struct rcu_barrier_cpu, head)->state;
	if (__atomic_sub_fetch(&s->pending, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&s->done);
}

/* A callback at the tail of every CPU's list: each CPU invokes its list in
 * order, so when all of them have run, everything queued before has. */
void rcu_barrier(void)
{
	static struct rcu_barrier_state s; /* big for a stack: one at a time */
	static DECLARE_COMPLETION(busy_done);
	static bool busy;
	/* Serialise callers: one barrier covers the other's callbacks anyway,
	 * but s is shared. */
	while (__atomic_exchange_n(&busy, true, __ATOMIC_ACQUIRE))
		wait_for_completion_timeout(&busy_done, 1);
	init_completion(&s.done);
	s.pending = 1;
	unsigned int cpu;
	for_each_online_cpu(cpu) {
		s.cpus[cpu].state = &s;
		__atomic_fetch_add(&s.pending, 1, __ATOMIC_RELAXED);
		rcu_enqueue(cpu, &s.cpus[cpu].head, rcu_barrier_callback);
	}
	if (__atomic_sub_fetch(&s.pending, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&s.done);
	wait_for_completion(&s.done);
	__atomic_store_n(&busy, false, __ATOMIC_RELEASE);
	complete(&busy_done);
}

unsigned long rcu_gp_completed(void) { return __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE) / 2; }

void rcu_get_stats(struct rcu_stats *s)
{
	unsigned int cpu;
	s->gp_completed = rcu_gp_completed();
	s->cbs_queued = __atomic_load_n(&rcu_state.cbs_queued, __ATOMIC_RELAXED);
	s->cbs_invoked = 0;
	for_each_online_cpu(cpu)
		s->cbs_invoked += READ_ONCE(per_cpu(rcu_data, cpu).cbs_invoked);
	s->cbs_pending = s->cbs_queued - s->cbs_invoked;
	s->gp_max_ns = READ_ONCE(rcu_state.gp_max_ns);
	s->sleep_bugs = READ_ONCE(rcu_state.sleep_bugs);
	s->gp_clock_anomalies = READ_ONCE(rcu_state.gp_clock_anomalies);
}

void rcu_print_stats(void)
{
	struct rcu_stats s;
	rcu_get_stats(&s);
	pr_info("rcu: %lu grace periods, %lu callbacks queued, %lu invoked, %lu pending, longest grace "
		"period %lu.%03lu ms\n",
		s.gp_completed, s.cbs_queued, s.cbs_invoked, s.cbs_pending,
		(unsigned long)(s.gp_max_ns / 1000000), (unsigned long)(s.gp_max_ns / 1000 % 1000));
}

void rcu_init(void)
{
	unsigned int cpu;
	for_each_online_cpu(cpu) {
		struct rcu_data *rdp = &per_cpu(rcu_data, cpu);
		spin_lock_init(&rdp->lock);
		rcu_cblist_init(&rdp->done);
		rcu_cblist_init(&rdp->wait);
		rcu_cblist_init(&rdp->next);
		rdp->cbs_invoked = 0;
		per_cpu(rcu_read_lock_nesting, cpu) = 0;
		rdp->rcuc = kthread_create_on_cpu(rcu_cpu_kthread, rdp, cpu, "rcuc/%u");
		if (!rdp->rcuc)
			panic("rcu: cannot create rcuc/%u", cpu);
	}
	register_tick_hook(rcu_sched_clock_irq);
	__atomic_store_n(&rcu_state.ready, true, __ATOMIC_RELEASE);
	for_each_online_cpu(cpu)
		wake_up_process(per_cpu(rcu_data, cpu).rcuc);
	pr_info("rcu: callback threads on %u CPUs\n", num_online_cpus());
}
