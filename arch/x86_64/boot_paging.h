/* The kernel's own page tables, built once at boot. */
#ifndef ARCH_X86_64_BOOT_PAGING_H
#define ARCH_X86_64_BOOT_PAGING_H

#include "arch/x86_64/pgtable.h"
#include "kernel/types.h"

#define BOOT_STACK_SIZE (32 * 1024)

/* Replaces the boot loader-era tables: the kernel image mapped with 4 KiB
 * pages and per-section permissions (text RX, rodata R, data/bss RW+NX), an
 * unmapped guard page under the boot stack, and the direct map of
 * [0, max(4 GiB, top_of_ram)) as far as the page-table pool allows
 * (direct_map_end says how far; with 1 GiB pages any RAM, with 2 MiB pages
 * about 59 GiB; memory above it is not used). The identity map is gone
 * afterwards. Later kernel mappings go through mm/kernel_map.h. */
void boot_paging_init(phys_addr_t top_of_ram);

/* The kernel's PGD (Linux's name): what CR3 holds for kernel threads, and
 * whose upper half every process PGD copies (mm/memory.c). Its tables below
 * are changed only through mm/kernel_map.h once boot_paging_init is done. */
extern pgd_t swapper_pg_dir[PTRS_PER_TABLE];

/* How far the direct map reaches, and how big its pages are. */
extern phys_addr_t direct_map_end;
extern unsigned long direct_map_page_size;

/* The boot CPU's stack [boot_stack, boot_stack_top) and the unmapped guard
 * page below it, so that an overflow faults. */
extern char boot_stack_guard[], boot_stack[], boot_stack_top[];

#endif
