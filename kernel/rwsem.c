/* Read-write semaphores: the contract and the invariants are in
 * kernel/rwsem.h. Every state change is made under wait_lock; the slow
 * paths queue a struct rwsem_waiter on the sleeping task's stack and sleep
 * until the releasing task grants them the lock (waiter->task = NULL), as
 * Linux's old lib/rwsem-spinlock.c (__down_read, __rwsem_do_wake).
 *
 * Why the waker calls wake_up_process() under wait_lock, and the woken
 * task takes wait_lock once more before returning: a granted waiter may
 * see waiter->task == NULL before it ever slept, return, and its task may
 * exit and be freed while the waker still holds a pointer to it. Taking
 * wait_lock after the grant waits until the waker is done with the task
 * (Linux holds a task reference across the wakeup instead). */
#include "kernel/rwsem.h"
#include "arch/x86_64/irqflags.h"
#include "kernel/printk.h"
#include "kernel/sched.h"

unsigned long rwsem_bugs;

enum rwsem_waiter_type { RWSEM_WAITING_FOR_WRITE, RWSEM_WAITING_FOR_READ };

struct rwsem_waiter {
	struct list_head list;
	struct task_struct *task; /* NULL once granted */
	enum rwsem_waiter_type type;
};

static void rwsem_bug(struct rw_semaphore *sem, const char *msg)
{
	__atomic_fetch_add(&rwsem_bugs, 1, __ATOMIC_RELAXED);
	pr_err("BUG: rwsem %p: %s (count %ld, %s)\n", (void *)sem, msg, sem->count, current->comm);
}

/* Grants the lock to the waiter and wakes it; under wait_lock. */
static void rwsem_grant(struct rwsem_waiter *waiter)
{
	struct task_struct *tsk = waiter->task;
	list_del(&waiter->list);
	__atomic_store_n(&waiter->task, NULL, __ATOMIC_RELEASE);
	wake_up_process(tsk);
}

/* Linux's __rwsem_do_wake: hands the lock to the head of the queue if it
 * can have it now: a writer when the lock is free, else every reader up to
 * the first writer while no writer holds it. Under wait_lock. */
static void rwsem_wake(struct rw_semaphore *sem)
{
	while (!list_empty(&sem->wait_list)) {
		struct rwsem_waiter *w = list_first_entry(&sem->wait_list, struct rwsem_waiter, list);
		if (w->type == RWSEM_WAITING_FOR_WRITE) {
			if (sem->count != 0)
				return;
			sem->count = -1;
			sem->owner = w->task;
			rwsem_grant(w);
			return;
		}
		if (sem->count < 0)
			return;
		sem->count++;
		rwsem_grant(w);
	}
}

/* Queues the current task (wait_lock held, released here) and sleeps
 * until it is granted the lock. */
static void rwsem_wait(struct rw_semaphore *sem, enum rwsem_waiter_type type)
{
	struct rwsem_waiter waiter = { .task = current, .type = type };
	list_add_tail(&waiter.list, &sem->wait_list);
	spin_unlock(&sem->wait_lock);
	if (irqs_disabled())
		rwsem_bug(sem, "sleeping acquisition with interrupts off");
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (!__atomic_load_n(&waiter.task, __ATOMIC_ACQUIRE))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	/* The granter is done with us once it has let go (top of the file). */
	spin_lock(&sem->wait_lock);
	spin_unlock(&sem->wait_lock);
}

void down_read(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	if (sem->count >= 0 && list_empty(&sem->wait_list)) {
		sem->count++;
		spin_unlock(&sem->wait_lock);
		return;
	}
	rwsem_wait(sem, RWSEM_WAITING_FOR_READ);
}

int down_read_trylock(struct rw_semaphore *sem)
{
	int ret = 0;
	spin_lock(&sem->wait_lock);
	if (sem->count >= 0 && list_empty(&sem->wait_list)) {
		sem->count++;
		ret = 1;
	}
	spin_unlock(&sem->wait_lock);
	return ret;
}

void up_read(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	if (sem->count <= 0) {
		rwsem_bug(sem, "up_read of a lock no reader holds");
	} else if (--sem->count == 0) {
		rwsem_wake(sem);
	}
	spin_unlock(&sem->wait_lock);
}

void down_write(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	if (sem->count == 0 && list_empty(&sem->wait_list)) {
		sem->count = -1;
		sem->owner = current;
		spin_unlock(&sem->wait_lock);
		return;
	}
	rwsem_wait(sem, RWSEM_WAITING_FOR_WRITE);
}

int down_write_trylock(struct rw_semaphore *sem)
{
	int ret = 0;
	spin_lock(&sem->wait_lock);
	if (sem->count == 0 && list_empty(&sem->wait_list)) {
		sem->count = -1;
		sem->owner = current;
		ret = 1;
	}
	spin_unlock(&sem->wait_lock);
	return ret;
}

void up_write(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	if (sem->count != -1 || sem->owner != current) {
		rwsem_bug(sem, "up_write by a task that does not hold it for writing");
	} else {
		sem->count = 0;
		sem->owner = NULL;
		rwsem_wake(sem);
	}
	spin_unlock(&sem->wait_lock);
}

void downgrade_write(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	if (sem->count != -1 || sem->owner != current) {
		rwsem_bug(sem, "downgrade_write by a task that does not hold it for writing");
	} else {
		sem->count = 1;
		sem->owner = NULL;
		rwsem_wake(sem); /* the readers at the head only: count > 0 */
	}
	spin_unlock(&sem->wait_lock);
}
