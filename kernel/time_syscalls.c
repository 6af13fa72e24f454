/* The system calls that read the clocks and sleep on them: clock_gettime
 * 228, clock_getres 229, nanosleep 35, clock_nanosleep 230, time 201,
 * gettimeofday 96, with Linux's ABI and errnos (Linux's
 * kernel/time/posix-timers.c and posix-cpu-timers.c for the clock ids,
 * hrtimer.c for the sleeps, time.c for time and gettimeofday). The clocks
 * themselves are kernel/time.c's.
 *
 * Invariant: a call either succeeds whole or changes no user memory: each
 * result is built in the kernel and copied out once, and a bad user pointer
 * gives -EFAULT through the uaccess copies, never a kernel fault. */
#include "arch/x86_64/uaccess.h"
#include "kernel/resource.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/time.h"

/* Clock ids Linux has beyond kernel/unistd.h's. */
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_TAI 11

typedef int clockid_t;

/* CLOCK_REALTIME (and TAI, REALTIME_COARSE) is the wall-clock time the
 * CMOS RTC showed at boot plus the monotonic clock (kernel/time.c;
 * 1970-01-01 00:00:00 UTC when the RTC reads nonsense); nothing sets it,
 * and TAI's offset is 0 as Linux's until NTP sets one. With no suspend,
 * BOOTTIME equals MONOTONIC; the raw and coarse clocks read the same
 * TSC-based clock. The CPU-time clocks (PROCESS_CPUTIME_ID: the thread
 * group's, exited threads included; THREAD_CPUTIME_ID: the caller's) are
 * whole ticks (account_process_tick in kernel/sched_time.c), so they move in
 * steps of TICK_NSEC, where Linux's read the scheduler's exact runtime. */
static u64 cputime_ns(struct task_struct *p, bool group)
{
	struct signal_struct *sig = p->signal;
	if (!group || !sig)
		return READ_ONCE(p->utime) + READ_ONCE(p->stime);
	spin_lock(&sig->siglock);
	u64 ns = sig->utime + sig->stime;
	struct task_struct *t;
	list_for_each_entry(t, &sig->thread_head, thread_node)
		ns += READ_ONCE(t->utime) + READ_ONCE(t->stime);
	spin_unlock(&sig->siglock);
	return ns;
}

