/* Job control without a terminal (Linux's kernel/signal.c: prepare_signal,
 * do_signal_stop, task_participate_group_stop, do_notify_parent_cldstop;
 * kernel/exit.c: will_become_orphaned_pgrp).
 *
 * The default action of SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU stops the
 * whole thread group (a group stop): the thread that dequeues one marks
 * every other thread JOBCTL_STOP_PENDING, which makes signal_pending true
 * for it, and each stops on its own way back to user mode; the last one
 * to stop marks the group SIGNAL_STOP_STOPPED and tells the parent
 * (SIGCHLD with CLD_STOPPED, unless it set SA_NOCLDSTOP; its waits are
 * woken either way). A stopped thread sleeps in TASK_STOPPED until
 * SIGCONT (or SIGKILL) clears its JOBCTL_STOPPED: it takes no CPU and no
 * other signal meanwhile. SIGCONT, when sent, resumes every thread,
 * discards the pending stop signals (a stop signal discards a pending
 * SIGCONT) and marks the group SIGNAL_STOP_CONTINUED for WCONTINUED; the
 * first thread to run again tells the parent CLD_CONTINUED. wait4 and
 * waitid report a stop and a continue once each (kernel/exit_wait.c).
 *
 * Invariant: group_stop_count is the number of threads still marked
 * JOBCTL_STOP_CONSUME; SIGNAL_STOP_STOPPED is set only when it has gone
 * to 0 since the stop began, and cleared by SIGCONT alone. Locking:
 * jobctl, signal->flags, group_stop_count and group_stop_code under
 * sighand->siglock; the thread list under signal->siglock, taken inside
 * it. */
#include "kernel/signal.h"
#include "arch/x86_64/apic.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"

bool sig_kernel_stop(int sig)
{
	return sig > 0 && sig < SIGRTMIN &&
	       (sigmask(sig) & (sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU)));
}

#define STOP_SIGNALS (sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU))

/* Linux's flush_sigqueue_mask: the signals of mask leave pending, with
 * their queued siginfo. Under sighand->siglock. */
static void flush_sigqueue_mask(unsigned long mask, struct sigpending *pending, struct signal_struct *signal)
{
	if (!(pending->signal & mask))
		return;
	struct sigqueue *q, *n;
	list_for_each_entry_safe(q, n, &pending->list, list) {
		int sig = q->info.si_signo;
		if (sig > 0 && sig < SIGRTMIN && (sigmask(sig) & mask)) {
			list_del(&q->list);
			signal->nr_queued--;
			kfree(q);
		}
	}
	__atomic_and_fetch(&pending->signal, ~mask, __ATOMIC_RELEASE);
}

/* Linux's signal_set_stop_flags. */
static void signal_set_stop_flags(struct signal_struct *sig, unsigned int flags)
{
	sig->flags = (sig->flags & ~SIGNAL_STOP_MASK) | flags;
}

/* Linux's task_clear_jobctl_pending(t, JOBCTL_STOP_PENDING): the stop
 * bits go together. */
static void clear_stop_pending(struct task_struct *t)
{
	WRITE_ONCE(t->jobctl, t->jobctl & ~JOBCTL_PENDING_MASK);
}

