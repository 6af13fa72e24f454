/* Signals (Linux's kernel/signal.c, include/linux/sched/signal.h): the
 * thread group (struct signal_struct), the shared actions (struct
 * sighand_struct), per-thread masks, alternate stacks and pending sets, a
 * pending set for the whole process, and delivery.
 *
 * A signal is sent to a thread (tkill, tgkill, a fault: its
 * task->pending) or to the process (kill: signal->shared_pending, taken by
 * whichever thread does not block it, chosen as Linux's complete_signal
 * does). On its way back to user mode a thread with an unblocked signal
 * pending dequeues it (get_signal) and either runs its handler on a frame
 * built as Linux's x86_64 one (arch/x86_64/signal.c), ignores it, or dies
 * with the whole group (the default action of every signal but SIGCHLD,
 * SIGURG, SIGWINCH and SIGCONT, which are ignored, and the stop signals,
 * which stop the group until SIGCONT: kernel/signal_stop.c). The group exit (exit_group, a
 * fatal signal) is Linux's SIGKILL sent by zap_other_threads: it makes
 * signal_pending() and fatal_signal_pending() true for every thread of the
 * group, ends their interruptible waits and makes them exit at their next
 * return to user mode (arch_do_signal_or_restart).
 *
 * Locking: sighand->siglock protects the actions, both pending sets (and
 * signal->nr_queued) and the writes of every thread's blocked mask (a
 * thread reads its own without it); signal->siglock protects thread_head,
 * nr_threads, the group exit fields and the rlimits. Order: sighand's,
 * then signal's. A thread's sigaltstack is its own (only it touches it). */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "lib/list.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"

#define _NSIG 64
/* Linux's x86 numbers (arch/x86/include/uapi/asm/signal.h). */
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGSTKFLT 16
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGIO 29
#define SIGPWR 30
#define SIGSYS 31
#define SIGRTMIN 32

#define sigmask(sig) (1ul << ((sig) - 1))
#define SIG_DFL 0ul
#define SIG_IGN 1ul

/* si_code values (include/uapi/asm-generic/siginfo.h). */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_QUEUE (-1)
#define SI_TKILL (-6)
#define ILL_ILLOPN 2
#define FPE_INTDIV 1
#define FPE_FLTDIV 3
#define FPE_FLTOVF 4
#define FPE_FLTUND 5
#define FPE_FLTRES 6
#define FPE_FLTINV 7
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRALN 1
#define BUS_ADRERR 2
#define TRAP_BRKPT 1
#define TRAP_TRACE 2
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_DUMPED 3
#define CLD_TRAPPED 4
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

/* signal->flags (include/linux/sched/signal.h). */
#define SIGNAL_STOP_STOPPED 0x00000001   /* the group is stopped */
#define SIGNAL_STOP_CONTINUED 0x00000002 /* SIGCONT since it was stopped: for WCONTINUED */
#define SIGNAL_CLD_STOPPED 0x00000010    /* the parent is still to be told CLD_STOPPED */
#define SIGNAL_CLD_CONTINUED 0x00000020  /* ... CLD_CONTINUED */
#define SIGNAL_CLD_MASK (SIGNAL_CLD_STOPPED | SIGNAL_CLD_CONTINUED)
/* Process 1 started by init= (kernel/process.c): it takes no SIGKILL or
 * SIGSTOP and no signal it has no handler for (Linux's is_global_init and
 * SIGNAL_UNKILLABLE checks in sig_task_ignored). */
#define SIGNAL_UNKILLABLE 0x00000040
#define SIGNAL_STOP_MASK (SIGNAL_CLD_MASK | SIGNAL_STOP_STOPPED | SIGNAL_STOP_CONTINUED)

