/* Rate limiting (lib/ratelimit.h), after Linux's lib/ratelimit.c
 * ___ratelimit(): the interval starts at the first call; a call after it
 * ends starts a new one, first reporting how many calls the last refused
 * (unless RATELIMIT_MSG_ON_RELEASE), as Linux's "%s: %d callbacks
 * suppressed". Linux takes the lock with a trylock (and refuses on
 * contention, for NMIs); mmlab has no NMI printers and takes it. */
#include "lib/ratelimit.h"
#include "kernel/printk.h"
#include "kernel/time.h"

void ratelimit_state_init(struct ratelimit_state *rs, int interval, int burst)
{
	*rs = (struct ratelimit_state)RATELIMIT_STATE_INIT(*rs, interval, burst);
}

void ratelimit_state_exit(struct ratelimit_state *rs, const char *func)
{
	if (!(rs->flags & RATELIMIT_MSG_ON_RELEASE))
		return;
	if (rs->missed) {
		pr_warn("%s: %d output lines suppressed due to ratelimiting\n", func, rs->missed);
		rs->missed = 0;
	}
}

void ratelimit_state_reset_interval(struct ratelimit_state *rs, int interval)
{
	unsigned long flags;
	spin_lock_irqsave(&rs->lock, flags);
	rs->interval = interval;
	rs->begin = 0;
	rs->printed = 0;
	rs->missed = 0;
	spin_unlock_irqrestore(&rs->lock, flags);
}

int ___ratelimit_at(struct ratelimit_state *rs, const char *func, unsigned long now)
{
	int interval = READ_ONCE(rs->interval), burst = READ_ONCE(rs->burst), ret, report = 0;
	unsigned long flags;

	if (!interval)
		return 1;
	spin_lock_irqsave(&rs->lock, flags);
	if (!rs->begin)
		rs->begin = now;
	/* Linux: time_is_before_jiffies(rs->begin + interval) */
	if ((long)(now - (rs->begin + (unsigned long)interval)) > 0) {
		if (rs->missed && !(rs->flags & RATELIMIT_MSG_ON_RELEASE)) {
			report = rs->missed;
			rs->missed = 0;
		}
		rs->begin = now;
		rs->printed = 0;
	}
	if (burst && burst > rs->printed) {
		rs->printed++;
		ret = 1;
	} else {
		rs->missed++;
		ret = 0;
	}
	spin_unlock_irqrestore(&rs->lock, flags);
	if (report)
		pr_warn("%s: %d callbacks suppressed\n", func, report);
	return ret;
}

int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	/* jiffies starts at 0, which means "not started" in begin: Linux's
	 * jiffies start far from 0; 1 here is as good. */
	unsigned long now = jiffies ? jiffies : 1;
	return ___ratelimit_at(rs, func, now);
}
