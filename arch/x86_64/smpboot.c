/* Application-processor start-up (Intel SDM vol. 3, 9.4, "MP initialization"):
 * the boot CPU copies the real-mode trampoline below 1 MiB, identity-maps
 * that page for the switch to long mode, gives each AP a stack, per-CPU
 * area and GDT/TSS from the AP's own node, then starts them all at once and
 * waits once: INIT-SIPI-SIPI to every AP in one sweep, then one timeout for
 * all of them to answer, then one for those that answered to come online.
 * Firmware that lists CPUs the machine does not have (the MADT may list
 * more than NR_CPUS) costs one timeout, not one per absent CPU. This is
 * Linux 6.5's parallel bring-up: each AP finds its own CPU number from its
 * APIC id (trampoline.nasm), as head_64.S does in cpuid_to_apicid[], instead
 * of reading one shared parameter block handed to one CPU at a time. An AP
 * that does not answer is reported and left out; the others carry on.
 *
 * Invariant: an AP runs kernel code only as the CPU it was started as, and
 * only if the boot CPU still counts on it. Under a loaded host an AP can
 * start after its time ran out (its INIT and STARTUP IPIs pending together:
 * the INIT meant to park it merges with the first), so "left out" is made
 * final by two claims, each an atomic exchange that either side can win:
 *   - the trampoline's slot for a CPU number names the APIC id it is for;
 *     the AP with that id claims it (ARMED -> CLAIMED, trampoline.nasm),
 *     the boot CPU withdraws it on timeout (ARMED -> WITHDRAWN);
 *   - ap_state[cpu]: the AP claims AP_ONLINE before it goes online, the
 *     boot CPU AP_ABANDONED on timeout.
 * The loser of the first parks in the trampoline, of the second in
 * ap_start; a winner is waited for without a timeout until it has left the
 * trampoline (ap_start marks its slot ENTERED), since the trampoline's
 * identity mapping must outlive every AP that runs on it. An AP has only its
 * own slot, stack and CPU number: before the slots, one block served every
 * CPU in turn, and a late AP read the next CPU's parameters and ran as a
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
unsigned smp_aps_never_answered;
void (*ap_idle_entry)(void);

#define AP_STACK_ORDER 2 /* 16 KiB */
/* Linux's do_wait_cpu_cpumask waits 10 s too. Under TCG on a loaded host a
 * vCPU thread can go unscheduled for far longer than the 500 ms this once
 * was: the AP was left out for a host's load (smp.every_cpu_is_up_on_its_node
 * failed), though it was sound. Only a CPU that is really absent costs it,
 * and all absent CPUs together cost it once. */
#define AP_ANSWER_TIMEOUT_NS 10000000000ull

/* One per CPU number (the slot's index); trampoline.nasm has the layout. */
struct trampoline_slot {
	u32 apic_id; /* the CPU this slot starts; BAD_APICID when none */
	u32 state;   /* enum trampoline_slot_state */
	u64 stack;
} __packed;

enum trampoline_slot_state {
	SLOT_EMPTY,     /* no AP may take it (the boot CPU's, one left out) */
	SLOT_ARMED,     /* SLOT_ARMED in trampoline.nasm: its AP may claim it */
	SLOT_CLAIMED,   /* by its AP, which is running the trampoline */
	SLOT_WITHDRAWN, /* by the boot CPU: it stopped waiting for this AP */
	SLOT_ENTERED,   /* by its AP in ap_start: it has left the trampoline */
};

struct trampoline_params {
	u32 cr3;
	u32 efer_nx;
	u64 entry;
	/* Offsets in the page as assembled; the page's address is added once. */
	u32 pm32_offset;
	u16 pm32_selector;
	u16 gdt_limit;
	u32 gdt_base;
	u32 lm64_offset;
	u16 lm64_selector;
	u16 pad0;
	u32 pad1;
	struct trampoline_slot slots[NR_CPUS];
} __packed;

_Static_assert(sizeof(struct trampoline_slot) == 16, "SLOT_SIZE in trampoline.nasm");
_Static_assert(__builtin_offsetof(struct trampoline_params, slots) == 40,
	       "trampoline.nasm has the same block at its end");

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

