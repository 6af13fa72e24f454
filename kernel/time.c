/* The clock and the tick. ktime_get_ns() multiplies TSC cycles by a 32.32
 * fixed-point factor computed once, so reading the clock is a multiply and a
 * shift (no division); the TSC is constant-rate on the CPUs QEMU emulates. */
#include "kernel/time.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/tsc.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/unistd.h"

volatile u64 jiffies;
static u64 tsc_at_boot, ns_mult; /* ns = cycles * ns_mult >> 32 */
static u64 real_at_boot_ns;      /* CLOCK_REALTIME when ktime_get_ns() was 0 */
static tick_hook_t tick_hooks[8];
static unsigned nr_tick_hooks;
DEFINE_PER_CPU(unsigned long, tick_count);

u64 ktime_get_ns(void)
{
	u64 cycles = rdtsc() - tsc_at_boot;
	return (u64)(((unsigned __int128)cycles * ns_mult) >> 32);
}

u64 ktime_get_real_ns(void)
{
	return real_at_boot_ns + ktime_get_ns();
}

u64 ktime_get_real_offset_ns(void) { return real_at_boot_ns; }

bool timespec64_valid(const struct __kernel_timespec *ts)
{
	/* Dates before 1970 are bogus; no more nanoseconds than a second. */
	return ts->tv_sec >= 0 && (unsigned long long)ts->tv_nsec < NSEC_PER_SEC;
}

void ndelay_spin(u64 ns)
{
	u64 end = ktime_get_ns() + ns;
	while (ktime_get_ns() < end)
		cpu_relax();
}

/* Hooks are only ever added, by the boot CPU at boot (sched_init,
 * rcu_init), while the APs may already tick: the slot is written before
 * the count that makes it visible (release), and the tick reads the count
 * first (acquire). */
void register_tick_hook(tick_hook_t fn)
{
	unsigned n = nr_tick_hooks;
	if (n < ARRAY_SIZE(tick_hooks)) {
		tick_hooks[n] = fn;
		__atomic_store_n(&nr_tick_hooks, n + 1, __ATOMIC_RELEASE);
	}
}

unsigned long ticks_on_cpu(unsigned cpu) { return per_cpu(tick_count, cpu); }

bool hrtimer_hres_active = true;
kernel_param_flag("highres", hrtimer_hres_active,
		  "timer events between ticks, so sleeps end when due (off: periodic tick only)");

static timer_expiry_fn timer_expiry;
/* Per CPU, in high-resolution mode: when its next tick is due, and what
 * its APIC timer is armed for (ktime_get_ns). */
static DEFINE_PER_CPU(u64, next_tick_ns);
static DEFINE_PER_CPU(u64, next_event_ns);

void register_timer_expiry(timer_expiry_fn fn) { timer_expiry = fn; }

/* Arms this CPU's one-shot timer for at (interrupts off). The APIC timer
 * counts lapic_timer_ticks_per_jiffy per tick; rounded up, so it never
 * fires before at (an early interrupt would only arm it again). */
static void program_event(u64 now, u64 at)
{
	this_cpu_write(next_event_ns, at);
	u64 delta = at > now ? at - now : 0;
	if (delta > TICK_NSEC)
		delta = TICK_NSEC;
	lapic_timer_oneshot((u32)((delta * lapic_timer_ticks_per_jiffy + TICK_NSEC - 1) / TICK_NSEC));
}

void tick_program_event(u64 expires)
{
	if (!hrtimer_hres_active || expires >= this_cpu_read(next_event_ns))
		return;
	program_event(ktime_get_ns(), expires);
}

u64 tick_next_event(void)
{
	return hrtimer_hres_active ? this_cpu_read(next_event_ns) : KTIME_MAX;
}