/* task->jobctl (include/linux/sched/jobctl.h). */
#define JOBCTL_STOP_SIGMASK 0xffff           /* the signal of the stop in progress */
#define JOBCTL_STOP_DEQUEUED (1ul << 16)     /* a stop signal was dequeued: stop unless SIGCONT came */
#define JOBCTL_STOP_PENDING (1ul << 17)      /* this thread is to take part in a group stop */
#define JOBCTL_STOP_CONSUME (1ul << 18)      /* ... and counts in group_stop_count */
#define JOBCTL_STOPPED (1ul << 26)           /* stopped: only SIGCONT or SIGKILL clears it */
#define JOBCTL_PENDING_MASK (JOBCTL_STOP_PENDING | JOBCTL_STOP_CONSUME | JOBCTL_STOP_DEQUEUED)

typedef struct {
	unsigned long sig[1];
} sigset_t;

/* Linux's struct kernel_siginfo: the first 48 bytes of the user's
 * 128-byte siginfo_t (copy_siginfo_to_user clears the rest). */
struct kernel_siginfo {
	int si_signo;
	int si_errno;
	int si_code;
	int __pad;
	union {
		struct { /* kill, tkill, sigqueue */
			int pid;
			unsigned int uid;
			u64 value;
		} rt;
		struct { /* SIGCHLD (do_notify_parent), waitid's */
			int pid;
			unsigned int uid;
			int status;
			long utime, stime; /* clock ticks */
		} chld;
		struct { /* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP */
			unsigned long addr;
			u64 __more[3];
		} fault;
		u64 raw[4];
	};
};

/* A queued signal (Linux's struct sigqueue). */
struct sigqueue {
	struct list_head list;
	struct kernel_siginfo info;
};

/* sa_flags bits (include/uapi/asm-generic/signal-defs.h, x86's SA_RESTORER). */
#define SA_NOCLDSTOP 0x00000001ul
#define SA_NOCLDWAIT 0x00000002ul
#define SA_SIGINFO 0x00000004ul
#define SA_EXPOSE_TAGBITS 0x00000800ul
#define SA_RESTORER 0x04000000ul
#define SA_ONSTACK 0x08000000ul
#define SA_RESTART 0x10000000ul
#define SA_NODEFER 0x40000000ul
#define SA_RESETHAND 0x80000000ul

#define SS_ONSTACK 1
#define SS_DISABLE 2
#define SS_AUTODISARM (1u << 31)
#define SS_FLAG_BITS SS_AUTODISARM

/* The user's stack_t (uc_stack, sigaltstack). */
typedef struct {
	unsigned long ss_sp;
	int ss_flags;
	unsigned long ss_size;
} stack_t;

/* Linux's on_sig_stack / sas_ss_flags for the current thread: whether sp
 * is on its alternate stack; SS_DISABLE, SS_ONSTACK or 0. */
bool on_sig_stack(unsigned long sp);
int sas_ss_flags(unsigned long sp);

/* The x86_64 kernel's struct sigaction (what rt_sigaction copies). */
struct sigaction {
	unsigned long sa_handler;
	unsigned long sa_flags;
	unsigned long sa_restorer;
	sigset_t sa_mask;
};

struct k_sigaction {
	struct sigaction sa;
};

struct sighand_struct {
	int count;             /* tasks sharing it */
	spinlock_t siglock;
	struct k_sigaction action[_NSIG];
};

/* Resource limits (Linux's include/uapi/asm-generic/resource.h). */
#define RLIMIT_CPU 0
#define RLIMIT_FSIZE 1
#define RLIMIT_DATA 2
#define RLIMIT_STACK 3
#define RLIMIT_CORE 4
#define RLIMIT_RSS 5
#define RLIMIT_NPROC 6
#define RLIMIT_NOFILE 7
#define RLIMIT_MEMLOCK 8
#define RLIMIT_AS 9
#define RLIMIT_LOCKS 10
#define RLIMIT_SIGPENDING 11
#define RLIMIT_MSGQUEUE 12
#define RLIMIT_NICE 13
#define RLIMIT_RTPRIO 14
#define RLIMIT_RTTIME 15
#define RLIM_NLIMITS 16
#define RLIM_INFINITY (~0ul)

