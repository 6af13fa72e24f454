/* The I/O APIC (Linux's arch/x86/kernel/apic/io_apic.c, as much as a few
 * ISA interrupts need): the MADT's I/O APIC entries (drivers/acpi/tables.c
 * keeps them, as Linux's acpi_parse_ioapic) are checked and mapped, each
 * pin masked; an ISA IRQ is routed through the MADT's Interrupt Source
 * Overrides (acpi_parse_int_src_ovr: IRQ 0 is GSI 2 on QEMU) to its GSI,
 * whose redirection entry sends a fixed, physical-destination interrupt
 * to the boot CPU. The handler ends it with the local APIC's EOI (every
 * entry here is edge triggered, or level with the EOI broadcast).
 *
 * A MADT entry that cannot be an I/O APIC (address 0, in RAM, not 4 KiB
 * aligned... Linux's mp_register_ioapic checks: zero address, a version
 * register that reads all ones, a GSI range overlapping another) is
 * reported and skipped; with no usable I/O APIC, io_apic_route_isa_irq
 * fails and the caller polls instead.
 *
 * Locking: ioapic_lock (interrupts off) around the index/data register
 * pair. The pages are mapped once at boot, uncached, in slots above the
 * local APIC's (APIC_VIRT). */
#include "arch/x86_64/io_apic.h"
#include "arch/x86_64/apic.h"
#include "drivers/acpi/tables.h"
#include "drivers/firmware/memmap.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "mm/kernel_map.h"
#include "mm/page.h"

#define IO_APIC_VIRT 0xffffe80000001000ul /* after the local APIC's page */
#define IO_APIC_REGSEL 0x00
#define IO_APIC_WIN 0x10
#define IO_APIC_REG_VERSION 0x01
#define IO_APIC_REDTBL(pin) (0x10 + 2 * (pin))
#define IO_APIC_MASKED (1u << 16)
#define IO_APIC_LEVEL (1u << 15)
#define IO_APIC_ACTIVE_LOW (1u << 13)

struct io_apic {
	volatile u32 *base;
	u32 gsi_base, nr_pins;
	u8 id;
};

static struct io_apic ioapics[ACPI_MAX_IOAPICS];
static unsigned nr_ioapics_usable;
static DEFINE_SPINLOCK(ioapic_lock);

static u32 io_apic_read(const struct io_apic *a, u32 reg)
{
	a->base[IO_APIC_REGSEL / 4] = reg;
	return a->base[IO_APIC_WIN / 4];
}

static void io_apic_write(const struct io_apic *a, u32 reg, u32 v)
{
	a->base[IO_APIC_REGSEL / 4] = reg;
	a->base[IO_APIC_WIN / 4] = v;
}

/* Whether [gsi_base, gsi_base + pins) meets a usable I/O APIC's range. */
static bool gsi_overlaps(u32 gsi_base, u32 pins)
{
	for (unsigned i = 0; i < nr_ioapics_usable; i++)
		if (gsi_base < ioapics[i].gsi_base + ioapics[i].nr_pins && ioapics[i].gsi_base < gsi_base + pins)
			return true;
	return false;
}

