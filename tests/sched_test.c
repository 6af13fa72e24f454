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
 * (kunit_add_action), on static arrays, since the case's stack is gone.
 * The cases that test kthread_create, affinity and migration make their
 * threads themselves; the others use the crews and held CPUs of
 * tests/test_cpu.h. */
#include "arch/x86_64/cpu.h"
#include "kernel/percpu.h"
#include "fs/proc/proc_fs.h"
#include "kernel/rcu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "tests/expect.h"
#include "mm/vmalloc.h"
#include "tests/kunit.h"
#include "tests/test_cpu.h"

#define HANG_GUARD_TICKS 1000 /* 10 s */

/* Sleeps a tick at a time until *flag is set; false after the hang guard. */
#define wait_for_flag(flag) TEST_WAIT_UNTIL(__atomic_load_n(flag, __ATOMIC_ACQUIRE), NULL)

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
	w->stack_nid = page_to_nid(vmalloc_to_page(current->stack)); /* stacks are vmalloc'ed */
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

static int complete_after_waiter_sleeps(struct test_worker *w)
{
	struct sleeper_check *s = w->crew->ctx;
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
	static struct test_crew c;
	unsigned int cpu;
	for_each_online_cpu(cpu) {
		init_completion(&s.done);
		s.waiter = current;
		s.waiter_state = -1;
		test_crew_start_on(test, &c, complete_after_waiter_sleeps, &s, &cpu, 1, 1);
		unsigned long left = wait_for_completion_timeout(&s.done, HANG_GUARD_TICKS);
		KUNIT_EXPECT_GT(test, left, 0);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
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

/* Worker i of the crew (WAITERS_PER_CPU on each CPU) waits for step
 * i / ncpus + 1. */
static int wait_for_step(struct test_worker *wk)
{
	struct step_waiter *w = (struct step_waiter *)wk->crew->ctx + wk->id;
	__atomic_fetch_add(&waiters_asleep, 1, __ATOMIC_RELEASE);
	wait_event(step_wq, __atomic_load_n(&step, __ATOMIC_ACQUIRE) >= w->target);
	w->seen = __atomic_load_n(&step, __ATOMIC_ACQUIRE);
	return 0;
}

/* However the case ends, before the crew is waited for: every waiter's
 * step comes. */
static void release_step_waiters(void *unused)
{
	(void)unused;
	__atomic_store_n(&step, WAITERS_PER_CPU, __ATOMIC_RELEASE);
	wake_up_all(&step_wq);
}

static void wait_event_and_wake_up(struct kunit *test)
{
	static struct step_waiter w[NR_CPUS * WAITERS_PER_CPU];
	static struct test_crew c;
	unsigned int ncpus = num_online_cpus(), n = ncpus * WAITERS_PER_CPU;
	step = waiters_asleep = 0;
	for (unsigned int i = 0; i < n; i++)
		w[i] = (struct step_waiter){ .target = (int)(i / ncpus) + 1, .seen = -1 };
	test_crew_start(test, &c, wait_for_step, w, n, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, release_step_waiters, NULL), 0);
	for (int s = 1; s <= WAITERS_PER_CPU; s++) {
		__atomic_store_n(&step, s, __ATOMIC_RELEASE);
		wake_up_all(&step_wq);
		schedule_timeout_uninterruptible(1);
	}
	test_crew_wait(test, &c); /* a lost wakeup fails here... */
	kunit_release_action(test, release_step_waiters, NULL); /* ...and this wakes them */
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	for (unsigned int i = 0; i < n; i++)
		KUNIT_EXPECT_GE(test, w[i].seen, w[i].target);
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

static int pass_the_token(struct test_worker *w)
{
	struct ring_member *m = (struct ring_member *)w->crew->ctx + w->id;
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
	static struct ring_member ring[TEST_CREW_MAX];
	static struct test_crew c;
	unsigned int ncpu = num_online_cpus(), cpu, i;
	unsigned int nr = ncpu * 2 < 4 ? 4 : ncpu * 2;
	unsigned long switches_before = 0;
	for_each_online_cpu(cpu)
		switches_before += nr_context_switches_cpu(cpu);
	for (i = 0; i < nr; i++) {
		ring[i] = (struct ring_member){ .next = &ring[(i + 1) % nr], .last = i == nr - 1 };
		init_completion(&ring[i].turn);
	}
	/* Spread round the CPUs; a thread that is not made fails the start,
	 * and the ones made give up after their hang guard. */
	test_crew_start(test, &c, pass_the_token, ring, nr, 0);
	complete(&ring[0].turn);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	int total = 0;
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ(test, ring[i].passes, PING_ROUNDS);
		total += ring[i].passes;
	}
	KUNIT_EXPECT_EQ(test, total, (int)(nr * PING_ROUNDS));
	unsigned long switches = 0;
	for_each_online_cpu(cpu)
		switches += nr_context_switches_cpu(cpu);
	kunit_info(test, "%u threads on %u CPUs passed the token %d times (%lu context switches)", nr,
		   ncpu, total, switches - switches_before);
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

/* ---- Affinity and migration ---- */

/* The online CPUs, ascending; returns how many. */
static unsigned int online_cpus(unsigned int *cpus)
{
	unsigned int cpu, n = 0;
	for_each_online_cpu(cpu)
		cpus[n++] = cpu;
	return n;
}

static struct cpumask one_cpu(unsigned int cpu)
{
	struct cpumask m = { 1ull << cpu };
	return m;
}

static void kthreads_are_bound_until_their_mask_is_widened(struct kunit *test)
{
	static struct where w;
	unsigned int cpus[NR_CPUS], n = online_cpus(cpus), b = smp_processor_id();
	memset(&w, 0, sizeof(w));
	struct task_struct *t = kthread_create_on_cpu(record_where, &w, b, "bound/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, t->cpus_mask.bits, 1ull << b);
	KUNIT_EXPECT_EQ(test, t->nr_cpus_allowed, 1);
	/* A mask without an online CPU is refused and changes nothing. */
	struct cpumask empty = { 0 }, beyond = { nr_cpu_ids < 64 ? ~0ull << nr_cpu_ids : 0 };
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &empty), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &beyond), -EINVAL);
	KUNIT_EXPECT_EQ(test, t->cpus_mask.bits, 1ull << b);
	/* Bits beyond the possible CPUs are dropped. */
	struct cpumask wide = { ~0ull };
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &wide), 0);
	KUNIT_EXPECT_EQ(test, t->cpus_mask.bits, cpu_possible_mask().bits);
	KUNIT_EXPECT_EQ(test, t->nr_cpus_allowed, (int)nr_cpu_ids);
	/* Asleep (never woken yet): it stays where it is; the wakeup puts
	 * it on the CPU it is allowed. */
	unsigned int other = n > 1 ? (cpus[0] == b ? cpus[1] : cpus[0]) : b;
	struct cpumask m = one_cpu(other);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &m), 0);
	KUNIT_EXPECT_EQ(test, t->cpu, b);
	KUNIT_EXPECT_TRUE(test, wake_up_process(t));
	KUNIT_EXPECT_EQ(test, t->cpu, other);
	KUNIT_EXPECT_EQ(test, t->nr_migrations, other != b ? 1ul : 0ul);
	KUNIT_EXPECT_EQ(test, kthread_join(t), (int)other + 100);
	KUNIT_EXPECT_EQ(test, w.cpu, other);
	KUNIT_EXPECT_EQ(test, w.task_cpu, other);
}

