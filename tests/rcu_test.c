/* RCU: callbacks after a grace period in rcuc/N, synchronize_rcu against a
 * reader that is still inside its section, rcu_barrier, the BUG report
 * for a context switch inside a reader, and a torture run (readers on every
 * CPU, a writer replacing the object they read 10,000 times).
 *
 * Order between threads comes from flags and completions, never from
 * elapsed time; clocks only bound waits as hang guards (reported as
 * failures). The threads are crews of tests/test_cpu.h: they record what
 * they saw and the case checks it after they finish (a thread must not
 * KUNIT_ASSERT: that would longjmp off its stack). Every object and
 * thread is freed before the case returns. */
#include "arch/x86_64/cpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "mm/slab.h"
#include "tests/kunit.h"
#include "tests/test_cpu.h"

static bool in_rcuc_thread(unsigned int cpu)
{
	char name[TASK_COMM_LEN];
	snprintf(name, sizeof(name), "rcuc/%u", cpu);
	return !strcmp(current->comm, name) && (read_rflags() & (1ul << 9));
}

/* call_rcu from a thread on every CPU: the callback runs later, in that
 * CPU's rcuc thread with interrupts on, exactly once. */
struct cb_probe {
	struct rcu_head rcu;
	unsigned int queued_on;
	int runs;
	int ran_before_call_rcu_returned;
	int right_context;
	unsigned long gp_at_queue, gp_at_run;
};

static void probe_cb(struct rcu_head *head)
{
	struct cb_probe *p = container_of(head, struct cb_probe, rcu);
	p->right_context = in_rcuc_thread(p->queued_on) && smp_processor_id() == p->queued_on;
	p->gp_at_run = rcu_gp_completed();
	__atomic_fetch_add(&p->runs, 1, __ATOMIC_RELEASE);
}

static int queue_probe(struct test_worker *w)
{
	struct cb_probe *p = (struct cb_probe *)w->crew->ctx + w->cpu;
	p->queued_on = smp_processor_id();
	p->gp_at_queue = rcu_gp_completed();
	call_rcu(&p->rcu, probe_cb);
	p->ran_before_call_rcu_returned = __atomic_load_n(&p->runs, __ATOMIC_ACQUIRE);
	return 0;
}

static void call_rcu_runs_later_in_rcuc(struct kunit *test)
{
	static struct cb_probe probes[NR_CPUS];
	static struct test_crew c;
	unsigned int cpu;
	memset(probes, 0, sizeof(probes));
	KUNIT_EXPECT_EQ(test, test_on_each_cpu(test, &c, queue_probe, probes, 0), 0);
	rcu_barrier();
	for_each_online_cpu(cpu) {
		struct cb_probe *p = &probes[cpu];
		KUNIT_EXPECT_EQ(test, p->queued_on, cpu);
		KUNIT_EXPECT_EQ(test, p->ran_before_call_rcu_returned, 0);
		KUNIT_EXPECT_EQ(test, p->runs, 1);
		KUNIT_EXPECT_TRUE(test, p->right_context);
		/* A whole grace period lay between queueing and running. */
		KUNIT_EXPECT_GT(test, p->gp_at_run, p->gp_at_queue);
	}
}

static void read_lock_nests(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
	rcu_read_lock();
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_held());
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_held());
	rcu_read_unlock();
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
}

/* synchronize_rcu() must not return while a reader that began before it is
 * still inside its section. A crew of two: worker 0 the reader on another
 * CPU, worker 1 the syncer on this one; the reader leaves when the crew is
 * stopped (however the case ends: a reader left spinning would hold its
 * CPU's grace periods up until its hang guard). */
static struct {
	int reader_in, reader_left, sync_started, sync_returned, left_when_returned;
	int reader_gave_up;
} sr;

static void long_reader(struct test_worker *w)
{
	u64 deadline = ktime_get_ns() + KUNIT_HANG_GUARD_NS;
	rcu_read_lock();
	__atomic_store_n(&sr.reader_in, 1, __ATOMIC_RELEASE);
	while (!test_crew_should_stop(w)) {
		if (ktime_get_ns() > deadline) {
			sr.reader_gave_up = 1;
			break;
		}
		cpu_relax(); /* inside the section: no scheduling point */
	}
	__atomic_store_n(&sr.reader_left, 1, __ATOMIC_RELEASE);
	rcu_read_unlock();
}

