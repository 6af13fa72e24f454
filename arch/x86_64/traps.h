/* CPU exceptions: the register frame, the IDT, and who handles a fault. */
#ifndef ARCH_X86_64_TRAPS_H
#define ARCH_X86_64_TRAPS_H

#include "kernel/types.h"

struct pt_regs {
	u64 r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	u64 rax, rcx, rdx, rsi, rdi;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

enum {
	X86_TRAP_DE = 0, X86_TRAP_DB = 1, X86_TRAP_NMI = 2, X86_TRAP_BP = 3,
	X86_TRAP_OF = 4, X86_TRAP_BR = 5, X86_TRAP_UD = 6, X86_TRAP_NM = 7,
	X86_TRAP_DF = 8, X86_TRAP_TS = 10, X86_TRAP_NP = 11, X86_TRAP_SS = 12,
	X86_TRAP_GP = 13, X86_TRAP_PF = 14, X86_TRAP_MF = 16, X86_TRAP_AC = 17,
	X86_TRAP_MC = 18, X86_TRAP_XF = 19, X86_TRAP_VE = 20, X86_TRAP_CP = 21,
};

/* Page-fault error code bits. */
#define X86_PF_PROT (1u << 0)
#define X86_PF_WRITE (1u << 1)
#define X86_PF_USER (1u << 2)
#define X86_PF_RSVD (1u << 3)
#define X86_PF_INSTR (1u << 4)

void idt_init(void);
/* Loads the (shared) IDT on this CPU. */
void idt_load(void);

typedef void (*interrupt_handler_t)(struct pt_regs *regs);
/* Vectors 32..255: fn runs with interrupts off and must send the EOI. */
void register_interrupt_handler(unsigned vector, interrupt_handler_t fn);
/* Interrupts (vectors 32 and up) handled since boot, on every CPU: the
 * total of /proc/stat's intr line. */
extern unsigned long nr_interrupts_handled;
/* Set by the thread code: whether addr lies on some thread's kernel stack
 * (for backtraces). */
extern bool (*kernel_stack_contains)(u64 addr);
/* Whether addr is in the guard page of a vmalloc'ed kernel stack; fills buf
 * with a description naming the stack (set by the scheduler). */
extern bool (*kernel_stack_guard_hit)(u64 addr, char *buf, size_t size);
const char *trap_name(unsigned vector);
/* NMIs taken on each CPU (ignored otherwise). */
#include "kernel/percpu.h"
DECLARE_PER_CPU(unsigned long, nmi_count);
/* Of those, the ones that interrupted user mode (tests of the entry). */
DECLARE_PER_CPU(unsigned long, nmi_user_count);
/* Interrupt handlers (and NMIs) running on this CPU, nested: non-zero in
 * interrupt context, as Linux's in_interrupt(). */
DECLARE_PER_CPU(int, irq_depth);
static inline bool in_interrupt(void) { return this_cpu_read(irq_depth) != 0; }

/* Prints the vector, error code, CR2, registers and a backtrace. */
void show_fault(const struct pt_regs *regs, u64 cr2);
/* Prints "[<addr>] symbol+off/size" frames from an rbp chain. */
void show_backtrace(u64 rip, u64 rbp);

/* A hook the test framework installs: called for an exception in kernel
 * mode before the kernel dies; it does not return if it takes the fault. */
extern void (*trap_fault_hook)(struct pt_regs *regs, u64 cr2);

/* Exception-table fixups: a faulting instruction listed there resumes at
 * its fixup address instead of oopsing (used by user-memory copies). */
struct exception_table_entry {
	u64 insn, fixup;
};
bool fixup_exception(struct pt_regs *regs);
/* Whether rip is listed in the exception table. */
bool search_exception_table(u64 rip);

/* Implemented by mm/fault.c: resolves a page fault on a user address
 * (demand paging), kills a process that may not take it, returns false for
 * a kernel-mode fault it does not resolve (the fixup or an oops follows). */
bool handle_page_fault(struct pt_regs *regs, u64 cr2);
/* Implemented by the scheduler: called on the way back to user mode from
 * an interrupt or a system call; switches to another runnable task of this
 * CPU if there is one (user mode is preemptible, the kernel is not). */
void exit_to_user_mode_prepare(void);
/* Implemented by kernel/exit.c, for an exception in user mode nobody
 * resolved. user_fault_signal sends the current thread signo with si_code
 * and si_addr addr (Linux's force_sig_fault), recording the trap for the
 * signal frame; when no handler will run (none installed, or the signal
 * blocked or ignored, which a fault's signal cannot be) the whole process
 * dies there with one console line naming reason, the address and ip,
 * and it does not return. user_fault_kill always kills (Linux's faults
 * that end in SIGKILL, as the OOM killer's). */
__noreturn void user_fault_kill(struct pt_regs *regs, u64 cr2, const char *reason, int signo);
void user_fault_signal(struct pt_regs *regs, u64 cr2, const char *reason, int signo, int code,
		       unsigned long addr);

#endif
