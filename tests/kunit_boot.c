/* The in-kernel test run at boot: with "ktest" on the command line, run every
 * suite (or those ktest.filter selects), report KTAP on the console and exit
 * QEMU with the verdict. It is the last late initcall (level 7s), so it runs
 * after the benchmarks, as the kernel called it before the hook existed.
 * Linux runs kunit_run_all_tests() at the same point, after the initcalls
 * and before init. Runs once, on the boot CPU: no locking. */
#include "arch/x86_64/qemu_exit.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "tests/kunit.h"

static bool ktest;
kernel_param_flag("ktest", ktest, "run the in-kernel tests, report KTAP, exit QEMU");
static char ktest_filter[128];
kernel_param_string("ktest.filter", ktest_filter, "run only suite.case names matching this glob");

static int kunit_boot_run(void)
{
	if (!ktest)
		return 0;
	/* KUNIT_RUN_NONE (no case matched the filter) is a failure too. */
	unsigned failed = kunit_run_all(ktest_filter[0] ? ktest_filter : NULL);
	qemu_exit(failed ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
}
late_initcall_sync(kunit_boot_run);
