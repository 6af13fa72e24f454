/* Kernel threads (Linux's kernel/kthread.c): made bound to a CPU
 * (kthread_create_on_cpu, Linux's kthread_bind) or to the current one
 * (kthread_create), started by wake_up_process, and reaped by
 * kthread_stop or kthread_join, which free their stack and task_struct.
 * The task itself (its vmalloc'ed stack and first frame) is made by the
 * scheduler's create_task (kernel/sched.c).
 *
 * Every kernel thread has an id from the processes' allocator
 * (kernel/pid.c) and is in the id table from its creation until it is
 * reaped, so /proc lists it and kill(2) finds it, as Linux's. kthreadd is
 * id 2 and the parent (PPid 2) of every other; init, the boot task, is 1.
 * Linux's kthreadd makes the threads itself (kthread_create queues a
 * request for it and waits); mmlab's kthread_create makes them directly
 * in the caller, so kthreadd only sleeps, there to be their parent, as
 * /proc shows it (kernel/pid.c process_ids). Like Linux's, whose kthreadd
 * ignores every signal (ignore_signals) and hands that on to the threads
 * it makes, a kernel thread here ignores every signal, SIGKILL and
 * SIGSTOP included (kernel/signal.c send_signal). */
#include "kernel/sched.h"
#include "kernel/cred.h"
#include "kernel/panic.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/slab.h"

/* Task_structs made here and not yet reaped (nr_kthreads). */
static unsigned long kthreads_alive;

struct task_struct *__kthread_create_on_cpu(int (*threadfn)(void *data), void *data, unsigned int cpu,
					    const char *name)
{
	if (cpu >= NR_CPUS || !cpu_online(cpu) || !sched_cpu_active(cpu))
		return NULL;
	struct task_struct *p = create_task(threadfn, data, cpu, name, PF_KTHREAD);
	if (p)
		__atomic_fetch_add(&kthreads_alive, 1, __ATOMIC_RELAXED);
	return p;
}

/* A new kernel thread's id, and its place in the table, from which
 * kthread_join takes it. */
static struct task_struct *kthread_attach(struct task_struct *p)
{
	int nr = alloc_pid();
	if (nr < 0) {
		kthread_stop(p);
		return NULL;
	}
	p->pid = p->tgid = nr;
	p->usage = 1; /* kthread_join's */
	attach_pid(p);
	return p;
}

struct task_struct *kthread_create_on_cpu(int (*threadfn)(void *data), void *data, unsigned int cpu,
					  const char *namefmt)
{
	char name[TASK_COMM_LEN];
	snprintf(name, sizeof(name), namefmt, cpu);
	struct task_struct *p = __kthread_create_on_cpu(threadfn, data, cpu, name);
	return p ? kthread_attach(p) : NULL;
}

struct task_struct *kthread_create(int (*threadfn)(void *data), void *data, const char *namefmt, ...)
{
	char name[TASK_COMM_LEN];
	va_list ap;
	va_start(ap, namefmt);
	vsnprintf(name, sizeof(name), namefmt, ap);
	va_end(ap);
	struct task_struct *p = __kthread_create_on_cpu(threadfn, data, smp_processor_id(), name);
	return p ? kthread_attach(p) : NULL;
}

bool kthread_should_stop(void) { return READ_ONCE(current->should_stop); }

int kthread_join(struct task_struct *k)
{
	if (k == current || !(k->flags & PF_KTHREAD))
		panic("BUG: kthread_join(%s) from %s", k->comm, current->comm);
	/* A kernel thread leaves the table first, then waits until no /proc
	 * reader or kill holds it (a user task left it as it exited, and
	 * release_task waited already). */
	if (!list_empty(&k->pid_node)) {
		detach_pid(k);
		put_task_struct_and_wait(k);
	}
	/* Completed by finish_task_switch once k's CPU has left its stack;
	 * wait_for_completion returns only after complete_all() is done with
	 * the completion's lock, so freeing k right away is safe. */
	wait_for_completion(&k->exited);
	/* Nothing may still run on it or hold it queued: freeing it then
	 * would be the kind of bug that surfaces far away, at a later switch. */
	if (k->__state != TASK_DEAD || k->on_rq || cpu_curr(k->cpu) == k || !list_empty(&k->run_list))
		panic("BUG: kthread_join(%s %p): state %#lx, on_rq %d, current on CPU %u %d, queued %d", k->comm,
		      k, k->__state, k->on_rq, k->cpu, cpu_curr(k->cpu) == k, !list_empty(&k->run_list));
	int code = k->exit_code, nr = k->pid;
	exit_creds(k);
	free_thread_stack(k->stack);
	/* A stale pointer to it then reads poison (page_poison=on does the
	 * same for the stack). */
	memset(k, 0x6b, sizeof(*k));
	kfree(k);
	free_pid(nr); /* after the task: a new one with this id cannot meet it */
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

/* ---- kthreadd ---- */

static struct task_struct *kthreadd_task;

/* Linux's kthreadd sleeps (TASK_INTERRUPTIBLE: "S" in /proc) until asked
 * for a thread; here nobody asks (see the top), so it sleeps for good. */
static int kthreadd(void *unused)
{
	(void)unused;
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		schedule();
	}
	return 0;
}

void kthreadd_init(void)
{
	struct task_struct *p = __kthread_create_on_cpu(kthreadd, NULL, smp_processor_id(), "kthreadd");
	if (!p)
		panic("kthread: no memory for kthreadd");
	/* Linux's kthreadd may run on any CPU: it is not bound. */
	struct cpumask all = cpu_possible_mask();
	set_cpus_allowed_ptr(p, &all);
	set_task_pid(p, KTHREADD_PID);
	p->usage = 1; /* never reaped */
	attach_pid(p);
	kthreadd_task = p;
	wake_up_process(p);
}

bool is_kthreadd(const struct task_struct *p) { return p == READ_ONCE(kthreadd_task); }
