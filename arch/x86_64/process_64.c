/* The user FS and GS bases of a thread (Linux's arch/x86/kernel/process_64.c):
 * arch_prctl, and loading them when a thread is switched in.
 *
 * Without CR4.FSGSBASE a user program cannot change its bases except through
 * arch_prctl, so task->thread holds them exactly and nothing needs saving at
 * switch-out. While in the kernel, the user GS base sits in
 * MSR_KERNEL_GS_BASE (the entry code's swapgs exchanged it with the
 * kernel's per-CPU base), so that is the MSR that holds it here. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "mm/mm_types.h"

#define MSR_FS_BASE 0xc0000100
#define MSR_KERNEL_GS_BASE 0xc0000102

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

/* TASK_SIZE_MAX with 4-level paging: a base at or above it is refused. */
#define TASK_SIZE_MAX TASK_SIZE

void switch_fsgs(struct task_struct *prev, struct task_struct *next)
{
	(void)prev;
	if (!next->mm)
		return; /* kernel threads use neither base */
	wrmsr(MSR_FS_BASE, next->thread.fsbase);
	wrmsr(MSR_KERNEL_GS_BASE, next->thread.gsbase);
}

/* Linux's do_arch_prctl_64, with do_arch_prctl_common's options (CPUID
 * faulting, AMX permissions) not supported: EINVAL, as Linux on a CPU that
 * lacks them. */
SYSCALL_DEFINE2(arch_prctl, int, option, unsigned long, arg2)
{
	struct task_struct *tsk = current;
	switch (option) {
	case ARCH_SET_GS:
		if (arg2 >= TASK_SIZE_MAX)
			return -EPERM;
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
		return put_user_u64(tsk->thread.fsbase, (void *)arg2) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return put_user_u64(tsk->thread.gsbase, (void *)arg2) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}
