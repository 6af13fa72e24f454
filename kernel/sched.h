/* Kernel threads and the per-CPU scheduler.
 *
 * Every thread (struct task_struct) runs on one CPU at a time, task->cpu,
 * and is queued only on that CPU's run queue. Each CPU has a run queue (a
 * spinlock and a FIFO list of runnable tasks), a current task and an idle
 * task that halts when nothing is runnable.
 *
 * Where a task may run: task->cpus_mask (its affinity, Linux's). A thread
 * made by kthread_create_on_cpu is bound to its CPU (mask = {cpu}, Linux's
 * kthread_bind) and stays there unless kernel code widens its mask with
 * set_cpus_allowed_ptr(); user tasks may move (sched_setaffinity, and the
 * placement of new threads by select_task_rq_fork). A task changes CPU
 * only while it is off every CPU (Linux's move_queued_task):
 *   - queued and not running: set_cpus_allowed_ptr takes it off the old
 *     queue and puts it on an allowed CPU's;
 *   - running: it moves itself at its next scheduling point (schedule()
 *     sees its CPU is no longer allowed; the CPU it leaves puts it on the
 *     new queue once it is off its stack, in finish_task_switch);
 *     set_cpus_allowed_ptr on another CPU's running task kicks that CPU
 *     and waits until the task has left it;
 *   - sleeping: it stays where it slept and the wakeup puts it on an
 *     allowed CPU.
 * Consequences: per-CPU data (this_cpu_ptr, smp_processor_id) read by a
 * task is only its current CPU's until the task's next scheduling point;
 * a task's kernel stack stays on the node of the CPU it was made on.
 *
 * The kernel is not preemptible: the tick never switches tasks. A task
 * leaves the CPU only at a scheduling point:
 *   - schedule(): it sleeps (its state is not TASK_RUNNING) or yields;
 *   - cond_resched(): schedule() if another task is runnable on this CPU
 *     or this CPU is no longer in the task's mask;
 *   - blocking calls built on them: wait_event*, wait_for_completion*,
 *     schedule_timeout, synchronize_rcu, rcu_barrier, kthread_stop/join;
 *   - the end of a thread (its function returned: do_exit);
 *   - the return to user mode, when need_resched asks for it (the tick
 *     found others waiting, or a task woke onto this CPU);
 *   - the idle loop, which schedule()s when its run queue is not empty.
 * Long loops in threads must call cond_resched(), or nothing else runs on
 * their CPU (and RCU grace periods wait for them).
 *
 * Sleeping without missing a wakeup (the classic protocol):
 *   sleeper: set_current_state(TASK_UNINTERRUPTIBLE); if (!cond) schedule();
 *            __set_current_state(TASK_RUNNING);
 *   waker:   cond = true; wake_up_process(sleeper);
 * set_current_state is a full barrier and wake_up_process takes the run
 * queue lock, so either the sleeper sees cond or the waker sees the sleeping
 * state and makes the task runnable again (then schedule() returns at once).
 *
 * Lock order: wait-queue lock -> run-queue lock -> rcu state lock. The run
 * queue lock is only taken with interrupts off (wakeups happen from
 * interrupt handlers), and never two run-queue locks at once: a move drops
 * the old CPU's lock before it takes the new one's, the task marked
 * TASK_ON_RQ_MIGRATING in between (Linux's name) so that nobody else
 * touches it. */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "lib/list.h"
#include "arch/x86_64/processor.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/types.h"
#include "kernel/wait.h"

/* Task states, Linux's values. */
#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define __TASK_STOPPED 0x0004
#define TASK_DEAD 0x0080
#define TASK_WAKEKILL 0x0100
/* A thread stopped by a stop signal (kernel/signal_stop.c): SIGCONT wakes
 * it (__TASK_STOPPED), as does SIGKILL (TASK_WAKEKILL). */
#define TASK_STOPPED (TASK_WAKEKILL | __TASK_STOPPED)
/* task->exit_state, Linux's values. */
#define EXIT_DEAD 0x0010
#define EXIT_ZOMBIE 0x0020
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