struct rlimit {
	unsigned long rlim_cur;
	unsigned long rlim_max;
};

/* The thread group. Lives as long as its leader's task (process_wait frees
 * it, after every other thread's task was released by the reaper). */
struct signal_struct {
	int sigcnt;                  /* task_structs not yet freed (leader's included) */
	spinlock_t siglock;
	struct list_head thread_head; /* live threads (task->thread_node) */
	int nr_threads;              /* live threads: the last one ends the process */
	bool group_exit;             /* exit_group or a fatal fault: everyone exits */
	int group_exit_code;         /* its status (0..255) */
	/* An execve ending the other threads (de_thread): group_exit is set
	 * for them, not for it. */
	struct task_struct *group_exec_task;
	/* Leaders a non-leader's exec replaced (task->thread_node), ended,
	 * freed with the process. */
	struct list_head dead_leaders;
	struct process_result result; /* filled by the last thread */
	struct rlimit rlim[RLIM_NLIMITS];
	/* The OOM killer's knob (mm/oom.h), under siglock: inherited by
	 * fork; oom_score_adj_min the floor a write without
	 * CAP_SYS_RESOURCE may not go below. */
	short oom_score_adj, oom_score_adj_min;
	/* The mm the OOM killer chose this process for (Linux's oom_mm,
	 * tsk_is_oom_victim), with an mm_count reference (mmgrab) dropped
	 * when the signal_struct is freed; set once, by cmpxchg. */
	struct mm_struct *oom_mm;
	/* What the group's exited threads used (Linux's __exit_signal), under
	 * siglock; getrusage(RUSAGE_SELF) adds the live threads' own. maxrss:
	 * the largest peak RSS (pages) an address space of the group had. */
	u64 utime, stime;
	unsigned long min_flt, maj_flt, nvcsw, nivcsw, maxrss;
	/* Under sighand->siglock: signals sent to the process, and the
	 * sigqueues of the group (bounded by RLIMIT_SIGPENDING, which Linux
	 * counts per user; here every process is its own user). */
	struct sigpending shared_pending;
	unsigned long nr_queued;
	struct task_struct *curr_target; /* where complete_signal starts looking */
	/* The process's place among processes, under tasklist_lock: its
	 * process group and session (the ids of their leaders, Linux's
	 * PIDTYPE_PGID and PIDTYPE_SID), and the process tree it belongs to.
	 * A process the kernel starts is the root of a tree of its own, its
	 * descendants' "process 1" (Linux's pid namespace init, its
	 * child_reaper): orphans are reparented to it, and when it ends the
	 * processes left in its tree are killed and freed before
	 * process_wait returns (Linux's zap_pid_ns_processes). */
	int pgrp, session;
	bool leader;                     /* a session leader (setsid) */
	/* The controlling terminal (drivers/tty/tty_jobctrl.c), and the
	 * foreground group it had when a hangup took it (Linux's
	 * tty_old_pgrp: SIGHUP goes there when the leader exits); written
	 * under tasklist_lock, read by the process itself without it. */
	struct tty_struct *tty;
	int tty_old_pgrp;
	struct task_struct *child_reaper; /* the root of its tree (the root's own leader for a root) */
	/* On a root only: every process of the tree (task->tasks, the root's
	 * own included), how many of them besides the root are not freed
	 * yet, and whether the root has ended (the tree is torn down). */
	struct list_head tree_tasks;
	int nr_tree;
	bool tree_dead;
	/* PR_SET_CHILD_SUBREAPER: orphans among its descendants come to it
	 * rather than to the tree's root (find_new_reaper); not inherited. */
	bool is_child_subreaper;
	/* Job control (kernel/signal_stop.c), under sighand->siglock:
	 * SIGNAL_STOP_* and SIGNAL_CLD_* (Linux's signal->flags), the
	 * threads yet to stop for a group stop, and the stop signal to
	 * report to a wait (Linux keeps it in group_exit_code; 0 once a wait
	 * has taken it). */
	unsigned int flags;
	int group_stop_count;
	int group_stop_code;
	/* Where wait4 and waitid sleep: a child's end wakes it (Linux's
	 * wait_chldexit). */
	struct wait_queue_head wait_chldexit;
	/* What the waited-for children used (Linux's cutime, cstime, ...),
	 * theirs and their own waited-for children's; under siglock. */
	u64 cutime, cstime;
	unsigned long cmin_flt, cmaj_flt, cnvcsw, cnivcsw, cmaxrss;
};

