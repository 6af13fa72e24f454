/* NUMA topology from the SRAT and the SLIT, with Linux's fallbacks:
 *  - no SRAT, or an SRAT that leaves RAM uncovered: one node holds all RAM;
 *  - no SLIT, or an invalid one: 10 for local, 20 for remote;
 *  - SRAT memory that is not RAM in the memory map is ignored, as are
 *    disabled entries, hot-pluggable ranges, and proximity domains beyond
 *    MAX_NUMNODES;
 *  - a CPU that the SRAT does not place goes to node 0;
 *  - overlapping memory ranges: the same node's are merged (RAM and the
 *    declared size counted once), another node's are refused, the first
 *    entry winning (Linux's numa_cleanup_meminfo refuses the SRAT); then
 *    the nodes must cover the memory map's RAM to within 1 MiB (Linux's
 *    numa_meminfo_cover_memory), else one node. */
#include "drivers/acpi/tables.h"
#include "kernel/printk.h"
#include "lib/string.h"

/* RAM the SRAT may leave unassigned before NUMA is given up (as Linux). */
#define NUMA_COVERAGE_SLACK MiB(1)

static void srat_cpu(struct numa_topology *t, u32 pxm, u32 apic_id)
{
	int nid = numa_pxm_to_node(t, pxm, true);
	if (nid == NUMA_NO_NODE) {
		pr_warn("SRAT: proximity domain %u for APIC id %u is beyond %d nodes, ignored\n", pxm,
			apic_id, MAX_NUMNODES);
		t->warnings++;
		return;
	}
	if (t->nr_srat_cpus == NR_CPUS) {
		t->warnings++;
		return;
	}
	t->srat_cpus[t->nr_srat_cpus++] = (struct numa_srat_cpu){ apic_id, nid };
}

static bool memblk_overlaps_other_node(const struct numa_topology *t, u64 start, u64 end,
				       int nid)
{
	for (unsigned i = 0; i < t->nr_memblks; i++)
		if (t->memblks[i].nid != nid && t->memblks[i].start < end && start < t->memblks[i].end)
			return true;
	return false;
}

/* What the SRAT declared, per node, as disjoint ranges: so that a range
 * listed twice is counted once in declared_bytes. Reset by acpi_parse_srat. */
static struct numa_memblk declared[MAX_NUMA_MEMBLKS];
static unsigned nr_declared;

/* Adds the parts of [start, end) that no range of nid in list[] holds yet
 * (the list stays disjoint per node); returns the bytes added. A full list
 * drops the rest (counted in *lost). Iterative: the gaps are taken in
 * address order, each before the lowest range of nid still ahead. */
static u64 add_uncovered(struct numa_memblk *list, unsigned *nr, u64 start, u64 end, int nid,
			 u64 *lost)
{
	u64 added = 0, cur = start;
	while (cur < end) {
		const struct numa_memblk *next = NULL;
		for (unsigned i = 0; i < *nr; i++)
			if (list[i].nid == nid && list[i].start < end && cur < list[i].end &&
			    (!next || list[i].start < next->start))
				next = &list[i];
		u64 gap_end = next ? max(cur, next->start) : end, resume = next ? next->end : end;
		if (cur < gap_end) {
			if (*nr == MAX_NUMA_MEMBLKS) {
				*lost += gap_end - cur;
			} else {
				list[(*nr)++] = (struct numa_memblk){ cur, gap_end, nid };
				added += gap_end - cur;
			}
		}
		cur = max(cur, resume);
	}
	return added;
}

static bool overlaps_same_node(const struct numa_memblk *list, unsigned nr, u64 start, u64 end,
			       int nid)
{
	for (unsigned i = 0; i < nr; i++)
		if (list[i].nid == nid && list[i].start < end && start < list[i].end)
			return true;
	return false;
}

