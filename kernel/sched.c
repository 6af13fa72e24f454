/* The scheduler: per-CPU run queues, the context switch, kernel threads
 * and the idle tasks. Sleeping with a timeout, the tick's accounting and
 * the load average are kernel/sched_time.c's; what the two share,
 * kernel/sched_internal.h.
 *
 * Invariants (each CPU's struct rq, under rq->lock):
 *   - rq->curr is the task running on the CPU; it is never on rq->queue;
 *   - rq->queue holds the CPU's other runnable tasks, first come first run;
 *     the idle task is never queued: it runs when the queue is empty;
 *   - a task's on_rq is TASK_ON_RQ_QUEUED while it is queued or current; a
 *     task sleeping (state not TASK_RUNNING) after schedule() has on_rq 0
 *     and is only put back by a wakeup;
 *   - a task's run queue is cpu_rq(task->cpu); task->cpu changes only
 *     under that queue's lock, while the task is off every CPU and on no
 *     queue, and the task is then TASK_ON_RQ_MIGRATING until it is on its
 *     new queue (attach_task). So whoever holds cpu_rq(p->cpu)->lock and
 *     sees p->on_rq != TASK_ON_RQ_MIGRATING has p where p->cpu says
 *     (task_rq_lock, Linux's);
 *   - a task sleeping with a timer (schedule_timeout) has it on the timers
 *     of the CPU it sleeps on: sleeping tasks are not moved, the wakeup
 *     moves them.
 * The run queue lock is held, with interrupts off, across the switch: the
 * task switched to releases it (finish_task_switch). A task that exited is
 * reported to its reaper only from there, once the CPU is off its stack;
 * a task that leaves its CPU for another one (it is no longer allowed
 * here) is put on its new queue from there too.
 *
 * Scheduling points: see kernel/sched.h (schedule, cond_resched, sleeping
 * calls, thread exit, idle loop). The tick never preempts. */
#include "kernel/sched_internal.h"
#include "kernel/pid.h"
#include "kernel/cred.h"
#include "mm/vmalloc.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/psi.h"
#include "kernel/rcu.h"
#include "kernel/sections.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "mm/memory.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

_Static_assert(offsetof(struct task_struct, thread_sp) == 0, "switch_to.asm expects thread_sp at 0");


DEFINE_PER_CPU(struct rq, runqueues);
DEFINE_PER_CPU(struct task_struct *, current_task);

/* Set by each CPU once its run queue is initialised (not per-CPU: an AP's
 * area starts as a copy of the boot CPU's). */
static bool rq_active[NR_CPUS];
static struct task_struct init_task;
static struct task_struct ap_idle_tasks[NR_CPUS]; /* on the APs' start-up stacks */
static bool (*stack_contains_before)(u64 addr);

struct task_struct *__switch_to_asm(struct task_struct *prev, struct task_struct *next);
void ret_from_kthread(void);
void schedule_tail(struct task_struct *prev);
__noreturn void kthread_entry(struct task_struct *p);


static void rq_init(struct rq *rq, struct task_struct *idle, struct task_struct *curr)
{
	spin_lock_init(&rq->lock);
	INIT_LIST_HEAD(&rq->queue);
	INIT_LIST_HEAD(&rq->timers);
	rq->nr_queued = 0;
	rq->nr_switches = rq->nr_resched_ipis = 0;
	memset(&rq->cpustat, 0, sizeof(rq->cpustat));
	rq->idle = idle;
	rq->curr = curr;
}

/* Caller holds rq->lock. */
static void enqueue_task(struct rq *rq, struct task_struct *p)
{
	list_add_tail(&p->run_list, &rq->queue);
	rq->nr_queued++;
}

/* Linux's task_rq_lock: locks the run queue p is on, with p->cpu stable
 * (p is not between two queues); interrupts off. */
static struct rq *task_rq_lock(struct task_struct *p, unsigned long *flags)
{
	for (;;) {
		unsigned int cpu = READ_ONCE(p->cpu);
		struct rq *rq = cpu_rq(cpu);
		spin_lock_irqsave(&rq->lock, *flags);
		if (likely(READ_ONCE(p->cpu) == cpu && READ_ONCE(p->on_rq) != TASK_ON_RQ_MIGRATING))
			return rq;
		spin_unlock_irqrestore(&rq->lock, *flags);
		/* The mover holds no lock we hold: it finishes. */
		while (READ_ONCE(p->on_rq) == TASK_ON_RQ_MIGRATING)
			cpu_relax();
	}
}

