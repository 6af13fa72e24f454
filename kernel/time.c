/* The clock and the tick. ktime_get_ns() multiplies TSC cycles by a 32.32
 * fixed-point factor computed once, so reading the clock is a multiply and a
 * shift (no division); the TSC is constant-rate on the CPUs QEMU emulates. */
#include "kernel/time.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/tsc.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"

volatile u64 jiffies;
static u64 tsc_at_boot, ns_mult; /* ns = cycles * ns_mult >> 32 */
static tick_hook_t tick_hooks[8];
static unsigned nr_tick_hooks;
DEFINE_PER_CPU(unsigned long, tick_count);

u64 ktime_get_ns(void)
{
	u64 cycles = rdtsc() - tsc_at_boot;
	return (u64)(((unsigned __int128)cycles * ns_mult) >> 32);
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

static void timer_interrupt(struct pt_regs *regs)
{
	apic_eoi();
	this_cpu_write(tick_count, this_cpu_read(tick_count) + 1);
	/* One CPU counts jiffies: the boot CPU, whatever its index. */
	if (smp_processor_id() == boot_cpu_index)
		jiffies++;
	bool user = (regs->cs & 3) == 3;
	unsigned n = __atomic_load_n(&nr_tick_hooks, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		tick_hooks[i](user);
}

void time_init(void)
{
	if (!tsc_khz)
		tsc_calibrate();
	tsc_at_boot = rdtsc();
	ns_mult = tsc_khz ? (1000000ull << 32) / tsc_khz : 0;
	register_interrupt_handler(LOCAL_TIMER_VECTOR, timer_interrupt);
	pr_info("time: TSC %lu.%03lu MHz, tick %d Hz\n", (unsigned long)(tsc_khz / 1000),
		(unsigned long)(tsc_khz % 1000), HZ);
}

void tick_start_this_cpu(void)
{
	lapic_timer_init();
}
