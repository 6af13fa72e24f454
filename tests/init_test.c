/* The late initcall table (kernel/init.h): the in-kernel test run, which
 * exits QEMU and never returns, must be the last entry (anything after it
 * would never run), and the benchmarks come before it, as start_kernel
 * called them before the hook existed. */
#include "kernel/init.h"
#include "kernel/ksyms.h"
#include "lib/string.h"
#include "tests/kunit.h"

/* The table index of the initcall named name, or -1. */
static long initcall_index(const char *name)
{
	for (const initcall_t *fn = __initcall7_start; fn < __initcall_end; fn++) {
		u64 off, size;
		const char *sym = ksym_lookup((u64)(uintptr_t)*fn, &off, &size);
		if (sym && off == 0 && !strcmp(sym, name))
			return fn - __initcall7_start;
	}
	return -1;
}

static void late_initcalls_in_order(struct kunit *test)
{
	long n = __initcall_end - __initcall7_start;
	long bench = initcall_index("run_kernel_benchmarks");
	long ktest = initcall_index("kunit_boot_run");
	KUNIT_ASSERT_GE(test, bench, 0);
	KUNIT_ASSERT_GE(test, ktest, 0);
	KUNIT_EXPECT_LT(test, bench, ktest);
	KUNIT_EXPECT_EQ(test, ktest, n - 1);
}

static struct kunit_case init_cases[] = {
	KUNIT_CASE(late_initcalls_in_order),
	{}
};
static struct kunit_suite init_suite = { .name = "init", .test_cases = init_cases };
kunit_test_suite(init_suite);
