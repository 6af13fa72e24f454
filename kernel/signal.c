/* Signals (see kernel/signal.h): the storage calls rt_sigaction 13,
 * rt_sigprocmask 14, sigaltstack 131, with Linux's checks in Linux's order
 * (kernel/signal.c: sys_rt_sigaction/do_sigaction,
 * sys_rt_sigprocmask/sigprocmask, do_sigaltstack); sending (send_signal;
 * the system calls that send are in kernel/signal_send.c, those that wait
 * in kernel/signal_wait.c); rt_sigpending 127. The generic half of
 * delivery (get_signal, the default actions, the faults' force_sig_fault)
 * is kernel/signal_deliver.c, job control kernel/signal_stop.c, the frame
 * a handler runs on the arch's (arch/x86_64/signal.c).
 *
 * Invariant: a bit in a sigpending's set is on iff the signal is pending
 * there; each struct sigqueue on its list is one instance with its siginfo
 * (counted in signal->nr_queued), freed when dequeued or when the thread
 * (its own list) or the process (the shared one) ends. */
#include "kernel/signal.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "arch/x86_64/apic.h"

/* Linux's UAPI_SA_FLAGS: what do_sigaction keeps; other bits read back 0. */
#define UAPI_SA_FLAGS (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER | \
		       SA_RESETHAND | SA_EXPOSE_TAGBITS | SA_RESTORER)

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define MINSIGSTKSZ 2048 /* x86's */

/* include/linux/signal.h's classes of default action. */
#define SIG_KERNEL_ONLY_MASK (sigmask(SIGKILL) | sigmask(SIGSTOP))
#define SIG_KERNEL_IGNORE_MASK (sigmask(SIGCONT) | sigmask(SIGCHLD) | sigmask(SIGWINCH) | sigmask(SIGURG))

/* include/linux/signal.h's SIG_KERNEL_COREDUMP_MASK. */
#define SIG_KERNEL_COREDUMP_MASK                                                                   \
	(sigmask(SIGQUIT) | sigmask(SIGILL) | sigmask(SIGTRAP) | sigmask(SIGABRT) | sigmask(SIGFPE) | \
	 sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGSYS) | sigmask(SIGXCPU) | sigmask(SIGXFSZ))

bool sig_kernel_coredump(int sig) { return sig > 0 && sig < SIGRTMIN && (sigmask(sig) & SIG_KERNEL_COREDUMP_MASK); }
bool sig_kernel_ignore(int sig) { return sig > 0 && sig < SIGRTMIN && (sigmask(sig) & SIG_KERNEL_IGNORE_MASK); }

