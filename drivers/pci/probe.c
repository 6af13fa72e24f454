/* PCI enumeration (Linux's drivers/pci/probe.c, with pci_find_capability
 * from pci.c and the driver matching of pci-driver.c): pci/pci.h.
 *
 * Each function found is read once: ids, class, header type, its BARs
 * (sized by the write-ones probe: all ones written, what reads back tells
 * which address bits decode, then the firmware's address written back,
 * with decoding off in between so that the device never answers at the
 * probe's address), and where its MSI and MSI-X capabilities sit. A line
 * per function, as Linux's: "pci 0000:00:02.0: [1af4:1042] type 00 class
 * 0x010000", and one per BAR. A bridge's secondary bus (numbered by the
 * firmware) is scanned after it; a bus is never scanned twice, so a loop of
 * bridges ends. */
#include "drivers/pci/pci.h"
#include "arch/x86_64/io.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/slab.h"

LIST_HEAD(pci_devices);

/* Linux's PCI_FIND_CAP_TTL: a capability list longer than this loops. */
#define PCI_FIND_CAP_TTL 48

const char *pci_name(const struct pci_dev *dev, char *buf)
{
	snprintf(buf, 13, "0000:%02x:%02x.%u", dev->bus, PCI_SLOT(dev->devfn), PCI_FUNC(dev->devfn));
	return buf;
}

