/* How many CPUs there can be and where each one sits, for code that must
 * not need mm's headers to know it (arch/, kernel/): NR_CPUS (Linux's
 * <linux/threads.h>), the number of CPUs the firmware described
 * (nr_cpu_ids), and per CPU its node and APIC id (Linux's
 * x86_cpu_to_node_map and x86_cpu_to_apicid behind cpu_to_node() and
 * cpu_physical_id()). The NUMA layer (mm/numa.h) keeps the nodes.
 *
 * Invariant: for cpu < nr_cpu_ids, cpu_to_node(cpu) is a node id below
 * MAX_NUMNODES (every CPU has a node); beyond it, NUMA_NO_NODE and
 * cpu_physical_id(cpu) is BAD_APICID. The map itself holds node 0 past
 * nr_cpu_ids (and before the firmware's tables are read), so that
 * numa_node_id() (kernel/smp.h) reads it with no test on every allocation
 * without a node. Boot code
 * publishes the map once, from the firmware's tables (set_cpu_topology),
 * before any other CPU starts; it is read-only afterwards, so readers take
 * no lock. */
#ifndef KERNEL_TOPOLOGY_H
#define KERNEL_TOPOLOGY_H

#include "kernel/types.h"

#define NR_CPUS 64
#ifndef NUMA_NO_NODE
#define NUMA_NO_NODE (-1)
#endif

extern unsigned nr_cpu_ids;
extern int x86_cpu_to_node_map[NR_CPUS];
extern u32 x86_cpu_to_apicid[NR_CPUS];

/* Inline: numa_node_id() is asked on every allocation without a node. */
static inline int cpu_to_node(unsigned cpu)
{
	return cpu < nr_cpu_ids ? x86_cpu_to_node_map[cpu] : NUMA_NO_NODE;
}
/* No CPU's APIC id (the x2APIC broadcast; Linux's BAD_APICID is 0xffff,
 * a valid x2APIC id): what a CPU the firmware did not describe has, so an
 * IPI meant for it reaches no CPU (arch/x86_64/apic.c refuses it) instead
 * of the one with APIC id 0. */
#define BAD_APICID 0xffffffffu
static inline u32 cpu_physical_id(unsigned cpu) { return cpu < NR_CPUS ? x86_cpu_to_apicid[cpu] : BAD_APICID; }
static inline unsigned num_possible_cpus(void) { return nr_cpu_ids; }

/* Publishes nr CPUs, CPU c with APIC id apic_ids[c] on node nids[c]. */
void set_cpu_topology(unsigned nr, const u32 *apic_ids, const int *nids);

#endif