static void srat_memory(struct numa_topology *t, const struct memmap *map,
			const struct acpi_srat_mem_affinity *e)
{
	u64 start = e->base_address, end = e->base_address + e->length;

	if (!(e->flags & ACPI_SRAT_MEM_ENABLED) || e->length == 0)
		return;
	if (end < start) {
		pr_warn("SRAT: memory range at %#llx wraps around (Base Address + Length), ignored\n",
			(unsigned long long)start);
		t->warnings++;
		return;
	}
	if (e->flags & ACPI_SRAT_MEM_HOT_PLUGGABLE) {
		pr_info("SRAT: hot-pluggable range [%#llx-%#llx) of domain %u kept out of RAM\n",
			(unsigned long long)start, (unsigned long long)end - 1, e->proximity_domain);
		return;
	}
	u64 ram = memmap_ram_within(map, start, end);
	if (!ram) {
		pr_warn("SRAT: [%#llx-%#llx) of domain %u is not RAM in the memory map, ignored\n",
			(unsigned long long)start, (unsigned long long)end - 1, e->proximity_domain);
		t->warnings++;
		return;
	}
	/* As Linux's numa_cleanup_meminfo: another node's range in it is an
	 * error (Linux then gives up the SRAT; here the first entry wins and
	 * the coverage check decides), the same node's is merged. Checked
	 * before the domain becomes a node, so a refused one makes none. */
	int nid = numa_pxm_to_node(t, e->proximity_domain, false);
	if (memblk_overlaps_other_node(t, start, end, nid)) {
		pr_warn("SRAT: [%#llx-%#llx) of domain %u overlaps another node, ignored "
			"(the first entry wins)\n",
			(unsigned long long)start, (unsigned long long)end - 1, e->proximity_domain);
		t->warnings++;
		return;
	}
	nid = numa_pxm_to_node(t, e->proximity_domain, true);
	if (nid == NUMA_NO_NODE) {
		pr_warn("SRAT: proximity domain %u is beyond %d nodes; [%#llx-%#llx) ignored\n",
			e->proximity_domain, MAX_NUMNODES, (unsigned long long)start,
			(unsigned long long)end - 1);
		t->warnings++;
		return;
	}
	if (overlaps_same_node(declared, nr_declared, start, end, nid)) {
		pr_warn("SRAT: [%#llx-%#llx) of domain %u overlaps an earlier range of the same node; "
			"merged, counted once\n",
			(unsigned long long)start, (unsigned long long)end - 1, e->proximity_domain);
		t->warnings++;
	}
	u64 lost = 0;
	t->nodes[nid].declared_bytes += add_uncovered(declared, &nr_declared, start, end, nid, &lost);
	/* Only the RAM part belongs to the node: one memblk per RAM piece,
	 * none twice. */
	for (unsigned i = 0; i < map->nr; i++) {
		const struct memmap_entry *m = &map->entries[i];
		u64 a = max(m->start, start), b = min(m->end, end);
		if (m->type != MEMMAP_RAM || a >= b)
			continue;
		t->nodes[nid].ram_bytes += add_uncovered(t->memblks, &t->nr_memblks, a, b, nid, &lost);
	}
	if (lost) {
		pr_warn("SRAT: more than %d memory blocks; %llu KiB of [%#llx-%#llx) ignored\n",
			MAX_NUMA_MEMBLKS, (unsigned long long)(lost >> 10), (unsigned long long)start,
			(unsigned long long)end - 1);
		t->warnings++;
	}
}

/* What the SRAT's handlers share. */
struct srat_parse {
	const struct memmap *map;
	struct numa_topology *t;
	u8 revision; /* the SRAT's */
};

static int acpi_parse_processor_affinity(const struct acpi_subtable_header *header, void *arg,
					 const unsigned long end)
{
	const struct acpi_srat_cpu_affinity *e = (const void *)header;
	struct srat_parse *s = arg;
	(void)end;
	if (header->length < sizeof(*e) || !(e->flags & ACPI_SRAT_CPU_ENABLED))
		return 0;
	u32 pxm = e->proximity_domain_lo;
	/* The high bytes only count from SRAT revision 2 on. */
	if (s->revision >= 2)
		pxm |= (u32)e->proximity_domain_hi[0] << 8 | (u32)e->proximity_domain_hi[1] << 16 |
		       (u32)e->proximity_domain_hi[2] << 24;
	srat_cpu(s->t, pxm, e->apic_id);
	return 0;
}

static int acpi_parse_x2apic_affinity(const struct acpi_subtable_header *header, void *arg,
				      const unsigned long end)
{
	const struct acpi_srat_x2apic_cpu_affinity *e = (const void *)header;
	struct srat_parse *s = arg;
	(void)end;
	if (header->length >= sizeof(*e) && (e->flags & ACPI_SRAT_CPU_ENABLED))
		srat_cpu(s->t, e->proximity_domain, e->apic_id);
	return 0;
}

static int acpi_parse_memory_affinity(const struct acpi_subtable_header *header, void *arg,
				      const unsigned long end)
{
	const struct acpi_srat_mem_affinity *e = (const void *)header;
	struct srat_parse *s = arg;
	(void)end;
	if (header->length >= sizeof(*e))
		srat_memory(s->t, s->map, e);
	return 0;
}

void acpi_parse_srat(const struct acpi_table_header *hdr, const struct memmap *map,
		     struct numa_topology *t)
{
	nr_declared = 0;
	if (hdr->length < sizeof(struct acpi_table_srat)) {
		pr_warn("SRAT: header Length %u is too short for an SRAT, ignored\n", hdr->length);
		t->warnings++;
		return;
	}
	struct srat_parse s = { .map = map, .t = t, .revision = hdr->revision };
	struct acpi_subtable_proc proc[] = {
		{ .id = ACPI_SRAT_CPU_AFFINITY, .handler = acpi_parse_processor_affinity, .arg = &s },
		{ .id = ACPI_SRAT_X2APIC_CPU_AFFINITY, .handler = acpi_parse_x2apic_affinity, .arg = &s },
		{ .id = ACPI_SRAT_MEMORY_AFFINITY, .handler = acpi_parse_memory_affinity, .arg = &s },
	};
	if (acpi_parse_entries_array("SRAT:", sizeof(struct acpi_table_srat), hdr, proc,
				     ARRAY_SIZE(proc), 0) < 0)
		t->warnings++;
	t->have_srat = true;
}

