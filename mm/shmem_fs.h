/* tmpfs seen from the rest of the kernel (Linux's include/linux/shmem_fs.h):
 * its inodes, the files the kernel makes for itself on its internal
 * instance (mm/shmem_file.c: memfd_create's), and /dev/zero's shared
 * mappings. Kept apart from mm/shmem.h, which portable code (the host
 * tests of mm/vma.c) includes without the VFS's types. */
#ifndef MM_SHMEM_FS_H
#define MM_SHMEM_FS_H

#include "fs/fs.h"

/* A new tmpfs inode of sb (one reference), its methods by mode's type,
 * sealed against seals (F_SEAL_SEAL); NULL when memory is short. */
struct inode *shmem_get_inode(struct super_block *sb, const struct inode *dir, umode_t mode, dev_t dev);
/* Whether file is a tmpfs regular file (Linux's shmem_file). */
bool shmem_file(const struct file *file);

/* mm/shmem_file.c: Linux's shmem_file_setup: an unlinked tmpfs file of
 * size bytes on the kernel's internal tmpfs (shm_mnt, in no mount
 * table), opened O_RDWR | O_LARGEFILE, its dentry named name (never
 * hashed: d_path shows "/name (deleted)"); or an ERR_PTR (-ENOMEM,
 * -ENOSPC). Its pages are charged to no commit, as with VM_NORESERVE. */
struct file *shmem_file_setup(const char *name, long size);
/* The superblock of shm_mnt (tests count its inodes). */
struct super_block *shmem_internal_sb(void);
/* Linux's shmem_zero_setup for a MAP_SHARED mapping of /dev/zero: vma
 * (made with the device's file) becomes shared anonymous memory, a new
 * shmem object of its length (charged unless VM_NORESERVE), and lets go
 * of the device's file. 0 or -ENOMEM. */
int shmem_zero_setup(struct vm_area_struct *vma);

#endif