void io_apic_init(void)
{
	for (unsigned i = 0; i < acpi_madt.nr_ioapics && i < ACPI_MAX_IOAPICS; i++) {
		u64 phys = acpi_madt.ioapics[i].address;
		u32 gsi_base = acpi_madt.ioapics[i].gsi_base;
		u8 id = acpi_madt.ioapics[i].id;
		if (!phys) {
			pr_warn("ioapic: I/O APIC %u (id %u) at 0: bogus, skipped\n", i, id);
			continue;
		}
		if (phys & 0xf) {
			pr_warn("ioapic: I/O APIC %u (id %u) at %#llx is not aligned, skipped\n", i, id,
				(unsigned long long)phys);
			continue;
		}
		if (memmap_ram_within(&boot_memmap, phys & ~0xfffull, (phys & ~0xfffull) + PAGE_SIZE)) {
			pr_warn("ioapic: I/O APIC %u (id %u) at %#llx is RAM, skipped\n", i, id,
				(unsigned long long)phys);
			continue;
		}
		unsigned long virt = IO_APIC_VIRT + nr_ioapics_usable * PAGE_SIZE;
		if (map_kernel_range_phys(virt, PAGE_SIZE, phys & ~0xfffull,
					  _PAGE_PRESENT | _PAGE_RW | _PAGE_PCD | _PAGE_PWT | _PAGE_NX, PAGE_SHIFT,
					  GFP_KERNEL)) {
			pr_warn("ioapic: I/O APIC %u cannot be mapped, skipped\n", i);
			continue;
		}
		struct io_apic *a = &ioapics[nr_ioapics_usable];
		a->base = (volatile u32 *)(virt + (phys & 0xfff));
		u32 version = io_apic_read(a, IO_APIC_REG_VERSION);
		/* All ones: nothing there (Linux's bad_ioapic_register); a
		 * version below 0x10 is no integrated APIC (QEMU reads an
		 * unbacked address as 0). */
		if (version == 0xffffffffu || (version & 0xff) < 0x10) {
			pr_warn("ioapic: I/O APIC %u (id %u) at %#llx does not answer, skipped\n", i, id,
				(unsigned long long)phys);
			unmap_kernel_range(virt, PAGE_SIZE);
			continue;
		}
		u32 pins = ((version >> 16) & 0xff) + 1;
		if (gsi_base > 0xffffff || gsi_overlaps(gsi_base, pins)) {
			pr_warn("ioapic: I/O APIC %u (id %u): GSI %u-%u overlaps another or is out of range, skipped\n",
				i, id, gsi_base, gsi_base + pins - 1);
			unmap_kernel_range(virt, PAGE_SIZE);
			continue;
		}
		a->gsi_base = gsi_base;
		a->nr_pins = pins;
		a->id = id;
		for (u32 pin = 0; pin < pins; pin++) {
			io_apic_write(a, IO_APIC_REDTBL(pin), IO_APIC_MASKED);
			io_apic_write(a, IO_APIC_REDTBL(pin) + 1, 0);
		}
		nr_ioapics_usable++;
		pr_info("ioapic: I/O APIC id %u at %#llx, version %#x, GSI %u-%u\n", id,
			(unsigned long long)phys, version & 0xff, gsi_base, gsi_base + pins - 1);
	}
}

unsigned io_apic_count(void)
{
	return nr_ioapics_usable;
}

/* Linux's mp_irqs/acpi_isa_irq_to_gsi with the override's polarity and
 * trigger (ACPI_MADT_POLARITY_*, TRIGGER_*; "conforms" is the ISA
 * bus's: active high, edge). */
static u32 isa_irq_to_gsi(unsigned irq, bool *level, bool *active_low)
{
	*level = *active_low = false;
	for (unsigned i = 0; i < acpi_madt.nr_overrides; i++) {
		if (acpi_madt.overrides[i].bus != 0 || acpi_madt.overrides[i].source_irq != irq)
			continue;
		u16 flags = acpi_madt.overrides[i].flags;
		*active_low = (flags & 3) == 3;
		*level = ((flags >> 2) & 3) == 3;
		return acpi_madt.overrides[i].gsi;
	}
	return irq;
}

static struct io_apic *gsi_to_ioapic(u32 gsi, u32 *pin)
{
	for (unsigned i = 0; i < nr_ioapics_usable; i++)
		if (gsi >= ioapics[i].gsi_base && gsi < ioapics[i].gsi_base + ioapics[i].nr_pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return &ioapics[i];
		}
	return NULL;
}

int io_apic_route_isa_irq(unsigned irq, u8 vector, u32 dest_apic_id, u32 *gsi_out)
{
	bool level, active_low;
	u32 gsi = isa_irq_to_gsi(irq, &level, &active_low), pin;
	struct io_apic *a = gsi_to_ioapic(gsi, &pin);
	if (gsi_out)
		*gsi_out = gsi;
	if (!a)
		return -ENODEV;
	if (dest_apic_id > 0xff)
		return -EINVAL; /* physical destination mode names 8-bit ids */
	u32 low = vector | (level ? IO_APIC_LEVEL : 0) | (active_low ? IO_APIC_ACTIVE_LOW : 0) | IO_APIC_MASKED;
	unsigned long flags;
	spin_lock_irqsave(&ioapic_lock, flags);
	io_apic_write(a, IO_APIC_REDTBL(pin), low);
	io_apic_write(a, IO_APIC_REDTBL(pin) + 1, dest_apic_id << 24);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return 0;
}

static int set_mask(unsigned irq, bool masked)
{
	bool level, active_low;
	u32 gsi = isa_irq_to_gsi(irq, &level, &active_low), pin;
	struct io_apic *a = gsi_to_ioapic(gsi, &pin);
	if (!a)
		return -ENODEV;
	unsigned long flags;
	spin_lock_irqsave(&ioapic_lock, flags);
	u32 low = io_apic_read(a, IO_APIC_REDTBL(pin));
	low = masked ? low | IO_APIC_MASKED : low & ~IO_APIC_MASKED;
	io_apic_write(a, IO_APIC_REDTBL(pin), low);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return 0;
}

int io_apic_unmask_isa_irq(unsigned irq) { return set_mask(irq, false); }
int io_apic_mask_isa_irq(unsigned irq) { return set_mask(irq, true); }
