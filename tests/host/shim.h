/* The host shim: what the portable mm code (memblock, numa, page_alloc, slab)
 * needs from the kernel when it is compiled for the host. The code is the
 * kernel's, unchanged and without host conditionals: the shadow headers of
 * tests/host/include/ (first on the host include path, same paths as the
 * headers they replace) stand in for the hardware's (the per-CPU base,
 * interrupt flags, the direct map and the vmemmap), and this file defines
 * what those and the kernel's headers declare:
 *
 *  - printk/vprintk (libc's vsnprintf formats; the KERN_ level prefix
 *    "\001<digit>" or "\001!" is stripped and filtered against
 *    console_loglevel), the line prefix and the nesting captures of
 *    kernel/printk.h; snprintf/vsnprintf are libc's (same signatures);
 *  - panic() (prints, then abort(): the runner sees a crash);
 *  - "physical memory": a host buffer starting at pfn 0 (host_phys_base), its
 *    struct pages (host_vmemmap) and the mem_section_present bitmap;
 *  - the CPU: one per-CPU area (cpu_number, current_task: a test may set
 *    cpu_number to run as another CPU, and on_each_cpu runs its function
 *    as each CPU in turn), the interrupt flag, cond_resched(),
 *    no symbol table (ksym_lookup finds nothing) and no backtraces;
 *  - a fake NUMA topology (nodes splitting the buffer, ring distances, one
 *    CPU per node; the running CPU is 0, on node 0);
 *  - host_mm_boot() (tests/host/mm_boot.c): the boot code's part, then the
 *    kernel's own mm initialisation on that memory, so the allocator starts
 *    in the state it starts in at boot.
 *
 * lib/string.c is not compiled: libc has the same functions (glibc 2.36
 * lacks strlcpy/strlcat, which the shim provides). */
#ifndef TESTS_HOST_SHIM_H
#define TESTS_HOST_SHIM_H

#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/types.h"
#include "mm/numa.h"
#include "mm/page.h"

/* "Physical memory": [0, host_phys_bytes) backed by host_phys_base. Large
 * sizes (> 1 GiB) are an mmap with MAP_NORESERVE (only touched pages cost
 * RAM); smaller ones come from malloc, so AddressSanitizer sees overruns. */
extern u64 host_phys_bytes;
/* Struct pages in vmemmap: host_phys_bytes rounded up to whole sections. */
extern unsigned long host_vmemmap_pages;
void host_mem_init(u64 bytes);
void host_mem_free(void);

/* Called by every cond_resched() when set (NULL by default). */
extern void (*host_cond_resched_hook)(void);

#define HOST_MAX_RESERVED 16

struct host_mm_config {
	unsigned nr_nodes;           /* 1..MAX_NUMNODES */
	u64 node_bytes[MAX_NUMNODES]; /* consecutive from address 0; 0 = memoryless */
	/* Extra reserved ranges (bytes); the first MiB is always reserved. */
	struct { u64 base, size; } reserved[HOST_MAX_RESERVED];
	unsigned nr_reserved;
	bool keep_first_mib;         /* don't reserve [0, 1 MiB) */
	bool static_pgdat;           /* pg_data_t from static storage, not memblock */
	bool page_poison;            /* boot with page_poison=on */
	/* When set, instead of node_bytes: the nodes' memory as an SRAT gives
	 * it, byte ranges of any alignment in any order (nodes interleaved,
	 * spans overlapping, holes between a node's ranges); node n's CPU is
	 * CPU n. */
	const struct numa_memblk *ranges;
	unsigned nr_ranges;
};

/* Fills numa_topology: cfg's nodes back to back from address 0, one CPU per
 * node (CPU c on node c), distances 10 + 10 * (steps around the ring). */
void host_numa_setup(const struct host_mm_config *cfg);
/* The whole init: topology, memblock, struct pages, then the kernel's
 * memmap_init, free_area_init, memblock_free_all and setup_watermarks.
 * host_mem_init() must have made at least sum(node_bytes) of memory.
 * May be called again: it starts over from nothing. */
void host_mm_boot(const struct host_mm_config *cfg);
/* Pfn range of node nid as booted. */
unsigned long host_node_start_pfn(int nid);
unsigned long host_node_end_pfn(int nid);

/* Console: stdout unless captured. console_loglevel (kernel/printk.h) is
 * honoured; MMLAB_LOGLEVEL in the environment overrides the default. */
void host_printk_init(void);
/* Bytes of console output so far (captured output included). */
extern unsigned long host_printk_bytes;

size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);

#endif