static void syncer(struct test_worker *w)
{
	while (!__atomic_load_n(&sr.reader_in, __ATOMIC_ACQUIRE) && !test_crew_should_stop(w))
		cond_resched(); /* this CPU is the case's: let it run */
	__atomic_store_n(&sr.sync_started, 1, __ATOMIC_RELEASE);
	synchronize_rcu();
	sr.left_when_returned = __atomic_load_n(&sr.reader_left, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sr.sync_returned, 1, __ATOMIC_RELEASE);
}

static int reader_or_syncer(struct test_worker *w)
{
	if (w->id == 0)
		long_reader(w);
	else
		syncer(w);
	return 0;
}

static void synchronize_rcu_waits_for_a_reader(struct kunit *test)
{
	static struct test_crew c;
	unsigned int cpus[2] = { test_other_cpu(), smp_processor_id() };
	if (cpus[0] == NR_CPUS)
		kunit_skip(test, "needs two CPUs: a reader spinning in its section would hold the only one");
	memset(&sr, 0, sizeof(sr));
	test_crew_start_on(test, &c, reader_or_syncer, NULL, cpus, 2, 2);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(__atomic_load_n(&sr.reader_in, __ATOMIC_ACQUIRE), NULL));
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(__atomic_load_n(&sr.sync_started, __ATOMIC_ACQUIRE), NULL));
	/* Give the grace-period machinery every chance to get it wrong: other
	 * CPUs pass quiescent states meanwhile, the reader's cannot. */
	for (int i = 0; i < 5; i++)
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sr.sync_returned, __ATOMIC_ACQUIRE), 0);
	test_crew_stop(&c); /* the reader leaves */
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	KUNIT_EXPECT_EQ(test, sr.sync_returned, 1);
	KUNIT_EXPECT_EQ(test, sr.left_when_returned, 1);
	KUNIT_EXPECT_EQ(test, sr.reader_gave_up, 0);
}

/* rcu_barrier: callbacks queued from every CPU have all run when it
 * returns. */
#define BARRIER_CBS_PER_CPU 200
struct barrier_batch {
	struct rcu_head heads[BARRIER_CBS_PER_CPU];
	int *invoked;
};
static int barrier_invoked;

static void count_cb(struct rcu_head *head)
{
	(void)head;
	__atomic_fetch_add(&barrier_invoked, 1, __ATOMIC_RELAXED);
}

static int queue_batch(struct test_worker *w)
{
	struct barrier_batch *b = (struct barrier_batch *)w->crew->ctx + w->id;
	for (int i = 0; i < BARRIER_CBS_PER_CPU; i++) {
		call_rcu(&b->heads[i], count_cb);
		if (i % 50 == 49)
			cond_resched();
	}
	return 0;
}

/* However the case ends (after the crew is reaped: this action is older):
 * the callbacks run, then the batches (which hold the rcu_heads) freed. */
static void barrier_and_free(void *b)
{
	rcu_barrier();
	kfree(b);
}

static void rcu_barrier_waits_for_every_callback(struct kunit *test)
{
	static struct test_crew c;
	struct rcu_stats before, after;
	struct barrier_batch *b = kzalloc(NR_CPUS * sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, barrier_and_free, b), 0);
	barrier_invoked = 0;
	rcu_get_stats(&before);
	KUNIT_EXPECT_EQ(test, test_on_each_cpu(test, &c, queue_batch, b, 0), 0);
	unsigned int n = c.n;
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&barrier_invoked, __ATOMIC_RELAXED), (int)(n * BARRIER_CBS_PER_CPU));
	rcu_get_stats(&after);
	/* Ours plus the barrier's own callbacks (one per CPU). */
	KUNIT_EXPECT_EQ(test, after.cbs_queued - before.cbs_queued, n * BARRIER_CBS_PER_CPU + n);
	KUNIT_EXPECT_EQ(test, after.cbs_pending, 0);
	KUNIT_EXPECT_GT(test, after.gp_completed, before.gp_completed);
}