/* Through the kernel's own mapping of the page, which outlives the identity
 * mapping the APs start on. */
static struct trampoline_params *tramp_params(void)
{
	size_t size = (size_t)(trampoline_end - trampoline_start);
	return (struct trampoline_params *)((u8 *)__va(trampoline_phys) + size - sizeof(struct trampoline_params));
}

static u32 slot_state(unsigned cpu)
{
	return __atomic_load_n(&tramp_params()->slots[cpu].state, __ATOMIC_ACQUIRE);
}

__noreturn void ap_start(unsigned cpu);
__noreturn void ap_start(unsigned cpu)
{
	/* It claimed its slot: off the trampoline now, which the boot CPU
	 * waits for before it takes the page's identity mapping away. */
	__atomic_store_n(&tramp_params()->slots[cpu].state, SLOT_ENTERED, __ATOMIC_RELEASE);
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

/* Gives the AP its stack, tables and per-CPU area and arms its slot;
 * false if it is left out before any IPI. */
static bool prepare_one(unsigned cpu)
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

	struct trampoline_slot *slot = &tramp_params()->slots[cpu];
	slot->stack = ap_stack_hi[cpu];
	slot->apic_id = apic_id;
	ap_state[cpu] = AP_STARTING;
	/* Published by the STARTUP IPIs (apic_icr_write orders the stores
	 * before the IPI). */
	__atomic_store_n(&slot->state, SLOT_ARMED, __ATOMIC_SEQ_CST);
	return true;
}

/* One step of the boot CPU's wait for the APs. They answer within
 * milliseconds when they are there, so the first AP_WAIT_SPIN_NS are
 * spun (PAUSE, which under single-threaded TCG hands the host thread to
 * the APs' vCPUs); past that the wait is for a CPU that may be absent,
 * and it halts until the next interrupt (the tick: interrupts are on by
 * now), so that the 10 s for an absent CPU cost the host no CPU time. */
#define AP_WAIT_SPIN_NS 50000000ull
struct ap_wait {
	u64 since;
	unsigned long ticks; /* this CPU's ticks when the wait began */
};

static void ap_wait_begin(struct ap_wait *w)
{
	w->since = ktime_get_ns();
	w->ticks = ticks_on_cpu(smp_processor_id());
}

/* Halting needs the tick to wake it: a CPU whose timer has not ticked in
 * those 50 ms (firmware that broke it) keeps spinning. */
static void ap_wait_step(const struct ap_wait *w)
{
	if (ktime_get_ns() - w->since < AP_WAIT_SPIN_NS || ticks_on_cpu(smp_processor_id()) == w->ticks)
		cpu_relax();
	else
		__asm__ volatile("sti; hlt" ::: "memory");
}

/* True while a CPU of `cpus` is still in state `state`, until `deadline`
 * (0: no deadline). */
static bool any_slot_in(const struct cpumask *cpus, u32 state, u64 deadline)
{
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		if ((cpus->bits & (1ull << cpu)) && slot_state(cpu) == state)
			return !deadline || ktime_get_ns() < deadline;
	return false;
}

unsigned smp_trampoline_slots_open(void)
{
	unsigned open = 0;
	if (!trampoline_phys)
		return 0;
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		u32 state = slot_state(cpu);
		open += state == SLOT_ARMED || state == SLOT_CLAIMED;
	}
	return open;
}

/* Copies the trampoline and fills the part of its block every AP shares. */
static void trampoline_setup(void)
{
	size_t size = (size_t)(trampoline_end - trampoline_start);
	memcpy(__va(trampoline_phys), trampoline_start, size);
	struct trampoline_params *p = tramp_params();
	p->cr3 = (u32)__pa(swapper_pg_dir); /* it holds the identity map */
	p->efer_nx = boot_cpu_has(X86_FEATURE_NX) ? (u32)EFER_NXE : 0;
	p->entry = (u64)(uintptr_t)ap_start;
	p->pm32_offset += (u32)trampoline_phys;
	p->gdt_base += (u32)trampoline_phys;
	p->lm64_offset += (u32)trampoline_phys;
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		p->slots[cpu] = (struct trampoline_slot){ .apic_id = BAD_APICID, .state = SLOT_EMPTY };
}

