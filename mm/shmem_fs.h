/* tmpfs seen from the rest of the kernel (Linux's include/linux/shmem_fs.h):
 * its inodes, the files the kernel makes for itself on its internal
 * instance (mm/shmem_file.c: memfd_create's), /dev/zero's shared
 * mappings, and an instance's limits and options (struct shmem_sb_info,
 * in sb->s_fs_info; mm/shmem_super.c parses and shows them, mm/shmem.c
 * charges its pages and inodes to them). Kept apart from mm/shmem.h,
 * which portable code (the host tests of mm/vma.c) includes without the
 * VFS's types.
 *
 * Counting (Linux's): used_blocks is every page in the instance's files;
 * a page is charged before it is allocated (shmem_inode_acct_block:
 * -ENOSPC past max_blocks) and given back when it leaves the page cache.
 * free_inodes is what is left of max_inodes: each inode takes one, and
 * each extra hard link of a file one more. A limit of 0 is no limit (the
 * kernel's internal instance has none, as Linux's SB_KERNMOUNT).
 *
 * Locking: stat_lock guards free_inodes, the limits and mpol;
 * used_blocks is atomic. */
#ifndef MM_SHMEM_FS_H
#define MM_SHMEM_FS_H

#include "fs/fs.h"
#include "kernel/spinlock.h"

#include "mm/shmem.h" /* huge= values: SHMEM_HUGE_* */

struct shmem_sb_info {
	unsigned long max_blocks;  /* pages; 0: no limit */
	long used_blocks;          /* atomic */
	unsigned long max_inodes;  /* 0: no limit */
	unsigned long free_inodes;
	spinlock_t stat_lock;
	umode_t mode;              /* of the root directory */
	unsigned int uid, gid;     /* of the root directory */
	unsigned char huge;        /* SHMEM_HUGE_* */
	struct mempolicy *mpol;    /* new files' pages go by it (NULL: the default) */
};

static inline struct shmem_sb_info *SHMEM_SB(struct super_block *sb) { return sb->s_fs_info; }

/* mm/shmem_super.c: 0 or -ENOSPC (the charge is taken). */
int shmem_inode_acct_block(struct inode *inode, long pages);
void shmem_inode_unacct_blocks(struct inode *inode, long pages);
int shmem_reserve_inode(struct super_block *sb);
void shmem_free_inode(struct super_block *sb);
/* A zeroed page for index of inode, charged to its instance's size=
 * first (*err -ENOSPC past it) and placed by the file's mpol= (Linux's
 * shmem_alloc_and_add_folio), or NULL with *err; shmem_free_unadded
 * gives back one that did not go into the page cache. */
struct page *shmem_alloc_page(struct inode *inode, unsigned long index, int *err);
void shmem_free_unadded(struct inode *inode, struct page *page);
/* The policy of the instance with a reference, for a new file (NULL: default). */
struct mempolicy *shmem_get_sbmpol(struct super_block *sb);

/* mm/shmem_huge.c. Linux's shmem_is_huge: may index of inode be part of
 * a huge page, faulted through vma (NULL: a write, fallocate, stat)?
 * Regular files only; never under VM_NOHUGEPAGE or PR_SET_THP_DISABLE,
 * nor with shmem_enabled deny; always with force (or force set); else
 * the instance's huge=: always; within_size when the whole 2 MiB the
 * index is in lies below i_size, or advise; advise when vma has
 * MADV_HUGEPAGE. */
struct vm_area_struct;
bool shmem_is_huge(struct vm_area_struct *vma, struct inode *inode, unsigned long index, bool force);
/* smaps' THPeligible for a mapping of a tmpfs file or of shared anonymous
 * memory (Linux's hugepage_vma_check -> shmem_huge_enabled): not
 * MADV_NOHUGEPAGE nor
 * PR_SET_THP_DISABLE, its last 2 MiB aligned with the file's offsets,
 * and shmem_is_huge at its first offset. */
bool shmem_vma_eligible(struct vm_area_struct *vma);
/* The huge page for index: 512 zeroed pages at the aligned indices
 * around it, charged to size= and placed by the file's policy, added to
 * the page cache; its head with the caller's reference. NULL (the caller
 * makes a small page, as Linux falls back) when a page is in that range
 * already, size= has no room for 512, no 2 MiB block is free
 * (thp_file_fallback) or a racing fault added one first. */
struct page *shmem_alloc_huge(struct inode *inode, unsigned long index);
/* The marks that make the 512 pages from head (an order-9 allocation)
 * one tmpfs huge page (PG_shmem_thp, PG_shmem_tail, the PMD counts),
 * counted in ShmemHugePages: shmem_alloc_huge's, and a collapse's
 * (mm/khugepaged_file.c) before it enters the page cache. */
void shmem_thp_prep(struct page *head);
/* Linux's shmem_charge and shmem_uncharge (mm/shmem.c): pages entered
 * (or left) inode's page cache without being allocated through it (a
 * collapse's holes): size= (-ENOSPC when no room), Shmem, i_blocks. */
int shmem_charge(struct inode *inode, long pages);
void shmem_uncharge(struct inode *inode, long pages);
/* Before the pages [*start, *end) leave the cache (i_rwsem held for
 * writing; *end ~0ul: to the end): a huge page across either end is
 * split, or, when it cannot be, keeps its pages, has the range's part
 * of it zeroed and is left out of the range. */
void shmem_huge_trim_range(struct inode *inode, unsigned long *start, unsigned long *end);

/* mm/shmem.c: a new inode of sb (one reference; its root when dir is
 * NULL), its methods by mode's type, sealed against seals (F_SEAL_SEAL);
 * NULL when memory or nr_inodes= is short. The last iput evicts one. */
struct inode *shmem_get_inode(struct super_block *sb, const struct inode *dir, umode_t mode, dev_t dev);
void shmem_evict_inode(struct inode *inode);

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
