/* Tests of the test framework itself: each runs an inner test case with the
 * console captured and checks what the framework decided and printed. This is
 * how we know that a failing assertion fails, that ASSERT stops a case, that
 * a CPU exception in a case is caught and the run goes on. */
#include "kernel/printk.h"
#include "mm/page_alloc.h"
#include "kernel/rcu.h"
#include "lib/string.h"
#include "tests/kunit.h"

static char captured[8192];
static bool reached_after;
static volatile int sink; /* keeps faulting loads and divisions alive */

static struct kunit inner; /* the last inner case run, for its skip reason */

static enum kunit_status run_inner(void (*fn)(struct kunit *), const char *name)
{
	struct kunit_case c = { .run_case = fn, .name = name };
	struct printk_capture cap;

	reached_after = false;
	printk_capture_begin(&cap, captured, sizeof(captured));
	enum kunit_status st = kunit_run_case(NULL, &c, &inner);
	printk_capture_end(&cap);
	return st;
}

#define EXPECT_CAPTURED(test, text)                                                      \
	do {                                                                             \
		if (!strstr(captured, text))                                             \
			kunit_fail(test, false, __FILE__, __LINE__,                      \
				   "Expected the output to contain \"%s\"; it was:\n%s", \
				   text, captured);                                        \
	} while (0)

static void inner_all_pass(struct kunit *test)
{
	int x = 5;
	const char *s = "abc";
	char a[4] = "xyz", b[4] = "xyz";
	KUNIT_EXPECT_TRUE(test, x == 5);
	KUNIT_EXPECT_FALSE(test, x == 6);
	KUNIT_EXPECT_EQ(test, x, 5);
	KUNIT_EXPECT_NE(test, x, 4);
	KUNIT_EXPECT_LT(test, x, 6);
	KUNIT_EXPECT_LE(test, x, 5);
	KUNIT_EXPECT_GT(test, x, 4);
	KUNIT_EXPECT_GE(test, x, 5);
	KUNIT_EXPECT_EQ(test, (u64)-1, UINT64_MAX); /* no sign confusion */
	KUNIT_EXPECT_LT(test, -1, 1u);              /* compared by value */
	KUNIT_EXPECT_PTR_EQ(test, s, s);
	KUNIT_EXPECT_PTR_NE(test, s, a);
	KUNIT_EXPECT_NULL(test, NULL);
	KUNIT_EXPECT_NOT_NULL(test, s);
	KUNIT_EXPECT_STREQ(test, s, "abc");
	KUNIT_EXPECT_STRNEQ(test, s, "abd");
	KUNIT_EXPECT_MEMEQ(test, a, b, sizeof(a));
	KUNIT_ASSERT_EQ(test, x, 5);
	reached_after = true;
}

static void passing_case(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_all_pass, "inner_all_pass"), KUNIT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, reached_after);
	KUNIT_EXPECT_EQ(test, strlen(captured), 0);
}

static void inner_expect_eq(struct kunit *test)
{
	int two = 2;
	KUNIT_EXPECT_EQ(test, two, 3);
	reached_after = true;
}

static void expect_failure_reports_both_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_expect_eq, "inner_expect_eq"), KUNIT_FAILURE);
	KUNIT_EXPECT_TRUE(test, reached_after); /* EXPECT records and goes on */
	EXPECT_CAPTURED(test, "inner_expect_eq: EXPECTATION FAILED at tests/kunit_selftest.c:");
	EXPECT_CAPTURED(test, "Expected two == 3, but");
	EXPECT_CAPTURED(test, "two == 2 (0x2)");
	EXPECT_CAPTURED(test, "3 == 3 (0x3)");
}

static void inner_assert(struct kunit *test)
{
	KUNIT_ASSERT_GT(test, 1, 2);
	reached_after = true;
}

static void assert_failure_stops_the_case(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_assert, "inner_assert"), KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, reached_after);
	EXPECT_CAPTURED(test, "ASSERTION FAILED at tests/kunit_selftest.c:");
	EXPECT_CAPTURED(test, "Expected 1 > 2, but");
}

