/* Host stand-in for arch/x86_64/percpu.h (found first on the host include
 * path): one per-CPU area, the variables themselves (the shim defines
 * those the portable code reads: cpu_number, current_task), so
 * this_cpu_ptr(&x) is &x. A test that sets cpu_number runs the code as
 * that CPU would, per-CPU lists and counters included. */
#ifndef ARCH_X86_64_PERCPU_H
#define ARCH_X86_64_PERCPU_H

static inline unsigned long this_cpu_off_value(void) { return 0; }

#endif
