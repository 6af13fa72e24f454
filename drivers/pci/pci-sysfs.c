/* /sys/bus/pci/devices/<domain:bus:dev.fn>/ (Linux's drivers/pci/pci-sysfs.c):
 * each function's ids as the scan read them, in Linux's formats (vendor,
 * device, subsystem_vendor, subsystem_device "0x%04x", class "0x%06x",
 * revision "0x%02x"). Linux's entries are symbolic links into
 * /sys/devices/pci0000:00/; mmlab's are the directories themselves. The
 * device list never changes after the boot scan, so an index names one
 * device for ever. */
#include "drivers/pci/pci.h"
#include "fs/proc/proc_fs.h"
#include "lib/string.h"

static const struct proc_dir_entry sys_bus_dir __proc_entry = {
	.parent = &sys_dir, .name = "bus", .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry sys_bus_pci_dir __proc_entry = {
	.parent = &sys_bus_dir, .name = "pci", .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry sys_bus_pci_devices_dir __proc_entry = {
	.parent = &sys_bus_pci_dir, .name = "devices", .mode = S_IFDIR | 0555,
};

static bool pci_dev_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	struct pci_dev *d;
	char name[13];
	for (unsigned int i = 0; (d = pci_dev_nth(i)); i++)
		if (len == 12 && !memcmp(pci_name(d, name), s, len)) {
			node->pci = (int)i;
			return true;
		}
	return false;
}

static bool pci_dev_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	(void)task;
	struct pci_dev *d = pci_dev_nth(i);
	char n[13];
	if (d)
		strlcpy(name, pci_name(d, n), size);
	return d != NULL;
}

static const struct proc_dir_entry pci_dev_dir __proc_entry = {
	.parent = &sys_bus_pci_devices_dir, .match = pci_dev_match, .list = pci_dev_list,
	.mode = S_IFDIR | 0555,
};

#define PCI_ID_FILE(field, fmt)                                                          \
	static void field##_show(struct seq_buf *m, const struct proc_node *node)       \
	{                                                                                \
		seq_buf_printf(m, fmt "\n", pci_dev_nth((unsigned int)node->pci)->field); \
	}                                                                                \
	PROC_FILE(field##_file, pci_dev_dir, #field, field##_show)
PCI_ID_FILE(vendor, "0x%04x");
PCI_ID_FILE(device, "0x%04x");
PCI_ID_FILE(subsystem_vendor, "0x%04x");
PCI_ID_FILE(subsystem_device, "0x%04x");
PCI_ID_FILE(class, "0x%06x");
PCI_ID_FILE(revision, "0x%02x");
