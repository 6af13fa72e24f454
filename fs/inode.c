/* Inodes (Linux's fs/inode.c and fs/attr.c's core): the life of an inode
 * and its attributes. An inode is reference-counted (i_count): each
 * dentry bound to it and each open file holds one; the last iput evicts
 * it (the file system drops its pages, truncate_inode_pages) and frees
 * it. tmpfs keeps every linked inode alive through its dentries, so an
 * inode with no reference has no name either: it goes. */
#include "fs/fs.h"
#include "fs/dcache.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/slab.h"

struct timespec64 current_time(void)
{
	u64 ns = ktime_get_real_ns();
	return (struct timespec64){ (long long)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
}

struct inode *new_inode(struct super_block *sb)
{
	struct inode *inode = sb->s_op && sb->s_op->alloc_inode ? sb->s_op->alloc_inode(sb)
								  : kzalloc(sizeof(*inode), GFP_KERNEL);
	if (!inode)
		return NULL;
	inode->i_sb = sb;
	inode->i_count = 1;
	inode->i_nlink = 1;
	inode->i_ino = __atomic_fetch_add(&sb->s_next_ino, 1, __ATOMIC_RELAXED);
	init_rwsem(&inode->i_rwsem);
	address_space_init(&inode->i_data, inode);
	inode->i_mapping = &inode->i_data;
	inode->i_atime = inode->i_mtime = inode->i_ctime = current_time();
	__atomic_add_fetch(&sb->s_inodes, 1, __ATOMIC_RELAXED);
	return inode;
}

void ihold(struct inode *inode)
{
	__atomic_add_fetch(&inode->i_count, 1, __ATOMIC_RELAXED);
}

void iput(struct inode *inode)
{
	if (!inode)
		return;
	long left = __atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL);
	if (left < 0)
		panic("BUG: iput of a free inode %lu", inode->i_ino);
	if (left)
		return;
	struct super_block *sb = inode->i_sb;
	if (sb->s_op && sb->s_op->evict_inode)
		sb->s_op->evict_inode(inode);
	else
		truncate_inode_pages(inode->i_mapping, 0);
	kfree(inode->i_link);
	/* Its pages are gone; whoever reached its address_space from one
	 * of them (compaction: page_mapping_get) lets go before it is
	 * freed (Linux frees an inode after an RCU grace period). */
	mapping_free_barrier();
	__atomic_sub_fetch(&sb->s_inodes, 1, __ATOMIC_RELAXED);
	if (sb->s_op && sb->s_op->free_inode)
		sb->s_op->free_inode(inode);
	else
		kfree(inode);
}

/* Every process is root: the owner is root, and a directory's set-group-ID
 * bit passes to what is made in it (Linux's inode_init_owner). */
void inode_init_owner(struct inode *inode, const struct inode *dir, umode_t mode)
{
	inode->i_uid = 0;
	inode->i_gid = dir && (dir->i_mode & S_ISGID) ? dir->i_gid : 0;
	if (dir && (dir->i_mode & S_ISGID) && S_ISDIR(mode))
		mode |= S_ISGID;
	inode->i_mode = mode;
}

void inc_nlink(struct inode *inode) { inode->i_nlink++; }
void drop_nlink(struct inode *inode) { inode->i_nlink--; }
void clear_nlink(struct inode *inode) { inode->i_nlink = 0; }
void set_nlink(struct inode *inode, unsigned int n) { inode->i_nlink = n; }

void generic_fillattr(struct inode *inode, struct kstat *stat)
{
	memset(stat, 0, sizeof(*stat));
	stat->dev = inode->i_sb->s_dev;
	stat->ino = inode->i_ino;
	stat->mode = inode->i_mode;
	stat->nlink = inode->i_nlink;
	stat->uid = inode->i_uid;
	stat->gid = inode->i_gid;
	stat->rdev = inode->i_rdev;
	stat->size = inode->i_size;
	stat->atime = inode->i_atime;
	stat->mtime = inode->i_mtime;
	stat->ctime = inode->i_ctime;
	stat->blksize = (long)inode->i_sb->s_blocksize;
	stat->blocks = inode->i_blocks;
}

int vfs_getattr(const struct path *path, struct kstat *stat)
{
	struct inode *inode = path->dentry->d_inode;
	if (inode->i_op && inode->i_op->getattr)
		return inode->i_op->getattr(path, stat);
	down_read(&inode->i_rwsem);
	generic_fillattr(inode, stat);
	up_read(&inode->i_rwsem);
	return 0;
}

/* Linux's notify_change: setattr_prepare's checks (root passes the
 * permission ones), then the file system's setattr, or the simple copy. */
int notify_change(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	if ((attr->ia_valid & ATTR_SIZE) && !S_ISREG(inode->i_mode))
		return S_ISDIR(inode->i_mode) ? -EISDIR : -EINVAL;
	attr->ia_valid |= ATTR_CTIME;
	attr->ia_ctime = current_time();
	if (inode->i_op && inode->i_op->setattr)
		return inode->i_op->setattr(dentry, attr);
	return -EPERM;
}
