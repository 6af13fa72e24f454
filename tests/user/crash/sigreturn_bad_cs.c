/* rt_sigreturn with the kernel's code segment in the frame's CS: refused
 * (Linux's IRET to it faults), SIGSEGV. */
#include "forged_sigreturn.h"

static void forge(ucontext_t *uc)
{
	/* gregs[REG_CSGSFS]: cs, gs, fs, ss as 16-bit fields, cs lowest. */
	uc->uc_mcontext.gregs[REG_CSGSFS] = (uc->uc_mcontext.gregs[REG_CSGSFS] & ~0xffffll) | 0x10;
}

int main(void) { return run_forged_sigreturn("sigreturn_bad_cs"); }