static void grace_period_counters(struct kunit *test)
{
	struct rcu_stats before, after;
	rcu_get_stats(&before);
	synchronize_rcu();
	synchronize_rcu();
	rcu_get_stats(&after);
	/* Each synchronize_rcu needs a grace period that starts after it. */
	KUNIT_EXPECT_GE(test, after.gp_completed, before.gp_completed + 2);
	KUNIT_EXPECT_EQ(test, after.cbs_queued, before.cbs_queued + 2);
	KUNIT_EXPECT_EQ(test, after.cbs_invoked, before.cbs_invoked + 2);
	KUNIT_EXPECT_GT(test, after.gp_max_ns, 0);
	/* No grace period is longer than the time since boot (seen under hostile firmware: a
	 * longest GP of 12,600 s in a 241 s run). */
	KUNIT_EXPECT_LE(test, after.gp_max_ns, ktime_get_ns());
	rcu_print_stats();
}

static void schedule_in_reader_is_a_bug(struct kunit *test)
{
	static char buf[2048];
	struct printk_capture cap;
	struct rcu_stats before, after;
	rcu_get_stats(&before);
	printk_capture_begin(&cap, buf, sizeof(buf));
	rcu_read_lock();
	schedule();
	rcu_read_unlock();
	printk_capture_end(&cap);
	rcu_get_stats(&after);
	KUNIT_EXPECT_GE(test, after.sleep_bugs, before.sleep_bugs + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "BUG: Illegal context switch in RCU read-side critical section"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "init"));
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
}

/* The clock a grace period is timed with must not run backwards from one
 * CPU to the next: a GP starts on one CPU and ends on another (seen under hostile firmware: a
 * 241 s run reported a longest GP of 12,600 s). Each other CPU reads the
 * clock between two reads of this CPU, ordered by flags. */
static int clock_step;
static u64 clock_before, clock_on_other, clock_after;

static bool spin_for_step(int step)
{
	u64 deadline = ktime_get_ns() + KUNIT_HANG_GUARD_NS;
	while (__atomic_load_n(&clock_step, __ATOMIC_ACQUIRE) != step)
		if (ktime_get_ns() > deadline)
			return false;
	return true;
}

/* On the first CPU: read, let the other CPU read, read again. */
static void clock_first(void)
{
	unsigned long flags;
	local_irq_save(flags);
	clock_before = ktime_get_ns();
	__atomic_store_n(&clock_step, 1, __ATOMIC_RELEASE);
	spin_for_step(2);
	clock_after = ktime_get_ns();
	local_irq_restore(flags);
}

static void clock_second(void)
{
	if (spin_for_step(1)) {
		clock_on_other = ktime_get_ns();
		__atomic_store_n(&clock_step, 2, __ATOMIC_RELEASE);
	}
}

/* A crew of two: worker 0 on the first CPU, worker 1 on the other. */
static int clock_pair(struct test_worker *w)
{
	if (w->id == 0)
		clock_first();
	else
		clock_second();
	return 0;
}

static void clock_monotonic_across_cpus(struct kunit *test)
{
	static struct test_crew c;
	unsigned int online[NR_CPUS], n = test_online_cpus(online, false), first = online[0], checked = 0;
	for (unsigned int i = 1; i < n; i++) {
		unsigned int cpu = online[i], pair[2] = { first, cpu };
		__atomic_store_n(&clock_step, 0, __ATOMIC_RELEASE);
		test_crew_start_on(test, &c, clock_pair, NULL, pair, 2, 2);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
		KUNIT_EXPECT_EQ(test, __atomic_load_n(&clock_step, __ATOMIC_ACQUIRE), 2);
		kunit_info(test, "CPU %u: %llu ns <= CPU %u: %llu ns <= CPU %u: %llu ns", first,
			   (unsigned long long)clock_before, cpu, (unsigned long long)clock_on_other,
			   first, (unsigned long long)clock_after);
		KUNIT_EXPECT_LE(test, clock_before, clock_on_other);
		KUNIT_EXPECT_LE(test, clock_on_other, clock_after);
		checked++;
	}
	if (!checked)
		kunit_skip(test, "one CPU online");
}

