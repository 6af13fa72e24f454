/* File system instances (Linux's fs/super.c): a super_block per mounted
 * file system, made by its type's get_tree and killed with its last
 * mount (s_active, under mount_lock), each with an unnamed device number
 * (major 0) for stat's st_dev and mountinfo's major:minor. */
#include "fs/mount.h"
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "lib/string.h"
#include "mm/slab.h"

static unsigned int next_anon_minor = 16;

struct super_block *alloc_super(const struct file_system_type *type, const struct super_operations *ops,
				unsigned long magic)
{
	struct super_block *sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return NULL;
	sb->s_fs_type = type;
	sb->s_type = type->name;
	sb->s_op = ops;
	sb->s_magic = magic;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_next_ino = 1;
	sb->s_active = 1;
	/* Linux's get_anon_bdev gives back a minor when its instance goes;
	 * mmlab counts on (2^20 minors are more than a run mounts). */
	sb->s_dev = MKDEV(0u, __atomic_fetch_add(&next_anon_minor, 1, __ATOMIC_RELAXED));
	return sb;
}

void deactivate_super(struct super_block *sb)
{
	mutex_lock(&mount_lock);
	bool last = --sb->s_active == 0;
	mutex_unlock(&mount_lock);
	if (last)
		sb->s_fs_type->kill_sb(sb);
}

void free_super(struct super_block *sb)
{
	kfree(sb);
}

int simple_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->f_type = (long)dentry->d_sb->s_magic;
	buf->f_bsize = (long)dentry->d_sb->s_blocksize;
	buf->f_namelen = NAME_MAX;
	return 0;
}

/* statfs's f_flags (Linux's ST_*). */
#define ST_RDONLY 0x0001
#define ST_NOSUID 0x0002
#define ST_NODEV 0x0004
#define ST_NOEXEC 0x0008
#define ST_SYNCHRONOUS 0x0010
#define ST_VALID 0x0020
#define ST_MANDLOCK 0x0040
#define ST_NOATIME 0x0400
#define ST_NODIRATIME 0x0800
#define ST_RELATIME 0x1000
#define ST_NOSYMFOLLOW 0x2000

/* Linux's calculate_f_flags: the mount's flags and the super block's. */
static long calculate_f_flags(const struct vfsmount *mnt)
{
	static const struct { int mnt; long st; } by_mnt[] = {
		{ MNT_READONLY, ST_RDONLY }, { MNT_NOSUID, ST_NOSUID }, { MNT_NODEV, ST_NODEV },
		{ MNT_NOEXEC, ST_NOEXEC }, { MNT_NOATIME, ST_NOATIME }, { MNT_NODIRATIME, ST_NODIRATIME },
		{ MNT_RELATIME, ST_RELATIME }, { MNT_NOSYMFOLLOW, ST_NOSYMFOLLOW },
	};
	long f = ST_VALID;
	for (size_t i = 0; i < ARRAY_SIZE(by_mnt); i++)
		if (mnt->mnt_flags & by_mnt[i].mnt)
			f |= by_mnt[i].st;
	unsigned int sb = mnt->mnt_sb->s_flags;
	if (sb & SB_RDONLY)
		f |= ST_RDONLY;
	if (sb & SB_SYNCHRONOUS)
		f |= ST_SYNCHRONOUS;
	if (sb & SB_MANDLOCK)
		f |= ST_MANDLOCK;
	return f;
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
	buf->f_flags = calculate_f_flags(path->mnt);
	return 0;
}
