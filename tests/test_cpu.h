/* Other CPUs for a test case: another CPU to run on, a CPU held busy, and
 * a crew of kernel threads, one per online CPU, that start their work
 * together and are waited for with a hang guard.
 *
 * Timing never decides a case: a wait here ends when what it waits for
 * happens, or fails the case after KUNIT_HANG_GUARD_NS in which nothing
 * moved. The waiting thread sleeps a tick at a time, so a thread bound to
 * its own CPU runs too (the kernel is not preemptible). What a case starts
 * here is stopped and reaped by a deferred action however the case ends. */
#ifndef TESTS_TEST_CPU_H
#define TESTS_TEST_CPU_H

#include "tests/kunit.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/topology.h"
#include "arch/x86_64/cpu.h"

struct task_struct;

/* Some online CPU other than this one; NR_CPUS when this is the only one. */
unsigned test_other_cpu(void);
/* The same, but this CPU when it is the only one (for work that may share
 * the case's CPU, since the case sleeps while it waits). */
unsigned test_other_cpu_or_this(void);
/* The i-th online CPU other than this one, counting round (so that any i
 * names one); this CPU when it is the only one. */
unsigned test_nth_other_cpu_or_this(unsigned i);
/* Fills cpus with the online CPUs (all, or all but this one) in order;
 * returns how many. */
unsigned test_online_cpus(unsigned cpus[NR_CPUS], bool but_this);

/* Occupies cpu with a kernel thread that spins until released, so that
 * nothing queued there runs meanwhile; returns once the thread spins. The
 * hold ends at test_release_cpu() or when the case ends. */
void test_hold_cpu(struct kunit *test, unsigned cpu);
void test_release_cpu(struct kunit *test, unsigned cpu);

/* A crew: fn runs in n kernel threads, worker i bound to the i-th CPU of
 * those chosen (round robin when there are more workers than CPUs), all
 * starting fn together once every one is up. fn returns nonzero for an
 * error, and bumps progress (test_crew_progress) as it goes, which is
 * what the hang guard watches. A crew must outlive the case function (a
 * static): its cleanup action refers to it. */
struct test_crew;
struct test_worker {
	struct test_crew *crew;
	unsigned id;  /* 0 .. crew->n - 1 */
	unsigned cpu;
	struct task_struct *task;
	unsigned long steps; /* test_crew_progress calls by this worker */
};
#define TEST_CREW_MAX (2 * NR_CPUS)
struct test_crew {
	unsigned n;
	struct test_worker w[TEST_CREW_MAX];
	volatile unsigned long ready, done, progress, errors;
	volatile unsigned long stop;            /* test_crew_stop, or the case ended */
	volatile unsigned long arrived, phase;  /* test_crew_barrier */
	int (*fn)(struct test_worker *w);
	void *ctx;   /* the case's, for fn */
	bool aborted; /* a worker could not be made: the others skip fn */
};

/* test_crew_start's flags. */
#define TEST_CREW_OTHER_CPUS 0x1 /* not on the case's CPU (ASSERTs that there is another) */
#define TEST_CREW_OTHER_CPUS_OR_THIS 0x2 /* the same, but on this CPU when it is the only one */

/* Starts a crew of n workers (0: one per chosen CPU) running fn with ctx,
 * on every online CPU (or every other one, TEST_CREW_OTHER_CPUS); ASSERTs
 * that each worker was made. */
void test_crew_start(struct kunit *test, struct test_crew *c, int (*fn)(struct test_worker *w),
		     void *ctx, unsigned n, unsigned flags);
/* The same on the CPUs the case names: worker i on cpus[i % ncpus] (a
 * CPU may be named more than once). */
void test_crew_start_on(struct kunit *test, struct test_crew *c, int (*fn)(struct test_worker *w),
			void *ctx, const unsigned *cpus, unsigned ncpus, unsigned n);
/* Waits for every worker to return from fn, failing the case (an
 * expectation) if they stop making progress for KUNIT_HANG_GUARD_NS:
 * for a case that must wake sleeping workers (a deferred action of its
 * own) before they are reaped. */
