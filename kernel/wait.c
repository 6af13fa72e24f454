/* Wait queues and completions (see kernel/wait.h for the protocol).
 *
 * Every list and count here is changed only under the wait queue's lock,
 * taken with interrupts off. Wakeups take the woken task's run-queue lock
 * inside it (lock order: wait queue -> run queue). */
#include "kernel/wait.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"

#define COMPLETION_ALL (~0u)

void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}

static void __prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *wait, int state,
			      bool exclusive)
{
	unsigned long flags;
	spin_lock_irqsave(&wq->lock, flags);
	if (list_empty(&wait->entry)) {
		if (exclusive) {
			wait->flags |= WQ_FLAG_EXCLUSIVE;
			list_add_tail(&wait->entry, &wq->head);
		} else {
			wait->flags &= ~WQ_FLAG_EXCLUSIVE;
			list_add(&wait->entry, &wq->head);
		}
	}
	/* Under the lock: a waker that runs after we unlock sees the state. */
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *wait, int state)
{
	__prepare_to_wait(wq, wait, state, false);
}

void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *wait, int state)
{
	__prepare_to_wait(wq, wait, state, true);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *wait)
{
	unsigned long flags;
	__set_current_state(TASK_RUNNING);
	spin_lock_irqsave(&wq->lock, flags);
	if (!list_empty(&wait->entry)) {
		list_del(&wait->entry);
		INIT_LIST_HEAD(&wait->entry);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
}

/* Caller holds wq->lock. Waiters stay queued until their finish_wait(), so
 * a waiter woken for nothing (its condition still false) sleeps again
 * without missing the next wakeup. */
static void __wake_up_locked(struct wait_queue_head *wq, int nr_exclusive, void *key)
{
	struct wait_queue_entry *w;
	list_for_each_entry(w, &wq->head, entry) {
		int woke = w->func ? w->func(w, key) : wake_up_process(w->private);
		if ((w->flags & WQ_FLAG_EXCLUSIVE) && woke && --nr_exclusive == 0)
			break;
	}
}

void __wake_up(struct wait_queue_head *wq, int nr_exclusive, void *key)
{
	unsigned long flags;
	spin_lock_irqsave(&wq->lock, flags);
	__wake_up_locked(wq, nr_exclusive, key);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *wq_entry)
{
	unsigned long flags;
	wq_entry->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&wq->lock, flags);
	list_add(&wq_entry->entry, &wq->head);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *wq_entry)
{
	unsigned long flags;
	spin_lock_irqsave(&wq->lock, flags);
	list_del(&wq_entry->entry);
	INIT_LIST_HEAD(&wq_entry->entry);
	spin_unlock_irqrestore(&wq->lock, flags);
}

bool waitqueue_active(struct wait_queue_head *wq) { return !list_empty(&wq->head); }

void init_completion(struct completion *x)
{
	x->done = 0;
	init_waitqueue_head(&x->wait);
}

void reinit_completion(struct completion *x) { WRITE_ONCE(x->done, 0); }

void complete(struct completion *x)
{
	unsigned long flags;
	spin_lock_irqsave(&x->wait.lock, flags);
	if (x->done != COMPLETION_ALL)
		x->done++;
	__wake_up_locked(&x->wait, 1, NULL);
	spin_unlock_irqrestore(&x->wait.lock, flags);
}

void complete_all(struct completion *x)
{
	unsigned long flags;
	spin_lock_irqsave(&x->wait.lock, flags);
	x->done = COMPLETION_ALL;
	__wake_up_locked(&x->wait, 0, NULL);
	spin_unlock_irqrestore(&x->wait.lock, flags);
}

/* Sleeps with the lock dropped; done is re-read under the lock after each
 * wakeup. Returns the ticks left (timeout may be MAX_SCHEDULE_TIMEOUT). */
static long do_wait_for_common(struct completion *x, long timeout)
{
	unsigned long flags;
	spin_lock_irqsave(&x->wait.lock, flags);
	if (!x->done) {
		DEFINE_WAIT(wait);
		wait.flags = WQ_FLAG_EXCLUSIVE;
		list_add_tail(&wait.entry, &x->wait.head);
		do {
			set_current_state(TASK_UNINTERRUPTIBLE);
			spin_unlock_irqrestore(&x->wait.lock, flags);
			timeout = schedule_timeout(timeout);
			spin_lock_irqsave(&x->wait.lock, flags);
		} while (!x->done && timeout);
		__set_current_state(TASK_RUNNING);
		list_del(&wait.entry);
		if (!x->done) {
			spin_unlock_irqrestore(&x->wait.lock, flags);
			return 0;
		}
		if (!timeout)
			timeout = 1; /* done just as the time ran out: a success */
	}
	if (x->done != COMPLETION_ALL)
		x->done--;
	spin_unlock_irqrestore(&x->wait.lock, flags);
	return timeout ? timeout : 1;
}

void wait_for_completion(struct completion *x) { do_wait_for_common(x, MAX_SCHEDULE_TIMEOUT); }

unsigned long wait_for_completion_timeout(struct completion *x, unsigned long timeout)
{
	if (timeout > (unsigned long)MAX_SCHEDULE_TIMEOUT)
		timeout = (unsigned long)MAX_SCHEDULE_TIMEOUT;
	return (unsigned long)do_wait_for_common(x, (long)timeout);
}

bool try_wait_for_completion(struct completion *x)
{
	unsigned long flags;
	bool ret = true;
	if (!READ_ONCE(x->done))
		return false;
	spin_lock_irqsave(&x->wait.lock, flags);
	if (!x->done)
		ret = false;
	else if (x->done != COMPLETION_ALL)
		x->done--;
	spin_unlock_irqrestore(&x->wait.lock, flags);
	return ret;
}

bool completion_done(struct completion *x)
{
	unsigned long flags;
	spin_lock_irqsave(&x->wait.lock, flags);
	bool done = x->done != 0;
	spin_unlock_irqrestore(&x->wait.lock, flags);
	return done;
}
