/* Rate limiting of messages, as Linux's include/linux/ratelimit.h and
 * lib/ratelimit.c: at most burst calls pass per interval (in jiffies); the
 * ones refused are counted and, at the first call of a later interval,
 * reported as "<func>: N callbacks suppressed" (Linux's wording).
 *
 *   static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
 *                                 DEFAULT_RATELIMIT_BURST);
 *   if (__ratelimit(&rs))
 *           pr_warn("...");
 *
 * Locking: rs->lock (irqsave) guards begin, printed and missed; the report
 * of the suppressed count is printed after it is dropped. */
#ifndef LIB_RATELIMIT_H
#define LIB_RATELIMIT_H

#include "arch/x86_64/apic.h" /* HZ */
#include "kernel/spinlock.h"
#include "kernel/types.h"

#define DEFAULT_RATELIMIT_INTERVAL (5 * HZ)
#define DEFAULT_RATELIMIT_BURST 10

/* Linux's flag: report the suppressed count only at ratelimit_state_exit(). */
#define RATELIMIT_MSG_ON_RELEASE 1

struct ratelimit_state {
	spinlock_t lock;
	int interval;        /* jiffies; 0: no limit */
	int burst;           /* calls let through per interval; 0: none */
	int printed;         /* let through in this interval */
	int missed;          /* refused since the last report */
	unsigned long begin; /* jiffies at the interval's start; 0: not yet */
	unsigned long flags;
};

#define RATELIMIT_STATE_INIT(name, interval_init, burst_init)                          \
	{ .lock = __SPIN_LOCK_UNLOCKED, .interval = (interval_init), .burst = (burst_init) }

#define DEFINE_RATELIMIT_STATE(name, interval_init, burst_init)                        \
	struct ratelimit_state name = RATELIMIT_STATE_INIT(name, interval_init, burst_init)

void ratelimit_state_init(struct ratelimit_state *rs, int interval, int burst);
/* With RATELIMIT_MSG_ON_RELEASE: prints the suppressed count, if any. */
void ratelimit_state_exit(struct ratelimit_state *rs, const char *func);

/* A fresh interval starts at the next call; the refused count is dropped
 * (Linux's, for tests that must see the next report). */
void ratelimit_state_reset_interval(struct ratelimit_state *rs, int interval);

/* Nonzero when the caller may go ahead (print). */
int ___ratelimit(struct ratelimit_state *rs, const char *func);
#define __ratelimit(state) ___ratelimit(state, __func__)
/* The same at a given jiffies value (for tests: no wait decides them). */
int ___ratelimit_at(struct ratelimit_state *rs, const char *func, unsigned long now);

#define printk_ratelimited(pr, fmt, ...)                                               \
	do {                                                                           \
		static DEFINE_RATELIMIT_STATE(_rs, DEFAULT_RATELIMIT_INTERVAL,         \
					      DEFAULT_RATELIMIT_BURST);                \
		if (__ratelimit(&_rs))                                                 \
			pr(fmt, ##__VA_ARGS__);                                        \
	} while (0)
#define pr_warn_ratelimited(fmt, ...) printk_ratelimited(pr_warn, fmt, ##__VA_ARGS__)
#define pr_info_ratelimited(fmt, ...) printk_ratelimited(pr_info, fmt, ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...) printk_ratelimited(pr_err, fmt, ##__VA_ARGS__)

#endif
