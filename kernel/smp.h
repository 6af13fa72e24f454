/* Which CPU and node the caller runs on. Only the boot CPU runs for now;
 * when the other CPUs come up these read the per-CPU area. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "mm/numa.h"

static inline unsigned smp_processor_id(void) { return 0; }
static inline int numa_node_id(void)
{
	int nid = cpu_to_node(smp_processor_id());
	return nid < 0 ? 0 : nid;
}

#endif
