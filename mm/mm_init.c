/* Bringing up physical memory management, in this order:
 *
 *  1. memblock learns the RAM of every node (from the NUMA topology) and
 *     what is taken: the first 1 MiB, the kernel image, the multiboot2
 *     information and boot modules, the ACPI tables;
 *  2. the vmemmap is populated: for every 128 MiB section that holds RAM, a
 *     2 MiB page of struct pages, allocated on the section's node and mapped
 *     at VMEMMAP_START + section * 2 MiB; every struct page starts reserved;
 *  3. each node gets its pg_data_t (on its own memory where it has some) and
 *     the fallback lists are built from the SLIT distances;
 *  4. memblock's free ranges are handed to the buddy allocator; memblock is
 *     frozen (what it reserved stays reserved, as struct pages say);
 *  5. watermarks are set and the kmalloc caches created.
 *
 * After mm_init() the only memory that is neither free nor allocated through
 * the buddy allocator is what memblock reserved: the report lists it. */
#include "mm/mm_init.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/smpboot.h"
#include "kernel/acpi.h"
#include "kernel/multiboot2.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "mm/memblock.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

extern char __boot_start[], _end[];

#define VMEMMAP_SECTION_BYTES (PAGES_PER_SECTION * sizeof(struct page)) /* 2 MiB */

static void reserve_acpi_tables(void)
{
	const struct acpi_tables *t = &acpi_tables;
	if (t->root)
		memblock_reserve(__pa(t->root), t->root->length, "ACPI root table");
	for (unsigned i = 0; i < t->nr_tables; i++)
		memblock_reserve(__pa(t->tables[i]), t->tables[i]->length, "ACPI table");
}

static void memblock_setup(void)
{
	u64 dropped = 0;
	for (unsigned i = 0; i < numa_topology.nr_memblks; i++) {
		const struct numa_memblk *b = &numa_topology.memblks[i];
		/* Only whole pages are usable, and only what the direct map
		 * reaches (everything is used through it). */
		u64 start = ALIGN_UP(b->start, PAGE_SIZE), end = ALIGN_DOWN(b->end, PAGE_SIZE);
		if (end > direct_map_end) {
			dropped += end - max(start, direct_map_end);
			end = direct_map_end;
		}
		if (start < end)
			memblock_add_node(start, end - start, b->nid);
	}
	if (dropped)
		pr_warn("memblock: %llu MiB of RAM above the direct map (%#llx) is not used\n",
			(unsigned long long)(dropped >> 20), (unsigned long long)direct_map_end);

	/* What the boot left in memory must be reserved before anything is
	 * allocated, the trampoline page included. */
	phys_addr_t image_start = (phys_addr_t)(uintptr_t)__boot_start; /* .boot is at its physical address */
	memblock_reserve(image_start, __pa(_end) - image_start, "kernel image");
	memblock_reserve(boot_info.info_phys, boot_info.info_size, "multiboot2 information");
	for (unsigned i = 0; i < boot_info.nr_modules; i++)
		memblock_reserve(boot_info.modules[i].start,
				 boot_info.modules[i].end - boot_info.modules[i].start, "boot module");
	reserve_acpi_tables();

	/* The AP trampoline needs a page below 1 MiB (real mode): take it
	 * before the rest of the first MiB is put aside for the firmware. */
	trampoline_phys = memblock_phys_alloc_range(PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, MiB(1),
						    NUMA_NO_NODE, true);
	if (trampoline_phys) {
		memblock_reserve(0, trampoline_phys, "first 1 MiB (BIOS data)");
		memblock_reserve(trampoline_phys + PAGE_SIZE, MiB(1) - trampoline_phys - PAGE_SIZE,
				 "first 1 MiB (BIOS data)");
	} else {
		memblock_reserve(0, MiB(1), "first 1 MiB (BIOS data)");
	}
}

static void init_struct_pages(unsigned long start_pfn, unsigned long end_pfn, int nid)
{
	for (unsigned long pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *p = pfn_to_page(pfn);
		memset(p, 0, sizeof(*p));
		p->flags = 1ul << PG_reserved;
		set_page_node(p, nid);
		p->_refcount = 1;
		p->_mapcount = -1;
	}
}

/* Populates the vmemmap for one section; its node is the node of the first
 * RAM in it. Returns false if no memory could be had. */
