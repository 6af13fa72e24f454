/* Masking interrupts on this CPU (RFLAGS.IF), as Linux's
 * <asm/irqflags.h>: what kernel/spinlock.h's irqsave variants and the
 * per-CPU list code build on. Host builds of the portable code use
 * tests/host/include/arch/x86_64/irqflags.h instead. */
#ifndef ARCH_X86_64_IRQFLAGS_H
#define ARCH_X86_64_IRQFLAGS_H

#include "kernel/types.h"

#define X86_EFLAGS_IF (1ul << 9)

static inline bool irqs_disabled(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	return !(flags & X86_EFLAGS_IF);
}
static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags)::"memory");
	return flags;
}
static inline void arch_local_irq_restore(unsigned long flags)
{
	if (flags & X86_EFLAGS_IF)
		__asm__ volatile("sti" ::: "memory");
}

#endif
