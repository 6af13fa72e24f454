/* The machine's NUMA topology as the rest of the kernel sees it: which nodes
 * exist, which CPUs and which RAM ranges belong to each, and the distance
 * between any two nodes (ACPI SLIT units: 10 = local).
 *
 * Invariants: node ids are dense, 0..nr_nodes-1 (proximity domains are
 * mapped to node ids in the order the SRAT first names them, as Linux does);
 * every CPU has a node; every RAM byte of the memory map belongs to exactly
 * one node's memblks; distance[a][a] == 10 and distance[a][b] > 10. */
#ifndef MM_NUMA_H
#define MM_NUMA_H

#include "kernel/topology.h"
#include "kernel/types.h"
#include "mm/nodemask.h"

#define MAX_NUMA_MEMBLKS 128
#define LOCAL_DISTANCE 10
#define REMOTE_DISTANCE 20

struct numa_node_info {
	u32 pxm;            /* ACPI proximity domain */
	u64 declared_bytes; /* what the SRAT says the node has */
	u64 ram_bytes;      /* the part that is RAM in the memory map */
	unsigned nr_cpus;
};

struct numa_memblk {
	u64 start, end; /* [start, end), RAM only */
	int nid;
};

struct numa_cpu {
	u32 apic_id;
	u32 acpi_uid;
	int nid;
	bool x2apic;  /* listed by an x2APIC MADT entry */
	bool boot_cpu;
};

struct numa_srat_cpu {
	u32 apic_id;
	int nid;
};

struct numa_topology {
	unsigned nr_nodes;
	struct numa_node_info nodes[MAX_NUMNODES];
	struct numa_memblk memblks[MAX_NUMA_MEMBLKS];
	unsigned nr_memblks;
	u8 distance[MAX_NUMNODES][MAX_NUMNODES];
	struct numa_cpu cpus[NR_CPUS];
	unsigned nr_cpus;
	/* CPU affinities from the SRAT, matched to the MADT's CPUs later. */
	struct numa_srat_cpu srat_cpus[NR_CPUS];
	unsigned nr_srat_cpus;
	bool have_srat; /* an SRAT was found and accepted */
	bool have_slit; /* a SLIT was found and accepted */
	unsigned warnings;
};

/* The live topology, filled at boot by acpi_numa_init(); boot code then
 * publishes its CPUs (numa_publish_cpus) to kernel/topology.h, which is
 * where cpu_to_node() and the CPU count are read from. */
extern struct numa_topology numa_topology;

static inline unsigned num_online_nodes(void) { return numa_topology.nr_nodes; }
int node_distance(int a, int b);
/* Hands t's CPUs (APIC ids, nodes) to set_cpu_topology(). */
void numa_publish_cpus(const struct numa_topology *t);
u64 node_ram_bytes(int nid);

/* memblock learns each node's RAM from t (as Linux's numa_register_memblks):
 * whole pages only, and only below limit (what the direct map reaches).
 * Returns the bytes of RAM left out above limit. */
u64 numa_memblks_to_memblock(const struct numa_topology *t, phys_addr_t limit);

/* Helpers for building a topology (used by the ACPI parser and by tests). */
void numa_topology_reset(struct numa_topology *t);
/* Node id for a proximity domain, creating the node if create is set and
 * there is room; NUMA_NO_NODE otherwise. */
int numa_pxm_to_node(struct numa_topology *t, u32 pxm, bool create);
/* Collapses to one node owning all RAM and all CPUs (no or unusable SRAT). */
struct memmap;
void numa_fallback_single_node(struct numa_topology *t, const struct memmap *map);
void numa_default_distances(struct numa_topology *t);
void numa_print(const struct numa_topology *t);

#endif
