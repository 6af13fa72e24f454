/* The user FPU/SSE/AVX register state of a task: how big it is, how it is
 * switched, and a fresh one for a new process (Linux's
 * arch/x86/kernel/fpu/{init,xstate,core}.c, without supervisor states,
 * XSAVES, XSAVEOPT or lazy restore).
 *
 * Where CPUID.1:ECX.XSAVE is set, every CPU turns on CR4.OSXSAVE and sets
 * XCR0 to the user state components this kernel knows (x87, SSE, AVX and
 * the three AVX-512 ones: opmask, ZMM_Hi256, Hi16_ZMM) among those CPUID
 * leaf 0xD reports (Linux's fpu__init_system_xstate); the save area is the
 * standard (non-compacted) XSAVE layout, whose size CPUID.(0xD,0).EBX gives
 * once XCR0 is set. Without XSAVE the area is the 512-byte FXSAVE image.
 *
 * The kernel itself never touches these registers (-mgeneral-regs-only),
 * so they hold the current user task's state for as long as it runs, in
 * the kernel too: fpu_switch() saves prev's and loads next's at a context
 * switch, and fpu_clone() saves the live registers straight into a new
 * thread's area.
 *
 * Invariant: fpu_kernel_xstate_size is set by the boot CPU before any
 * process exists and never changes; every CPU has the same XCR0. An area
 * comes from kmalloc(FPU_STATE_SIZE): sizes above 192 bytes are served by
 * power-of-two slab classes whose objects are aligned to their size, so
 * the area is 64-byte aligned, as XSAVE requires (checked, not assumed). */
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/slab.h"

#define X86_CR4_OSXSAVE (1ul << 18)

/* Offsets in the legacy (FXSAVE) region and the XSAVE header. */
#define FXSAVE_FCW 0
#define FXSAVE_MXCSR 24
#define FXSAVE_MXCSR_MASK 28
#define XSAVE_HDR_OFFSET 512
#define XSAVE_HDR_SIZE 64
#define MXCSR_DEFAULT 0x1f80

unsigned int fpu_kernel_xstate_size = FXSAVE_SIZE;
unsigned int fpu_user_xstate_size = FXSAVE_SIZE;
u64 fpu_xfeatures; /* XCR0; 0 without XSAVE */
static u32 mxcsr_feature_mask = 0xffbf; /* FXSAVE's MXCSR_MASK, or its default */

/* Linux's init_fpstate, what a signal handler starts with: the legacy
 * region and an XSAVE header with nothing in use (XRSTOR reads no more). */
static u8 init_fpstate[XSAVE_HDR_OFFSET + XSAVE_HDR_SIZE] __aligned(64);

static inline u64 xgetbv(u32 index)
{
	u32 lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(index));
	return lo | (u64)hi << 32;
}

static inline void xsetbv(u32 index, u64 v)
{
	__asm__ volatile("xsetbv" ::"a"((u32)v), "d"((u32)(v >> 32)), "c"(index) : "memory");
}

static inline void xsave(void *area)
{
	__asm__ volatile("xsave64 (%0)" ::"r"(area), "a"(~0u), "d"(~0u) : "memory");
}

static inline void xrstor(const void *area)
{
	__asm__ volatile("xrstor64 (%0)" ::"r"(area), "a"(~0u), "d"(~0u) : "memory");
}

u64 read_xcr0(void) { return boot_cpu_has(X86_FEATURE_XSAVE) ? xgetbv(0) : 0; }

/* Linux's fpu__init_cpu_xstate (and, on the boot CPU, the sizing of
 * fpu__init_system_xstate). Called by user_mode_cpu_init on every CPU,
 * after CR4.OSFXSR. */
