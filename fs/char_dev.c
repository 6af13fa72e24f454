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

const struct file_operations *chrdev_lookup(unsigned int major, unsigned int minor)
{
	if (major >= (1u << 12) || minor > MINORMASK)
		return NULL;
	spin_lock(&chrdevs_lock);
	struct char_device *cd = find_locked(MKDEV(major, minor));
	const struct file_operations *fops = cd ? cd->fops : NULL;
	spin_unlock(&chrdevs_lock);
	return fops;
}

int chrdev_open(struct inode *inode, struct file *f)
{
	const struct file_operations *fops = chrdev_lookup(MAJOR(inode->i_rdev), MINOR(inode->i_rdev));
	if (!fops)
		return -ENXIO;
	f->f_op = fops;
	return fops->open ? fops->open(inode, f) : 0;
}

const struct file_operations def_chr_fops = { .open = chrdev_open };
