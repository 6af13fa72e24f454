/* host_mm_boot(): the kernel's mm init sequence (mm/mm_init.c) on the host
 * buffer: topology -> memblock ranges per node -> reservations -> struct
 * pages (PG_reserved, node, refcount 1, mapcount -1) -> page_alloc_init_node
 * per node -> fallback lists -> free_boot_range per free range ->
 * watermarks. Every call starts over from nothing. */
#include "mm/memblock.h"
#include "mm/page_alloc.h"
#include "tests/host/shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long node_start[MAX_NUMNODES], node_end[MAX_NUMNODES];
static pg_data_t static_pgdat[MAX_NUMNODES];

unsigned long host_node_start_pfn(int nid) { return node_start[nid]; }
unsigned long host_node_end_pfn(int nid) { return node_end[nid]; }

static void give_range(phys_addr_t start, phys_addr_t end, int nid, void *arg)
{
	(void)nid;
	(void)arg;
	unsigned long s = (unsigned long)(ALIGN_UP(start, PAGE_SIZE) >> PAGE_SHIFT);
	unsigned long e = (unsigned long)(end >> PAGE_SHIFT);
	if (s < e)
		free_boot_range(s, e);
}

void host_mm_boot(const struct host_mm_config *cfg)
{
	u64 total = 0;
	for (unsigned n = 0; n < cfg->nr_nodes; n++)
		total += cfg->node_bytes[n];
	if (!host_phys_base || total > host_phys_bytes) {
		fprintf(stderr, "host_mm_boot: %llu bytes of nodes, %llu of memory\n",
			(unsigned long long)total, (unsigned long long)host_phys_bytes);
		exit(2);
	}

	host_numa_setup(cfg);
	memblock_reset();
	memset(node_data, 0, sizeof(node_data));
	page_poisoning = cfg->page_poison;

	u64 base = 0;
	for (unsigned n = 0; n < cfg->nr_nodes; n++) {
		node_start[n] = (unsigned long)(base >> PAGE_SHIFT);
		if (cfg->node_bytes[n])
			memblock_add_node(base, cfg->node_bytes[n], (int)n);
		base += cfg->node_bytes[n];
		node_end[n] = (unsigned long)(base >> PAGE_SHIFT);
	}
	if (!cfg->keep_first_mib)
		memblock_reserve(0, MiB(1), "first MiB");
	for (unsigned i = 0; i < cfg->nr_reserved; i++)
		memblock_reserve(cfg->reserved[i].base, cfg->reserved[i].size, "test");

	/* Every struct page starts reserved, on the node that holds it (holes
	 * and the tail of the last section: the last node before them). */
	int nid = 0;
	for (unsigned long pfn = 0; pfn < host_vmemmap_pages; pfn++) {
		struct page *p = pfn_to_page(pfn);
		while ((unsigned)nid + 1 < cfg->nr_nodes && pfn >= node_end[nid])
			nid++;
		memset(p, 0, sizeof(*p));
		p->flags = 1ul << PG_reserved;
		set_page_node(p, nid);
		p->_refcount = 1;
		p->_mapcount = -1;
	}

	for (unsigned n = 0; n < cfg->nr_nodes; n++) {
		/* As mm_init's nodes_setup: on the node itself when it has
		 * memory, anywhere for a memoryless node (whose span is empty). */
		bool present = cfg->node_bytes[n] != 0;
		pg_data_t *pgdat = cfg->static_pgdat
					   ? &static_pgdat[n]
					   : memblock_alloc_node(sizeof(pg_data_t), 64,
								 present ? (int)n : NUMA_NO_NODE);
		if (!pgdat) {
			fprintf(stderr, "host_mm_boot: no memory for node %u's pg_data_t\n", n);
			exit(2);
		}
		if (!present)
			node_start[n] = node_end[n] = 0;
		page_alloc_init_node(pgdat, (int)n, node_start[n], node_end[n]);
		pgdat->node_present_pages = node_end[n] - node_start[n];
	}
	build_all_fallback_lists();
	memblock_for_each_free_range(give_range, NULL);
	memblock.frozen = true;
	setup_watermarks();
}
