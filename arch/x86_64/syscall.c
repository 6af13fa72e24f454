/* The CPU side of user mode: the syscall MSRs, SSE state for user
 * programs, SMEP/SMAP, and the C half of the syscall entry.
 *
 * User programs may use SSE and AVX (compilers emit them freely), the
 * kernel never does (-mgeneral-regs-only); the state and its switching are
 * arch/x86_64/fpu.c, the FS/GS bases arch/x86_64/process_64.c. */
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "mm/slab.h"
#include "kernel/syscall.h"

#define MSR_EFER 0xc0000080
#define EFER_SCE (1ull << 0)
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_CSTAR 0xc0000083
#define MSR_SYSCALL_MASK 0xc0000084
#define MSR_KERNEL_GS_BASE 0xc0000102

#define X86_EFLAGS_TF (1ul << 8)
#define X86_EFLAGS_IF (1ul << 9)
#define X86_EFLAGS_DF (1ul << 10)
#define X86_EFLAGS_IOPL (3ul << 12)
#define X86_EFLAGS_NT (1ul << 14)
#define X86_EFLAGS_AC (1ul << 18)

#define X86_CR0_MP (1ul << 1)
#define X86_CR0_EM (1ul << 2)
#define X86_CR0_TS (1ul << 3)
#define X86_CR0_NE (1ul << 5)

void entry_SYSCALL_64(void);
void entry_SYSCALL_compat(void);

void user_mode_cpu_init(void)
{
	/* syscall.asm reads the entry area at fixed GS offsets. */
	if ((char *)&cpu_entry_area != (char *)&this_cpu_off + 8 ||
	    offsetof(struct cpu_entry_area, user_rsp) != 8)
		panic("BUG: cpu_entry_area is not right after this_cpu_off");

	/* SSE for user programs: FXSAVE/FXRSTOR and SSE exceptions as #XM. */
	write_cr0((read_cr0() | X86_CR0_MP | X86_CR0_NE) & ~(X86_CR0_EM | X86_CR0_TS));
	write_cr4(read_cr4() | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT);
	/* XSAVE (AVX, AVX-512 state) where the CPU has it; the first CPU here
	 * is the boot CPU, which sizes the areas. */
	static bool boot_cpu_done;
	fpu_init_cpu(!boot_cpu_done);
	boot_cpu_done = true;
	/* rdfsbase/wrfsbase/rdgsbase/wrgsbase for user mode, as Linux. */
	fsgsbase_init_cpu();

	/* The kernel never executes user pages, and touches them only inside
	 * the uaccess functions (stac/clac). */
	if (boot_cpu_has(X86_FEATURE_SMEP))
		write_cr4(read_cr4() | X86_CR4_SMEP);
	if (boot_cpu_has(X86_FEATURE_SMAP)) {
		write_cr4(read_cr4() | X86_CR4_SMAP);
		smap_enabled = true;
	}

	/* syscall: kernel CS = STAR[47:32], SS = +8; sysret to 64-bit mode:
	 * CS = STAR[63:48] + 16, SS = STAR[63:48] + 8 (Linux's layout). */
	wrmsr(MSR_STAR, ((u64)__USER32_CS << 48) | ((u64)__KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (u64)(uintptr_t)entry_SYSCALL_64);
	wrmsr(MSR_CSTAR, (u64)(uintptr_t)entry_SYSCALL_compat);
	wrmsr(MSR_SYSCALL_MASK, X86_EFLAGS_TF | X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_IOPL |
					X86_EFLAGS_NT | X86_EFLAGS_AC);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* The user GS base, swapped in on the way to user mode. */
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

void do_syscall_entry(struct pt_regs *regs);
void do_syscall_entry(struct pt_regs *regs)
{
	const unsigned long args[6] = { regs->rdi, regs->rsi, regs->rdx, regs->r10, regs->r8, regs->r9 };
	__asm__ volatile("sti" ::: "memory");
	regs->rax = (u64)do_syscall_64(regs->error_code, args);
	exit_to_user_mode_prepare();
	__asm__ volatile("cli" ::: "memory");
}
