/* The IDT and the C side of every exception. An exception in the kernel is
 * either fixed up (exception table), handed to the test framework (a test case
 * that faults fails, the run goes on), or fatal: the kernel prints what a
 * reader needs to find the bug (vector, error code, CR2, registers, a
 * backtrace with symbol names) and leaves QEMU with the panic code. */
#include "arch/x86_64/traps.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"

struct idt_entry {
	u16 offset_lo;
	u16 selector;
	u8 ist;
	u8 type_attr;
	u16 offset_mid;
	u32 offset_hi;
	u32 reserved;
} __packed;

static struct idt_entry idt[256] __aligned(16);
extern const char trap_stubs[];

void (*trap_fault_hook)(struct pt_regs *regs, u64 cr2);
DEFINE_PER_CPU(unsigned long, nmi_count);
DEFINE_PER_CPU(unsigned long, nmi_user_count);
DEFINE_PER_CPU(int, irq_depth);
unsigned long nr_interrupts_handled;
bool (*kernel_stack_guard_hit)(u64 addr, char *buf, size_t size);

static interrupt_handler_t interrupt_handlers[256];

void register_interrupt_handler(unsigned vector, interrupt_handler_t fn)
{
	interrupt_handlers[vector] = fn;
}

static void set_gate(unsigned vector, unsigned ist)
{
	/* Each stub is 16-byte aligned in entry.asm. */
	u64 addr = (u64)(uintptr_t)trap_stubs + vector * 16;
	idt[vector] = (struct idt_entry){
		.offset_lo = addr & 0xffff,
		.selector = __KERNEL_CS,
		.ist = ist,
		.type_attr = 0x8e, /* present, DPL 0, interrupt gate */
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_hi = addr >> 32,
	};
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, 0);
	set_gate(X86_TRAP_DF, IST_DOUBLE_FAULT);
	set_gate(X86_TRAP_NMI, IST_NMI);
	set_gate(X86_TRAP_MC, IST_MACHINE_CHECK);
	idt_load();
}

void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed ptr = { sizeof(idt) - 1, (u64)(uintptr_t)idt };
	__asm__ volatile("lidt %0" ::"m"(ptr));
}

static const char *const trap_names[32] = {
	[0] = "divide error (#DE)", [1] = "debug (#DB)", [2] = "NMI",
	[3] = "breakpoint (#BP)", [4] = "overflow (#OF)", [5] = "bound range (#BR)",
	[6] = "invalid opcode (#UD)", [7] = "device not available (#NM)",
	[8] = "double fault (#DF)", [9] = "coprocessor segment overrun",
	[10] = "invalid TSS (#TS)", [11] = "segment not present (#NP)",
	[12] = "stack-segment fault (#SS)", [13] = "general protection (#GP)",
	[14] = "page fault (#PF)", [16] = "x87 floating point (#MF)",
	[17] = "alignment check (#AC)", [18] = "machine check (#MC)",
	[19] = "SIMD floating point (#XM)", [20] = "virtualization (#VE)",
	[21] = "control protection (#CP)", [28] = "hypervisor injection (#HV)",
	[29] = "VMM communication (#VC)", [30] = "security (#SX)",
};

const char *trap_name(unsigned vector)
{
	if (vector < 32)
		return trap_names[vector] ? trap_names[vector] : "reserved exception";
	return "external interrupt";
}

static void print_symbol(u64 addr)
{
	u64 off, size;
	const char *name = ksym_lookup(addr, &off, &size);
	if (name)
		printk(KERN_EMERG " [<%016lx>] %s+0x%lx/0x%lx\n", addr, name, off, size);
	else
		printk(KERN_EMERG " [<%016lx>] ?\n", addr);
}

/* A frame pointer is followed only while it stays on a known kernel stack,
 * so a corrupt chain ends the trace instead of faulting again. */
static bool plausible_frame(u64 rbp)
{
	if (rbp & 7)
		return false;
	u64 lo = (u64)(uintptr_t)boot_stack, hi = (u64)(uintptr_t)boot_stack_top;
	if (rbp >= lo && rbp + 16 <= hi)
		return true;
	if (kernel_stack_contains && kernel_stack_contains(rbp) && kernel_stack_contains(rbp + 15))
		return true;
	return address_on_exception_stack(rbp) && address_on_exception_stack(rbp + 15);
}

bool (*kernel_stack_contains)(u64 addr);

void show_backtrace(u64 rip, u64 rbp)
{
	u64 last = 0;
	unsigned repeats = 0;

	printk(KERN_EMERG "Call trace:\n");
	print_symbol(rip);
	for (int depth = 0; depth < 4096 && plausible_frame(rbp); depth++) {
		u64 *frame = (u64 *)(uintptr_t)rbp;
		u64 ret = frame[1];
		if (!ret)
			break;
		/* Deep recursion prints one line and a count, not the stack. */
		if (ret == last) {
			repeats++;
		} else {
			if (repeats)
				printk(KERN_EMERG " ... the frame above repeated %u more times\n", repeats);
			repeats = 0;
			last = ret;
			/* The return address points after the call: show the call. */
			print_symbol(ret - 1);
		}
		if (frame[0] <= rbp)
			break; /* stacks grow down: callers live higher */
		rbp = frame[0];
	}
	if (repeats)
		printk(KERN_EMERG " ... the frame above repeated %u more times\n", repeats);
}

