/* Address-space constants and the physical <-> virtual conversions.
 *
 * The kernel image runs at KERNEL_VMA (-2 GiB, the top of the address space
 * for -mcmodel=kernel). All RAM, and the first 4 GiB whatever they hold, is
 * reachable through the direct map at PAGE_OFFSET (Linux's default x86_64
 * value, so that addresses look familiar). */
#ifndef ARCH_X86_64_PAGE_H
#define ARCH_X86_64_PAGE_H

#include "arch/x86_64/page_types.h"
#include "kernel/types.h"

#define PAGE_OFFSET 0xffff888000000000ul
#define KERNEL_VMA 0xffffffff80000000ul
/* The struct pages (mm/page.h), one per page frame, in pfn order. */
#define VMEMMAP_START 0xffffea0000000000ul

static inline void *__va(phys_addr_t p) { return (void *)(uintptr_t)(p + PAGE_OFFSET); }
static inline phys_addr_t __pa(const void *v)
{
	uintptr_t a = (uintptr_t)v;
	return a >= KERNEL_VMA ? a - KERNEL_VMA : a - PAGE_OFFSET;
}
#define phys_to_virt(p) __va(p)
#define virt_to_phys(v) __pa(v)

#endif