bool sched_cpu_active(unsigned int cpu)
{
	return cpu < NR_CPUS && __atomic_load_n(&rq_active[cpu], __ATOMIC_ACQUIRE);
}

unsigned int cpu_load(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	return READ_ONCE(rq->nr_queued) + (READ_ONCE(rq->curr) != rq->idle);
}

/* The least loaded online CPU of mask whose scheduler runs (cpu_load);
 * ties go to prefer if it is one of them, else to the lowest number.
 * NR_CPUS if mask has none. Lock-free: the loads are a snapshot. */
static unsigned int select_least_loaded(const struct cpumask *mask, unsigned int prefer)
{
	unsigned int best = NR_CPUS, best_load = ~0u, cpu;
	u64 bits = READ_ONCE(mask->bits);
	struct cpumask m = { bits };
	if (cpumask_test_cpu(prefer, &m) && cpu_online(prefer) &&
	    __atomic_load_n(&rq_active[prefer], __ATOMIC_ACQUIRE)) {
		best = prefer;
		best_load = cpu_load(prefer);
	}
	for_each_online_cpu(cpu) {
		if (!cpumask_test_cpu(cpu, &m) || !__atomic_load_n(&rq_active[cpu], __ATOMIC_ACQUIRE))
			continue;
		unsigned int load = cpu_load(cpu);
		if (load < best_load) {
			best = cpu;
			best_load = load;
		}
	}
	return best;
}

/* Takes p, off every CPU and off every queue, away from the queue rq
 * (locked) to dest: Linux's move_queued_task, first half. The caller
 * drops rq->lock and then calls attach_task(p). */
static void detach_task_to(struct task_struct *p, unsigned int dest)
{
	psi_dequeue_migrate(p);
	WRITE_ONCE(p->on_rq, TASK_ON_RQ_MIGRATING);
	WRITE_ONCE(p->cpu, dest);
}

/* The second half: p (TASK_ON_RQ_MIGRATING, p->cpu its new CPU) goes on
 * its new queue. Interrupts off, no run-queue lock held. */
void attach_task(struct task_struct *p)
{
	unsigned int cpu = p->cpu;
	struct rq *rq = cpu_rq(cpu);
	spin_lock(&rq->lock);
	enqueue_task(rq, p);
	WRITE_ONCE(rq->need_resched, true);
	p->nr_migrations++;
	WRITE_ONCE(p->on_rq, TASK_ON_RQ_QUEUED);
	psi_enqueue(p, false);
	bool kick = cpu != smp_processor_id() && rq->curr == rq->idle;
	spin_unlock(&rq->lock);
	if (kick)
		apic_send_ipi(cpu_physical_id(cpu), RESCHEDULE_VECTOR);
}

/* Caller holds rq->lock, rq = cpu_rq(p->cpu), and p is not migrating.
 * Linux's try_to_wake_up, with select_task_rq: a task asleep on a CPU it
 * may no longer use is detached to the least loaded allowed one (*moved:
 * the caller attach_task()s it after dropping rq->lock). A woken sleeper
 * asks the CPU's current task to give way at its next return to user
 * mode (preempt; Linux's check_preempt_curr, which CFS answers yes for a
 * sleeper, whose vruntime is behind); a new task does not (preempt
 * false: wake_up_new_task). */
bool ttwu_locked(struct rq *rq, struct task_struct *p, unsigned int state, bool *moved, bool preempt)
{
	*moved = false;
	if (!(p->__state & state))
		return false;
	WRITE_ONCE(p->__state, TASK_RUNNING);
	if (p->on_rq) /* still its CPU's current task, or queued */
		return true;
	/* on_rq 0 under the lock: schedule() has switched away from it, so
	 * it is off the CPU and may move. */
	if (unlikely(!cpumask_test_cpu(p->cpu, &p->cpus_mask))) {
		unsigned int dest = select_least_loaded(&p->cpus_mask, p->cpu);
		if (dest < NR_CPUS) {
			detach_task_to(p, dest);
			*moved = true;
			return true;
		}
	}
	p->on_rq = TASK_ON_RQ_QUEUED;
	enqueue_task(rq, p);
	if (preempt)
		WRITE_ONCE(rq->need_resched, true);
	psi_enqueue(p, true);
	return true;
}