void fpu_init_cpu(bool boot_cpu)
{
	if (boot_cpu) {
		*(u16 *)(init_fpstate + FXSAVE_FCW) = 0x037f;
		*(u32 *)(init_fpstate + FXSAVE_MXCSR) = MXCSR_DEFAULT;
		/* Linux's mxcsr_feature_mask_init: FXSAVE's MXCSR_MASK, 0
		 * meaning the default. */
		static u8 fx[FXSAVE_SIZE] __aligned(64);
		__asm__ volatile("fxsave64 (%0)" ::"r"(fx) : "memory");
		u32 mask = *(u32 *)(fx + FXSAVE_MXCSR_MASK);
		if (mask)
			mxcsr_feature_mask = mask;
	}
	if (!boot_cpu_has(X86_FEATURE_XSAVE))
		return;
	u32 a, b, c, d;
	if (boot_cpu) {
		cpuid_count(0xd, 0, &a, &b, &c, &d);
		u64 supported = a | (u64)d << 32;
		fpu_xfeatures = supported & XFEATURE_MASK_USER_SUPPORTED;
		if ((fpu_xfeatures & (XFEATURE_MASK_FP | XFEATURE_MASK_SSE)) !=
		    (XFEATURE_MASK_FP | XFEATURE_MASK_SSE))
			panic("BUG: CPUID 0xd reports XSAVE without x87/SSE state (%#lx)",
			      (unsigned long)supported);
		/* AVX-512 is all three components or none (Linux's
		 * fpu__init_system_xstate drops partial sets the same way). */
		if ((fpu_xfeatures & XFEATURE_MASK_AVX512) != XFEATURE_MASK_AVX512)
			fpu_xfeatures &= ~XFEATURE_MASK_AVX512;
	}
	write_cr4(read_cr4() | X86_CR4_OSXSAVE);
	xsetbv(0, fpu_xfeatures);
	if (boot_cpu) {
		cpuid_count(0xd, 0, &a, &b, &c, &d);
		/* EBX: the size of the standard layout for what XCR0 enables
		 * (Linux's fpu_user_cfg.max_size: where a signal frame's
		 * FP_XSTATE_MAGIC2 goes). */
		fpu_user_xstate_size = b;
		fpu_kernel_xstate_size = ALIGN_UP(b, 64u);
		pr_info("x86/fpu: XSAVE enabled, xfeatures %#lx, context size %u bytes\n",
			(unsigned long)fpu_xfeatures, fpu_kernel_xstate_size);
	}
}

/* A fresh state (Linux's init_fpstate): FNINIT's control word, the default
 * MXCSR, and an XSAVE header with nothing in use, so XRSTOR puts every
 * component in its initial state (all registers zero). */
void fpu_state_init(void *area)
{
	u8 *a = area;
	if ((uintptr_t)area & 63)
		panic("BUG: FPU area %p is not 64-byte aligned", area);
	memset(a, 0, fpu_kernel_xstate_size);
	*(u16 *)(a + FXSAVE_FCW) = 0x037f;
	*(u32 *)(a + FXSAVE_MXCSR) = MXCSR_DEFAULT;
}

void fpu_switch(void *prev_state, void *next_state)
{
	if (fpu_xfeatures) {
		if (prev_state)
			xsave(prev_state);
		if (next_state)
			xrstor(next_state);
		return;
	}
	if (prev_state)
		__asm__ volatile("fxsave64 (%0)" ::"r"(prev_state) : "memory");
	if (next_state)
		__asm__ volatile("fxrstor64 (%0)" ::"r"(next_state) : "memory");
}

/* Linux's fpu_clone: the child starts with the parent's registers. */
int fpu_clone(struct task_struct *dst, struct task_struct *src)
{
	if (src != current)
		panic("BUG: fpu_clone from %s, which is not the current task", src->comm);
	void *area = kmalloc(FPU_STATE_SIZE, GFP_KERNEL);
	if (!area)
		return -ENOMEM;
	if ((uintptr_t)area & 63)
		panic("BUG: FPU area %p is not 64-byte aligned", area);
	/* The registers are live in the CPU (src is running): save them
	 * straight into the copy. An XSAVE writes only the header's
	 * XSTATE_BV; its reserved bytes must be zero for a later XRSTOR. */
	if (fpu_xfeatures) {
		memset((u8 *)area + XSAVE_HDR_OFFSET, 0, XSAVE_HDR_SIZE);
		xsave(area);
	} else {
		__asm__ volatile("fxsave64 (%0)" ::"r"(area) : "memory");
	}
	dst->fpu_state = area;
	return 0;
}

/* AT_MINSIGSTKSZ: Linux's get_sigframe_size (arch/x86/kernel/signal.c
 * init_sigframe_size): sizeof(struct rt_sigframe) (440 on x86_64) plus
 * 15 bytes of frame alignment, the FPU state (fpu__get_fpstate_size: the
 * XSAVE size and the 4-byte FP_XSTATE_MAGIC2; mmlab runs no 32-bit code,
 * so no fregs_state as with IA32_EMULATION) plus 63 bytes of XSAVE
 * alignment, rounded up to 16. */
