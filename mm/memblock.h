/* memblock: the early allocator, used before the buddy allocator exists.
 *
 * It knows two sets of physical ranges: memory (RAM, each range on a node)
 * and reserved (the kernel image, boot modules, the multiboot2 information,
 * ACPI tables, the first 1 MiB, and everything memblock has handed out).
 * Free memory is memory minus reserved; memblock_free_all() gives it to the
 * buddy allocator, after which memblock only answers questions. */
#ifndef MM_MEMBLOCK_H
#define MM_MEMBLOCK_H

#include "kernel/types.h"

#define MEMBLOCK_MAX_REGIONS 256

struct memblock_region {
	phys_addr_t base, size;
	int nid;
	const char *what; /* for reserved ranges: who reserved it */
};

struct memblock_type {
	unsigned long cnt;
	struct memblock_region regions[MEMBLOCK_MAX_REGIONS];
	phys_addr_t total_size;
	const char *name;
};

struct memblock {
	struct memblock_type memory;
	struct memblock_type reserved;
	bool frozen; /* after memblock_free_all(): allocations are refused */
};

extern struct memblock memblock;

void memblock_reset(void);
/* Ranges are kept sorted and merged (same node, or for reserved, adjacent). */
int memblock_add_node(phys_addr_t base, phys_addr_t size, int nid);
int memblock_reserve(phys_addr_t base, phys_addr_t size, const char *what);
/* Allocates size bytes aligned to align on node nid (falling back to any
 * node if nid has no room; NUMA_NO_NODE: any node), highest address first,
 * within [min_addr, max_addr). Returns the physical address, 0 on failure. */
phys_addr_t memblock_phys_alloc_range(phys_addr_t size, phys_addr_t align, phys_addr_t min_addr,
				      phys_addr_t max_addr, int nid, bool exact_nid);
phys_addr_t memblock_phys_alloc_node(phys_addr_t size, phys_addr_t align, int nid);
/* Zeroed memory through the direct map (kernel) or the host buffer. */
void *memblock_alloc_node(phys_addr_t size, phys_addr_t align, int nid);
bool memblock_is_reserved(phys_addr_t addr);
bool memblock_is_memory(phys_addr_t addr);
int memblock_nid_of(phys_addr_t addr);
phys_addr_t memblock_free_bytes_node(int nid);

/* Calls fn for every free range (memory minus reserved), in address order,
 * split at node boundaries. */
void memblock_for_each_free_range(void (*fn)(phys_addr_t start, phys_addr_t end, int nid, void *arg),
				  void *arg);
void memblock_print(void);

#endif
