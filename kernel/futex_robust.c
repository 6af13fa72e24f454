/* Robust futexes (Linux's kernel/futex/core.c exit_robust_list and
 * kernel/futex/syscalls.c set/get_robust_list): each thread registers the
 * head of a list of the locks it holds, kept in its own memory by user
 * space; when the thread exits, the kernel walks that list and, for each
 * lock whose word still names the thread, sets FUTEX_OWNER_DIED and wakes
 * one waiter, so that the lock is not held for ever by the dead.
 *
 * The list is user memory and may be garbage: every read goes through the
 * uaccess functions, any fault ends the walk quietly, and at most
 * ROBUST_LIST_LIMIT entries are visited (a circular list ends too). The
 * walk runs in the exiting thread, in its own mm, and takes no lock but
 * futex_wake's. */
#include "kernel/futex.h"
#include "arch/x86_64/futex.h"
#include "arch/x86_64/irqflags.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"

/* Linux's futex_cmpxchg_value_locked, here with no bucket lock held:
 * interrupts off around the access play pagefault_disable (mm/fault.c
 * resolves no user-copy fault then), so a page that is not present gives
 * -EFAULT and is faulted in before the retry. */
static int futex_cmpxchg_value_locked(u32 *curval, u32 __user *uaddr, u32 uval, u32 newval)
{
	unsigned long flags;
	local_irq_save(flags);
	int ret = futex_atomic_cmpxchg_inatomic(curval, uaddr, uval, newval);
	local_irq_restore(flags);
	return ret;
}

/* Linux's handle_futex_death: if the dying thread (curr, the current
 * task) owns the lock at uaddr, mark it FUTEX_OWNER_DIED (keeping
 * FUTEX_WAITERS) and, for a non-PI lock with waiters, wake one. The
 * pending entry of a non-PI lock whose word is 0 (released, or never
 * taken) gets a wakeup without a change of the word. Returns -1 when the
 * walk must stop (an unreadable or unaligned entry). */
static int handle_futex_death(u32 __user *uaddr, struct task_struct *curr, bool pi, bool pending_op)
{
	u32 uval, nval, mval;
	int err;

	if ((unsigned long)uaddr % sizeof(*uaddr))
		return -1;
retry:
	if (get_user_u32(&uval, uaddr))
		return -1;
	/* The owner's tid, not the whole word: a lock whose owner died
	 * carries FUTEX_OWNER_DIED (and maybe FUTEX_WAITERS) with tid 0, and a
	 * waiter that dies with it pending must still pass the wake on (Linux
	 * 6.2, "futex: Resend potentially swallowed owner death notification"). */
	u32 owner = uval & FUTEX_TID_MASK;
	if (pending_op && !pi && !owner) {
		futex_wake(uaddr, FLAGS_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
		return 0;
	}
	if (owner != (u32)curr->pid)
		return 0;
	mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	err = futex_cmpxchg_value_locked(&nval, uaddr, uval, mval);
	if (err) {
		if (futex_touch_user_writeable(uaddr))
			return -1;
		goto retry;
	}
	if (nval != uval)
		goto retry;
	/* A PI lock's waiter would be woken by its PI state: there is none. */
	if (!pi && (uval & FUTEX_WAITERS))
		futex_wake(uaddr, FLAGS_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
	return 0;
}

/* Linux's fetch_robust_entry: a list pointer, bit 0 telling a PI lock. */
static int fetch_robust_entry(struct robust_list __user **entry, struct robust_list __user **head,
			      unsigned int *pi)
{
	u64 uentry;
	if (get_user_u64(&uentry, head))
		return -EFAULT;
	*entry = (struct robust_list __user *)(unsigned long)(uentry & ~1ull);
	*pi = uentry & 1;
	return 0;
}

/* Linux's exit_robust_list: walks the user's list (at most
 * ROBUST_LIST_LIMIT entries, any fault ends it quietly), then the
 * pending entry if it was not on the list. */
static void exit_robust_list(struct task_struct *curr)
{
	struct robust_list_head __user *head = curr->robust_list;
	struct robust_list __user *entry, *next_entry, *pending;
	unsigned int limit = ROBUST_LIST_LIMIT, pi, pip, next_pi;
	u64 futex_offset;
	int rc;

	if (fetch_robust_entry(&entry, &head->list.next, &pi))
		return;
	if (get_user_u64(&futex_offset, &head->futex_offset))
		return;
	if (fetch_robust_entry(&pending, &head->list_op_pending, &pip))
		return;
	next_entry = NULL;
	while (entry != &head->list) {
		rc = fetch_robust_entry(&next_entry, &entry->next, &next_pi);
		if (entry != pending) {
			if (handle_futex_death((u32 __user *)((unsigned long)entry + futex_offset), curr,
					       pi, false))
				return;
		}
		if (rc)
			return;
		entry = next_entry;
		pi = next_pi;
		if (!--limit)
			break;
		cond_resched();
	}
	if (pending)
		handle_futex_death((u32 __user *)((unsigned long)pending + futex_offset), curr, pip,
				   true);
}

/* Linux's futex_exit_release (futex_cleanup): there is no PI state to
 * release and no futex_state to publish, since nothing here waits for an
 * exiting owner (that is PI's attach_to_pi_owner). */
void futex_exit_release(struct task_struct *tsk)
{
	if (unlikely(tsk->robust_list)) {
		if (tsk == current && tsk->mm)
			exit_robust_list(tsk);
		tsk->robust_list = NULL;
	}
}

/* Linux's sys_set_robust_list: one head size is known. */
SYSCALL_DEFINE2(set_robust_list, struct robust_list_head __user *, head, size_t, len)
{
	if (len != sizeof(*head))
		return -EINVAL;
	current->robust_list = head;
	return 0;
}

/* Linux's sys_get_robust_list: pid 0 is the caller; any other must be a
 * live thread (-ESRCH). There are no credentials, so no -EPERM. */
SYSCALL_DEFINE3(get_robust_list, int, pid, struct robust_list_head __user * __user *, head_ptr,
		size_t __user *, len_ptr)
{
	struct robust_list_head __user *head;
	struct task_struct *p;

	if (!pid) {
		head = current->robust_list;
	} else {
		p = find_get_task_by_vpid(pid);
		if (!p)
			return -ESRCH;
		head = p->robust_list;
		put_task_struct(p);
	}
	if (put_user_u64(sizeof(*head), len_ptr))
		return -EFAULT;
	return put_user_u64((u64)(unsigned long)head, head_ptr) ? -EFAULT : 0;
}

