/* Per-thread CPU state kept in the task (Linux's struct thread_struct,
 * arch/x86/include/asm/processor.h): the user FS and GS bases, which
 * arch_prctl sets and CLONE_SETTLS gives a new thread. */
#ifndef ARCH_X86_64_PROCESSOR_H
#define ARCH_X86_64_PROCESSOR_H

struct thread_struct {
	unsigned long fsbase;
	unsigned long gsbase;
};

#endif
