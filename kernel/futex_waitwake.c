/* The futex operations (Linux's kernel/futex/{waitwake,requeue,syscalls}.c,
 * without PI): FUTEX_WAIT and FUTEX_WAKE (with their bitsets), FUTEX_WAKE_OP,
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE, and the futex system call 202 with
 * Linux's errnos, built from the core's buckets and queue
 * (kernel/futex.c, whose invariants and lock order they keep). */
#include "kernel/futex_internal.h"
#include "arch/x86_64/futex.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/time.h"

int futex_wake(u32 __user *uaddr, unsigned int flags, int nr_wake, u32 bitset)
{
	struct futex_key key;
	if (!bitset)
		return -EINVAL;
	int ret = get_futex_key(uaddr, flags, &key);
	if (ret)
		return ret;
	struct futex_hash_bucket *hb = futex_hash(&key);
	/* Barrier (B): no waiter counted, none to wake. */
	if (!futex_hb_waiters_pending(hb))
		return ret;
	unsigned long irq = hb_lock(hb);
	struct futex_q *this, *next;
	list_for_each_entry_safe(this, next, &hb->chain, list) {
		if (!futex_match(&this->key, &key))
			continue;
		if (!(this->bitset & bitset))
			continue;
		futex_wake_one(this);
		/* As Linux's: one waiter is woken even when nr_wake <= 0. */
		if (++ret >= nr_wake)
			break;
	}
	hb_unlock(hb, irq);
	return ret;
}

/* Linux's futex_atomic_op_inuser: decodes FUTEX_WAKE_OP's op, applies it
 * to *uaddr and compares the old value: 1 (wake on uaddr2 too), 0, or a
 * negative errno. An unknown cmp is -ENOSYS after the operation was
 * applied, as in Linux. */
static int futex_atomic_op_inuser(unsigned int encoded_op, u32 __user *uaddr)
{
	unsigned int op = (encoded_op & 0x70000000) >> 28;
	unsigned int cmp = (encoded_op & 0x0f000000) >> 24;
	int oparg = (int)((encoded_op & 0x00fff000) << 8) >> 20; /* sign_extend32(.., 11) */
	int cmparg = (int)((encoded_op & 0x00000fff) << 20) >> 20;
	int oldval, ret;

	if (encoded_op & (FUTEX_OP_OPARG_SHIFT << 28)) {
		if (oparg < 0 || oparg > 31) {
			/* Linux warns (ratelimited; here once) and masks, for old
			 * binaries. */
			static bool warned;
			if (!warned) {
				warned = true;
				pr_info("futex_wake_op: %s tries to shift op by %d; fix this program\n",
					current->comm, oparg);
			}
			oparg &= 31;
		}
		oparg = (int)(1u << oparg);
	}
	ret = arch_futex_atomic_op_inuser((int)op, (u32)oparg, &oldval, uaddr);
	if (ret)
		return ret;
	switch (cmp) {
	case FUTEX_OP_CMP_EQ:
		return oldval == cmparg;
	case FUTEX_OP_CMP_NE:
		return oldval != cmparg;
	case FUTEX_OP_CMP_LT:
		return oldval < cmparg;
	case FUTEX_OP_CMP_GE:
		return oldval >= cmparg;
	case FUTEX_OP_CMP_LE:
		return oldval <= cmparg;
	case FUTEX_OP_CMP_GT:
		return oldval > cmparg;
	default:
		return -ENOSYS;
	}
}

/* Linux's futex_wake_op: applies op to *uaddr2 under both bucket locks,
 * wakes up to nr_wake waiters of uaddr1, and up to nr_wake2 of uaddr2 if
 * the comparison held. */
