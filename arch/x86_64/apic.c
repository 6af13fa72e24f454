/* Local APIC driver. The boot CPU picks the mode: x2APIC when CPUID says so
 * (MSR access, 32-bit APIC ids), else xAPIC (MMIO at the address the MADT
 * gives, mapped uncached at a fixed kernel address).
 *
 * Invariant: an IPI goes only to an APIC id the chosen mode can name
 * (apic_id_valid); any other is refused, never truncated to 8 bits. */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/tsc.h"
#include "drivers/acpi/tables.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "mm/kernel_map.h"

#define MSR_IA32_APICBASE 0x1b
#define APICBASE_ENABLE (1ul << 11)
#define APICBASE_X2APIC (1ul << 10)

#define APIC_ID 0x20
#define APIC_TPR 0x80
#define APIC_EOI 0xb0
#define APIC_SVR 0xf0
#define APIC_ESR 0x280
#define APIC_ICR 0x300
#define APIC_ICR2 0x310
#define APIC_LVTT 0x320
#define APIC_LVT0 0x350
#define APIC_LVT1 0x360
#define APIC_LVTERR 0x370
#define APIC_TMICT 0x380
#define APIC_TMCCT 0x390
#define APIC_TDCR 0x3e0

#define APIC_DM_FIXED 0x000
#define APIC_DM_NMI 0x400
#define APIC_DM_INIT 0x500
#define APIC_DM_STARTUP 0x600
#define APIC_ICR_BUSY (1u << 12)
#define APIC_INT_ASSERT (1u << 14)
#define APIC_INT_LEVELTRIG (1u << 15)
#define APIC_DEST_ALLBUT (3u << 18)
#define APIC_LVT_MASKED (1u << 16)
#define APIC_TIMER_PERIODIC (1u << 17)

/* A fixed virtual address for the xAPIC page (below the vmemmap). */
#define APIC_VIRT 0xffffe80000000000ul

static bool use_x2apic;
static volatile u32 *apic_mmio;
u32 lapic_timer_ticks_per_jiffy;

bool x2apic_enabled(void) { return use_x2apic; }

static u32 apic_read(u32 reg)
{
	if (use_x2apic)
		return (u32)rdmsr(0x800 + (reg >> 4));
	return apic_mmio[reg / 4];
}

static void apic_write(u32 reg, u32 v)
{
	if (use_x2apic)
		wrmsr(0x800 + (reg >> 4), v);
	else
		apic_mmio[reg / 4] = v;
}

u32 lapic_id(void)
{
	return use_x2apic ? apic_read(APIC_ID) : apic_read(APIC_ID) >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

static void wait_icr_idle(void)
{
	if (use_x2apic)
		return; /* x2APIC ICR writes do not need polling */
	for (int i = 0; i < 1000000 && (apic_read(APIC_ICR) & APIC_ICR_BUSY); i++)
		cpu_relax();
}

/* Linux's default_apic_id_valid and x2apic_apic_id_valid: xAPIC's
 * destination field has 8 bits and 0xff is its broadcast, x2APIC's has 32
 * bits and 0xffffffff is its broadcast. */
bool apic_id_valid(u32 apic_id)
{
	return use_x2apic ? apic_id != 0xffffffffu : apic_id < 0xff;
}

unsigned long apic_unreachable_ipis;

/* Interrupts are off across the two xAPIC writes: an interrupt handler
 * sending its own IPI between them would change the destination of ours.
 * An APIC id the mode cannot name is refused: xAPIC would take its low 8
 * bits and interrupt (or INIT) some other CPU, or all of them. */
static void apic_icr_write(u32 low, u32 dest)
{
	unsigned long flags;
	if (!(low & APIC_DEST_ALLBUT) && !apic_id_valid(dest)) {
		if (!__atomic_fetch_add(&apic_unreachable_ipis, 1, __ATOMIC_RELAXED))
			pr_err("apic: IPI %#x to APIC id %u refused: %s mode cannot address it\n", low,
			       dest, use_x2apic ? "x2APIC" : "xAPIC");
		return;
	}
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags)::"memory");
	if (use_x2apic) {
		/* WRMSR to the x2APIC is not serializing: make the data the
		 * IPI announces visible first (as Linux's weak_wrmsr_fence). */
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(0x830, (u64)dest << 32 | low);
	} else {
		wait_icr_idle();
		apic_write(APIC_ICR2, dest << 24);
		apic_write(APIC_ICR, low);
	}
	if (flags & (1ul << 9))
		__asm__ volatile("sti" ::: "memory");
}

void apic_send_ipi(u32 apic_id, u8 vector)
{
	apic_icr_write(APIC_DM_FIXED | vector, apic_id);
}

void apic_send_nmi(u32 apic_id)
{
	apic_icr_write(APIC_DM_NMI, apic_id);
}

void apic_send_ipi_all_but_self(u8 vector)
{
	apic_icr_write(APIC_DEST_ALLBUT | APIC_DM_FIXED | vector, 0);
}

static void udelay(u64 us)
{
	u64 end = rdtsc() + tsc_khz * us / 1000;
	while (rdtsc() < end)
		cpu_relax();
}

void apic_send_init(u32 apic_id)
{
	apic_icr_write(APIC_INT_LEVELTRIG | APIC_INT_ASSERT | APIC_DM_INIT, apic_id);
}

