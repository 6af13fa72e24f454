/* The user FS and GS bases of a thread (Linux's arch/x86/kernel/process_64.c):
 * arch_prctl, FSGSBASE, and switching the bases with the thread.
 *
 * task->thread.{fsbase,gsbase} hold a thread's bases while it is not
 * running. While it runs they are live in the CPU: FS base in MSR_FS_BASE
 * (the kernel does not use FS), and the user GS base in MSR_KERNEL_GS_BASE,
 * because the entry code's swapgs exchanged it with the kernel's per-CPU
 * base on the way in (and exchanges it back on the way out).
 *
 * Without CR4.FSGSBASE a user program cannot change its bases except
 * through arch_prctl, which updates task->thread too, so nothing needs
 * saving at switch-out. With it (where CPUID.7.EBX.FSGSBASE is set, as
 * Linux enables it), user mode may run wrfsbase/wrgsbase behind the
 * kernel's back, so the live bases are saved at switch-out (Linux's
 * save_fsgs) and arch_prctl's GET reads the live value for the current
 * thread (x86_fsbase_read_task).
 *
 * A user GS base may then be in the kernel half, so the paranoid entry
 * (NMI, #DF, #MC in arch/x86_64/entry.asm) no longer goes by its sign
 * where CR4.FSGSBASE is on: as Linux's FSGSBASE paranoid entry, it saves
 * the GS base, loads the per-CPU one, and restores the saved one. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/irqflags.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/mm_types.h"

#define MSR_FS_BASE 0xc0000100
#define MSR_KERNEL_GS_BASE 0xc0000102
#define X86_CR4_FSGSBASE (1ul << 16)

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

/* TASK_SIZE_MAX with 4-level paging: a base at or above it is refused. */
#define TASK_SIZE_MAX TASK_SIZE

void fsgsbase_init_cpu(void)
{
	if (boot_cpu_has(X86_FEATURE_FSGSBASE))
		write_cr4(read_cr4() | X86_CR4_FSGSBASE);
}

bool fsgsbase_enabled(void) { return boot_cpu_has(X86_FEATURE_FSGSBASE); }

/* Linux's save_fsgs: only needed when user mode can write the bases. */
static void save_fsgs(struct task_struct *tsk)
{
	if (!fsgsbase_enabled())
		return;
	tsk->thread.fsbase = rdmsr(MSR_FS_BASE);
	tsk->thread.gsbase = rdmsr(MSR_KERNEL_GS_BASE);
}

void current_save_fsgs(void)
{
	if (current->mm)
		save_fsgs(current);
}

void switch_fsgs(struct task_struct *prev, struct task_struct *next)
{
	/* Kernel threads use neither base; the CPU keeps the last user
	 * task's until the next user task loads its own. */
	if (prev->mm)
		save_fsgs(prev);
	if (!next->mm)
		return;
	wrmsr(MSR_FS_BASE, next->thread.fsbase);
	wrmsr(MSR_KERNEL_GS_BASE, next->thread.gsbase);
}

/* x86_fsbase_read_task / x86_gsbase_read_task: the live base for the
 * running thread (a wrfsbase may have changed it), the saved one else. */
static unsigned long fsbase_read_task(struct task_struct *tsk)
{
	return tsk == current && fsgsbase_enabled() ? rdmsr(MSR_FS_BASE) : tsk->thread.fsbase;
}

static unsigned long gsbase_read_task(struct task_struct *tsk)
{
	return tsk == current && fsgsbase_enabled() ? rdmsr(MSR_KERNEL_GS_BASE)
						     : tsk->thread.gsbase;
}

#define ARCH_GET_CPUID 0x1011
#define ARCH_SET_CPUID 0x1012
#define ARCH_GET_XCOMP_SUPP 0x1021
#define ARCH_GET_XCOMP_PERM 0x1022
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILE_DATA 18 /* AMX's tile data: the one dynamic feature */
#define XFEATURE_MAX 19

/* Linux's do_arch_prctl_64, then do_arch_prctl_common's options as Linux
 * answers them on a CPU without CPUID faulting and without AMX: CPUID is
 * always enabled (GET 1; SET -ENODEV), the xstate features offered and
 * permitted are the user ones in XCR0 (x87|SSE without XSAVE), and asking
 * permission succeeds for any feature but AMX's, which is not there
 * (-EOPNOTSUPP). The KVM guest permissions and shadow stacks: -EINVAL. */
/* Linux's start_thread (execve's new program): the user registers of a
 * program at its entry, with no FS or GS base and the FPU in its initial
 * state. */
void start_thread(struct pt_regs *regs, unsigned long ip, unsigned long sp)
{
	struct task_struct *tsk = current;
	memset(regs, 0, offsetof(struct pt_regs, vector));
	regs->error_code = (u64)-1; /* no system call to restart */
	regs->rip = ip;
	regs->rsp = sp;
	regs->rflags = X86_EFLAGS_IF;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	tsk->thread.fsbase = tsk->thread.gsbase = 0;
	wrmsr(MSR_FS_BASE, 0);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	fpu__clear_user_states();
}

SYSCALL_DEFINE2(arch_prctl, int, option, unsigned long, arg2)
{
	struct task_struct *tsk = current;
	switch (option) {
	case ARCH_SET_GS:
		if (arg2 >= TASK_SIZE_MAX)
			return -EPERM;
		/* No preemption between the two writes can lose it: a switch
		 * saves the MSR into the field (FSGSBASE) or reloads the field. */
		tsk->thread.gsbase = arg2;
		wrmsr(MSR_KERNEL_GS_BASE, arg2);
		return 0;
	case ARCH_SET_FS:
		if (arg2 >= TASK_SIZE_MAX)
			return -EPERM;
		tsk->thread.fsbase = arg2;
		wrmsr(MSR_FS_BASE, arg2);
		return 0;
	case ARCH_GET_FS:
		return put_user_u64(fsbase_read_task(tsk), (void *)arg2) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return put_user_u64(gsbase_read_task(tsk), (void *)arg2) ? -EFAULT : 0;
	case ARCH_GET_CPUID:
		return 1;
	case ARCH_SET_CPUID:
		return -ENODEV;
	case ARCH_GET_XCOMP_SUPP:
	case ARCH_GET_XCOMP_PERM:
		return put_user_u64(fpu_xfeatures ? fpu_xfeatures : XFEATURE_MASK_FP | XFEATURE_MASK_SSE, (void *)arg2) ? -EFAULT : 0;
	case ARCH_REQ_XCOMP_PERM:
		if (arg2 >= XFEATURE_MAX)
			return -EINVAL;
		return arg2 == XFEATURE_XTILE_DATA ? -EOPNOTSUPP : 0;
	default:
		return -EINVAL;
	}
}
