/* The CPU as the kernel set it up: features, control registers, the kernel
 * page tables' permissions (W^X, guard page, no identity map), exception
 * fixups and symbolised backtraces. */
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/init.h"
#include "kernel/ksyms.h"
#include "drivers/firmware/memmap.h"
#include "kernel/printk.h"
#include "drivers/firmware/multiboot2.h"
#include "fs/programs.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/sections.h"
#include "lib/string.h"
#include "mm/kernel_map.h"
#include "mm/slab.h"
#include "tests/kunit.h"

static void features_match_cpuid(struct kunit *test)
{
	u32 a, b, c, d;
	cpuid(0x80000001, &a, &b, &c, &d);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_NX), (d >> 20) & 1);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_PDPE1GB), (d >> 26) & 1);
	KUNIT_EXPECT_TRUE(test, boot_cpu_has(X86_FEATURE_LM));
	cpuid(1, &a, &b, &c, &d);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_SSE2), (d >> 26) & 1);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_X2APIC), (c >> 21) & 1);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_PCID), (c >> 17) & 1);
	cpuid_count(7, 0, &a, &b, &c, &d);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_ERMS), (b >> 9) & 1);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_SMEP), (b >> 7) & 1);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_SMAP), (b >> 20) & 1);
	KUNIT_EXPECT_EQ(test, boot_cpu_has(X86_FEATURE_INVPCID), (b >> 10) & 1);
	KUNIT_EXPECT_STRNEQ(test, x86_feature_name(X86_FEATURE_CLZERO), "?");
}

static void control_registers(struct kunit *test)
{
	if (boot_cpu_has(X86_FEATURE_NX))
		KUNIT_EXPECT_TRUE(test, rdmsr(MSR_EFER) & EFER_NXE);
	KUNIT_EXPECT_TRUE(test, rdmsr(MSR_EFER) & EFER_LME);
	KUNIT_EXPECT_TRUE(test, read_cr0() & X86_CR0_WP);
	KUNIT_EXPECT_TRUE(test, read_cr4() & X86_CR4_PGE);
	KUNIT_EXPECT_TRUE(test, read_rflags() & (1 << 9)); /* interrupts on: the tick runs */
}

static u64 pte_of(struct kunit *test, const void *addr, int *level)
{
	pte_t *e = lookup_kernel_address((unsigned long)addr, level);
	KUNIT_ASSERT_NOT_NULL(test, e);
	return pte_val(*e);
}

static void kernel_sections_are_w_xor_x(struct kunit *test)
{
	int level;
	u64 nx = boot_cpu_has(X86_FEATURE_NX) ? _PAGE_NX : 0;
	static int some_data = 1;

	for (char *p = _text; p < _etext; p += PAGE_SIZE) {
		u64 e = pte_of(test, p, &level);
		KUNIT_EXPECT_EQ(test, e & (_PAGE_RW | _PAGE_NX), 0);
		KUNIT_EXPECT_EQ(test, level, 1);
	}
	for (char *p = _etext; p < _erodata; p += PAGE_SIZE) {
		u64 e = pte_of(test, p, &level);
		KUNIT_EXPECT_EQ(test, e & (_PAGE_RW | _PAGE_NX), nx);
	}
	u64 e = pte_of(test, &some_data, &level);
	KUNIT_EXPECT_EQ(test, e & (_PAGE_RW | _PAGE_NX), _PAGE_RW | nx);
	KUNIT_EXPECT_EQ(test, e & PTE_PFN_MASK, __pa(&some_data) & PAGE_MASK);
}

static void identity_map_is_gone_and_direct_map_covers_ram(struct kunit *test)
{
	int level;
	KUNIT_EXPECT_NULL(test, lookup_kernel_address(0x100000, &level));
	KUNIT_EXPECT_NULL(test, lookup_kernel_address(0, &level));
	u64 ram_end = memmap_ram_end(&boot_memmap);
	KUNIT_EXPECT_GE(test, direct_map_end, ram_end);
	u64 e = pte_of(test, __va(ram_end - 1), &level);
	KUNIT_EXPECT_TRUE(test, e & _PAGE_RW);
	KUNIT_EXPECT_EQ(test, level, boot_cpu_has(X86_FEATURE_PDPE1GB) ? 3 : 2);
	/* The alias reads the same memory as the kernel image mapping. */
	static u64 marker = 0x6d6d6c6162ull;
	KUNIT_EXPECT_EQ(test, *(u64 *)__va(__pa(&marker)), marker);
}

