/* The files of /sys/devices/system/cpu (see drivers/base/cpu.h), in Linux's
 * format (drivers/base/cpu.c show_cpus_attr: cpumap_print_to_pagebuf with
 * a list, "0-3,8\n").
 *
 * Invariant: each file is printed from the kernel's own masks at the
 * moment it is generated (cpu_online_mask, cpu_possible_mask()), never
 * from a count kept aside. */
#include "drivers/base/cpu.h"
#include "kernel/procfs.h"
#include "kernel/sched.h"
#include "kernel/smp.h"

static void cpu_mask_show(struct seq_buf *m, u64 bits)
{
	bool set[NR_CPUS];
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		set[cpu] = bits >> cpu & 1;
	print_list(m, set, NR_CPUS);
}

void cpu_online_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	cpu_mask_show(m, __atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE));
}

void cpu_possible_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	cpu_mask_show(m, cpu_possible_mask().bits);
}

void cpu_present_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	cpu_mask_show(m, cpu_present_mask.bits);
}