static void tick_handle(bool user)
{
	this_cpu_write(tick_count, this_cpu_read(tick_count) + 1);
	/* One CPU counts jiffies: the boot CPU, whatever its index. */
	if (smp_processor_id() == boot_cpu_index)
		jiffies++;
	unsigned n = __atomic_load_n(&nr_tick_hooks, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		tick_hooks[i](user);
}

/* Periodic mode: every interrupt is a tick. High-resolution mode: an
 * interrupt is a tick when the tick is due (Linux's tick_sched_timer),
 * else it is for a sleeper; either way the sleepers due are woken and the
 * timer armed for the earlier of the next tick and the next sleeper. A
 * tick missed for longer than a tick (a vCPU the host did not run) is
 * not made up: the next one is a tick from now, as a periodic timer's
 * coalesced interrupts. */
static void timer_interrupt(struct pt_regs *regs)
{
	apic_eoi();
	bool user = (regs->cs & 3) == 3;
	if (!hrtimer_hres_active) {
		tick_handle(user);
		if (timer_expiry)
			timer_expiry(ktime_get_ns());
		return;
	}
	u64 now = ktime_get_ns(), next_tick = this_cpu_read(next_tick_ns);
	if (now >= next_tick) {
		tick_handle(user);
		next_tick += TICK_NSEC;
		if (next_tick <= now)
			next_tick = now + TICK_NSEC;
		this_cpu_write(next_tick_ns, next_tick);
	}
	u64 next = timer_expiry ? timer_expiry(now) : KTIME_MAX;
	now = ktime_get_ns();
	program_event(now, next < next_tick ? next : next_tick);
}

/* The CMOS real-time clock (MC146818, which every PC and QEMU's q35 and
 * i440fx have): read once at boot, as Linux's mach_get_cmos_time, for the
 * wall-clock time CLOCK_REALTIME starts from. QEMU keeps it in UTC
 * (-rtc base=utc, its default). */
#define RTC_PORT_INDEX 0x70
#define RTC_PORT_DATA 0x71
#define RTC_SECONDS 0x00
#define RTC_MINUTES 0x02
#define RTC_HOURS 0x04
#define RTC_DAY_OF_MONTH 0x07
#define RTC_MONTH 0x08
#define RTC_YEAR 0x09
#define RTC_REG_A 0x0a /* bit 7: update in progress */
#define RTC_REG_B 0x0b /* bit 2: binary (not BCD), bit 1: 24-hour */
#define RTC_CENTURY 0x32 /* where QEMU and most firmware keep it */

static u8 cmos_read(u8 reg)
{
	outb(RTC_PORT_INDEX, reg); /* bit 7 clear: NMIs stay enabled */
	return inb(RTC_PORT_DATA);
}

static unsigned bcd2bin(u8 v) { return (v & 0x0f) + (v >> 4) * 10; }

struct rtc_time_raw {
	u8 sec, min, hour, mday, mon, year, century;
};

static void rtc_read_raw(struct rtc_time_raw *t)
{
	/* Between updates: a read that straddles one mixes two seconds (the
	 * caller reads until two agree). Bounded as Linux's
	 * mc146818_avoid_UIP (10 x 100 us): with no RTC, port 0x71 reads 0xff
	 * and the update flag never clears. */
	for (unsigned i = 0; i < 10 && (cmos_read(RTC_REG_A) & 0x80); i++)
		ndelay_spin(100000);
	t->sec = cmos_read(RTC_SECONDS);
	t->min = cmos_read(RTC_MINUTES);
	t->hour = cmos_read(RTC_HOURS);
	t->mday = cmos_read(RTC_DAY_OF_MONTH);
	t->mon = cmos_read(RTC_MONTH);
	t->year = cmos_read(RTC_YEAR);
	t->century = cmos_read(RTC_CENTURY);
}

/* Days from 1970-01-01 to y-m-d (Linux's mktime64, proleptic Gregorian). */
static u64 days_since_epoch(unsigned y, unsigned m, unsigned d)
{
	int mo = (int)m - 2; /* March is 1: the leap day ends the year */
	if (mo <= 0) {
		mo += 12;
		y -= 1;
	}
	return (u64)(y / 4 - y / 100 + y / 400 + 367 * (unsigned)mo / 12 + d) + (u64)y * 365 - 719499;
}

/* Seconds since the epoch the RTC shows, or 0 (1970-01-01) when it reads
 * nonsense (no RTC, or one never set). */
static u64 rtc_read_seconds(void)
{
	struct rtc_time_raw a, b;
	rtc_read_raw(&b);
	do {
		a = b;
		rtc_read_raw(&b);
	} while (a.sec != b.sec || a.min != b.min || a.hour != b.hour || a.mday != b.mday ||
		 a.mon != b.mon || a.year != b.year);
	u8 regb = cmos_read(RTC_REG_B);
	bool pm = a.hour & 0x80;
	a.hour &= 0x7f;
	unsigned sec = a.sec, min = a.min, hour = a.hour, mday = a.mday, mon = a.mon, year = a.year,
		 century = a.century;
	if (!(regb & 0x04)) {
		sec = bcd2bin(a.sec);
		min = bcd2bin(a.min);
		hour = bcd2bin(a.hour);
		mday = bcd2bin(a.mday);
		mon = bcd2bin(a.mon);
		year = bcd2bin(a.year);
		century = bcd2bin(a.century);
	}
	if (!(regb & 0x02) && pm)
		hour = (hour % 12) + 12;
	else if (!(regb & 0x02) && hour == 12)
		hour = 0;
	year += century >= 19 && century <= 99 ? century * 100 : (year < 70 ? 2000 : 1900);
	if (sec > 59 || min > 59 || hour > 23 || mday < 1 || mday > 31 || mon < 1 || mon > 12 ||
	    year < 1970)
		return 0;
	return ((days_since_epoch(year, mon, mday) * 24 + hour) * 60 + min) * 60 + sec;
}

void time_init(void)
{
	if (!tsc_khz)
		tsc_calibrate();
	tsc_at_boot = rdtsc();
	ns_mult = tsc_khz ? (1000000ull << 32) / tsc_khz : 0;
	register_interrupt_handler(LOCAL_TIMER_VECTOR, timer_interrupt);
	real_at_boot_ns = rtc_read_seconds() * 1000000000ull; /* the TSC clock starts now too */
	pr_info("time: TSC %lu.%03lu MHz, tick %d Hz\n", (unsigned long)(tsc_khz / 1000),
		(unsigned long)(tsc_khz % 1000), HZ);
}

void tick_start_this_cpu(void)
{
	unsigned long flags;
	local_irq_save(flags);
	u64 now = ktime_get_ns();
	this_cpu_write(next_tick_ns, now + TICK_NSEC);
	this_cpu_write(next_event_ns, now + TICK_NSEC);
	lapic_timer_init(hrtimer_hres_active);
	local_irq_restore(flags);
}