void show_fault(const struct pt_regs *regs, u64 cr2)
{
	printk(KERN_EMERG "%s, vector %lu, error code 0x%lx\n", trap_name(regs->vector),
	       regs->vector, regs->error_code);
	if (regs->vector == X86_TRAP_PF) {
		u64 e = regs->error_code;
		printk(KERN_EMERG "CR2: %016lx (%s %s, %s mode%s%s)\n", cr2,
		       e & X86_PF_INSTR ? "instruction fetch" : e & X86_PF_WRITE ? "write" : "read",
		       e & X86_PF_PROT ? "protection violation" : "of a not-present page",
		       e & X86_PF_USER ? "user" : "kernel", e & X86_PF_RSVD ? ", reserved bit set" : "",
		       "");
	}
	u64 off, size;
	const char *fn = ksym_lookup(regs->rip, &off, &size);
	printk(KERN_EMERG "RIP: %04lx:%016lx %s+0x%lx\n", regs->cs, regs->rip, fn ? fn : "?",
	       fn ? off : 0);
	printk(KERN_EMERG "RSP: %04lx:%016lx RFLAGS: %08lx\n", regs->ss, regs->rsp, regs->rflags);
	printk(KERN_EMERG "RAX: %016lx RBX: %016lx RCX: %016lx\n", regs->rax, regs->rbx, regs->rcx);
	printk(KERN_EMERG "RDX: %016lx RSI: %016lx RDI: %016lx\n", regs->rdx, regs->rsi, regs->rdi);
	printk(KERN_EMERG "RBP: %016lx R08: %016lx R09: %016lx\n", regs->rbp, regs->r8, regs->r9);
	printk(KERN_EMERG "R10: %016lx R11: %016lx R12: %016lx\n", regs->r10, regs->r11, regs->r12);
	printk(KERN_EMERG "R13: %016lx R14: %016lx R15: %016lx\n", regs->r13, regs->r14, regs->r15);
	printk(KERN_EMERG "CR0: %016lx CR3: %016lx CR4: %016lx\n", read_cr0(), read_cr3(),
	       read_cr4());
	u64 guard = (u64)(uintptr_t)boot_stack_guard;
	char where[160];
	if (regs->rsp >= guard && regs->rsp < guard + 4096 + 64)
		printk(KERN_EMERG "RSP is in the boot stack's guard page: kernel stack overflow\n");
	else if (kernel_stack_guard_hit && kernel_stack_guard_hit(regs->rsp, where, sizeof(where)))
		printk(KERN_EMERG "RSP is in %s: kernel stack overflow\n", where);
	else if (ist_stack_guard_hit(regs->rsp, where, sizeof(where)))
		printk(KERN_EMERG "RSP is in %s: exception stack overflow\n", where);
	show_backtrace(regs->rip, regs->rbp);
}

extern const struct exception_table_entry __ex_table_start[], __ex_table_end[];

static const struct exception_table_entry *find_exception_entry(u64 rip)
{
	for (const struct exception_table_entry *e = __ex_table_start; e < __ex_table_end; e++)
		if (e->insn == rip)
			return e;
	return NULL;
}

bool search_exception_table(u64 rip) { return find_exception_entry(rip) != NULL; }

bool fixup_exception(struct pt_regs *regs)
{
	const struct exception_table_entry *e = find_exception_entry(regs->rip);
	if (!e)
		return false;
	regs->rip = e->fixup;
	return true;
}

static const char *user_exception_reason(unsigned vector)
{
	switch (vector) {
	case X86_TRAP_DE: return "divide error";
	case X86_TRAP_UD: return "invalid opcode";
	case X86_TRAP_GP: return "general protection fault";
	case X86_TRAP_SS: return "stack-segment fault";
	case X86_TRAP_AC: return "alignment check";
	case X86_TRAP_MF: return "x87 floating-point exception";
	case X86_TRAP_XF: return "SIMD floating-point exception";
	case X86_TRAP_BP: return "breakpoint (no debugger)";
	case X86_TRAP_DB: return "debug trap (no debugger)";
	default: return trap_name(vector);
	}
}

/* Linux's fpu__exception_code: which unmasked exception the x87 status
 * word (#MF) or MXCSR (#XM) reports; 0 for none (a spurious trap). The
 * registers are live: the kernel never touches them. */
