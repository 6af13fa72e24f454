/* Host stand-in for arch/x86_64/irqflags.h: no interrupts to mask, but the
 * state is kept (host_irqs_disabled, in the shim), so irqs_disabled() says
 * what the kernel's would and a test can check code runs with interrupts
 * off where it must. */
#ifndef ARCH_X86_64_IRQFLAGS_H
#define ARCH_X86_64_IRQFLAGS_H

#include "kernel/types.h"

extern bool host_irqs_disabled;

static inline bool irqs_disabled(void) { return host_irqs_disabled; }
/* The flags are "interrupts were on", as RFLAGS.IF is. */
static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags = !host_irqs_disabled;
	host_irqs_disabled = true;
	return flags;
}
static inline void arch_local_irq_restore(unsigned long flags)
{
	if (flags)
		host_irqs_disabled = false;
}

#endif
