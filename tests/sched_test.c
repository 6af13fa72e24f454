/* Kernel threads, the per-CPU scheduler, wait queues and completions.
 *
 * The cases run in the task "init" on the boot CPU and hold on every
 * topology (1 to 8 CPUs). Nothing here decides by elapsed time: threads
 * order themselves through flags and completions, and the only clocks are
 * hang guards (HANG_GUARD_TICKS, generous) that turn a lost wakeup into a
 * failure instead of a stuck boot. Threads never use KUNIT_ASSERT (that
 * would longjmp off their own stack): they record what they saw, and the
 * case checks it after joining them. Every thread is joined, so its stack
 * and task_struct are freed before the case returns; a case that a failed
 * assertion ends early has them stopped and joined by a deferred action
 * (kunit_add_action), on static arrays, since the case's stack is gone. */
#include "arch/x86_64/cpu.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "tests/kunit.h"

#define HANG_GUARD_TICKS 1000 /* 10 s */

/* Polls *flag (sleeping a tick between looks) until it is set; false if the
 * hang guard ran out. */
static bool wait_for_flag(const int *flag)
{
	for (int i = 0; i < HANG_GUARD_TICKS; i++) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			return true;
		schedule_timeout_uninterruptible(1);
	}
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

struct where {
	unsigned int cpu;        /* smp_processor_id() inside the thread */
	unsigned int task_cpu;   /* current->cpu */
	struct task_struct *self;
	int ran;
	int stack_nid;
};

static int record_where(void *arg)
{
	struct where *w = arg;
	w->cpu = smp_processor_id();
	w->task_cpu = current->cpu;
	w->self = current;
	w->stack_nid = page_to_nid(virt_to_page(current->stack));
	__atomic_store_n(&w->ran, 1, __ATOMIC_RELEASE);
	return (int)w->cpu + 100;
}

static struct task_struct *where_threads[NR_CPUS];

/* Stops (never woken: it exits without running) or joins each thread the
 * case has not joined itself. */
static void stop_where_threads(void *unused)
{
	(void)unused;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (where_threads[cpu])
			kthread_stop(where_threads[cpu]);
		where_threads[cpu] = NULL;
	}
}

static void kthreads_run_on_their_cpu(struct kunit *test)
{
	static struct where w[NR_CPUS];
	struct task_struct **t = where_threads;
	unsigned int cpu, n = 0;
	unsigned long before = nr_kthreads();
	memset(w, 0, sizeof(w));
	memset(where_threads, 0, sizeof(where_threads));
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, stop_where_threads, NULL), 0);
	for_each_online_cpu(cpu) {
		t[cpu] = kthread_create_on_cpu(record_where, &w[cpu], cpu, "sched_test/%u");
		KUNIT_ASSERT_NOT_NULL(test, t[cpu]);
		KUNIT_EXPECT_EQ(test, t[cpu]->cpu, cpu);
		KUNIT_EXPECT_EQ(test, t[cpu]->__state, TASK_UNINTERRUPTIBLE); /* created stopped */
		n++;
	}
	KUNIT_EXPECT_EQ(test, nr_kthreads(), before + n);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, __atomic_load_n(&w[cpu].ran, __ATOMIC_ACQUIRE), 0);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_TRUE(test, wake_up_process(t[cpu]));
	for_each_online_cpu(cpu) {
		struct task_struct *joined = t[cpu];
		int code = kthread_join(joined);
		t[cpu] = NULL;
		KUNIT_EXPECT_EQ(test, code, (int)cpu + 100);
		KUNIT_EXPECT_EQ(test, w[cpu].ran, 1);
		KUNIT_EXPECT_EQ(test, w[cpu].cpu, cpu);
		KUNIT_EXPECT_EQ(test, w[cpu].task_cpu, cpu);
		KUNIT_EXPECT_PTR_EQ(test, w[cpu].self, joined);
		/* The stack comes from the CPU's node when that node has memory. */
		int nid = cpu_to_node(cpu);
		if (nid >= 0 && node_data[nid] && node_data[nid]->managed_pages)
			KUNIT_EXPECT_EQ(test, w[cpu].stack_nid, nid);
	}
	KUNIT_EXPECT_EQ(test, nr_kthreads(), before);
}