/* The length of a GP whose end was read on a CPU whose TSC is behind the
 * start's (the unsigned difference wrapped), or ahead by hours (a jump):
 * bounded by the ticks that passed. */
static void gp_duration_bounded_by_ticks(struct kunit *test)
{
	bool anomaly;
	KUNIT_EXPECT_EQ(test, rcu_gp_duration_ns(1000, 4000, 7, 7, &anomaly), 3000);
	KUNIT_EXPECT_FALSE(test, anomaly);
	/* End before start: not 2^64 - 1000 ns. */
	KUNIT_EXPECT_EQ(test, rcu_gp_duration_ns(5000, 4000, 7, 7, &anomaly), 0);
	KUNIT_EXPECT_TRUE(test, anomaly);
	/* 12,600 s by the TSC while 3 ticks passed: at most 5 ticks and 1 s. */
	u64 len = rcu_gp_duration_ns(100, 100 + 12600ull * NSEC_PER_SEC, 50, 53, &anomaly);
	KUNIT_EXPECT_EQ(test, len, 5 * TICK_NSEC + NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE(test, anomaly);
	/* Lost ticks within the slack: taken as measured. */
	KUNIT_EXPECT_EQ(test, rcu_gp_duration_ns(0, NSEC_PER_SEC, 10, 10, &anomaly), NSEC_PER_SEC);
	KUNIT_EXPECT_FALSE(test, anomaly);
}

/* Torture. The callback poisons the object but does not free it (a freed
 * object could be reused and look alive): everything is kfree()d after
 * the run. A reader that ever finds a poisoned or inconsistent object
 * counts an error. */
#define TORTURE_REPLACEMENTS 10000
#define TORTURE_MAGIC_ALIVE 0xa11ce0fa11ce0full
#define TORTURE_POISON 0x6b

struct torture_obj {
	u64 magic;
	u64 seq;
	u64 payload[6];
	/* Not poisoned: */
	int cb_runs;
	struct rcu_head rcu;
};

static struct torture_obj *torture_ptr;
static unsigned long torture_cb_invoked, torture_cb_wrong_context, torture_cb_double;

struct torture_reader {
	unsigned long reads, errors, last_seq_backwards;
};

static bool torture_obj_ok(const struct torture_obj *p)
{
	if (READ_ONCE(p->magic) != TORTURE_MAGIC_ALIVE)
		return false;
	u64 seq = READ_ONCE(p->seq);
	for (int i = 0; i < 6; i++)
		if (READ_ONCE(p->payload[i]) != seq * 7 + (u64)i)
			return false;
	return true;
}

static int torture_reader_fn(struct test_worker *w)
{
	struct torture_reader *r = (struct torture_reader *)w->crew->ctx + w->id;
	u64 last = 0;
	while (!test_crew_should_stop(w)) {
		rcu_read_lock();
		struct torture_obj *p = rcu_dereference(torture_ptr);
		if (p) {
			if (!torture_obj_ok(p))
				r->errors++;
			/* Linger inside, then look again: the object must still
			 * be intact. (Not cpu_relax: TCG makes pause costly.) */
			for (volatile int i = 0; i < 200; i++)
				;
			if (!torture_obj_ok(p))
				r->errors++;
			u64 seq = READ_ONCE(p->seq);
			if (seq < last)
				r->last_seq_backwards++;
			last = seq;
		}
		rcu_read_unlock();
		r->reads++;
		cond_resched();
	}
	return 0;
}

static void torture_cb(struct rcu_head *head)
{
	struct torture_obj *p = container_of(head, struct torture_obj, rcu);
	if (__atomic_fetch_add(&p->cb_runs, 1, __ATOMIC_RELAXED) != 0)
		torture_cb_double++;
	if (strncmp(current->comm, "rcuc/", 5) || !(read_rflags() & (1ul << 9)))
		torture_cb_wrong_context++;
	memset(p, TORTURE_POISON, offsetof(struct torture_obj, cb_runs));
	__atomic_fetch_add(&torture_cb_invoked, 1, __ATOMIC_RELAXED);
}

static struct torture_obj *torture_new(u64 seq)
{
	struct torture_obj *p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	p->seq = seq;
	for (int i = 0; i < 6; i++)
		p->payload[i] = seq * 7 + (u64)i;
	p->cb_runs = 0;
	p->magic = TORTURE_MAGIC_ALIVE;
	return p;
}

static void torture_readers_and_writer(struct kunit *test)
{
	static struct torture_reader readers[NR_CPUS];
	static struct test_crew c;
	struct rcu_stats before, after;
	struct torture_obj **objs = kzalloc((TORTURE_REPLACEMENTS + 1) * sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	memset(readers, 0, sizeof(readers));
	torture_cb_invoked = torture_cb_wrong_context = torture_cb_double = 0;
	rcu_get_stats(&before);

	objs[0] = torture_new(0);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	rcu_assign_pointer(torture_ptr, objs[0]);
	test_crew_start(test, &c, torture_reader_fn, readers, 0, 0);

	/* Every reader is reading before the writer starts (ordered by the
	 * readers' own counts, not by timing). */
	for (unsigned int i = 0; i < c.n; i++)
		KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(READ_ONCE(readers[i].reads), NULL));

	unsigned int done = 0;
	for (unsigned int i = 1; i <= TORTURE_REPLACEMENTS; i++) {
		struct torture_obj *p = torture_new(i);
		if (!p)
			break;
		objs[i] = p;
		struct torture_obj *old = torture_ptr;
		rcu_assign_pointer(torture_ptr, p);
		call_rcu(&old->rcu, torture_cb);
		done = i;
		if (i % 8 == 0)
			cond_resched();
	}

	test_crew_stop(&c);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	rcu_barrier();
	rcu_get_stats(&after);

	KUNIT_EXPECT_EQ(test, done, TORTURE_REPLACEMENTS);
	unsigned long reads = 0, errors = 0, backwards = 0;
	for (unsigned int i = 0; i < c.n; i++) {
		reads += readers[i].reads;
		errors += readers[i].errors;
		backwards += readers[i].last_seq_backwards;
		KUNIT_EXPECT_GT(test, readers[i].reads, 0);
	}
	KUNIT_EXPECT_EQ(test, errors, 0);
	KUNIT_EXPECT_EQ(test, backwards, 0);
	KUNIT_EXPECT_EQ(test, torture_cb_invoked, done);
	KUNIT_EXPECT_EQ(test, torture_cb_double, 0);
	KUNIT_EXPECT_EQ(test, torture_cb_wrong_context, 0);
	unsigned long wrong_runs = 0;
	for (unsigned int i = 0; i < done; i++)
		wrong_runs += objs[i]->cb_runs != 1;
	KUNIT_EXPECT_EQ(test, wrong_runs, 0);
	KUNIT_EXPECT_EQ(test, objs[done]->cb_runs, 0); /* still published */
	KUNIT_EXPECT_GE(test, after.cbs_queued - before.cbs_queued, done);
	KUNIT_EXPECT_EQ(test, after.cbs_pending, 0);
	kunit_info(test, "%u replacements, %lu reads on %u CPUs, %lu grace periods, longest %lu us",
		   done, reads, num_online_cpus(), after.gp_completed - before.gp_completed,
		   (unsigned long)(after.gp_max_ns / 1000));

	rcu_assign_pointer(torture_ptr, NULL);
	for (unsigned int i = 0; i <= done; i++)
		kfree(objs[i]);
	kfree(objs);
}

static struct kunit_case rcu_cases[] = {
	KUNIT_CASE(read_lock_nests),
	KUNIT_CASE(call_rcu_runs_later_in_rcuc),
	KUNIT_CASE(grace_period_counters),
	KUNIT_CASE(clock_monotonic_across_cpus),
	KUNIT_CASE(gp_duration_bounded_by_ticks),
	KUNIT_CASE(synchronize_rcu_waits_for_a_reader),
	KUNIT_CASE(rcu_barrier_waits_for_every_callback),
	KUNIT_CASE(schedule_in_reader_is_a_bug),
	KUNIT_CASE(torture_readers_and_writer),
	{}
};
static struct kunit_suite rcu_suite = { .name = "rcu", .test_cases = rcu_cases };
kunit_test_suite(rcu_suite);