static int try_to_wake_up(struct task_struct *p, unsigned int state, bool preempt)
{
	unsigned int cpu = READ_ONCE(p->cpu);
	unsigned long flags;
	bool moved;

	if (unlikely(!__atomic_load_n(&rq_active[cpu], __ATOMIC_ACQUIRE)))
		panic("BUG: wake_up_process(%s) on CPU %u, whose scheduler is not running", p->comm, cpu);
	/* The lock (a locked instruction: a full barrier) orders the waker's
	 * condition store before the read of the sleeper's state. */
	struct rq *rq = task_rq_lock(p, &flags);
	cpu = p->cpu;
	bool woke = ttwu_locked(rq, p, state, &moved, preempt);
	bool kick = woke && !moved && cpu != smp_processor_id() && rq->curr == rq->idle;
	spin_unlock(&rq->lock);
	if (moved)
		attach_task(p); /* kicks its new CPU if that one idles */
	local_irq_restore(flags);
	/* An idle CPU sits in hlt: the IPI makes its idle loop look again. A
	 * busy one finds the task at its next scheduling point. */
	if (kick)
		apic_send_ipi(cpu_physical_id(cpu), RESCHEDULE_VECTOR);
	return woke;
}

int wake_up_state(struct task_struct *p, unsigned int state) { return try_to_wake_up(p, state, true); }
bool wake_up_process(struct task_struct *p) { return wake_up_state(p, TASK_NORMAL); }
void wake_up_new_task(struct task_struct *p) { try_to_wake_up(p, TASK_NORMAL, false); }

/* In the task switched to, with rq->lock held and interrupts off. prev
 * is off this CPU's stack from here on: a prev that leaves this CPU
 * (schedule() marked it TASK_ON_RQ_MIGRATING) changes CPU under the lock
 * and goes on its new queue once the lock is dropped. */
static void finish_task_switch(struct task_struct *prev)
{
	struct rq *rq = this_rq();
	bool dead = prev->__state == TASK_DEAD;
	bool move = prev->on_rq == TASK_ON_RQ_MIGRATING;
	if (move) {
		psi_dequeue_migrate(prev); /* its counts leave with it */
		WRITE_ONCE(prev->cpu, prev->migration_dest);
	}
	spin_unlock(&rq->lock);
	if (move)
		attach_task(prev);
	if (dead)
		complete_all(&prev->exited); /* its reaper may free it from now on */
}

void schedule_tail(struct task_struct *prev)
{
	finish_task_switch(prev);
	__asm__ volatile("sti" ::: "memory");
}

/* Cheap enough to keep: the frame __switch_to_asm is about to pop for next
 * must return into kernel text. A saved frame that was overwritten (a
 * task's stack freed or reused while the task was switched out, or a second
 * CPU running on it) is reported here, naming both tasks, instead of as a
 * jump to whatever the frame holds (RIP 0 for a zeroed one). A task with a
 * stack of its own must have saved its frame inside it: a freed task_struct
 * (poisoned by kthread_join) holds no pointer worth following, so the frame
 * is read only then. Every task's first frame is create_task's (returning
 * to ret_from_kthread); the others' are __switch_to_asm's own. */
static void check_switch_frame(const struct task_struct *prev, const struct task_struct *next)
{
	const u64 *sp = (const u64 *)next->thread_sp;
	u64 lo = (u64)(uintptr_t)next->stack, frame = 8 * sizeof(u64);
	bool inside = next->stack ? next->thread_sp >= lo && next->thread_sp <= lo + THREAD_SIZE - frame
				  : sp != NULL;
	u64 ret = inside ? sp[7] : 0; /* r15 r14 r13 r12 rbx rbp rflags, then the return address */
	if (likely(next->cpu == smp_processor_id() && ret >= (u64)(uintptr_t)_text &&
		   ret < (u64)(uintptr_t)_etext))
		return;
	panic("BUG: switch from %.16s (%p) to %.16s (%p) on CPU %u: its saved frame at %#lx returns to %#lx "
	      "(task of CPU %u, state %#lx, stack %p)",
	      prev->comm, prev, next->comm, next, smp_processor_id(), next->thread_sp, ret, next->cpu,
	      next->__state, next->stack);
}

