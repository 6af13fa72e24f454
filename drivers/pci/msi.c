/* MSI-X and the interrupt vectors devices raise (Linux's drivers/pci/msi/
 * and the x86 vector domain, reduced): pci/pci.h.
 *
 * mmlab numbers a device interrupt by its CPU vector ("irq" in request_irq
 * is the vector). Vectors are handed out from DEVICE_VECTOR_FIRST to
 * DEVICE_VECTOR_LAST, between the legacy range (0x20-0x4f: the PICs'
 * remapped vectors and Linux's ISA vectors, left to an I/O APIC) and the
 * system vectors of apic.h (0xec and up); each goes to one handler, whose
 * dev_id it keeps (no sharing: MSI-X vectors are never shared). Every
 * vector targets the boot CPU in physical destination mode (Linux spreads
 * them by affinity); its message is edge-triggered, fixed delivery.
 *
 * Locking: vector_lock (interrupts off) guards the table of handlers; an
 * interrupt reads its entry under it too, so free_irq returns only once no
 * CPU can be about to call the handler it removed. */
#include "drivers/pci/pci.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/traps.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"

#define DEVICE_VECTOR_FIRST 0x50
#define DEVICE_VECTOR_LAST 0xdf
#define MSI_ADDR_BASE 0xfee00000u
#define MSI_ADDR_DEST_ID_SHIFT 12

struct irq_action {
	bool allocated;
	irq_handler_t handler;
	void *dev_id;
	const char *name;
};
static struct irq_action irq_actions[256];
static DEFINE_SPINLOCK(vector_lock);

static void device_interrupt(struct pt_regs *regs)
{
	unsigned int vector = (unsigned int)regs->vector;
	spin_lock(&vector_lock);
	struct irq_action a = irq_actions[vector];
	if (a.handler)
		a.handler((int)vector, a.dev_id);
	spin_unlock(&vector_lock);
	apic_eoi();
}

static int alloc_vector(void)
{
	unsigned long flags;
	spin_lock_irqsave(&vector_lock, flags);
	for (int v = DEVICE_VECTOR_FIRST; v <= DEVICE_VECTOR_LAST; v++) {
		if (!irq_actions[v].allocated) {
			irq_actions[v] = (struct irq_action){ .allocated = true };
			spin_unlock_irqrestore(&vector_lock, flags);
			register_interrupt_handler((unsigned int)v, device_interrupt);
			return v;
		}
	}
	spin_unlock_irqrestore(&vector_lock, flags);
	return -ENOSPC;
}

static void free_vector(int v)
{
	unsigned long flags;
	spin_lock_irqsave(&vector_lock, flags);
	irq_actions[v] = (struct irq_action){ 0 };
	spin_unlock_irqrestore(&vector_lock, flags);
	register_interrupt_handler((unsigned int)v, NULL);
}

static u8 *msix_entry(struct pci_dev *dev, unsigned int nr)
{
	return (u8 *)dev->msix_base + nr * PCI_MSIX_ENTRY_SIZE;
}

static void msix_mask(struct pci_dev *dev, unsigned int nr, bool mask)
{
	u8 *e = msix_entry(dev, nr);
	u32 ctrl = readl(e + PCI_MSIX_ENTRY_VECTOR_CTRL);
	ctrl = mask ? ctrl | PCI_MSIX_ENTRY_CTRL_MASKBIT : ctrl & ~PCI_MSIX_ENTRY_CTRL_MASKBIT;
	writel(ctrl, e + PCI_MSIX_ENTRY_VECTOR_CTRL);
	(void)readl(e + PCI_MSIX_ENTRY_VECTOR_CTRL); /* flush the posted write */
}

