/* How the machine stops or restarts (Linux's arch/x86/kernel/reboot.c,
 * much reduced): the machine_* calls kernel/reboot.c makes once it has
 * decided. Power off and halt end QEMU through isa-debug-exit with the
 * clean-halt status (33), which the runner and `make shell` read; restart
 * resets the machine as Linux's "reboot=pci" does, by the reset control
 * register at port 0xcf9 (a hard reset: the firmware runs again), with the
 * keyboard controller's reset line after it (Linux's "reboot=kbd") where
 * that register is missing. QEMU started with -no-reboot (the runner)
 * exits with status 0 instead of resetting. */
#include "arch/x86_64/reboot.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/qemu_exit.h"

#define RESET_CONTROL_PORT 0xcf9 /* the chipset's reset control register */
#define RESET_CONTROL_SYS_RST 0x02 /* a hard (system) reset, not only the CPU */
#define RESET_CONTROL_RST_CPU 0x04 /* the reset starts on 0 -> 1 of this bit */
#define KBD_CONTROLLER_PORT 0x64
#define KBD_PULSE_RESET 0xfe

void machine_power_off(void)
{
	qemu_exit(QEMU_EXIT_SUCCESS);
}

/* Linux's halt stops every CPU and leaves the machine on; a virtual machine
 * nobody can use any more is of no use to the runner, so mmlab ends it as
 * for power off. */
void machine_halt(void)
{
	qemu_exit(QEMU_EXIT_SUCCESS);
}

void machine_restart(void)
{
	local_irq_disable();
	outb(RESET_CONTROL_PORT, RESET_CONTROL_SYS_RST);
	outb(RESET_CONTROL_PORT, RESET_CONTROL_SYS_RST | RESET_CONTROL_RST_CPU);
	for (int i = 0; i < 10; i++)
		outb(KBD_CONTROLLER_PORT, KBD_PULSE_RESET);
	/* Neither reset took: a machine without them. */
	qemu_exit(QEMU_EXIT_SUCCESS);
}
