/* What the two halves of hugetlbfs share (fs/hugetlbfs/super.c makes
 * inodes, fs/hugetlbfs/inode.c gives them their methods and pages). */
#ifndef FS_HUGETLBFS_INTERNAL_H
#define FS_HUGETLBFS_INTERNAL_H

#include "fs/fs.h"

/* The end of every file: offsets [start, HUGETLBFS_END) are "to the end". */
#define HUGETLBFS_END 0x7fffffffffffffffl

/* A new inode's methods (a device node's dev), and a regular file's
 * region map and mutex; false when memory is short (the inode is then
 * evicted). */
bool hugetlbfs_init_inode(struct inode *inode, umode_t mode, dev_t dev);
/* The last reference went: its pages and reservations back, the
 * instance's inode count too. */
void hugetlbfs_evict_inode(struct inode *inode);
/* A SysV segment's file (Linux's S_PRIVATE): reserved at shmget, so its
 * mappings reserve nothing. */
void hugetlbfs_set_shm_inode(struct inode *inode);

#endif
