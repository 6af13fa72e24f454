/* Builds the kernel page tables from a static pool (no allocator exists yet).
 *
 * Invariant kept: no kernel mapping is both writable and executable, and the
 * page under the boot stack is never mapped, so a stack overflow faults
 * (the fault is then handled on an IST stack) instead of overwriting BSS. */
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/pgtable.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/* One array, so the guard page is certainly right below the stack: the guard
 * page, then the stack; head64.asm starts on boot_stack_top. */
__section(".bss.page_aligned") __aligned(4096) char boot_stack_area[PAGE_SIZE + BOOT_STACK_SIZE];
#define STRINGIFY(x) #x
#define XSTRINGIFY(x) STRINGIFY(x)
__asm__(".globl boot_stack_guard, boot_stack, boot_stack_top\n"
	".set boot_stack_guard, boot_stack_area\n"
	".set boot_stack, boot_stack_area + 4096\n"
	".set boot_stack_top, boot_stack_area + 4096 + " XSTRINGIFY(BOOT_STACK_SIZE));
extern char boot_stack[], boot_stack_top[];

#define POOL_PAGES 64
static __section(".bss.page_aligned") __aligned(4096) u64 pool[POOL_PAGES][PTRS_PER_TABLE];
static unsigned pool_used;
static u64 *kernel_pml4;

phys_addr_t direct_map_end;
unsigned long direct_map_page_size;

extern char _text[], _etext[], _erodata[], _edata[], _end[];

phys_addr_t (*early_pgtable_alloc)(void);

static u64 *alloc_table(void)
{
	u64 *t;
	if (pool_used < POOL_PAGES) {
		t = pool[pool_used++];
	} else if (early_pgtable_alloc) {
		phys_addr_t pa = early_pgtable_alloc();
		if (!pa)
			return NULL;
		t = __va(pa);
	} else {
		return NULL;
	}
	memset(t, 0, PAGE_SIZE);
	return t;
}

/* The pool lives in the kernel image: its physical address is known. */
static u64 table_entry(u64 *table)
{
	return __pa(table) | _PAGE_PRESENT | _PAGE_RW;
}

static u64 *next_level(u64 *entry)
{
	if (!(*entry & _PAGE_PRESENT)) {
		u64 *t = alloc_table();
		if (!t)
			return NULL;
		*entry = table_entry(t);
	}
	return (u64 *)__va(*entry & PTE_PFN_MASK);
}

/* Before the switch, tables are reached through the kernel image mapping;
 * the pool is in the image so __va(__pa(x)) == x's direct-map alias, which
 * the boot tables also map (first 4 GiB). */
bool kernel_map(unsigned long va, phys_addr_t pa, u64 flags, int level)
{
	u64 *pud = next_level(&kernel_pml4[pgd_index(va)]);
	if (!pud)
		return false;
	if (level == 3) {
		pud[pud_index(va)] = pa | flags | _PAGE_PSE;
		return true;
	}
	u64 *pmd = next_level(&pud[pud_index(va)]);
	if (!pmd)
		return false;
	if (level == 2) {
		pmd[pmd_index(va)] = pa | flags | _PAGE_PSE;
		return true;
	}
	u64 *pte = next_level(&pmd[pmd_index(va)]);
	if (!pte)
		return false;
	pte[pte_index(va)] = pa | flags;
	return true;
}

static void map_kernel_range(char *start, char *end, u64 flags)
{
	for (unsigned long va = (unsigned long)start; va < (unsigned long)end; va += PAGE_SIZE) {
		if (va >= (unsigned long)boot_stack_guard &&
		    va < (unsigned long)boot_stack_guard + PAGE_SIZE)
			continue;
		if (!kernel_map(va, __pa((void *)va), flags, 1))
			panic("boot_paging: page-table pool exhausted mapping the kernel");
	}
}

void boot_paging_init(phys_addr_t top_of_ram)
{
	u64 nx = boot_cpu_has(X86_FEATURE_NX) ? _PAGE_NX : 0;
	u64 global = _PAGE_GLOBAL;

	kernel_pml4 = alloc_table();

	map_kernel_range(_text, _etext, _PAGE_PRESENT | global);
	map_kernel_range(_etext, _erodata, _PAGE_PRESENT | global | nx);
	map_kernel_range(_erodata, _end, _PAGE_PRESENT | _PAGE_RW | global | nx);

	phys_addr_t end = top_of_ram > GiB(4) ? top_of_ram : GiB(4);
	int level = boot_cpu_has(X86_FEATURE_PDPE1GB) ? 3 : 2;
	unsigned long step = level == 3 ? PUD_SIZE : PMD_SIZE;
	end = ALIGN_UP(end, step);
	phys_addr_t pa;
	for (pa = 0; pa < end; pa += step)
		if (!kernel_map(PAGE_OFFSET + pa, pa, _PAGE_PRESENT | _PAGE_RW | global | nx, level))
			break;
	if (pa < end)
		pr_warn("boot_paging: page-table pool exhausted: direct map stops at %#lx of %#lx\n",
			pa, end);
	direct_map_end = pa;
	direct_map_page_size = step;

	write_cr4(read_cr4() | X86_CR4_PGE);
	write_cr3(__pa(kernel_pml4));
	/* CR4.PGE toggling flushes global entries too. */
	write_cr4(read_cr4() & ~X86_CR4_PGE);
	write_cr4(read_cr4() | X86_CR4_PGE);
}

u64 *lookup_kernel_address(unsigned long addr, int *level)
{
	u64 *pgd = &kernel_pml4[pgd_index(addr)];
	if (!(*pgd & _PAGE_PRESENT))
		return NULL;
	u64 *pud = &((u64 *)__va(*pgd & PTE_PFN_MASK))[pud_index(addr)];
	if (!(*pud & _PAGE_PRESENT))
		return NULL;
	if (*pud & _PAGE_PSE) {
		*level = 3;
		return pud;
	}
	u64 *pmd = &((u64 *)__va(*pud & PTE_PFN_MASK))[pmd_index(addr)];
	if (!(*pmd & _PAGE_PRESENT))
		return NULL;
	if (*pmd & _PAGE_PSE) {
		*level = 2;
		return pmd;
	}
	u64 *pte = &((u64 *)__va(*pmd & PTE_PFN_MASK))[pte_index(addr)];
	if (!(*pte & _PAGE_PRESENT))
		return NULL;
	*level = 1;
	return pte;
}
