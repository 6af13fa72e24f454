/* The NUMA topology model (see numa.h for its invariants). Filled from ACPI
 * by drivers/acpi/numa/srat.c; this file holds what does not depend on ACPI,
 * and hands the model on: the RAM to memblock, the CPUs to
 * kernel/topology.h. */
#include "mm/numa.h"
#include "drivers/firmware/memmap.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/memblock.h"
#include "mm/page.h"

struct numa_topology numa_topology;

int node_distance(int a, int b)
{
	const struct numa_topology *t = &numa_topology;
	if (a < 0 || b < 0 || (unsigned)a >= t->nr_nodes || (unsigned)b >= t->nr_nodes)
		return a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
	return t->distance[a][b];
}

u64 node_ram_bytes(int nid)
{
	if (nid < 0 || (unsigned)nid >= numa_topology.nr_nodes)
		return 0;
	return numa_topology.nodes[nid].ram_bytes;
}

u64 numa_memblks_to_memblock(const struct numa_topology *t, phys_addr_t limit)
{
	u64 dropped = 0;
	bool whole_page[MAX_NUMNODES] = { false };
	for (unsigned i = 0; i < t->nr_memblks; i++) {
		const struct numa_memblk *b = &t->memblks[i];
		u64 start = ALIGN_UP(b->start, PAGE_SIZE), end = ALIGN_DOWN(b->end, PAGE_SIZE);
		if (start >= end)
			continue; /* no whole page in it (rounded, start passes end) */
		whole_page[b->nid] = true;
		if (end > limit) {
			dropped += end - max(start, limit);
			end = limit;
		}
		if (start < end)
			memblock_add_node(start, end - start, b->nid);
	}
	/* As Linux, where memblock's pfn walks round a range inwards: a node
	 * whose RAM holds no whole page has no struct page, so it is
	 * memoryless to the allocator and its CPUs take the nearest node
	 * with memory (free_area_init's fallback lists). Said once. */
	for (unsigned n = 0; n < t->nr_nodes; n++)
		if (t->nodes[n].ram_bytes && !whole_page[n])
			pr_warn("NUMA: node %u (pxm %u) has no whole page of memory (%llu bytes of RAM in "
				"its ranges); memoryless to the allocator, its CPUs allocate from the "
				"nearest node with memory\n",
				n, t->nodes[n].pxm, (unsigned long long)t->nodes[n].ram_bytes);
	return dropped;
}

void numa_publish_cpus(const struct numa_topology *t)
{
	u32 apic_ids[NR_CPUS];
	int nids[NR_CPUS];
	unsigned nr = t->nr_cpus < NR_CPUS ? t->nr_cpus : NR_CPUS;
	for (unsigned c = 0; c < nr; c++) {
		apic_ids[c] = t->cpus[c].apic_id;
		nids[c] = t->cpus[c].nid;
	}
	set_cpu_topology(nr, apic_ids, nids);
}

void numa_topology_reset(struct numa_topology *t)
{
	memset(t, 0, sizeof(*t));
}

int numa_pxm_to_node(struct numa_topology *t, u32 pxm, bool create)
{
	for (unsigned n = 0; n < t->nr_nodes; n++)
		if (t->nodes[n].pxm == pxm)
			return (int)n;
	if (!create || t->nr_nodes == MAX_NUMNODES)
		return NUMA_NO_NODE;
	t->nodes[t->nr_nodes].pxm = pxm;
	return (int)t->nr_nodes++;
}

void numa_default_distances(struct numa_topology *t)
{
	for (unsigned a = 0; a < MAX_NUMNODES; a++)
		for (unsigned b = 0; b < MAX_NUMNODES; b++)
			t->distance[a][b] = a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
}

void numa_fallback_single_node(struct numa_topology *t, const struct memmap *map)
{
	t->nr_nodes = 1;
	memset(t->nodes, 0, sizeof(t->nodes));
	t->nr_memblks = 0;
	for (unsigned i = 0; i < map->nr && t->nr_memblks < MAX_NUMA_MEMBLKS; i++) {
		const struct memmap_entry *e = &map->entries[i];
		if (e->type != MEMMAP_RAM)
			continue;
		t->memblks[t->nr_memblks++] = (struct numa_memblk){ e->start, e->end, 0 };
		t->nodes[0].ram_bytes += e->end - e->start;
	}
	t->nodes[0].declared_bytes = t->nodes[0].ram_bytes;
	for (unsigned c = 0; c < t->nr_cpus; c++)
		t->cpus[c].nid = 0;
	t->nodes[0].nr_cpus = t->nr_cpus;
	t->have_srat = false;
	t->have_slit = false;
	numa_default_distances(t);
}

void numa_print(const struct numa_topology *t)
{
	pr_info("NUMA: %u node%s, %u CPU%s (%s, %s)\n", t->nr_nodes, t->nr_nodes == 1 ? "" : "s",
		t->nr_cpus, t->nr_cpus == 1 ? "" : "s", t->have_srat ? "from SRAT" : "no SRAT",
		t->have_slit ? "distances from SLIT" : "default distances");
	for (unsigned n = 0; n < t->nr_nodes; n++) {
		char cpus[256];
		size_t len = 0;
		cpus[0] = 0;
		for (unsigned c = 0; c < t->nr_cpus; c++)
			if (t->cpus[c].nid == (int)n)
				len += snprintf(cpus + len, len < sizeof(cpus) ? sizeof(cpus) - len : 0,
						"%s%u", len ? "," : "", c);
		const struct numa_node_info *ni = &t->nodes[n];
		pr_info("  node %u (pxm %u): %llu MiB (%llu MiB usable RAM), CPUs: %s%s\n", n, ni->pxm,
			(unsigned long long)((ni->declared_bytes + MiB(1) / 2) >> 20),
			(unsigned long long)(ni->ram_bytes >> 20), len ? cpus : "none",
			ni->ram_bytes ? "" : "  [memoryless]");
		for (unsigned b = 0; b < t->nr_memblks; b++)
			if (t->memblks[b].nid == (int)n)
				pr_info("    [mem %#018llx-%#018llx]\n",
					(unsigned long long)t->memblks[b].start,
					(unsigned long long)t->memblks[b].end - 1);
	}
	char line[8 * MAX_NUMNODES + 16];
	size_t len = snprintf(line, sizeof(line), "node ");
	for (unsigned b = 0; b < t->nr_nodes; b++)
		len += snprintf(line + len, sizeof(line) - len, "%4u", b);
	pr_info("NUMA distances:\n  %s\n", line);
	for (unsigned a = 0; a < t->nr_nodes; a++) {
		len = snprintf(line, sizeof(line), "%4u:", a);
		for (unsigned b = 0; b < t->nr_nodes; b++)
			len += snprintf(line + len, sizeof(line) - len, "%4u", t->distance[a][b]);
		pr_info("  %s\n", line);
	}
	for (unsigned c = 0; c < t->nr_cpus; c++)
		pr_info("  CPU %u: APIC id %u%s, node %d%s\n", c, t->cpus[c].apic_id,
			t->cpus[c].x2apic ? " (x2APIC entry)" : "", t->cpus[c].nid,
			t->cpus[c].boot_cpu ? ", boot CPU" : "");
}