static void inner_str(struct kunit *test) { KUNIT_EXPECT_STREQ(test, "left", "right"); }
static void inner_mem(struct kunit *test)
{
	u8 a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 };
	KUNIT_EXPECT_MEMEQ(test, a, b, 3);
}
static void inner_ptr(struct kunit *test)
{
	static int x;
	KUNIT_EXPECT_NULL(test, &x);
}
static void inner_bool(struct kunit *test) { KUNIT_EXPECT_TRUE(test, 1 == 2); }

static void every_kind_of_failure_is_described(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_str, "inner_str"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "\"left\" == \"left\"");
	EXPECT_CAPTURED(test, "\"right\" == \"right\"");
	KUNIT_EXPECT_EQ(test, run_inner(inner_mem, "inner_mem"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "differ from byte 2");
	EXPECT_CAPTURED(test, "a[2] == 0x03");
	EXPECT_CAPTURED(test, "b[2] == 0x04");
	KUNIT_EXPECT_EQ(test, run_inner(inner_ptr, "inner_ptr"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "Expected &x == NULL");
	EXPECT_CAPTURED(test, "&x == ffffffff8");
	KUNIT_EXPECT_EQ(test, run_inner(inner_bool, "inner_bool"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "Expected 1 == 2 to be true, but is false");
}

static void inner_skip(struct kunit *test)
{
	kunit_skip(test, "not on this machine (%d)", 42);
	reached_after = true;
}

static void skip_reports_reason(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_skip, "inner_skip"), KUNIT_SKIPPED);
	KUNIT_EXPECT_FALSE(test, reached_after);
	KUNIT_EXPECT_STREQ(test, inner.status_comment, "not on this machine (42)");
}

static void inner_ud2(struct kunit *test)
{
	(void)test;
	__asm__ volatile("ud2" ::: "memory");
	reached_after = true;
}

static void inner_null_read(struct kunit *test)
{
	(void)test;
	/* The identity map is gone: page 0 is not mapped. */
	volatile uintptr_t addr = 16;
	sink = *(volatile int *)addr;
	barrier();
	reached_after = true;
}

static void inner_noncanonical(struct kunit *test)
{
	(void)test;
	volatile uintptr_t addr = 0x8000000000000000ull;
	sink = (int)*(volatile u64 *)addr;
	barrier();
	reached_after = true;
}

static void inner_divide(struct kunit *test)
{
	(void)test;
	volatile int zero = 0, one = 1;
	sink = one / zero;
	barrier();
	reached_after = true;
}

