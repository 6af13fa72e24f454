/* Non-local jumps inside the kernel: the test framework uses them to abandon
 * a test case on a failed ASSERT or on a CPU exception. RFLAGS (and with it
 * the interrupt flag) is restored to what it was at kernel_setjmp(). */
#ifndef ARCH_X86_64_SETJMP_H
#define ARCH_X86_64_SETJMP_H

#include "kernel/types.h"

struct jmp_buf {
	u64 rbx, rbp, r12, r13, r14, r15, rsp, rip, rflags;
};

int kernel_setjmp(struct jmp_buf *buf) __attribute__((returns_twice));
__noreturn void kernel_longjmp(struct jmp_buf *buf, int val);

#endif
