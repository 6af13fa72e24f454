/* Stopping and restarting the machine (arch/x86_64/reboot.c); called by
 * kernel/reboot.c, never return. */
#ifndef ARCH_X86_64_REBOOT_H
#define ARCH_X86_64_REBOOT_H

__attribute__((noreturn)) void machine_power_off(void);
__attribute__((noreturn)) void machine_halt(void);
__attribute__((noreturn)) void machine_restart(void);

#endif