unsigned smp_boot_secondaries(void)
{
	cpu_present_mask = cpu_possible_mask();
	if (!trampoline_phys) {
		pr_err("smp: no trampoline page below 1 MiB; running on the boot CPU only\n");
		return 0;
	}
	size_t size = (size_t)(trampoline_end - trampoline_start);
	if (size > PAGE_SIZE) {
		pr_err("smp: the trampoline (%zu bytes) does not fit in its page\n", size);
		return 0;
	}
	trampoline_setup();
	/* While APs start, the trampoline page is also mapped at its physical
	 * address, executable, so paging can be switched on under it. */
	if (map_kernel_range_phys(trampoline_phys, PAGE_SIZE, trampoline_phys, _PAGE_PRESENT | _PAGE_RW,
				  PAGE_SHIFT, GFP_KERNEL)) {
		pr_err("smp: cannot map the trampoline\n");
		return 0;
	}
	kernel_stack_contains = on_ap_stack;

	struct cpumask armed = { 0 };
	u32 apic_ids[NR_CPUS];
	unsigned nr_armed = 0;
	for (unsigned cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (cpu == boot_cpu_index)
			continue;
		if (prepare_one(cpu)) {
			armed.bits |= 1ull << cpu;
			apic_ids[nr_armed++] = cpu_physical_id(cpu);
		} else {
			cpu_present_mask.bits &= ~(1ull << cpu);
		}
	}

	/* All of them at once, then one wait for all to claim their slots. */
	apic_wakeup_secondaries(apic_ids, nr_armed, trampoline_phys);
	struct ap_wait wait;
	ap_wait_begin(&wait);
	u64 deadline = wait.since + AP_ANSWER_TIMEOUT_NS;
	while (any_slot_in(&armed, SLOT_ARMED, deadline))
		ap_wait_step(&wait);
	unsigned never_answered = 0;
	struct cpumask answered = { 0 };
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!(armed.bits & (1ull << cpu)))
			continue;
		u32 expected = SLOT_ARMED;
		if (__atomic_compare_exchange_n(&tramp_params()->slots[cpu].state, &expected, SLOT_WITHDRAWN,
						false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			/* The slot is no longer its own: if it starts after all,
			 * it parks in the trampoline. INIT parks it sooner. Its
			 * memory stays allocated. */
			apic_send_init(cpu_physical_id(cpu));
			pr_err("smp: CPU %u (APIC id %u) did not answer; left out\n", cpu, cpu_physical_id(cpu));
			cpu_present_mask.bits &= ~(1ull << cpu);
			never_answered++;
		} else {
			answered.bits |= 1ull << cpu;
		}
	}
	/* Those that claimed their slots run: wait until each has left the
	 * trampoline (no timeout), then once for all of them to come online. */
	while (any_slot_in(&answered, SLOT_CLAIMED, 0))
		cpu_relax();
	ap_wait_begin(&wait);
	deadline = wait.since + AP_ANSWER_TIMEOUT_NS;
	while ((__atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE) & answered.bits) != answered.bits &&
	       ktime_get_ns() < deadline)
		ap_wait_step(&wait);
	unsigned started = 0;
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!(answered.bits & (1ull << cpu)))
			continue;
		int starting = AP_STARTING;
		if (!cpu_online(cpu) && __atomic_compare_exchange_n(&ap_state[cpu], &starting, AP_ABANDONED,
								    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			pr_err("smp: CPU %u (APIC id %u) started but did not come online; left out\n", cpu,
			       cpu_physical_id(cpu));
			cpu_present_mask.bits &= ~(1ull << cpu);
			continue;
		}
		/* It claimed AP_ONLINE: its online bit follows. */
		while (!cpu_online(cpu))
			cpu_relax();
		started++;
	}
	smp_aps_never_answered = never_answered;
	if (never_answered)
		pr_err("smp: %u of %u application processors never answered; left out after one %llu s wait\n",
		       never_answered, nr_armed, AP_ANSWER_TIMEOUT_NS / 1000000000ull);

	/* The identity mapping goes, on every CPU (the APs used it). */
	unmap_kernel_range(trampoline_phys, PAGE_SIZE);
	return started;
}
