/* The debugger's stop point: where gdb, attached to QEMU's gdb stub, stops
 * the machine at a moment the kernel chose (tools/gdb/, docs/gdb.md).
 *
 * debugger_stop() is an empty function that gdb breaks on; without a
 * debugger it returns at once. debugger_enter() is what writing 'g' to
 * /proc/sysrq-trigger does (Linux's sysrq g enters kgdb): it holds the
 * other CPUs, disables interrupts, prints the facts the gdb check compares
 * its helpers with when the kernel was booted with `debugger_facts`, and
 * calls debugger_stop(); nothing the facts describe changes between the
 * print and the stop. */
#ifndef KERNEL_DEBUGGER_H
#define KERNEL_DEBUGGER_H

void debugger_stop(const char *reason);
void debugger_enter(const char *reason);

#endif