static char captured[2048];
static enum kunit_status run_inner(void (*fn)(struct kunit *), const char *name)
{
	struct kunit_case c = { .run_case = fn, .name = name };
	struct kunit inner;
	struct printk_capture cap;
	printk_capture_begin(&cap, captured, sizeof(captured));
	enum kunit_status st = kunit_run_case(NULL, &c, &inner);
	printk_capture_end(&cap);
	return st;
}

static void write_text(struct kunit *test)
{
	(void)test;
	*(volatile u8 *)(void *)start_kernel = 0xcc;
}
static void execute_data(struct kunit *test)
{
	(void)test;
	static u8 ret_insn[16] = { 0xc3 };
	((void (*)(void))(void *)ret_insn)();
}
static void touch_guard_page(struct kunit *test)
{
	(void)test;
	(void)*(volatile char *)&boot_stack_guard[100];
}

static void protection_faults(struct kunit *test)
{
	char want[96];
	KUNIT_EXPECT_EQ(test, run_inner(write_text, "write_text"), KUNIT_FAILURE);
	snprintf(want, sizeof(want), "error code 0x3) at write_text+0x");
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, want));
	if (boot_cpu_has(X86_FEATURE_NX)) {
		KUNIT_EXPECT_EQ(test, run_inner(execute_data, "execute_data"), KUNIT_FAILURE);
		KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "caught page fault (#PF) (vector 14, error code 0x11)"));
	}
	KUNIT_EXPECT_EQ(test, run_inner(touch_guard_page, "touch_guard_page"), KUNIT_FAILURE);
	snprintf(want, sizeof(want), "error code 0x0) at touch_guard_page+0x");
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, want));
}

static void exception_table_fixup(struct kunit *test)
{
	u64 v = 1;
	static u64 readable = 42;
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, &readable), 0);
	KUNIT_EXPECT_EQ(test, v, 42);
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, (void *)0x10), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, boot_stack_guard), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, (void *)0xdead000000000000ull), -EFAULT);
}

static void symbols(struct kunit *test)
{
	u64 off, size;
	u64 addr = (u64)(uintptr_t)start_kernel;
	KUNIT_EXPECT_GT(test, ksym_count(), 100);
	KUNIT_EXPECT_EQ(test, ksym_address("start_kernel"), addr);
	KUNIT_EXPECT_STREQ(test, ksym_lookup(addr + 5, &off, &size), "start_kernel");
	KUNIT_EXPECT_EQ(test, off, 5);
	KUNIT_EXPECT_GT(test, size, 5);
	KUNIT_EXPECT_STREQ(test, ksym_lookup((u64)(uintptr_t)kunit_run_case, &off, &size),
			   "kunit_run_case");
	KUNIT_EXPECT_NULL(test, ksym_lookup(0x1000, &off, &size));
}

static __attribute__((noinline)) void backtrace_inner(void)
{
	show_backtrace((u64)(uintptr_t)__builtin_return_address(0),
		       (u64)(uintptr_t)__builtin_frame_address(0));
	barrier();
}

static __attribute__((noinline)) void backtrace_outer(void)
{
	backtrace_inner();
	barrier();
}

static void backtrace_names_the_callers(struct kunit *test)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, captured, sizeof(captured));
	backtrace_outer();
	printk_capture_end(&cap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "Call trace:"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "backtrace_outer+0x"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "backtrace_names_the_callers+0x"));
	/* The framework's frame that calls every case (kunit.c's run_case). */
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "run_case+0x"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "start_kernel+0x"));
}

/* ---- FPU/XSAVE state and FSGSBASE (arch/x86_64/fpu.c, process_64.c) ---- */

#define CR4_FSGSBASE (1ul << 16)
#define CR4_OSXSAVE (1ul << 18)

