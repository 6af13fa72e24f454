/* Host stand-in for arch/x86_64/page.h: "physical memory" is the shim's
 * buffer, [0, host_phys_bytes) at host_phys_base, which is also the direct
 * map (__va/__pa); the vmemmap is the shim's array of struct pages,
 * host_vmemmap. There is no kernel image: KERNEL_VMA is above every host
 * address. The paging constants are the kernel's (page_types.h). */
#ifndef ARCH_X86_64_PAGE_H
#define ARCH_X86_64_PAGE_H

#include "arch/x86_64/page_types.h"
#include "kernel/types.h"

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