/* Task flags. */
#define PF_IDLE 0x00000002    /* a CPU's idle task */
#define PF_FORKNOEXEC 0x00000040 /* made by fork and has not exec'd (setpgid's EACCES) */
#define PF_MEMALLOC 0x00000800       /* reclaiming: no reclaim recursion (memalloc_noreclaim_save) */
#define PF_KSWAPD 0x00020000         /* a node's kswapd (mm/kswapd.c) */
#define PF_MEMALLOC_NOFS 0x00040000  /* every allocation is GFP_NOFS (memalloc_nofs_save) */
#define PF_MEMALLOC_NOIO 0x00080000  /* every allocation is GFP_NOIO (memalloc_noio_save) */
#define PF_KTHREAD 0x00200000 /* made by kthread_create_on_cpu */

/* task->on_rq, Linux's values. */
#define TASK_ON_RQ_QUEUED 1    /* queued on its CPU's run queue, or running there */
#define TASK_ON_RQ_MIGRATING 2 /* between two run queues: off every CPU, on no queue */

#define TASK_COMM_LEN 16
#define THREAD_SIZE_ORDER 2 /* 16 KiB kernel stacks */
#define THREAD_SIZE (4096ul << THREAD_SIZE_ORDER)
#define STACK_END_MAGIC 0x57AC6E9Dul /* at the lowest word of every thread stack */


#define MAX_SCHEDULE_TIMEOUT ((long)(~0ul >> 1))

/* Signals queued for a thread (task->pending) or its whole process
 * (signal->shared_pending), Linux's struct sigpending: the set, and a
 * struct sigqueue (kernel/signal.h) per signal with its siginfo. Under
 * sighand->siglock. */
struct sigpending {
	struct list_head list;
	unsigned long signal; /* a sigset_t: bit n-1 = signal n */
};

/* Linux's struct restart_block: what restart_syscall (219) calls after a
 * sleep that returned -ERESTART_RESTARTBLOCK was interrupted by a signal
 * with no handler to run; the arguments the sleep needs to go on to its
 * original deadline. */
struct pollfd;
struct restart_block {
	long (*fn)(struct restart_block *);
	union {
		struct { /* futex_wait_restart */
			u32 *uaddr;
			u32 val, flags, bitset;
			u64 time; /* absolute, on the futex's clock */
		} futex;
		struct { /* nanosleep and clock_nanosleep */
			u64 deadline; /* monotonic ns */
			void *rmtp;   /* user struct __kernel_timespec, or NULL */
		} nanosleep;
		struct { /* poll's do_restart_poll (fs/select.c) */
			struct pollfd *ufds; /* user memory */
			unsigned int nfds;
			bool has_timeout;
			u64 end_time; /* monotonic ns */
		} poll;
	};
};

struct mm_struct;
struct files_struct;
struct fs_struct;
struct process_result;
struct robust_list_head;

