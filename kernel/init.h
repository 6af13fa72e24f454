/* The boot path's entry point and its late hooks. Code that runs once the
 * kernel is up (the benchmarks, the in-kernel test run) registers itself
 * with late_initcall() instead of being called by name from start_kernel,
 * so kernel/ does not depend on tests/ (Linux's include/linux/init.h,
 * levels 7 and 7s).
 *
 * Invariant: start_kernel runs every late_initcall, in link order, before
 * every late_initcall_sync, after the boot report and crash= and before
 * the boot programs. An initcall may not return (the test run exits QEMU).
 * They run on the boot CPU as the task "init", one at a time: no locking. */
#ifndef KERNEL_INIT_H
#define KERNEL_INIT_H

#include "kernel/types.h"

/* Returns 0, or a negative errno that start_kernel reports. */
typedef int (*initcall_t)(void);

#define __define_initcall(fn, level)                                                 \
	static const initcall_t __initcall_##fn##level __used                       \
		__section(".initcall" #level ".init") = fn

#define late_initcall(fn) __define_initcall(fn, 7)
#define late_initcall_sync(fn) __define_initcall(fn, 7s)

/* The table linker.ld builds: level 7's entries, then level 7s's. */
extern const initcall_t __initcall7_start[], __initcall_end[];

/* Called from head64.asm on the boot CPU. */
void start_kernel(u32 magic, u32 mbi_phys);

#endif