static bool populate_section(unsigned long section, int nid)
{
	phys_addr_t pa = memblock_phys_alloc_range(VMEMMAP_SECTION_BYTES, VMEMMAP_SECTION_BYTES, 0,
						   ~(phys_addr_t)0, nid, false);
	if (!pa)
		return false;
	unsigned long va = VMEMMAP_START + section * VMEMMAP_SECTION_BYTES;
	if (map_kernel_range_phys(va, VMEMMAP_SECTION_BYTES, pa,
				  _PAGE_PRESENT | _PAGE_RW | _PAGE_GLOBAL | _PAGE_NX, PMD_SHIFT, GFP_KERNEL))
		return false;
	mem_section_present[section / 8] |= (u8)(1u << (section % 8));
	/* Until the RAM ranges are walked, every pfn of the section is a hole
	 * on the section's node. */
	init_struct_pages(section << PFN_SECTION_SHIFT, (section + 1) << PFN_SECTION_SHIFT, nid);
	return true;
}

static void vmemmap_populate(void)
{
	unsigned long sections = 0;
	for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		unsigned long first = (r->base >> PAGE_SHIFT) >> PFN_SECTION_SHIFT;
		unsigned long last = ((r->base + r->size - 1) >> PAGE_SHIFT) >> PFN_SECTION_SHIFT;
		for (unsigned long s = first; s <= last; s++) {
			if (pfn_valid(s << PFN_SECTION_SHIFT))
				continue;
			if (!populate_section(s, r->nid))
				panic("vmemmap: no memory for the struct pages of section %lu", s);
			sections++;
		}
	}
	/* Now the real node of every RAM pfn (a section may hold two nodes). */
	for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		unsigned long spfn = r->base >> PAGE_SHIFT, epfn = (r->base + r->size) >> PAGE_SHIFT;
		for (unsigned long pfn = spfn; pfn < epfn; pfn++)
			set_page_node(pfn_to_page(pfn), r->nid);
	}
	pr_info("vmemmap: %lu sections of 128 MiB populated, %lu MiB of struct pages at %#lx\n",
		sections, sections * VMEMMAP_SECTION_BYTES >> 20, VMEMMAP_START);
}

static void nodes_setup(void)
{
	for (unsigned nid = 0; nid < numa_topology.nr_nodes; nid++) {
		unsigned long start = ~0ul, end = 0, present = 0;
		for (unsigned i = 0; i < memblock.memory.cnt; i++) {
			const struct memblock_region *r = &memblock.memory.regions[i];
			if (r->nid != (int)nid)
				continue;
			start = min(start, r->base >> PAGE_SHIFT);
			end = max(end, (r->base + r->size) >> PAGE_SHIFT);
			present += r->size >> PAGE_SHIFT;
		}
		if (!present)
			start = end = 0;
		/* On its own node when it has memory; a memoryless node's data
		 * lives on whatever memblock finds (the nearest would be better,
		 * but any node works). */
		pg_data_t *pgdat = memblock_alloc_node(sizeof(pg_data_t), 64, present ? (int)nid : NUMA_NO_NODE);
		if (!pgdat)
			panic("mm: no memory for node %u's pg_data_t", nid);
		page_alloc_init_node(pgdat, (int)nid, start, end);
		pgdat->node_present_pages = present;
	}
	build_all_fallback_lists();
}

static void free_range_to_buddy(phys_addr_t start, phys_addr_t end, int nid, void *arg)
{
	(void)nid;
	(void)arg;
	unsigned long spfn = (start + PAGE_SIZE - 1) >> PAGE_SHIFT, epfn = end >> PAGE_SHIFT;
	if (spfn < epfn)
		free_boot_range(spfn, epfn);
}

void mm_init(void)
{
	memblock_setup();
	vmemmap_populate();
	nodes_setup();
	memblock_for_each_free_range(free_range_to_buddy, NULL);
	memblock.frozen = true;
	setup_watermarks();
	kmem_cache_init();
}

void mm_report(void)
{
	memblock_print();
	show_free_areas();
	pr_info("Buddy free blocks per order (0..%d), as /proc/buddyinfo:\n", MAX_PAGE_ORDER);
	show_buddyinfo();
	show_numastat();
}
