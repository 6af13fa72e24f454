/* PCI (Linux's include/linux/pci.h and include/uapi/linux/pci_regs.h, the
 * part a driver of a QEMU q35 machine needs): configuration space access,
 * the devices found at boot, their BARs and capabilities, and drivers bound
 * to them by vendor/device id.
 *
 * Configuration space is reached through ECAM (the ACPI MCFG table's
 * memory-mapped window, Linux's pci_mmcfg) when the firmware gave a usable
 * one, else through the legacy ports 0xcf8/0xcfc (Linux's pci_direct_conf1,
 * which reaches only the first 256 bytes of each function): drivers/pci/
 * access.c. Only PCI segment (domain) 0 exists here.
 *
 * Devices are enumerated once, at boot (pci_subsys_init, a late initcall
 * linked before every PCI driver's), bus 0 first and then the bus behind
 * each bridge the firmware numbered; BARs keep the addresses the firmware
 * assigned (mmlab assigns none: a BAR left at 0 is reported and not used).
 * The device list never changes after that (no hotplug): it is read
 * without a lock. */
#ifndef DRIVERS_PCI_PCI_H
#define DRIVERS_PCI_PCI_H

#include "kernel/types.h"
#include "lib/list.h"

/* Configuration space registers (pci_regs.h). */
#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define  PCI_COMMAND_IO 0x1
#define  PCI_COMMAND_MEMORY 0x2
#define  PCI_COMMAND_MASTER 0x4
#define  PCI_COMMAND_INTX_DISABLE 0x400
#define PCI_STATUS 0x06
#define  PCI_STATUS_CAP_LIST 0x10
#define PCI_CLASS_REVISION 0x08 /* high 24 bits class, low 8 revision */
#define PCI_HEADER_TYPE 0x0e
#define  PCI_HEADER_TYPE_MASK 0x7f
#define  PCI_HEADER_TYPE_NORMAL 0
#define  PCI_HEADER_TYPE_BRIDGE 1
#define  PCI_HEADER_TYPE_MFD 0x80 /* multi-function device */
#define PCI_BASE_ADDRESS_0 0x10
#define  PCI_BASE_ADDRESS_SPACE_IO 0x01
#define  PCI_BASE_ADDRESS_MEM_TYPE_MASK 0x06
#define  PCI_BASE_ADDRESS_MEM_TYPE_64 0x04
#define  PCI_BASE_ADDRESS_MEM_PREFETCH 0x08
#define  PCI_BASE_ADDRESS_MEM_MASK (~0x0fu)
#define  PCI_BASE_ADDRESS_IO_MASK (~0x03u)
#define PCI_PRIMARY_BUS 0x18 /* type 1 (bridge) header */
#define PCI_SECONDARY_BUS 0x19
#define PCI_SUBORDINATE_BUS 0x1a
#define PCI_SUBSYSTEM_VENDOR_ID 0x2c
#define PCI_SUBSYSTEM_ID 0x2e
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CAP_LIST_ID 0
#define PCI_CAP_LIST_NEXT 1

#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_VNDR 0x09 /* vendor-specific (virtio's structures) */
#define PCI_CAP_ID_EXP 0x10
#define PCI_CAP_ID_MSIX 0x11

/* MSI-X capability and table (pci_regs.h). */
#define PCI_MSIX_FLAGS 2
#define  PCI_MSIX_FLAGS_QSIZE 0x07ff /* table size - 1 */
#define  PCI_MSIX_FLAGS_MASKALL 0x4000
#define  PCI_MSIX_FLAGS_ENABLE 0x8000
#define PCI_MSIX_TABLE 4
#define  PCI_MSIX_TABLE_BIR 0x7
#define  PCI_MSIX_TABLE_OFFSET (~0x7u)
#define PCI_MSIX_PBA 8
#define PCI_MSIX_ENTRY_SIZE 16
#define PCI_MSIX_ENTRY_LOWER_ADDR 0
#define PCI_MSIX_ENTRY_UPPER_ADDR 4
#define PCI_MSIX_ENTRY_DATA 8
#define PCI_MSIX_ENTRY_VECTOR_CTRL 12
#define  PCI_MSIX_ENTRY_CTRL_MASKBIT 1

#define PCI_DEVFN(slot, func) ((((slot) & 0x1f) << 3) | ((func) & 0x07))
#define PCI_SLOT(devfn) (((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn) ((devfn) & 0x07)

#define PCI_STD_NUM_BARS 6
#define PCI_ANY_ID (~0u)

/* A BAR as Linux's struct resource shows it: [start, end], IORESOURCE_*
 * flags. flags 0: the BAR is absent (or the upper half of a 64-bit one). */
#define IORESOURCE_IO 0x00000100
#define IORESOURCE_MEM 0x00000200
#define IORESOURCE_PREFETCH 0x00002000
#define IORESOURCE_MEM_64 0x00100000
#define IORESOURCE_UNSET 0x20000000 /* the firmware left it unassigned */
struct resource {
	u64 start, end;
	unsigned long flags;
};

struct pci_dev {
	struct list_head bus_list; /* on pci_devices, in the order found */
	u8 bus;
	u8 devfn;
	u16 vendor, device;
	u16 subsystem_vendor, subsystem_device;
	u32 class;   /* base class, subclass, prog-if: 0x010000 */
	u8 revision;
	u8 hdr_type; /* without the multi-function bit */
	u8 msi_cap;  /* offset of the capability, 0: none */
	u8 msix_cap;
	struct resource resource[PCI_STD_NUM_BARS];
	/* MSI-X, once pci_alloc_irq_vectors enabled it (drivers/pci/msi.c). */
	void *msix_base;        /* the table, ioremap'd */
	unsigned int msix_nvec; /* entries in use */
	u8 msix_vectors[8];     /* the CPU vector of each entry */
	struct pci_driver *driver;
	void *driver_data;
};

