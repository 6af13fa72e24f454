/* The CPU map of kernel/topology.h (its invariant and why it takes no
 * lock are there). */
#include "kernel/topology.h"

unsigned nr_cpu_ids;
int x86_cpu_to_node_map[NR_CPUS];
u32 x86_cpu_to_apicid[NR_CPUS];

void set_cpu_topology(unsigned nr, const u32 *apic_ids, const int *nids)
{
	if (nr > NR_CPUS)
		nr = NR_CPUS;
	for (unsigned c = 0; c < nr; c++) {
		x86_cpu_to_apicid[c] = apic_ids[c];
		x86_cpu_to_node_map[c] = nids[c] >= 0 ? nids[c] : 0;
	}
	for (unsigned c = nr; c < NR_CPUS; c++) {
		x86_cpu_to_apicid[c] = BAD_APICID;
		x86_cpu_to_node_map[c] = 0; /* cpu_to_node says NUMA_NO_NODE */
	}
	nr_cpu_ids = nr;
}