void schedule(void)
{
	struct task_struct *prev = current, *next;
	struct rq *rq = this_rq();
	unsigned int cpu = smp_processor_id();
	unsigned long flags;

	/* Before the run-queue lock (lock order): a quiescent state, or a BUG
	 * report for a switch inside a read-side section. */
	rcu_note_context_switch();
	if (prev->stack && *(unsigned long *)prev->stack != STACK_END_MAGIC)
		panic("BUG: stack overflow in task %s (CPU %u): the stack end magic is gone", prev->comm,
		      prev->cpu);

	spin_lock_irqsave(&rq->lock, flags);
	rq->need_resched = false;
	if (prev->__state == TASK_RUNNING) {
		if (!is_idle_task(prev)) {
			/* No longer allowed here (set_cpus_allowed_ptr): it leaves
			 * for the least loaded CPU it may use; finish_task_switch
			 * moves it once this CPU is off its stack. */
			unsigned int dest = NR_CPUS;
			if (unlikely(!cpumask_test_cpu(cpu, &prev->cpus_mask)))
				dest = select_least_loaded(&prev->cpus_mask, cpu);
			if (dest < NR_CPUS) {
				prev->migration_dest = dest;
				WRITE_ONCE(prev->on_rq, TASK_ON_RQ_MIGRATING);
			} else if (!rq->nr_queued) {
				/* Nothing else to run: carry on. */
				spin_unlock_irqrestore(&rq->lock, flags);
				return;
			} else {
				enqueue_task(rq, prev); /* a yield: to the back of the queue */
			}
		}
	} else {
		prev->on_rq = 0; /* sleeping (or dead) until woken */
	}
	if (rq->nr_queued) {
		next = list_first_entry(&rq->queue, struct task_struct, run_list);
		list_del(&next->run_list);
		INIT_LIST_HEAD(&next->run_list); /* "not queued", for kthread_join's check */
		rq->nr_queued--;
	} else {
		next = rq->idle;
	}
	if (next == prev) {
		spin_unlock_irqrestore(&rq->lock, flags);
		return;
	}
	check_switch_frame(prev, next);
	rq->curr = next;
	this_cpu_write(current_task, next);
	/* After rq->curr (Linux's psi_sched_switch): a reclaiming next makes
	 * the CPU's memory stall FULL. prev sleeps unless it stays queued or
	 * leaves for another CPU. */
	psi_task_switch(prev, next, prev->on_rq == 0);
	/* User context: the address space, the stack that user-mode entries
	 * land on, the SSE registers and the FS/GS bases (kernel threads use none of
	 * them). */
	if (prev->mm != next->mm)
		switch_mm(prev->mm, next->mm);
	if (next->mm)
		set_kernel_stack((unsigned long)next->stack + THREAD_SIZE);
	if (prev->fpu_state || next->fpu_state)
		fpu_switch(prev->fpu_state, next->fpu_state);
	switch_fsgs(prev, next);
	rq->nr_switches++;
	/* As Linux's __schedule: a task that goes to sleep gave the CPU up;
	 * one still runnable was preempted or yielded. */
	if (prev->__state == TASK_RUNNING)
		prev->nivcsw++;
	else
		prev->nvcsw++;
	prev = __switch_to_asm(prev, next);
	/* Running as the original task again; prev is who ran before us. */
	finish_task_switch(prev);
	local_irq_restore(flags);
}

/* The current task's mask no longer has this CPU (set_cpus_allowed_ptr
 * from another CPU, which kicked this one): its next schedule() moves it. */
static bool must_leave_this_cpu(void)
{
	struct task_struct *p = current;
	return !is_idle_task(p) && !(READ_ONCE(p->cpus_mask.bits) >> smp_processor_id() & 1) &&
	       READ_ONCE(p->cpus_mask.bits);
}

