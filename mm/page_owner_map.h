/* The page-owner map: one byte per page frame saying who has the page
 * (its owner class, and for a free page the order of the buddy block it
 * lies in), for a picture of physical memory. It is served as
 * /proc/mmlab/page_owner_map (mmlab's own file: Linux has none like it;
 * its nearest are /proc/kpageflags, a u64 of flags per pfn, and
 * page_owner's debugfs file, an allocation stack per page) and drawn on
 * the console as coloured text (mm/page_owner_map_console.c); the host
 * tool tools/memmap/memmap.py draws it as a PNG.
 *
 * One set of rules classifies a page (page_owner_map_fill), the rules of
 * the gdb helper mm-page (tools/gdb/mmlab/page.py) in C: reserved pages
 * by the memblock reservation they lie in, then the page's flags (buddy,
 * per-CPU list, slab, page table, hugetlb, large kmalloc), then a page in
 * a file's page cache (its mapping an address_space), then a mapped
 * anonymous page (THP when it heads a PMD-sized block), then a page inside a free
 * block or an allocation of order > 0 by the head of that block, then a
 * vmalloc area's pages (vmalloc_for_each_page) and the hugetlb pools'
 * free pages (hugetlb_for_each_free_page); what is left is a kernel
 * allocation that records no owner.
 *
 * The file: a text header, then each node's bytes in node order.
 *
 *	mmlab page_owner_map 1
 *	page_size 4096
 *	class 0 hole
 *	...
 *	class 32 free_order_0            (free, order k: 32 + k, k = 0..18)
 *	...
 *	node 0 start_pfn 0x0 pages 262144
 *	...
 *	data
 *	<node 0's 262144 bytes><node 1's ...>
 *
 * A node's pages are its span, node_start_pfn to node_start_pfn +
 * node_spanned_pages: a pfn without RAM, or with another node's RAM, is
 * a hole there. */
#ifndef MM_PAGE_OWNER_MAP_H
#define MM_PAGE_OWNER_MAP_H

#include "kernel/types.h"

enum page_owner_class {
	PAGE_OWNER_HOLE = 0,       /* no RAM of this node */
	PAGE_OWNER_RESERVED,       /* reserved for the firmware and the boot: the first
				    * MiB, ACPI tables, the multiboot2 information,
				    * the boot modules (the user programs' ELF files) */
	PAGE_OWNER_KERNEL_IMAGE,   /* the kernel's text, data and bss */
	PAGE_OWNER_MEMBLOCK,       /* allocated by memblock at boot: the vmemmap (struct
				    * pages), node data, early page tables */
	PAGE_OWNER_BAD,            /* failed a bad-page check: out of circulation */
	PAGE_OWNER_PCP,            /* free, on a per-CPU list */
	PAGE_OWNER_SLAB,
	PAGE_OWNER_PAGE_TABLE,     /* a user page table below the PGD (PG_table) */
	PAGE_OWNER_VMALLOC,
	PAGE_OWNER_ANON,           /* user anonymous memory, mapped by a PTE */
	PAGE_OWNER_THP,            /* an anonymous transparent huge page */
	PAGE_OWNER_HUGETLB,        /* a hugetlb pool page in use */
	PAGE_OWNER_HUGETLB_FREE,   /* a hugetlb pool page on the pool's free list */
	PAGE_OWNER_LARGE_KMALLOC,  /* a kmalloc too big for the slabs */
	PAGE_OWNER_KERNEL,         /* allocated by the kernel, no owner recorded (PGDs,
				    * kernel page tables, stacks' tables, buffers) */
	PAGE_OWNER_PAGE_CACHE,     /* a file's page cache (tmpfs, shared anonymous memory,
				    * memfd, System V segments), its huge pages included */
	NR_PAGE_OWNER_CLASSES,
	PAGE_OWNER_FREE = 32,      /* + order: in a free buddy block of that order */
};

#define PAGE_OWNER_FREE_ORDER(b) ((unsigned)(b) - PAGE_OWNER_FREE)
static inline bool page_owner_is_free(u8 b) { return b >= PAGE_OWNER_FREE && b <= PAGE_OWNER_FREE + 18; }

/* A byte's name as the file's header and the console's legend print it
 * ("slab", "free_order_3"); NULL for a byte no class has. */
const char *page_owner_name(u8 byte, char *buf, size_t size);

/* out[i] = the owner byte of pfn + i, for i < nr, pfn..pfn+nr within node
 * nid's span. Classified in stretches of PAGE_OWNER_STRETCH pages, each
 * under the node's lock (so the buddy free lists do not change inside a
 * stretch); vmalloc pages and free hugetlb pool pages are found after
 * each stretch, under vmap_area_lock and hugetlb_lock. May sleep (between stretches). */
#define PAGE_OWNER_STRETCH 4096ul
void page_owner_map_fill(int nid, unsigned long pfn, unsigned long nr, u8 *out);

/* The byte of one page (its node's map), for tests and the console. */
u8 page_owner_of_pfn(unsigned long pfn);

/* The nodes the map covers: those with memory, in node order. */
bool page_owner_map_has_node(int nid);

/* The map on the console (mm/page_owner_map_console.c): a coloured
 * character per cell of pages, a legend, each node's totals beside the
 * kernel's counters, and with dump the file run-length encoded between
 * "memmap: begin" and "memmap: end" lines (for tools/memmap/). May sleep. */
void page_owner_map_print(const char *title, bool dump);
/* With page_owner_map=tour: the map after the boot program name. */
void page_owner_map_after_program(const char *name);

/* The file's path, for the console dump and the tests. */
#define PAGE_OWNER_MAP_PATH "/proc/mmlab/page_owner_map"

#endif