extern struct list_head pci_devices;

static inline unsigned long long pci_resource_start(const struct pci_dev *dev, int bar)
{
	return dev->resource[bar].start;
}
static inline unsigned long long pci_resource_len(const struct pci_dev *dev, int bar)
{
	const struct resource *r = &dev->resource[bar];
	return r->flags ? r->end - r->start + 1 : 0;
}

/* Linux's pci_name: "0000:00:02.0" into buf (at least 13 bytes). */
const char *pci_name(const struct pci_dev *dev, char *buf);

/* Configuration space of a function: 0 (PCIBIOS_SUCCESSFUL), or -EINVAL
 * for an offset that is misaligned or beyond what the access method
 * reaches (256 bytes through the ports, 4096 through ECAM); a read that
 * fails gives all ones, as a missing device reads. */
int pci_bus_read_config(unsigned int bus, unsigned int devfn, int where, int size, u32 *val);
int pci_bus_write_config(unsigned int bus, unsigned int devfn, int where, int size, u32 val);
int pci_read_config_byte(const struct pci_dev *dev, int where, u8 *val);
int pci_read_config_word(const struct pci_dev *dev, int where, u16 *val);
int pci_read_config_dword(const struct pci_dev *dev, int where, u32 *val);
int pci_write_config_byte(const struct pci_dev *dev, int where, u8 val);
int pci_write_config_word(const struct pci_dev *dev, int where, u16 val);
int pci_write_config_dword(const struct pci_dev *dev, int where, u32 val);

/* Which method pci_bus_*_config uses: "ECAM" or "type 1 ports". */
const char *pci_config_method(void);
/* The legacy port access alone (tests hold ECAM's answers beside it). */
int pci_conf1_read(unsigned int bus, unsigned int devfn, int where, int size, u32 *val);

/* Sets up configuration access (MCFG, else the ports) and scans the
 * buses: drivers/pci/probe.c. Run once, by its late initcall. */
void pci_subsys_init(void);
/* Its first step (drivers/pci/access.c): ECAM from the MCFG, or the ports. */
void pci_config_init(void);

/* The offset of the first capability cap (PCI_CAP_ID_*) of dev, 0 if none;
 * pci_find_next_capability continues after the one at pos (Linux's). */
u8 pci_find_capability(const struct pci_dev *dev, int cap);
u8 pci_find_next_capability(const struct pci_dev *dev, u8 pos, int cap);

/* Memory decoding (Linux's pci_enable_device_mem) and bus mastering
 * (pci_set_master, so the device may DMA) on; 0 or -EINVAL (no memory
 * BAR to decode). pci_clear_master turns the second off again. */
int pci_enable_device_mem(struct pci_dev *dev);
void pci_set_master(struct pci_dev *dev);
void pci_clear_master(struct pci_dev *dev);

/* BAR bar mapped uncached (whole when maxlen is 0, else at most maxlen
 * bytes): NULL for an I/O-port, absent or unassigned BAR. */
void *pci_iomap(struct pci_dev *dev, int bar, unsigned long maxlen);
void pci_iounmap(struct pci_dev *dev, void *addr);

/* The next device after from (NULL: the first) with this vendor and
 * device (PCI_ANY_ID: any), or NULL. No reference is taken: devices live
 * for ever. */
struct pci_dev *pci_get_device(unsigned int vendor, unsigned int device, struct pci_dev *from);
/* The i-th device found (0 first), or NULL: /sys/bus/pci/devices. */
struct pci_dev *pci_dev_nth(unsigned int i);

struct pci_device_id {
	u32 vendor, device;
};
struct pci_driver {
	const char *name;
	const struct pci_device_id *id_table; /* ends with a zero vendor */
	int (*probe)(struct pci_dev *dev, const struct pci_device_id *id);
};
/* Binds drv to every device it matches that has no driver yet, calling
 * probe on each (a probe returning an error leaves the device unbound,
 * logged). Returns 0. */
int pci_register_driver(struct pci_driver *drv);

/* MSI-X (drivers/pci/msi.c, Linux's pci_alloc_irq_vectors with
 * PCI_IRQ_MSIX only): between min_vecs and max_vecs table entries enabled,
 * each given a CPU vector of its own that targets the boot CPU (no
 * affinity spreading). Returns the number enabled, or -ENOSPC (no MSI-X
 * capability, too small a table, no free vectors), -ENOMEM. The vectors
 * are masked until request_irq gives them a handler. */
#define PCI_IRQ_MSIX (1 << 2)
int pci_alloc_irq_vectors(struct pci_dev *dev, unsigned int min_vecs, unsigned int max_vecs,
			  unsigned int flags);
void pci_free_irq_vectors(struct pci_dev *dev);
/* The CPU vector ("irq" here: mmlab numbers interrupts by vector) of
 * table entry nr, or -EINVAL. */
int pci_irq_vector(struct pci_dev *dev, unsigned int nr);

typedef enum { IRQ_NONE, IRQ_HANDLED } irqreturn_t;
typedef irqreturn_t (*irq_handler_t)(int irq, void *dev_id);
/* handler(irq, dev_id) runs, interrupts off, at each interrupt on irq (a
 * vector pci_irq_vector gave); the EOI is sent after it. 0 or -EBUSY. */
int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags, const char *name,
		void *dev_id);
void free_irq(unsigned int irq, void *dev_id);

#endif
