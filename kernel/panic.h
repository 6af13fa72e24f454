/* Fatal errors: print why, then leave QEMU with the panic exit code. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "kernel/types.h"

__noreturn void panic(const char *fmt, ...) __printf(1, 2);
/* The last step of a panic, once the report is printed. */
__noreturn void panic_exit(void);

#define BUG_ON(cond)                                                              \
	do {                                                                      \
		if (unlikely(cond))                                               \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond);     \
	} while (0)

#endif
