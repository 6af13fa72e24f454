/* Time: a monotonic nanosecond clock from the TSC, and the periodic tick
 * (HZ per second on every CPU, from its local APIC timer). */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "arch/x86_64/apic.h"
#include "kernel/types.h"

#define NSEC_PER_SEC 1000000000ll
#define TICK_NSEC (1000000000ull / HZ) /* one tick, the only timer's period */
#define KTIME_MAX ((u64)(~0ull >> 1))
/* clock_t's ticks per second for user space (times, /proc/<pid>/stat),
 * Linux's USER_HZ whatever its HZ. */
#define USER_HZ 100
static inline u64 nsec_to_clock_t(u64 ns) { return ns / (NSEC_PER_SEC / USER_HZ); }

struct __kernel_timespec;
/* Whether a timespec from user space is one (Linux's timespec64_valid):
 * tv_sec >= 0, tv_nsec in [0, NSEC_PER_SEC). Callers answer -EINVAL. */
bool timespec64_valid(const struct __kernel_timespec *ts);

/* Nanoseconds since boot (TSC scaled by its PIT-calibrated frequency). */
u64 ktime_get_ns(void);
/* CLOCK_REALTIME in ns since the epoch: the monotonic clock plus the
 * wall-clock time at boot (constant: nothing sets the time). */
u64 ktime_get_real_ns(void);
/* CLOCK_REALTIME in whole seconds (Linux's ktime_get_real_seconds). */
static inline s64 ktime_get_real_seconds(void) { return (s64)(ktime_get_real_ns() / 1000000000ull); }
/* CLOCK_REALTIME minus the monotonic clock: a constant, since nothing sets
 * the time (0 when the RTC gave nothing). */
u64 ktime_get_real_offset_ns(void);
void time_init(void);
/* Ticks on the boot CPU since timers started. */
extern volatile u64 jiffies;
/* Called on every tick, on every CPU, with interrupts off; user tells
 * whether the tick interrupted user mode (a quiescent state for RCU). */
typedef void (*tick_hook_t)(bool user);
void register_tick_hook(tick_hook_t fn);
/* Starts this CPU's tick. */
void tick_start_this_cpu(void);
unsigned long ticks_on_cpu(unsigned cpu);
void ndelay_spin(u64 ns);

#endif
