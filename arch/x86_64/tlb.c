/* TLB shootdown: change the page tables first, then ask every CPU
 * (smp_call_function with wait) to flush; only when all have answered may
 * the old translation's memory be reused. The per-mm variant for user page
 * tables, which flushes only the CPUs in the mm's CPU mask, builds on this. */
#include "arch/x86_64/tlb.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/page.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"

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

unsigned long tlb_shootdowns_handled(unsigned cpu)
{
	return per_cpu(tlb_flush_count, cpu);
}
