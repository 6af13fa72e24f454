/* Mounts (Linux's fs/mount.h and include/linux/mount.h): a vfsmount puts
 * a file system's tree (mnt_sb, from mnt_root) at a dentry of another
 * (mnt_mountpoint in mnt_parent), or is the root of everything.
 *
 * mmlab's mount table is made at boot (init_mount_tree) and never
 * changes: tmpfs at "/", procfs at /proc, sysfs at /sys. procfs and
 * sysfs are file systems whose files the kernel generates
 * (sb->s_generated_root): the path walk hands the rest of a path below
 * their mount points to fs/proc/generic.c, so they have no dentries.
 * Nothing is ever unmounted, so a vfsmount is never freed: mntget and
 * mntput only count. */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include "fs/fs.h"
#include "lib/list.h"

struct vfsmount {
	struct dentry *mnt_root;       /* NULL for a generated file system */
	struct super_block *mnt_sb;
	struct dentry *mnt_mountpoint; /* NULL for the root mount */
	struct vfsmount *mnt_parent;   /* itself for the root mount */
	long mnt_count;                /* references (atomic) */
	const char *mnt_devname;       /* /proc/mounts's first field */
	struct list_head mnt_list;     /* in the mount table */
};

/* The root: tmpfs's mount and root dentry (fs_struct's of every process
 * that did not chroot). */
extern struct path init_root;

struct vfsmount *mntget(struct vfsmount *mnt);
void mntput(struct vfsmount *mnt);
/* The mount on a dentry that has DCACHE_MOUNTED (no reference taken:
 * mounts are never freed). */
struct vfsmount *lookup_mnt(const struct path *path);
/* The generated file system a normalised path of its names is in. */
struct vfsmount *generated_mount(const char *path);
/* Boot: the tmpfs root and its first directories (/proc, /sys, /bin,
 * /tmp); then, once the initramfs is unpacked (fs/bin.h), the mounts of
 * procfs and sysfs on /proc and /sys. /dev is the initramfs's, with its
 * device nodes (so that a program's open("/dev/zero", O_CREAT) never
 * leaves a regular file where no device is). */
void init_mount_tree(void);
void mount_proc_and_sysfs(void);

/* fs/super.c: a new super_block of type (its s_dev an unnamed device,
 * Linux's get_anon_bdev: major 0). */
struct super_block *alloc_super(const char *type, const struct super_operations *ops, unsigned long magic);
/* statfs of a file system without blocks of its own (Linux's simple_statfs). */
int simple_statfs(struct dentry *dentry, struct kstatfs *buf);
/* Linux's vfs_statfs. */
int vfs_statfs(const struct path *path, struct kstatfs *buf);

#define TMPFS_MAGIC 0x01021994
#define PROC_SUPER_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572

#endif
