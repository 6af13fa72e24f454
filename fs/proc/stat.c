/* /proc/stat (Linux 6.1's fs/proc/stat.c show_stat): the CPUs' time in
 * USER_HZ ticks, summed and per online CPU (user, nice, system, idle,
 * iowait, irq, softirq, steal, guest, guest_nice: kernel/sched.h's
 * kernel_cpustat, user and system sampled by each CPU's tick, idle
 * measured from halt to interrupt; the columns mmlab does not
 * account are 0), the interrupts handled, context switches, the boot
 * time, the tasks made since boot, the runnable tasks and those blocked
 * on I/O (none: mmlab has no I/O wait), and the softirqs (none: mmlab
 * has none). Where mmlab differs: the intr line has the total only, not
 * Linux's count per IRQ number after it; every interrupt here is a local
 * APIC vector (timer, IPIs), which Linux also counts in the total alone
 * (arch_irq_stat_cpu). */
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/traps.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"
#include "mm/util.h"

#define NR_SOFTIRQS 10

static void put_cpustat(struct seq_buf *m, const struct kernel_cpustat *k)
{
	for (int i = 0; i < NR_STATS; i++) {
		/* Linux's column order: user nice system idle iowait irq
		 * softirq steal guest guest_nice. */
		static const int order[NR_STATS] = { CPUTIME_USER, CPUTIME_NICE, CPUTIME_SYSTEM, CPUTIME_IDLE,
						     CPUTIME_IOWAIT, CPUTIME_IRQ, CPUTIME_SOFTIRQ, CPUTIME_STEAL,
						     CPUTIME_GUEST, CPUTIME_GUEST_NICE };
		seq_buf_printf(m, " %llu", (unsigned long long)nsec_to_clock_t(k->cpustat[order[i]]));
	}
	seq_buf_puts(m, "\n");
}

static void stat_proc_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	/* One copy of each CPU's figures, so that the sum is that of the
	 * lines (NR_CPUS of them would be 5 KiB of the kernel stack). */
	struct kernel_cpustat sum = { { 0 } }, *cpus = kvmalloc_array(NR_CPUS, sizeof(*cpus), GFP_KERNEL);
	unsigned long ctxt = 0;
	unsigned int cpu;
	if (!cpus) {
		m->len = m->size + 1; /* as an overflow: procfs_fill retries, then says -ENOMEM */
		return;
	}
	for_each_online_cpu(cpu) {
		kcpustat_cpu_fetch(&cpus[cpu], cpu);
		for (int i = 0; i < NR_STATS; i++)
			sum.cpustat[i] += cpus[cpu].cpustat[i];
		ctxt += nr_context_switches_cpu(cpu);
	}
	seq_buf_puts(m, "cpu ");
	put_cpustat(m, &sum);
	for_each_online_cpu(cpu) {
		seq_buf_printf(m, "cpu%u", cpu);
		put_cpustat(m, &cpus[cpu]);
	}
	/* The boot time: the wall clock less the time since boot. */
	u64 btime = ktime_get_real_offset_ns() / (u64)NSEC_PER_SEC;
	seq_buf_printf(m, "intr %lu\nctxt %lu\nbtime %llu\nprocesses %lu\nprocs_running %lu\nprocs_blocked 0\n",
		       READ_ONCE(nr_interrupts_handled), ctxt, (unsigned long long)btime, READ_ONCE(total_forks),
		       nr_running());
	kvfree(cpus);
	seq_buf_puts(m, "softirq 0");
	for (int i = 0; i < NR_SOFTIRQS; i++)
		seq_buf_puts(m, " 0");
	seq_buf_puts(m, "\n");
}

PROC_FILE(stat_entry, proc_root_dir, "stat", stat_proc_show);