#define SELF_MIGRATION_ROUNDS 50
struct self_migration {
	unsigned int cpus[NR_CPUS], n;
	int steps, wrong;
	u64 visited;
	unsigned long migrations;
};

/* Pins itself to each online CPU in turn, as sched_setaffinity(0) does,
 * and looks where it runs after each. */
static int migrate_self(void *arg)
{
	struct self_migration *s = arg;
	for (int r = 0; r < SELF_MIGRATION_ROUNDS; r++) {
		for (unsigned int i = 0; i < s->n; i++) {
			unsigned int c = s->cpus[i];
			struct cpumask m = one_cpu(c);
			if (set_cpus_allowed_ptr(current, &m))
				s->wrong++;
			unsigned int here = smp_processor_id();
			if (here != c || current->cpu != c)
				s->wrong++;
			s->visited |= 1ull << here;
			s->steps++;
		}
	}
	s->migrations = current->nr_migrations;
	return 0;
}

static void kthread_migrates_itself_through_every_cpu(struct kunit *test)
{
	static struct self_migration s;
	memset(&s, 0, sizeof(s));
	s.n = online_cpus(s.cpus);
	unsigned int b = smp_processor_id();
	struct task_struct *t = kthread_create_on_cpu(migrate_self, &s, b, "migrate/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	struct cpumask all = cpu_possible_mask();
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &all), 0);
	wake_up_process(t);
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	KUNIT_EXPECT_EQ(test, s.wrong, 0);
	KUNIT_EXPECT_EQ(test, s.steps, (int)(SELF_MIGRATION_ROUNDS * s.n));
	KUNIT_EXPECT_EQ(test, s.visited, cpu_online_mask.bits);
	/* Every step changes CPU but the first when it starts where it is. */
	unsigned long moves = s.n > 1 ? SELF_MIGRATION_ROUNDS * s.n - (s.cpus[0] == b) : 0;
	KUNIT_EXPECT_EQ(test, s.migrations, moves);
}

