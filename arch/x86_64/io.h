/* Memory-mapped I/O (Linux's arch/x86/include/asm/io.h): the accessors
 * readb..readq / writeb..writeq, each one volatile access of its width, and
 * ioremap/iounmap (mm/ioremap.c), which map a device's physical range into
 * the kernel's vmalloc area uncached.
 *
 * x86 keeps stores to uncached memory in order with each other and with
 * earlier stores to ordinary memory, so a driver that fills a ring in RAM
 * and then writes a doorbell with writel needs only a compiler barrier
 * between them (Linux's x86 wmb before an uncached store is the same). */
#ifndef ARCH_X86_64_IO_H
#define ARCH_X86_64_IO_H

#include "kernel/types.h"

#define build_mmio(name, type)                                                      \
	static inline type read##name(const volatile void *addr)                    \
	{                                                                           \
		return *(const volatile type *)addr;                                \
	}                                                                           \
	static inline void write##name(type v, volatile void *addr)                 \
	{                                                                           \
		__asm__ volatile("" ::: "memory");                                  \
		*(volatile type *)addr = v;                                         \
	}
build_mmio(b, u8)
build_mmio(w, u16)
build_mmio(l, u32)
build_mmio(q, u64)
#undef build_mmio

/* Maps [phys, phys + size) uncached (Linux's ioremap: _PAGE_CACHE_MODE_UC_MINUS,
 * the PAT entry PCD selects with the power-on PAT, which mmlab keeps), never
 * executable, in a range of the vmalloc area of its own (VM_IOREMAP, shown in
 * /proc/vmallocinfo). phys need not be page-aligned: the pointer returned
 * keeps phys's offset in its page. NULL for size 0, a range that wraps or
 * reaches beyond 2^52, a range that holds RAM of the memory map (Linux's
 * "ioremap on RAM" refusal), or no memory. Sleeps. */
void *ioremap(phys_addr_t phys, unsigned long size);
/* Unmaps what ioremap returned (any pointer inside the first page of it). */
void iounmap(volatile void *addr);

#endif
