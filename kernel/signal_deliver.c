/* The generic half of signal delivery (Linux's kernel/signal.c:
 * dequeue_signal, get_signal, signal_delivered, force_sig_info_to_task):
 * on its way back to user mode a thread takes the next signal it does
 * not block, synchronous ones (a fault's) first and SIGKILL before all,
 * and runs its handler (the arch builds the frame: arch/x86_64/signal.c),
 * ignores it, stops with its group (kernel/signal_stop.c) or dies with
 * it; a fault's signal cannot be blocked or ignored away.
 *
 * Locking: sighand->siglock around every look at the pending sets and
 * the actions (kernel/signal.h); it is dropped before the thread stops,
 * exits or builds a frame. */
#include "kernel/signal.h"
#include "kernel/process.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/slab.h"

/* The signals a fault sends, dequeued before any other. */
#define SYNCHRONOUS_MASK (sigmask(SIGSEGV) | sigmask(SIGBUS) | sigmask(SIGILL) | sigmask(SIGTRAP) | \
			  sigmask(SIGFPE) | sigmask(SIGSYS))

/* Linux's next_signal: the lowest-numbered pending signal not in mask,
 * synchronous ones (faults) first. */
static int next_signal(struct sigpending *pending, unsigned long blocked)
{
	unsigned long x = pending->signal & ~blocked;
	if (!x)
		return 0;
	if (x & SYNCHRONOUS_MASK)
		x &= SYNCHRONOUS_MASK;
	return __builtin_ctzl(x) + 1;
}

/* Linux's collect_signal: the first queued instance of sig; the bit stays
 * on while another instance is queued. */
static void collect_signal(int sig, struct sigpending *list, struct kernel_siginfo *info,
			   struct signal_struct *signal)
{
	struct sigqueue *q, *first = NULL;
	bool more = false;
	list_for_each_entry(q, &list->list, list) {
		if (q->info.si_signo != sig)
			continue;
		if (first) {
			more = true;
			break;
		}
		first = q;
	}
	if (!more)
		__atomic_and_fetch(&list->signal, ~sigmask(sig), __ATOMIC_RELEASE);
	if (first) {
		list_del(&first->list);
		signal->nr_queued--;
		*info = first->info;
		kfree(first);
	} else {
		/* Its siginfo could not be queued (Linux's "Ok, it wasn't in
		 * the queue"): a plain SI_USER one. */
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		info->si_code = SI_USER;
	}
}

int dequeue_signal(struct task_struct *tsk, unsigned long blocked, struct kernel_siginfo *info)
{
	int sig = next_signal(&tsk->pending, blocked);
	if (sig) {
		collect_signal(sig, &tsk->pending, info, tsk->signal);
	} else {
		sig = next_signal(&tsk->signal->shared_pending, blocked);
		if (sig)
			collect_signal(sig, &tsk->signal->shared_pending, info, tsk->signal);
	}
	/* A stop signal stops the group unless SIGCONT comes first
	 * (do_signal_stop looks). */
	if (sig_kernel_stop(sig))
		WRITE_ONCE(tsk->jobctl, tsk->jobctl | JOBCTL_STOP_DEQUEUED);
	return sig;
}

/* The console line's reason for a death by a signal that was queued. */
static void signal_report(const struct kernel_siginfo *info, char *buf, size_t size)
{
	int sig = info->si_signo;
	const char *name = signal_name(sig);
	if (sigmask(sig) & SYNCHRONOUS_MASK && info->si_code > 0 && info->si_code != SI_KERNEL)
		snprintf(buf, size, "signal %d (%s), si_code %d, address %#lx", sig, name, info->si_code,
			 info->fault.addr);
	else if (info->si_code == SI_USER || info->si_code == SI_TKILL || info->si_code == SI_QUEUE)
		snprintf(buf, size, "signal %d (%s) sent by pid %d", sig, name ? name : "?", info->rt.pid);
	else
		snprintf(buf, size, "signal %d (%s)", sig, name ? name : "?");
}