static void exceptions_fail_the_case_and_the_run_goes_on(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_ud2, "inner_ud2"), KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, reached_after);
	EXPECT_CAPTURED(test, "inner_ud2: caught invalid opcode (#UD) (vector 6");
	EXPECT_CAPTURED(test, "at inner_ud2+0x");
	EXPECT_CAPTURED(test, "Call trace:");

	KUNIT_EXPECT_EQ(test, run_inner(inner_null_read, "inner_null_read"), KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, reached_after);
	EXPECT_CAPTURED(test, "caught page fault (#PF) (vector 14, error code 0x0)");
	EXPECT_CAPTURED(test, "address 0x10");

	KUNIT_EXPECT_EQ(test, run_inner(inner_noncanonical, "inner_noncanonical"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "caught general protection (#GP) (vector 13");

	KUNIT_EXPECT_EQ(test, run_inner(inner_divide, "inner_divide"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "caught divide error (#DE) (vector 0");
	/* Still here: the faults were caught inside the inner cases. */
}

/* A fault inside an RCU read-side section: the case fails, and the CPU's
 * read-side count is given back (or every later grace period would wait
 * forever). */
static void inner_fault_in_rcu_reader(struct kunit *test)
{
	(void)test;
	rcu_read_lock();
	volatile uintptr_t addr = 16;
	sink = *(volatile int *)addr;
	rcu_read_unlock();
}

static void inner_returns_in_rcu_reader(struct kunit *test)
{
	(void)test;
	rcu_read_lock();
}

static void rcu_reader_left_open_is_closed(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, run_inner(inner_fault_in_rcu_reader, "inner_fault_in_rcu_reader"),
			KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "left 1 rcu_read_lock() section(s) open");
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
	KUNIT_EXPECT_EQ(test, run_inner(inner_returns_in_rcu_reader, "inner_returns_in_rcu_reader"),
			KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
	synchronize_rcu(); /* would never return with the count left up */
}

/* A fault between printk_capture_begin and _end: the case fails, and the
 * capture is ended for it (or every later line would vanish). */
static void inner_fault_in_capture(struct kunit *test)
{
	(void)test;
	static char buf[256];
	static struct printk_capture cap;
	printk_capture_begin(&cap, buf, sizeof(buf));
	volatile uintptr_t addr = 16;
	sink = *(volatile int *)addr;
	printk_capture_end(&cap);
}

static void capture_left_open_is_ended(struct kunit *test)
{
	struct printk_capture *before = printk_capture_current();
	KUNIT_EXPECT_EQ(test, run_inner(inner_fault_in_capture, "inner_fault_in_capture"), KUNIT_FAILURE);
	KUNIT_EXPECT_PTR_EQ(test, printk_capture_current(), before);
	EXPECT_CAPTURED(test, "left a printk capture open");
}

/* Deferred actions: each appends its ctx (a character) to action_log, so a
 * case can check which ran and in what order. */
static char action_log[KUNIT_MAX_ACTIONS + 8];
static unsigned action_log_len;

static void log_action(void *ctx)
{
	if (action_log_len < sizeof(action_log) - 1)
		action_log[action_log_len++] = (char)(uintptr_t)ctx;
	action_log[action_log_len] = 0;
}

static void clear_action_log(void)
{
	action_log_len = 0;
	action_log[0] = 0;
}

#define ACTION_CTX(c) ((void *)(uintptr_t)(c))

static void add_abc(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('a')), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('b')), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('c')), 0);
}

static void inner_actions_then_return(struct kunit *test)
{
	add_abc(test);
	KUNIT_EXPECT_STREQ(test, action_log, ""); /* nothing runs early */
	reached_after = true;
}

static void inner_actions_then_assert(struct kunit *test)
{
	add_abc(test);
	KUNIT_ASSERT_EQ(test, 1, 2);
	reached_after = true;
}

static void inner_actions_then_fault(struct kunit *test)
{
	add_abc(test);
	volatile uintptr_t addr = 16;
	sink = *(volatile int *)addr;
	barrier();
	reached_after = true;
}

static void inner_actions_then_skip(struct kunit *test)
{
	add_abc(test);
	kunit_skip(test, "skipped with actions pending");
}

static void actions_run_in_reverse_order_however_the_case_ends(struct kunit *test)
{
	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_actions_then_return, "inner_actions_then_return"),
			KUNIT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, reached_after);
	KUNIT_EXPECT_STREQ(test, action_log, "cba");

	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_actions_then_assert, "inner_actions_then_assert"),
			KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, reached_after);
	KUNIT_EXPECT_STREQ(test, action_log, "cba");

	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_actions_then_fault, "inner_actions_then_fault"),
			KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, reached_after);
	EXPECT_CAPTURED(test, "caught page fault (#PF)");
	KUNIT_EXPECT_STREQ(test, action_log, "cba");

	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_actions_then_skip, "inner_actions_then_skip"),
			KUNIT_SKIPPED);
	KUNIT_EXPECT_STREQ(test, action_log, "cba");
	KUNIT_EXPECT_EQ(test, inner.nr_actions, 0);
}

static void fault_action(void *ctx)
{
	(void)ctx;
	volatile uintptr_t addr = 16;
	sink = *(volatile int *)addr;
}

static void inner_faulting_action(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('a')), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, fault_action, NULL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('c')), 0);
}