void test_crew_wait(struct kunit *test, struct test_crew *c);
/* test_crew_wait, and then reaps them (failing the case if they stop making progress
 * for KUNIT_HANG_GUARD_NS), reaps them and returns how many reported an
 * error. The cleanup does the same, after raising the stop
 * flag, however the case ends. */
unsigned long test_crew_finish(struct kunit *test, struct test_crew *c);
/* Starts a crew and finishes it: fn on every online CPU (n workers, 0:
 * one per CPU); the number of workers that reported an error. */
unsigned long test_on_each_cpu(struct kunit *test, struct test_crew *c, int (*fn)(struct test_worker *w),
			       void *ctx, unsigned n);
static inline void test_crew_progress(struct test_worker *w)
{
	__atomic_add_fetch(&w->crew->progress, 1, __ATOMIC_RELAXED);
	/* A PAUSE every few steps. QEMU's single-threaded TCG runs one vCPU
	 * at a time and passes to the next at a PAUSE or when a timer kicks
	 * it (every few milliseconds): a worker that never pauses keeps the
	 * case's CPU, which waits for its progress, from running for a whole
	 * slice, and the vCPUs interleave less often. On hardware it costs
	 * a few cycles. */
	if (++w->steps % 16 == 0)
		cpu_relax();
}
/* For workers that run until told: test_crew_stop tells them, and so does
 * the crew's cleanup, before it waits for them, however the case ends. */
static inline void test_crew_stop(struct test_crew *c)
{
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
}
static inline bool test_crew_should_stop(struct test_worker *w)
{
	return __atomic_load_n(&w->crew->stop, __ATOMIC_ACQUIRE);
}
/* Waits (cond_resched, so that a worker sharing a CPU with the case's
 * task or another worker lets it run) until every worker of the crew has
 * reached this call as often as this one has. Every worker must call it
 * equally often, or the others wait until the crew is stopped. */
void test_crew_barrier(struct test_worker *w);

/* Waits until cond holds; false only after KUNIT_HANG_GUARD_NS in which
 * *progress (NULL: nothing) did not move. For its first TEST_WAIT_SPIN_NS
 * it lets this CPU's other tasks run (cond_resched: a worker placed beside
 * the case runs to its own next cond_resched) or, with none, PAUSEs
 * between checks; then it sleeps TEST_WAIT_SPIN_NS at a time (a timer
 * event between ticks; a tick with highres=off). Most waits are short
 * (a worker's next few steps): a tick's sleep for each, 10 ms, was most of
 * the time of the stress cases. Under QEMU's single-threaded TCG a PAUSE
 * hands the host thread to the other vCPUs; with a thread per vCPU the
 * spin costs the host at most a millisecond per wait, and a wait that
 * lasts sleeps, leaving the host's CPU to the other vCPUs. */
#define TEST_WAIT_SPIN_NS 1000000ull
#define TEST_WAIT_UNTIL(cond, progress)                                                      \
	({                                                                                   \
		const volatile unsigned long *__p = (progress);                              \
		unsigned long __seen = __p ? *__p : 0;                                       \
		u64 __deadline = ktime_get_ns() + KUNIT_HANG_GUARD_NS;                       \
		bool __ok = true;                                                            \
		u64 __spin_end = ktime_get_ns() + TEST_WAIT_SPIN_NS;                         \
		while (!(cond)) {                                                            \
			unsigned long __now = __p ? *__p : 0;                                \
			if (__now != __seen) {                                               \
				__seen = __now;                                              \
				__deadline = ktime_get_ns() + KUNIT_HANG_GUARD_NS;           \
			} else if (ktime_get_ns() > __deadline) {                            \
				__ok = false;                                                \
				break;                                                       \
			}                                                                    \
			if (ktime_get_ns() < __spin_end) {                                   \
				if (!cond_resched())                                         \
					cpu_relax();                                         \
			} else {                                                             \
				set_current_state(TASK_UNINTERRUPTIBLE);                     \
				schedule_hrtimeout(ktime_get_ns() + TEST_WAIT_SPIN_NS);      \
			}                                                                    \
		}                                                                            \
		__ok;                                                                        \
	})

/* The tasks queued on sem, waiting for it (under its wait_lock). */
struct rw_semaphore;
unsigned test_rwsem_waiters(struct rw_semaphore *sem);

#endif
