/* Bringing up physical memory management, in this order:
 *
 *  1. (boot code, before mm_init) memblock learns the RAM of every node
 *     (numa_memblks_to_memblock) and what is taken: the first 1 MiB, the
 *     kernel image, the multiboot2 information and boot modules, the ACPI
 *     tables, the AP trampoline's page; mm knows none of those, only
 *     memblock's ranges;
 *  2. the vmemmap is populated: for every 128 MiB section that holds RAM, a
 *     2 MiB page of struct pages, allocated on the section's node and mapped
 *     at VMEMMAP_START + section * 2 MiB; every struct page starts reserved,
 *     then gets the node of its RAM (memmap_init);
 *  3. each node gets its pg_data_t (on its own memory where it has some) and
 *     the fallback lists are built from the SLIT distances (free_area_init);
 *  4. memblock's free ranges are handed to the buddy allocator; memblock is
 *     frozen (what it reserved stays reserved, as struct pages say);
 *  5. watermarks are set and the kmalloc caches created.
 *
 * Steps 3-5 but kmalloc are portable (mm/page_alloc_init.c), and so is
 * memmap_init: the host tests boot through them. Only the vmemmap's
 * mapping, here, is the kernel's alone.
 *
 * After mm_init() the only memory that is neither free nor allocated through
 * the buddy allocator is what memblock reserved: the report lists it. */
#include "mm/mm_init.h"
#include "mm/rmap.h"
#include "arch/x86_64/pgtable.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/kernel_map.h"
#include "mm/memblock.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define VMEMMAP_SECTION_BYTES (PAGES_PER_SECTION * sizeof(struct page)) /* 2 MiB */

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
	pr_info("vmemmap: %lu sections of 128 MiB populated, %lu MiB of struct pages at %#lx\n",
		sections, sections * VMEMMAP_SECTION_BYTES >> 20, VMEMMAP_START);
}

void mm_init(void)
{
	vmemmap_populate();
	memmap_init();
	free_area_init();
	memblock_free_all();
	setup_watermarks();
	kmem_cache_init();
	anon_vma_init();
}

void mm_report(void)
{
	memblock_print();
	show_free_areas();
	pr_info("Buddy free blocks per order (0..%d), as /proc/buddyinfo:\n", MAX_PAGE_ORDER);
	show_buddyinfo();
	show_numastat();
}