static void kthread_run_uses_this_cpu_and_names_it(struct kunit *test)
{
	static struct where w;
	memset(&w, 0, sizeof(w));
	struct task_struct *t = kthread_run(record_where, &w, "named-%d", 7);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_STREQ(test, t->comm, "named-7");
	KUNIT_EXPECT_EQ(test, t->cpu, smp_processor_id());
	KUNIT_EXPECT_EQ(test, kthread_join(t), (int)smp_processor_id() + 100);
	KUNIT_EXPECT_EQ(test, w.cpu, smp_processor_id());
}

static int never_runs(void *arg)
{
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	return 0;
}

static int loop_until_stopped(void *arg)
{
	int *loops = arg;
	while (!kthread_should_stop()) {
		__atomic_fetch_add(loops, 1, __ATOMIC_RELAXED);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_timeout(1);
		__set_current_state(TASK_RUNNING);
	}
	return 7;
}

static void kthread_stop_semantics(struct kunit *test)
{
	static int ran, loops;
	ran = loops = 0;
	/* Never woken: kthread_stop makes it exit without running fn. */
	struct task_struct *t = kthread_create_on_cpu(never_runs, &ran, smp_processor_id(), "never");
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, kthread_stop(t), -EINTR);
	KUNIT_EXPECT_EQ(test, ran, 0);

	/* Running and sleeping with a timeout on the last CPU. */
	unsigned int cpu = 0, c;
	for_each_online_cpu(c)
		cpu = c;
	t = kthread_run_on_cpu(loop_until_stopped, &loops, cpu, "looper/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_TRUE(test, wait_for_flag(&loops));
	KUNIT_EXPECT_EQ(test, kthread_stop(t), 7);
	KUNIT_EXPECT_GE(test, loops, 1);
}

/* A waiter that really sleeps: a thread on the same CPU can only run once
 * the case's task blocks in wait_for_completion. */
struct sleeper_check {
	struct completion done;
	struct task_struct *waiter;
	long waiter_state; /* what the completer saw */
	int waiter_was_current;
};

static int complete_after_waiter_sleeps(void *arg)
{
	struct sleeper_check *s = arg;
	/* On another CPU, wait until the waiter has gone to sleep (on its own
	 * CPU this thread only runs once it has). 10 s hang guard. */
	u64 deadline = ktime_get_ns() + HANG_GUARD_TICKS * 10000000ull;
	while (READ_ONCE(s->waiter->__state) == TASK_RUNNING || cpu_curr(s->waiter->cpu) == s->waiter) {
		if (ktime_get_ns() > deadline)
			break;
		cond_resched();
		cpu_relax();
	}
	s->waiter_state = READ_ONCE(s->waiter->__state);
	s->waiter_was_current = cpu_curr(s->waiter->cpu) == s->waiter;
	complete(&s->done);
	return 0;
}

static void completion_wakes_a_sleeper(struct kunit *test)
{
	static struct sleeper_check s;
	unsigned int cpu;
	for_each_online_cpu(cpu) {
		init_completion(&s.done);
		s.waiter = current;
		s.waiter_state = -1;
		struct task_struct *t = kthread_run_on_cpu(complete_after_waiter_sleeps, &s, cpu, "completer/%u");
		KUNIT_ASSERT_NOT_NULL(test, t);
		unsigned long left = wait_for_completion_timeout(&s.done, HANG_GUARD_TICKS);
		KUNIT_EXPECT_GT(test, left, 0);
		KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
		/* The completer ran while we slept. */
		KUNIT_EXPECT_EQ(test, s.waiter_state, TASK_UNINTERRUPTIBLE);
		KUNIT_EXPECT_EQ(test, s.waiter_was_current, 0);
		KUNIT_EXPECT_FALSE(test, try_wait_for_completion(&s.done)); /* taken by the wait */
	}
}

static void completion_counts_and_complete_all(struct kunit *test)
{
	DECLARE_COMPLETION(c);
	KUNIT_EXPECT_FALSE(test, try_wait_for_completion(&c));
	KUNIT_EXPECT_FALSE(test, completion_done(&c));
	complete(&c);
	complete(&c);
	KUNIT_EXPECT_TRUE(test, completion_done(&c));
	wait_for_completion(&c); /* does not sleep: done */
	KUNIT_EXPECT_TRUE(test, try_wait_for_completion(&c));
	KUNIT_EXPECT_FALSE(test, try_wait_for_completion(&c));
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&c, 2), 0); /* times out */
	complete_all(&c);
	for (int i = 0; i < 5; i++)
		KUNIT_EXPECT_TRUE(test, try_wait_for_completion(&c));
	wait_for_completion(&c);
	reinit_completion(&c);
	KUNIT_EXPECT_FALSE(test, try_wait_for_completion(&c));
}