void prepare_signal_jobctl(int sig, struct task_struct *p)
{
	struct signal_struct *signal = p->signal;
	struct task_struct *t;
	if (sig_kernel_stop(sig)) {
		flush_sigqueue_mask(sigmask(SIGCONT), &signal->shared_pending, signal);
		spin_lock(&signal->siglock);
		list_for_each_entry(t, &signal->thread_head, thread_node)
			flush_sigqueue_mask(sigmask(SIGCONT), &t->pending, signal);
		spin_unlock(&signal->siglock);
	} else if (sig == SIGCONT) {
		flush_sigqueue_mask(STOP_SIGNALS, &signal->shared_pending, signal);
		spin_lock(&signal->siglock);
		list_for_each_entry(t, &signal->thread_head, thread_node) {
			flush_sigqueue_mask(STOP_SIGNALS, &t->pending, signal);
			clear_stop_pending(t);
			WRITE_ONCE(t->jobctl, t->jobctl & ~JOBCTL_STOPPED);
			wake_up_state(t, __TASK_STOPPED);
		}
		spin_unlock(&signal->siglock);
		/* The parent is told CLD_CONTINUED when the group was stopped,
		 * CLD_STOPPED when a stop was under way (some threads had
		 * stopped already: Linux tells it that one, it never came);
		 * either way a later WCONTINUED wait sees it. */
		unsigned int why = 0;
		if (signal->flags & SIGNAL_STOP_STOPPED)
			why = SIGNAL_CLD_CONTINUED;
		else if (signal->group_stop_count)
			why = SIGNAL_CLD_STOPPED;
		if (why) {
			signal_set_stop_flags(signal, why | SIGNAL_STOP_CONTINUED);
			signal->group_stop_count = 0;
			signal->group_stop_code = 0;
		}
	}
}

/* Linux's do_notify_parent_cldstop(tsk, false, why): the parent of tsk's
 * process gets SIGCHLD unless it ignores it or asked SA_NOCLDSTOP; its
 * waits are woken in any case. status: the stop signal, which the caller
 * read under sighand->siglock (Linux reads group_exit_code here, after
 * the lock, where a wait of the parent's may have taken it to 0 already).
 * Takes tasklist_lock. */
static void do_notify_parent_cldstop(struct task_struct *tsk, int why, int status)
{
	struct task_struct *leader = tsk->group_leader;
	spin_lock(&tasklist_lock);
	struct task_struct *parent = leader->real_parent;
	if (!parent) { /* started by the kernel: nobody to tell */
		spin_unlock(&tasklist_lock);
		return;
	}
	struct kernel_siginfo info = { .si_signo = SIGCHLD, .si_code = why };
	info.chld.pid = leader->tgid;
	info.chld.uid = 0;
	info.chld.utime = (long)nsec_to_clock_t(READ_ONCE(leader->utime));
	info.chld.stime = (long)nsec_to_clock_t(READ_ONCE(leader->stime));
	info.chld.status = why == CLD_CONTINUED ? SIGCONT : status & 0x7f;
	struct sighand_struct *psig = parent->sighand;
	/* Allocated with the lock held, so it may not sleep. */
	struct sigqueue *q = kmalloc(sizeof(*q), GFP_ATOMIC);
	spin_lock(&psig->siglock);
	struct k_sigaction *ka = &psig->action[SIGCHLD - 1];
	bool send = ka->sa.sa_handler != SIG_IGN && !(ka->sa.sa_flags & SA_NOCLDSTOP);
	spin_unlock(&psig->siglock);
	if (send)
		send_signal_prealloc(SIGCHLD, &info, parent, true, q);
	else
		kfree(q);
	wake_up_all(&parent->signal->wait_chldexit);
	spin_unlock(&tasklist_lock);
}

/* Linux's task_participate_group_stop: the thread leaves the stop's
 * count; true when it was the last, and the group is stopped now. */
static bool task_participate_group_stop(struct task_struct *t)
{
	struct signal_struct *sig = t->signal;
	bool consume = t->jobctl & JOBCTL_STOP_CONSUME;
	clear_stop_pending(t);
	if (!consume)
		return false;
	if (sig->group_stop_count > 0)
		sig->group_stop_count--;
	if (!sig->group_stop_count && !(sig->flags & SIGNAL_STOP_STOPPED)) {
		signal_set_stop_flags(sig, SIGNAL_STOP_STOPPED);
		return true;
	}
	return false;
}

/* Linux's task_set_jobctl_pending for a stop: false for a thread on its
 * way out. */
static bool set_stop_pending(struct task_struct *t, unsigned long mask)
{
	if (t->sigpending_exited)
		return false;
	WRITE_ONCE(t->jobctl, (t->jobctl & ~JOBCTL_STOP_SIGMASK) | mask);
	return true;
}

