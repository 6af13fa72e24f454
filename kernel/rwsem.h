/* Read-write semaphores (Linux's <linux/rwsem.h>): many readers or one
 * writer, sleeping when the lock is not free, working across CPUs.
 *
 * A simple one, the shape of Linux's old lib/rwsem-spinlock.c with the
 * semantics of kernel/locking/rwsem.c that callers can see:
 *   - count is the number of readers holding it (> 0), -1 while a writer
 *     holds it, 0 when free; it and the FIFO wait_list change only under
 *     wait_lock (a spinlock: nothing sleeps under it);
 *   - fair: a reader gets the lock at once only when no writer holds it
 *     and nobody waits, so a waiting writer is never overtaken by readers
 *     that came after it (writers do not starve), as Linux's
 *     RWSEM_FLAG_WAITERS makes new readers queue;
 *   - hand-off: the task that releases the lock grants it to the waiters
 *     at the head of the queue (one writer, or every reader up to the
 *     first writer) before waking them, so a wakeup is never lost and a
 *     woken waiter never has to compete again;
 *   - trylocks never sleep and fail whenever a blocking call would wait
 *     (down_read_trylock also fails while tasks wait: Linux's
 *     RWSEM_READ_FAILED_MASK);
 *   - downgrade_write turns a write hold into a read hold and lets the
 *     readers at the head of the queue in.
 * There is no lockdep; with debug checks (always on, they are cheap) an
 * up_read of a lock no reader holds, an up_write or downgrade_write by a
 * task that is not the writer, and a sleeping acquisition with interrupts
 * off are reported as "BUG: rwsem ..." and counted in rwsem_bugs (the bad
 * release is ignored).
 * Lock order: wait_lock -> run-queue lock (wake_up_process runs under
 * wait_lock, see kernel/rwsem.c). */
#ifndef KERNEL_RWSEM_H
#define KERNEL_RWSEM_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"

struct task_struct;

struct rw_semaphore {
	long count;                /* readers holding it; -1: a writer; 0: free */
	struct task_struct *owner; /* the writer, while count == -1 (debug) */
	spinlock_t wait_lock;
	struct list_head wait_list; /* struct rwsem_waiter, oldest first */
};

#define __RWSEM_INITIALIZER(name) \
	{ 0, NULL, __SPIN_LOCK_UNLOCKED, LIST_HEAD_INIT((name).wait_list) }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

static inline void init_rwsem(struct rw_semaphore *sem)
{
	sem->count = 0;
	sem->owner = NULL;
	spin_lock_init(&sem->wait_lock);
	INIT_LIST_HEAD(&sem->wait_list);
}

void down_read(struct rw_semaphore *sem);
/* 1 if taken, 0 if it would have had to wait (Linux's int results). */
int down_read_trylock(struct rw_semaphore *sem);
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
int down_write_trylock(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);
/* The writer becomes a reader, without letting another writer in between. */
void downgrade_write(struct rw_semaphore *sem);

/* Debug assertions: held at all (by anyone), held for writing. A racy
 * snapshot unless the caller holds it. */
static inline bool rwsem_is_locked(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) != 0;
}
static inline bool rwsem_is_write_locked(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) < 0;
}
/* Whether tasks wait for it (Linux's rwsem_is_contended). */
static inline bool rwsem_is_contended(struct rw_semaphore *sem)
{
	return !list_empty(&sem->wait_list);
}

extern unsigned long rwsem_bugs;

#endif