void exit_to_user_mode_prepare(void)
{
	/* Only when asked (need_resched: the tick ended the task's slice while
	 * others wait, or a sleeper woke here), as Linux's: a task that makes
	 * system calls keeps the CPU for its slice, as one that computes
	 * does. (Every return with another task queued used to switch: a
	 * process starting threads that spin on one CPU waited a round of
	 * their slices after each of its calls.) One switch at most: the task
	 * runs again once the others queued now had their turn. */
	__asm__ volatile("cli" ::: "memory");
	struct rq *rq = this_rq();
	if ((READ_ONCE(rq->need_resched) && READ_ONCE(rq->nr_queued)) || must_leave_this_cpu()) {
		/* The outermost frame of a user-mode entry (after the interrupt's
		 * EOI): nothing is held, interrupts may come. */
		__asm__ volatile("sti" ::: "memory");
		schedule();
		/* The entry code's way out swaps GS back to the user's: no
		 * interrupt may come in between. */
		__asm__ volatile("cli" ::: "memory");
	}
	/* After the switch too: a signal or group exit that came while this
	 * thread was queued. One signal per pass, each on a frame of its own
	 * (Linux's exit_to_user_mode_loop); an interrupted system call is
	 * restarted or ends with -EINTR even when nothing is left pending. */
	struct task_struct *p = current;
	while (unlikely(signal_pending(p) || (p->signal && syscall_needs_restart_work(task_pt_regs(p))))) {
		__asm__ volatile("sti" ::: "memory");
		arch_do_signal_or_restart(); /* arch/x86_64/signal.c: does not return for a group exit */
		__asm__ volatile("cli" ::: "memory");
	}
}

bool cond_resched(void)
{
	rcu_all_qs();
	if (READ_ONCE(this_rq()->nr_queued) || must_leave_this_cpu()) {
		schedule();
		return true;
	}
	return false;
}

/* Nothing to do but note it: the interrupt itself ended the hlt, and the
 * idle loop now finds the queued task. */
static void reschedule_interrupt(struct pt_regs *regs)
{
	(void)regs;
	apic_eoi();
	this_rq()->nr_resched_ipis++;
}

/* Each CPU's idle task. It holds no RCU references, so every pass is a
 * quiescent state; while it halts, each tick that wakes it reports one too
 * (kernel/rcu.c's tick hook). The queue is checked with interrupts off and
 * "sti; hlt" halts in the interrupt shadow of sti, so a wakeup IPI that
 * arrives after the check still ends the hlt. */
static __noreturn void cpu_idle_loop(void)
{
	struct rq *rq = this_rq();
	for (;;) {
		rcu_all_qs();
		local_irq_disable();
		if (READ_ONCE(rq->nr_queued)) {
			__asm__ volatile("sti" ::: "memory");
			schedule();
			continue;
		}
		/* Idle from here until the interrupt that ends the hlt
		 * (idle_irq_enter). */
		WRITE_ONCE(rq->idle_entrytime, ktime_get_ns());
		__asm__ volatile("sti; hlt" ::: "memory");
		idle_irq_enter();
	}
}

void idle_irq_enter(void)
{
	struct rq *rq = this_rq();
	u64 entry = READ_ONCE(rq->idle_entrytime);
	if (!entry)
		return;
	WRITE_ONCE(rq->idle_entrytime, 0);
	u64 *idle = &rq->cpustat.cpustat[CPUTIME_IDLE];
	WRITE_ONCE(*idle, *idle + (ktime_get_ns() - entry));
}

static int idle_thread_fn(void *unused)
{
	(void)unused;
	cpu_idle_loop();
}

__noreturn void kthread_entry(struct task_struct *p)
{
	int ret = -EINTR;
	if (!READ_ONCE(p->should_stop))
		ret = p->threadfn(p->data);
	do_exit(ret);
}

__noreturn void do_exit(int code)
{
	struct task_struct *me = current;
	if (is_idle_task(me) || me == &init_task)
		panic("BUG: do_exit() in %s", me->comm);
	me->exit_code = code;
	set_current_state(TASK_DEAD);
	schedule();
	panic("BUG: dead task %s ran again", me->comm);
}

/* Kernel stacks come from vmalloc (Linux's CONFIG_VMAP_STACK,
 * alloc_thread_stack_node): THREAD_SIZE-aligned, on the thread's node,
 * with an unmapped page below (the guard of the area under it, or free
 * space: mm/vmalloc.c), so an overflow faults at once instead of writing
 * over whatever lies below. A dead thread's stack is vfree'd as any
 * vmalloc area: its pages go back at once, and its range waits on the lazy
 * purge list with the others (as Linux's vfree). Purging it at every exit
 * would broadcast a TLB-flush IPI per exiting thread and wait for every
 * CPU's answer: under vCPU overcommit a chain of 1,000 forks spent most of
 * its time there. */