bool do_signal_stop(int signr)
{
	struct task_struct *tsk = current;
	struct signal_struct *sig = tsk->signal;
	struct sighand_struct *sighand = tsk->sighand;
	if (!(tsk->jobctl & JOBCTL_STOP_PENDING)) {
		unsigned long gstop = JOBCTL_STOP_PENDING | JOBCTL_STOP_CONSUME;
		struct task_struct *t;
		/* A SIGCONT since the dequeue (JOBCTL_STOP_DEQUEUED cleared),
		 * or a group exit or exec under way: no stop. */
		if (!(tsk->jobctl & JOBCTL_STOP_DEQUEUED) || fatal_signal_pending(tsk) ||
		    READ_ONCE(sig->group_exec_task))
			return false;
		/* A second stop signal to a stopped group reports nothing new. */
		if (!(sig->flags & SIGNAL_STOP_STOPPED))
			sig->group_stop_code = signr;
		sig->group_stop_count = 0;
		if (set_stop_pending(tsk, (unsigned long)signr | gstop))
			sig->group_stop_count++;
		spin_lock(&sig->siglock);
		list_for_each_entry(t, &sig->thread_head, thread_node) {
			if (t == tsk || (t->jobctl & JOBCTL_STOPPED))
				continue;
			if (set_stop_pending(t, (unsigned long)signr | gstop)) {
				sig->group_stop_count++;
				/* Out of an interruptible sleep, or of user mode
				 * on its CPU: its way back looks at
				 * signal_pending. */
				wake_up_state(t, TASK_INTERRUPTIBLE);
				if (READ_ONCE(t->cpu) != smp_processor_id())
					apic_send_ipi(cpu_physical_id(READ_ONCE(t->cpu)), RESCHEDULE_VECTOR);
			}
		}
		spin_unlock(&sig->siglock);
	}
	bool notify = task_participate_group_stop(tsk);
	int code = sig->group_stop_code;
	WRITE_ONCE(tsk->jobctl, tsk->jobctl | JOBCTL_STOPPED);
	set_current_state(TASK_STOPPED);
	spin_unlock(&sighand->siglock);
	if (notify)
		do_notify_parent_cldstop(tsk, CLD_STOPPED, code);
	/* Asleep until SIGCONT or SIGKILL clears JOBCTL_STOPPED, or a group
	 * exit (zap_other_threads wakes TASK_WAKEKILL) ends the thread. */
	for (;;) {
		schedule();
		spin_lock(&sighand->siglock);
		if (!(tsk->jobctl & JOBCTL_STOPPED) || fatal_signal_pending(tsk))
			break;
		set_current_state(TASK_STOPPED);
		spin_unlock(&sighand->siglock);
	}
	__set_current_state(TASK_RUNNING);
	spin_unlock(&sighand->siglock);
	return true;
}

void task_join_group_stop(struct task_struct *task)
{
	struct signal_struct *sig = current->signal;
	unsigned long mask = current->jobctl & JOBCTL_STOP_SIGMASK;
	if (sig->group_stop_count) {
		sig->group_stop_count++;
		mask |= JOBCTL_STOP_CONSUME;
	} else if (!(sig->flags & SIGNAL_STOP_STOPPED)) {
		return;
	}
	set_stop_pending(task, mask | JOBCTL_STOP_PENDING);
}

bool notify_parent_jobctl(void)
{
	struct task_struct *tsk = current;
	struct signal_struct *sig = tsk->signal;
	if (!(sig->flags & SIGNAL_CLD_MASK))
		return false;
	int why = sig->flags & SIGNAL_CLD_CONTINUED ? CLD_CONTINUED : CLD_STOPPED;
	int code = sig->group_stop_code;
	sig->flags &= ~SIGNAL_CLD_MASK;
	spin_unlock(&tsk->sighand->siglock);
	do_notify_parent_cldstop(tsk, why, code);
	return true;
}

