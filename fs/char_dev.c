/* Character devices by number (Linux's fs/char_dev.c, reduced): a small
 * table from (major, minor) to file_operations, filled by drivers at boot
 * (drivers/char/mem.c: /dev/null, zero, full, random, urandom) and read
 * when a device node is opened. Linux registers ranges of minors with a
 * struct cdev each and finds them through a kobj_map; one entry per
 * minor is all the few devices here need.
 *
 * Invariant: a (major, minor) is in the table at most once, and a
 * registered fops outlives every file opened with it (drivers register
 * static tables and unregister only in tests, after closing their files).
 *
 * Concurrency: chrdevs_lock guards the table; a lookup holds it only to
 * read one entry. */
#include "fs/char_dev.h"
#include "kernel/spinlock.h"

#define CHRDEV_TABLE_SIZE 32

static struct chrdev {
	unsigned int major, minor;
	const struct file_operations *fops; /* NULL: a free slot */
} chrdevs[CHRDEV_TABLE_SIZE];
static DEFINE_SPINLOCK(chrdevs_lock);

static struct chrdev *find_locked(unsigned int major, unsigned int minor)
{
	for (unsigned int i = 0; i < CHRDEV_TABLE_SIZE; i++)
		if (chrdevs[i].fops && chrdevs[i].major == major && chrdevs[i].minor == minor)
			return &chrdevs[i];
	return NULL;
}

int register_chrdev_fops(unsigned int major, unsigned int minor, const struct file_operations *fops)
{
	if (!fops || major >= (1u << (32 - MINORBITS)) || minor > MINORMASK)
		return -EINVAL;
	int ret = -ENOSPC;
	spin_lock(&chrdevs_lock);
	if (find_locked(major, minor)) {
		ret = -EBUSY;
	} else {
		for (unsigned int i = 0; i < CHRDEV_TABLE_SIZE; i++)
			if (!chrdevs[i].fops) {
				chrdevs[i] = (struct chrdev){ major, minor, fops };
				ret = 0;
				break;
			}
	}
	spin_unlock(&chrdevs_lock);
	return ret;
}

void unregister_chrdev_fops(unsigned int major, unsigned int minor)
{
	spin_lock(&chrdevs_lock);
	struct chrdev *d = find_locked(major, minor);
	if (d)
		d->fops = NULL;
	spin_unlock(&chrdevs_lock);
}

const struct file_operations *chrdev_lookup(unsigned int major, unsigned int minor)
{
	spin_lock(&chrdevs_lock);
	struct chrdev *d = find_locked(major, minor);
	const struct file_operations *fops = d ? d->fops : NULL;
	spin_unlock(&chrdevs_lock);
	return fops;
}

int chrdev_open(struct file *f, unsigned int major, unsigned int minor)
{
	const struct file_operations *fops = chrdev_lookup(major, minor);
	if (!fops)
		return -ENXIO;
	f->f_op = fops;
	return 0;
}