/* An action that faults fails the case; the older actions still run. */
static void faulting_action_fails_the_case_and_the_rest_run(struct kunit *test)
{
	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_faulting_action, "inner_faulting_action"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "at fault_action+0x");
	KUNIT_EXPECT_STREQ(test, action_log, "ca");
}

static void inner_remove_and_release(struct kunit *test)
{
	add_abc(test);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('d')), 0);
	kunit_remove_action(test, log_action, ACTION_CTX('b'));
	kunit_remove_action(test, log_action, ACTION_CTX('x')); /* never registered: nothing */
	KUNIT_EXPECT_STREQ(test, action_log, "");
	kunit_release_action(test, log_action, ACTION_CTX('c'));
	KUNIT_EXPECT_STREQ(test, action_log, "c"); /* at once */
	kunit_release_action(test, log_action, ACTION_CTX('c')); /* gone: not run again */
	KUNIT_EXPECT_STREQ(test, action_log, "c");
	KUNIT_EXPECT_EQ(test, test->nr_actions, 2);
}

static void remove_forgets_and_release_runs_at_once(struct kunit *test)
{
	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_remove_and_release, "inner_remove_and_release"),
			KUNIT_SUCCESS);
	/* c ran when released, then d and a at the end; b never. */
	KUNIT_EXPECT_STREQ(test, action_log, "cda");
}

/* The same action and ctx registered twice: remove (and release) take the
 * newest only, as Linux's kunit_find_resource searches newest first; the
 * older one still runs when the case ends. */
static void inner_same_action_twice(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('a')), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('b')), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('a')), 0);
	kunit_remove_action(test, log_action, ACTION_CTX('a'));
	KUNIT_EXPECT_EQ(test, test->nr_actions, 2);
}

static void remove_takes_the_newest_of_two_alike(struct kunit *test)
{
	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_same_action_twice, "inner_same_action_twice"),
			KUNIT_SUCCESS);
	KUNIT_EXPECT_STREQ(test, action_log, "ba");
}

/* A ctx on the case's stack would be dead when an ASSERT unwinds the case
 * and the action runs: refused, and the case fails. A static is taken. */
static void inner_local_ctx(struct kunit *test)
{
	char local = 'l';
	static char kept = 'k';
	KUNIT_EXPECT_EQ(test, kunit_add_action(test, log_action, &local), -EINVAL);
	KUNIT_EXPECT_EQ(test, kunit_add_action(test, log_action, &kept), 0);
	kunit_remove_action(test, log_action, &kept);
	reached_after = true;
}

static void local_ctx_is_refused(struct kunit *test)
{
	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_local_ctx, "inner_local_ctx"), KUNIT_FAILURE);
	KUNIT_EXPECT_TRUE(test, reached_after);
	KUNIT_EXPECT_STREQ(test, action_log, "");
	EXPECT_CAPTURED(test, "is on the case's stack");
}

static void inner_table_full(struct kunit *test)
{
	for (int i = 0; i < KUNIT_MAX_ACTIONS; i++)
		KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('A' + i)), 0);
	KUNIT_EXPECT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('x')), -ENOMEM);
	KUNIT_EXPECT_STREQ(test, action_log, "");
	KUNIT_EXPECT_EQ(test, kunit_add_action_or_reset(test, log_action, ACTION_CTX('y')), -ENOMEM);
	KUNIT_EXPECT_STREQ(test, action_log, "y"); /* run at once, not lost */
	KUNIT_EXPECT_EQ(test, kunit_add_action(test, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kunit_add_action_or_reset(test, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kunit_add_action(NULL, log_action, NULL), -EINVAL);
	kunit_remove_action(NULL, log_action, NULL);
	kunit_release_action(NULL, log_action, NULL);
	clear_action_log();
}

static void full_table_gives_enomem_and_or_reset_runs_the_action(struct kunit *test)
{
	char want[KUNIT_MAX_ACTIONS + 1];
	for (int i = 0; i < KUNIT_MAX_ACTIONS; i++)
		want[i] = (char)('A' + KUNIT_MAX_ACTIONS - 1 - i);
	want[KUNIT_MAX_ACTIONS] = 0;
	clear_action_log();
	KUNIT_EXPECT_EQ(test, run_inner(inner_table_full, "inner_table_full"), KUNIT_SUCCESS);
	KUNIT_EXPECT_STREQ(test, action_log, want);
}

/* The case's cleanup runs after the suite's exit (as Linux's) and before
 * the framework's checks: an RCU read side an action closes is not left
 * open. */
static void rcu_unlock_action(void *ctx)
{
	(void)ctx;
	rcu_read_unlock();
}

static void inner_rcu_reader_with_action(struct kunit *test)
{
	rcu_read_lock();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rcu_unlock_action, NULL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('a')), 0);
	KUNIT_ASSERT_TRUE(test, false);
}

