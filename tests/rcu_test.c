/* RCU: callbacks after a grace period in rcuc/N, synchronize_rcu against a
 * reader that is still inside its section, rcu_barrier, the BUG report
 * for a context switch inside a reader, and a torture run (readers on every
 * CPU, a writer replacing the object they read 10,000 times).
 *
 * Order between threads comes from flags and completions, never from
 * elapsed time; clocks only bound waits as hang guards (reported as
 * failures). Threads record what they saw and the case checks it after
 * joining them (a thread must not KUNIT_ASSERT: that would longjmp off its
 * stack). Every object and thread is freed before the case returns. */
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

#define HANG_GUARD_NS 20000000000ull /* 20 s */

static bool wait_for_flag(const int *flag)
{
	u64 deadline = ktime_get_ns() + HANG_GUARD_NS;
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (ktime_get_ns() > deadline)
			return false;
		schedule_timeout_uninterruptible(1);
	}
	return true;
}

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

static int queue_probe(void *arg)
{
	struct cb_probe *p = arg;
	p->queued_on = smp_processor_id();
	p->gp_at_queue = rcu_gp_completed();
	call_rcu(&p->rcu, probe_cb);
	p->ran_before_call_rcu_returned = __atomic_load_n(&p->runs, __ATOMIC_ACQUIRE);
	return 0;
}

static void call_rcu_runs_later_in_rcuc(struct kunit *test)
{
	static struct cb_probe probes[NR_CPUS];
	unsigned int cpu;
	memset(probes, 0, sizeof(probes));
	for_each_online_cpu(cpu) {
		struct task_struct *t = kthread_run_on_cpu(queue_probe, &probes[cpu], cpu, "rcu_probe/%u");
		KUNIT_ASSERT_NOT_NULL(test, t);
		kthread_join(t);
	}
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
 * still inside its section. */
static struct {
	int reader_in, may_leave, reader_left, sync_started, sync_returned, left_when_returned;
	int reader_gave_up;
} sr;

static int long_reader(void *unused)
{
	(void)unused;
	u64 deadline = ktime_get_ns() + HANG_GUARD_NS;
	rcu_read_lock();
	__atomic_store_n(&sr.reader_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sr.may_leave, __ATOMIC_ACQUIRE)) {
		if (ktime_get_ns() > deadline) {
			sr.reader_gave_up = 1;
			break;
		}
		cpu_relax(); /* inside the section: no scheduling point */
	}
	__atomic_store_n(&sr.reader_left, 1, __ATOMIC_RELEASE);
	rcu_read_unlock();
	return 0;
}

static int syncer(void *unused)
{
	(void)unused;
	__atomic_store_n(&sr.sync_started, 1, __ATOMIC_RELEASE);
	synchronize_rcu();
	sr.left_when_returned = __atomic_load_n(&sr.reader_left, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sr.sync_returned, 1, __ATOMIC_RELEASE);
	return 0;
}

static struct task_struct *sr_reader, *sr_syncer;

/* However the case ends: the reader leaves its section and both threads
 * are joined (a reader left spinning would hold its CPU's grace periods
 * up until its hang guard). */
static void release_reader_and_syncer(void *unused)
{
	(void)unused;
	__atomic_store_n(&sr.may_leave, 1, __ATOMIC_RELEASE);
	if (sr_syncer)
		kthread_join(sr_syncer);
	if (sr_reader)
		kthread_join(sr_reader);
	sr_reader = sr_syncer = NULL;
}

static void synchronize_rcu_waits_for_a_reader(struct kunit *test)
{
	unsigned int me = smp_processor_id(), cpu, reader_cpu = NR_CPUS;
	for_each_online_cpu(cpu)
		if (cpu != me && reader_cpu == NR_CPUS)
			reader_cpu = cpu;
	if (reader_cpu == NR_CPUS)
		kunit_skip(test, "needs two CPUs: a reader spinning in its section would hold the only one");
	memset(&sr, 0, sizeof(sr));
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, release_reader_and_syncer, NULL), 0);
	sr_reader = kthread_run_on_cpu(long_reader, NULL, reader_cpu, "rcu_reader/%u");
	KUNIT_ASSERT_NOT_NULL(test, sr_reader);
	KUNIT_EXPECT_TRUE(test, wait_for_flag(&sr.reader_in));
	sr_syncer = kthread_run_on_cpu(syncer, NULL, me, "rcu_syncer/%u");
	KUNIT_ASSERT_NOT_NULL(test, sr_syncer);
	KUNIT_EXPECT_TRUE(test, wait_for_flag(&sr.sync_started));
	/* Give the grace-period machinery every chance to get it wrong: other
	 * CPUs pass quiescent states meanwhile, the reader's cannot. */
	for (int i = 0; i < 5; i++)
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sr.sync_returned, __ATOMIC_ACQUIRE), 0);
	kunit_release_action(test, release_reader_and_syncer, NULL);
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

static int queue_batch(void *arg)
{
	struct barrier_batch *b = arg;
	for (int i = 0; i < BARRIER_CBS_PER_CPU; i++) {
		call_rcu(&b->heads[i], count_cb);
		if (i % 50 == 49)
			cond_resched();
	}
	return 0;
}

static struct task_struct *batch_threads[NR_CPUS];

/* However the case ends: the queueing threads joined, their callbacks run,
 * then the batches (which hold the rcu_heads) freed. */
