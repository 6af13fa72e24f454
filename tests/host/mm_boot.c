/* host_mm_boot(): the host's boot code. It does what kernel/main.c does
 * before mm_init (the topology, memblock's RAM and reservations) and then
 * runs the kernel's own mm initialisation (mm/page_alloc_init.c):
 *
 *   host_numa_setup (for ACPI)   -> numa_memblks_to_memblock -> reservations
 *   -> struct pages (for the vmemmap) -> memmap_init -> free_area_init
 *   -> memblock_free_all -> setup_watermarks
 *
 * Host-only, standing in for the hardware and the firmware: the topology
 * comes from the config instead of SRAT/SLIT, the reservations are the
 * first MiB and the config's instead of the kernel image and firmware
 * tables, and the vmemmap is the shim's array (every section present)
 * instead of mapped 2 MiB pages. mm_init's vmemmap mapping and
 * kmem_cache_init (the slab harness calls it itself) are not run here.
 * Every call starts over from nothing. */
#include "mm/memblock.h"
#include "mm/page_alloc.h"
#include "tests/host/shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pg_data_t static_pgdat[MAX_NUMNODES];
#define STATIC_PAGEBLOCK_BYTES 8192
static u8 static_pageblock_flags[MAX_NUMNODES][STATIC_PAGEBLOCK_BYTES];

unsigned long host_node_start_pfn(int nid) { return NODE_DATA(nid)->node_start_pfn; }
unsigned long host_node_end_pfn(int nid)
{
	return NODE_DATA(nid)->node_start_pfn + NODE_DATA(nid)->node_spanned_pages;
}

/* As populate_section does for each section, for all of them: reserved,
 * on the node of the first RAM in the section (the last node before it for
 * a section without RAM). */
static void host_vmemmap_init(void)
{
	int nid = 0;
	for (unsigned long pfn = 0; pfn < host_vmemmap_pages; pfn += PAGES_PER_SECTION) {
		phys_addr_t start = (phys_addr_t)pfn << PAGE_SHIFT;
		phys_addr_t end = start + (PAGES_PER_SECTION << PAGE_SHIFT);
		for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
			const struct memblock_region *r = &memblock.memory.regions[i];
			if (r->base < end && r->base + r->size > start) {
				nid = r->nid;
				break;
			}
		}
		init_struct_pages(pfn, pfn + PAGES_PER_SECTION, nid);
	}
}

void host_mm_boot(const struct host_mm_config *cfg)
{
	u64 total = 0;
	for (unsigned n = 0; n < cfg->nr_nodes; n++)
		total += cfg->node_bytes[n];
	for (unsigned i = 0; i < cfg->nr_ranges; i++)
		total = max(total, cfg->ranges[i].end);
	if (!host_phys_base || total > host_phys_bytes) {
		fprintf(stderr, "host_mm_boot: %llu bytes of nodes, %llu of memory\n",
			(unsigned long long)total, (unsigned long long)host_phys_bytes);
		exit(2);
	}

	host_numa_setup(cfg);
	memblock_reset();
	memset(node_data, 0, sizeof(node_data));
	page_poisoning = cfg->page_poison;

	numa_memblks_to_memblock(&numa_topology, host_phys_bytes);
	if (!cfg->keep_first_mib)
		memblock_reserve(0, MiB(1), "first MiB");
	for (unsigned i = 0; i < cfg->nr_reserved; i++)
		memblock_reserve(cfg->reserved[i].base, cfg->reserved[i].size, "test");

	host_vmemmap_init();
	memmap_init();
	/* Outside the nodes, so that every node is wholly free. */
	if (cfg->static_pgdat) {
		/* Their pageblock flags too: a byte per 2 MiB of the host's
		 * memory, which every node's span is inside. */
		if ((host_phys_bytes >> 21) + 1 > STATIC_PAGEBLOCK_BYTES) {
			fprintf(stderr, "host_mm_boot: too much memory for the static pageblock flags\n");
			exit(2);
		}
		for (unsigned n = 0; n < cfg->nr_nodes; n++) {
			node_data[n] = &static_pgdat[n];
			static_pgdat[n].pageblock_flags = static_pageblock_flags[n];
		}
	}
	free_area_init();
	memblock_free_all();
	setup_watermarks();
}
