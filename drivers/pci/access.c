/* PCI configuration space access (Linux's arch/x86/pci/direct.c and
 * mmconfig_64.c, and drivers/pci/access.c's accessors): pci/pci.h.
 *
 * Two methods. ECAM: the MCFG's window, ioremap'd once, where function
 * (bus, devfn)'s 4 KiB of registers sit at (bus << 20 | devfn << 12); a
 * plain load or store of the register's width, no lock needed. Type 1
 * ports: the address written to 0xcf8, the data through 0xcfc-0xcff; the
 * two steps must not interleave with another CPU's, so pci_config_lock is
 * held, interrupts off, around each pair.
 *
 * The window is used only after it has proved itself: function 00:00.0's
 * vendor and device ids read through it must equal those the ports give
 * (mmlab's check; Linux trusts an MCFG the E820 map and ACPI resources
 * reserve). Linux's x86 raw_pci_read sends registers below 256 to the
 * ports whenever they work and only extended registers to ECAM; mmlab
 * sends everything to ECAM once it has one, so that path is the one used. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "drivers/acpi/tables.h"
#include "drivers/firmware/memmap.h"
#include "drivers/pci/pci.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

static DEFINE_SPINLOCK(pci_config_lock);
static u8 *ecam;          /* the window of bus 0 (NULL: ports) */
static u8 ecam_end_bus;

#define PCI_CONF1_ADDRESS(bus, devfn, reg) \
	(0x80000000u | ((u32)(bus) << 16) | ((u32)(devfn) << 8) | ((u32)(reg) & 0xfc))

static bool bad_access(unsigned int bus, unsigned int devfn, int where, int size, int limit)
{
	return bus > 255 || devfn > 255 || where < 0 || where + size > limit ||
	       (size != 1 && size != 2 && size != 4) || (where & (size - 1));
}

int pci_conf1_read(unsigned int bus, unsigned int devfn, int where, int size, u32 *val)
{
	if (bad_access(bus, devfn, where, size, 256)) {
		*val = ~0u;
		return -EINVAL;
	}
	unsigned long flags;
	spin_lock_irqsave(&pci_config_lock, flags);
	outl(0xcf8, PCI_CONF1_ADDRESS(bus, devfn, where));
	u16 port = (u16)(0xcfc + (where & 3));
	*val = size == 1 ? inb(port) : size == 2 ? inw(port) : inl(port);
	spin_unlock_irqrestore(&pci_config_lock, flags);
	return 0;
}

static int pci_conf1_write(unsigned int bus, unsigned int devfn, int where, int size, u32 val)
{
	if (bad_access(bus, devfn, where, size, 256))
		return -EINVAL;
	unsigned long flags;
	spin_lock_irqsave(&pci_config_lock, flags);
	outl(0xcf8, PCI_CONF1_ADDRESS(bus, devfn, where));
	u16 port = (u16)(0xcfc + (where & 3));
	if (size == 1)
		outb(port, (u8)val);
	else if (size == 2)
		outw(port, (u16)val);
	else
		outl(port, val);
	spin_unlock_irqrestore(&pci_config_lock, flags);
	return 0;
}

static u8 *ecam_address(unsigned int bus, unsigned int devfn, int where)
{
	return ecam + ((unsigned long)bus << 20) + ((unsigned long)devfn << 12) + (unsigned long)where;
}

int pci_bus_read_config(unsigned int bus, unsigned int devfn, int where, int size, u32 *val)
{
	if (!ecam || bus > ecam_end_bus)
		return pci_conf1_read(bus, devfn, where, size, val);
	if (bad_access(bus, devfn, where, size, 4096)) {
		*val = ~0u;
		return -EINVAL;
	}
	u8 *p = ecam_address(bus, devfn, where);
	*val = size == 1 ? readb(p) : size == 2 ? readw(p) : readl(p);
	return 0;
}

int pci_bus_write_config(unsigned int bus, unsigned int devfn, int where, int size, u32 val)
{
	if (!ecam || bus > ecam_end_bus)
		return pci_conf1_write(bus, devfn, where, size, val);
	if (bad_access(bus, devfn, where, size, 4096))
		return -EINVAL;
	u8 *p = ecam_address(bus, devfn, where);
	if (size == 1)
		writeb((u8)val, p);
	else if (size == 2)
		writew((u16)val, p);
	else
		writel(val, p);
	return 0;
}

#define PCI_OP_READ(type, size)                                                       \
	int pci_read_config_##type(const struct pci_dev *dev, int where, u##size *val) \
	{                                                                             \
		u32 v;                                                                \
		int err = pci_bus_read_config(dev->bus, dev->devfn, where, size / 8, &v); \
		*val = (u##size)v;                                                    \
		return err;                                                           \
	}                                                                             \
	int pci_write_config_##type(const struct pci_dev *dev, int where, u##size val) \
	{                                                                             \
		return pci_bus_write_config(dev->bus, dev->devfn, where, size / 8, val); \
	}
PCI_OP_READ(byte, 8)
PCI_OP_READ(word, 16)
PCI_OP_READ(dword, 32)

const char *pci_config_method(void)
{
	return ecam ? "ECAM" : "type 1 ports";
}

/* Linux's pci_arch_init / pci_mmcfg_early_init, in one step: the MCFG's
 * window if the table is good and the window answers as the ports do. */
void pci_config_init(void)
{
	const struct acpi_table_header *mcfg = acpi_get_table(&acpi_tables, "MCFG");
	struct acpi_mcfg_info info;
	if (!mcfg) {
		pr_info("PCI: no MCFG table; using type 1 ports (0xcf8/0xcfc)\n");
		return;
	}
	unsigned phys_bits = boot_cpu_data.phys_bits ? boot_cpu_data.phys_bits : 36;
	if (!acpi_parse_mcfg(mcfg, &boot_memmap, phys_bits, &info)) {
		pr_warn("PCI: MCFG unusable; using type 1 ports (0xcf8/0xcfc)\n");
		return;
	}
	unsigned long size = ((unsigned long)info.end_bus + 1) << 20;
	u8 *window = ioremap(info.address, size);
	if (!window) {
		pr_warn("PCI: ECAM window %#llx (%lu MiB) could not be mapped; using type 1 ports\n",
			(unsigned long long)info.address, size >> 20);
		return;
	}
	u32 by_port, by_ecam = readl(window); /* 00:00.0's vendor and device */
	pci_conf1_read(0, 0, PCI_VENDOR_ID, 4, &by_port);
	if (by_port != by_ecam) {
		pr_warn("PCI: ECAM at %#llx reads %08x for 00:00.0 where the ports read %08x; "
			"not used, type 1 ports instead\n", (unsigned long long)info.address, by_ecam,
			by_port);
		iounmap(window);
		return;
	}
	ecam = window;
	ecam_end_bus = info.end_bus;
	pr_info("PCI: ECAM [mem %#llx-%#llx] (base %#llx) for domain 0000 [bus 00-%02x]\n",
		(unsigned long long)info.address, (unsigned long long)info.address + size - 1,
		(unsigned long long)info.address, info.end_bus);
}
