/* The CPU side of user mode (see syscall.c). */
#ifndef ARCH_X86_64_SYSCALL_H
#define ARCH_X86_64_SYSCALL_H

#include "kernel/types.h"

/* pt_regs.vector of a frame built by the syscall entry (error_code holds
 * the system-call number). */
#define SYSCALL_VECTOR_MARK 0x100

/* Every CPU: syscall MSRs, SSE, SMEP/SMAP. */
void user_mode_cpu_init(void);
/* The first entry of a process into ring 3; never returns. */
__noreturn void enter_user_mode(u64 rip, u64 rsp);

#define FPU_STATE_SIZE 512
/* A fresh FXSAVE image (FNINIT's state, MXCSR default). */
void fpu_state_init(void *area);
struct task_struct;
/* Gives dst (a new thread) an FPU area holding a copy of the registers of
 * src, which is the current task (Linux's fpu_clone); 0 or -ENOMEM. */
int fpu_clone(struct task_struct *dst, struct task_struct *src);
/* Saves the registers into prev_state (if any), loads next_state (if any). */
void fpu_switch(void *prev_state, void *next_state);

#endif
