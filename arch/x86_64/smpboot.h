/* Starting the application processors. */
#ifndef ARCH_X86_64_SMPBOOT_H
#define ARCH_X86_64_SMPBOOT_H

#include "kernel/types.h"

/* The page below 1 MiB the trampoline is copied to (memblock sets it). */
extern phys_addr_t trampoline_phys;
/* The logical CPU number of the boot CPU (its index in the MADT order). */
extern unsigned boot_cpu_index;

/* Brings up every other CPU of kernel/topology.h's map, all at once;
 * returns how many came up. */
unsigned smp_boot_secondaries(void);
/* What an AP runs once it is set up (the idle loop, later the scheduler). */
extern void (*ap_idle_entry)(void);
/* APs that came up with another APIC id than the CPU they were started as:
 * a second copy of a CPU (see smpboot.c). Must stay 0. */
extern unsigned ap_identity_mismatches;
/* APs that never answered their INIT-SIPI-SIPI (firmware listing CPUs the
 * machine does not have): left out after the one wait they shared. */
extern unsigned smp_aps_never_answered;
/* Trampoline slots still armed or claimed: 0 once the boot is done (an AP
 * that starts late finds nothing it may claim, and parks). */
unsigned smp_trampoline_slots_open(void);

#endif
