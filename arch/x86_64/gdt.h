/* Segments and the task state segment. Selector values follow Linux's x86_64
 * layout so that user code and debuggers see the numbers they expect. */
#ifndef ARCH_X86_64_GDT_H
#define ARCH_X86_64_GDT_H

#include "kernel/percpu.h"
#include "kernel/types.h"

#define __KERNEL32_CS 0x08
#define __KERNEL_CS 0x10
#define __KERNEL_DS 0x18
#define __USER32_CS 0x23
#define __USER_DS 0x2b
#define __USER_CS 0x33
#define GDT_ENTRY_TSS 8
#define __TSS_SEL (GDT_ENTRY_TSS * 8)

#define IST_DOUBLE_FAULT 1
#define IST_NMI 2
#define IST_MACHINE_CHECK 3
#define IST_STACK_SIZE (16 * 1024)
/* The top 16 bytes of each IST stack are not stack: TSS.ist points just
 * below them, and their first word holds the CPU's kernel GS base (its
 * per-CPU area, load_per_cpu_base writes it), which the paranoid entry
 * (entry.asm) reads right above the frame the CPU pushed, without trusting
 * GS: Linux's FSGSBASE paranoid_entry. The other word keeps the stack
 * 16-byte aligned. */
#define IST_GSBASE_SLOT (IST_STACK_SIZE - 16)

struct tss64 {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

struct cpu_tables {
	u64 gdt[GDT_ENTRY_TSS + 2] __aligned(16);
	struct tss64 tss __aligned(16);
	/* The lowest byte of each IST stack (IST_STACK_SIZE long). Every
	 * CPU's come from vmalloc, each its own area, so the page below each
	 * is unmapped (the guard of the area under it, or free space) and an
	 * overflow of one faults instead of running into its neighbour: Linux
	 * keeps its IST stacks in the cpu_entry_area with guard pages between
	 * them. The boot CPU starts on static ones and moves to vmalloc'ed
	 * ones as soon as vmalloc works (ist_stacks_move_to_vmalloc). */
	u8 *ist_stack[3];
};

/* What the syscall entry reads through GS before it has a stack: the
 * per-CPU data right after this_cpu_off (syscall.asm uses fixed offsets 8
 * and 16; checked at boot). */
struct cpu_entry_area {
	unsigned long top_of_stack;  /* the current task's kernel stack top (= TSS.rsp0) */
	unsigned long user_rsp;      /* scratch: the user rsp during the entry */
};

/* Each CPU's tables (gdt.c: the boot CPU's are static, the APs' come from
 * their node) and its entry area, placed right after this_cpu_off. */
DECLARE_PER_CPU(struct cpu_tables *, cpu_tables);
DECLARE_PER_CPU(struct cpu_entry_area, cpu_entry_area);

/* Sets the kernel stack that exceptions and system calls from user mode
 * land on (TSS.rsp0 and the syscall entry's top_of_stack). */
void set_kernel_stack(unsigned long top);

/* Loads the boot CPU's GDT and TSS. Loading the segment registers clears the
 * GS base: set it (load_per_cpu_base) afterwards. */
void gdt_init(void);
/* A CPU's three IST stacks from vmalloc on node nid (0, or -ENOMEM with
 * none allocated); ist_stacks_free gives them back (a CPU that never ran). */
int ist_stacks_alloc(struct cpu_tables *t, int nid);
void ist_stacks_free(struct cpu_tables *t);
/* The boot CPU's IST stacks, static until now, become vmalloc'ed ones
 * (after vmalloc works, before the other CPUs start). The static ones stay
 * where they are, unused: an NMI taken during the switch may be on one. */
void ist_stacks_move_to_vmalloc(void);
/* Fills and loads a CPU's tables (APs, with tables from their node). */
void gdt_load(struct cpu_tables *t);
/* Keeps base (the CPU's GS base: its per-CPU area) in the top slot of
 * each of its IST stacks, for the paranoid entry. */
void ist_set_kernel_gs_base(struct cpu_tables *t, u64 base);
/* The value the paranoid entry finds there (tests). */
u64 ist_kernel_gs_base(const struct cpu_tables *t, unsigned ist_index);
/* Bounds of the IST stacks, for the backtrace's stack check. */
bool address_on_exception_stack(u64 addr);
/* For the panic report: whether addr is in the page below one of this
 * CPU's IST stacks (an IST stack's overflow); names it in buf. */
bool ist_stack_guard_hit(u64 addr, char *buf, size_t size);

#endif