static void *alloc_thread_stack_node(int nid)
{
	return __vmalloc_node_range(THREAD_SIZE, THREAD_SIZE, VMALLOC_START, VMALLOC_END, GFP_KERNEL,
				    PAGE_KERNEL_VMALLOC, VM_STACK, nid, __builtin_return_address(0));
}

void free_thread_stack(void *stack)
{
	if (!stack)
		return;
	vfree(stack);
}

/* The task whose stack has addr in the page below it (its guard), for the
 * panic report of an overflow; only the current task is looked at (a #DF
 * runs with the overflowing task current). */
static bool task_stack_guard_hit(u64 addr, char *buf, size_t size)
{
	struct task_struct *t = current;
	u64 lo = (u64)(uintptr_t)(t ? t->stack : NULL);
	if (!lo || addr < lo - PAGE_SIZE || addr >= lo + 64)
		return false;
	snprintf(buf, size, "the guard page below the vmalloc'ed stack of task %s (pid %d, stack %#lx-%#lx)",
		 t->comm, t->pid, (unsigned long)lo, (unsigned long)(lo + THREAD_SIZE));
	return true;
}

struct task_struct *create_task(int (*threadfn)(void *), void *data, unsigned int cpu, const char *name,
				unsigned int flags)
{
	int nid = cpu_to_node(cpu);
	struct task_struct *p = kzalloc_node(sizeof(*p), GFP_KERNEL, nid);
	void *stack = alloc_thread_stack_node(nid);
	if (!p || !stack) {
		pr_err("sched: no memory for a thread on CPU %u\n", cpu);
		kfree(p);
		free_thread_stack(stack);
		return NULL;
	}
	p->stack = stack;
	__atomic_add_fetch(&total_forks, 1, __ATOMIC_RELAXED);
	*(unsigned long *)p->stack = STACK_END_MAGIC;
	strlcpy(p->comm, name, sizeof(p->comm));
	p->cpu = cpu;
	p->cpus_mask.bits = 1ull << cpu; /* bound (Linux's kthread_bind) */
	p->nr_cpus_allowed = 1;
	p->flags = flags;
	p->threadfn = threadfn;
	p->data = data;
	p->start_boottime = ktime_get_ns();
	p->cred = get_cred(&init_cred); /* a process's own come at fork (copy_creds) */
	p->__state = TASK_UNINTERRUPTIBLE; /* until wake_up_process(), as Linux's kthreads */
	INIT_LIST_HEAD(&p->run_list);
	INIT_LIST_HEAD(&p->pid_node); /* in no id table until attach_pid */
	init_completion(&p->exited);

	/* The first switch to it "returns" into ret_from_kthread, with the
	 * frame __switch_to_asm pops: r15..r12 = 0, rbx = p, rbp = 0 (the end
	 * of backtraces), rflags = interrupts off. The 16 bytes at the top stay
	 * zero, and rsp is 16-byte aligned after the return. */
	u64 *sp = (u64 *)((char *)p->stack + THREAD_SIZE) - 2;
	sp[0] = sp[1] = 0;
	*--sp = (u64)(uintptr_t)ret_from_kthread;
	*--sp = 0x2;               /* rflags */
	*--sp = 0;                 /* rbp */
	*--sp = (u64)(uintptr_t)p; /* rbx */
	*--sp = 0;                 /* r12 */
	*--sp = 0;                 /* r13 */
	*--sp = 0;                 /* r14 */
	*--sp = 0;                 /* r15 */
	p->thread_sp = (unsigned long)(uintptr_t)sp;
	return p;
}


struct cpumask cpu_possible_mask(void)
{
	struct cpumask m = { nr_cpu_ids >= 64 ? ~0ull : (1ull << nr_cpu_ids) - 1 };
	return m;
}

/* Linux's select_task_rq_fair for SD_BALANCE_FORK, reduced to one level:
 * the least loaded allowed CPU, the parent's on a tie. The parent itself
 * counts in its CPU's load (it is running there). */
unsigned int select_task_rq_fork(struct task_struct *parent)
{
	unsigned int cpu = select_least_loaded(&parent->cpus_mask, parent->cpu);
	return cpu < NR_CPUS ? cpu : parent->cpu;
}

/* Linux's sched_fork/dup_task_struct: the affinity is inherited. p is not
 * running yet (nobody else looks at it), so no lock. */