struct task_struct {
	unsigned long thread_sp;    /* saved rsp while switched out: offset 0 (switch_to.asm) */
	volatile long __state;      /* TASK_* */
	unsigned int cpu;           /* the CPU it runs or is queued on (or slept on); changed
				     * only under that CPU's run-queue lock, off every CPU */
	unsigned int flags;         /* PF_* */
	int on_rq;                  /* 0 (asleep), TASK_ON_RQ_QUEUED or TASK_ON_RQ_MIGRATING */
	char comm[TASK_COMM_LEN];
	void *stack;                /* lowest address of the THREAD_SIZE stack */
	struct list_head run_list;  /* on the run queue */
	int (*threadfn)(void *data);
	void *data;
	bool should_stop;           /* kthread_stop() asked it to return */
	int exit_code;              /* what threadfn returned (-EINTR if it never ran) */
	struct completion exited;   /* completed once it has left its stack for good */
	unsigned long nvcsw;        /* switches away while going to sleep (voluntary) */
	unsigned long nivcsw;       /* switches away while still runnable: preempted
				     * on the way back to user mode, or yielding */
	/* User processes (kernel/process.c); NULL/0 for kernel threads. */
	struct mm_struct *mm;          /* its address space */
	int pid;                       /* thread id (Linux's pid) */
	int tgid;                      /* thread group (process) id: the leader's pid */
	struct task_struct *group_leader; /* the thread process_spawn made */
	struct signal_struct *signal;  /* the thread group (kernel/signal.h) */
	struct sighand_struct *sighand; /* signal actions, shared (CLONE_SIGHAND) */
	struct list_head thread_node;  /* on signal->thread_head; then the reaper's list */
	struct list_head pid_node;     /* in the pid table (kernel/pid.c) while findable */
	int usage;                     /* references (kernel/pid.h): the reaper's + lookups */
	int *set_child_tid;            /* user address: CLONE_CHILD_SETTID */
	int *clear_child_tid;          /* user address: CLONE_CHILD_CLEARTID, set_tid_address */
	unsigned long blocked;         /* blocked signals (a sigset_t: bit n-1 = signal n);
					* written by the task itself under sighand->siglock */
	unsigned long real_blocked;    /* rt_sigtimedwait's: blocked as it was before the
					* wait unblocked what it awaits (Linux's); 0
					* outside it; under sighand->siglock */
	struct sigpending pending;     /* signals sent to this thread (kernel/signal.h) */
	/* rt_sigsuspend's (Linux's saved_sigmask and TIF_RESTORE_SIGMASK):
	 * the mask to put back once the signal that woke it is handled (the
	 * handler's frame holds it) or found to have no handler. */
	unsigned long saved_sigmask;
	bool restore_sigmask;
	struct restart_block restart_block; /* how restart_syscall goes on (kernel/signal.h) */
	bool sigpending_exited;        /* on its way out: takes no more signals (sighand->siglock) */
	unsigned long sas_ss_sp;       /* sigaltstack */
	unsigned long sas_ss_size;
	unsigned int sas_ss_flags;
	/* Linux's task_lock (alloc_lock): ->mm, ->files and ->fs change
	 * under it once the task can be found (exit, exec), so that a reader
	 * of another task's /proc/<pid> takes a reference on one before it
	 * goes (get_task_mm, fs/proc/base.c). Zeroed is unlocked. */
	spinlock_t alloc_lock;
	struct files_struct *files;    /* open files (fs/file.c), the group's */
	struct fs_struct *fs;          /* root, cwd, umask (fs/fs_struct.h); NULL: init_fs */
	void *fpu_state;               /* 512-byte FXSAVE area, 16-byte aligned */
	struct thread_struct thread;   /* FS/GS bases (arch/x86_64/processor.h) */
	struct cpumask cpus_mask;      /* CPUs it may run on (its affinity); written under
					* its run queue's lock */
	int nr_cpus_allowed;           /* CPUs in cpus_mask */
	unsigned int migration_dest;   /* where a running task that leaves its CPU goes
					* (schedule -> finish_task_switch) */
	unsigned long nr_migrations;   /* times it changed CPU (Linux's se.nr_migrations) */
	/* getrusage's counters (kernel/sys.c), written only by the task's own
	 * CPU: the ticks that interrupted it in user mode and in the kernel
	 * (account_process_tick, whole ticks of TICK_NSEC), and its page
	 * faults (mm_account_fault: minor, major never, with no I/O here). */
	u64 utime, stime;
	unsigned long min_flt, maj_flt;
	u64 start_boottime; /* ktime_get_ns() when it was made (/proc/<pid>/stat) */
	unsigned long user_rsp;        /* scratch for the syscall entry */
	struct process_result *result; /* how it ended, filled at exit */
	struct robust_list_head *robust_list; /* user address (set_robust_list), kernel/futex_robust.c */
	/* The process tree (kernel/fork.c, kernel/exit.c, kernel/exit_wait.c),
	 * kept on the group leader, under tasklist_lock (kernel/signal.h). A
	 * process's parent is the process (the group) that made it; Linux's
	 * real_parent is the creating thread, whose group inherits the child
	 * when that thread exits. */
	struct task_struct *real_parent; /* NULL: started by the kernel, or orphaned in a tree being torn down */
	struct list_head children;     /* its children's sibling nodes */
	struct list_head sibling;      /* on real_parent->children */
	struct list_head tasks;        /* on its tree's list of processes (signal->tree_tasks of the root) */
	int exit_signal;               /* sent to real_parent when the process ends (0: none) */
	int exit_state;                /* 0, EXIT_ZOMBIE (ended, waitable) or EXIT_DEAD (being freed) */
	bool autoreap;                 /* freed by the kernel when it ends, nobody waits for it */
	/* CLONE_VFORK: the parent sleeps until vfork_done is completed, when
	 * the child leaves the borrowed mm (its exit or exec: mm_release). */
	bool in_vfork;
	struct completion vfork_done;
	/* prctl (kernel/prctl.c): the signal this thread gets when the
	 * thread that made its process ends (PR_SET_PDEATHSIG; 0: none, not
	 * inherited), and PR_SET_NO_NEW_PRIVS (inherited, never cleared). */
	int pdeath_signal;
	bool no_new_privs;
	/* Its credentials (kernel/cred.h): written by the task itself under
	 * alloc_lock; root's init_cred for every kernel thread. */
	const struct cred *cred;
	/* On a process's leader, under tasklist_lock: the thread of its
	 * parent process that made it (Linux's real_parent is that thread);
	 * when that thread ends first, its children's pdeath_signal fires
	 * and they pass to the group's leader. NULL once passed on. */
	struct task_struct *parent_thread;
	/* Job control (kernel/signal_stop.c): Linux's JOBCTL_* bits, under
	 * sighand->siglock. */
	unsigned long jobctl;
	struct mempolicy *mempolicy;   /* set_mempolicy (mm/mempolicy.h); NULL: the default */
	/* The oom_reaper's queue (mm/oom_reaper.c), under its lock: the next
	 * victim, and when this one is due (jiffies). */
	struct task_struct *oom_reaper_list;
	u64 oom_reaper_due;
	/* Pressure stall information (kernel/psi.h): the TSK_* counts it is
	 * in on its CPU (under that CPU's run-queue lock), and whether it is
	 * in a memory stall (psi_memstall_enter) or an I/O wait
	 * (wait_for_completion_io), both written by the task itself. */
	unsigned int psi_flags;
	bool in_memstall;
	bool in_iowait;
	short il_prev;                 /* the last node MPOL_INTERLEAVE gave it */
	u8 il_weight;                  /* MPOL_WEIGHTED_INTERLEAVE: pages left on il_prev */
	/* The run of swap slots its reclaim hands out (mm/swapfile.c's
	 * scan_swap_map_locked, under swap_lock): which swapon of an area
	 * it is in (its gen; 0: none), the next slot to try and the run's
	 * end. */
	struct {
		unsigned int gen;
		unsigned int next, end;
	} swap_run;
};

