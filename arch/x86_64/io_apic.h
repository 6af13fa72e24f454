/* The I/O APIC (arch/x86_64/io_apic.c): routes ISA interrupts (the
 * UARTs') to a vector on one CPU, through the MADT's overrides. */
#ifndef ARCH_X86_64_IO_APIC_H
#define ARCH_X86_64_IO_APIC_H

#include "kernel/types.h"

/* Linux's ISA_IRQ_VECTOR: ISA IRQ n on vector 0x30 + n. */
#define ISA_IRQ_VECTOR(irq) (0x30 + (irq))

/* Checks and maps the MADT's I/O APICs, every pin masked; reports and
 * skips the bad ones. Once, on the boot CPU, after the local APIC. */
void io_apic_init(void);
/* How many I/O APICs are usable. */
unsigned io_apic_count(void);
/* Points ISA irq (after the overrides: its GSI in *gsi) at vector on the
 * CPU with local APIC id dest, masked: 0, -ENODEV when no usable I/O
 * APIC has the GSI, -EINVAL for an id physical mode cannot name. */
int io_apic_route_isa_irq(unsigned irq, u8 vector, u32 dest_apic_id, u32 *gsi);
int io_apic_unmask_isa_irq(unsigned irq);
int io_apic_mask_isa_irq(unsigned irq);

#endif
