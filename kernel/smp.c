/* Per-CPU areas and cross-CPU function calls.
 *
 * A function call to another CPU is a call_single_data (csd) queued on the
 * target's list, then a CALL_FUNCTION IPI. The target runs every queued
 * csd from its interrupt handler and clears the csd's pending flag (with
 * release semantics), which is what a waiting sender spins on. Each sender
 * owns one csd per target, reused only once its previous call finished, so
 * no call allocates. Senders wait with interrupts enabled, so two CPUs
 * calling each other both make progress. */
#include "kernel/sections.h"
#include "kernel/smp.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/traps.h"
#include "lib/getorder.h"
#include "lib/list.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "mm/page_alloc.h"

/* The first per-CPU variable: this area's own offset (read at %gs:0). */
__section(".data.percpu.first") unsigned long this_cpu_off;
DEFINE_PER_CPU(unsigned, cpu_number);

unsigned long __per_cpu_offset[NR_CPUS];
struct cpumask cpu_online_mask;
struct cpumask cpu_present_mask;
unsigned long ipi_calls_handled[NR_CPUS];

#define MSR_GS_BASE 0xc0000101

/* The per-CPU template as the image had it, before the boot CPU (which
 * uses the template itself as its area) changed anything in it: each AP's
 * area starts from this, not from the boot CPU's live values (its
 * counters, its current task). */
static u8 per_cpu_pristine[8192] __aligned(64);

void save_per_cpu_template(void)
{
	size_t size = (size_t)(__per_cpu_end - __per_cpu_start);
	/* Too big a template is reported by setup_per_cpu_area (there is no
	 * console yet). */
	memcpy(per_cpu_pristine, __per_cpu_start, min(size, sizeof(per_cpu_pristine)));
}

void *cpu_alloc_pages(unsigned cpu, unsigned order)
{
	struct page *p = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL | __GFP_ZERO, order);
	return p ? page_address(p) : NULL;
}

void cpu_free_pages(void *addr, unsigned order)
{
	if (addr)
		__free_pages(virt_to_page(addr), order);
}

unsigned long setup_per_cpu_area(unsigned cpu, int nid)
{
	size_t size = (size_t)(__per_cpu_end - __per_cpu_start);
	unsigned order = get_order(size);
	if (size > sizeof(per_cpu_pristine))
		panic("smp: the per-CPU template is %zu bytes, more than the %zu kept for the APs",
		      size, sizeof(per_cpu_pristine));
	if (cpu == boot_cpu_index) {
		/* The boot CPU keeps the template in the kernel image. */
		__per_cpu_offset[cpu] = 0;
		return (unsigned long)&this_cpu_off;
	}
	struct page *p = alloc_pages_node(nid, GFP_KERNEL | __GFP_ZERO, order);
	if (!p)
		return 0;
	char *area = page_address(p);
	memcpy(area, per_cpu_pristine, size);
	unsigned long off = (unsigned long)area - (unsigned long)__per_cpu_start;
	__per_cpu_offset[cpu] = off;
	per_cpu(this_cpu_off, cpu) = off;
	per_cpu(cpu_number, cpu) = cpu;
	return (unsigned long)&this_cpu_off + off;
}

void load_per_cpu_base(unsigned cpu)
{
	u64 base = (u64)(uintptr_t)&this_cpu_off + __per_cpu_offset[cpu];
	/* Where the paranoid entry (NMI, #DF, #MC) finds it without trusting
	 * GS, first: an NMI may come as soon as the MSR is written. */
	ist_set_kernel_gs_base(per_cpu(cpu_tables, cpu), base);
	wrmsr(MSR_GS_BASE, base);
}

struct call_single_data {
	struct list_head list;
	smp_call_func_t fn;
	void *info;
	unsigned pending; /* set by the sender, cleared by the target when done */
};

struct call_queue {
	spinlock_t lock;
	struct list_head list;
};