/* Linux's tasklist_lock: the process tree (real_parent, children, sibling,
 * tasks, exit_state, autoreap), process groups and sessions. Taken before
 * any sighand->siglock or signal->siglock. Nothing sleeps under it. */
extern spinlock_t tasklist_lock;

/* Whether p has a signal pending that interrupts an interruptible wait
 * (Linux's TIF_SIGPENDING, computed rather than kept): the group is
 * exiting, or a signal p does not block is pending for it or its process.
 * Read without the lock: a sender sets the bit before it wakes p. */
static inline bool signal_pending(struct task_struct *p)
{
	struct signal_struct *sig = p->signal;
	if (!sig)
		return false;
	if (__atomic_load_n(&sig->group_exit, __ATOMIC_ACQUIRE) && READ_ONCE(sig->group_exec_task) != p)
		return true;
	/* A group stop asks this thread to stop too (Linux's signal_wake_up
	 * sets TIF_SIGPENDING for it). */
	if (READ_ONCE(p->jobctl) & JOBCTL_STOP_PENDING)
		return true;
	unsigned long pend = __atomic_load_n(&p->pending.signal, __ATOMIC_ACQUIRE) |
			     __atomic_load_n(&sig->shared_pending.signal, __ATOMIC_ACQUIRE);
	return pend & ~READ_ONCE(p->blocked);
}
/* Whether p is being killed (its thread group is exiting). */
static inline bool fatal_signal_pending(struct task_struct *p)
{
	return p->signal && __atomic_load_n(&p->signal->group_exit, __ATOMIC_ACQUIRE) &&
	       READ_ONCE(p->signal->group_exec_task) != p;
}

/* Called on the way back to user mode (exit_to_user_mode_prepare, with
 * interrupts on) when signal_pending(current): a pending group exit ends the
 * thread here; a signal is delivered (a handler's frame is built on the
 * user stack in the registers of task_pt_regs(current)), ignored, or kills
 * the group; an interrupted system call is restarted or ends with -EINTR
 * (arch/x86_64/signal.c). */
void arch_do_signal_or_restart(void);

/* What get_signal found for the thread to deliver (Linux's struct ksignal). */
struct ksignal {
	struct k_sigaction ka;
	struct kernel_siginfo info;
	int sig;
};
/* Linux's get_signal: dequeues the next signal the current thread does not
 * block, synchronous ones (faults) first; ends the group itself for a
 * fatal one (never returns then). Returns true with *ksig filled for a
 * handler to run (SA_RESETHAND already applied), false for nothing. */
bool get_signal(struct ksignal *ksig);
/* Linux's signal_setup_done: after the frame was built (failed: force
 * SIGSEGV), blocks sa_mask and the signal (unless SA_NODEFER). */
void signal_setup_done(bool failed, struct ksignal *ksig);
/* Linux's set_current_blocked: the mask without SIGKILL and SIGSTOP. */
void set_current_blocked(const sigset_t *newset);
/* Linux's restore_saved_sigmask: rt_sigsuspend's caller's mask back, when
 * no handler's frame took it (kernel/signal_wait.c). */
