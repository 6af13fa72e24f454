/* PSI triggers (kernel/psi_trigger.c): Linux 6.1's checks of a trigger's
 * arguments, and one on memory SOME firing once this task stalls, seen
 * by poll() once. */
#include "arch/x86_64/cpu.h"
#include "fs/poll.h"
#include "kernel/psi.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "tests/kunit.h"

#define STATE(s) (1u << (s))

/* Linux 6.1's psi_trigger_create checks. */
static void trigger_arguments_checked(struct kunit *test)
{
	static const char *bad[] = {
		"", "some", "some 1", "middle 1 1000000", "some 0 1000000", "some 1000001 1000000",
		"some 1 499999", "some 1 10000001", "full -1 1000000", "some 4294967296 1000000",
	};
	int err = 0;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct psi_trigger *t = psi_trigger_create(&psi_system, bad[i], PSI_MEM, &err);
		KUNIT_EXPECT_TRUE(test, t == NULL);
		KUNIT_EXPECT_EQ(test, err, -EINVAL);
		if (t)
			psi_trigger_destroy(t);
	}
	/* cpu's full is a state of its own (zero for the system) and may be
	 * watched, as Linux allows; the edges of the window range are in. */
	static const char *good[] = { "some 150000 1000000", "full 500000 500000", "some 1 10000000\n" };
	static const enum psi_states want[] = { PSI_MEM_SOME, PSI_MEM_FULL, PSI_MEM_SOME };
	for (unsigned i = 0; i < 3; i++) {
		struct psi_trigger *t = psi_trigger_create(&psi_system, good[i], PSI_MEM, &err);
		KUNIT_EXPECT_TRUE(test, t != NULL);
		if (!t)
			continue;
		KUNIT_EXPECT_EQ(test, err, 0);
		KUNIT_EXPECT_EQ(test, (int)t->state, (int)want[i]);
		KUNIT_EXPECT_TRUE(test, psi_system.poll_states & STATE(want[i]));
		KUNIT_EXPECT_EQ(test, psi_system.poll_min_period, t->win.size / 10);
		psi_trigger_destroy(t);
	}
	struct psi_trigger *t = psi_trigger_create(&psi_system, "full 1 1000000", PSI_CPU, &err);
	KUNIT_EXPECT_TRUE(test, t && t->state == PSI_CPU_FULL);
	psi_trigger_destroy(t);
	KUNIT_EXPECT_EQ(test, psi_system.poll_states, 0u);
}

/* A trigger on memory SOME with a threshold of 1 us fires once this task
 * stalls; poll() sees POLLPRI once. The wait is for the tick to run the
 * poll, bounded only to turn a hang into a failure. */
static void trigger_fires_on_a_stall(struct kunit *test)
{
	if (!psi_enable)
		kunit_skip(test, "booted with psi=0");
	int err;
	struct psi_trigger *t = psi_trigger_create(&psi_system, "some 1 500000", PSI_MEM, &err);
	KUNIT_ASSERT_TRUE(test, t != NULL);
	KUNIT_EXPECT_EQ(test, psi_trigger_poll(t, NULL, NULL) & EPOLLPRI, 0u);
	unsigned long pflags;
	psi_memstall_enter(&pflags);
	u64 until = jiffies + 3;
	while (READ_ONCE(jiffies) < until)
		cpu_relax();
	psi_memstall_leave(&pflags);
	u64 give_up = jiffies + 10 * HZ;
	while (!__atomic_load_n(&t->event, __ATOMIC_ACQUIRE) && jiffies < give_up)
		schedule_timeout_uninterruptible(1);
	bool fired = psi_trigger_poll(t, NULL, NULL) & EPOLLPRI;
	KUNIT_EXPECT_TRUE(test, fired);
	if (!fired)
		kunit_info(test, "poll_scheduled %d due %llu (jiffies %llu) until %llu next %llu now %llu total %llu "
			   "win start %llu in_memstall %d", psi_system.poll_scheduled,
			   (unsigned long long)psi_system.poll_work_due, (unsigned long long)jiffies,
			   (unsigned long long)psi_system.polling_until,
			   (unsigned long long)psi_system.polling_next_update, (unsigned long long)ktime_get_ns(),
			   (unsigned long long)psi_system.total[PSI_POLL][PSI_MEM_SOME],
			   (unsigned long long)t->win.start_value, current->in_memstall);
	KUNIT_EXPECT_EQ(test, psi_trigger_poll(t, NULL, NULL) & EPOLLPRI, 0u); /* seen once */
	psi_trigger_destroy(t);
	KUNIT_EXPECT_EQ(test, psi_trigger_poll(NULL, NULL, NULL), DEFAULT_POLLMASK | EPOLLERR | EPOLLPRI);
	KUNIT_EXPECT_EQ(test, psi_system.poll_states, 0u);
}

static struct kunit_case psi_trigger_cases[] = {
	KUNIT_CASE(trigger_arguments_checked),
	KUNIT_CASE(trigger_fires_on_a_stall),
	{}
};

static struct kunit_suite psi_trigger_suite = { .name = "psi_trigger", .test_cases = psi_trigger_cases };
kunit_test_suite(psi_trigger_suite);
