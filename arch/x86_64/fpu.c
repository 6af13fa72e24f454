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
#define XSAVE_HDR_OFFSET 512
#define XSAVE_HDR_SIZE 64
#define MXCSR_DEFAULT 0x1f80

unsigned int fpu_kernel_xstate_size = FXSAVE_SIZE;
u64 fpu_xfeatures; /* XCR0; 0 without XSAVE */

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
		/* EBX: the size of the standard layout for what XCR0 enables. */
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