static int futex_wake_op(u32 __user *uaddr1, unsigned int flags, u32 __user *uaddr2, int nr_wake,
			 int nr_wake2, int op)
{
	struct futex_key key1, key2;
	struct futex_hash_bucket *hb1, *hb2;
	struct futex_q *this, *next;
	int ret, op_ret;
	unsigned long irq;

retry:
	ret = get_futex_key(uaddr1, flags, &key1);
	if (ret)
		return ret;
	ret = get_futex_key(uaddr2, flags, &key2);
	if (ret)
		return ret;
	hb1 = futex_hash(&key1);
	hb2 = futex_hash(&key2);

retry_private:
	irq = double_lock_hb(hb1, hb2);
	op_ret = futex_atomic_op_inuser((unsigned int)op, uaddr2);
	if (op_ret < 0) {
		double_unlock_hb(hb1, hb2, irq);
		if (op_ret != -EFAULT)
			return op_ret;
		ret = fault_in_user_writeable(uaddr2);
		if (ret)
			return ret;
		cond_resched();
		if (!(flags & FLAGS_SHARED))
			goto retry_private;
		goto retry;
	}

	list_for_each_entry_safe(this, next, &hb1->chain, list) {
		if (futex_match(&this->key, &key1)) {
			futex_wake_one(this);
			if (++ret >= nr_wake)
				break;
		}
	}
	if (op_ret > 0) {
		op_ret = 0;
		list_for_each_entry_safe(this, next, &hb2->chain, list) {
			if (futex_match(&this->key, &key2)) {
				futex_wake_one(this);
				if (++op_ret >= nr_wake2)
					break;
			}
		}
		ret += op_ret;
	}
	double_unlock_hb(hb1, hb2, irq);
	return ret;
}

/* Linux's requeue_futex: q moves to key2 (and hb2's chain). */
static void requeue_futex(struct futex_q *q, struct futex_hash_bucket *hb1,
			  struct futex_hash_bucket *hb2, const struct futex_key *key2)
{
	if (hb1 != hb2) {
		list_del(&q->list);
		futex_hb_waiters_dec(hb1);
		futex_hb_waiters_inc(hb2);
		list_add_tail(&q->list, &hb2->chain);
		__atomic_store_n(&q->lock_ptr, &hb2->lock, __ATOMIC_RELEASE);
	}
	q->key = *key2;
}

/* Linux's futex_requeue without PI: wakes up to nr_wake waiters of uaddr1
 * and moves up to nr_requeue more to uaddr2; with cmpval, only if *uaddr1
 * still holds it (-EAGAIN otherwise). Returns woken + requeued. */
static int futex_requeue(u32 __user *uaddr1, unsigned int flags, u32 __user *uaddr2, int nr_wake,
			 int nr_requeue, u32 *cmpval, int requeue_pi)
{
	struct futex_key key1, key2;
	struct futex_hash_bucket *hb1, *hb2;
	struct futex_q *this, *next;
	int task_count = 0, ret;
	unsigned long irq;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	/* No PI futexes (Linux without CONFIG_FUTEX_PI). */
	if (requeue_pi)
		return -ENOSYS;

retry:
	ret = get_futex_key(uaddr1, flags, &key1);
	if (ret)
		return ret;
	ret = get_futex_key(uaddr2, flags, &key2);
	if (ret)
		return ret;
	hb1 = futex_hash(&key1);
	hb2 = futex_hash(&key2);

retry_private:
	futex_hb_waiters_inc(hb2);
	irq = double_lock_hb(hb1, hb2);
	if (cmpval) {
		u32 curval;
		ret = futex_get_value_locked(&curval, uaddr1);
		if (ret) {
			double_unlock_hb(hb1, hb2, irq);
			futex_hb_waiters_dec(hb2);
			ret = get_user_u32(&curval, uaddr1);
			if (ret)
				return ret;
			if (!(flags & FLAGS_SHARED))
				goto retry_private;
			goto retry;
		}
		if (curval != *cmpval) {
			ret = -EAGAIN;
			goto out_unlock;
		}
	}

	list_for_each_entry_safe(this, next, &hb1->chain, list) {
		if (task_count - nr_wake >= nr_requeue)
			break;
		if (!futex_match(&this->key, &key1))
			continue;
		if (++task_count <= nr_wake)
			futex_wake_one(this);
		else
			requeue_futex(this, hb1, hb2, &key2);
	}

out_unlock:
	double_unlock_hb(hb1, hb2, irq);
	futex_hb_waiters_dec(hb2);
	return ret ? ret : task_count;
}

/* Linux's futex_wait_setup: the key, the bucket locked, the word read
 * under the lock and compared. Returns 0 with the lock held (*irq to
 * give back to futex_queue), or -EFAULT / -EAGAIN (EWOULDBLOCK) with it
 * dropped. Reading the word only under the lock is the whole point: a
 * waker changes the word before it takes the lock, so either this read
 * sees the change or the waker finds q queued. */