/* A thread busy on another CPU (a scheduling point per loop, no sleep):
 * once set_cpus_allowed_ptr returns, it runs only where it was sent. */
struct busy_mover {
	int started, checking, stop;
	unsigned int target;
	int checked, wrong;
};

static int busy_loop(void *arg)
{
	struct busy_mover *bm = arg;
	__atomic_store_n(&bm->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&bm->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&bm->checking, __ATOMIC_ACQUIRE)) {
			if (smp_processor_id() != bm->target || current->cpu != bm->target)
				bm->wrong++;
			if (++bm->checked == 1000)
				break;
		}
		cond_resched();
		cpu_relax();
	}
	return 0;
}

static void running_thread_is_moved_before_the_call_returns(struct kunit *test)
{
	static struct busy_mover bm;
	unsigned int cpus[NR_CPUS], n = 0, cpu, b = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != b)
			cpus[n++] = cpu;
	if (!n)
		kunit_skip(test, "one CPU: nowhere to move to");
	memset(&bm, 0, sizeof(bm));
	unsigned int from = cpus[0], to = n > 1 ? cpus[1] : b;
	struct task_struct *t = kthread_create_on_cpu(busy_loop, &bm, from, "busy/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	struct cpumask all = cpu_possible_mask(), m = one_cpu(to);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &all), 0);
	wake_up_process(t);
	if (!wait_for_flag(&bm.started)) {
		__atomic_store_n(&bm.stop, 1, __ATOMIC_RELEASE);
		kthread_join(t);
		kunit_fail(test, false, __FILE__, __LINE__, "the busy thread did not start");
		return;
	}
	bm.target = to;
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &m), 0);
	/* Returned: it has left from (it was running there). */
	KUNIT_EXPECT_TRUE(test, cpu_curr(from) != t);
	KUNIT_EXPECT_EQ(test, t->cpus_mask.bits, 1ull << to);
	__atomic_store_n(&bm.checking, 1, __ATOMIC_RELEASE);
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	KUNIT_EXPECT_EQ(test, bm.checked, 1000);
	KUNIT_EXPECT_EQ(test, bm.wrong, 0);
}

/* One worker, moved between CPUs by the case while requests from threads
 * bound to every CPU keep waking it. Request slots: one per pinger and
 * the last for the mover, which moves the worker and then asks it
 * something, so that the worker answers it on the CPU it was moved to. */
#define MIGRATION_PINGS 200
#define MOVE_ROUNDS 8
struct migration_state {
	wait_queue_head_t serve_wq, reply_wq[NR_CPUS + 1]; /* one per slot */
	int request[NR_CPUS + 1];
	int served[NR_CPUS + 1];
	int pinger_wrong[NR_CPUS];
	int nr_slots, total_served, expected_total;
	unsigned int target;     /* the CPU the mover last moved it to */
	int wrong_cpu, on_target, hung;
	u64 visited;
	unsigned long migrations;
};

