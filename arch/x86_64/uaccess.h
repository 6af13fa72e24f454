/* Reading memory that may not be mapped, without oopsing: the load is listed
 * in the exception table, and a fault there resumes at a fixup that returns
 * -EFAULT. User-memory copies (system calls) build on the same mechanism. */
#ifndef ARCH_X86_64_UACCESS_H
#define ARCH_X86_64_UACCESS_H

#include "kernel/types.h"

/* *val = *(u64 *)addr; returns 0, or -EFAULT if the load faulted. */
static inline int get_kernel_nofault_u64(u64 *val, const void *addr)
{
	int err = 0;
	u64 v = 0;
	__asm__ volatile("1:	movq (%[addr]), %[v]\n"
			 "2:\n"
			 ".pushsection .text.fixup, \"ax\"\n"
			 "3:	movl %[efault], %[err]\n"
			 "	jmp 2b\n"
			 ".popsection\n"
			 ".pushsection __ex_table, \"a\"\n"
			 "	.balign 8\n"
			 "	.quad 1b, 3b\n"
			 ".popsection"
			 : [v] "+r"(v), [err] "+r"(err)
			 : [addr] "r"(addr), [efault] "i"(-EFAULT)
			 : "memory");
	*val = v;
	return err;
}

#endif
