/* Waiting for children: wait4 61 and waitid 247 (the do_wait half of
 * Linux's kernel/exit.c: kernel_wait4, kernel_waitid, do_wait,
 * eligible_child, wait_task_zombie).
 *
 * A process that has ended is a zombie (task->exit_state EXIT_ZOMBIE) on
 * its parent's children list until a wait takes it: the waiter claims it
 * (EXIT_DEAD, off the list) under tasklist_lock, then, without the lock,
 * adds what it used to its own children's totals and frees it
 * (release_process). A waiter with nothing to take sleeps on its
 * signal->wait_chldexit, which every child's end wakes (do_notify_parent),
 * interruptibly: a signal ends the wait with -ERESTARTSYS (restarted under
 * SA_RESTART, else -EINTR).
 *
 * A stopped child (kernel/signal_stop.c) is reported to WUNTRACED
 * (waitid's WSTOPPED) once per stop, a continued one to WCONTINUED once
 * per SIGCONT (Linux's wait_task_stopped and wait_task_continued); WNOWAIT
 * leaves either to report again. A process's children are the whole group's (Linux's __WNOTHREAD, which
 * limits a wait to the caller thread's own children, is accepted and
 * changes nothing: a process's children here are its leader's). */
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/process.h"
#include "kernel/resource.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "lib/string.h"

/* include/uapi/linux/wait.h */
#define WNOHANG 0x00000001
#define WUNTRACED 0x00000002
#define WSTOPPED WUNTRACED
#define WEXITED 0x00000004
#define WCONTINUED 0x00000008
#define WNOWAIT 0x01000000
#define __WNOTHREAD 0x20000000
#define __WALL 0x40000000
#define __WCLONE 0x80000000u
#define P_ALL 0
#define P_PID 1
#define P_PGID 2
#define P_PIDFD 3

enum pid_type { PIDTYPE_PID, PIDTYPE_PGID, PIDTYPE_MAX };

/* Linux's struct wait_opts. */
struct wait_opts {
	enum pid_type wo_type;
	int wo_pid;
	unsigned int wo_flags;
	struct kernel_siginfo *wo_info; /* waitid's: cause, pid, status */
	int wo_stat;                    /* wait4's status */
	struct rusage *wo_rusage;
};

/* Linux's eligible_pid + eligible_child: the selector, then __WALL and
 * __WCLONE (a "clone" child is one that signals its end with another
 * signal than SIGCHLD, or none). Under tasklist_lock. */
static bool eligible_child(const struct wait_opts *wo, const struct task_struct *p)
{
	if (wo->wo_type == PIDTYPE_PID && p->tgid != wo->wo_pid)
		return false;
	if (wo->wo_type == PIDTYPE_PGID && p->signal->pgrp != wo->wo_pid)
		return false;
	if (((p->exit_signal != SIGCHLD) ^ !!(wo->wo_flags & __WCLONE)) && !(wo->wo_flags & __WALL))
		return false;
	return true;
}

/* Linux's wait_task_zombie after its claim: what the waiter learns of p,
 * and, unless WNOWAIT, p's use added to the waiter's children's totals
 * and p freed. Returns p's pid. */
static int wait_task_zombie(struct wait_opts *wo, struct task_struct *p, bool reap)
{
	struct signal_struct *sig = p->signal, *psig = current->signal;
	int pid = p->tgid;
	if (wo->wo_rusage)
		getrusage(p, RUSAGE_BOTH, wo->wo_rusage);
	wo->wo_stat = process_wait_status(sig);
	if (wo->wo_info)
		process_siginfo(p, wo->wo_info);
	if (!reap)
		return pid;
	/* Linux's: the child's threads (all ended: their use is in sig) and
	 * its own waited-for children. */
	spin_lock(&psig->siglock);
	psig->cutime += sig->utime + sig->cutime;
	psig->cstime += sig->stime + sig->cstime;
	psig->cmin_flt += sig->min_flt + sig->cmin_flt;
	psig->cmaj_flt += sig->maj_flt + sig->cmaj_flt;
	psig->cnvcsw += sig->nvcsw + sig->cnvcsw;
	psig->cnivcsw += sig->nivcsw + sig->cnivcsw;
	psig->cmaxrss = max(psig->cmaxrss, max(sig->maxrss, sig->cmaxrss));
	spin_unlock(&psig->siglock);
	release_process(p);
	return pid;
}