void restore_saved_sigmask(void);
/* Linux's dequeue_signal: the lowest signal not in blocked pending for
 * tsk, then for its process (synchronous ones first), with its siginfo;
 * 0 if none. Under sighand->siglock. */
int dequeue_signal(struct task_struct *tsk, unsigned long blocked, struct kernel_siginfo *info);

/* Sends sig with info to thread t (group false) or its whole process
 * (group true), Linux's send_signal_locked after its permission checks:
 * 0, or -EAGAIN when an RT signal from user space cannot be queued. An
 * ignored signal is dropped. */
int send_signal(int sig, struct kernel_siginfo *info, struct task_struct *t, bool group);
/* The same with a struct sigqueue the caller allocated (kmalloc; NULL if
 * it could not), for callers that hold tasklist_lock and may not sleep. */
int send_signal_prealloc(int sig, struct kernel_siginfo *info, struct task_struct *t, bool group,
			 struct sigqueue *q);
/* Linux's sig_kernel_coredump: the default action dumps core (and sets
 * the 0x80 bit of the wait status: mmlab writes no core file, as a Linux
 * whose core_pattern pipes to a collector that keeps nothing). */
bool sig_kernel_coredump(int sig);
/* Whether SIGKILL is pending for t or its process (an uninterruptible
 * wait that Linux makes TASK_KILLABLE looks at it). */
bool sigkill_pending(struct task_struct *t);
/* A fault's signal to the current thread (Linux's force_sig_fault): a
 * blocked or ignored one is unblocked and reset to SIG_DFL first, so it
 * cannot be lost. When no handler will run, the group dies here at once,
 * with report as the console line's reason (never returns then). */
void force_sig_fault(int sig, int code, unsigned long addr, const char *report);
/* force_sig_fault with si_code SI_KERNEL and no address (Linux's force_sig). */
void force_sig(int sig, const char *report);
/* Linux's force_sigsegv: a frame could not be built for sig (no room on
 * the stack, a bad stack): SIGSEGV, its handler reset to SIG_DFL if sig
 * was SIGSEGV itself, so the next delivery kills. */
void force_sigsegv(int sig);
/* The group dies of sig (Linux's do_group_exit(sig) from get_signal),
 * with one console line: "mmlab: process N (comm) killed: <report>". */
__noreturn void do_group_exit_signal(int sig, const char *report);
/* Frees what is still queued for a thread that exits (Linux's
 * flush_sigqueue), and for the process when its last thread does. */
void exit_signals(struct task_struct *tsk, bool last);
/* Linux's do_sigaltstack: sp is the user stack pointer of the caller. */
int do_sigaltstack(const stack_t *ss, stack_t *oss, unsigned long sp);
/* restart_syscall of t returns -EINTR from now on (a sigreturn). */
void restart_block_reset(struct task_struct *t);
struct pt_regs;
/* Whether regs is a system call returning one of the -ERESTART* codes,
 * which the way back to user mode must turn into a restart or -EINTR
 * even when no signal is pending any more (another thread took it). */
bool syscall_needs_restart_work(const struct pt_regs *regs);
/* The signal's name ("SIGSEGV"), or NULL for none. */
const char *signal_name(int sig);

/* Linux's collect_sigign_sigcatch: the signals p's group ignores (SIG_IGN)
 * and catches (a handler), bit n-1 for signal n; none for a kernel thread. */
void collect_sigign_sigcatch(struct task_struct *p, unsigned long *ign, unsigned long *catch);

/* A new sighand_struct with every action SIG_DFL (count 1); NULL if memory
 * is short. */
struct sighand_struct *sighand_alloc(void);
/* Linux's copy_sighand: a new sighand_struct with a copy of current's
 * actions; with clear (CLONE_CLEAR_SIGHAND) every handler but SIG_IGN is
 * reset to SIG_DFL (flush_signal_handlers). NULL if memory is short. */
