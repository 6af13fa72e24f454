/* Time: a monotonic nanosecond clock from the TSC, the tick (HZ per
 * second on every CPU, from its local APIC timer) and, unless booted with
 * highres=off, timer events between ticks for sleepers (Linux's
 * high-resolution mode, CONFIG_HIGH_RES_TIMERS). */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "arch/x86_64/apic.h"
#include "kernel/types.h"

#define NSEC_PER_SEC 1000000000ll
#define TICK_NSEC (1000000000ull / HZ) /* one tick, the only timer's period */
#define KTIME_MAX ((u64)(~0ull >> 1))
/* a + b, saturated at KTIME_MAX (Linux's ktime_add_safe): a deadline
 * that far never comes. */
static inline u64 ktime_add_safe(u64 a, u64 b) { return b > KTIME_MAX - a ? KTIME_MAX : a + b; }
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
/* High-resolution mode (highres=on, the default, as Linux's hrtimers):
 * each CPU's APIC timer is one-shot, armed for the earlier of its next
 * tick and its earliest sleeper's expiry, so a sleep ends when it is due
 * rather than at the next tick. With highres=off the timer is periodic
 * and a sleep ends at the first tick after its expiry. */
extern bool hrtimer_hres_active;
/* The timer expiry of the sleepers (the scheduler's): called with
 * interrupts off on every timer interrupt of a CPU, after the tick's hooks
 * if it was a tick; wakes this CPU's expired sleepers and returns the
 * earliest expiry left on it (KTIME_MAX if none). */
typedef u64 (*timer_expiry_fn)(u64 now);
void register_timer_expiry(timer_expiry_fn fn);
/* A timer expiring at expires (ktime_get_ns) was added on this CPU,
 * interrupts off: the APIC timer is armed for it if that is earlier than
 * what it is armed for (Linux's tick_program_event). */
void tick_program_event(u64 expires);
/* What this CPU's timer is armed for (ktime_get_ns), KTIME_MAX with
 * highres=off (a periodic timer). */
u64 tick_next_event(void);
unsigned long ticks_on_cpu(unsigned cpu);
void ndelay_spin(u64 ns);

#endif