static u64 xcr0_seen[NR_CPUS], cr4_seen[NR_CPUS];

static void read_cpu_state(void *info)
{
	(void)info;
	xcr0_seen[smp_processor_id()] = read_xcr0();
	cr4_seen[smp_processor_id()] = read_cr4();
}

/* Every CPU: CR4.OSXSAVE where CPUID has XSAVE, XCR0 = the user features
 * this kernel knows among those CPUID 0xD reports (AVX-512 only whole),
 * the area sized as CPUID 0xD's EBX says for that XCR0; CR4.FSGSBASE
 * exactly where CPUID has it. */
static void xsave_and_fsgsbase_match_cpuid(struct kunit *test)
{
	u32 a, b, c, d;
	cpuid(1, &a, &b, &c, &d);
	bool xsave = c >> 26 & 1;
	cpuid_count(7, 0, &a, &b, &c, &d);
	bool fsgsbase = b & 1;
	u64 want = 0;
	if (xsave) {
		cpuid_count(0xd, 0, &a, &b, &c, &d);
		want = (a | (u64)d << 32) & XFEATURE_MASK_USER_SUPPORTED;
		if ((want & XFEATURE_MASK_AVX512) != XFEATURE_MASK_AVX512)
			want &= ~XFEATURE_MASK_AVX512;
		KUNIT_EXPECT_EQ(test, fpu_kernel_xstate_size, ALIGN_UP(b, 64u)); /* EBX: for XCR0 now */
		KUNIT_EXPECT_GE(test, fpu_kernel_xstate_size, 576u);
	} else {
		KUNIT_EXPECT_EQ(test, fpu_kernel_xstate_size, FXSAVE_SIZE);
	}
	kunit_info(test, "xsave %d fsgsbase %d: XCR0 %#lx, FPU area %u bytes", xsave, fsgsbase,
		   (unsigned long)fpu_xfeatures, fpu_kernel_xstate_size);
	KUNIT_EXPECT_EQ(test, fpu_xfeatures, want);
	KUNIT_EXPECT_EQ(test, fsgsbase_enabled(), fsgsbase);
	memset(xcr0_seen, 0xff, sizeof(xcr0_seen));
	on_each_cpu(read_cpu_state, NULL, true);
	unsigned cpu;
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, xcr0_seen[cpu], want);
		KUNIT_EXPECT_EQ(test, !!(cr4_seen[cpu] & CR4_OSXSAVE), xsave);
		KUNIT_EXPECT_EQ(test, !!(cr4_seen[cpu] & CR4_FSGSBASE), fsgsbase);
	}
}

/* A fresh state: FNINIT's control word, MXCSR 0x1f80, an empty XSAVE
 * header; and the area is 64-byte aligned. */