int pci_alloc_irq_vectors(struct pci_dev *dev, unsigned int min_vecs, unsigned int max_vecs,
			  unsigned int flags)
{
	if (!(flags & PCI_IRQ_MSIX) || !dev->msix_cap || dev->msix_base || !min_vecs ||
	    min_vecs > max_vecs)
		return -ENOSPC;
	u16 control;
	u32 table;
	pci_read_config_word(dev, dev->msix_cap + PCI_MSIX_FLAGS, &control);
	pci_read_config_dword(dev, dev->msix_cap + PCI_MSIX_TABLE, &table);
	unsigned int size = (control & PCI_MSIX_FLAGS_QSIZE) + 1;
	unsigned int nvec = max_vecs < size ? max_vecs : size;
	if (nvec > sizeof(dev->msix_vectors))
		nvec = sizeof(dev->msix_vectors);
	u32 apic = lapic_id();
	if (nvec < min_vecs || apic > 0xff) /* no interrupt remapping for wider ids */
		return -ENOSPC;
	int bar = table & PCI_MSIX_TABLE_BIR;
	if (bar >= PCI_STD_NUM_BARS ||
	    (dev->resource[bar].flags & (IORESOURCE_MEM | IORESOURCE_UNSET)) != IORESOURCE_MEM ||
	    (table & PCI_MSIX_TABLE_OFFSET) + (u64)size * PCI_MSIX_ENTRY_SIZE > pci_resource_len(dev, bar))
		return -ENOSPC;
	u8 *base = ioremap(pci_resource_start(dev, bar) + (table & PCI_MSIX_TABLE_OFFSET),
			   size * PCI_MSIX_ENTRY_SIZE);
	if (!base)
		return -ENOMEM;
	unsigned int got = 0;
	for (; got < nvec; got++) {
		int v = alloc_vector();
		if (v < 0)
			break;
		dev->msix_vectors[got] = (u8)v;
	}
	if (got < min_vecs) {
		while (got)
			free_vector(dev->msix_vectors[--got]);
		iounmap(base);
		return -ENOSPC;
	}
	dev->msix_base = base;
	dev->msix_nvec = got;
	/* Linux's msix_capability_init: enabled with every entry masked by
	 * the function mask while the entries are written, each entry then
	 * masked on its own until request_irq. */
	pci_write_config_word(dev, dev->msix_cap + PCI_MSIX_FLAGS,
			      control | PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	for (unsigned int i = 0; i < size; i++)
		msix_mask(dev, i, true);
	for (unsigned int i = 0; i < got; i++) {
		u8 *e = msix_entry(dev, i);
		writel(MSI_ADDR_BASE | apic << MSI_ADDR_DEST_ID_SHIFT, e + PCI_MSIX_ENTRY_LOWER_ADDR);
		writel(0, e + PCI_MSIX_ENTRY_UPPER_ADDR);
		writel(dev->msix_vectors[i], e + PCI_MSIX_ENTRY_DATA);
	}
	u16 cmd;
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	pci_write_config_word(dev, PCI_COMMAND, cmd | PCI_COMMAND_INTX_DISABLE);
	pci_write_config_word(dev, dev->msix_cap + PCI_MSIX_FLAGS,
			      (control | PCI_MSIX_FLAGS_ENABLE) & ~PCI_MSIX_FLAGS_MASKALL);
	return (int)got;
}

void pci_free_irq_vectors(struct pci_dev *dev)
{
	if (!dev->msix_base)
		return;
	u16 control;
	pci_read_config_word(dev, dev->msix_cap + PCI_MSIX_FLAGS, &control);
	pci_write_config_word(dev, dev->msix_cap + PCI_MSIX_FLAGS, control & ~PCI_MSIX_FLAGS_ENABLE);
	for (unsigned int i = 0; i < dev->msix_nvec; i++)
		free_vector(dev->msix_vectors[i]);
	iounmap(dev->msix_base);
	dev->msix_base = NULL;
	dev->msix_nvec = 0;
}

int pci_irq_vector(struct pci_dev *dev, unsigned int nr)
{
	return nr < dev->msix_nvec ? dev->msix_vectors[nr] : -EINVAL;
}

/* The device and table entry of vector irq, for request_irq's unmasking. */
static struct pci_dev *msix_owner(unsigned int irq, unsigned int *nr)
{
	for (struct pci_dev *dev = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, NULL); dev;
	     dev = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, dev))
		for (unsigned int i = 0; i < dev->msix_nvec; i++)
			if (dev->msix_vectors[i] == irq) {
				*nr = i;
				return dev;
			}
	return NULL;
}

int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags, const char *name,
		void *dev_id)
{
	(void)flags;
	if (irq > 255 || !handler)
		return -EINVAL;
	unsigned long f;
	spin_lock_irqsave(&vector_lock, f);
	struct irq_action *a = &irq_actions[irq];
	int err = !a->allocated ? -EINVAL : a->handler ? -EBUSY : 0;
	if (!err) {
		a->handler = handler;
		a->dev_id = dev_id;
		a->name = name;
	}
	spin_unlock_irqrestore(&vector_lock, f);
	unsigned int nr;
	struct pci_dev *dev = err ? NULL : msix_owner(irq, &nr);
	if (dev)
		msix_mask(dev, nr, false);
	return err;
}

void free_irq(unsigned int irq, void *dev_id)
{
	if (irq > 255)
		return;
	unsigned int nr;
	struct pci_dev *dev = msix_owner(irq, &nr);
	if (dev)
		msix_mask(dev, nr, true);
	unsigned long f;
	spin_lock_irqsave(&vector_lock, f);
	struct irq_action *a = &irq_actions[irq];
	if (a->allocated && a->dev_id == dev_id)
		a->handler = NULL, a->dev_id = NULL, a->name = NULL;
	spin_unlock_irqrestore(&vector_lock, f);
}
