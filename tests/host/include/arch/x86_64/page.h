/* Host stand-in for arch/x86_64/page.h: "physical memory" is the shim's
 * buffer, [0, host_phys_bytes) at host_phys_base, which is also the direct
 * map (__va/__pa); the vmemmap is the shim's array of struct pages,
 * host_vmemmap. There is no kernel image: KERNEL_VMA is above every host
 * address. The paging constants are the kernel's. */
#ifndef ARCH_X86_64_PAGE_H
#define ARCH_X86_64_PAGE_H

#include "kernel/types.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PMD_SHIFT 21
#define PMD_SIZE (1ul << PMD_SHIFT)
#define PUD_SHIFT 30
#define PUD_SIZE (1ul << PUD_SHIFT)
#define PGDIR_SHIFT 39
#define PGDIR_SIZE (1ul << PGDIR_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))
#define PUD_MASK (~(PUD_SIZE - 1))
#define PGDIR_MASK (~(PGDIR_SIZE - 1))

struct page;
extern u8 *host_phys_base;
extern struct page *host_vmemmap;

#define PAGE_OFFSET ((uintptr_t)host_phys_base)
#define KERNEL_VMA (~0ul)
#define VMEMMAP_START ((unsigned long)(uintptr_t)host_vmemmap)

static inline void *__va(phys_addr_t p) { return host_phys_base + p; }
static inline phys_addr_t __pa(const void *v) { return (phys_addr_t)((uintptr_t)v - (uintptr_t)host_phys_base); }
#define phys_to_virt(p) __va(p)
#define virt_to_phys(v) __pa(v)

#endif