static bool any_request(struct migration_state *s)
{
	for (int k = 0; k < s->nr_slots; k++)
		if (__atomic_load_n(&s->request[k], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static int migration_worker(void *arg)
{
	struct migration_state *s = arg;
	while (s->total_served < s->expected_total) {
		if (!wait_event_timeout(s->serve_wq, any_request(s), HANG_GUARD_TICKS)) {
			s->hung = 1;
			break;
		}
		for (int k = 0; k < s->nr_slots; k++) {
			if (!__atomic_load_n(&s->request[k], __ATOMIC_ACQUIRE))
				continue;
			/* (Its mask may already lack this CPU: a move asked
			 * for while it runs takes effect at its next
			 * scheduling point, and the mover waits for that.) */
			unsigned int here = smp_processor_id();
			if (here != current->cpu)
				s->wrong_cpu++;
			/* The mover waits for this answer before its next move. */
			if (k == s->nr_slots - 1 && here == __atomic_load_n(&s->target, __ATOMIC_ACQUIRE))
				s->on_target++;
			s->visited |= 1ull << here;
			s->served[k]++;
			s->total_served++;
			__atomic_store_n(&s->request[k], 0, __ATOMIC_RELEASE);
			wake_up(&s->reply_wq[k]);
		}
		/* Busy with requests it may not sleep for a while: a
		 * scheduling point, where a move asked for takes effect. */
		cond_resched();
	}
	s->migrations = current->nr_migrations;
	return s->hung ? -1 : 0;
}

/* Posts a request in slot k and waits for its answer; false on a hang. */
static bool ask(struct migration_state *s, int k)
{
	__atomic_store_n(&s->request[k], 1, __ATOMIC_RELEASE);
	wake_up(&s->serve_wq);
	return wait_event_timeout(s->reply_wq[k], !__atomic_load_n(&s->request[k], __ATOMIC_ACQUIRE),
				  HANG_GUARD_TICKS) != 0;
}

/* The pingers are a crew, worker k on the k-th online CPU. */
static int migration_pinger(struct test_worker *w)
{
	int k = (int)w->id;
	struct migration_state *s = w->crew->ctx;
	for (int i = 0; i < MIGRATION_PINGS; i++) {
		if (!ask(s, k))
			return -1;
		if (smp_processor_id() != w->cpu)
			s->pinger_wrong[k]++;
	}
	return 0;
}

static struct task_struct *migration_worker_task;

static void join_migration_worker(void *unused)
{
	(void)unused;
	if (migration_worker_task)
		kthread_join(migration_worker_task);
	migration_worker_task = NULL;
}

static void migration_under_concurrent_wakeups(struct kunit *test)
{
	static struct migration_state state;
	static struct test_crew c;
	struct migration_state *s = &state;
	unsigned int cpus[NR_CPUS], n = online_cpus(cpus), b = smp_processor_id();
	memset(s, 0, sizeof(*s));
	unsigned long kthreads_before = nr_kthreads();
	init_waitqueue_head(&s->serve_wq);
	for (unsigned int k = 0; k <= n; k++)
		init_waitqueue_head(&s->reply_wq[k]);
	s->nr_slots = (int)n + 1;
	s->expected_total = (int)(n * MIGRATION_PINGS + MOVE_ROUNDS * n);
	s->target = NR_CPUS;
	/* The worker (made stopped, so that its mask is widened before it
	 * runs), then the pingers, whose requests wait for it. If a thread
	 * is not made, the ones made give up after their hang guard. */
	struct task_struct *t = kthread_create_on_cpu(migration_worker, s, b, "mig-worker/%u");
	KUNIT_ASSERT_NOT_NULL(test, t);
	struct cpumask all = cpu_possible_mask();
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &all), 0);
	wake_up_process(t);
	migration_worker_task = t;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, join_migration_worker, NULL), 0);
	test_crew_start(test, &c, migration_pinger, s, 0, 0);
	/* The mover: the worker may be running, queued or asleep when it is
	 * moved; its answer to the next request must come from the new CPU. */
	int moves = 0, mover_hung = 0;
	for (int r = 0; r < MOVE_ROUNDS && !mover_hung; r++) {
		for (unsigned int i = 0; i < n; i++) {
			unsigned int c = cpus[(i + (unsigned int)r) % n];
			struct cpumask m = one_cpu(c);
			KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &m), 0);
			__atomic_store_n(&s->target, c, __ATOMIC_RELEASE);
			moves++;
			if (!ask(s, (int)n)) {
				mover_hung = 1;
				break;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(t, &all), 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	for (unsigned int k = 0; k < n; k++) {
		KUNIT_EXPECT_EQ(test, s->served[k], MIGRATION_PINGS);
		KUNIT_EXPECT_EQ(test, s->pinger_wrong[k], 0); /* bound threads stay put */
	}
	migration_worker_task = NULL;
	KUNIT_EXPECT_EQ(test, kthread_join(t), 0);
	kunit_release_action(test, join_migration_worker, NULL);
	KUNIT_EXPECT_EQ(test, mover_hung, 0);
	KUNIT_EXPECT_EQ(test, s->hung, 0);
	KUNIT_EXPECT_EQ(test, moves, (int)(MOVE_ROUNDS * n));
	KUNIT_EXPECT_EQ(test, s->served[n], moves);
	KUNIT_EXPECT_EQ(test, s->total_served, s->expected_total);
	KUNIT_EXPECT_EQ(test, s->on_target, moves);
	KUNIT_EXPECT_EQ(test, s->wrong_cpu, 0);
	KUNIT_EXPECT_EQ(test, s->visited, cpu_online_mask.bits);
	if (n > 1)
		KUNIT_EXPECT_GE(test, s->migrations, (unsigned long)(MOVE_ROUNDS * (n - 1)));
	KUNIT_EXPECT_EQ(test, nr_kthreads(), kthreads_before);
	kunit_info(test, "%d requests served on %u CPUs, worker moved %d times (%lu migrations)",
		   s->total_served, n, moves, s->migrations);
}