/* Intel SDM vol. 3, 9.4.4: INIT, 10 ms, STARTUP, 200 us, STARTUP. Each
 * step goes to every CPU before the delay that follows it, so each CPU
 * still sees the SDM's delays between its own IPIs, and the sweep costs
 * them once (as Linux 6.5's parallel bring-up, which sends them per APIC
 * id too: a broadcast would also start the CPUs the MADT lists as
 * disabled). */
void apic_wakeup_secondaries(const u32 *apic_ids, unsigned n, phys_addr_t trampoline)
{
	if (!n)
		return;
	apic_write(APIC_ESR, 0);
	for (unsigned i = 0; i < n; i++)
		apic_icr_write(APIC_INT_LEVELTRIG | APIC_INT_ASSERT | APIC_DM_INIT, apic_ids[i]);
	udelay(200);
	if (!use_x2apic) /* x2APIC has no INIT de-assert */
		for (unsigned i = 0; i < n; i++)
			apic_icr_write(APIC_INT_LEVELTRIG | APIC_DM_INIT, apic_ids[i]);
	udelay(10000);
	for (int round = 0; round < 2; round++) {
		for (unsigned i = 0; i < n; i++)
			apic_icr_write(APIC_DM_STARTUP | (u32)(trampoline >> 12), apic_ids[i]);
		udelay(200);
	}
	wait_icr_idle();
}

void legacy_pic_disable(void)
{
	/* ICW1..ICW4: remap IRQ 0-15 to vectors 0x20-0x2f, then mask all. */
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, 0x20);
	outb(0xa1, 0x28);
	outb(0x21, 0x04);
	outb(0xa1, 0x02);
	outb(0x21, 0x01);
	outb(0xa1, 0x01);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void lapic_init(void)
{
	static bool mode_chosen;
	if (!mode_chosen) {
		use_x2apic = boot_cpu_has(X86_FEATURE_X2APIC);
		if (!use_x2apic) {
			u64 phys = acpi_madt.lapic_address ? acpi_madt.lapic_address : 0xfee00000;
			/* The CPU decodes its xAPIC's page where IA32_APIC_BASE
			 * says (bits 12 up to the physical address width); an
			 * MADT that names another page, even one that passed
			 * acpi_lapic_address_ok, is wrong, and the registers
			 * are at the MSR's address. */
			unsigned bits = boot_cpu_data.phys_bits ? boot_cpu_data.phys_bits : 36;
			u64 msr_phys = rdmsr(MSR_IA32_APICBASE) & ~0xffful & ((1ul << bits) - 1);
			if (msr_phys && phys != msr_phys) {
				pr_warn("apic: the MADT's local APIC address %#lx is not the CPU's "
					"(IA32_APIC_BASE %#lx); using the CPU's\n",
					(unsigned long)phys, (unsigned long)msr_phys);
				phys = msr_phys;
			}
			if (map_kernel_range_phys(APIC_VIRT, PAGE_SIZE, phys & ~0xffful,
						  _PAGE_PRESENT | _PAGE_RW | _PAGE_PCD | _PAGE_PWT | _PAGE_NX,
						  PAGE_SHIFT, GFP_KERNEL))
				panic("apic: cannot map the local APIC");
			apic_mmio = (volatile u32 *)APIC_VIRT;
		}
		mode_chosen = true;
	}
	u64 base = rdmsr(MSR_IA32_APICBASE) | APICBASE_ENABLE;
	if (use_x2apic)
		base |= APICBASE_X2APIC;
	wrmsr(MSR_IA32_APICBASE, base);

	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT0, APIC_LVT_MASKED);
	apic_write(APIC_LVT1, APIC_DM_NMI);
	apic_write(APIC_LVTERR, APIC_LVT_MASKED);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	apic_write(APIC_SVR, 0x100 | SPURIOUS_APIC_VECTOR);
	apic_write(APIC_ESR, 0);
	apic_eoi();
}

void lapic_timer_init(bool oneshot)
{
	apic_write(APIC_TDCR, 0x3); /* divide by 16 */
	if (!lapic_timer_ticks_per_jiffy) {
		/* Count down from the top for 10 ms of TSC time. */
		apic_write(APIC_LVTT, APIC_LVT_MASKED);
		apic_write(APIC_TMICT, 0xffffffff);
		udelay(10000);
		u32 elapsed = 0xffffffff - apic_read(APIC_TMCCT);
		apic_write(APIC_TMICT, 0);
		lapic_timer_ticks_per_jiffy = elapsed * 100 / HZ; /* 10 ms -> 1 s / HZ */
		if (!lapic_timer_ticks_per_jiffy)
			lapic_timer_ticks_per_jiffy = 1;
		pr_info("apic: %s mode, timer %u.%03u MHz (bus/16), %u ticks per %d ms tick\n",
			use_x2apic ? "x2APIC" : "xAPIC", elapsed / 10000, elapsed / 10 % 1000,
			lapic_timer_ticks_per_jiffy, 1000 / HZ);
	}
	/* Periodic: an interrupt every tick. One-shot: the first tick now, and
	 * each interrupt arms the next event (kernel/time.c). */
	apic_write(APIC_LVTT, (oneshot ? 0 : APIC_TIMER_PERIODIC) | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TMICT, lapic_timer_ticks_per_jiffy);
}

void lapic_timer_oneshot(u32 count)
{
	apic_write(APIC_TMICT, count ? count : 1); /* 0 would stop the timer */
}