#define pci_info(dev, fmt, ...)                                                       \
	do {                                                                          \
		char __n[13];                                                         \
		pr_info("pci %s: " fmt, pci_name(dev, __n), ##__VA_ARGS__);           \
	} while (0)
#define pci_warn(dev, fmt, ...)                                                       \
	do {                                                                          \
		char __n[13];                                                         \
		pr_warn("pci %s: " fmt, pci_name(dev, __n), ##__VA_ARGS__);           \
	} while (0)

u8 pci_find_next_capability(const struct pci_dev *dev, u8 pos, int cap)
{
	u8 next;
	pci_read_config_byte(dev, pos + PCI_CAP_LIST_NEXT, &next);
	for (int ttl = PCI_FIND_CAP_TTL; ttl-- && next >= 0x40;) {
		next &= ~3;
		u8 id;
		pci_read_config_byte(dev, next + PCI_CAP_LIST_ID, &id);
		if (id == 0xff)
			break;
		if (id == cap)
			return next;
		pci_read_config_byte(dev, next + PCI_CAP_LIST_NEXT, &next);
	}
	return 0;
}

u8 pci_find_capability(const struct pci_dev *dev, int cap)
{
	u16 status;
	pci_read_config_word(dev, PCI_STATUS, &status);
	if (!(status & PCI_STATUS_CAP_LIST))
		return 0;
	/* PCI_CAPABILITY_LIST - PCI_CAP_LIST_NEXT: the header's pointer is
	 * read as the "next" of a capability at 0x33. */
	return pci_find_next_capability(dev, PCI_CAPABILITY_LIST - PCI_CAP_LIST_NEXT, cap);
}

/* Linux's __pci_read_base: sizes BAR at reg; returns 1 if it took two
 * registers (64-bit). Decoding is off while the BAR holds all ones. */
static int pci_read_base(struct pci_dev *dev, int bar, int reg)
{
	struct resource *res = &dev->resource[bar];
	u32 l, sz, l2 = 0, sz2 = 0;
	pci_read_config_dword(dev, reg, &l);
	pci_write_config_dword(dev, reg, ~0u);
	pci_read_config_dword(dev, reg, &sz);
	pci_write_config_dword(dev, reg, l);
	bool is64 = !(l & PCI_BASE_ADDRESS_SPACE_IO) &&
		    (l & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64;
	if (is64 && bar + 1 < PCI_STD_NUM_BARS) {
		pci_read_config_dword(dev, reg + 4, &l2);
		pci_write_config_dword(dev, reg + 4, ~0u);
		pci_read_config_dword(dev, reg + 4, &sz2);
		pci_write_config_dword(dev, reg + 4, l2);
	}
	memset(res, 0, sizeof(*res));
	if (sz == 0 || sz == ~0u)
		return is64; /* no BAR here (or no device) */
	/* The decoded address bits read back as ones: the lowest of them is
	 * the BAR's size (Linux's pci_size). An I/O BAR decodes 16 bits. */
	u64 base, decoded;
	if (l & PCI_BASE_ADDRESS_SPACE_IO) {
		base = l & PCI_BASE_ADDRESS_IO_MASK;
		decoded = sz & PCI_BASE_ADDRESS_IO_MASK & 0xffff;
		res->flags = IORESOURCE_IO;
	} else {
		base = l & PCI_BASE_ADDRESS_MEM_MASK;
		decoded = sz & PCI_BASE_ADDRESS_MEM_MASK;
		res->flags = IORESOURCE_MEM;
		if (l & PCI_BASE_ADDRESS_MEM_PREFETCH)
			res->flags |= IORESOURCE_PREFETCH;
		if (is64) {
			base |= (u64)l2 << 32;
			decoded |= (u64)sz2 << 32;
			res->flags |= IORESOURCE_MEM_64;
		}
	}
	u64 size = decoded & -decoded;
	if (!size) {
		res->flags = 0;
		return is64;
	}
	res->start = base;
	res->end = base + size - 1;
	if (!base)
		res->flags |= IORESOURCE_UNSET;
	pci_info(dev, "reg 0x%x: [%s %#llx-%#llx%s%s]%s\n", reg,
		 res->flags & IORESOURCE_IO ? "io " : "mem", (unsigned long long)res->start,
		 (unsigned long long)res->end, res->flags & IORESOURCE_MEM_64 ? " 64bit" : "",
		 res->flags & IORESOURCE_PREFETCH ? " pref" : "",
		 base ? "" : " (unassigned by the firmware: not used)");
	return is64;
}

static void pci_read_bases(struct pci_dev *dev, int howmany)
{
	u16 cmd;
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	if (cmd & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY))
		pci_write_config_word(dev, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (int bar = 0; bar < howmany; bar++)
		bar += pci_read_base(dev, bar, PCI_BASE_ADDRESS_0 + 4 * bar);
	if (cmd & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY))
		pci_write_config_word(dev, PCI_COMMAND, cmd);
}

static void pci_scan_bus(unsigned int bus, bool *scanned);

static void pci_scan_function(unsigned int bus, unsigned int devfn, u32 id, bool *scanned)
{
	struct pci_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		pr_err("pci: no memory for %02x:%02x.%u; not scanned\n", bus, PCI_SLOT(devfn),
		       PCI_FUNC(devfn));
		return;
	}
	dev->bus = (u8)bus;
	dev->devfn = (u8)devfn;
	dev->vendor = (u16)id;
	dev->device = (u16)(id >> 16);
	u32 class;
	u8 hdr;
	pci_read_config_dword(dev, PCI_CLASS_REVISION, &class);
	dev->class = class >> 8;
	dev->revision = (u8)class;
	pci_read_config_byte(dev, PCI_HEADER_TYPE, &hdr);
	dev->hdr_type = hdr & PCI_HEADER_TYPE_MASK;
	pci_info(dev, "[%04x:%04x] type %02x class %#08x\n", dev->vendor, dev->device, dev->hdr_type,
		 dev->class);
	if (dev->hdr_type == PCI_HEADER_TYPE_NORMAL) {
		pci_read_config_word(dev, PCI_SUBSYSTEM_VENDOR_ID, &dev->subsystem_vendor);
		pci_read_config_word(dev, PCI_SUBSYSTEM_ID, &dev->subsystem_device);
		pci_read_bases(dev, PCI_STD_NUM_BARS);
	} else if (dev->hdr_type == PCI_HEADER_TYPE_BRIDGE) {
		pci_read_bases(dev, 2);
	}
	dev->msi_cap = pci_find_capability(dev, PCI_CAP_ID_MSI);
	dev->msix_cap = pci_find_capability(dev, PCI_CAP_ID_MSIX);
	list_add_tail(&dev->bus_list, &pci_devices);
	if (dev->hdr_type == PCI_HEADER_TYPE_BRIDGE) {
		u8 secondary;
		pci_read_config_byte(dev, PCI_SECONDARY_BUS, &secondary);
		if (secondary > bus) /* 0 or backwards: not numbered by the firmware */
			pci_scan_bus(secondary, scanned);
		else
			pci_info(dev, "bridge with secondary bus %02x not scanned\n", secondary);
	}
}

static void pci_scan_bus(unsigned int bus, bool *scanned)
{
	if (scanned[bus])
		return;
	scanned[bus] = true;
	for (unsigned int slot = 0; slot < 32; slot++) {
		for (unsigned int fn = 0; fn < 8; fn++) {
			unsigned int devfn = PCI_DEVFN(slot, fn);
			u32 id;
			pci_bus_read_config(bus, devfn, PCI_VENDOR_ID, 4, &id);
			/* Linux's pci_bus_generic_read_dev_vendor_id: no device
			 * reads all ones, a broken one 0 or half of either. */
			if (id == ~0u || id == 0 || (u16)id == 0xffff || (u16)id == 0) {
				if (fn == 0)
					break;
				continue;
			}
			pci_scan_function(bus, devfn, id, scanned);
			if (fn == 0) {
				u32 hdr;
				pci_bus_read_config(bus, devfn, PCI_HEADER_TYPE, 1, &hdr);
				if (!(hdr & PCI_HEADER_TYPE_MFD))
					break;
			}
		}
	}
}

static bool pci_initialized;

void pci_subsys_init(void)
{
	if (pci_initialized)
		return;
	pci_initialized = true;
	pci_config_init();
	static bool scanned[256];
	pr_info("PCI: scanning bus 00 through %s\n", pci_config_method());
	pci_scan_bus(0, scanned);
}

static int pci_subsys_initcall(void)
{
	pci_subsys_init();
	return 0;
}
late_initcall(pci_subsys_initcall);

struct pci_dev *pci_get_device(unsigned int vendor, unsigned int device, struct pci_dev *from)
{
	struct list_head *p = from ? from->bus_list.next : pci_devices.next;
	for (; p != &pci_devices; p = p->next) {
		struct pci_dev *dev = container_of(p, struct pci_dev, bus_list);
		if ((vendor == PCI_ANY_ID || dev->vendor == vendor) &&
		    (device == PCI_ANY_ID || dev->device == device))
			return dev;
	}
	return NULL;
}

struct pci_dev *pci_dev_nth(unsigned int i)
{
	for (struct pci_dev *d = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, NULL); d;
	     d = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, d))
		if (i-- == 0)
			return d;
	return NULL;
}