static const char *const signal_names[SIGRTMIN] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
	[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
	[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM", [SIGSTKFLT] = "SIGSTKFLT",
	[SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT", [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP",
	[SIGTTIN] = "SIGTTIN", [SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF", [SIGWINCH] = "SIGWINCH",
	[SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR", [SIGSYS] = "SIGSYS",
};

const char *signal_name(int sig)
{
	if (sig > 0 && sig < SIGRTMIN)
		return signal_names[sig];
	return sig >= SIGRTMIN && sig <= _NSIG ? "SIGRT" : NULL;
}

struct sighand_struct *sighand_alloc(void)
{
	struct sighand_struct *sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	if (!sh)
		return NULL;
	sh->count = 1;
	spin_lock_init(&sh->siglock);
	return sh;
}

/* Linux's flush_signal_handlers(t, 0) on a table of actions. */
static void flush_actions(struct k_sigaction *action)
{
	for (int i = 0; i < _NSIG; i++) {
		if (action[i].sa.sa_handler != SIG_IGN)
			action[i].sa.sa_handler = SIG_DFL;
		action[i].sa.sa_flags = 0;
		action[i].sa.sa_restorer = 0;
		action[i].sa.sa_mask.sig[0] = 0;
	}
}

void flush_signal_handlers(struct task_struct *t)
{
	spin_lock(&t->sighand->siglock);
	flush_actions(t->sighand->action);
	spin_unlock(&t->sighand->siglock);
}

struct sighand_struct *copy_sighand(bool clear)
{
	struct sighand_struct *old = current->sighand, *sh = sighand_alloc();
	if (!sh)
		return NULL;
	spin_lock(&old->siglock);
	memcpy(sh->action, old->action, sizeof(sh->action));
	spin_unlock(&old->siglock);
	if (clear)
		flush_actions(sh->action);
	return sh;
}

void sighand_put(struct sighand_struct *sighand)
{
	if (sighand && __atomic_sub_fetch(&sighand->count, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(sighand);
}

/* Linux's set_max_threads (kernel/fork.c): at most an eighth of memory in
 * kernel stacks (THREAD_SIZE: 16 KiB on x86_64, as ours), at least 20. */
unsigned long max_threads(void)
{
	unsigned long n = totalram_pages() / (8 * (THREAD_SIZE / PAGE_SIZE));
	return n < 20 ? 20 : n;
}

void rlimits_init(struct rlimit *rlim)
{
	/* include/asm-generic/resource.h INIT_RLIMITS: _STK_LIM 8 MiB,
	 * INR_OPEN_CUR/MAX 1024/4096, MLOCK_LIMIT 8 MiB, MQ_BYTES_MAX 819200. */
	for (int i = 0; i < RLIM_NLIMITS; i++)
		rlim[i] = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
	rlim[RLIMIT_STACK].rlim_cur = 8ul << 20;
	rlim[RLIMIT_CORE].rlim_cur = 0;
	rlim[RLIMIT_NOFILE] = (struct rlimit){ 1024, 4096 };
	rlim[RLIMIT_MEMLOCK] = (struct rlimit){ 8ul << 20, 8ul << 20 };
	rlim[RLIMIT_MSGQUEUE] = (struct rlimit){ 819200, 819200 };
	rlim[RLIMIT_NICE] = (struct rlimit){ 0, 0 };
	rlim[RLIMIT_RTPRIO] = (struct rlimit){ 0, 0 };
	/* fork_init: NPROC and SIGPENDING are half of max_threads. */
	unsigned long half = max_threads() / 2;
	rlim[RLIMIT_NPROC] = (struct rlimit){ half, half };
	rlim[RLIMIT_SIGPENDING] = (struct rlimit){ half, half };
}

unsigned long rlimit(unsigned int resource)
{
	struct signal_struct *sig = current->signal;
	return sig ? READ_ONCE(sig->rlim[resource].rlim_cur) : RLIM_INFINITY;
}

void collect_sigign_sigcatch(struct task_struct *p, unsigned long *ign, unsigned long *catch)
{
	struct sighand_struct *sh = p->sighand;
	*ign = *catch = 0;
	if (!sh) { /* a kernel thread ignores every signal (kernel/kthread.c) */
		*ign = ~0ul;
		return;
	}
	spin_lock(&sh->siglock);
	for (int i = 1; i <= _NSIG; i++) {
		unsigned long handler = sh->action[i - 1].sa.sa_handler;
		if (handler == SIG_IGN)
			*ign |= sigmask(i);
		else if (handler != SIG_DFL)
			*catch |= sigmask(i);
	}
	spin_unlock(&sh->siglock);
}

/* Linux's do_sigaction. */
static int do_sigaction(int sig, struct k_sigaction *act, struct k_sigaction *oact)
{
	struct sighand_struct *sh = current->sighand;
	if (sig < 1 || sig > _NSIG || (act && (sig == SIGKILL || sig == SIGSTOP)))
		return -EINVAL;
	if (!sh) /* a kernel thread making the call (a test): it has no actions */
		return -EINVAL;
	struct k_sigaction *k = &sh->action[sig - 1];
	spin_lock(&sh->siglock);
	if (oact)
		*oact = *k;
	/* Unknown flag bits are cleared, so user space can tell what the
	 * kernel supports. */
	if (act)
		act->sa.sa_flags &= UAPI_SA_FLAGS;
	if (oact)
		oact->sa.sa_flags &= UAPI_SA_FLAGS;
	if (act) {
		act->sa.sa_mask.sig[0] &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
		*k = *act;
	}
	spin_unlock(&sh->siglock);
	return 0;
}

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct sigaction __user *, act,
		struct sigaction __user *, oact, size_t, sigsetsize)
{
	struct k_sigaction new_sa, old_sa;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (act && copy_from_user(&new_sa.sa, act, sizeof(new_sa.sa)))
		return -EFAULT;
	int ret = do_sigaction(sig, act ? &new_sa : NULL, oact ? &old_sa : NULL);
	if (ret)
		return ret;
	if (oact && copy_to_user(oact, &old_sa.sa, sizeof(old_sa.sa)))
		return -EFAULT;
	return 0;
}

void set_current_blocked(const sigset_t *newset)
{
	struct task_struct *tsk = current;
	spin_lock(&tsk->sighand->siglock);
	WRITE_ONCE(tsk->blocked, newset->sig[0] & ~SIG_KERNEL_ONLY_MASK);
	spin_unlock(&tsk->sighand->siglock);
}

/* Linux's sys_rt_sigprocmask + sigprocmask: the mask is the thread's own.
 * A signal it unblocks that is pending is delivered on the way out of
 * this very call (signal_pending reads the new mask). */
SYSCALL_DEFINE4(rt_sigprocmask, int, how, const sigset_t __user *, nset, sigset_t __user *, oset,
		size_t, sigsetsize)
{
	struct task_struct *tsk = current;
	sigset_t old_set = { { tsk->blocked } }, new_set;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (nset) {
		if (copy_from_user(&new_set, nset, sizeof(new_set)))
			return -EFAULT;
		new_set.sig[0] &= ~SIG_KERNEL_ONLY_MASK;
		switch (how) {
		case SIG_BLOCK:
			new_set.sig[0] |= tsk->blocked;
			break;
		case SIG_UNBLOCK:
			new_set.sig[0] = tsk->blocked & ~new_set.sig[0];
			break;
		case SIG_SETMASK:
			break;
		default:
			return -EINVAL;
		}
		if (tsk->sighand)
			set_current_blocked(&new_set);
		else /* a kernel thread making the call (a test) */
			tsk->blocked = new_set.sig[0];
	}
	if (oset && copy_to_user(oset, &old_set, sizeof(old_set)))
		return -EFAULT;
	return 0;
}

/* Linux's on_sig_stack: sp inside the alternate stack (which grows down). */
bool on_sig_stack(unsigned long sp)
{
	struct task_struct *t = current;
	if (t->sas_ss_flags & SS_AUTODISARM)
		return false;
	return sp > t->sas_ss_sp && sp - t->sas_ss_sp <= t->sas_ss_size;
}

int sas_ss_flags(unsigned long sp)
{
	if (!current->sas_ss_size)
		return SS_DISABLE;
	return on_sig_stack(sp) ? SS_ONSTACK : 0;
}

/* Linux's do_sigaltstack (x86's sigaltstack_size_valid accepts any size
 * once MINSIGSTKSZ is met: no dynamic FPU sigframe here). */
int do_sigaltstack(const stack_t *ss, stack_t *oss, unsigned long sp)
{
	struct task_struct *t = current;
	if (oss) {
		memset(oss, 0, sizeof(*oss));
		oss->ss_sp = t->sas_ss_sp;
		oss->ss_size = t->sas_ss_size;
		oss->ss_flags = sas_ss_flags(sp) | (int)(t->sas_ss_flags & SS_FLAG_BITS);
	}
	if (ss) {
		unsigned long ss_sp = ss->ss_sp, ss_size = ss->ss_size;
		unsigned int ss_flags = (unsigned int)ss->ss_flags;
		if (on_sig_stack(sp))
			return -EPERM;
		unsigned int ss_mode = ss_flags & ~SS_FLAG_BITS;
		if (ss_mode != SS_DISABLE && ss_mode != SS_ONSTACK && ss_mode != 0)
			return -EINVAL;
		if (t->sas_ss_sp == ss_sp && t->sas_ss_size == ss_size && t->sas_ss_flags == ss_flags)
			return 0;
		if (ss_mode == SS_DISABLE) {
			ss_size = 0;
			ss_sp = 0;
		} else if (ss_size < MINSIGSTKSZ) {
			return -ENOMEM;
		}
		t->sas_ss_sp = ss_sp;
		t->sas_ss_size = ss_size;
		t->sas_ss_flags = ss_flags;
	}
	return 0;
}

SYSCALL_DEFINE2(sigaltstack, const stack_t __user *, uss, stack_t __user *, uoss)
{
	stack_t new, old;
	if (uss && copy_from_user(&new, uss, sizeof(new)))
		return -EFAULT;
	int err = do_sigaltstack(uss ? &new : NULL, uoss ? &old : NULL, task_pt_regs(current)->rsp);
	if (!err && uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return err;
}

/* ---- Sending ---- */

/* Linux's sig_task_ignored + sig_ignored: a signal the target does not
 * block and whose action is to ignore it is dropped when sent (a blocked
 * one stays pending: the action may change before it is unblocked). */
static bool sig_ignored_locked(struct task_struct *t, int sig)
{
	if ((t->blocked | t->real_blocked) & sigmask(sig))
		return false;
	unsigned long handler = t->sighand->action[sig - 1].sa.sa_handler;
	/* Process 1: `kill -9 1` from its shell is ignored, as on Linux. A
	 * fault's signal with no handler still ends it (force_sig_fault does
	 * not come here), and the kernel panics, as Linux's. */
	if ((READ_ONCE(t->signal->flags) & SIGNAL_UNKILLABLE) &&
	    (sig == SIGKILL || sig == SIGSTOP || handler == SIG_DFL))
		return true;
	return handler == SIG_IGN || (handler == SIG_DFL && sig_kernel_ignore(sig));
}

/* Linux's wants_signal: a thread that does not block sig, is not on its
 * way out and, unless sig is SIGKILL, is not stopped. */
static bool wants_signal(int sig, struct task_struct *p)
{
	if (p->sigpending_exited)
		return false;
	if (sig == SIGKILL)
		return true;
	return !(p->blocked & sigmask(sig)) && !(p->jobctl & JOBCTL_STOPPED);
}

/* Linux's signal_wake_up + kick_process: out of an interruptible sleep,
 * and out of user mode on another CPU (the reschedule IPI's way back to
 * user mode looks at signal_pending). */
static void signal_wake_up(struct task_struct *t)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	wake_up_state(t, TASK_INTERRUPTIBLE);
	if (t != current && READ_ONCE(t->cpu) != smp_processor_id())
		apic_send_ipi(cpu_physical_id(READ_ONCE(t->cpu)), RESCHEDULE_VECTOR);
}

/* Linux's complete_signal: the thread to wake for sig. A thread-directed
 * signal wakes its thread if it wants it now; a process-directed one the
 * target if it wants it, else the first thread of the group that does
 * (Linux starts its search at signal->curr_target, one after the last
 * chosen: here always at the head). Nobody wanting it leaves it pending
 * until a thread unblocks it. Under sighand->siglock. */
static void complete_signal(int sig, struct task_struct *p, bool group)
{
	struct task_struct *t = NULL;
	if (wants_signal(sig, p)) {
		t = p;
	} else if (group) {
		struct signal_struct *signal = p->signal;
		struct task_struct *it;
		spin_lock(&signal->siglock);
		list_for_each_entry(it, &signal->thread_head, thread_node) {
			if (wants_signal(sig, it)) {
				t = it;
				break;
			}
		}
		spin_unlock(&signal->siglock);
	}
	if (!t)
		return;
	/* SIGKILL ends a stop at once (Linux's fatal path wakes every
	 * thread with TASK_WAKEKILL): the group is no longer stopped, and the
	 * thread that dequeues it takes the others with it. */
	if (sig == SIGKILL) {
		struct signal_struct *signal = p->signal;
		struct task_struct *it;
		signal->group_stop_count = 0;
		signal->group_stop_code = 0;
		signal->flags &= ~SIGNAL_STOP_MASK;
		spin_lock(&signal->siglock);
		list_for_each_entry(it, &signal->thread_head, thread_node) {
			WRITE_ONCE(it->jobctl, it->jobctl & ~(JOBCTL_PENDING_MASK | JOBCTL_STOPPED));
			wake_up_state(it, TASK_WAKEKILL);
		}
		spin_unlock(&signal->siglock);
	}
	signal_wake_up(t);
}

/* Linux's __send_signal_locked. q: a sigqueue the caller allocated (NULL
 * if it could not), used or freed here. */
static int send_signal_locked(int sig, struct kernel_siginfo *info, struct task_struct *t, bool group,
			      struct sigqueue *q)
{
	struct signal_struct *signal = t->signal;
	struct sigpending *pending = group ? &signal->shared_pending : &t->pending;
	int ret = 0;
	/* Linux's prepare_signal: a dying group takes nothing more (a group
	 * whose exec is ending its other threads still does), nor does a
	 * thread that has flushed its queue on its way out; job control acts;
	 * an ignored signal is dropped. */
	if ((READ_ONCE(signal->group_exit) && !READ_ONCE(signal->group_exec_task)) ||
	    READ_ONCE(signal->nr_threads) == 0 || (!group && t->sigpending_exited))
		goto out_free;
	/* A stop signal or SIGCONT acts when sent, even if ignored then
	 * (kernel/signal_stop.c). */
	prepare_signal_jobctl(sig, t);
	if (sig_ignored_locked(t, sig))
		goto out_free;
	/* Linux's legacy_queue: a standard signal already pending is not
	 * queued twice. */
	if (sig < SIGRTMIN && (pending->signal & sigmask(sig)))
		goto out_free;
	/* Real-time signals from user space count against RLIMIT_SIGPENDING;
	 * standard ones and the kernel's own always get their siginfo when
	 * memory allows (Linux's override_rlimit). */
	bool override = sig < SIGRTMIN;
	if (q && (override || signal->nr_queued < READ_ONCE(signal->rlim[RLIMIT_SIGPENDING].rlim_cur))) {
		q->info = *info;
		list_add_tail(&q->list, &pending->list);
		signal->nr_queued++;
		q = NULL;
	} else if (sig >= SIGRTMIN && info->si_code != SI_USER) {
		/* Queue overflow: an RT signal from sigqueue is refused. */
		ret = -EAGAIN;
		goto out_free;
	}
	/* Else the signal is pending without its siginfo (dequeue makes
	 * an SI_USER one), as Linux's when the queue cannot grow. */
	__atomic_or_fetch(&pending->signal, sigmask(sig), __ATOMIC_RELEASE);
	complete_signal(sig, t, group);
out_free:
	kfree(q);
	return ret;
}

int send_signal_prealloc(int sig, struct kernel_siginfo *info, struct task_struct *t, bool group,
			 struct sigqueue *q)
{
	spin_lock(&t->sighand->siglock);
	int ret = send_signal_locked(sig, info, t, group, q);
	spin_unlock(&t->sighand->siglock);
	return ret;
}

int send_signal(int sig, struct kernel_siginfo *info, struct task_struct *t, bool group)
{
	/* A kernel thread ignores every signal, SIGKILL and SIGSTOP too, as
	 * Linux's, whose handlers are all SIG_IGN (kthreadd's
	 * ignore_signals, which its threads inherit): sig_task_ignored
	 * drops it and the sender sees success. */
	if (!t->sighand)
		return 0;
	/* Allocated before the lock: a queue entry may sleep for memory. */
	return send_signal_prealloc(sig, info, t, group, kmalloc(sizeof(struct sigqueue), GFP_KERNEL));
}

bool sigkill_pending(struct task_struct *t)
{
	unsigned long pend = __atomic_load_n(&t->pending.signal, __ATOMIC_ACQUIRE);
	if (t->signal)
		pend |= __atomic_load_n(&t->signal->shared_pending.signal, __ATOMIC_ACQUIRE);
	return fatal_signal_pending(t) || (pend & sigmask(SIGKILL));
}

static void flush_sigqueue(struct sigpending *pending, struct signal_struct *signal)
{
	while (!list_empty(&pending->list)) {
		struct sigqueue *q = list_first_entry(&pending->list, struct sigqueue, list);
		list_del(&q->list);
		signal->nr_queued--;
		kfree(q);
	}
	__atomic_store_n(&pending->signal, 0, __ATOMIC_RELEASE);
}

void exit_signals(struct task_struct *tsk, bool last)
{
	spin_lock(&tsk->sighand->siglock);
	tsk->sigpending_exited = true;
	/* A group stop no longer waits for it. */
	int stopped = last ? 0 : exit_jobctl_locked(tsk);
	flush_sigqueue(&tsk->pending, tsk->signal);
	if (last)
		flush_sigqueue(&tsk->signal->shared_pending, tsk->signal);
	spin_unlock(&tsk->sighand->siglock);
	if (stopped)
		notify_parent_stopped(tsk, stopped);
}

/* Linux's do_sigpending: the blocked signals pending for the thread or
 * its process; sigsetsize may be shorter than a sigset_t (then that many
 * bytes are written), never longer. */
SYSCALL_DEFINE2(rt_sigpending, sigset_t __user *, uset, size_t, sigsetsize)
{
	struct task_struct *t = current;
	if (sigsetsize > sizeof(sigset_t))
		return -EINVAL;
	sigset_t set = { { 0 } };
	if (t->signal) {
		spin_lock(&t->sighand->siglock);
		set.sig[0] = (t->pending.signal | t->signal->shared_pending.signal) & t->blocked;
		spin_unlock(&t->sighand->siglock);
	}
	return copy_to_user(uset, &set, sigsetsize) ? -EFAULT : 0;
}

/* Linux's restart_syscall: goes on with what the interrupted sleep left in
 * restart_block (do_no_restart_syscall after a sigreturn: -EINTR). */
static long do_no_restart_syscall(struct restart_block *rb)
{
	(void)rb;
	return -EINTR;
}

void restart_block_reset(struct task_struct *t) { t->restart_block.fn = do_no_restart_syscall; }

SYSCALL_DEFINE0(restart_syscall)
{
	struct restart_block *rb = &current->restart_block;
	if (!rb->fn)
		return -EINTR;
	return rb->fn(rb);
}
