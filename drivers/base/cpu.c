/* /sys/devices/system/cpu: the CPU lists Linux's drivers/base/cpu.c shows
 * (online, possible, present), in its format (show_cpus_attr:
 * cpumap_print_to_pagebuf with a list, "0-3,8\n"). glibc's
 * sysconf(_SC_NPROCESSORS_ONLN and _CONF) read "online" and "possible";
 * musl's ask sched_getaffinity.
 *
 * Invariant: each file is printed from the kernel's own masks at the
 * moment it is generated (cpu_online_mask, cpu_possible_mask()), never
 * from a count kept aside. */
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/smp.h"

static void cpu_mask_show(struct seq_buf *m, u64 bits)
{
	bool set[NR_CPUS];
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		set[cpu] = bits >> cpu & 1;
	print_list(m, set, NR_CPUS);
}

static void cpu_online_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	cpu_mask_show(m, __atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE));
}

static void cpu_possible_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	cpu_mask_show(m, cpu_possible_mask().bits);
}

static void cpu_present_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	cpu_mask_show(m, cpu_present_mask.bits);
}

static const struct proc_dir_entry cpu_root_dir __proc_entry = {
	.parent = &sys_devices_system_dir, .name = "cpu", .mode = S_IFDIR | 0555,
};
PROC_FILE(cpu_online_file, cpu_root_dir, "online", cpu_online_show);
PROC_FILE(cpu_possible_file, cpu_root_dir, "possible", cpu_possible_show);
PROC_FILE(cpu_present_file, cpu_root_dir, "present", cpu_present_show);