static void fresh_fpu_state(struct kunit *test)
{
	u8 *area = kmalloc(FPU_STATE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_EXPECT_EQ(test, (uintptr_t)area & 63, 0);
	memset(area, 0xaa, FPU_STATE_SIZE);
	fpu_state_init(area);
	KUNIT_EXPECT_EQ(test, *(u16 *)area, 0x37f);
	KUNIT_EXPECT_EQ(test, *(u32 *)(area + 24), 0x1f80);
	bool rest_zero = true;
	for (unsigned i = 32; i < FPU_STATE_SIZE; i++)
		rest_zero &= area[i] == 0;
	KUNIT_EXPECT_TRUE(test, rest_zero);
	kfree(area);
}

static void free_task_and_fpu(void *p)
{
	struct task_struct *t = p;
	kfree(t->fpu_state);
	kfree(t);
}

/* (The kernel is built -mgeneral-regs-only: the compiler never uses the
 * vector registers, so the asm below needs no clobbers for them.) */
/* fpu_clone saves the registers live in the CPU: a value put in xmm0
 * (and, with AVX, in ymm0's upper half) is in the copy, where the
 * standard XSAVE layout puts it. Interrupts are off from the load to the
 * save, so no switch can replace the registers in between. */
static void fpu_clone_copies_live_registers(struct kunit *test)
{
	struct task_struct *t = kzalloc(sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_task_and_fpu, t), 0);
	static const u64 lo[2] = { 0x0123456789abcdefull, 0xfedcba9876543210ull };
	static const u64 hi[2] = { 0x1111222233334444ull, 0x5555666677778888ull };
	bool avx = fpu_xfeatures & XFEATURE_MASK_YMM;
	unsigned long flags;
	local_irq_save(flags);
	if (avx)
		__asm__ volatile("vmovdqu %0, %%xmm1\n\t"
				 "vmovdqu %1, %%xmm0\n\t"
				 "vinserti128 $1, %%xmm1, %%ymm0, %%ymm0" ::"m"(hi), "m"(lo));
	else
		__asm__ volatile("movdqu %0, %%xmm0" ::"m"(lo));
	int err = fpu_clone(t, current);
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, err, 0);
	u8 *area = t->fpu_state;
	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_EXPECT_EQ(test, (uintptr_t)area & 63, 0);
	KUNIT_EXPECT_MEMEQ(test, area + 160, lo, 16); /* FXSAVE's XMM0 */
	if (avx) {
		u32 a, b, c, d;
		cpuid_count(0xd, 2, &a, &b, &c, &d); /* EBX: YMM_Hi128's offset */
		KUNIT_EXPECT_MEMEQ(test, area + b, hi, 16);
		u64 xstate_bv = *(u64 *)(area + 512);
		KUNIT_EXPECT_TRUE(test, xstate_bv & XFEATURE_MASK_YMM);
	}
}

/* Two copies of the avx_state program at once on one CPU: each holds its
 * own pattern in all sixteen ymm registers across thousands of yields,
 * which switch from one copy straight to the other. */
static void avx_registers_survive_switches_between_two_processes(struct kunit *test)
{
	const struct user_program *m = find_user_program("avx_state");
	if (!m)
		kunit_skip(test, "the ISO has no program avx_state");
	if (!(fpu_xfeatures & XFEATURE_MASK_YMM) || !boot_cpu_has(X86_FEATURE_AVX2))
		kunit_skip(test, "no AVX2 here (CPUID/XCR0 %#lx): -cpu max or a model with AVX2 runs it",
			   (unsigned long)fpu_xfeatures);
	struct kunit_resources before;
	kunit_resources_take(&before);
	const char *argv[] = { "avx_state", "pair", NULL };
	struct process_spawn_args args = { .name = "avx_state", .path = "/bin/avx_state",
					   .argv = argv,
					   .console_prefix = "    # ", .cpu = smp_processor_id() };
	struct task_struct *p[2];
	int err[2] = { 0, 0 };
	for (int i = 0; i < 2; i++)
		p[i] = process_spawn(&args, &err[i]);
	for (int i = 0; i < 2; i++) {
		KUNIT_EXPECT_NOT_NULL(test, p[i]);
		if (!p[i])
			continue;
		struct process_result res;
		process_wait(p[i], &res);
		KUNIT_EXPECT_FALSE(test, res.killed);
		KUNIT_EXPECT_EQ(test, res.exit_code, 0);
		if (res.exit_code)
			kunit_info(test, "copy %d: %s", i, res.last_line);
	}
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case cpu_cases[] = {
	KUNIT_CASE(features_match_cpuid),
	KUNIT_CASE(control_registers),
	KUNIT_CASE(kernel_sections_are_w_xor_x),
	KUNIT_CASE(identity_map_is_gone_and_direct_map_covers_ram),
	KUNIT_CASE(protection_faults),
	KUNIT_CASE(exception_table_fixup),
	KUNIT_CASE(symbols),
	KUNIT_CASE(backtrace_names_the_callers),
	KUNIT_CASE(xsave_and_fsgsbase_match_cpuid),
	KUNIT_CASE(fresh_fpu_state),
	KUNIT_CASE(fpu_clone_copies_live_registers),
	KUNIT_CASE(avx_registers_survive_switches_between_two_processes),
	{}
};
static struct kunit_suite cpu_suite = { .name = "cpu", .test_cases = cpu_cases };
kunit_test_suite(cpu_suite);
