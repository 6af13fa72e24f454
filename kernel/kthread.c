/* Kernel threads (Linux's kernel/kthread.c): made bound to a CPU
 * (kthread_create_on_cpu, Linux's kthread_bind) or to the current one
 * (kthread_create), started by wake_up_process, and reaped by
 * kthread_stop or kthread_join, which free their stack and task_struct.
 * The task itself (its vmalloc'ed stack and first frame) is made by the
 * scheduler's create_task (kernel/sched.c). */
#include "kernel/sched.h"
#include "kernel/cred.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/slab.h"

/* Task_structs made here and not yet reaped (nr_kthreads). */
static unsigned long kthreads_alive;

struct task_struct *kthread_create_on_cpu(int (*threadfn)(void *data), void *data, unsigned int cpu,
					  const char *namefmt)
{
	if (cpu >= NR_CPUS || !cpu_online(cpu) || !sched_cpu_active(cpu))
		return NULL;
	char name[TASK_COMM_LEN];
	snprintf(name, sizeof(name), namefmt, cpu);
	struct task_struct *p = create_task(threadfn, data, cpu, name, PF_KTHREAD);
	if (p)
		__atomic_fetch_add(&kthreads_alive, 1, __ATOMIC_RELAXED);
	return p;
}

struct task_struct *kthread_create(int (*threadfn)(void *data), void *data, const char *namefmt, ...)
{
	char name[TASK_COMM_LEN];
	va_list ap;
	va_start(ap, namefmt);
	vsnprintf(name, sizeof(name), namefmt, ap);
	va_end(ap);
	struct task_struct *p = kthread_create_on_cpu(threadfn, data, smp_processor_id(), "");
	if (p)
		strlcpy(p->comm, name, sizeof(p->comm));
	return p;
}

bool kthread_should_stop(void) { return READ_ONCE(current->should_stop); }

int kthread_join(struct task_struct *k)
{
	if (k == current || !(k->flags & PF_KTHREAD))
		panic("BUG: kthread_join(%s) from %s", k->comm, current->comm);
	/* Completed by finish_task_switch once k's CPU has left its stack;
	 * wait_for_completion returns only after complete_all() is done with
	 * the completion's lock, so freeing k right away is safe. */
	wait_for_completion(&k->exited);
	/* Nothing may still run on it or hold it queued: freeing it then
	 * would be the kind of bug that surfaces far away, at a later switch. */
	if (k->__state != TASK_DEAD || k->on_rq || cpu_curr(k->cpu) == k || !list_empty(&k->run_list))
		panic("BUG: kthread_join(%s %p): state %#lx, on_rq %d, current on CPU %u %d, queued %d", k->comm,
		      k, k->__state, k->on_rq, k->cpu, cpu_curr(k->cpu) == k, !list_empty(&k->run_list));
	int code = k->exit_code;
	exit_creds(k);
	free_thread_stack(k->stack);
	/* A stale pointer to it then reads poison (page_poison=on does the
	 * same for the stack). */
	memset(k, 0x6b, sizeof(*k));
	kfree(k);
	__atomic_fetch_sub(&kthreads_alive, 1, __ATOMIC_RELAXED);
	return code;
}

int kthread_stop(struct task_struct *k)
{
	/* The wakeup's lock orders this store before the thread's next look. */
	WRITE_ONCE(k->should_stop, true);
	wake_up_process(k);
	return kthread_join(k);
}

unsigned long nr_kthreads(void) { return __atomic_load_n(&kthreads_alive, __ATOMIC_RELAXED); }