/* wait_event / wake_up: waiters on every CPU sleep on one queue until a
 * counter reaches their target; the case raises it step by step. */
#define WAITERS_PER_CPU 2
static DECLARE_WAIT_QUEUE_HEAD(step_wq);
static int step;
static int waiters_asleep;

struct step_waiter {
	int target;
	int seen; /* step when it woke for good */
};

static int wait_for_step(void *arg)
{
	struct step_waiter *w = arg;
	__atomic_fetch_add(&waiters_asleep, 1, __ATOMIC_RELEASE);
	wait_event(step_wq, __atomic_load_n(&step, __ATOMIC_ACQUIRE) >= w->target);
	w->seen = __atomic_load_n(&step, __ATOMIC_ACQUIRE);
	return 0;
}

static struct task_struct *step_waiters[NR_CPUS * WAITERS_PER_CPU];

/* Lets every waiter the case started through and joins it. */
static void release_step_waiters(void *unused)
{
	(void)unused;
	__atomic_store_n(&step, WAITERS_PER_CPU, __ATOMIC_RELEASE);
	wake_up_all(&step_wq);
	for (unsigned int i = 0; i < ARRAY_SIZE(step_waiters); i++) {
		if (step_waiters[i])
			kthread_join(step_waiters[i]);
		step_waiters[i] = NULL;
	}
}

static void wait_event_and_wake_up(struct kunit *test)
{
	static struct step_waiter w[NR_CPUS * WAITERS_PER_CPU];
	struct task_struct **t = step_waiters;
	unsigned int cpu, n = 0;
	step = waiters_asleep = 0;
	memset(step_waiters, 0, sizeof(step_waiters));
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, release_step_waiters, NULL), 0);
	for_each_online_cpu(cpu) {
		for (int k = 0; k < WAITERS_PER_CPU; k++) {
			w[n].target = k + 1;
			w[n].seen = -1;
			t[n] = kthread_run_on_cpu(wait_for_step, &w[n], cpu, "waiter/%u");
			KUNIT_ASSERT_NOT_NULL(test, t[n]);
			n++;
		}
	}
	for (int s = 1; s <= WAITERS_PER_CPU; s++) {
		__atomic_store_n(&step, s, __ATOMIC_RELEASE);
		wake_up_all(&step_wq);
		schedule_timeout_uninterruptible(1);
	}
	for (unsigned int i = 0; i < n; i++) {
		kthread_join(t[i]);
		t[i] = NULL;
		KUNIT_EXPECT_GE(test, w[i].seen, w[i].target);
	}
	KUNIT_EXPECT_EQ(test, waiters_asleep, (int)n);
	KUNIT_EXPECT_FALSE(test, waitqueue_active(&step_wq));

	/* wait_event_timeout: a condition that never comes times out (0), one
	 * already true returns at least 1. */
	DECLARE_WAIT_QUEUE_HEAD(never);
	KUNIT_EXPECT_EQ(test, wait_event_timeout(never, READ_ONCE(step) < 0, 2), 0);
	KUNIT_EXPECT_GE(test, wait_event_timeout(never, READ_ONCE(step) > 0, 2), 1);
}

/* A ring of threads spread over the CPUs passes a token through
 * completions: thread k waits on its own completion and completes the next
 * one's, ROUNDS times around. */
#define PING_ROUNDS 200
struct ring_member {
	struct completion turn;
	struct ring_member *next;
	int passes;
	int last;
};

static int pass_the_token(void *arg)
{
	struct ring_member *m = arg;
	for (int r = 0; r < PING_ROUNDS; r++) {
		if (!wait_for_completion_timeout(&m->turn, HANG_GUARD_TICKS))
			return -1;
		m->passes++;
		if (!(m->last && r == PING_ROUNDS - 1))
			complete(&m->next->turn);
	}
	return 0;
}

