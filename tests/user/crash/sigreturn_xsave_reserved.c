/* rt_sigreturn with a reserved field of the XSAVE header set (XCOMP_BV,
 * which the standard format keeps 0): XRSTOR takes a #GP, the restore
 * fails (Linux's restore_fpregs_from_user), SIGSEGV. Without XSAVE
 * (uc_flags lacks UC_FP_XSTATE) the image is FXSAVE's, with no header:
 * then MXCSR gets a reserved bit, which FXRSTOR refuses the same way. */
#include <stdint.h>

#include "forged_sigreturn.h"

static void forge(ucontext_t *uc)
{
	unsigned char *fp = (unsigned char *)uc->uc_mcontext.fpregs;
	if (uc->uc_flags & 1) { /* UC_FP_XSTATE */
		uint64_t xcomp_bv = 1;
		memcpy(fp + 512 + 8, &xcomp_bv, sizeof(xcomp_bv));
	} else {
		uint32_t mxcsr = 0xffffffffu;
		memcpy(fp + 24, &mxcsr, sizeof(mxcsr));
	}
}

int main(void) { return run_forged_sigreturn("sigreturn_xsave_reserved"); }