int pci_enable_device_mem(struct pci_dev *dev)
{
	bool any = false;
	for (int bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		any |= (dev->resource[bar].flags & (IORESOURCE_MEM | IORESOURCE_UNSET)) == IORESOURCE_MEM;
	if (!any)
		return -EINVAL;
	u16 cmd;
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	if (!(cmd & PCI_COMMAND_MEMORY))
		pci_write_config_word(dev, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY);
	return 0;
}

static void pci_set_command_bit(struct pci_dev *dev, u16 bit, bool on)
{
	u16 cmd;
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	u16 want = on ? cmd | bit : cmd & ~bit;
	if (want != cmd)
		pci_write_config_word(dev, PCI_COMMAND, want);
}

void pci_set_master(struct pci_dev *dev) { pci_set_command_bit(dev, PCI_COMMAND_MASTER, true); }
void pci_clear_master(struct pci_dev *dev) { pci_set_command_bit(dev, PCI_COMMAND_MASTER, false); }

void *pci_iomap(struct pci_dev *dev, int bar, unsigned long maxlen)
{
	if (bar < 0 || bar >= PCI_STD_NUM_BARS)
		return NULL;
	const struct resource *r = &dev->resource[bar];
	if ((r->flags & (IORESOURCE_MEM | IORESOURCE_UNSET)) != IORESOURCE_MEM)
		return NULL;
	unsigned long len = pci_resource_len(dev, bar);
	if (maxlen && maxlen < len)
		len = maxlen;
	return ioremap(r->start, len);
}

void pci_iounmap(struct pci_dev *dev, void *addr)
{
	(void)dev;
	iounmap(addr);
}

int pci_register_driver(struct pci_driver *drv)
{
	pci_subsys_init(); /* whatever the initcalls' link order */
	for (struct list_head *p = pci_devices.next; p != &pci_devices; p = p->next) {
		struct pci_dev *dev = container_of(p, struct pci_dev, bus_list);
		if (dev->driver)
			continue;
		for (const struct pci_device_id *id = drv->id_table; id->vendor; id++) {
			if ((id->vendor != PCI_ANY_ID && id->vendor != dev->vendor) ||
			    (id->device != PCI_ANY_ID && id->device != dev->device))
				continue;
			dev->driver = drv;
			int err = drv->probe(dev, id);
			if (err) {
				pci_warn(dev, "probe of %s failed with error %d\n", drv->name, err);
				dev->driver = NULL;
			}
			break;
		}
	}
	return 0;
}
