/* Builds the kernel page tables (swapper_pg_dir) from a static pool: no
 * allocator exists yet. This is boot code only: it runs once, on the boot
 * CPU, before anything else maps (so it takes no lock); every later change
 * to the kernel's tables goes through mm/kernel_map.c.
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
#include "kernel/sections.h"
#include "lib/string.h"

/* One array, so the guard page is certainly right below the stack: the guard
 * page, then the stack; head64.asm starts on boot_stack_top. */
__section(".bss.page_aligned") __aligned(4096) char boot_stack_area[PAGE_SIZE + BOOT_STACK_SIZE];
#define STRINGIFY(x) #x
#define XSTRINGIFY(x) STRINGIFY(x)
__asm__(".globl boot_stack_guard, boot_stack, boot_stack_top\n"
	".set boot_stack_guard, boot_stack_area\n"
	".set boot_stack, boot_stack_area + 4096\n"
	".set boot_stack_top, boot_stack_area + 4096 + " XSTRINGIFY(BOOT_STACK_SIZE));

/* With swapper_pg_dir, the 64 pages the boot tables always had. */
#define POOL_PAGES 63
static __section(".bss.page_aligned") __aligned(4096) u64 pool[POOL_PAGES][PTRS_PER_TABLE];
static unsigned pool_used;

__section(".bss.page_aligned") __aligned(4096) pgd_t swapper_pg_dir[PTRS_PER_TABLE];

phys_addr_t direct_map_end;
unsigned long direct_map_page_size;

/* The pool lives in the kernel image: its physical address is known, and
 * before the switch its direct-map alias is reached through the boot
 * loader-era tables (which map the first 4 GiB there). */
static u64 pool_table_entry(void)
{
	if (pool_used == POOL_PAGES)
		return 0;
	u64 *t = pool[pool_used++];
	memset(t, 0, PAGE_SIZE);
	return __pa(t) | _PAGE_PRESENT | _PAGE_RW;
}

static void *table_of(u64 entry) { return __va(entry & PTE_PFN_MASK); }

/* Maps one page of the given level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB) into
 * swapper_pg_dir with tables from the pool; only for boot_paging_init (mm's
 * map_kernel_range_phys does the rest once an allocator exists). Returns
 * false when the pool is exhausted. */
static bool boot_map(unsigned long va, phys_addr_t pa, u64 flags, int level)
{
	pgd_t *pgd = &swapper_pg_dir[pgd_index(va)];
	if (pgd_none(*pgd)) {
		u64 e = pool_table_entry();
		if (!e)
			return false;
		*pgd = __pgd(e);
	}
	pud_t *pud = (pud_t *)table_of(pgd_val(*pgd)) + pud_index(va);
	if (level == 3) {
		*pud = __pud(pa | flags | _PAGE_PSE);
		return true;
	}
	if (pud_none(*pud)) {
		u64 e = pool_table_entry();
		if (!e)
			return false;
		*pud = __pud(e);
	}
	pmd_t *pmd = (pmd_t *)table_of(pud_val(*pud)) + pmd_index(va);
	if (level == 2) {
		*pmd = __pmd(pa | flags | _PAGE_PSE);
		return true;
	}
	if (pmd_none(*pmd)) {
		u64 e = pool_table_entry();
		if (!e)
			return false;
		*pmd = __pmd(e);
	}
	pte_t *pte = (pte_t *)table_of(pmd_val(*pmd)) + pte_index(va);
	*pte = __pte(pa | flags);
	return true;
}

static void map_image_range(char *start, char *end, u64 flags)
{
	for (unsigned long va = (unsigned long)start; va < (unsigned long)end; va += PAGE_SIZE) {
		if (va >= (unsigned long)boot_stack_guard &&
		    va < (unsigned long)boot_stack_guard + PAGE_SIZE)
			continue;
		if (!boot_map(va, __pa((void *)va), flags, 1))
			panic("boot_paging: page-table pool exhausted mapping the kernel");
	}
}

void boot_paging_init(phys_addr_t top_of_ram)
{
	u64 nx = boot_cpu_has(X86_FEATURE_NX) ? _PAGE_NX : 0;
	u64 global = _PAGE_GLOBAL;

	map_image_range(_text, _etext, _PAGE_PRESENT | global);
	map_image_range(_etext, _erodata, _PAGE_PRESENT | global | nx);
	map_image_range(_erodata, _end, _PAGE_PRESENT | _PAGE_RW | global | nx);

	phys_addr_t end = top_of_ram > GiB(4) ? top_of_ram : GiB(4);
	int level = boot_cpu_has(X86_FEATURE_PDPE1GB) ? 3 : 2;
	unsigned long step = level == 3 ? PUD_SIZE : PMD_SIZE;
	end = ALIGN_UP(end, step);
	phys_addr_t pa;
	for (pa = 0; pa < end; pa += step)
		if (!boot_map(PAGE_OFFSET + pa, pa, _PAGE_PRESENT | _PAGE_RW | global | nx, level))
			break;
	if (pa < end)
		pr_warn("boot_paging: page-table pool exhausted: direct map stops at %#lx of %#lx\n",
			pa, end);
	direct_map_end = pa;
	direct_map_page_size = step;

	write_cr4(read_cr4() | X86_CR4_PGE);
	write_cr3(__pa(swapper_pg_dir));
	/* CR4.PGE toggling flushes global entries too. */
	write_cr4(read_cr4() & ~X86_CR4_PGE);
	write_cr4(read_cr4() | X86_CR4_PGE);
}
