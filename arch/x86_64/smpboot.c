/* Application-processor start-up (Intel SDM vol. 3, 9.4, "MP initialization"):
 * the boot CPU copies the real-mode trampoline below 1 MiB, identity-maps
 * that page for the switch to long mode, gives each AP a stack, per-CPU
 * area and GDT/TSS from the AP's own node, then sends INIT-SIPI-SIPI and
 * waits for the AP to mark itself online. An AP that does not answer within
 * the timeout is reported and left out; the others carry on.
 *
 * Invariant: an AP runs kernel code only as the CPU it was started as, and
 * only if the boot CPU still counts on it. Under a loaded host an AP can
 * start after its time ran out (its INIT and STARTUP IPIs pending together:
 * the INIT meant to park it merges with the first), so "left out" is made
 * final by two claims, each an atomic exchange that either side can win:
 *   - the trampoline's parameter block names the APIC id it is for; the AP
 *     claims it (trampoline.nasm), the boot CPU withdraws it on timeout;
 *   - ap_state[cpu]: the AP claims AP_ONLINE before it goes online, the
 *     boot CPU AP_ABANDONED on timeout.
 * The loser of the first parks in the trampoline, of the second in
 * ap_start; a winning AP is waited for without a timeout (it is running).
 * Without this, a late AP read the next CPU's parameters and ran as a
 * second copy of that CPU, on its stack and run queue, unnoticed (two idle
 * loops on one stack write the same frames) until that CPU switched back to
 * its idle task after running a thread: a kernel panic at RIP 0. */
#include "mm/vmalloc.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/traps.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/getorder.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/topology.h"
#include "mm/kernel_map.h"

phys_addr_t trampoline_phys;
unsigned boot_cpu_index;
unsigned ap_identity_mismatches;
void (*ap_idle_entry)(void);

#define AP_STACK_ORDER 2 /* 16 KiB */
/* Linux's do_wait_cpu_cpumask waits 10 s too. Under TCG on a loaded host a
 * vCPU thread can go unscheduled for far longer than the 500 ms this once
 * was: the AP was left out for a host's load (smp.every_cpu_is_up_on_its_node
 * failed), though it was sound. Only a CPU that is really absent costs it. */
#define AP_ANSWER_TIMEOUT_NS 10000000000ull

struct trampoline_params {
	u32 cr3;
	u32 efer_nx;
	u64 stack;
	u64 entry;
	u32 cpu;
	u32 ack;     /* set by the AP once it has read the rest */
	u32 apic_id; /* the CPU these are for; TRAMPOLINE_CLAIMED by it, or WITHDRAWN */
	u32 pad;
} __packed;

#define TRAMPOLINE_CLAIMED 0xffffffffu   /* PARAM_CLAIMED in trampoline.nasm */
#define TRAMPOLINE_WITHDRAWN 0xfffffffeu /* no CPU's id */

_Static_assert(sizeof(struct trampoline_params) == 40, "trampoline.nasm has the same block at its end");

enum ap_state { AP_STARTING, AP_ONLINE, AP_ABANDONED };
static int ap_state[NR_CPUS];

extern char trampoline_start[], trampoline_end[];

/* Each AP's stack, for backtraces (kernel_stack_contains). */
static u64 ap_stack_lo[NR_CPUS], ap_stack_hi[NR_CPUS];

static bool on_ap_stack(u64 addr)
{
	for (unsigned c = 0; c < NR_CPUS; c++)
		if (addr >= ap_stack_lo[c] && addr < ap_stack_hi[c])
			return true;
	return false;
}

