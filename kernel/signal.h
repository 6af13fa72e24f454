/* Signals, as far as threads need them (issue 10): the thread group
 * (Linux's struct signal_struct), the shared actions (struct
 * sighand_struct), per-thread masks and alternate stacks, and whether a
 * task has a signal pending that must end its wait.
 *
 * Only storage: no signal is ever delivered to a handler. The one "signal"
 * that is ever pending is the group exit (exit_group, a fatal fault in
 * another thread): Linux's SIGKILL sent by zap_other_threads, which makes
 * signal_pending() and fatal_signal_pending() true for every thread of the
 * group, ends their interruptible waits and makes them exit at their next
 * return to user mode (arch_do_signal_or_restart).
 *
 * Locking: signal->siglock protects thread_head, nr_threads, the group
 * exit fields and the rlimits; sighand->siglock the actions. A thread's
 * blocked mask and sigaltstack are its own (only it touches them). */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "lib/list.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"

#define _NSIG 64
#define SIGBUS 7
#define SIGKILL 9
#define SIGSEGV 11
#define SIGSTOP 19

typedef struct {
	unsigned long sig[1];
} sigset_t;

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
	struct process_result result; /* filled by the last thread */
	struct rlimit rlim[RLIM_NLIMITS];
	/* What the group's exited threads used (Linux's __exit_signal), under
	 * siglock; getrusage(RUSAGE_SELF) adds the live threads' own. maxrss:
	 * the largest peak RSS (pages) an address space of the group had. */
	u64 utime, stime;
	unsigned long min_flt, maj_flt, nvcsw, nivcsw, maxrss;
};

/* Whether p has a signal pending that interrupts an interruptible wait
 * (the wait returns -EINTR). */
static inline bool signal_pending(struct task_struct *p)
{
	return p->signal && __atomic_load_n(&p->signal->group_exit, __ATOMIC_ACQUIRE);
}
/* Whether p is being killed (its thread group is exiting). */
static inline bool fatal_signal_pending(struct task_struct *p) { return signal_pending(p); }

/* Called on the way back to user mode (exit_to_user_mode_prepare, with
 * interrupts on) when signal_pending(current): a pending group exit ends the
 * thread here; it returns otherwise. */
void arch_do_signal_or_restart(void);

/* Linux's collect_sigign_sigcatch: the signals p's group ignores (SIG_IGN)
 * and catches (a handler), bit n-1 for signal n; none for a kernel thread.
 * The actions are stored as rt_sigaction set them, though never delivered. */
void collect_sigign_sigcatch(struct task_struct *p, unsigned long *ign, unsigned long *catch);

/* A new sighand_struct with every action SIG_DFL (count 1); NULL if memory
 * is short. */
struct sighand_struct *sighand_alloc(void);
void sighand_put(struct sighand_struct *sighand);
/* Linux's defaults of a process started by init (INIT_RLIMITS, with
 * NPROC and SIGPENDING from this machine's memory as fork_init does). */
void rlimits_init(struct rlimit *rlim);
/* The most user threads there may be (Linux's max_threads). */
unsigned long max_threads(void);

#endif
