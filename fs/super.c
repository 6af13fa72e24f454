/* File system instances (Linux's fs/super.c): a super_block per mounted
 * file system, made at boot and never destroyed (mmlab never unmounts),
 * each with an unnamed device number (major 0) for stat's st_dev. */
#include "fs/mount.h"
#include "fs/dcache.h"
#include "lib/string.h"
#include "mm/slab.h"

static unsigned int next_anon_minor = 16;

struct super_block *alloc_super(const char *type, const struct super_operations *ops, unsigned long magic)
{
	struct super_block *sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return NULL;
	sb->s_type = type;
	sb->s_op = ops;
	sb->s_magic = magic;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_next_ino = 1;
	sb->s_dev = MKDEV(0u, __atomic_fetch_add(&next_anon_minor, 1, __ATOMIC_RELAXED));
	return sb;
}

int simple_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->f_type = (long)dentry->d_sb->s_magic;
	buf->f_bsize = (long)dentry->d_sb->s_blocksize;
	buf->f_namelen = NAME_MAX;
	return 0;
}

/* A generated file system (procfs, sysfs) has no dentries: its statfs
 * is its magic number, as Linux's simple_statfs gives. */
int vfs_statfs(const struct path *path, struct kstatfs *buf)
{
	struct super_block *sb = path->mnt->mnt_sb;
	if (!path->dentry || path->dentry->d_sb != sb || !sb->s_op || !sb->s_op->statfs) {
		memset(buf, 0, sizeof(*buf));
		buf->f_type = (long)sb->s_magic;
		buf->f_bsize = (long)sb->s_blocksize;
		buf->f_namelen = NAME_MAX;
	} else {
		int err = sb->s_op->statfs(path->dentry, buf);
		if (err)
			return err;
	}
	buf->f_frsize = buf->f_frsize ? buf->f_frsize : buf->f_bsize;
	return 0;
}