static int fpu_exception_code(unsigned vector)
{
	unsigned err;
	if (vector == X86_TRAP_MF) {
		u16 cwd, swd;
		__asm__ volatile("fnstcw %0" : "=m"(cwd));
		__asm__ volatile("fnstsw %0" : "=m"(swd));
		err = swd & ~cwd;
	} else {
		u32 mxcsr;
		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		err = ~(mxcsr >> 7) & mxcsr;
	}
	if (err & 0x001)
		return FPE_FLTINV;
	if (err & 0x004)
		return FPE_FLTDIV;
	if (err & 0x008)
		return FPE_FLTOVF;
	if (err & 0x012)
		return FPE_FLTUND;
	if (err & 0x020)
		return FPE_FLTRES;
	return 0;
}

#define DR6_BS (1ul << 14) /* single step */
#define DR6_RESERVED 0xffff0ff0ul

/* An exception in user mode that is not a page fault becomes the signal
 * Linux's arch/x86/kernel/traps.c sends for it (do_error_trap, math_error,
 * exc_general_protection's SIGSEGV, do_int3_user, exc_debug_user), with
 * its si_code and si_addr. */
static void do_user_trap(struct pt_regs *regs)
{
	unsigned vector = (unsigned)regs->vector;
	const char *why = user_exception_reason(vector);
	int sig = SIGSEGV, code = SI_KERNEL;
	unsigned long addr = 0;
	switch (vector) {
	case X86_TRAP_DE:
		sig = SIGFPE, code = FPE_INTDIV, addr = regs->rip;
		break;
	case X86_TRAP_UD:
		sig = SIGILL, code = ILL_ILLOPN, addr = regs->rip;
		break;
	case X86_TRAP_NP:
	case X86_TRAP_SS:
		sig = SIGBUS;
		break;
	case X86_TRAP_AC:
		sig = SIGBUS, code = BUS_ADRALN;
		break;
	case X86_TRAP_BP:
		sig = SIGTRAP;
		break;
	case X86_TRAP_DB: {
		unsigned long dr6;
		__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
		__asm__ volatile("mov %0, %%dr6" ::"r"(DR6_RESERVED));
		sig = SIGTRAP, code = dr6 & DR6_BS ? TRAP_TRACE : TRAP_BRKPT, addr = regs->rip;
		break;
	}
	case X86_TRAP_MF:
	case X86_TRAP_XF:
		sig = SIGFPE, code = fpu_exception_code(vector), addr = regs->rip;
		if (!code) /* spurious: not an error (Linux's math_error) */
			return;
		break;
	default: /* #GP, #TS, #OF, #BR and the rest: a plain SIGSEGV */
		break;
	}
	user_fault_signal(regs, 0, why, sig, code, addr);
}

void do_trap(struct pt_regs *regs);
void do_trap(struct pt_regs *regs)
{
	u64 cr2 = regs->vector == X86_TRAP_PF ? read_cr2() : 0;

	if (regs->vector >= 32) {
		interrupt_handler_t fn = interrupt_handlers[regs->vector];
		if (fn) {
			idle_irq_enter(); /* the CPU's idle time ends at the interrupt */
			__atomic_add_fetch(&nr_interrupts_handled, 1, __ATOMIC_RELAXED);
			this_cpu_write(irq_depth, this_cpu_read(irq_depth) + 1);
			fn(regs); /* the handler sends the EOI */
			this_cpu_write(irq_depth, this_cpu_read(irq_depth) - 1);
			if (regs->cs & 3)
				exit_to_user_mode_prepare();
			return;
		}
		if (regs->vector != 0xff) { /* the APIC's spurious vector needs no EOI */
			printk(KERN_WARNING "traps: unexpected interrupt on vector %lu ignored\n",
			       regs->vector);
			apic_eoi(); /* or the APIC blocks this priority class for good */
		}
		return;
	}
	if (regs->vector == X86_TRAP_NMI) {
		/* No printk: the NMI may have interrupted the console lock's
		 * holder on this CPU. Counted, and otherwise ignored. */
		if (regs->cs & 3)
			this_cpu_write(nmi_user_count, this_cpu_read(nmi_user_count) + 1);
		this_cpu_write(nmi_count, this_cpu_read(nmi_count) + 1);
		return;
	}
	if ((regs->cs & 3) && regs->vector != X86_TRAP_DF && regs->vector != X86_TRAP_MC) {
		/* A user-mode exception: a page fault resolved, or a signal
		 * sent (not a machine check or double fault: those are the
		 * machine's, and they run on an IST stack that must not
		 * sleep). The way back delivers it (Linux's
		 * irqentry_exit_to_user_mode). */
		if (regs->vector != X86_TRAP_PF || !handle_page_fault(regs, cr2))
			do_user_trap(regs);
		exit_to_user_mode_prepare();
		return;
	}
	if (regs->vector == X86_TRAP_PF && handle_page_fault(regs, cr2))
		return;
	if (fixup_exception(regs))
		return;
	if (trap_fault_hook && regs->vector != X86_TRAP_DF && regs->vector != X86_TRAP_MC)
		trap_fault_hook(regs, cr2);

	oops_in_progress = true;
	printk(KERN_EMERG "\nKernel panic: unhandled exception in kernel mode on CPU %u\n",
	       smp_processor_id());
	show_fault(regs, cr2);
	panic_exit();
}
