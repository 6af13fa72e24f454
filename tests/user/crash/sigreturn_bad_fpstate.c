/* rt_sigreturn with the frame's FPU image pointer in the kernel's half:
 * fpu__restore_sig refuses it, SIGSEGV. */
#include "forged_sigreturn.h"

static void forge(ucontext_t *uc)
{
	uc->uc_mcontext.fpregs = (void *)0xffffffff81000000ul;
}

int main(void) { return run_forged_sigreturn("sigreturn_bad_fpstate"); }
