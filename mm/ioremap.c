/* ioremap and iounmap (Linux's arch/x86/mm/ioremap.c, reduced to the one
 * cache mode drivers here need): a device's registers mapped uncached into
 * a range of the vmalloc area of their own, so that the vmalloc area's
 * allocator, guard pages and /proc/vmallocinfo ("ioremap") cover them too.
 *
 * The entries are 4 KiB ones with _PAGE_PCD: with the power-on PAT, which
 * mmlab never reprograms, PCD without PWT selects UC- (Linux's
 * _PAGE_CACHE_MODE_UC_MINUS, what its plain ioremap gives). mmlab has no
 * memtype tracking (Linux's memtype_reserve): nothing stops two mappings of
 * one range with different cache modes, and only RAM is refused. */
#include "arch/x86_64/io.h"
#include "drivers/firmware/memmap.h"
#include "kernel/printk.h"
#include "mm/kernel_map.h"
#include "mm/numa.h"
#include "mm/vmalloc.h"

#define IOREMAP_PROT (_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY | _PAGE_GLOBAL | \
		      _PAGE_PCD | _PAGE_NX)

void *ioremap(phys_addr_t phys, unsigned long size)
{
	phys_addr_t last = phys + size - 1;
	if (!size || last < phys || last >= (1ull << 52))
		return NULL;
	phys_addr_t start = phys & ~(phys_addr_t)(PAGE_SIZE - 1);
	unsigned long len = ALIGN_UP(last + 1, PAGE_SIZE) - start;
	if (memmap_ram_within(&boot_memmap, start, start + len)) {
		pr_warn("ioremap: %#llx-%#llx is RAM; not mapped\n", (unsigned long long)phys,
			(unsigned long long)last);
		return NULL;
	}
	struct vm_struct *area = __get_vm_area_node(len, PAGE_SIZE, VM_IOREMAP, VMALLOC_START,
						    VMALLOC_ALLOC_END, NUMA_NO_NODE, GFP_KERNEL,
						    __builtin_return_address(0));
	if (!area)
		return NULL;
	unsigned long addr = (unsigned long)area->addr;
	if (map_kernel_range_phys(addr, len, start, IOREMAP_PROT, PAGE_SHIFT, GFP_KERNEL)) {
		free_vm_area(area);
		return NULL;
	}
	return (void *)(addr + (phys - start));
}

void iounmap(volatile void *addr)
{
	void *base = (void *)((unsigned long)addr & ~(PAGE_SIZE - 1));
	struct vm_struct *area = find_vm_area(base);
	if (!area || !(area->flags & VM_IOREMAP) || area->addr != base) {
		pr_warn("iounmap: %p is not an ioremap'd range\n", (void *)addr);
		return;
	}
	free_vm_area(area);
}