/* A thread queued behind a held CPU (test_hold_cpu: a thread that spins
 * without a scheduling point, so the CPU's load is exactly it plus what
 * queues behind it). Joined once the holds end: this action is
 * registered before them, so it runs after their release. */
static struct task_struct *queued_thread;
static int queued_flag;

static void join_queued(void *unused)
{
	(void)unused;
	if (queued_thread)
		kthread_join(queued_thread);
	queued_thread = NULL;
}

static unsigned int fork_cpu(unsigned int parent_cpu, u64 mask)
{
	struct task_struct parent;
	memset(&parent, 0, sizeof(parent));
	parent.cpu = parent_cpu;
	parent.cpus_mask.bits = mask;
	return select_task_rq_fork(&parent);
}

static void placement_picks_the_least_loaded_allowed_cpu(struct kunit *test)
{
	unsigned int cpus[NR_CPUS], n = 0, cpu, b = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != b)
			cpus[n++] = cpu;
	u64 online = cpu_online_mask.bits;
	KUNIT_EXPECT_EQ(test, fork_cpu(b, 1ull << b), b);
	if (!n)
		kunit_skip(test, "one CPU: nothing to choose from");
	queued_flag = 0;
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, join_queued, NULL), 0);
	/* No RCU callbacks left to wake a CPU's rcuc thread meanwhile: the
	 * loads below are then exactly what this case makes. */
	rcu_barrier();
	/* ... and the threads the barrier woke have gone back to sleep:
	 * this CPU runs only us, the others nothing. */
	for (int i = 0; i < HANG_GUARD_TICKS; i++) {
		bool quiet = cpu_load(b) == 1;
		for (unsigned int k = 0; k < n; k++)
			quiet &= cpu_load(cpus[k]) == 0;
		if (quiet)
			break;
		schedule_timeout_uninterruptible(1);
	}
	unsigned int o1 = cpus[0];
	/* Idle CPUs beat busy ones: this CPU runs us. */
	KUNIT_EXPECT_EQ(test, cpu_load(b), 1u);
	KUNIT_EXPECT_EQ(test, fork_cpu(b, (1ull << b) | (1ull << o1)), o1);
	test_hold_cpu(test, o1);
	KUNIT_EXPECT_EQ(test, cpu_load(o1), 1u);
	/* A tie (1 and 1): the parent's CPU, whichever it is. */
	KUNIT_EXPECT_EQ(test, fork_cpu(b, (1ull << b) | (1ull << o1)), b);
	KUNIT_EXPECT_EQ(test, fork_cpu(o1, (1ull << b) | (1ull << o1)), o1);
	/* One more queued behind the spinner: the least loaded wins over
	 * the parent's own CPU. */
	queued_thread = kthread_run_on_cpu(set_flag, &queued_flag, o1, "queued/%u");
	KUNIT_ASSERT_NOT_NULL(test, queued_thread);
	KUNIT_EXPECT_EQ(test, cpu_load(o1), 2u);
	KUNIT_EXPECT_EQ(test, fork_cpu(o1, (1ull << b) | (1ull << o1)), b);
	/* Only allowed CPUs count, however idle the others are. */
	KUNIT_EXPECT_EQ(test, fork_cpu(b, 1ull << o1), o1);
	if (n >= 2) {
		unsigned int o2 = cpus[1];
		test_hold_cpu(test, o2);
		KUNIT_EXPECT_EQ(test, cpu_load(o2), 1u);
		/* Loads b 1, o1 2, o2 1. A tie without the parent's CPU in it:
		 * the lowest number. */
		unsigned int low = b < o2 ? b : o2;
		KUNIT_EXPECT_EQ(test, fork_cpu(o1, (1ull << b) | (1ull << o2)), low);
		KUNIT_EXPECT_EQ(test, fork_cpu(o1, (1ull << o1) | (1ull << o2)), o2);
		/* An idle CPU beats them all: the lowest idle one. */
		if (n >= 3)
			KUNIT_EXPECT_EQ(test, fork_cpu(b, online), cpus[2]);
		test_release_cpu(test, o2);
	}
	test_release_cpu(test, o1);
	kunit_release_action(test, join_queued, NULL);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&queued_flag, __ATOMIC_ACQUIRE), 1);
}