static void order_exit(struct kunit *test)
{
	(void)test;
	log_action(ACTION_CTX('E'));
}

static void actions_run_after_exit_and_before_the_checks(struct kunit *test)
{
	struct kunit_case c = { .run_case = inner_rcu_reader_with_action,
				.name = "inner_rcu_reader_with_action" };
	struct kunit_suite s = { .name = "inner", .exit = order_exit };
	struct printk_capture cap;

	clear_action_log();
	printk_capture_begin(&cap, captured, sizeof(captured));
	enum kunit_status st = kunit_run_case(&s, &c, &inner);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, st, KUNIT_FAILURE);
	KUNIT_EXPECT_STREQ(test, action_log, "Ea");
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
	if (strstr(captured, "rcu_read_lock() section(s) open"))
		kunit_fail(test, false, __FILE__, __LINE__, "the RCU check ran before the action:\n%s",
			   captured);
}

/* An init that fails: the case fails without running, the suite's exit does
 * not run, and what init registered before failing is given back. */
static int failing_init(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kunit_add_action(test, log_action, ACTION_CTX('i')), 0);
	return -EINVAL;
}

static void failed_init_still_runs_its_actions(struct kunit *test)
{
	struct kunit_case c = { .run_case = inner_actions_then_return,
				.name = "inner_actions_then_return" };
	struct kunit_suite s = { .name = "inner", .init = failing_init, .exit = order_exit };
	struct printk_capture cap;

	clear_action_log();
	reached_after = false;
	printk_capture_begin(&cap, captured, sizeof(captured));
	enum kunit_status st = kunit_run_case(&s, &c, &inner);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, st, KUNIT_FAILURE);
	KUNIT_EXPECT_FALSE(test, reached_after);
	KUNIT_EXPECT_STREQ(test, action_log, "i");
	EXPECT_CAPTURED(test, "the suite's init failed");
}

/* "BUG: Bad page state": a case that provokes one without saying so fails;
 * one that says how many it provokes passes only with that many. */
static unsigned long bad_pages_declared;

static void inner_double_free(struct kunit *test)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kunit_expect_bad_page_reports(test, bad_pages_declared);
	__free_pages(p, 0);
	__free_pages(p, 0); /* reported and refused; the page stays free */
}

static void inner_no_bad_page(struct kunit *test)
{
	kunit_expect_bad_page_reports(test, bad_pages_declared);
}

