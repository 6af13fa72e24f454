/* The hardware half of per-CPU data (kernel/percpu.h has the rest): every
 * CPU's GS base points at its copy of the per-CPU section, whose first
 * word (this_cpu_off) holds that copy's offset from the template, so one
 * GS-relative load finds this CPU's copy of anything. Host builds of the
 * portable code use tests/host/include/arch/x86_64/percpu.h instead. */
#ifndef ARCH_X86_64_PERCPU_H
#define ARCH_X86_64_PERCPU_H

static inline unsigned long this_cpu_off_value(void)
{
	unsigned long off;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(off));
	return off;
}

#endif
