/* Character devices by number (Linux's fs/char_dev.c, reduced to what a
 * device node needs): a driver registers the file_operations of one
 * (major, minor), and opening a node of that number gives a file with
 * them (chrdev_open), as Linux's chrdev_open replaces the node's f_op
 * with its cdev's. */
#ifndef FS_CHAR_DEV_H
#define FS_CHAR_DEV_H

#include "fs/fs.h"

/* Linux's MKDEV/MAJOR/MINOR for the kernel's dev_t (major in the top 12
 * bits of 32, minor in the low 20). */
#define MINORBITS 20
#define MINORMASK ((1u << MINORBITS) - 1)
#define MAJOR(dev) ((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev) ((unsigned int)((dev) & MINORMASK))
#define MKDEV(ma, mi) (((ma) << MINORBITS) | (mi))

/* Registers fops (static, never freed) for (major, minor): 0, -EINVAL
 * (a number past 12/20 bits, or no fops), -EBUSY (already taken, as
 * Linux's __register_chrdev_region) or -ENOSPC (the table is full). */
int register_chrdev_fops(unsigned int major, unsigned int minor, const struct file_operations *fops);
/* Takes a registration away again (tests); nothing if there is none. */
void unregister_chrdev_fops(unsigned int major, unsigned int minor);
/* The fops registered for (major, minor), or NULL. */
const struct file_operations *chrdev_lookup(unsigned int major, unsigned int minor);
/* Linux's chrdev_open for a struct file being opened on a device node:
 * gives f the device's fops and returns 0, or -ENXIO when no driver has
 * the number (open(2) of such a node fails so in Linux). */
int chrdev_open(struct file *f, unsigned int major, unsigned int minor);

#endif