static int futex_wait_setup(u32 __user *uaddr, u32 val, unsigned int flags, struct futex_q *q,
			    struct futex_hash_bucket **hb, unsigned long *irq)
{
	u32 uval;
	int ret;
retry:
	ret = get_futex_key(uaddr, flags, &q->key);
	if (ret)
		return ret;
retry_private:
	*hb = futex_q_lock(q, irq);
	ret = futex_get_value_locked(&uval, uaddr);
	if (ret) {
		futex_q_unlock(*hb, *irq);
		ret = get_user_u32(&uval, uaddr);
		if (ret)
			return ret;
		if (!(flags & FLAGS_SHARED))
			goto retry_private;
		goto retry;
	}
	if (uval != val) {
		futex_q_unlock(*hb, *irq);
		ret = -EAGAIN;
	}
	return ret;
}

/* The deadline, in CLOCK_MONOTONIC ns, of an absolute time on the
 * futex's clock. CLOCK_REALTIME is the monotonic clock plus a constant
 * (kernel/time.c: nothing sets the time), so the conversion holds for the
 * whole wait. */
static u64 futex_deadline(const u64 *abs_time, unsigned int flags)
{
	if (!(flags & FLAGS_CLOCKRT))
		return *abs_time;
	/* The offset itself, not the difference of two clock reads: those
	 * are two TSC reads apart, and with no RTC (offset 0) it wrapped. */
	u64 offset = ktime_get_real_offset_ns();
	return *abs_time > offset ? *abs_time - offset : 0;
}

/* Linux's futex_wait_queue: queue, then sleep unless already woken or the
 * deadline passed. The sleep ends at the deadline (schedule_hrtimeout, as
 * Linux's hrtimer sleeper), at the first tick after it with highres=off;
 * never before it. */
static void futex_wait_queue(struct futex_hash_bucket *hb, struct futex_q *q, const u64 *deadline,
			     unsigned long irq)
{
	/* The state is set before q can be seen by a waker: its
	 * wake_up_process then finds the task sleeping or about to. */
	set_current_state(TASK_INTERRUPTIBLE);
	futex_queue(q, hb, irq);
	/* Linux's schedule() does not put an interruptible task with a
	 * signal pending to sleep (signal_pending_state); mmlab's does, so
	 * the check is made here, after the state is set: a signal sent
	 * later wakes the task (TASK_INTERRUPTIBLE) as any waker does. */
	if (__atomic_load_n(&q->lock_ptr, __ATOMIC_ACQUIRE) && !signal_pending(current)) {
		if (!deadline) {
			schedule();
		} else {
			schedule_hrtimeout(*deadline);
		}
	}
	__set_current_state(TASK_RUNNING);
}

static int futex_wait(u32 __user *uaddr, unsigned int flags, u32 val, u64 *abs_time, u32 bitset);

/* Linux's futex_wait_restart: restart_syscall going on with the wait of
 * an interrupted timed FUTEX_WAIT, to the same absolute deadline. */
static long futex_wait_restart(struct restart_block *restart)
{
	u64 t = restart->futex.time;
	restart->fn = NULL;
	return futex_wait(restart->futex.uaddr, restart->futex.flags, restart->futex.val, &t,
			  restart->futex.bitset);
}

/* Linux's __futex_wait / futex_wait. Returns 0 when woken, -EAGAIN when
 * *uaddr != val, -ETIMEDOUT, -EFAULT or -EINVAL; a signal ends the wait
 * with Linux's -ERESTARTSYS (no timeout: restarted under SA_RESTART or
 * with no handler to run, else -EINTR) or -ERESTART_RESTARTBLOCK (a
 * timeout: -EINTR after a handler, else restart_syscall waits on to the
 * same deadline). A wakeup that is none of these (the timer of a longer
 * sleep, a stray wake_up_process) starts over, as in Linux, so the word is
 * compared again. */
