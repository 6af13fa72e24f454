/* Per-CPU variables, as Linux's: DEFINE_PER_CPU(type, name) puts a template
 * in the .data.percpu section; every CPU gets its own copy of that section
 * (the boot CPU keeps the template itself), and the GS base of each CPU
 * points at its copy's this_cpu_off, so
 *
 *   this_cpu_ptr(&name)     is this CPU's copy (one GS-relative load),
 *   per_cpu(name, cpu)      is another CPU's copy.
 *
 * Accessing this CPU's copy is only meaningful while the caller cannot move
 * to another CPU: the kernel is not preemptible, so that is always true
 * outside code that calls schedule(). */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "kernel/types.h"
#include "mm/numa.h"

#define DEFINE_PER_CPU(type, name) __section(".data.percpu") __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name

extern unsigned long __per_cpu_offset[NR_CPUS];

#ifdef MMLAB_HOST
#define this_cpu_off_value() 0ul
#else
/* The first variable of every CPU's area holds that area's offset. */
static inline unsigned long this_cpu_off_value(void)
{
	unsigned long off;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(off));
	return off;
}
#endif

#define SHIFT_PERCPU_PTR(ptr, off) ((__typeof__(ptr))((uintptr_t)(ptr) + (off)))
#define this_cpu_ptr(ptr) SHIFT_PERCPU_PTR(ptr, this_cpu_off_value())
#define per_cpu_ptr(ptr, cpu) SHIFT_PERCPU_PTR(ptr, __per_cpu_offset[cpu])
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), cpu))
#define this_cpu_read(var) (*this_cpu_ptr(&(var)))
#define this_cpu_write(var, v) (*this_cpu_ptr(&(var)) = (v))

/* Makes a copy of the per-CPU section for cpu on node nid (after the page
 * allocator is up) and returns the value for its GS base. */
unsigned long setup_per_cpu_area(unsigned cpu, int nid);
/* The first thing at boot: keeps the template's initial values for the APs. */
void save_per_cpu_template(void);
/* Points this CPU's GS base at its area. */
void load_per_cpu_base(unsigned cpu);

#endif