unsigned long fpu_min_sigstack_size(void)
{
	unsigned long fpstate = fpu_kernel_xstate_size + (fpu_xfeatures ? 4 : 0);
	return ALIGN_UP(440ul + 15 + fpstate + 63, 16ul);
}

/* ---- The FPU state in a signal frame (Linux's arch/x86/kernel/fpu/signal.c) ----
 *
 * The frame holds the XSAVE image in the standard format, as XSAVE writes
 * it, 64-byte aligned, with Linux's software bytes in the legacy region's
 * reserved tail (struct _fpx_sw_bytes: FP_XSTATE_MAGIC1, the sizes, the
 * features saved) and FP_XSTATE_MAGIC2 right after the image; without
 * XSAVE it is the 512-byte FXSAVE image. XSAVE and XRSTOR work on user
 * memory directly, listed in the exception table: a page fault there is
 * resolved as any user copy's (the registers stay this task's across a
 * switch, which saves and restores them), one that cannot be, or a #GP
 * from a hostile image (reserved header bits, a bad MXCSR, misalignment),
 * resumes at the fixup and fails the call, never the kernel. */
#define FP_XSTATE_MAGIC1 0x46505853u
#define FP_XSTATE_MAGIC2 0x46505845u
#define FP_XSTATE_MAGIC2_SIZE 4
#define FXSAVE_SW_RESERVED 464

struct _fpx_sw_bytes {
	u32 magic1;
	u32 extended_size;
	u64 xfeatures;
	u32 xstate_size;
	u32 padding[7];
};
_Static_assert(sizeof(struct _fpx_sw_bytes) == 48, "Linux's struct _fpx_sw_bytes is 48 bytes");

/* One XSAVE/XRSTOR/FXSAVE/FXRSTOR on user memory: 0, or -EFAULT. */
#define FPU_USER_OP(insn, buf, mask)                                                   \
	({                                                                             \
		int __err = 0;                                                         \
		stac();                                                                \
		__asm__ volatile("1:	" insn " (%[b])\n"                            \
				 "2:\n"                                                \
				 ".pushsection .text.fixup, \"ax\"\n"                  \
				 "3:	movl %[efault], %[err]\n"                       \
				 "	jmp 2b\n"                                       \
				 ".popsection\n"                                       \
				 ".pushsection __ex_table, \"a\"\n"                    \
				 "	.balign 8\n"                                     \
				 "	.quad 1b, 3b\n"                                  \
				 ".popsection"                                         \
				 : [err] "+r"(__err)                                   \
				 : [b] "r"(buf), "a"((u32)(mask)), "d"((u32)((mask) >> 32)), \
				   [efault] "i"(-EFAULT)                               \
				 : "memory");                                          \
		clac();                                                                \
		__err;                                                                 \
	})

unsigned long fpu_sigframe_size(void)
{
	return fpu_user_xstate_size + (fpu_xfeatures ? FP_XSTATE_MAGIC2_SIZE : 0);
}

/* Linux's copy_fpstate_to_sigframe + save_xstate_epilog. */
bool copy_fpstate_to_sigframe(void __user *buf)
{
	u8 *ubuf = buf;
	if (!access_ok(buf, fpu_sigframe_size()) || ((unsigned long)buf & 63))
		return false;
	if (!fpu_xfeatures)
		return !FPU_USER_OP("fxsave64", buf, 0ull);
	/* XSAVE writes only XSTATE_BV of the header: the rest must read 0. */
	if (clear_user(ubuf + XSAVE_HDR_OFFSET, XSAVE_HDR_SIZE))
		return false;
	if (FPU_USER_OP("xsave64", buf, fpu_xfeatures))
		return false;
	struct _fpx_sw_bytes sw = {
		.magic1 = FP_XSTATE_MAGIC1,
		.extended_size = fpu_user_xstate_size + FP_XSTATE_MAGIC2_SIZE,
		.xfeatures = fpu_xfeatures,
		.xstate_size = fpu_user_xstate_size,
	};
	u32 magic2 = FP_XSTATE_MAGIC2, xfeatures;
	if (copy_to_user(ubuf + FXSAVE_SW_RESERVED, &sw, sizeof(sw)) ||
	    copy_to_user(ubuf + fpu_user_xstate_size, &magic2, sizeof(magic2)) ||
	    get_user_u32(&xfeatures, ubuf + XSAVE_HDR_OFFSET))
		return false;
	/* FP and SSE always marked in use, so that a legacy program's edit
	 * of the FXSAVE part is restored (Linux's words). */
	xfeatures |= XFEATURE_MASK_FP | XFEATURE_MASK_SSE;
	return !copy_to_user(ubuf + XSAVE_HDR_OFFSET, &xfeatures, sizeof(xfeatures));
}