static inline void task_lock(struct task_struct *p) { spin_lock(&p->alloc_lock); }
static inline void task_unlock(struct task_struct *p) { spin_unlock(&p->alloc_lock); }

DECLARE_PER_CPU(struct task_struct *, current_task);
static inline struct task_struct *get_current(void) { return this_cpu_read(current_task); }
#define current get_current()

#define __set_current_state(s) WRITE_ONCE(current->__state, (s))
/* A store followed by a full barrier: the condition check that follows
 * cannot be done before the state is visible to wakers. */
#define set_current_state(s) __atomic_store_n(&current->__state, (s), __ATOMIC_SEQ_CST)

static inline bool is_idle_task(const struct task_struct *p) { return p->flags & PF_IDLE; }

/* Switches to the next runnable task of this CPU (or its idle task); returns
 * when this task runs again. A task whose state is not TASK_RUNNING stays
 * off the run queue until wake_up_process(). Must not be called in an RCU
 * read-side critical section or with interrupts off. */
void schedule(void);
/* schedule() if another task is runnable on this CPU; also an RCU
 * quiescent state. Returns whether it switched. */
bool cond_resched(void);
/* Sleeps for up to timeout ticks (the caller sets its state first, as
 * Linux's); returns the ticks left (0 if the time ran out). */
long schedule_timeout(long timeout);
long schedule_timeout_uninterruptible(long timeout);
/* Sleeps until the monotonic clock (ktime_get_ns) reads expires, or a
 * wakeup (the caller sets its state first, as Linux's
 * schedule_hrtimeout): 0 if the time ran out, -EINTR if woken before.
 * In high-resolution mode the timer fires when due; with highres=off at
 * the first tick after. */
int schedule_hrtimeout(u64 expires);
static inline long msecs_to_jiffies(unsigned long ms) { return (long)((ms + 9) / 10); /* HZ=100 */ }

/* Makes p runnable, on its CPU or, when that one is no longer allowed, on
 * one its affinity allows; returns false if it was not sleeping. A remote
 * idle CPU is woken with the reschedule IPI. */
bool wake_up_process(struct task_struct *p);
int wake_up_state(struct task_struct *p, unsigned int state);
/* The same for a task that never ran (Linux's wake_up_new_task): it does
 * not ask its CPU's current task (its parent, often) to give way. */
void wake_up_new_task(struct task_struct *p);

/* Threads. kthread_create_on_cpu makes a thread bound to cpu (its
 * cpus_mask is {cpu}: see set_cpus_allowed_ptr), not yet
 * running (wake_up_process starts it), named namefmt with the CPU number
 * formatted in (e.g. "rcuc/%u"). Returns NULL if cpu is offline or memory
 * is short. Every thread made here must be reaped by kthread_stop() or
 * kthread_join(), which free its stack and task_struct. */