static void sched_fork_inherits_the_mask(struct kunit *test)
{
	struct task_struct parent;
	memset(&parent, 0, sizeof(parent));
	parent.cpu = smp_processor_id();
	parent.cpus_mask = cpu_online_mask;
	parent.nr_cpus_allowed = (int)num_online_cpus();
	struct task_struct *p = kthread_create_on_cpu(never_runs, NULL, select_task_rq_fork(&parent), "fork/%u");
	KUNIT_ASSERT_NOT_NULL(test, p);
	sched_fork(p, &parent);
	KUNIT_EXPECT_EQ(test, p->cpus_mask.bits, cpu_online_mask.bits);
	KUNIT_EXPECT_EQ(test, p->nr_cpus_allowed, (int)num_online_cpus());
	KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(p->cpu, &p->cpus_mask));
	KUNIT_EXPECT_EQ(test, kthread_stop(p), -EINTR);
}

/* The lists Linux prints for a set of CPUs, built here from the mask the
 * way a reader would write them ("0-2,5\n"). */
static void cpu_list_text(u64 bits, char *out, size_t size)
{
	size_t len = 0;
	out[0] = 0;
	for (int i = 0; i < 64; i++) {
		if (!(bits >> i & 1))
			continue;
		int j = i;
		while (j + 1 < 64 && (bits >> (j + 1) & 1))
			j++;
		len += (size_t)snprintf(out + len, size - len, j > i ? "%s%d-%d" : "%s%d", len ? "," : "", i, j);
		i = j;
	}
	snprintf(out + len, size - len, "\n");
}