struct sighand_struct *copy_sighand(bool clear);
/* Linux's flush_signal_handlers(t, 0), for execve: every handler of t's
 * actions back to SIG_DFL, SIG_IGN kept, flags and masks cleared. */
void flush_signal_handlers(struct task_struct *t);
void sighand_put(struct sighand_struct *sighand);
/* Job control (kernel/signal_stop.c). Linux's prepare_signal for a stop
 * signal (a pending SIGCONT goes) and for SIGCONT (pending stop signals
 * go, a stopped group resumes, the parent is to be told). Under
 * p->sighand->siglock. */
void prepare_signal_jobctl(int sig, struct task_struct *p);
/* Linux's do_signal_stop, from get_signal with sighand->siglock held:
 * signr > 0 starts a group stop (a stop signal's default action), 0 takes
 * part in one. Returns true with the lock dropped once the thread has
 * stopped and been woken (the caller looks again from the start); false,
 * lock still held, when it did not stop. */
bool do_signal_stop(int signr);
/* The start of get_signal (lock held): a CLD_STOPPED or CLD_CONTINUED
 * the parent is still to be told of is sent, with the lock dropped
 * (true: the caller relocks and looks again). */
bool notify_parent_jobctl(void);
/* Linux's is_current_pgrp_orphaned: the caller's process group has no
 * member whose parent is in another group of the same session (nobody
 * left to continue it), so SIGTSTP, SIGTTIN and SIGTTOU do not stop it. */
bool is_current_pgrp_orphaned(void);
/* Linux's task_join_group_stop: a new thread of current's group takes
 * part in the group stop under way, or stops at once in a stopped group.
 * Under sighand->siglock and signal->siglock. */
void task_join_group_stop(struct task_struct *task);
/* Linux's kill_orphaned_pgrp, under tasklist_lock: tsk's process group
 * has just lost its last tie to its session (the end of tsk's process,
 * parent NULL, or of tsk's parent, parent given) and has a stopped
 * process: nobody could continue it, so every process of the group gets
 * SIGHUP and then SIGCONT. */
void kill_orphaned_pgrp(struct task_struct *tsk, struct task_struct *parent);
/* Linux's kill_pgrp(pgrp, sig, 1), the kernel's sender (a terminal's
 * ISIG characters, its hangup): sig (SI_KERNEL) to every live process of
 * group pgrp in root's tree; whether one was there. Takes tasklist_lock. */
bool kill_pgrp(struct task_struct *root, int pgrp, int sig);
/* A thread on its way out that a group stop waits for takes part in it
 * (Linux's exit_signals), under sighand->siglock, in the same step as it
 * stops taking signals; when that completed the stop, returns the stop
 * signal (else 0) for the caller to tell the parent (notify_parent_stopped)
 * once the lock is dropped. */
int exit_jobctl_locked(struct task_struct *tsk);
void notify_parent_stopped(struct task_struct *tsk, int code);
/* Linux's sig_kernel_stop: SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU. */
bool sig_kernel_stop(int sig);
/* Linux's sig_kernel_ignore: the default action of SIGCONT, SIGCHLD,
 * SIGWINCH and SIGURG is to ignore them. */
bool sig_kernel_ignore(int sig);

/* Linux's rlimit(): the caller's soft limit of resource (RLIM_INFINITY
 * for a kernel thread, which has no process of its own to limit). */
unsigned long rlimit(unsigned int resource);
/* Linux's send_sig(sig, p, 0): sig to thread p as from the caller
 * (SI_USER, si_pid the caller's process); 0 or an errno. */
int send_sig(int sig, struct task_struct *p);

/* Linux's defaults of a process started by init (INIT_RLIMITS, with
 * NPROC and SIGPENDING from this machine's memory as fork_init does). */
void rlimits_init(struct rlimit *rlim);
/* The most user threads there may be (Linux's max_threads). */
unsigned long max_threads(void);

#endif
