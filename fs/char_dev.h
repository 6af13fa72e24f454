/* Character devices (Linux's fs/char_dev.c): a device node's inode
 * (S_IFCHR, i_rdev) opens through def_chr_fops, whose open, chrdev_open,
 * finds the driver registered for the device number and hands the file
 * to its methods. mmlab registers single devices by (major, minor) rather
 * than Linux's ranges of minors (cdev_add): enough for /dev/null and its
 * kind. */
#ifndef FS_CHAR_DEV_H
#define FS_CHAR_DEV_H

#include "fs/fs.h"

/* The methods of device MKDEV(major, minor): 0, -EBUSY (taken), -ENOMEM,
 * -EINVAL (a number out of range). fops must live as long as the kernel. */
int register_chrdev_fops(unsigned int major, unsigned int minor, const struct file_operations *fops);
void unregister_chrdev_fops(unsigned int major, unsigned int minor);
/* The methods registered for MKDEV(major, minor), or NULL. */
const struct file_operations *chrdev_lookup(unsigned int major, unsigned int minor);
/* Open of a character device node: f->f_op becomes the driver's and its
 * open runs; -ENXIO for a number no driver has, as Linux's. */
int chrdev_open(struct inode *inode, struct file *f);

extern const struct file_operations def_chr_fops;

#endif