__noreturn void ap_start(unsigned cpu);
__noreturn void ap_start(unsigned cpu)
{
	gdt_load(per_cpu(cpu_tables, cpu));
	load_per_cpu_base(cpu);
	idt_load();
	/* Only this CPU's tables so far. Too late: stay out, interrupts off
	 * (an NMI finds the IDT loaded above). */
	int starting = AP_STARTING;
	if (!__atomic_compare_exchange_n(&ap_state[cpu], &starting, AP_ONLINE, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		for (;;)
			halt();
	cpu_init_features();
	lapic_init();
	smp_prepare_this_cpu();
	if (lapic_id() != cpu_physical_id(cpu)) {
		__atomic_fetch_add(&ap_identity_mismatches, 1, __ATOMIC_RELAXED);
		pr_warn("smp: CPU %u came up with APIC id %u, expected %u\n", cpu, lapic_id(),
			cpu_physical_id(cpu));
	}
	tick_start_this_cpu();
	__atomic_fetch_or(&cpu_online_mask.bits, 1ull << cpu, __ATOMIC_RELEASE);
	if (ap_idle_entry)
		ap_idle_entry();
	__asm__ volatile("sti");
	for (;;)
		halt();
}

static struct trampoline_params *tramp_params(void)
{
	size_t size = (size_t)(trampoline_end - trampoline_start);
	return (struct trampoline_params *)((u8 *)__va(trampoline_phys) + size - sizeof(struct trampoline_params));
}

static bool start_one(unsigned cpu)
{
	int nid = cpu_to_node(cpu);
	u32 apic_id = cpu_physical_id(cpu);
	/* As Linux's acpi_parse_x2apic ignoring an id !apic_id_valid(): an
	 * x2APIC entry's id of 255 or more, on a CPU run in xAPIC mode, cannot
	 * be named by INIT or STARTUP (its low 8 bits would start another CPU,
	 * a running one, or all of them through the broadcast id 0xff). */
	if (!apic_id_valid(apic_id)) {
		pr_err("smp: CPU %u (APIC id %u) cannot be addressed in %s mode; left out\n", cpu, apic_id,
		       x2apic_enabled() ? "x2APIC" : "xAPIC");
		return false;
	}
	/* From vmalloc, with a guard page below (CONFIG_VMAP_STACK): the AP
	 * enters long mode on swapper_pg_dir, which maps the area. */
	void *stack = __vmalloc_node_range(PAGE_SIZE << AP_STACK_ORDER, PAGE_SIZE << AP_STACK_ORDER, VMALLOC_START,
					   VMALLOC_END, GFP_KERNEL, PAGE_KERNEL_VMALLOC, VM_STACK, nid,
					   __builtin_return_address(0));
	unsigned tables_order = get_order(sizeof(struct cpu_tables));
	struct cpu_tables *tables = cpu_alloc_pages(cpu, tables_order); /* zeroed */
	if (!stack || !tables || ist_stacks_alloc(tables, nid) || !setup_per_cpu_area(cpu, nid)) {
		pr_err("smp: no memory to start CPU %u\n", cpu);
		vfree(stack);
		if (tables)
			ist_stacks_free(tables);
		cpu_free_pages(tables, tables_order);
		return false;
	}
	per_cpu(cpu_tables, cpu) = tables;
	u64 lo = (u64)(uintptr_t)stack;
	ap_stack_lo[cpu] = lo;
	ap_stack_hi[cpu] = lo + (PAGE_SIZE << AP_STACK_ORDER);

	struct trampoline_params *p = tramp_params();
	p->cr3 = (u32)__pa(swapper_pg_dir); /* it holds the identity map */
	p->efer_nx = boot_cpu_has(X86_FEATURE_NX) ? (u32)EFER_NXE : 0;
	p->stack = ap_stack_hi[cpu];
	p->entry = (u64)(uintptr_t)ap_start;
	p->cpu = cpu;
	ap_state[cpu] = AP_STARTING;
	__atomic_store_n(&p->ack, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->apic_id, apic_id, __ATOMIC_SEQ_CST);

	apic_wakeup_secondary(apic_id, trampoline_phys);
	/* Until the AP says it has read the parameter block, the block (and
	 * the trampoline) must stay as they are. */
	u64 deadline = ktime_get_ns() + AP_ANSWER_TIMEOUT_NS;
	while (!__atomic_load_n(&p->ack, __ATOMIC_ACQUIRE) && ktime_get_ns() < deadline)
		cpu_relax();
	u32 expected = apic_id;
	if (!__atomic_load_n(&p->ack, __ATOMIC_ACQUIRE) &&
	    __atomic_compare_exchange_n(&p->apic_id, &expected, TRAMPOLINE_WITHDRAWN, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		/* The block is no longer its own: if it starts after all, it
		 * parks in the trampoline. INIT parks it sooner. Its memory stays
		 * allocated. */
		apic_send_init(apic_id);
		pr_err("smp: CPU %u (APIC id %u) did not answer; left out\n", cpu, apic_id);
		return false;
	}
	/* It claimed the block: it runs, and reads it before it acknowledges. */
	while (!__atomic_load_n(&p->ack, __ATOMIC_ACQUIRE))
		cpu_relax();
	deadline = ktime_get_ns() + AP_ANSWER_TIMEOUT_NS;
	while (!cpu_online(cpu) && ktime_get_ns() < deadline)
		cpu_relax();
	int starting = AP_STARTING;
	if (!cpu_online(cpu) && __atomic_compare_exchange_n(&ap_state[cpu], &starting, AP_ABANDONED, false,
							    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		pr_err("smp: CPU %u (APIC id %u) started but did not come online; left out\n", cpu,
		       apic_id);
		return false;
	}
	/* It claimed AP_ONLINE: its online bit follows. */
	while (!cpu_online(cpu))
		cpu_relax();
	return true;
}

unsigned smp_boot_secondaries(void)
{
	cpu_present_mask = cpu_possible_mask();
	if (!trampoline_phys) {
		pr_err("smp: no trampoline page below 1 MiB; running on the boot CPU only\n");
		return 0;
	}
	size_t size = (size_t)(trampoline_end - trampoline_start);
	memcpy(__va(trampoline_phys), trampoline_start, size);
	/* While APs start, the trampoline page is also mapped at its physical
	 * address, executable, so paging can be switched on under it. */
	if (map_kernel_range_phys(trampoline_phys, PAGE_SIZE, trampoline_phys, _PAGE_PRESENT | _PAGE_RW,
				  PAGE_SHIFT, GFP_KERNEL)) {
		pr_err("smp: cannot map the trampoline\n");
		return 0;
	}
	kernel_stack_contains = on_ap_stack;

	unsigned started = 0;
	for (unsigned cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (cpu == boot_cpu_index)
			continue;
		if (start_one(cpu))
			started++;
		else
			cpu_present_mask.bits &= ~(1ull << cpu);
	}

	/* The identity mapping goes, on every CPU (the APs used it). */
	unmap_kernel_range(trampoline_phys, PAGE_SIZE);
	return started;
}