void fpu__clear_user_states(void)
{
	if (fpu_xfeatures)
		xrstor(init_fpstate);
	else
		__asm__ volatile("fxrstor64 (%0)" ::"r"(init_fpstate) : "memory");
}

/* Linux's check_xstate_in_sigframe: the software bytes and MAGIC2 say
 * whether the image is a whole XSAVE one; else only its FXSAVE part (FP
 * and SSE) is taken. false: the frame cannot be read. */
static bool check_xstate_in_sigframe(const u8 __user *buf, struct _fpx_sw_bytes *sw)
{
	if (copy_from_user(sw, buf + FXSAVE_SW_RESERVED, sizeof(*sw)))
		return false;
	if (sw->magic1 == FP_XSTATE_MAGIC1 && sw->xstate_size >= XSAVE_HDR_OFFSET + XSAVE_HDR_SIZE &&
	    sw->xstate_size <= fpu_user_xstate_size && sw->xstate_size <= sw->extended_size) {
		u32 magic2;
		if (get_user_u32(&magic2, buf + sw->xstate_size))
			return false;
		if (magic2 == FP_XSTATE_MAGIC2)
			return true;
	}
	sw->magic1 = 0; /* FXSAVE only */
	sw->xstate_size = FXSAVE_SIZE;
	sw->xfeatures = XFEATURE_MASK_FP | XFEATURE_MASK_SSE;
	return true;
}

/* Linux's fpu__restore_sig for a 64-bit frame: NULL puts the registers
 * in their initial state; otherwise the image is loaded (XRSTOR of the
 * features it says it holds, the others initialised) or, on any failure,
 * the registers are initialised and false returned (sigreturn then sends
 * SIGSEGV). */
bool fpu__restore_sig(void __user *buf)
{
	const u8 __user *ubuf = buf;
	if (!buf) {
		fpu__clear_user_states();
		return true;
	}
	if (!access_ok(buf, fpu_sigframe_size()))
		goto fail;
	struct _fpx_sw_bytes sw = { .xfeatures = XFEATURE_MASK_FP | XFEATURE_MASK_SSE };
	if (fpu_xfeatures && !check_xstate_in_sigframe(ubuf, &sw))
		goto fail;
	u64 xrestore = sw.xfeatures & (fpu_xfeatures ? fpu_xfeatures : ~0ull);
	/* A reserved MXCSR bit makes the restore #GP on hardware when it loads
	 * MXCSR (FXRSTOR, or XRSTOR of SSE or AVX state); TCG may not check,
	 * so it is checked here (the outcome is the same). */
	u32 mxcsr;
	if (get_user_u32(&mxcsr, ubuf + FXSAVE_MXCSR))
		goto fail;
	if ((!sw.magic1 || (xrestore & (XFEATURE_MASK_SSE | XFEATURE_MASK_YMM))) && (mxcsr & ~mxcsr_feature_mask))
		goto fail;
	if (!fpu_xfeatures) {
		if (FPU_USER_OP("fxrstor64", buf, 0ull))
			goto fail;
		return true;
	}
	if (!sw.magic1) {
		if (FPU_USER_OP("fxrstor64", buf, 0ull))
			goto fail;
	} else if (FPU_USER_OP("xrstor64", buf, xrestore)) {
		goto fail;
	}
	/* What the image does not hold starts afresh. */
	u64 init_bv = fpu_xfeatures & ~(sw.magic1 ? xrestore : XFEATURE_MASK_FP | XFEATURE_MASK_SSE);
	if (init_bv)
		__asm__ volatile("xrstor64 (%0)" ::"r"(init_fpstate), "a"((u32)init_bv), "d"((u32)(init_bv >> 32))
				 : "memory");
	return true;
fail:
	fpu__clear_user_states();
	return false;
}