/* Linux's wait_task_stopped and wait_task_continued, the part under the
 * locks (tasklist_lock held; p's sighand->siglock taken here): whether p
 * has a stop (CLD_STOPPED, with the stop signal in *status) or a
 * continue (CLD_CONTINUED) to report, consumed unless WNOWAIT. 0: none. */
static int wait_task_jobctl_locked(struct wait_opts *wo, struct task_struct *p, int *status)
{
	struct signal_struct *sig = p->signal;
	int why = 0;
	if (!(wo->wo_flags & (WUNTRACED | WCONTINUED)))
		return 0;
	spin_lock(&p->sighand->siglock);
	if ((wo->wo_flags & WUNTRACED) && (sig->flags & SIGNAL_STOP_STOPPED) && sig->group_stop_code) {
		why = CLD_STOPPED;
		*status = sig->group_stop_code;
		if (!(wo->wo_flags & WNOWAIT))
			sig->group_stop_code = 0;
	} else if ((wo->wo_flags & WCONTINUED) && (sig->flags & SIGNAL_STOP_CONTINUED)) {
		why = CLD_CONTINUED;
		*status = SIGCONT;
		if (!(wo->wo_flags & WNOWAIT))
			sig->flags &= ~SIGNAL_STOP_CONTINUED;
	}
	spin_unlock(&p->sighand->siglock);
	return why;
}

/* The report of a stop or continue found by wait_task_jobctl_locked:
 * wait4's status (the signal << 8 | 0x7f, or 0xffff), waitid's siginfo,
 * the child's rusage; p's reference is the caller's. Returns p's pid. */
static int wait_task_jobctl(struct wait_opts *wo, struct task_struct *p, int why, int status)
{
	if (wo->wo_rusage)
		getrusage(p, RUSAGE_BOTH, wo->wo_rusage);
	wo->wo_stat = why == CLD_STOPPED ? (status << 8) | 0x7f : 0xffff;
	if (wo->wo_info) {
		memset(wo->wo_info, 0, sizeof(*wo->wo_info));
		wo->wo_info->si_signo = SIGCHLD;
		wo->wo_info->si_code = why;
		wo->wo_info->chld.pid = p->tgid;
		wo->wo_info->chld.status = status;
	}
	return p->tgid;
}

/* One pass over current's children (Linux's do_wait_thread): a zombie
 * that matches, claimed when it is to be freed, or a stop or continue to
 * report; -ECHILD when none matches at all, 0 when some do but none has
 * anything to report. */
static int do_wait_children(struct wait_opts *wo)
{
	struct task_struct *leader = current->group_leader, *p, *found = NULL;
	bool any = false, reap = !(wo->wo_flags & WNOWAIT);
	int why = 0, status = 0;
	spin_lock(&tasklist_lock);
	list_for_each_entry(p, &leader->children, sibling) {
		if (!eligible_child(wo, p))
			continue;
		any = true;
		if (p->exit_state == EXIT_ZOMBIE && (wo->wo_flags & WEXITED)) {
			found = p;
			break;
		}
		if (!p->exit_state && (why = wait_task_jobctl_locked(wo, p, &status))) {
			get_task_struct(p);
			break;
		}
	}
	if (why) {
		spin_unlock(&tasklist_lock);
		int pid = wait_task_jobctl(wo, p, why, status);
		put_task_struct(p);
		return pid;
	}
	if (found) {
		get_task_struct(found); /* for WNOWAIT: it may be reaped meanwhile */
		if (reap) {
			found->exit_state = EXIT_DEAD;
			list_del(&found->sibling);
			INIT_LIST_HEAD(&found->sibling);
		}
	}
	spin_unlock(&tasklist_lock);
	if (!found)
		return any ? 0 : -ECHILD;
	/* A reaped child's reference goes before release_process waits for
	 * every reference to be put. */
	if (reap) {
		put_task_struct(found);
		return wait_task_zombie(wo, found, true);
	}
	int pid = wait_task_zombie(wo, found, false);
	put_task_struct(found);
	return pid;
}

/* Linux's do_wait: a child's pid, 0 (WNOHANG, nothing ended yet), or
 * -ECHILD, -ERESTARTSYS. */