void sched_fork(struct task_struct *p, struct task_struct *parent)
{
	/* One read of the mask (a word) and the count derived from it: a
	 * concurrent sched_setaffinity of parent cannot give the child a
	 * mask and a count from two different moments. */
	struct cpumask m = { READ_ONCE(parent->cpus_mask.bits) };
	p->cpus_mask = m;
	p->nr_cpus_allowed = cpumask_weight(&m);
}

/* Whether p runs on a CPU its mask no longer has (a racy look: the loop
 * in set_cpus_allowed_ptr repeats it). */
static bool running_where_not_allowed(struct task_struct *p)
{
	unsigned int cpu = READ_ONCE(p->cpu);
	return cpu_curr(cpu) == p && !(READ_ONCE(p->cpus_mask.bits) >> cpu & 1);
}

/* Linux's __set_cpus_allowed_ptr / affine_move_task, without the stopper:
 * a running task moves itself at its next scheduling point. */
int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *new_mask)
{
	struct cpumask mask = { new_mask->bits & cpu_possible_mask().bits };
	unsigned long flags;
	if (!(mask.bits & __atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE)))
		return -EINVAL;
	struct rq *rq = task_rq_lock(p, &flags);
	unsigned int cpu = p->cpu;
	WRITE_ONCE(p->cpus_mask.bits, mask.bits);
	p->nr_cpus_allowed = cpumask_weight(&mask);
	if (cpumask_test_cpu(cpu, &mask) || is_idle_task(p)) {
		spin_unlock_irqrestore(&rq->lock, flags);
		return 0;
	}
	if (rq->curr == p) {
		spin_unlock_irqrestore(&rq->lock, flags);
		if (p == current) {
			schedule(); /* sees this CPU is not allowed: moves */
			return 0;
		}
		/* Running elsewhere: in kernel mode it moves at its next
		 * scheduling point; in user mode the IPI brings it to its
		 * return to user mode, which schedule()s. Until it has left,
		 * the caller waits (Linux's affine_move_task waits for the
		 * stopper), letting its own CPU's other tasks run. */
		apic_send_ipi(cpu_physical_id(cpu), RESCHEDULE_VECTOR);
		while (running_where_not_allowed(p)) {
			cond_resched();
			cpu_relax();
		}
		return 0;
	}
	if (p->on_rq == TASK_ON_RQ_QUEUED) {
		/* Queued, not running: straight to an allowed CPU's queue. */
		list_del(&p->run_list);
		INIT_LIST_HEAD(&p->run_list);
		rq->nr_queued--;
		unsigned int dest = select_least_loaded(&mask, cpu);
		detach_task_to(p, dest < NR_CPUS ? dest : (unsigned int)__builtin_ctzll(mask.bits));
		spin_unlock(&rq->lock);
		attach_task(p);
		local_irq_restore(flags);
		return 0;
	}
	/* Asleep (or dead): its wakeup puts it on an allowed CPU. */
	spin_unlock_irqrestore(&rq->lock, flags);
	return 0;
}

void rq_lock_this_cpu(unsigned long *flags)
{
	unsigned long f;
	local_irq_save(f);
	spin_lock(&this_rq()->lock);
	*flags = f;
}

void rq_unlock_this_cpu(unsigned long flags)
{
	spin_unlock(&this_rq()->lock);
	local_irq_restore(flags);
}

unsigned long nr_context_switches_cpu(unsigned int cpu) { return READ_ONCE(cpu_rq(cpu)->nr_switches); }
void kcpustat_cpu_fetch(struct kernel_cpustat *dst, unsigned int cpu)
{
	for (int i = 0; i < NR_STATS; i++)
		dst->cpustat[i] = READ_ONCE(cpu_rq(cpu)->cpustat.cpustat[i]);
}
unsigned long total_forks;
unsigned long nr_resched_ipis_cpu(unsigned int cpu) { return READ_ONCE(cpu_rq(cpu)->nr_resched_ipis); }
struct task_struct *idle_task(unsigned int cpu) { return cpu_rq(cpu)->idle; }
struct task_struct *cpu_curr(unsigned int cpu) { return READ_ONCE(cpu_rq(cpu)->curr); }
bool idle_cpu(unsigned int cpu) { return cpu_curr(cpu) == cpu_rq(cpu)->idle; }

/* Backtraces may follow frames on the current thread's own stack (the boot
 * stack and the APs' start-up stacks are known elsewhere). */
