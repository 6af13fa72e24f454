/* Sleeps between ticks: schedule_hrtimeout and the one-shot APIC timer of
 * high-resolution mode (kernel/time.c), held beside the periodic mode
 * that highres=off keeps (the boot-options machine boots so).
 *
 * Nothing here decides by elapsed time: a sleep is checked never to end
 * before its expiry (a lower bound), a wakeup to end it early with -EINTR,
 * and the timer to be armed for the earliest sleeper, read back from the
 * CPU's own record of it. */
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "tests/kunit.h"

static void hrtimeout_never_ends_early(struct kunit *test)
{
	/* Sleeps shorter than a tick and longer, each at least its length. */
	for (int i = 1; i <= 12; i++) {
		u64 expires = ktime_get_ns() + (u64)i * i * 97000;
		set_current_state(TASK_UNINTERRUPTIBLE);
		KUNIT_EXPECT_EQ(test, schedule_hrtimeout(expires), 0);
		KUNIT_EXPECT_GE(test, ktime_get_ns(), expires);
		KUNIT_EXPECT_EQ(test, current->__state, TASK_RUNNING);
	}
	/* An expiry already past does not sleep. */
	set_current_state(TASK_UNINTERRUPTIBLE);
	KUNIT_EXPECT_EQ(test, schedule_hrtimeout(ktime_get_ns() - 1), 0);
	KUNIT_EXPECT_EQ(test, current->__state, TASK_RUNNING);
}

static struct task_struct *sleeper;

static int wake_the_sleeper(void *unused)
{
	(void)unused;
	/* Until it sleeps: a wakeup before its schedule() finds it still
	 * running, and then it would sleep on to its expiry. */
	while (READ_ONCE(sleeper->__state) == TASK_RUNNING)
		cond_resched();
	wake_up_process(sleeper);
	return 0;
}

static void hrtimeout_woken_early_says_so(struct kunit *test)
{
	sleeper = current;
	/* The expiry is a hang guard only (a minute): the wakeup ends it. */
	struct task_struct *k = kthread_create(wake_the_sleeper, NULL, "hrtimer-waker");
	KUNIT_ASSERT_NOT_NULL(test, k);
	u64 expires = ktime_get_ns() + 60 * NSEC_PER_SEC;
	set_current_state(TASK_UNINTERRUPTIBLE);
	wake_up_process(k);
	KUNIT_EXPECT_EQ(test, schedule_hrtimeout(expires), -EINTR);
	KUNIT_EXPECT_LT(test, ktime_get_ns(), expires);
	kthread_join(k);
	/* The timer left the CPU's list: a later sleep is not woken by it. */
	u64 again = ktime_get_ns() + 200000;
	set_current_state(TASK_UNINTERRUPTIBLE);
	KUNIT_EXPECT_EQ(test, schedule_hrtimeout(again), 0);
	KUNIT_EXPECT_GE(test, ktime_get_ns(), again);
}

static void timer_armed_for_the_earliest_sleeper(struct kunit *test)
{
	if (!hrtimer_hres_active)
		kunit_skip(test, "booted with highres=off: the timer is periodic");
	unsigned long flags;
	local_irq_save(flags);
	u64 now = ktime_get_ns();
	/* Never later than the next tick. */
	u64 armed = tick_next_event();
	KUNIT_EXPECT_LE(test, armed, now + TICK_NSEC);
	/* An earlier expiry re-arms it; a later one leaves it. */
	u64 soon = now + 30000;
	if (soon < armed) {
		tick_program_event(soon);
		KUNIT_EXPECT_EQ(test, tick_next_event(), soon);
		tick_program_event(soon + 10000);
		KUNIT_EXPECT_EQ(test, tick_next_event(), soon);
	}
	local_irq_restore(flags);
	/* The interrupt it fires finds nothing due and arms the tick again. */
	u64 until = ktime_get_ns() + 100000;
	set_current_state(TASK_UNINTERRUPTIBLE);
	KUNIT_EXPECT_EQ(test, schedule_hrtimeout(until), 0);
	local_irq_save(flags);
	KUNIT_EXPECT_LE(test, tick_next_event(), ktime_get_ns() + TICK_NSEC);
	local_irq_restore(flags);
}

static struct kunit_case hrtimer_cases[] = {
	KUNIT_CASE(hrtimeout_never_ends_early),
	KUNIT_CASE(hrtimeout_woken_early_says_so),
	KUNIT_CASE(timer_armed_for_the_earliest_sleeper),
	{}
};
static struct kunit_suite hrtimer_suite = { .name = "hrtimer", .test_cases = hrtimer_cases };
kunit_test_suite(hrtimer_suite);