static int futex_wait(u32 __user *uaddr, unsigned int flags, u32 val, u64 *abs_time, u32 bitset)
{
	struct futex_q q = { .bitset = bitset };
	struct futex_hash_bucket *hb;
	unsigned long irq;
	u64 deadline = 0;
	int ret;

	if (!bitset)
		return -EINVAL;
	INIT_LIST_HEAD(&q.list);
	if (abs_time)
		deadline = futex_deadline(abs_time, flags);
retry:
	ret = futex_wait_setup(uaddr, val, flags, &q, &hb, &irq);
	if (ret)
		return ret;
	futex_wait_queue(hb, &q, abs_time ? &deadline : NULL, irq);
	if (!futex_unqueue(&q))
		return 0;
	if (abs_time && ktime_get_ns() >= deadline)
		return -ETIMEDOUT;
	if (!signal_pending(current))
		goto retry;
	if (!abs_time)
		return -ERESTARTSYS;
	struct restart_block *restart = &current->restart_block;
	restart->futex.uaddr = uaddr;
	restart->futex.val = val;
	restart->futex.time = *abs_time;
	restart->futex.bitset = bitset;
	restart->futex.flags = flags;
	restart->fn = futex_wait_restart;
	return -ERESTART_RESTARTBLOCK;
}

long do_futex(u32 __user *uaddr, int op, u32 val, u64 *timeout, u32 __user *uaddr2, u32 val2,
	      u32 val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	unsigned int flags = 0;

	if (!(op & FUTEX_PRIVATE_FLAG))
		flags |= FLAGS_SHARED;
	if (op & FUTEX_CLOCK_REALTIME) {
		flags |= FLAGS_CLOCKRT;
		if (cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
			return -ENOSYS;
	}
	switch (cmd) {
	case FUTEX_WAIT:
		val3 = FUTEX_BITSET_MATCH_ANY;
		__attribute__((fallthrough));
	case FUTEX_WAIT_BITSET:
		return futex_wait(uaddr, flags, val, timeout, val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		__attribute__((fallthrough));
	case FUTEX_WAKE_BITSET:
		return futex_wake(uaddr, flags, (int)val, val3);
	case FUTEX_REQUEUE:
		return futex_requeue(uaddr, flags, uaddr2, (int)val, (int)val2, NULL, 0);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(uaddr, flags, uaddr2, (int)val, (int)val2, &val3, 0);
	case FUTEX_WAKE_OP:
		return futex_wake_op(uaddr, flags, uaddr2, (int)val, (int)val2, (int)val3);
	case FUTEX_CMP_REQUEUE_PI:
		/* Linux checks the counts before it finds PI missing. */
		return futex_requeue(uaddr, flags, uaddr2, (int)val, (int)val2, &val3, 1);
	}
	/* FUTEX_LOCK_PI, LOCK_PI2, UNLOCK_PI, TRYLOCK_PI, WAIT_REQUEUE_PI:
	 * no PI futexes, as a Linux built without CONFIG_FUTEX_PI; FUTEX_FD
	 * and unknown commands: gone or never there. */
	return -ENOSYS;
}

/* Linux's futex_cmd_has_timeout. */
static bool futex_cmd_has_timeout(int cmd)
{
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAIT_REQUEUE_PI:
		return true;
	}
	return false;
}

/* Linux's futex_init_timeout: a valid timespec (timespec64_valid), made
 * absolute for FUTEX_WAIT (relative, on CLOCK_MONOTONIC); the others are
 * absolute already. Saturates at KTIME_MAX as ktime_add_safe. */
static int futex_init_timeout(int cmd, const struct __kernel_timespec *ts, u64 *t)
{
	if (!timespec64_valid(ts))
		return -EINVAL;
	u64 sec = (u64)ts->tv_sec;
	*t = sec >= KTIME_MAX / NSEC_PER_SEC ? KTIME_MAX : sec * NSEC_PER_SEC + (u64)ts->tv_nsec;
	if (cmd == FUTEX_WAIT)
		*t = ktime_add_safe(ktime_get_ns(), *t);
	return 0;
}

SYSCALL_DEFINE6(futex, u32 __user *, uaddr, int, op, u32, val,
		const struct __kernel_timespec __user *, utime, u32 __user *, uaddr2, u32, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	u64 t, *tp = NULL;

	if (utime && futex_cmd_has_timeout(cmd)) {
		struct __kernel_timespec ts;
		if (copy_from_user(&ts, utime, sizeof(ts)))
			return -EFAULT;
		int ret = futex_init_timeout(cmd, &ts, &t);
		if (ret)
			return ret;
		tp = &t;
	}
	/* val2 (the requeue count, FUTEX_WAKE_OP's second count) travels in
	 * the timeout argument, truncated to 32 bits as Linux's. */
	return do_futex(uaddr, op, val, tp, uaddr2, (u32)(unsigned long)utime, val3);
}
