/* Each CPU's GDT, TSS and IST stacks (the boot CPU's tables are static,
 * the others' come from their own node; every IST stack ends up in vmalloc
 * with an unmapped page below). Double faults, NMIs and machine checks run
 * on IST stacks of their own, so a kernel stack overflow (which faults on
 * the guard page with no usable stack) still gets reported. The top word
 * of each IST stack holds the CPU's kernel GS base, for the paranoid entry
 * (gdt.h, IST_GSBASE_SLOT). */
#include "arch/x86_64/gdt.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/vmalloc.h"

static const char *const ist_names[3] = { "#DF", "NMI", "#MC" };

/* The boot CPU's first IST stacks: used until vmalloc works. */
static u8 boot_ist_stacks[3][IST_STACK_SIZE] __aligned(16);
static struct cpu_tables boot_cpu_tables = {
	.ist_stack = { boot_ist_stacks[0], boot_ist_stacks[1], boot_ist_stacks[2] },
};
DEFINE_PER_CPU(struct cpu_tables *, cpu_tables) = &boot_cpu_tables;

static u8 *ist_stack_vmalloc(int nid)
{
	return __vmalloc_node_range(IST_STACK_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END, GFP_KERNEL,
				    PAGE_KERNEL_VMALLOC, VM_STACK, nid, __builtin_return_address(0));
}

int ist_stacks_alloc(struct cpu_tables *t, int nid)
{
	for (int i = 0; i < 3; i++) {
		t->ist_stack[i] = ist_stack_vmalloc(nid);
		if (!t->ist_stack[i]) {
			ist_stacks_free(t);
			return -ENOMEM;
		}
	}
	return 0;
}

void ist_stacks_free(struct cpu_tables *t)
{
	for (int i = 0; i < 3; i++) {
		vfree(t->ist_stack[i]);
		t->ist_stack[i] = NULL;
	}
}

void ist_stacks_move_to_vmalloc(void)
{
	struct cpu_tables *t = &boot_cpu_tables;
	for (int i = 0; i < 3; i++) {
		u8 *s = ist_stack_vmalloc(cpu_to_node(smp_processor_id()));
		if (!s) {
			pr_warn("gdt: no memory for the boot CPU's %s stack; it stays static, "
				"without a guard page\n", ist_names[i]);
			continue;
		}
		/* The GS base slot first: an NMI may use the new stack as soon
		 * as TSS.ist names it (one aligned 8-byte store). */
		memcpy(s + IST_GSBASE_SLOT, t->ist_stack[i] + IST_GSBASE_SLOT, sizeof(u64));
		__atomic_store_n(&t->ist_stack[i], s, __ATOMIC_RELEASE);
		__atomic_store_n(&t->tss.ist[i], (u64)(uintptr_t)(s + IST_GSBASE_SLOT), __ATOMIC_RELEASE);
	}
}

struct gdt_ptr {
	u16 limit;
	u64 base;
} __packed;

void gdt_init(void)
{
	gdt_load(&boot_cpu_tables);
}

void gdt_load(struct cpu_tables *t)
{
	u64 *gdt = t->gdt;
	struct tss64 *tssp = &t->tss;
	gdt[0] = 0;
	gdt[1] = 0x00cf9a000000ffffull; /* kernel 32-bit code */
	gdt[2] = 0x00af9a000000ffffull; /* kernel 64-bit code */
	gdt[3] = 0x00cf92000000ffffull; /* kernel data */
	gdt[4] = 0x00cffa000000ffffull; /* user 32-bit code */
	gdt[5] = 0x00cff2000000ffffull; /* user data */
	gdt[6] = 0x00affa000000ffffull; /* user 64-bit code */
	gdt[7] = 0;

	memset(tssp, 0, sizeof(*tssp));
	for (int i = 0; i < 3; i++)
		tssp->ist[i] = (u64)(uintptr_t)(t->ist_stack[i] + IST_GSBASE_SLOT);
	tssp->iomap_base = sizeof(*tssp); /* no I/O bitmap */

	u64 base = (u64)(uintptr_t)tssp;
	u64 limit = sizeof(*tssp) - 1;
	gdt[GDT_ENTRY_TSS] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
			     (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[GDT_ENTRY_TSS + 1] = base >> 32;

	struct gdt_ptr ptr = { sizeof(t->gdt) - 1, (u64)(uintptr_t)gdt };
	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movl %2, %%eax\n\t"
			 "movl %%eax, %%ds\n\t"
			 "movl %%eax, %%es\n\t"
			 "movl %%eax, %%ss\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "movl %%eax, %%fs\n\t"
			 "movl %%eax, %%gs\n\t"
			 "ltr %w3"
			 :
			 : "m"(ptr), "i"(__KERNEL_CS), "i"(__KERNEL_DS), "r"(__TSS_SEL)
			 : "rax", "memory");
}

void ist_set_kernel_gs_base(struct cpu_tables *t, u64 base)
{
	for (int i = 0; i < 3; i++)
		memcpy(t->ist_stack[i] + IST_GSBASE_SLOT, &base, sizeof(base));
}

u64 ist_kernel_gs_base(const struct cpu_tables *t, unsigned ist_index)
{
	u64 base;
	memcpy(&base, t->ist_stack[ist_index] + IST_GSBASE_SLOT, sizeof(base));
	return base;
}

bool address_on_exception_stack(u64 addr)
{
	const struct cpu_tables *t = this_cpu_read(cpu_tables);
	for (int i = 0; i < 3; i++) {
		u64 lo = (u64)(uintptr_t)t->ist_stack[i];
		if (addr >= lo && addr < lo + IST_STACK_SIZE)
			return true;
	}
	return false;
}

bool ist_stack_guard_hit(u64 addr, char *buf, size_t size)
{
	const struct cpu_tables *t = this_cpu_read(cpu_tables);
	for (int i = 0; i < 3; i++) {
		u64 lo = (u64)(uintptr_t)t->ist_stack[i];
		if (!is_vmalloc_addr(t->ist_stack[i])) /* the boot CPU's static ones */
			continue;
		if (addr >= lo - PAGE_SIZE && addr < lo + 64) {
			snprintf(buf, size, "the guard page below CPU %u's %s stack (%#lx-%#lx)",
				 smp_processor_id(), ist_names[i], (unsigned long)lo,
				 (unsigned long)(lo + IST_STACK_SIZE));
			return true;
		}
	}
	return false;
}

/* Placed right after this_cpu_off (.data.percpu.first) by the linker. */
__section(".data.percpu.entry") __aligned(8) struct cpu_entry_area cpu_entry_area;

void set_kernel_stack(unsigned long top)
{
	this_cpu_read(cpu_tables)->tss.rsp[0] = top;
	this_cpu_ptr(&cpu_entry_area)->top_of_stack = top;
}
