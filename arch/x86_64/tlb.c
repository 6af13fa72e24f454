/* TLB shootdown: change the page tables first, then ask every CPU
 * (smp_call_function with wait) to flush; only when all have answered may
 * the old translation's memory be reused. The per-mm variant for user page
 * tables, which flushes only the CPUs in the mm's CPU mask, builds on this. */
#include "arch/x86_64/tlb.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/page.h"
#include "arch/x86_64/pgtable.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"

DEFINE_PER_CPU(unsigned long, tlb_flush_count);

void __flush_tlb_one_kernel(unsigned long addr)
{
	invlpg(addr);
}

void __flush_tlb_all(void)
{
	u64 cr4 = read_cr4();
	write_cr4(cr4 & ~X86_CR4_PGE); /* drops global entries too */
	write_cr4(cr4);
}

struct flush_range {
	unsigned long start, end;
};

static void do_flush_range(void *arg)
{
	const struct flush_range *r = arg;
	if ((r->end - r->start) / PAGE_SIZE > TLB_FLUSH_ALL_THRESHOLD) {
		__flush_tlb_all();
	} else {
		for (unsigned long a = r->start & PAGE_MASK; a < r->end; a += PAGE_SIZE)
			__flush_tlb_one_kernel(a);
	}
	this_cpu_write(tlb_flush_count, this_cpu_read(tlb_flush_count) + 1);
}

void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	struct flush_range r = { start, end };
	on_each_cpu(do_flush_range, &r, true);
}

DEFINE_PER_CPU(unsigned long, tlb_user_flush_count);
/* The user PGD each CPU has loaded (0: none yet), written by switch_mm
 * just before its CR3 write: a flush skips a CPU running another mm
 * (mm_cpumask's bits are never cleared, so without this every flush would
 * interrupt every CPU the mm ever ran on). Linux's cpu_tlbstate.loaded_mm
 * serves the same. */
DEFINE_PER_CPU(unsigned long, loaded_pgd_pa);

void tlb_note_loaded_pgd(phys_addr_t pgd_pa) { this_cpu_write(loaded_pgd_pa, pgd_pa); }

struct user_flush {
	phys_addr_t pgd_pa;
	unsigned long start, end;
};

static void do_flush_user_range(void *arg)
{
	const struct user_flush *f = arg;
	if ((read_cr3() & PTE_PFN_MASK) != f->pgd_pa)
		return;
	if ((f->end - f->start) / PAGE_SIZE > TLB_FLUSH_ALL_THRESHOLD) {
		write_cr3(read_cr3()); /* user entries are not global */
	} else {
		/* INVLPG also drops the paging-structure caches, so freed page
		 * tables are covered by the same range. */
		for (unsigned long a = f->start & PAGE_MASK; a < f->end; a += PAGE_SIZE)
			invlpg(a);
	}
	this_cpu_write(tlb_user_flush_count, this_cpu_read(tlb_user_flush_count) + 1);
}

void flush_tlb_user_range(const struct cpumask *mask, phys_addr_t pgd_pa, unsigned long start,
			  unsigned long end)
{
	struct user_flush f = { pgd_pa, start, end };
	unsigned long flags;
	/* The caller's page-table stores must be visible before the mask is
	 * read: a CPU that sets its bit afterwards (switch_mm, a locked
	 * operation) then walks the new tables. x86 lets a load pass an
	 * earlier store, so a full fence. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	local_irq_save(flags);
	unsigned cpu = smp_processor_id();
	struct cpumask others = { mask->bits & ~(1ull << cpu) };
	/* A CPU that has another mm loaded has no translation of this one
	 * (no PCIDs: its CR3 write dropped them), and one that loads it
	 * after the fence above walks the tables as they are now. */
	for (u64 b = others.bits; b; b &= b - 1) {
		unsigned c = (unsigned)__builtin_ctzll(b);
		if (READ_ONCE(per_cpu(loaded_pgd_pa, c)) != pgd_pa)
			others.bits &= ~(1ull << c);
	}
	bool local = mask->bits >> cpu & 1;
	local_irq_restore(flags);
	if (others.bits)
		smp_call_function_many(&others, do_flush_user_range, &f, true);
	if (local) {
		local_irq_save(flags);
		do_flush_user_range(&f);
		local_irq_restore(flags);
	}
}

unsigned long tlb_user_flushes(unsigned cpu)
{
	return per_cpu(tlb_user_flush_count, cpu);
}

unsigned long tlb_shootdowns_handled(unsigned cpu)
{
	return per_cpu(tlb_flush_count, cpu);
}
