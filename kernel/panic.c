#include "kernel/panic.h"
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/traps.h"
#include "kernel/printk.h"

void panic_exit(void)
{
	oops_in_progress = true;
	printk(KERN_EMERG "---[ end Kernel panic ]---\n");
	qemu_exit(QEMU_EXIT_PANIC);
}

void panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	oops_in_progress = true;
	printk_set_line_prefix(NULL);
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "\nKernel panic: %s\n", buf);
	show_backtrace((u64)(uintptr_t)panic, (u64)(uintptr_t)__builtin_frame_address(0));
	panic_exit();
}
