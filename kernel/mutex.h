/* Sleeping mutual exclusion with Linux's names (<linux/mutex.h>): a mutex
 * here is a kernel/rwsem.h semaphore only ever taken for writing, so it has
 * the rwsem's properties (FIFO hand-off, sleeping waiters, the debug check
 * that the releasing task is the holder, no acquisition with interrupts
 * off). It may be held across sleeps and user copies (page faults); it is
 * never taken from interrupt context. */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include "kernel/rwsem.h"

struct mutex {
	struct rw_semaphore sem;
};

#define DEFINE_MUTEX(name) struct mutex name = { __RWSEM_INITIALIZER((name).sem) }

static inline void mutex_init(struct mutex *m)
{
	init_rwsem(&m->sem);
}

static inline void mutex_lock(struct mutex *m)
{
	down_write(&m->sem);
}

/* 1 if taken, 0 if held by someone (Linux's int result). */
static inline int mutex_trylock(struct mutex *m)
{
	return down_write_trylock(&m->sem);
}

static inline void mutex_unlock(struct mutex *m)
{
	up_write(&m->sem);
}

/* A racy snapshot unless the caller holds it (for assertions). */
static inline bool mutex_is_locked(struct mutex *m)
{
	return rwsem_is_locked(&m->sem);
}

#endif
