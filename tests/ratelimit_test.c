/* lib/ratelimit.c against Linux's ___ratelimit() semantics, at given
 * jiffies values (no wait decides a case), and warn_alloc's use of it. */
#include "kernel/printk.h"
#include "lib/ratelimit.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "mm/gfp.h"
#include "mm/page_alloc_internal.h"
#include "tests/kunit.h"

static char log[4096];

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void burst_then_suppressed_then_reported(struct kunit *test)
{
	static struct ratelimit_state rs;
	struct printk_capture cap;
	int passed = 0;
	ratelimit_state_init(&rs, 100, 3);
	printk_capture_begin(&cap, log, sizeof(log));
	for (int i = 0; i < 8; i++)
		passed += !!___ratelimit_at(&rs, "tester", 1000 + (unsigned long)i);
	/* Still inside the interval (Linux: "before jiffies" means strictly
	 * after begin + interval). */
	passed += !!___ratelimit_at(&rs, "tester", 1100);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, passed, 3);
	KUNIT_EXPECT_EQ(test, rs.missed, 6);
	KUNIT_EXPECT_NULL(test, strstr(log, "suppressed"));

	printk_capture_begin(&cap, log, sizeof(log));
	int ok = ___ratelimit_at(&rs, "tester", 1101);
	printk_capture_end(&cap);
	KUNIT_EXPECT_TRUE(test, ok);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "tester: 6 callbacks suppressed"));
	KUNIT_EXPECT_EQ(test, rs.missed, 0);
	KUNIT_EXPECT_EQ(test, rs.printed, 1);
	KUNIT_EXPECT_EQ(test, rs.begin, 1101);
}

static void no_interval_no_limit_and_no_burst_nothing(struct kunit *test)
{
	static struct ratelimit_state rs;
	ratelimit_state_init(&rs, 0, 1);
	for (int i = 0; i < 20; i++)
		KUNIT_EXPECT_TRUE(test, ___ratelimit_at(&rs, "t", 5));
	ratelimit_state_init(&rs, 10, 0);
	KUNIT_EXPECT_FALSE(test, ___ratelimit_at(&rs, "t", 5));
	KUNIT_EXPECT_EQ(test, rs.missed, 1);
}

static void msg_on_release(struct kunit *test)
{
	static struct ratelimit_state rs;
	struct printk_capture cap;
	ratelimit_state_init(&rs, 10, 1);
	rs.flags = RATELIMIT_MSG_ON_RELEASE;
	printk_capture_begin(&cap, log, sizeof(log));
	___ratelimit_at(&rs, "rel", 50);
	___ratelimit_at(&rs, "rel", 51);
	___ratelimit_at(&rs, "rel", 70); /* a new interval: no report yet */
	KUNIT_EXPECT_NULL(test, strstr(log, "suppressed"));
	ratelimit_state_exit(&rs, "rel");
	printk_capture_end(&cap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "rel: 1 output lines suppressed due to ratelimiting"));
}

/* warn_alloc lets DEFAULT_RATELIMIT_BURST reports through per interval and
 * reports the rest when the next one begins. The interval is stretched for
 * the first part so that a slow host cannot start a new one mid-case. */
static void warn_alloc_is_rate_limited(struct kunit *test)
{
	struct ratelimit_state saved = nopage_rs;
	struct printk_capture cap;
	nopage_rs.interval = 1 << 30;
	nopage_rs.begin = 0;
	nopage_rs.printed = nopage_rs.missed = 0;
	printk_capture_begin(&cap, log, sizeof(log));
	for (int i = 0; i < DEFAULT_RATELIMIT_BURST + 15; i++)
		warn_alloc(GFP_KERNEL, 3, 0, NULL);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, count(log, "page allocation failure"), DEFAULT_RATELIMIT_BURST);
	KUNIT_EXPECT_EQ(test, nopage_rs.missed, 15);
	KUNIT_EXPECT_NULL(test, strstr(log, "suppressed"));

	/* The interval is over (begin moved back past it). */
	nopage_rs.interval = DEFAULT_RATELIMIT_INTERVAL;
	nopage_rs.begin = jiffies - 2 * DEFAULT_RATELIMIT_INTERVAL;
	if (!nopage_rs.begin)
		nopage_rs.begin = (unsigned long)-1;
	printk_capture_begin(&cap, log, sizeof(log));
	warn_alloc(GFP_KERNEL, 3, 0, NULL);
	warn_alloc(GFP_KERNEL | __GFP_NOWARN, 3, 0, NULL); /* never printed, never counted */
	printk_capture_end(&cap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "warn_alloc: 15 callbacks suppressed"));
	KUNIT_EXPECT_EQ(test, count(log, "page allocation failure"), 1);
	KUNIT_EXPECT_EQ(test, nopage_rs.missed, 0);

	unsigned long flags;
	local_irq_save(flags);
	nopage_rs.interval = saved.interval;
	nopage_rs.begin = saved.begin;
	nopage_rs.printed = saved.printed;
	nopage_rs.missed = saved.missed;
	local_irq_restore(flags);
}

static struct kunit_case ratelimit_cases[] = {
	KUNIT_CASE(burst_then_suppressed_then_reported),
	KUNIT_CASE(no_interval_no_limit_and_no_burst_nothing),
	KUNIT_CASE(msg_on_release),
	KUNIT_CASE(warn_alloc_is_rate_limited),
	{}
};
static struct kunit_suite ratelimit_suite = { .name = "ratelimit", .test_cases = ratelimit_cases };
kunit_test_suite(ratelimit_suite);
