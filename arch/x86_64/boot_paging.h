/* The kernel's own page tables, built once at boot. */
#ifndef ARCH_X86_64_BOOT_PAGING_H
#define ARCH_X86_64_BOOT_PAGING_H

#include "kernel/types.h"

#define BOOT_STACK_SIZE (32 * 1024)

/* Replaces the boot loader-era tables: the kernel image mapped with 4 KiB
 * pages and per-section permissions (text RX, rodata R, data/bss RW+NX), an
 * unmapped guard page under the boot stack, and the direct map of
 * [0, max(4 GiB, top_of_ram)) as far as the page-table pool allows
 * (direct_map_end says how far; with 1 GiB pages any RAM, with 2 MiB pages
 * about 59 GiB; memory above it is not used). The identity map is gone
 * afterwards. */
void boot_paging_init(phys_addr_t top_of_ram);

/* How far the direct map reaches, and how big its pages are. */
extern phys_addr_t direct_map_end;
extern unsigned long direct_map_page_size;

/* Maps one page of the given level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB) into the
 * kernel page tables, allocating intermediate tables from the boot pool and
 * then from early_pgtable_alloc (memblock, once it exists). pa must be
 * aligned to the page size. No TLB flush: only for addresses never mapped
 * before. Returns false when no page-table page could be had. */
bool kernel_map(unsigned long va, phys_addr_t pa, u64 flags, int level);
extern phys_addr_t (*early_pgtable_alloc)(void);

/* The boot stack's guard page (for tests). */
extern char boot_stack_guard[];

#endif