static bool task_stack_contains(u64 addr)
{
	struct task_struct *t = current;
	u64 lo = (u64)(uintptr_t)t->stack;
	if (t->stack && addr >= lo && addr < lo + THREAD_SIZE)
		return true;
	return stack_contains_before && stack_contains_before(addr);
}

/* What each AP runs once it is online (ap_idle_entry), interrupts off, on
 * its start-up stack: that context becomes the CPU's idle task. */
static __noreturn void sched_ap_idle_entry(void)
{
	unsigned int cpu = smp_processor_id();
	struct task_struct *idle = &ap_idle_tasks[cpu];
	snprintf(idle->comm, sizeof(idle->comm), "swapper/%u", cpu);
	idle->cpu = cpu;
	idle->cpus_mask.bits = 1ull << cpu;
	idle->nr_cpus_allowed = 1;
	idle->flags = PF_IDLE;
	idle->cred = &init_cred;
	idle->__state = TASK_RUNNING;
	idle->on_rq = TASK_ON_RQ_QUEUED;
	INIT_LIST_HEAD(&idle->run_list);
	init_completion(&idle->exited);
	rq_init(this_rq(), idle, idle);
	this_cpu_write(current_task, idle);
	__atomic_store_n(&rq_active[cpu], true, __ATOMIC_RELEASE);
	cpu_idle_loop();
}

void sched_init(void)
{
	unsigned int cpu = smp_processor_id();
	char name[TASK_COMM_LEN];
	snprintf(name, sizeof(name), "swapper/%u", cpu);
	struct task_struct *idle = create_task(idle_thread_fn, NULL, cpu, name, PF_IDLE);
	if (!idle)
		panic("sched: no memory for the idle task");
	idle->__state = TASK_RUNNING;
	idle->on_rq = TASK_ON_RQ_QUEUED;

	strlcpy(init_task.comm, "init", sizeof(init_task.comm));
	init_task.cpu = cpu;
	init_task.cpus_mask.bits = 1ull << cpu; /* the kunit runner's context: stays */
	init_task.nr_cpus_allowed = 1;
	init_task.cred = &init_cred;
	init_task.__state = TASK_RUNNING;
	init_task.on_rq = TASK_ON_RQ_QUEUED;
	INIT_LIST_HEAD(&init_task.run_list);
	init_completion(&init_task.exited);
	/* init runs on the boot stack, which the trap code already knows.
	 * It is id 1, as Linux's init (which there becomes the first user
	 * process; here it stays a kernel thread, the one that starts the
	 * programs and runs the tests), in the table for good. */
	set_task_pid(&init_task, INIT_PID);
	init_task.usage = 1;
	attach_pid(&init_task);

	rq_init(this_rq(), idle, &init_task);
	this_cpu_write(current_task, &init_task);
	register_interrupt_handler(RESCHEDULE_VECTOR, reschedule_interrupt);
	register_tick_hook(sched_tick);
	register_timer_expiry(run_sleep_timers);
	ap_idle_entry = sched_ap_idle_entry;
	__atomic_store_n(&rq_active[cpu], true, __ATOMIC_RELEASE);
}

void sched_init_smp(void)
{
	unsigned int cpu;
	/* An online AP goes straight on to sched_ap_idle_entry, waiting for
	 * nothing: only a host that does not schedule its vCPU delays it, and
	 * that can take longer than a second (smpboot.c's 10 s, as Linux's). */
	u64 deadline = ktime_get_ns() + 10000000000ull;
	for_each_online_cpu(cpu) {
		while (!__atomic_load_n(&rq_active[cpu], __ATOMIC_ACQUIRE) && ktime_get_ns() < deadline)
			cpu_relax();
		if (!__atomic_load_n(&rq_active[cpu], __ATOMIC_ACQUIRE))
			pr_err("sched: CPU %u is online but its scheduler did not start\n", cpu);
	}
	/* After smp_boot_secondaries installed its hook for the AP stacks. */
	/* The clock runs now (time_init), and no task but init and the idle
	 * tasks exists yet: pressure stall accounting starts here. */
	psi_init(current);
	stack_contains_before = kernel_stack_contains;
	kernel_stack_contains = task_stack_contains;
	kernel_stack_guard_hit = task_stack_guard_hit;
	pr_info("sched: run queues on %u CPUs, init on CPU %u\n", num_online_cpus(), smp_processor_id());
}