struct task_struct *kthread_create_on_cpu(int (*threadfn)(void *data), void *data, unsigned int cpu,
					  const char *namefmt);
/* On the current CPU (Linux's picks any CPU; ours picks this one). */
struct task_struct *kthread_create(int (*threadfn)(void *data), void *data, const char *namefmt, ...)
	__printf(3, 4);
#define kthread_run(threadfn, data, ...)                                                 \
	({                                                                               \
		struct task_struct *__k = kthread_create(threadfn, data, __VA_ARGS__);   \
		if (__k)                                                                 \
			wake_up_process(__k);                                            \
		__k;                                                                     \
	})
static inline struct task_struct *kthread_run_on_cpu(int (*threadfn)(void *data), void *data,
						     unsigned int cpu, const char *namefmt)
{
	struct task_struct *k = kthread_create_on_cpu(threadfn, data, cpu, namefmt);
	if (k)
		wake_up_process(k);
	return k;
}
/* Whether kthread_stop() was called on the current thread. */
bool kthread_should_stop(void);
/* Asks k to stop (kthread_should_stop() turns true), wakes it, waits until
 * it has exited, frees it and returns its exit code. A thread never woken
 * exits without running its function (-EINTR), as in Linux. */
int kthread_stop(struct task_struct *k);
/* mmlab's: waits until k's function has returned, frees it, returns its
 * exit code (kthread_stop without the stop request). */
int kthread_join(struct task_struct *k);
/* Ends the current thread (what returning from threadfn does). */
__noreturn void do_exit(int code);

/* Thread creation (clone): the CPU a new thread of parent starts on, and
 * what it inherits from the scheduler's side of parent (its affinity).
 * select_task_rq_fork picks the least loaded online CPU of parent's mask
 * (load: tasks queued plus the running one, the idle task not counted);
 * ties go to parent's own CPU, then to the lowest number. */
unsigned int select_task_rq_fork(struct task_struct *parent);
/* p inherits parent's cpus_mask (call before p is first woken). */
void sched_fork(struct task_struct *p, struct task_struct *parent);

/* Sets p's affinity (Linux's set_cpus_allowed_ptr, for kernel callers):
 * the bits of new_mask that are possible CPUs. If p's CPU is no longer
 * allowed, p is moved (see the header comment): a queued task at once; the
 * caller itself before this returns; another CPU's running task is kicked
 * and waited for; a sleeping one at its wakeup. Returns 0, or -EINVAL
 * (nothing changed) if new_mask has no online CPU. process_spawn uses it
 * with cpu_possible_mask() before the first wakeup: the process starts on
 * the CPU it was made on and may then run anywhere. */
int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *new_mask);
/* All CPUs the firmware described: 0 .. nr_cpu_ids - 1 (no hotplug: possible
 * = present). */
struct cpumask cpu_possible_mask(void);
static inline bool cpumask_test_cpu(unsigned int cpu, const struct cpumask *m)
{
	return cpu < NR_CPUS && (m->bits >> cpu & 1);
}
/* Tasks queued on cpu plus its running one unless that is the idle task:
 * the load placement compares (a racy snapshot). */
unsigned int cpu_load(unsigned int cpu);

/* Runnable tasks on all CPUs, running ones included (a racy snapshot). */
unsigned long nr_running(void);

/* The load average (Linux's avenrun, kernel/sched/loadavg.c; here in
 * kernel/sched_time.c): fixed point with
 * FSHIFT fractional bits, updated every LOAD_FREQ ticks. get_avenrun gives
 * each of the 1, 5 and 15 minute averages plus offset, shifted left by
 * shift, as Linux's. */
#define FSHIFT 11
#define FIXED_1 (1ul << FSHIFT)
#define LOAD_FREQ (5 * HZ + 1)
#define EXP_1 1884  /* 1/exp(5s/1min) in fixed point */
#define EXP_5 2014  /* 1/exp(5s/5min) */
#define EXP_15 2037 /* 1/exp(5s/15min) */
#define LOAD_INT(x) ((x) >> FSHIFT)
#define LOAD_FRAC(x) LOAD_INT(((x) & (FIXED_1 - 1)) * 100)
void get_avenrun(unsigned long *loads, unsigned long offset, int shift);

/* One step of an average (Linux's calc_load, include/linux/sched/loadavg.h):
 * load decays by exp toward active (both fixed point); rounding up while
 * active is at or above load lets the average reach a steady load exactly,
 * as rounding down lets it reach 0. */
