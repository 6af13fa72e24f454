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

#include "arch/x86_64/percpu.h"
#include "kernel/topology.h"
#include "kernel/types.h"

#define DEFINE_PER_CPU(type, name) __section(".data.percpu") __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name

extern unsigned long __per_cpu_offset[NR_CPUS];
/* The first word of every CPU's copy (kernel/smp.c): its own offset from
 * the template, which the GS base points at. */
extern unsigned long this_cpu_off;

/* this_cpu_off_value(), the offset of this CPU's copy, is the hardware's
 * part: arch/x86_64/percpu.h. */

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
/* Zeroed memory for a CPU's own structures (its stacks, its GDT and TSS):
 * 2^order pages on the CPU's node, or nearby. For arch code, which does
 * not include mm's headers. NULL when there is no memory. */
void *cpu_alloc_pages(unsigned cpu, unsigned order);
void cpu_free_pages(void *addr, unsigned order);

#endif