DEFINE_PER_CPU(struct call_queue, call_queue);
/* This CPU's csds, one per target CPU. */
DEFINE_PER_CPU(struct call_single_data, csd_to[NR_CPUS]);

static void call_function_interrupt(struct pt_regs *regs)
{
	(void)regs;
	struct call_queue *q = this_cpu_ptr(&call_queue);
	LIST_HEAD(work);

	apic_eoi();
	spin_lock(&q->lock);
	while (!list_empty(&q->list)) {
		struct list_head *e = q->list.next;
		list_del(e);
		list_add_tail(e, &work);
	}
	spin_unlock(&q->lock);
	while (!list_empty(&work)) {
		struct call_single_data *csd = list_entry(work.next, struct call_single_data, list);
		list_del(&csd->list);
		/* Read fn/info before releasing the csd to its sender. */
		smp_call_func_t fn = csd->fn;
		void *info = csd->info;
		fn(info);
		ipi_calls_handled[smp_processor_id()]++;
		__atomic_store_n(&csd->pending, 0, __ATOMIC_RELEASE);
	}
}

static void csd_wait(struct call_single_data *csd)
{
	while (__atomic_load_n(&csd->pending, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void queue_call(unsigned cpu, smp_call_func_t fn, void *info)
{
	struct call_single_data *csd = &this_cpu_ptr(&csd_to)[0][cpu];
	csd_wait(csd); /* the previous call through this csd must be done */
	csd->fn = fn;
	csd->info = info;
	__atomic_store_n(&csd->pending, 1, __ATOMIC_RELAXED);
	struct call_queue *q = &per_cpu(call_queue, cpu);
	unsigned long flags;
	spin_lock_irqsave(&q->lock, flags);
	list_add_tail(&csd->list, &q->list);
	spin_unlock_irqrestore(&q->lock, flags);
	apic_send_ipi(cpu_physical_id(cpu), CALL_FUNCTION_VECTOR);
}

/* Waiting for another CPU with interrupts off deadlocks when that CPU is
 * waiting for us the same way: say so once, loudly. */
static void check_wait_allowed(bool wait, void *caller)
{
	static bool warned;
	if (wait && irqs_disabled() && !oops_in_progress && !warned) {
		warned = true;
		pr_err("BUG: smp_call_function with wait called with interrupts off (from %p)\n",
		       caller);
	}
}

int smp_call_function_single(unsigned cpu, smp_call_func_t fn, void *info, bool wait)
{
	if (!cpu_online(cpu))
		return -ENXIO;
	if (cpu == smp_processor_id()) {
		unsigned long flags;
		local_irq_save(flags);
		fn(info);
		local_irq_restore(flags);
		return 0;
	}
	check_wait_allowed(wait, __builtin_return_address(0));
	queue_call(cpu, fn, info);
	if (wait)
		csd_wait(&this_cpu_ptr(&csd_to)[0][cpu]);
	return 0;
}

void smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, bool wait)
{
	unsigned me = smp_processor_id(), cpu;
	check_wait_allowed(wait, __builtin_return_address(0));
	for_each_online_cpu(cpu)
		if (cpu != me && (mask->bits >> cpu & 1))
			queue_call(cpu, fn, info);
	if (!wait)
		return;
	for_each_online_cpu(cpu)
		if (cpu != me && (mask->bits >> cpu & 1))
			csd_wait(&this_cpu_ptr(&csd_to)[0][cpu]);
}

void on_each_cpu(smp_call_func_t fn, void *info, bool wait)
{
	struct cpumask all = cpu_online_mask;
	smp_call_function_many(&all, fn, info, wait);
	unsigned long flags;
	local_irq_save(flags);
	fn(info);
	local_irq_restore(flags);
}

void smp_prepare_this_cpu(void)
{
	struct call_queue *q = this_cpu_ptr(&call_queue);
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->list);
	static bool registered;
	if (!registered) {
		register_interrupt_handler(CALL_FUNCTION_VECTOR, call_function_interrupt);
		registered = true;
	}
}