static void bad_page_reports_fail_unless_declared(struct kunit *test)
{
	unsigned long reports = bad_page_reports;

	bad_pages_declared = 0;
	KUNIT_EXPECT_EQ(test, run_inner(inner_double_free, "inner_double_free"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "BUG: Bad page state");
	EXPECT_CAPTURED(test, "inner_double_free: 1 \"BUG: Bad page state\" report(s), 0 expected");

	bad_pages_declared = 1;
	KUNIT_EXPECT_EQ(test, run_inner(inner_double_free, "inner_double_free"), KUNIT_SUCCESS);

	bad_pages_declared = 2;
	KUNIT_EXPECT_EQ(test, run_inner(inner_double_free, "inner_double_free"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "1 \"BUG: Bad page state\" report(s), 2 expected");

	bad_pages_declared = 1; /* declared and not provoked fails too */
	KUNIT_EXPECT_EQ(test, run_inner(inner_no_bad_page, "inner_no_bad_page"), KUNIT_FAILURE);
	EXPECT_CAPTURED(test, "0 \"BUG: Bad page state\" report(s), 1 expected");

	KUNIT_EXPECT_EQ(test, bad_page_reports, reports + 3);
	/* This case declared none and passes: the inner cases judged theirs. */
}

/* A report while no case runs (here the suite's exit frees a page twice)
 * fails the suite's free_pages_restored: no case could have declared it. */
static struct page *suite_page;
static bool suite_exit_frees_twice;

static int inner_suite_init(struct kunit_suite *s)
{
	(void)s;
	suite_page = alloc_pages(GFP_KERNEL, 0);
	return suite_page ? 0 : -ENOMEM;
}

static void inner_suite_exit(struct kunit_suite *s)
{
	(void)s;
	__free_pages(suite_page, 0);
	if (suite_exit_frees_twice)
		__free_pages(suite_page, 0); /* reported and refused */
}

static void inner_nothing(struct kunit *test) { (void)test; }

static void bad_page_report_outside_cases_fails_the_suite(struct kunit *test)
{
	static struct kunit_case cases[] = { KUNIT_CASE(inner_nothing), {} };
	struct kunit_suite s = { .name = "inner_suite", .suite_init = inner_suite_init,
				 .suite_exit = inner_suite_exit, .test_cases = cases };
	unsigned long reports = bad_page_reports;
	struct printk_capture cap;

	for (int twice = 0; twice <= 1; twice++) {
		unsigned counts[3] = { 0 };
		suite_exit_frees_twice = twice;
		printk_capture_begin(&cap, captured, sizeof(captured));
		kunit_run_suite(&s, NULL, 7, counts);
		printk_capture_end(&cap);
		EXPECT_CAPTURED(test, "ok 1 inner_nothing");
		KUNIT_EXPECT_EQ(test, counts[KUNIT_SUCCESS], twice ? 1 : 2);
		KUNIT_EXPECT_EQ(test, counts[KUNIT_FAILURE], twice ? 1 : 0);
		KUNIT_EXPECT_EQ(test, bad_page_reports, reports + twice);
		if (!twice) {
			EXPECT_CAPTURED(test, "ok 2 free_pages_restored");
			EXPECT_CAPTURED(test, "ok 7 inner_suite");
			continue;
		}
		EXPECT_CAPTURED(test, "BUG: Bad page state");
		EXPECT_CAPTURED(test, "1 \"BUG: Bad page state\" report(s) outside every case");
		EXPECT_CAPTURED(test, "not ok 2 free_pages_restored");
		EXPECT_CAPTURED(test, "not ok 7 inner_suite");
	}
	/* This case declared none and passes: the inner suite judged it. */
}

/* Parameterised cases: the body runs once per parameter with
 * test->param_value and test->param_index, each run a case of its own
 * (a failed parameter fails the case, the others still run; the actions
 * of each run at its end), printed as Linux's KUnit prints them. */
struct param_run {
	int value;
	const char *desc;
};
static const struct param_run param_runs[] = { { 1, "one" }, { 2, "two" }, { 3, "three" } };
KUNIT_ARRAY_PARAM_DESC(param_runs, param_runs, desc);

static int param_seen[4], param_index_seen[4], param_actions;
static unsigned param_fail_mask, param_skip_mask;

static void count_param_action(void *ctx) { (*(int *)ctx)++; }

static void inner_param(struct kunit *test)
{
	const struct param_run *p = test->param_value;
	param_seen[p->value]++;
	param_index_seen[p->value] = test->param_index;
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, count_param_action, &param_actions), 0);
	if (param_skip_mask & (1u << p->value))
		kunit_skip(test, "skipping %s", p->desc);
	KUNIT_ASSERT_FALSE(test, param_fail_mask & (1u << p->value));
}

static const void *no_params_gen(const void *prev, char *desc)
{
	(void)prev;
	(void)desc;
	return NULL;
}