int exit_jobctl_locked(struct task_struct *tsk)
{
	/* Linux's exit_signals: nothing to tell of a group that is dying,
	 * or of a thread that was alone. */
	if (fatal_signal_pending(tsk) || READ_ONCE(tsk->signal->nr_threads) <= 1)
		return 0;
	if (!(tsk->jobctl & JOBCTL_STOP_PENDING) || !task_participate_group_stop(tsk))
		return 0;
	return tsk->signal->group_stop_code;
}

void notify_parent_stopped(struct task_struct *tsk, int code) { do_notify_parent_cldstop(tsk, CLD_STOPPED, code); }

/* Linux's will_become_orphaned_pgrp, over root's tree (where every
 * process group of a session lives), ignoring ignored (a process that is
 * ending): no member of pgrp has a parent in another group of the same
 * session. A process the kernel started has no parent, and so no tie, as
 * a child of Linux's global init has none. Under tasklist_lock. */
static bool will_become_orphaned_pgrp(struct task_struct *root, int pgrp, struct task_struct *ignored)
{
	struct task_struct *p;
	list_for_each_entry(p, &root->signal->tree_tasks, tasks) {
		struct task_struct *parent = p->real_parent;
		if (p->signal->pgrp != pgrp || p == ignored || p->exit_state || !parent)
			continue;
		if (parent->signal->pgrp != pgrp && parent->signal->session == p->signal->session)
			return false;
	}
	return true;
}

bool is_current_pgrp_orphaned(void)
{
	struct signal_struct *me = current->signal;
	spin_lock(&tasklist_lock);
	bool orphaned = will_become_orphaned_pgrp(me->child_reaper, me->pgrp, NULL);
	spin_unlock(&tasklist_lock);
	return orphaned;
}

/* Linux's has_stopped_jobs. Under tasklist_lock. */
static bool has_stopped_jobs(struct task_struct *root, int pgrp)
{
	struct task_struct *p;
	list_for_each_entry(p, &root->signal->tree_tasks, tasks)
		if (p->signal->pgrp == pgrp && !p->exit_state && (READ_ONCE(p->signal->flags) & SIGNAL_STOP_STOPPED))
			return true;
	return false;
}

static bool kill_pgrp_locked(struct task_struct *root, int pgrp, int sig)
{
	struct task_struct *p;
	bool any = false;
	list_for_each_entry(p, &root->signal->tree_tasks, tasks) {
		if (p->signal->pgrp != pgrp || p->exit_state)
			continue;
		struct kernel_siginfo info = { .si_signo = sig, .si_code = SI_KERNEL };
		send_signal_prealloc(sig, &info, p, true, kmalloc(sizeof(struct sigqueue), GFP_ATOMIC));
		any = true;
	}
	return any;
}

bool kill_pgrp(struct task_struct *root, int pgrp, int sig)
{
	spin_lock(&tasklist_lock);
	bool any = !root->signal->tree_dead && kill_pgrp_locked(root, pgrp, sig);
	spin_unlock(&tasklist_lock);
	return any;
}

void kill_orphaned_pgrp(struct task_struct *tsk, struct task_struct *parent)
{
	struct task_struct *ignored = tsk, *root = tsk->signal->child_reaper;
	int pgrp = tsk->signal->pgrp;
	if (!parent)
		parent = tsk->real_parent; /* its end: was it the group's last tie? */
	else
		ignored = NULL;            /* its parent's end: was that the last tie? */
	if (!parent || root->signal->tree_dead)
		return;
	if (parent->signal->pgrp != pgrp && parent->signal->session == tsk->signal->session &&
	    will_become_orphaned_pgrp(root, pgrp, ignored) && has_stopped_jobs(root, pgrp)) {
		kill_pgrp_locked(root, pgrp, SIGHUP);
		kill_pgrp_locked(root, pgrp, SIGCONT);
	}
}
