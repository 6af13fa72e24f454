/* The CPU as the kernel set it up: features, control registers, the kernel
 * page tables' permissions (W^X, guard page, no identity map), exception
 * fixups and symbolised backtraces. */
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/init.h"
#include "kernel/ksyms.h"
#include "kernel/memmap.h"
#include "kernel/printk.h"
#include "kernel/sections.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
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
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "kunit_run_case+0x"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "start_kernel+0x"));
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
	{}
};
static struct kunit_suite cpu_suite = { .name = "cpu", .test_cases = cpu_cases };
kunit_test_suite(cpu_suite);