/* Two parameters without descriptions: "param-0", "param-1". */
static const void *undescribed_gen(const void *prev, char *desc)
{
	(void)desc;
	return prev == &param_runs[1] ? NULL : prev ? &param_runs[1] : &param_runs[0];
}

static void parameterised_case_runs_once_per_parameter(struct kunit *test)
{
	static struct kunit_case cases[] = { KUNIT_CASE_PARAM(inner_param, param_runs_gen_params),
					     KUNIT_CASE(inner_nothing), {} };
	struct kunit_suite s = { .name = "inner_suite", .test_cases = cases };
	struct printk_capture cap;

	/* Every parameter passes: one subtest each, then the case. */
	memset(param_seen, 0, sizeof(param_seen));
	param_actions = 0;
	param_fail_mask = param_skip_mask = 0;
	unsigned counts[3] = { 0 };
	printk_capture_begin(&cap, captured, sizeof(captured));
	kunit_run_suite(&s, NULL, 1, counts);
	printk_capture_end(&cap);
	for (int v = 1; v <= 3; v++) {
		KUNIT_EXPECT_EQ(test, param_seen[v], 1);
		KUNIT_EXPECT_EQ(test, param_index_seen[v], v - 1);
	}
	KUNIT_EXPECT_EQ(test, param_actions, 3);
	EXPECT_CAPTURED(test, "    1..3\n"); /* the plan counts the case once */
	EXPECT_CAPTURED(test, "        KTAP version 1\n        # Subtest: inner_param\n"
			      "        ok 1 one\n        ok 2 two\n        ok 3 three\n"
			      "    # inner_param: pass:3 fail:0 skip:0 total:3\n    ok 1 inner_param\n");
	EXPECT_CAPTURED(test, "    ok 2 inner_nothing\n");
	EXPECT_CAPTURED(test, "# inner_suite: pass:3 fail:0 skip:0 total:3\nok 1 inner_suite\n");
	/* Each parameter counts in the totals, as kunit_tool counts them. */
	KUNIT_EXPECT_EQ(test, counts[KUNIT_SUCCESS], 5);
	KUNIT_EXPECT_EQ(test, counts[KUNIT_FAILURE], 0);

	/* One fails, one skips: the others still run, the case fails, and
	 * the failure's diagnostics belong to its parameter's subtest. */
	param_fail_mask = 1u << 2;
	param_skip_mask = 1u << 3;
	param_actions = 0;
	memset(counts, 0, sizeof(counts));
	printk_capture_begin(&cap, captured, sizeof(captured));
	kunit_run_suite(&s, NULL, 1, counts);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, param_actions, 3);
	EXPECT_CAPTURED(test, "        ok 1 one\n        # inner_param: ASSERTION FAILED at");
	EXPECT_CAPTURED(test, "        not ok 2 two\n        ok 3 three # SKIP skipping three\n"
			      "    # inner_param: pass:1 fail:1 skip:1 total:3\n    not ok 1 inner_param\n");
	EXPECT_CAPTURED(test, "# inner_suite: pass:2 fail:1 skip:0 total:3\nnot ok 1 inner_suite\n");
	KUNIT_EXPECT_EQ(test, counts[KUNIT_SUCCESS], 3);
	KUNIT_EXPECT_EQ(test, counts[KUNIT_FAILURE], 1);
	KUNIT_EXPECT_EQ(test, counts[KUNIT_SKIPPED], 1);

	/* Every one skips: the case is skipped, with the last reason. */
	param_fail_mask = 0;
	param_skip_mask = 0xe;
	printk_capture_begin(&cap, captured, sizeof(captured));
	kunit_run_suite(&s, "inner_suite.inner_param", 1, counts);
	printk_capture_end(&cap);
	EXPECT_CAPTURED(test, "    1..2\n");
	EXPECT_CAPTURED(test, "    ok 1 inner_param # SKIP skipping three\n");

	/* No parameter at all: skipped, as Linux's. */
	static struct kunit_case none[] = { KUNIT_CASE_PARAM(inner_param, no_params_gen), {} };
	s.test_cases = none;
	memset(counts, 0, sizeof(counts));
	printk_capture_begin(&cap, captured, sizeof(captured));
	kunit_run_suite(&s, NULL, 1, counts);
	printk_capture_end(&cap);
	EXPECT_CAPTURED(test, "        # Subtest: inner_param\n    ok 1 inner_param # SKIP no parameters\n");
	KUNIT_EXPECT_EQ(test, counts[KUNIT_SKIPPED], 1);

	/* A generator that writes no description: "param-<index>". */
	static struct kunit_case undescribed[] = { KUNIT_CASE_PARAM(inner_param, undescribed_gen), {} };
	s.test_cases = undescribed;
	param_skip_mask = 0;
	printk_capture_begin(&cap, captured, sizeof(captured));
	kunit_run_suite(&s, NULL, 1, counts);
	printk_capture_end(&cap);
	EXPECT_CAPTURED(test, "        ok 1 param-0\n        ok 2 param-1\n    # inner_param: pass:2");
}

