/* Wait queues and completions, as Linux's <linux/wait.h> and
 * <linux/completion.h>.
 *
 * A wait queue is a spinlock and a list of sleeping tasks. A waiter puts
 * itself on the list and sets its state under the lock (prepare_to_wait),
 * checks its condition, and only then schedule()s; a waker makes the
 * condition true first and then calls wake_up(), which takes the same lock
 * and wakes every task on the list. So a wakeup between the check and
 * schedule() is never lost: it turns the waiter back to TASK_RUNNING and
 * schedule() returns at once.
 *
 * A completion is a count of "done" events and a wait queue: complete()
 * adds one and wakes one waiter, complete_all() makes it done for ever and
 * wakes all. The count is only read and changed under the queue's lock,
 * which is what makes freeing a completion safe once wait_for_completion()
 * returned (the completer no longer touches it).
 *
 * The locks are taken with interrupts off: wake_up and complete may be
 * called from interrupt handlers. */
#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"

struct task_struct;

#define WQ_FLAG_EXCLUSIVE 0x01

struct wait_queue_entry;
/* What a wakeup does to an entry (Linux's wait_queue_func_t, without its
 * mode and sync arguments): key is what the waker passed (poll's events,
 * poll_to_key, or NULL); returns whether it woke a task (an exclusive
 * entry that did counts against nr_exclusive). */
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, void *key);

/* private is the sleeping task, or the waiter's own data when func is
 * set (poll's poll_wqueues, fs/select.c); func NULL is Linux's
 * default_wake_function (wake_up_process(private)). */
struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(name) { __SPIN_LOCK_UNLOCKED, LIST_HEAD_INIT((name).head) }
#define DECLARE_WAIT_QUEUE_HEAD(name) wait_queue_head_t name = __WAIT_QUEUE_HEAD_INITIALIZER(name)
#define DEFINE_WAIT(name)                                                              \
	wait_queue_entry_t name = { .flags = 0, .private = current, .func = NULL,      \
				    .entry = LIST_HEAD_INIT((name).entry) }

/* Linux's init_waitqueue_func_entry: an entry whose wakeups call func. */
static inline void init_waitqueue_func_entry(struct wait_queue_entry *wq_entry, wait_queue_func_t func)
{
	wq_entry->flags = 0;
	wq_entry->private = NULL;
	wq_entry->func = func;
	INIT_LIST_HEAD(&wq_entry->entry);
}

void init_waitqueue_head(struct wait_queue_head *wq);
/* Adds wait to wq (if not on it yet) and sets the current state. */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *wait, int state);
void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *wait, int state);
/* Back to TASK_RUNNING and off the queue. */
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *wait);
/* Linux's add_wait_queue / remove_wait_queue: a non-exclusive entry on
 * wq (the caller's state is not touched), and off it again. */
void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *wq_entry);
void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *wq_entry);
/* Wakes every non-exclusive waiter and up to nr_exclusive exclusive ones
 * (0: all); key goes to each entry's func (Linux's __wake_up without the
 * mode: every wakeup here wakes TASK_NORMAL). */
void __wake_up(struct wait_queue_head *wq, int nr_exclusive, void *key);
#define wake_up(wq) __wake_up(wq, 1, NULL)
#define wake_up_all(wq) __wake_up(wq, 0, NULL)
#define wake_up_interruptible(wq) __wake_up(wq, 1, NULL)
#define wake_up_interruptible_all(wq) __wake_up(wq, 0, NULL)
/* Linux's wake_up_poll and wake_up_interruptible_poll: a wakeup that says
 * which poll events (__poll_t, fs/poll.h) happened, so that a poller that
 * waits for none of them sleeps on (pollwake). */
#define wake_up_poll(wq, m) __wake_up(wq, 1, (void *)(unsigned long)(m))
#define wake_up_interruptible_poll(wq, m) __wake_up(wq, 1, (void *)(unsigned long)(m))
#define wake_up_interruptible_sync_poll(wq, m) __wake_up(wq, 1, (void *)(unsigned long)(m))
bool waitqueue_active(struct wait_queue_head *wq);

