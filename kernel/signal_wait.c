/* Waiting for signals: pause 34, rt_sigsuspend 130 and rt_sigtimedwait 128
 * (the waiting half of Linux's kernel/signal.c: sys_pause,
 * sys_rt_sigsuspend, do_sigtimedwait).
 *
 * pause and rt_sigsuspend sleep until a signal the thread does not block
 * is pending and return -ERESTARTNOHAND: a handler runs and the call gives
 * -EINTR, an ignored signal restarts it. rt_sigsuspend sleeps with the
 * mask it was given and puts the caller's back afterwards (Linux's
 * saved_sigmask: the handler's frame holds the caller's mask, which
 * rt_sigreturn restores; with no handler, restore_saved_sigmask does it on
 * the way out). rt_sigtimedwait takes a signal of the set from the queue
 * without running its handler, unblocking the set while it sleeps, until
 * one comes, the timeout (-EAGAIN) or another signal with a handler
 * (-EINTR).
 *
 * Locking: a thread's blocked mask is written under sighand->siglock
 * (set_current_blocked); a sleeper sets its state before it looks at
 * signal_pending, and a sender sets the pending bit before it wakes it. */
#include "arch/x86_64/uaccess.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "lib/string.h"

#define SI_MAX_SIZE 128 /* the user's siginfo_t */

/* Sleeps until a signal the thread does not block is pending. */
static void sleep_until_signal(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (signal_pending(current))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

void restore_saved_sigmask(void)
{
	struct task_struct *t = current;
	if (!t->restore_sigmask)
		return;
	t->restore_sigmask = false;
	sigset_t saved = { { t->saved_sigmask } };
	set_current_blocked(&saved);
}

SYSCALL_DEFINE0(pause)
{
	if (!current->sighand) /* a kernel thread (a test): no signal can come */
		return -EINVAL;
	sleep_until_signal();
	return -ERESTARTNOHAND;
}

SYSCALL_DEFINE2(rt_sigsuspend, const sigset_t __user *, unewset, size_t, sigsetsize)
{
	sigset_t newset;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (copy_from_user(&newset, unewset, sizeof(newset)))
		return -EFAULT;
	if (!current->sighand)
		return -EINVAL;
	current->saved_sigmask = current->blocked;
	set_current_blocked(&newset);
	sleep_until_signal();
	current->restore_sigmask = true;
	return -ERESTARTNOHAND;
}

/* Linux's do_sigtimedwait: timeout_ns < 0 waits without a bound. */
static int do_sigtimedwait(unsigned long these, struct kernel_siginfo *info, s64 timeout_ns)
{
	struct task_struct *tsk = current;
	struct sighand_struct *sh = tsk->sighand;
	/* Invert the set of allowed signals to get those to block. */
	unsigned long mask = ~(these & ~(sigmask(SIGKILL) | sigmask(SIGSTOP)));
	bool woken = false; /* before the time ran out (a signal) */
	spin_lock(&sh->siglock);
	int sig = dequeue_signal(tsk, mask, info);
	if (!sig && timeout_ns) {
		/* Unblock the awaited signals, so that one sent now wakes us
		 * (complete_signal picks a thread that does not block it);
		 * real_blocked keeps them blocked for sig_ignored_locked, so
		 * that one whose action is to ignore it is not dropped. */
		tsk->real_blocked = tsk->blocked;
		WRITE_ONCE(tsk->blocked, tsk->blocked & mask);
		spin_unlock(&sh->siglock);
		/* Linux's schedule_hrtimeout_range: the time runs out at the
		 * deadline itself (a tick after it with highres=off). */
		u64 now = ktime_get_ns();
		set_current_state(TASK_INTERRUPTIBLE);
		if (signal_pending(tsk))
			woken = true;
		else if (timeout_ns < 0)
			woken = schedule_timeout(MAX_SCHEDULE_TIMEOUT) != 0;
		else
			woken = schedule_hrtimeout(ktime_add_safe(now, (u64)timeout_ns)) != 0;
		__set_current_state(TASK_RUNNING);
		spin_lock(&sh->siglock);
		WRITE_ONCE(tsk->blocked, tsk->real_blocked);
		tsk->real_blocked = 0;
		sig = dequeue_signal(tsk, mask, info);
	}
	spin_unlock(&sh->siglock);
	if (sig)
		return sig;
	return woken ? -EINTR : -EAGAIN;
}

SYSCALL_DEFINE4(rt_sigtimedwait, const sigset_t __user *, uthese, void __user *, uinfo,
		const struct __kernel_timespec __user *, uts, size_t, sigsetsize)
{
	sigset_t these;
	struct __kernel_timespec ts;
	s64 timeout_ns = -1;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (copy_from_user(&these, uthese, sizeof(these)))
		return -EFAULT;
	if (uts) {
		if (copy_from_user(&ts, uts, sizeof(ts)))
			return -EFAULT;
		if (!timespec64_valid(&ts))
			return -EINVAL;
		timeout_ns = ts.tv_sec > (s64)(MAX_SCHEDULE_TIMEOUT / NSEC_PER_SEC / 2)
				     ? -1
				     : ts.tv_sec * (s64)NSEC_PER_SEC + ts.tv_nsec;
	}
	if (!current->sighand)
		return -EINVAL;
	struct kernel_siginfo info;
	int ret = do_sigtimedwait(these.sig[0], &info, timeout_ns);
	if (ret > 0 && uinfo) {
		u8 frame[SI_MAX_SIZE];
		memset(frame, 0, sizeof(frame));
		memcpy(frame, &info, sizeof(info));
		if (copy_to_user(uinfo, frame, sizeof(frame)))
			ret = -EFAULT;
	}
	return ret;
}