bool get_signal(struct ksignal *ksig)
{
	struct task_struct *tsk = current;
	struct sighand_struct *sighand = tsk->sighand;
	for (;;) {
		/* Linux's SIGKILL from zap_other_threads: the thread ends with
		 * the group's status. */
		if (fatal_signal_pending(tsk))
			do_exit_thread(READ_ONCE(tsk->signal->group_exit_code));
		spin_lock(&sighand->siglock);
		/* Every thread woken from a stop passes here: the parent is
		 * told of a stop or continue not yet announced. */
		if (notify_parent_jobctl())
			continue;
		/* Another thread's group stop: this one stops too. */
		if ((tsk->jobctl & JOBCTL_STOP_PENDING) && do_signal_stop(0))
			continue;
		/* SIGKILL first, before any other signal pending (Linux's
		 * complete_signal makes it a group exit when it is sent). */
		unsigned long pend = tsk->pending.signal | tsk->signal->shared_pending.signal;
		unsigned long mask = pend & sigmask(SIGKILL) ? ~sigmask(SIGKILL) : tsk->blocked;
		int sig = dequeue_signal(tsk, mask, &ksig->info);
		if (!sig) {
			spin_unlock(&sighand->siglock);
			return false;
		}
		struct k_sigaction *ka = &sighand->action[sig - 1];
		if (ka->sa.sa_handler == SIG_IGN) {
			spin_unlock(&sighand->siglock);
			continue;
		}
		if (ka->sa.sa_handler != SIG_DFL) {
			ksig->ka = *ka;
			ksig->sig = sig;
			if (ka->sa.sa_flags & SA_RESETHAND)
				ka->sa.sa_handler = SIG_DFL;
			spin_unlock(&sighand->siglock);
			return true;
		}
		/* The default actions. */
		if (sig_kernel_ignore(sig)) {
			spin_unlock(&sighand->siglock);
			continue;
		}
		/* Stop the group (kernel/signal_stop.c); the terminal's stop
		 * signals do not stop an orphaned process group, which nobody
		 * would continue. A stop that did not happen (a SIGCONT came
		 * meanwhile) is gone. */
		if (sig_kernel_stop(sig)) {
			if (sig != SIGSTOP) {
				spin_unlock(&sighand->siglock);
				if (is_current_pgrp_orphaned())
					continue;
				spin_lock(&sighand->siglock);
			}
			if (!do_signal_stop(sig))
				spin_unlock(&sighand->siglock);
			continue;
		}
		spin_unlock(&sighand->siglock);
		/* Terminate, or dump core and terminate (no core files here):
		 * the whole group dies (Linux's do_group_exit). */
		char why[sizeof(tsk->signal->result.reason)];
		signal_report(&ksig->info, why, sizeof(why));
		do_group_exit_signal(sig, why);
	}
}

void signal_setup_done(bool failed, struct ksignal *ksig)
{
	if (failed) {
		force_sigsegv(ksig->sig);
		return;
	}
	/* Linux's signal_delivered: sa_mask and, unless SA_NODEFER, the
	 * signal itself are blocked while the handler runs (the frame holds
	 * the mask to restore, rt_sigsuspend's saved one included). */
	current->restore_sigmask = false;
	sigset_t blocked = { { current->blocked | ksig->ka.sa.sa_mask.sig[0] } };
	if (!(ksig->ka.sa.sa_flags & SA_NODEFER))
		blocked.sig[0] |= sigmask(ksig->sig);
	set_current_blocked(&blocked);
}

/* Linux's force_sig_info_to_task: the signal cannot be blocked or ignored
 * away. handler_dfl: Linux's HANDLER_SIG_DFL (force_fatal_sig), the
 * action is reset whatever it was. Returns whether a handler will run. */
static bool force_sig_info(struct kernel_siginfo *info, bool handler_dfl)
{
	struct task_struct *t = current;
	int sig = info->si_signo;
	spin_lock(&t->sighand->siglock);
	struct k_sigaction *action = &t->sighand->action[sig - 1];
	bool blocked = t->blocked & sigmask(sig);
	if (blocked || action->sa.sa_handler == SIG_IGN || handler_dfl) {
		action->sa.sa_handler = SIG_DFL;
		if (blocked)
			WRITE_ONCE(t->blocked, t->blocked & ~sigmask(sig));
	}
	bool handled = action->sa.sa_handler != SIG_DFL;
	if (handled) {
		spin_unlock(&t->sighand->siglock);
		send_signal(sig, info, t, false);
		return true;
	}
	spin_unlock(&t->sighand->siglock);
	return false;
}

void force_sig_fault(int sig, int code, unsigned long addr, const char *report)
{
	struct kernel_siginfo info = { .si_signo = sig, .si_code = code };
	info.fault.addr = addr;
	/* SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGTRAP all dump core and
	 * terminate by default: with no handler to run, the group dies now,
	 * as it would when get_signal dequeues it (synchronous signals come
	 * first there). */
	if (!force_sig_info(&info, false))
		do_group_exit_signal(sig, report);
}

void force_sig(int sig, const char *report)
{
	force_sig_fault(sig, SI_KERNEL, 0, report);
}

void force_sigsegv(int sig)
{
	char why[96];
	snprintf(why, sizeof(why), "no room for the signal frame of signal %d (%s)", sig,
		 signal_name(sig) ? signal_name(sig) : "?");
	struct kernel_siginfo info = { .si_signo = SIGSEGV, .si_code = SI_KERNEL };
	/* Linux's force_sigsegv: a SIGSEGV handler that cannot be run is
	 * reset, so this one kills. */
	if (!force_sig_info(&info, sig == SIGSEGV))
		do_group_exit_signal(SIGSEGV, why);
}
