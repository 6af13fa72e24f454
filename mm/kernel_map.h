/* Mapping kernel virtual ranges in swapper_pg_dir: the contract mm gives the
 * rest of the kernel (the vmemmap, the local APIC, the AP trampoline, and
 * vmalloc to come), after Linux's map_kernel_range/unmap_kernel_range.
 *
 * This header is the whole contract, and it needs only arch headers and
 * mm/gfp.h, so arch code may include it without seeing mm internals; arch
 * supplies the entry bits (arch/x86_64/pgtable.h) and the flush
 * (arch/x86_64/tlb.h).
 *
 * The caller owns the range it maps or unmaps: nobody else maps or unmaps
 * the same addresses at the same time (vmalloc's area allocator will give
 * that guarantee). Ranges may share page tables; that is what the lock
 * inside protects. Not for interrupt context: the tables come from the
 * caller's gfp, and an unmap waits for every CPU. */
#ifndef MM_KERNEL_MAP_H
#define MM_KERNEL_MAP_H

#include "arch/x86_64/pgtable.h"
#include "kernel/types.h"
#include "mm/gfp.h"

struct page;

/* Maps the size / PAGE_SIZE pages of pages[] at addr with the entry bits prot
 * (_PAGE_PRESENT and the others of arch/x86_64/pgtable.h; _PAGE_NX is dropped
 * on a CPU without NX). Page tables the range lacks are allocated with gfp
 * (before the buddy allocator exists, from memblock, whatever gfp says).
 * No TLB flush is needed: the range was unmapped.
 * Returns 0, or
 *   -EINVAL  addr or size not page-aligned, size 0, the range not within one
 *            canonical half of the address space (or reaching its very
 *            top), a NULL page, or prot not present or with _PAGE_USER,
 *            _PAGE_PSE or address bits;
 *   -EBUSY   some page of the range is mapped already (nothing is changed);
 *   -ENOMEM  no memory for a page table (nothing is changed, every table
 *            allocated for the call is given back). */
int map_kernel_range(unsigned long addr, unsigned long size, u64 prot, struct page **pages,
		     gfp_t gfp);

/* The same for the physically contiguous range at phys (MMIO, the vmemmap,
 * an identity map): 2 MiB (1 GiB) entries where addr and phys are aligned to
 * them, the range covers them and max_page_shift allows it (PMD_SHIFT,
 * PUD_SHIFT; 1 GiB needs PDPE1GB), 4 KiB entries elsewhere. phys must be
 * page-aligned and the range below 2^52 (-EINVAL). */
int map_kernel_range_phys(unsigned long addr, unsigned long size, phys_addr_t phys, u64 prot,
			  unsigned max_page_shift, gfp_t gfp);

/* Unmaps [addr, addr + size) (holes are fine) and flushes it from every
 * online CPU's TLB before returning; page tables it leaves empty are freed
 * after that flush (see mm/kernel_map.c for which). Must be called with
 * interrupts on. Returns 0, or -EINVAL for a misaligned or non-canonical
 * range or one that covers part of a 2 MiB/1 GiB mapping (nothing is
 * changed). */
int unmap_kernel_range(unsigned long addr, unsigned long size);

/* unmap_kernel_range without the TLB flush, for vmalloc's lazy freeing
 * (Linux's vunmap_range_noflush): the caller keeps [addr, addr + size) out
 * of use until it has flushed it. With freed_tables NULL no table is
 * detached (the leaves are cleared, the tables stay); otherwise the tables
 * left empty are detached onto *freed_tables (their page's lru), which the
 * caller frees with __free_page only after its flush. Same errors as
 * unmap_kernel_range; interrupts may be off (nothing waits). */
struct list_head;
int unmap_kernel_range_noflush(unsigned long addr, unsigned long size, struct list_head *freed_tables);

/* The entry of swapper_pg_dir that maps addr, at whatever level maps it,
 * and its level (1 = 4 KiB PTE, 2 = 2 MiB, 3 = 1 GiB; Linux's
 * lookup_address), or NULL when addr is not mapped. The pointer stays valid
 * while the caller keeps addr mapped. */
pte_t *lookup_kernel_address(unsigned long addr, int *level);

/* Linux's set_direct_map_invalid_noflush / set_direct_map_default_noflush
 * (arch/x86/mm/pat/set_memory.c): page's 4 KiB entry in the direct map
 * loses (regains) _PAGE_PRESENT and _PAGE_RW, the 1 GiB or 2 MiB leaf
 * above it split into smaller ones first. No TLB flush of the page: the
 * caller flushes (flush_tlb_kernel_range) before it relies on the change.
 * A page coming back whose split tables then map their whole range again
 * has them folded into the leaf they were split from (flushed and freed
 * here). 0, -ENOMEM (no table for a split) or -EINVAL (page not in the
 * direct map). May sleep; interrupts on. */
int set_direct_map_invalid_noflush(struct page *page);
int set_direct_map_default_noflush(struct page *page);
/* How many 2 MiB and 1 GiB direct-map leaves are split now. */
void direct_map_split_counts(unsigned long *split_2m, unsigned long *split_1g);

#endif