static void many_threads_ping_pong(struct kunit *test)
{
	unsigned int ncpu = num_online_cpus(), cpus[NR_CPUS], cpu, i = 0;
	for_each_online_cpu(cpu)
		cpus[i++] = cpu;
	unsigned int nr = ncpu * 2 < 4 ? 4 : ncpu * 2;
	struct ring_member *ring = kzalloc(nr * sizeof(*ring), GFP_KERNEL);
	struct task_struct **t = kzalloc(nr * sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	KUNIT_ASSERT_NOT_NULL(test, t);
	unsigned long switches_before = 0;
	for_each_online_cpu(cpu)
		switches_before += nr_context_switches_cpu(cpu);
	for (i = 0; i < nr; i++) {
		init_completion(&ring[i].turn);
		ring[i].next = &ring[(i + 1) % nr];
		ring[i].last = i == nr - 1;
	}
	for (i = 0; i < nr; i++) {
		t[i] = kthread_run_on_cpu(pass_the_token, &ring[i], cpus[i % ncpu], "pingpong/%u");
		if (!t[i])
			break;
	}
	unsigned int created = i;
	if (created == nr)
		complete(&ring[0].turn);
	else /* the threads made so far give up after their hang guard */
		kunit_fail(test, false, __FILE__, __LINE__, "thread %u of %u not created", created, nr);
	int total = 0;
	for (i = 0; i < created; i++) {
		KUNIT_EXPECT_EQ(test, kthread_join(t[i]), 0);
		KUNIT_EXPECT_EQ(test, ring[i].passes, PING_ROUNDS);
		total += ring[i].passes;
	}
	KUNIT_EXPECT_EQ(test, total, (int)(nr * PING_ROUNDS));
	unsigned long switches = 0;
	for_each_online_cpu(cpu)
		switches += nr_context_switches_cpu(cpu);
	kunit_info(test, "%u threads on %u CPUs passed the token %d times (%lu context switches)", nr,
		   ncpu, total, switches - switches_before);
	kfree(ring);
	kfree(t);
}

static int set_flag(void *arg)
{
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	return 0;
}

static void cond_resched_runs_a_waiting_task(struct kunit *test)
{
	static int flag;
	flag = 0;
	struct task_struct *t = kthread_run(set_flag, &flag, "yield-to-me");
	KUNIT_ASSERT_NOT_NULL(test, t);
	/* Not preemptive: the new thread waits for our scheduling point. */
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&flag, __ATOMIC_ACQUIRE), 0);
	KUNIT_EXPECT_TRUE(test, cond_resched());
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&flag, __ATOMIC_ACQUIRE), 1);
	kthread_join(t);
}

static void schedule_timeout_sleeps_at_least_that_long(struct kunit *test)
{
	u64 start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, schedule_timeout_uninterruptible(3), 0);
	/* A lower bound only: the timer never fires early. */
	KUNIT_EXPECT_GE(test, ktime_get_ns() - start, 3 * 10000000ull);
	KUNIT_EXPECT_EQ(test, current->__state, TASK_RUNNING);
}

static void every_cpu_has_an_idle_task(struct kunit *test)
{
	unsigned int cpu;
	for_each_online_cpu(cpu) {
		struct task_struct *idle = idle_task(cpu);
		char name[TASK_COMM_LEN];
		KUNIT_ASSERT_NOT_NULL(test, idle);
		snprintf(name, sizeof(name), "swapper/%u", cpu);
		KUNIT_EXPECT_STREQ(test, idle->comm, name);
		KUNIT_EXPECT_TRUE(test, is_idle_task(idle));
		KUNIT_EXPECT_EQ(test, idle->cpu, cpu);
	}
	KUNIT_EXPECT_STREQ(test, current->comm, "init");
	KUNIT_EXPECT_FALSE(test, is_idle_task(current));
	KUNIT_EXPECT_PTR_EQ(test, cpu_curr(smp_processor_id()), current);
}

static struct kunit_case sched_cases[] = {
	KUNIT_CASE(every_cpu_has_an_idle_task),
	KUNIT_CASE(kthreads_run_on_their_cpu),
	KUNIT_CASE(kthread_run_uses_this_cpu_and_names_it),
	KUNIT_CASE(kthread_stop_semantics),
	KUNIT_CASE(cond_resched_runs_a_waiting_task),
	KUNIT_CASE(schedule_timeout_sleeps_at_least_that_long),
	KUNIT_CASE(completion_counts_and_complete_all),
	KUNIT_CASE(completion_wakes_a_sleeper),
	KUNIT_CASE(wait_event_and_wake_up),
	KUNIT_CASE(many_threads_ping_pong),
	{}
};
static struct kunit_suite sched_suite = { .name = "sched", .test_cases = sched_cases };
kunit_test_suite(sched_suite);