static long do_wait(struct wait_opts *wo)
{
	struct signal_struct *sig = current->signal;
	if (!sig)
		return -ECHILD;
	DEFINE_WAIT(wait);
	long ret;
	for (;;) {
		/* On the queue before the look: a child that ends after it
		 * wakes us. */
		prepare_to_wait(&sig->wait_chldexit, &wait, TASK_INTERRUPTIBLE);
		ret = do_wait_children(wo);
		if (ret || (wo->wo_flags & WNOHANG))
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	finish_wait(&sig->wait_chldexit, &wait);
	return ret;
}

/* Linux's kernel_wait4. */
static long kernel_wait4(int upid, int __user *stat_addr, int options, struct rusage *ru)
{
	struct wait_opts wo = { .wo_rusage = ru };
	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	/* -INT_MIN is not defined. */
	if (upid == (int)0x80000000)
		return -ESRCH;
	if (upid == -1) {
		wo.wo_type = PIDTYPE_MAX;
	} else if (upid < 0) {
		wo.wo_type = PIDTYPE_PGID;
		wo.wo_pid = -upid;
	} else if (upid == 0) {
		wo.wo_type = PIDTYPE_PGID;
		spin_lock(&tasklist_lock);
		wo.wo_pid = current->signal ? current->signal->pgrp : 0;
		spin_unlock(&tasklist_lock);
	} else {
		wo.wo_type = PIDTYPE_PID;
		wo.wo_pid = upid;
	}
	wo.wo_flags = (unsigned int)options | WEXITED;
	long ret = do_wait(&wo);
	if (ret > 0 && stat_addr && put_user_u32((u32)wo.wo_stat, stat_addr))
		ret = -EFAULT;
	return ret;
}

SYSCALL_DEFINE4(wait4, int, upid, int __user *, stat_addr, int, options, struct rusage __user *, ru)
{
	struct rusage r;
	long ret = kernel_wait4(upid, stat_addr, options, ru ? &r : NULL);
	if (ret > 0 && ru && copy_to_user(ru, &r, sizeof(r)))
		return -EFAULT;
	return ret;
}

/* Linux's kernel_waitid: the pid, or 0 (WNOHANG), or an error. */
static long kernel_waitid(int which, int upid, struct kernel_siginfo *info, int options, struct rusage *ru)
{
	struct wait_opts wo = { .wo_rusage = ru, .wo_info = info };
	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (which) {
	case P_ALL:
		wo.wo_type = PIDTYPE_MAX;
		break;
	case P_PID:
		if (upid <= 0)
			return -EINVAL;
		wo.wo_type = PIDTYPE_PID;
		wo.wo_pid = upid;
		break;
	case P_PGID:
		if (upid < 0)
			return -EINVAL;
		wo.wo_type = PIDTYPE_PGID;
		wo.wo_pid = upid;
		if (!upid) {
			spin_lock(&tasklist_lock);
			wo.wo_pid = current->signal ? current->signal->pgrp : 0;
			spin_unlock(&tasklist_lock);
		}
		break;
	case P_PIDFD:
		/* No pidfds here: no descriptor is one (Linux's pidfd_get_pid
		 * gives -EBADF for a closed one and for any other file). */
		return upid < 0 ? -EINVAL : -EBADF;
	default:
		return -EINVAL;
	}
	wo.wo_flags = (unsigned int)options;
	return do_wait(&wo);
}

SYSCALL_DEFINE5(waitid, int, which, int, upid, void __user *, infop, int, options, struct rusage __user *, ru)
{
	struct rusage r;
	struct kernel_siginfo info;
	memset(&info, 0, sizeof(info));
	long err = kernel_waitid(which, upid, &info, options, ru ? &r : NULL);
	int signo = 0;
	if (err > 0) {
		signo = SIGCHLD;
		err = 0;
		if (ru && copy_to_user(ru, &r, sizeof(r)))
			return -EFAULT;
	}
	if (!infop)
		return err;
	/* Linux's: written whatever the outcome, zeros when no child was
	 * taken (WNOHANG, or an error); the rest of the 128 bytes stays as
	 * the caller left it. */
	struct {
		int si_signo, si_errno, si_code, pad;
		int pid;
		unsigned int uid;
		int status;
	} out = { signo, 0, info.si_code, 0, info.chld.pid, info.chld.uid, info.chld.status };
	if (copy_to_user(infop, &out.si_signo, 3 * sizeof(int)) ||
	    copy_to_user((char __user *)infop + 16, &out.pid, 3 * sizeof(int)))
		return -EFAULT;
	return err;
}
