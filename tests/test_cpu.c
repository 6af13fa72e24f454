/* Other CPUs for a test case (tests/test_cpu.h). The holders live in a
 * static table, one per CPU, so that their cleanup's ctx outlives the
 * case. Locking: the case's thread alone starts and reaps its threads;
 * the threads and the case share only the atomic words they wait on. */
#include "tests/test_cpu.h"
#include "arch/x86_64/cpu.h"
#include "kernel/smp.h"
#include "kernel/rwsem.h"

unsigned test_other_cpu(void)
{
	unsigned cpu;
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			return cpu;
	return NR_CPUS;
}

unsigned test_other_cpu_or_this(void)
{
	return test_nth_other_cpu_or_this(0);
}

unsigned test_online_cpus(unsigned cpus[NR_CPUS], bool but_this)
{
	unsigned cpu, n = 0, me = smp_processor_id();
	for_each_online_cpu(cpu)
		if (!but_this || cpu != me)
			cpus[n++] = cpu;
	return n;
}

unsigned test_nth_other_cpu_or_this(unsigned i)
{
	unsigned cpus[NR_CPUS], n = test_online_cpus(cpus, true);
	return n ? cpus[i % n] : smp_processor_id();
}

/* ---- a CPU held busy ---------------------------------------------------------- */

struct cpu_holder {
	volatile unsigned long holding, release;
	struct task_struct *task;
};
static struct cpu_holder holders[NR_CPUS];

static int hold_cpu_fn(void *data)
{
	struct cpu_holder *h = data;
	__atomic_store_n(&h->holding, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		cpu_relax();
	return 0;
}

static void release_cpu_action(void *ctx)
{
	struct cpu_holder *h = ctx;
	__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
	kthread_join(h->task);
	h->task = NULL;
}

void test_hold_cpu(struct kunit *test, unsigned cpu)
{
	KUNIT_ASSERT_TRUE(test, cpu_online(cpu));
	struct cpu_holder *h = &holders[cpu];
	KUNIT_ASSERT_NULL(test, h->task); /* held twice */
	h->holding = h->release = 0;
	h->task = kthread_run_on_cpu(hold_cpu_fn, h, cpu, "holder/%u");
	KUNIT_ASSERT_NOT_NULL(test, h->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, release_cpu_action, h), 0);
	KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(__atomic_load_n(&h->holding, __ATOMIC_ACQUIRE), NULL));
}

void test_release_cpu(struct kunit *test, unsigned cpu)
{
	if (cpu < NR_CPUS)
		kunit_release_action(test, release_cpu_action, &holders[cpu]);
}

/* ---- a crew on every CPU -------------------------------------------------------- */

/* All workers start fn together: each waits for the others first. */
static int worker_main(void *data)
{
	struct test_worker *w = data;
	struct test_crew *c = w->crew;
	__atomic_add_fetch(&c->ready, 1, __ATOMIC_ACQ_REL);
	test_crew_progress(w); /* coming up is progress too, for the hang guard */
	/* cond_resched for a worker sharing this CPU, PAUSE for the others
	 * (under single-threaded TCG it passes the host thread to them). */
	while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) < c->n) {
		cond_resched();
		cpu_relax();
	}
	int ret = c->aborted ? 0 : c->fn(w);
	if (ret)
		__atomic_add_fetch(&c->errors, 1, __ATOMIC_ACQ_REL);
	test_crew_progress(w);
	__atomic_add_fetch(&c->done, 1, __ATOMIC_ACQ_REL);
	return ret;
}

/* Waits for the workers and reaps them; false if they hung. */
static bool crew_reap(struct test_crew *c)
{
	bool ok = TEST_WAIT_UNTIL(__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == c->n, &c->progress);
	for (unsigned i = 0; i < c->n; i++)
		kthread_join(c->w[i].task);
	return ok;
}

static void crew_action(void *ctx)
{
	test_crew_stop(ctx);
	crew_reap(ctx);
}

void test_crew_barrier(struct test_worker *w)
{
	struct test_crew *c = w->crew;
	unsigned long phase = __atomic_load_n(&c->phase, __ATOMIC_ACQUIRE);
	test_crew_progress(w);
	if (__atomic_add_fetch(&c->arrived, 1, __ATOMIC_ACQ_REL) == c->n) {
		__atomic_store_n(&c->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->phase, phase + 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) == phase && !test_crew_should_stop(w)) {
		cond_resched();
		cpu_relax();
	}
}

void test_crew_start(struct kunit *test, struct test_crew *c, int (*fn)(struct test_worker *w),
		     void *ctx, unsigned n, unsigned flags)
{
	unsigned cpus[NR_CPUS];
	unsigned ncpus = test_online_cpus(cpus, flags & (TEST_CREW_OTHER_CPUS | TEST_CREW_OTHER_CPUS_OR_THIS));
	if (!ncpus && (flags & TEST_CREW_OTHER_CPUS_OR_THIS))
		cpus[ncpus++] = smp_processor_id();
	test_crew_start_on(test, c, fn, ctx, cpus, ncpus, n);
}

void test_crew_start_on(struct kunit *test, struct test_crew *c, int (*fn)(struct test_worker *w),
			void *ctx, const unsigned *cpus, unsigned ncpus, unsigned n)
{
	if (!n)
		n = ncpus;
	KUNIT_ASSERT_GT(test, ncpus, 0);
	KUNIT_ASSERT_LE(test, n, TEST_CREW_MAX);
	c->n = 0;
	c->ready = c->done = c->progress = c->errors = 0;
	c->stop = c->arrived = c->phase = 0;
	c->fn = fn;
	c->ctx = ctx;
	c->aborted = false;
	for (unsigned i = 0; i < n; i++) {
		struct test_worker *w = &c->w[i];
		*w = (struct test_worker){ .crew = c, .id = i, .cpu = cpus[i % ncpus] };
		w->task = kthread_create_on_cpu(worker_main, w, w->cpu, "crew/%u");
		if (!w->task) {
			c->aborted = true; /* the ones made skip fn, and are reaped */
			break;
		}
		c->n++;
	}
	for (unsigned i = 0; i < c->n; i++)
		wake_up_process(c->w[i].task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, crew_action, c), 0);
	KUNIT_ASSERT_FALSE(test, c->aborted);
}

void test_crew_wait(struct kunit *test, struct test_crew *c)
{
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == c->n,
						&c->progress));
}

unsigned long test_crew_finish(struct kunit *test, struct test_crew *c)
{
	test_crew_wait(test, c);
	kunit_release_action(test, crew_action, c);
	return c->errors;
}

unsigned long test_on_each_cpu(struct kunit *test, struct test_crew *c, int (*fn)(struct test_worker *w),
			       void *ctx, unsigned n)
{
	test_crew_start(test, c, fn, ctx, n, 0);
	return test_crew_finish(test, c);
}

unsigned test_rwsem_waiters(struct rw_semaphore *sem)
{
	unsigned n = 0;
	struct list_head *p;
	spin_lock(&sem->wait_lock);
	for (p = sem->wait_list.next; p != &sem->wait_list; p = p->next)
		n++;
	spin_unlock(&sem->wait_lock);
	return n;
}