void acpi_parse_slit(const struct acpi_table_header *hdr, struct numa_topology *t)
{
	const struct acpi_table_slit *slit = (const void *)hdr;

	if (hdr->length < sizeof(*slit)) {
		pr_warn("SLIT: header Length %u is too short for a SLIT, ignored\n", hdr->length);
		t->warnings++;
		return;
	}
	u64 n = slit->locality_count;
	if (n == 0 || n > 256 || sizeof(*slit) + n * n > hdr->length) {
		pr_warn("SLIT: %llu localities do not fit in %u bytes, ignored\n",
			(unsigned long long)n, hdr->length);
		t->warnings++;
		return;
	}
	/* As Linux's slit_valid(): local must be 10, remote more than 10. */
	for (u64 i = 0; i < n; i++) {
		for (u64 j = 0; j < n; j++) {
			u8 d = slit->entry[i * n + j];
			if (i == j ? d != LOCAL_DISTANCE : d <= LOCAL_DISTANCE) {
				pr_warn("SLIT: distance %u from locality %llu to %llu is invalid; "
					"SLIT ignored, using default distances\n",
					d, (unsigned long long)i, (unsigned long long)j);
				t->warnings++;
				return;
			}
		}
	}
	for (u64 i = 0; i < n; i++) {
		int a = numa_pxm_to_node(t, (u32)i, false);
		if (a == NUMA_NO_NODE)
			continue;
		for (u64 j = 0; j < n; j++) {
			int b = numa_pxm_to_node(t, (u32)j, false);
			if (b != NUMA_NO_NODE)
				t->distance[a][b] = slit->entry[i * n + j];
		}
	}
	t->have_slit = true;
}

void acpi_numa_init(const struct acpi_tables *tables, const struct memmap *map, u32 boot_apic_id,
		    struct numa_topology *t, struct acpi_madt_info *info)
{
	struct acpi_boot_cpu boot;
	acpi_boot_cpu_from_hardware(&boot);
	boot.apic_id = boot_apic_id;
	acpi_numa_init_boot_cpu(tables, map, &boot, t, info);
}

void acpi_numa_init_boot_cpu(const struct acpi_tables *tables, const struct memmap *map,
			     const struct acpi_boot_cpu *boot, struct numa_topology *t,
			     struct acpi_madt_info *info)
{
	numa_topology_reset(t);
	numa_default_distances(t);
	memset(info, 0, sizeof(*info));
	info->lapic_address = APIC_DEFAULT_PHYS_BASE;

	const struct acpi_table_header *madt = acpi_get_table(tables, "APIC");
	if (madt)
		acpi_parse_madt(madt, map, boot, t, info);
	else
		pr_warn("ACPI: no MADT\n");
	if (t->nr_cpus == 0) {
		pr_warn("ACPI: no enabled CPU listed; assuming only the boot CPU\n");
		t->warnings++;
		t->cpus[0] = (struct numa_cpu){ .apic_id = boot->apic_id, .nid = NUMA_NO_NODE };
		t->nr_cpus = 1;
	}
	for (unsigned c = 0; c < t->nr_cpus; c++)
		t->cpus[c].boot_cpu = t->cpus[c].apic_id == boot->apic_id;

	const struct acpi_table_header *srat = acpi_get_table(tables, "SRAT");
	if (srat) {
		acpi_parse_srat(srat, map, t);
	} else {
		pr_warn("NUMA: no SRAT; one node holds all memory and CPUs\n");
	}

	/* Linux gives up NUMA when the nodes leave RAM uncovered. */
	if (t->have_srat) {
		u64 ram = memmap_total(map, MEMMAP_RAM), covered = 0;
		for (unsigned i = 0; i < t->nr_memblks; i++)
			covered += t->memblks[i].end - t->memblks[i].start;
		if (t->nr_memblks == 0 || covered + NUMA_COVERAGE_SLACK < ram) {
			pr_warn("NUMA: SRAT nodes cover %llu of %llu MiB of RAM; "
				"falling back to one node\n",
				(unsigned long long)(covered >> 20), (unsigned long long)(ram >> 20));
			t->warnings++;
			t->have_srat = false;
		}
	}
	if (!t->have_srat) {
		numa_fallback_single_node(t, map);
		return;
	}

	for (unsigned c = 0; c < t->nr_cpus; c++) {
		struct numa_cpu *cpu = &t->cpus[c];
		for (unsigned s = 0; s < t->nr_srat_cpus; s++)
			if (t->srat_cpus[s].apic_id == cpu->apic_id)
				cpu->nid = t->srat_cpus[s].nid;
		if (cpu->nid == NUMA_NO_NODE) {
			pr_warn("NUMA: the SRAT does not place CPU %u (APIC id %u); using node 0\n", c,
				cpu->apic_id);
			t->warnings++;
			cpu->nid = 0;
		}
		t->nodes[cpu->nid].nr_cpus++;
	}

	const struct acpi_table_header *slit = acpi_get_table(tables, "SLIT");
	if (slit)
		acpi_parse_slit(slit, t);
	else
		pr_info("NUMA: no SLIT; distances are 10 local, 20 remote\n");
}
