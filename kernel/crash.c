/* Deliberate crashes on request (crash=<kind> on the command line), run after
 * the boot report. They exist so that the panic path itself is tested end to
 * end: the report (vector, error code, CR2, registers, backtrace) and the
 * panic exit code are what a user sees when the kernel really breaks.
 *
 *   crash=page-fault      read an unmapped address
 *   crash=invalid-opcode  execute ud2
 *   crash=divide          divide by zero
 *   crash=stack-overflow  recurse into the stack guard page: the page fault
 *                         cannot be delivered on the dead stack, so it becomes
 *                         a double fault, handled on its own IST stack
 *   crash=kthread-stack-overflow  the same in a kernel thread, whose stack
 *                         comes from vmalloc (CONFIG_VMAP_STACK): the report
 *                         names the task and the guard below its stack
 *   crash=panic           call panic() */
#include "kernel/crash.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"

static char crash_kind[32];
kernel_param_string("crash", crash_kind,
		    "crash on purpose after boot: page-fault, invalid-opcode, divide, stack-overflow, "
		    "kthread-stack-overflow, panic");

static volatile int crash_sink;

/* Bounded only by the stack: the depth limit is far beyond any stack. */
static __attribute__((noinline)) int recurse(int depth)
{
	volatile char frame[512];
	frame[0] = (char)depth;
	barrier();
	if (depth > (1 << 30))
		return frame[0];
	return recurse(depth + 1) + frame[0];
}

static int recurse_thread(void *data)
{
	(void)data;
	crash_sink = recurse(0);
	return 0;
}

void crash_if_requested(void)
{
	const char *k = crash_kind;

	if (!*k)
		return;
	pr_emerg("crash: crashing on purpose (crash=%s)\n", k);
	if (!strcmp(k, "page-fault")) {
		volatile uintptr_t addr = 0xdead000;
		crash_sink = *(volatile int *)addr;
	} else if (!strcmp(k, "invalid-opcode")) {
		__asm__ volatile("ud2" ::: "memory");
	} else if (!strcmp(k, "divide")) {
		volatile int zero = 0;
		crash_sink = 1 / zero;
	} else if (!strcmp(k, "stack-overflow")) {
		crash_sink = recurse(0);
	} else if (!strcmp(k, "kthread-stack-overflow")) {
		struct task_struct *t =
			kthread_create_on_cpu(recurse_thread, NULL, smp_processor_id(), "crash_stack");
		if (!t) {
			pr_err("crash: could not start the thread to overflow\n");
			return;
		}
		wake_up_process(t);
		kthread_join(t);
		pr_err("crash: the thread ended without overflowing its stack\n");
		return;
	} else if (!strcmp(k, "panic")) {
		panic("crash=panic requested on the command line");
	}
	pr_err("crash: unknown kind '%s' (page-fault, invalid-opcode, divide, stack-overflow, "
	       "kthread-stack-overflow, panic); "
	       "not crashing\n", k);
}