static void filter_globs(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, kunit_filter_match(NULL, "acpi", "srat"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("", "acpi", "srat"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("acpi", "acpi", "srat"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("acp", "acpi", "srat"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("ac*", "acpi", "srat"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("acpi.srat", "acpi", "srat"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("acpi.slit", "acpi", "srat"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("*.s?at", "acpi", "srat"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("*.s?at", "acpi", "slit"));
	/* Alternatives separated by commas. */
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("pipe.*,acpi.slit", "acpi", "slit"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("acpi.srat,pipe", "pipe", "eof"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("acpi.srat,pipe", "acpi", "slit"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match(",", "acpi", "slit"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("x,,acpi", "acpi", "slit"));
}

static int inits, exits;

static int selftest_init(struct kunit *test)
{
	(void)test;
	inits++;
	return 0;
}

static void selftest_exit(struct kunit *test)
{
	(void)test;
	exits++;
}

static void init_and_exit_run_around_each_case(struct kunit *test)
{
	/* Our own init has run, and every earlier case's exit too. */
	KUNIT_EXPECT_GE(test, inits, 1);
	KUNIT_EXPECT_EQ(test, exits, inits - 1);
}

static struct kunit_case kunit_selftest_cases[] = {
	KUNIT_CASE(passing_case),
	KUNIT_CASE(expect_failure_reports_both_values),
	KUNIT_CASE(assert_failure_stops_the_case),
	KUNIT_CASE(every_kind_of_failure_is_described),
	KUNIT_CASE(skip_reports_reason),
	KUNIT_CASE(exceptions_fail_the_case_and_the_run_goes_on),
	KUNIT_CASE(rcu_reader_left_open_is_closed),
	KUNIT_CASE(capture_left_open_is_ended),
	KUNIT_CASE(actions_run_in_reverse_order_however_the_case_ends),
	KUNIT_CASE(faulting_action_fails_the_case_and_the_rest_run),
	KUNIT_CASE(remove_forgets_and_release_runs_at_once),
	KUNIT_CASE(remove_takes_the_newest_of_two_alike),
	KUNIT_CASE(local_ctx_is_refused),
	KUNIT_CASE(full_table_gives_enomem_and_or_reset_runs_the_action),
	KUNIT_CASE(actions_run_after_exit_and_before_the_checks),
	KUNIT_CASE(failed_init_still_runs_its_actions),
	KUNIT_CASE(bad_page_reports_fail_unless_declared),
	KUNIT_CASE(bad_page_report_outside_cases_fails_the_suite),
	KUNIT_CASE(parameterised_case_runs_once_per_parameter),
	KUNIT_CASE(filter_globs),
	KUNIT_CASE(init_and_exit_run_around_each_case),
	{}
};

static struct kunit_suite kunit_selftest_suite = {
	.name = "kunit_selftest",
	.init = selftest_init,
	.exit = selftest_exit,
	.test_cases = kunit_selftest_cases,
};
kunit_test_suite(kunit_selftest_suite);