/* Sleeps until cond is true (re-checked after each wakeup). */
#define wait_event(wq, cond)                                                          \
	do {                                                                          \
		if (cond)                                                             \
			break;                                                        \
		DEFINE_WAIT(__wait);                                                  \
		for (;;) {                                                            \
			prepare_to_wait(&(wq), &__wait, TASK_UNINTERRUPTIBLE);        \
			if (cond)                                                     \
				break;                                                \
			schedule();                                                   \
		}                                                                     \
		finish_wait(&(wq), &__wait);                                          \
	} while (0)

/* As wait_event, for at most timeout ticks: returns 0 if cond was still
 * false when the time ran out, else the ticks left (at least 1). */
#define wait_event_timeout(wq, cond, timeout)                                         \
	({                                                                            \
		long __ret = (timeout);                                               \
		if (!(cond)) {                                                        \
			DEFINE_WAIT(__wait);                                          \
			for (;;) {                                                    \
				prepare_to_wait(&(wq), &__wait, TASK_UNINTERRUPTIBLE); \
				if (cond)                                             \
					break;                                        \
				__ret = schedule_timeout(__ret);                      \
				if (!__ret) {                                         \
					__ret = (cond) ? 1 : 0;                       \
					break;                                        \
				}                                                     \
			}                                                             \
			finish_wait(&(wq), &__wait);                                  \
		}                                                                     \
		if (__ret == 0 && (cond))                                             \
			__ret = 1;                                                    \
		__ret;                                                                \
	})

/* As wait_event, but TASK_INTERRUPTIBLE: returns 0 once cond is true, or
 * -EINTR as soon as signal_pending(current) (a signal, or a group exit;
 * Linux returns -ERESTARTSYS: a system call that waits here must turn it
 * into that to be restarted, kernel/signal.h). The caller includes
 * kernel/signal.h. prepare is prepare_to_wait or prepare_to_wait_exclusive. */
#define __wait_event_interruptible(wq, cond, prepare)                                 \
	({                                                                            \
		int __ret = 0;                                                        \
		if (!(cond)) {                                                        \
			DEFINE_WAIT(__wait);                                          \
			for (;;) {                                                    \
				prepare(&(wq), &__wait, TASK_INTERRUPTIBLE);          \
				if (cond)                                             \
					break;                                        \
				if (signal_pending(current)) {                        \
					__ret = -EINTR;                               \
					break;                                        \
				}                                                     \
				schedule();                                           \
			}                                                             \
			finish_wait(&(wq), &__wait);                                  \
		}                                                                     \
		__ret;                                                                \
	})
#define wait_event_interruptible(wq, cond) __wait_event_interruptible(wq, cond, prepare_to_wait)
/* Linux's wait_event_interruptible_exclusive: the waiter queues at the
 * tail as an exclusive one, so that a wake_up (nr_exclusive 1) wakes one
 * such waiter, not every one (the waker hands on what is left: pipe_read's
 * wake_next_reader). A waiter that finds cond true after a wakeup meant
 * for it consumes it, as Linux's ___wait_event checks cond before the
 * signal. */
#define wait_event_interruptible_exclusive(wq, cond) \
	__wait_event_interruptible(wq, cond, prepare_to_wait_exclusive)

struct completion {
	unsigned int done; /* UINT_MAX: complete_all() */
	struct wait_queue_head wait;
};

#define COMPLETION_INITIALIZER(name) { 0, __WAIT_QUEUE_HEAD_INITIALIZER((name).wait) }
#define DECLARE_COMPLETION(name) struct completion name = COMPLETION_INITIALIZER(name)

void init_completion(struct completion *x);
/* Back to not done (no waiter may be sleeping on it). */
void reinit_completion(struct completion *x);
void complete(struct completion *x);
void complete_all(struct completion *x);
/* Sleeps until done, then takes one done event (unless complete_all). */
void wait_for_completion(struct completion *x);
/* As above for at most timeout ticks: 0 if it timed out, else ticks left. */
unsigned long wait_for_completion_timeout(struct completion *x, unsigned long timeout);
/* Takes a done event if there is one, without sleeping. */
bool try_wait_for_completion(struct completion *x);
/* Whether a done event is pending (nothing is taken). */
bool completion_done(struct completion *x);

#include "kernel/sched.h"

#endif