static inline unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload = load * exp + active * (FIXED_1 - exp);
	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

/* Task_structs made by kthread_create_on_cpu and not yet reaped. */
unsigned long nr_kthreads(void);
/* kthread_create_on_cpu without the id (name as it is): the task of a
 * user thread, which process_spawn and kernel_clone give an id of their
 * own once it is one. */
struct task_struct *__kthread_create_on_cpu(int (*threadfn)(void *data), void *data, unsigned int cpu,
					    const char *name);
/* kthreadd, id 2, the parent of every kernel thread (kernel/kthread.c):
 * made once the run queues take tasks, before anything else makes a
 * thread; whether p is it. init, the boot task, is id 1 (INIT_PID). */
#define INIT_PID 1
#define KTHREADD_PID 2
void kthreadd_init(void);
bool is_kthreadd(const struct task_struct *p);

/* For kernel/kthread.c: whether cpu's run queue takes tasks yet; a new
 * task bound to cpu, with its stack, in TASK_UNINTERRUPTIBLE until woken
 * (NULL when memory is short); the stack's release. */
bool sched_cpu_active(unsigned int cpu);
struct task_struct *create_task(int (*threadfn)(void *), void *data, unsigned int cpu, const char *name,
				unsigned int flags);
void free_thread_stack(void *stack);
/* Linux's kernel_cpustat (include/linux/kernel_stat.h): the time, in
 * nanoseconds, each CPU's tick found it in user mode or in the kernel
 * (tick sampling, as account_process_tick charges tasks), and the time
 * it spent halted in its idle task, measured (as Linux's NO_HZ idle
 * accounting: idle_irq_enter); mmlab
 * has no nice levels, interrupt or softirq time accounting, I/O waits,
 * steal or guest time, so those stay 0. kcpustat_cpu_fetch copies cpu's.
 * total_forks: tasks made since boot (create_task: kernel threads, user
 * threads and processes, idle tasks; Linux's copy_process count). */
enum cpu_usage_stat {
	CPUTIME_USER, CPUTIME_NICE, CPUTIME_SYSTEM, CPUTIME_SOFTIRQ, CPUTIME_IRQ,
	CPUTIME_IDLE, CPUTIME_IOWAIT, CPUTIME_STEAL, CPUTIME_GUEST, CPUTIME_GUEST_NICE, NR_STATS,
};
struct kernel_cpustat {
	u64 cpustat[NR_STATS];
};
void kcpustat_cpu_fetch(struct kernel_cpustat *dst, unsigned int cpu);
/* An interrupt arrived (arch/x86_64/traps.c, before its handler): if this
 * CPU's idle task was halted, its idle period ends here and is added to
 * CPUTIME_IDLE (Linux's tick_nohz_irq_enter -> tick_nohz_stop_idle). */
void idle_irq_enter(void);
extern unsigned long total_forks;
/* Context switches done on cpu, and reschedule IPIs it received. */
unsigned long nr_context_switches_cpu(unsigned int cpu);
unsigned long nr_resched_ipis_cpu(unsigned int cpu);
/* This CPU's run-queue lock, interrupts off (Linux's this_rq_lock_irq):
 * for psi_memstall_enter/leave, whose counts change under it. */
void rq_lock_this_cpu(unsigned long *flags);
void rq_unlock_this_cpu(unsigned long flags);
/* The idle task and current task of cpu. */
/* Linux's __set_task_comm (fs/exec.c): tsk's name from buf, at most
 * TASK_COMM_LEN - 1 bytes of it, the rest of comm zeros. Readers copy the
 * name unlocked, as Linux's __get_task_comm does not always lock either:
 * one racing a rename may see a mix of the two names, never past the
 * last NUL. */
void __set_task_comm(struct task_struct *tsk, const char *buf);
struct task_struct *idle_task(unsigned int cpu);
struct task_struct *cpu_curr(unsigned int cpu);
/* Whether cpu currently runs its idle task (a racy snapshot). */
bool idle_cpu(unsigned int cpu);

/* Boot CPU, after mm_init and before smp_bringup: the start_kernel context
 * becomes the task "init"; makes this CPU's idle task, registers the
 * reschedule IPI and the tick hook, and sets ap_idle_entry so every AP
 * turns its start-up context into its idle task. */
void sched_init(void);
/* After the APs are up: waits until each online CPU runs its scheduler. */
void sched_init_smp(void);

#endif
