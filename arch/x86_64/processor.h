/* Per-thread CPU state kept in the task (Linux's struct thread_struct,
 * arch/x86/include/asm/processor.h): the user FS and GS bases, which
 * arch_prctl sets and CLONE_SETTLS gives a new thread, and what the last
 * exception recorded for a signal frame. */
#ifndef ARCH_X86_64_PROCESSOR_H
#define ARCH_X86_64_PROCESSOR_H

#include "kernel/types.h"

struct thread_struct {
	unsigned long fsbase;
	unsigned long gsbase;
	/* The last exception that sent this thread a signal (Linux's
	 * trap_nr, error_code, cr2): the signal frame's sigcontext shows
	 * them (arch/x86_64/signal.c). */
	unsigned long trap_nr;
	unsigned long error_code;
	unsigned long cr2;
};

struct task_struct;
/* Loads next's user FS and GS bases (a user task's; kernel threads use
 * neither), at every context switch (arch/x86_64/process_64.c). */
void switch_fsgs(struct task_struct *prev, struct task_struct *next);

/* Linux's current_save_fsgs: brings current->thread's bases up to date
 * with the live ones (a user wrfsbase/wrgsbase changes them without the
 * kernel knowing, when FSGSBASE is on). clone calls it before copying
 * current->thread into a child (Linux's copy_thread). */
void current_save_fsgs(void);
/* CR4.FSGSBASE on this CPU where CPUID has it (every CPU, at boot). */
void fsgsbase_init_cpu(void);
/* Whether user mode may run rdfsbase/wrfsbase/rdgsbase/wrgsbase (Linux's
 * HWCAP2_FSGSBASE). */
bool fsgsbase_enabled(void);

#endif
