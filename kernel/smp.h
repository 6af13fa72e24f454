/* CPUs: which one the caller runs on, which are online, and running a
 * function on others (through inter-processor interrupts). */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/percpu.h"
#include "kernel/topology.h"

DECLARE_PER_CPU(unsigned, cpu_number);

static inline unsigned smp_processor_id(void) { return this_cpu_read(cpu_number); }

/* cpu_to_node of this CPU, read from the map without cpu_to_node's test
 * of nr_cpu_ids: the map holds a node for every index below NR_CPUS (0
 * before the firmware's tables are read, and past nr_cpu_ids: see
 * kernel/topology.h), so a CPU always finds one. */
static inline int numa_node_id(void)
{
	return x86_cpu_to_node_map[smp_processor_id()];
}

/* A set of CPUs (NR_CPUS is 64: one word). */
struct cpumask {
	u64 bits;
};
/* The CPUs in m (Linux's cpumask_weight). No POPCNT assumed (and no
 * libgcc): the lowest bit cleared until none. */
static inline unsigned cpumask_weight(const struct cpumask *m)
{
	unsigned n = 0;
	for (u64 b = m->bits; b; b &= b - 1)
		n++;
	return n;
}
extern struct cpumask cpu_online_mask;
static inline bool cpu_online(unsigned cpu) { return cpu < NR_CPUS && (__atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE) >> cpu & 1); }
static inline unsigned num_online_cpus(void)
{
	struct cpumask m = { __atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE) };
	return cpumask_weight(&m);
}
/* Linux's cpu_present_mask: the possible CPUs less those that did not
 * start (smp_boot_secondaries clears a CPU that never answered or never
 * came online, as Linux's do_boot_cpu once did with set_cpu_present(cpu,
 * false)). Written only by smp_boot_secondaries on the boot CPU; read
 * once it has returned (sysfs, tests). */
extern struct cpumask cpu_present_mask;
static inline bool cpu_present(unsigned cpu) { return cpu < NR_CPUS && (cpu_present_mask.bits >> cpu & 1); }
#define for_each_online_cpu(cpu) \
	for (cpu = 0; cpu < NR_CPUS; cpu++) if (cpu_online(cpu))

typedef void (*smp_call_func_t)(void *info);

/* Runs fn(info) on cpu (directly when it is this CPU), waiting for it to
 * finish when wait is set. Returns 0 or -ENXIO for an offline CPU. */
int smp_call_function_single(unsigned cpu, smp_call_func_t fn, void *info, bool wait);
/* Runs fn(info) on every online CPU of mask except this one. */
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, bool wait);
/* On every online CPU, this one included. */
void on_each_cpu(smp_call_func_t fn, void *info, bool wait);
/* Called on every CPU as it comes up, before it enables interrupts: its
 * cross-CPU call queue. */
void smp_prepare_this_cpu(void);

/* Counters for tests and benchmarks. */
extern unsigned long ipi_calls_handled[NR_CPUS];

#endif
