/* A tmpfs instance's limits and options (Linux's include/linux/shmem_fs.h
 * struct shmem_sb_info, kept in sb->s_fs_info; mm/shmem_super.c parses
 * and shows them, mm/shmem.c charges its pages and inodes to them).
 *
 * Counting (Linux's): used_blocks is every page in the instance's files;
 * a page is charged before it is allocated (shmem_inode_acct_block:
 * -ENOSPC past max_blocks) and given back when it leaves the page cache.
 * free_inodes is what is left of max_inodes: each inode takes one, and
 * each extra hard link of a file one more. A limit of 0 is no limit.
 *
 * Locking: stat_lock guards free_inodes, the limits and mpol;
 * used_blocks is atomic. */
#ifndef MM_SHMEM_FS_H
#define MM_SHMEM_FS_H

#include "fs/fs.h"
#include "kernel/spinlock.h"

/* huge= values (Linux's SHMEM_HUGE_*). */
#define SHMEM_HUGE_NEVER 0
#define SHMEM_HUGE_ALWAYS 1
#define SHMEM_HUGE_WITHIN_SIZE 2
#define SHMEM_HUGE_ADVISE 3

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

/* mm/shmem.c: a new inode of sb (its root when dir is NULL), NULL when
 * memory or nr_inodes= is short; the last iput evicts one. */
struct inode *shmem_get_inode(struct super_block *sb, const struct inode *dir, umode_t mode, dev_t dev);
void shmem_evict_inode(struct inode *inode);

#endif