static void sysfs_cpu_lists_match_the_machine(struct kunit *test)
{
	static const char *const files[] = { "online", "possible", "present" };
	char want[256], path[64];
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *buf = NULL;
		size_t len = 0;
		u64 bits = i == 0 ? cpu_online_mask.bits : i == 1 ? cpu_possible_mask().bits : cpu_present_mask.bits;
		cpu_list_text(bits, want, sizeof(want));
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", files[i]);
		KUNIT_ASSERT_EQ(test, procfs_generate(path, current, &buf, &len), 0);
		KUNIT_EXPECT_STREQ(test, buf, want);
		KUNIT_EXPECT_EQ(test, len, strlen(want));
		kvfree(buf);
	}
	/* What the topology asked for, when it says: every CPU came up. */
	if (expect_cpus > 0) {
		snprintf(want, sizeof(want), expect_cpus > 1 ? "0-%d\n" : "0\n", expect_cpus - 1);
		char *buf = NULL;
		size_t len;
		KUNIT_ASSERT_EQ(test, procfs_generate("/sys/devices/system/cpu/online", current, &buf, &len), 0);
		KUNIT_EXPECT_STREQ(test, buf, want);
		kvfree(buf);
	}
	char *buf = NULL;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_generate("/sys/devices/system/cpu", current, &buf, &len), -EISDIR);
	KUNIT_EXPECT_EQ(test, procfs_generate("/sys/devices/system/cpu/offline", current, &buf, &len), -ENOENT);
}

/* The load average's arithmetic, against what Linux's gives: one 5 s step
 * of one running task from idle is 164/2048 ("0.08" in /proc/loadavg); a
 * minute of it (12 steps) is within a rounding per step of 1 - e^-1 of
 * FIXED_1, as the closed form (1 - (EXP_1/FIXED_1)^12) says; a steady
 * load is reached exactly, and so is 0 after it ends. */
static void load_average_arithmetic(struct kunit *test)
{
	unsigned long l = calc_load(0, EXP_1, FIXED_1);
	KUNIT_EXPECT_EQ(test, l, 164ul);
	KUNIT_EXPECT_EQ(test, LOAD_INT(l + FIXED_1 / 200), 0ul);
	KUNIT_EXPECT_EQ(test, LOAD_FRAC(l + FIXED_1 / 200), 8ul);
	for (int i = 1; i < 12; i++)
		l = calc_load(l, EXP_1, FIXED_1);
	/* (1884/2048)^12 * 2048 = 752.6..., so 1295.4 is the exact value. */
	u64 decay = FIXED_1 << 20;
	for (int i = 0; i < 12; i++)
		decay = decay * EXP_1 / FIXED_1;
	unsigned long exact = FIXED_1 - (unsigned long)(decay >> 20);
	KUNIT_EXPECT_GE(test, l, exact);
	KUNIT_EXPECT_LE(test, l, exact + 12);
	for (int i = 0; i < 2000; i++)
		l = calc_load(l, EXP_15, 2 * FIXED_1);
	KUNIT_EXPECT_EQ(test, l, 2 * FIXED_1);
	unsigned long prev = l;
	for (int i = 0; i < 2000; i++) {
		l = calc_load(l, EXP_15, 0);
		KUNIT_EXPECT_LE(test, l, prev);
		prev = l;
	}
	KUNIT_EXPECT_EQ(test, l, 0ul);
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
	KUNIT_CASE(kthreads_are_bound_until_their_mask_is_widened),
	KUNIT_CASE(kthread_migrates_itself_through_every_cpu),
	KUNIT_CASE(running_thread_is_moved_before_the_call_returns),
	KUNIT_CASE(migration_under_concurrent_wakeups),
	KUNIT_CASE(placement_picks_the_least_loaded_allowed_cpu),
	KUNIT_CASE(sched_fork_inherits_the_mask),
	KUNIT_CASE(sysfs_cpu_lists_match_the_machine),
	KUNIT_CASE(load_average_arithmetic),
	{}
};
static struct kunit_suite sched_suite = { .name = "sched", .test_cases = sched_cases };
kunit_test_suite(sched_suite);
