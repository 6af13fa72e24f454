/* Where the linker put the kernel image's parts (linker.ld), as Linux's
 * asm-generic/sections.h: the symbols are addresses, not variables, so each
 * is declared as an array and only ever compared or subtracted. */
#ifndef KERNEL_SECTIONS_H
#define KERNEL_SECTIONS_H

/* The 32-bit boot code, at its physical address. */
extern char __boot_start[];
/* Text, read-only data, data and BSS: [_text, _etext), [_etext, _erodata),
 * up to _edata, and _end after BSS. */
extern char _text[], _etext[], _erodata[], _edata[], _end[];
/* The template of the per-CPU variables (kernel/percpu.h). */
extern char __per_cpu_start[], __per_cpu_end[];

#endif
