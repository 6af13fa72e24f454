/* The local APIC of each CPU (xAPIC through MMIO, or x2APIC through MSRs when
 * the CPU has it): identity, end of interrupt, inter-processor interrupts,
 * and the per-CPU timer. */
#ifndef ARCH_X86_64_APIC_H
#define ARCH_X86_64_APIC_H

#include "kernel/types.h"

/* Interrupt vectors, highest priority last (as Linux's layout). */
#define LOCAL_TIMER_VECTOR 0xec
#define CALL_FUNCTION_VECTOR 0xfb
#define RESCHEDULE_VECTOR 0xfd
#define SPURIOUS_APIC_VECTOR 0xff

#define HZ 100

/* Maps the LAPIC (uncached) and enables it on this CPU; the boot CPU also
 * chooses xAPIC or x2APIC for everyone. */
void lapic_init(void);
u32 lapic_id(void);
bool x2apic_enabled(void);
void apic_eoi(void);
/* Whether an IPI can name apic_id in the mode chosen (xAPIC: below 0xff;
 * x2APIC: any id but the broadcast). The IPI functions below send nothing
 * to another id (counted in apic_unreachable_ipis). */
bool apic_id_valid(u32 apic_id);
extern unsigned long apic_unreachable_ipis;
void apic_send_ipi(u32 apic_id, u8 vector);
void apic_send_ipi_all_but_self(u8 vector);
/* An NMI to one CPU (tests of the NMI entry). */
void apic_send_nmi(u32 apic_id);
/* INIT only: puts a CPU back into wait-for-SIPI (a CPU that must stop). */
void apic_send_init(u32 apic_id);
/* INIT-SIPI-SIPI to n CPUs at once, each IPI sent to each in turn, with the
 * SDM's delays once for all of them. The caller passes only ids the mode
 * can address (apic_id_valid); any other is refused by the IPI itself. */
void apic_wakeup_secondaries(const u32 *apic_ids, unsigned n, phys_addr_t trampoline);
/* Calibrates (boot CPU, against the TSC) and starts the periodic tick. */
/* Calibrates the local APIC timer (once) and starts it: periodic, every
 * tick, or one-shot, the first tick armed (then lapic_timer_oneshot). */
void lapic_timer_init(bool oneshot);
/* Arms the one-shot timer to fire after count timer ticks (at least 1). */
void lapic_timer_oneshot(u32 count);
extern u32 lapic_timer_ticks_per_jiffy;

/* Masks the legacy 8259 PICs (remapped out of the exception range first),
 * so enabling interrupts lets only APIC interrupts in. */
void legacy_pic_disable(void);

#endif