static int clock_read_ns(clockid_t which, u64 *ns)
{
	switch (which) {
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		*ns = cputime_ns(current, which == CLOCK_PROCESS_CPUTIME_ID);
		return 0;
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_TAI:
		*ns = ktime_get_real_ns();
		return 0;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		*ns = ktime_get_ns();
		return 0;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE2(clock_gettime, clockid_t, which_clock, struct __kernel_timespec __user *, tp)
{
	u64 ns;
	int err = clock_read_ns(which_clock, &ns);
	if (err)
		return err;
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(ns / NSEC_PER_SEC),
		.tv_nsec = (long long)(ns % NSEC_PER_SEC),
	};
	return copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/* What one step of the clock is: a nanosecond for the TSC-based clocks
 * (the coarse ones included, which read the same clock here), a tick for
 * the CPU-time clocks. A NULL tp only checks the clock, as Linux's. */
SYSCALL_DEFINE2(clock_getres, clockid_t, which_clock, struct __kernel_timespec __user *, tp)
{
	u64 ns;
	int err = clock_read_ns(which_clock, &ns);
	if (err || !tp)
		return err;
	bool cpu = which_clock == CLOCK_PROCESS_CPUTIME_ID || which_clock == CLOCK_THREAD_CPUTIME_ID;
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = cpu ? (long long)TICK_NSEC : 1 };
	return copy_to_user(tp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/* Sleeps until the monotonic clock reads deadline (schedule_hrtimeout: at
 * the deadline in high-resolution mode, the default; rounded up to the
 * next 10 ms tick with highres=off), and a sleep cut short is taken up
 * again until the deadline has passed. A signal ends it (Linux's
 * do_nanosleep): rmtp, if any, gets the time left, and the call returns
 * -ERESTART_RESTARTBLOCK, which becomes -EINTR after a handler and
 * otherwise restart_syscall, which sleeps on to the same deadline
 * (hrtimer_nanosleep_restart). */
static long nanosleep_restart(struct restart_block *restart);

static int sleep_until(u64 deadline, struct __kernel_timespec __user *rmtp)
{
	u64 now = ktime_get_ns();
	while (now < deadline) {
		set_current_state(TASK_INTERRUPTIBLE); /* nanosleep sleeps as "S" in Linux */
		if (signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			if (rmtp) {
				u64 left = deadline - now;
				struct __kernel_timespec rem = { .tv_sec = (long long)(left / NSEC_PER_SEC),
								 .tv_nsec = (long long)(left % NSEC_PER_SEC) };
				if (copy_to_user(rmtp, &rem, sizeof(rem)))
					return -EFAULT;
			}
			struct restart_block *restart = &current->restart_block;
			restart->nanosleep.deadline = deadline;
			restart->nanosleep.rmtp = rmtp;
			restart->fn = nanosleep_restart;
			return -ERESTART_RESTARTBLOCK;
		}
		schedule_hrtimeout(deadline);
		now = ktime_get_ns();
	}
	return 0;
}

static long nanosleep_restart(struct restart_block *restart)
{
	restart->fn = NULL;
	return sleep_until(restart->nanosleep.deadline, restart->nanosleep.rmtp);
}

static int sleep_ns(u64 ns, struct __kernel_timespec __user *rmtp)
{
	u64 now = ktime_get_ns();
	return sleep_until(now + ns < now ? ~0ull : now + ns, rmtp);
}

/* The sleep a request from user space asks for, in ns (saturating):
 * -EFAULT if it cannot be read, -EINVAL if it is no timespec. */
static int get_sleep_timespec(const struct __kernel_timespec __user *rqtp, u64 *ns)
{
	struct __kernel_timespec t;
	if (copy_from_user(&t, rqtp, sizeof(t)))
		return -EFAULT;
	if (!timespec64_valid(&t))
		return -EINVAL;
	u64 sec = (u64)t.tv_sec;
	*ns = sec > ~0ull / NSEC_PER_SEC - 1 ? ~0ull : sec * NSEC_PER_SEC + (u64)t.tv_nsec;
	return 0;
}

SYSCALL_DEFINE2(nanosleep, struct __kernel_timespec __user *, rqtp,
		struct __kernel_timespec __user *, rmtp)
{
	u64 ns;
	int err = get_sleep_timespec(rqtp, &ns);
	if (err)
		return err;
	return sleep_ns(ns, rmtp);
}

/* Linux's clock_nanosleep (kernel/time/posix-timers.c): an unknown clock is
 * -EINVAL, a known clock without a sleep (MONOTONIC_RAW and the coarse
 * clocks) -EOPNOTSUPP, and the CPU-time clocks -EINVAL (Linux sleeps on
 * the process's and refuses the thread's; mmlab has no CPU-time timers);
 * then the request is read (-EFAULT) and checked
 * (-EINVAL). TIMER_ABSTIME sleeps until the clock reads the time given,
 * other flag bits are ignored, as Linux's. REALTIME and TAI run at the
 * monotonic clock's rate (nothing sets them), so an absolute deadline is
 * a fixed distance from now. rmtp, as for nanosleep, gets the time left
 * of a relative sleep a signal ended. */
#define TIMER_ABSTIME 1
SYSCALL_DEFINE4(clock_nanosleep, clockid_t, which_clock, int, flags,
		const struct __kernel_timespec __user *, rqtp, struct __kernel_timespec __user *, rmtp)
{
	u64 ns, now = 0;
	switch (which_clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	int err = get_sleep_timespec(rqtp, &ns);
	if (err)
		return err;
	if (flags & TIMER_ABSTIME) {
		clock_read_ns(which_clock, &now);
		ns = ns > now ? ns - now : 0;
		/* An absolute sleep is simply made again (Linux's
		 * -ERESTARTNOHAND for TIMER_ABSTIME), and writes no rmtp. */
		int ret = sleep_ns(ns, NULL);
		return ret == -ERESTART_RESTARTBLOCK ? -ERESTARTNOHAND : ret;
	}
	return sleep_ns(ns, rmtp);
}

/* Seconds of CLOCK_REALTIME, also stored at tloc unless it is NULL. */
SYSCALL_DEFINE1(time, long __user *, tloc)
{
	long t = (long)(ktime_get_real_ns() / NSEC_PER_SEC);
	if (tloc && copy_to_user(tloc, &t, sizeof(t)))
		return -EFAULT;
	return t;
}

struct timezone {
	int tz_minuteswest, tz_dsttime;
};

/* CLOCK_REALTIME in seconds and microseconds; the time zone is Linux's
 * sys_tz, which nothing here sets: 0 and 0. Either pointer may be NULL. */
SYSCALL_DEFINE2(gettimeofday, struct __kernel_old_timeval __user *, tv, struct timezone __user *, tz)
{
	if (tv) {
		struct __kernel_old_timeval t = ns_to_kernel_old_timeval(ktime_get_real_ns());
		if (copy_to_user(tv, &t, sizeof(t)))
			return -EFAULT;
	}
	if (tz) {
		struct timezone z = { 0, 0 };
		if (copy_to_user(tz, &z, sizeof(z)))
			return -EFAULT;
	}
	return 0;
}
