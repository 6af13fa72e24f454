/* Character devices (Linux's fs/char_dev.c): fs/char_dev.h. The table is
 * a short list under a spinlock: registrations happen at boot, lookups at
 * each open of a device node. */
#include "fs/char_dev.h"
#include "kernel/spinlock.h"
#include "mm/slab.h"

struct char_device {
	struct list_head list;
	dev_t dev;
	const struct file_operations *fops;
};

static LIST_HEAD(chrdevs);
static DEFINE_SPINLOCK(chrdevs_lock);

static struct char_device *find_locked(dev_t dev)
{
	for (struct list_head *p = chrdevs.next; p != &chrdevs; p = p->next) {
		struct char_device *cd = container_of(p, struct char_device, list);
		if (cd->dev == dev)
			return cd;
	}
	return NULL;
}

int register_chrdev_fops(unsigned int major, unsigned int minor, const struct file_operations *fops)
{
	if (major >= (1u << 12) || minor > MINORMASK || !fops)
		return -EINVAL;
	struct char_device *cd = kmalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	cd->dev = MKDEV(major, minor);
	cd->fops = fops;
	spin_lock(&chrdevs_lock);
	bool taken = find_locked(cd->dev) != NULL;
	if (!taken)
		list_add_tail(&cd->list, &chrdevs);
	spin_unlock(&chrdevs_lock);
	if (taken) {
		kfree(cd);
		return -EBUSY;
	}
	return 0;
}

void unregister_chrdev_fops(unsigned int major, unsigned int minor)
{
	spin_lock(&chrdevs_lock);
	struct char_device *cd = find_locked(MKDEV(major, minor));
	if (cd)
		list_del(&cd->list);
	spin_unlock(&chrdevs_lock);
	kfree(cd);
}

/* Weak: a driver layer may supply its own chrdev_open (the device nodes
 * of /dev), which then replaces this table's lookup at link time. */
__attribute__((weak)) int chrdev_open(struct inode *inode, struct file *f)
{
	spin_lock(&chrdevs_lock);
	struct char_device *cd = find_locked(inode->i_rdev);
	const struct file_operations *fops = cd ? cd->fops : NULL;
	spin_unlock(&chrdevs_lock);
	if (!fops)
		return -ENXIO;
	f->f_op = fops;
	return fops->open ? fops->open(inode, f) : 0;
}

const struct file_operations def_chr_fops = { .open = chrdev_open };
