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
struct pt_regs;
/* The first entry into user mode with every register from regs (a new
 * thread's, kernel/fork.c; a new process's after kernel_execve). */
__noreturn void ret_from_fork_user(const struct pt_regs *regs);
/* Runs fn(arg) on the stack below sp, abandoning the caller's frames: a
 * new task's first code moves below its task_pt_regs. */
__noreturn void call_on_stack(void *sp, void (*fn)(void *), void *arg);
/* Linux's start_thread: the current task's user registers (regs, its
 * task_pt_regs) become a fresh program's at ip with stack sp, its FS/GS
 * bases 0 and its FPU state the initial one (execve). */
struct pt_regs;
void start_thread(struct pt_regs *regs, unsigned long ip, unsigned long sp);

/* The size of a task's FPU area (arch/x86_64/fpu.c): the XSAVE area for
 * the features in XCR0 as CPUID 0xD sizes it, 64-byte aligned, or the
 * 512-byte FXSAVE image on a CPU without XSAVE. Set at boot, then fixed. */
#define FXSAVE_SIZE 512
extern unsigned int fpu_kernel_xstate_size;
#define FPU_STATE_SIZE fpu_kernel_xstate_size
/* XCR0 as set on every CPU: 0 without XSAVE (FXSAVE is used). */
extern u64 fpu_xfeatures;
#define XFEATURE_MASK_FP (1ull << 0)
#define XFEATURE_MASK_SSE (1ull << 1)
#define XFEATURE_MASK_YMM (1ull << 2)
#define XFEATURE_MASK_OPMASK (1ull << 5)
#define XFEATURE_MASK_ZMM_Hi256 (1ull << 6)
#define XFEATURE_MASK_Hi16_ZMM (1ull << 7)
#define XFEATURE_MASK_AVX512 (XFEATURE_MASK_OPMASK | XFEATURE_MASK_ZMM_Hi256 | XFEATURE_MASK_Hi16_ZMM)
#define XFEATURE_MASK_USER_SUPPORTED \
	(XFEATURE_MASK_FP | XFEATURE_MASK_SSE | XFEATURE_MASK_YMM | XFEATURE_MASK_AVX512)
/* CR4.OSXSAVE and XCR0 on this CPU (the boot CPU also sizes the area). */
void fpu_init_cpu(bool boot_cpu);
/* XCR0 read back from this CPU (0 without XSAVE), for tests. */
u64 read_xcr0(void);
/* AT_MINSIGSTKSZ: the signal frame size Linux would report. */
unsigned long fpu_min_sigstack_size(void);
/* A fresh state (FNINIT's state, MXCSR default, nothing else in use);
 * area is FPU_STATE_SIZE bytes, 64-byte aligned. */
void fpu_state_init(void *area);
struct task_struct;
/* Gives dst (a new thread) an FPU area holding a copy of the registers of
 * src, which is the current task (Linux's fpu_clone); 0 or -ENOMEM. */
int fpu_clone(struct task_struct *dst, struct task_struct *src);
/* The XSAVE size of the user features in XCR0 (CPUID 0xD's EBX, not
 * rounded: Linux's fpu_user_cfg.max_size), or 512 without XSAVE. */
extern unsigned int fpu_user_xstate_size;
/* The FPU part of a signal frame: the image and, with XSAVE, MAGIC2. */
unsigned long fpu_sigframe_size(void);
/* Saves the live registers into a signal frame at buf (64-byte aligned),
 * as Linux's copy_fpstate_to_sigframe; false if it could not be written. */
bool copy_fpstate_to_sigframe(void *buf);
/* Loads them from the frame at buf (NULL: the initial state), as Linux's
 * fpu__restore_sig; false for a frame that cannot be read or loaded, the
 * registers then in their initial state. */
bool fpu__restore_sig(void *buf);
/* The initial state in the registers (a handler's start). */
void fpu__clear_user_states(void);
/* Saves the registers into prev_state (if any), loads next_state (if any). */
void fpu_switch(void *prev_state, void *next_state);

#endif