static void join_batches_and_free(void *b)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (batch_threads[cpu])
			kthread_join(batch_threads[cpu]);
		batch_threads[cpu] = NULL;
	}
	rcu_barrier();
	kfree(b);
}

static void rcu_barrier_waits_for_every_callback(struct kunit *test)
{
	unsigned int cpu, n = 0;
	struct rcu_stats before, after;
	struct barrier_batch *b = kzalloc(NR_CPUS * sizeof(*b), GFP_KERNEL);
	struct task_struct **t = batch_threads;
	KUNIT_ASSERT_NOT_NULL(test, b);
	memset(batch_threads, 0, sizeof(batch_threads));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, join_batches_and_free, b), 0);
	barrier_invoked = 0;
	rcu_get_stats(&before);
	for_each_online_cpu(cpu) {
		t[cpu] = kthread_run_on_cpu(queue_batch, &b[cpu], cpu, "rcu_batch/%u");
		KUNIT_ASSERT_NOT_NULL(test, t[cpu]);
		n++;
	}
	for_each_online_cpu(cpu) {
		kthread_join(t[cpu]);
		t[cpu] = NULL;
	}
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
	/* No grace period is longer than the time since boot (issue 15: a
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
 * CPU to the next: a GP starts on one CPU and ends on another (issue 15: a
 * 241 s run reported a longest GP of 12,600 s). Each other CPU reads the
 * clock between two reads of this CPU, ordered by flags. */
static int clock_step;
static u64 clock_before, clock_on_other, clock_after;

static bool spin_for_step(int step)
{
	u64 deadline = ktime_get_ns() + HANG_GUARD_NS;
	while (__atomic_load_n(&clock_step, __ATOMIC_ACQUIRE) != step)
		if (ktime_get_ns() > deadline)
			return false;
	return true;
}

/* On the first CPU: read, let the other CPU read, read again. */
static int clock_first(void *arg)
{
	(void)arg;
	unsigned long flags;
	local_irq_save(flags);
	clock_before = ktime_get_ns();
	__atomic_store_n(&clock_step, 1, __ATOMIC_RELEASE);
	spin_for_step(2);
	clock_after = ktime_get_ns();
	local_irq_restore(flags);
	return 0;
}

static int clock_second(void *arg)
{
	(void)arg;
	if (spin_for_step(1)) {
		clock_on_other = ktime_get_ns();
		__atomic_store_n(&clock_step, 2, __ATOMIC_RELEASE);
	}
	return 0;
}

static void clock_monotonic_across_cpus(struct kunit *test)
{
	unsigned int cpu, first = ~0u, checked = 0;
	for_each_online_cpu(cpu) {
		if (first == ~0u) {
			first = cpu;
			continue;
		}
		__atomic_store_n(&clock_step, 0, __ATOMIC_RELEASE);
		struct task_struct *b = kthread_run_on_cpu(clock_second, NULL, cpu, "clk/%u");
		KUNIT_ASSERT_NOT_NULL(test, b);
		struct task_struct *a = kthread_run_on_cpu(clock_first, NULL, first, "clk/%u");
		if (!a)
			__atomic_store_n(&clock_step, 1, __ATOMIC_RELEASE); /* let b end */
		kthread_join(b);
		KUNIT_ASSERT_NOT_NULL(test, a);
		kthread_join(a);
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
static int torture_stop;
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

static int torture_reader_fn(void *arg)
{
	struct torture_reader *r = arg;
	u64 last = 0;
	while (!__atomic_load_n(&torture_stop, __ATOMIC_ACQUIRE)) {
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
	static struct task_struct *t[NR_CPUS];
	unsigned int cpu;
	struct rcu_stats before, after;
	struct torture_obj **objs = kzalloc((TORTURE_REPLACEMENTS + 1) * sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	memset(readers, 0, sizeof(readers));
	torture_stop = 0;
	torture_cb_invoked = torture_cb_wrong_context = torture_cb_double = 0;
	rcu_get_stats(&before);

	objs[0] = torture_new(0);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	rcu_assign_pointer(torture_ptr, objs[0]);
	for_each_online_cpu(cpu) {
		t[cpu] = kthread_run_on_cpu(torture_reader_fn, &readers[cpu], cpu, "rcu_torture/%u");
		KUNIT_EXPECT_NOT_NULL(test, t[cpu]);
	}

	/* Every reader is reading before the writer starts (ordered by the
	 * readers' own counts, not by timing; the deadline is a hang guard). */
	u64 deadline = ktime_get_ns() + 20000000000ull;
	for_each_online_cpu(cpu)
		while (t[cpu] && !READ_ONCE(readers[cpu].reads) && ktime_get_ns() < deadline)
			cond_resched();

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

	__atomic_store_n(&torture_stop, 1, __ATOMIC_RELEASE);
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_stop(t[cpu]);
	rcu_barrier();
	rcu_get_stats(&after);

	KUNIT_EXPECT_EQ(test, done, TORTURE_REPLACEMENTS);
	unsigned long reads = 0, errors = 0, backwards = 0;
	for_each_online_cpu(cpu) {
		reads += readers[cpu].reads;
		errors += readers[cpu].errors;
		backwards += readers[cpu].last_seq_backwards;
		KUNIT_EXPECT_GT(test, readers[cpu].reads, 0);
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
