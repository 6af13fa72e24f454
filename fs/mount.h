/* Mounts (Linux's fs/mount.h and include/linux/mount.h): a vfsmount puts
 * a file system's tree (mnt_sb, from mnt_root) at a dentry of another
 * (mnt_mountpoint in mnt_parent), or is the root of everything.
 *
 * The boot makes tmpfs "/", procfs /proc and sysfs /sys
 * (init_mount_tree); mount(2) adds tmpfs, proc and sysfs instances and
 * bind mounts anywhere, umount2(2) takes them away (fs/namespace.c).
 * procfs and sysfs are file systems whose files the kernel generates
 * (sb->s_generated_root): the path walk hands the rest of a path below
 * their mount points to fs/proc/generic.c, so they have no dentries
 * (mnt_root is NULL).
 *
 * References (Linux's): mnt_count counts the mount table's own (from
 * the mount until umount), one per mount on top of it (its children),
 * and one per struct path that holds it (open files, working
 * directories, a lookup in progress). umount refuses a mount with more
 * than the table's and the caller's (-EBUSY); MNT_DETACH takes it out of
 * the table at once and the last mntput frees it, and its super block
 * goes with its last mount (s_active): every file, page and inode of a
 * tmpfs comes back then.
 *
 * Locking: mount_lock (a mutex) guards the table, mnt_parent,
 * mnt_mountpoint, mnt_flags and every s_active; it is never held across
 * a dput or the freeing of a mount (dcache_lock nests inside it). */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include "fs/fs.h"
#include "kernel/mutex.h"
#include "lib/list.h"

/* Per-mount flags (Linux's MNT_*). */
#define MNT_NOSUID 0x01
#define MNT_NODEV 0x02
#define MNT_NOEXEC 0x04
#define MNT_NOATIME 0x08
#define MNT_NODIRATIME 0x10
#define MNT_RELATIME 0x20
#define MNT_READONLY 0x40
#define MNT_NOSYMFOLLOW 0x80
#define MNT_ATIME_MASK (MNT_NOATIME | MNT_NODIRATIME | MNT_RELATIME)
#define MNT_USER_SETTABLE_MASK (MNT_NOSUID | MNT_NODEV | MNT_NOEXEC | MNT_ATIME_MASK | MNT_READONLY | MNT_NOSYMFOLLOW)

/* mount(2)'s flags (Linux's uapi/linux/mount.h). */
#define MS_RDONLY 1ul
#define MS_NOSUID 2ul
#define MS_NODEV 4ul
#define MS_NOEXEC 8ul
#define MS_SYNCHRONOUS 16ul
#define MS_REMOUNT 32ul
#define MS_MANDLOCK 64ul
#define MS_DIRSYNC 128ul
#define MS_NOSYMFOLLOW 256ul
#define MS_NOATIME 1024ul
#define MS_NODIRATIME 2048ul
#define MS_BIND 4096ul
#define MS_MOVE 8192ul
#define MS_REC 16384ul
#define MS_SILENT 32768ul
#define MS_POSIXACL (1ul << 16)
#define MS_UNBINDABLE (1ul << 17)
#define MS_PRIVATE (1ul << 18)
#define MS_SLAVE (1ul << 19)
#define MS_SHARED (1ul << 20)
#define MS_RELATIME (1ul << 21)
#define MS_KERNMOUNT (1ul << 22)
#define MS_I_VERSION (1ul << 23)
#define MS_STRICTATIME (1ul << 24)
#define MS_LAZYTIME (1ul << 25)
#define MS_NOUSER (1ul << 31)
#define MS_MGC_VAL 0xC0ED0000ul
#define MS_MGC_MSK 0xffff0000ul

/* umount2(2)'s flags. */
#define MNT_FORCE 1
#define MNT_DETACH 2
#define MNT_EXPIRE 4
#define UMOUNT_NOFOLLOW 8

struct vfsmount {
	struct dentry *mnt_root;       /* NULL for a generated file system */
	struct super_block *mnt_sb;
	struct dentry *mnt_mountpoint; /* NULL for the root mount and a detached one */
	struct vfsmount *mnt_parent;   /* itself for the root mount and a detached one */
	long mnt_count;                /* references (atomic) */
	int mnt_flags;                 /* MNT_* */
	int mnt_id;                    /* mountinfo's first field */
	bool mnt_attached;             /* in the mount table (until umount) */
	bool mnt_expiry_mark;          /* MNT_EXPIRE asked once */
	long mnt_writers;              /* files open for writing on it (taken under mount_lock) */
	char *mnt_devname;             /* /proc/mounts's first field (kmalloc'd) */
	struct list_head mnt_list;     /* in the mount table, in mount order */
};

extern struct mutex mount_lock;
/* The mount table, oldest first (fs/proc_namespace.c walks it under mount_lock). */
extern struct list_head mount_table;

/* The root: tmpfs's mount and root dentry (fs_struct's of every process
 * that did not chroot). */
extern struct path init_root;

struct vfsmount *mntget(struct vfsmount *mnt);
/* Drops a reference; the last one of a mount no longer in the table
 * frees it (and its super block with its last mount). */
void mntput(struct vfsmount *mnt);
/* The mount on path's dentry in path's mount, with a reference (mntput
 * it), or NULL. */
struct vfsmount *lookup_mnt(const struct path *path);
/* A generated file system a normalised path of its names is in (no
 * reference: the first such mount in the table). */
struct vfsmount *generated_mount(const char *path);
/* The procfs or sysfs mount a file of theirs was opened in (the file
 * holds it), else the first one its path is in (no reference); NULL. */
struct vfsmount *file_generated_mount(const struct file *f);
/* Whether a mount stands over dentry in mnt (Linux's d_mountpoint). */
bool d_mountpoint(const struct dentry *dentry);
/* Linux's __mnt_is_readonly: the mount or its super block is read-only. */
bool __mnt_is_readonly(const struct vfsmount *mnt);
/* Linux's mnt_want_write for one change (no count kept: the change is
 * made at once): 0, or -EROFS on a read-only mount. */
int mnt_want_write(const struct vfsmount *mnt);
/* Linux's mnt_get_write_access / mnt_put_write_access, for a file open
 * for writing (FMODE_WRITER): -EROFS on a read-only mount; while any is
 * held, the mount and its super block cannot become read-only (-EBUSY). */
int mnt_get_write_access(struct vfsmount *mnt);
void mnt_put_write_access(struct vfsmount *mnt);
/* Whether a file is open for writing on sb (any of its mounts) or, with
 * sb NULL, on mnt; mount_lock held. */
bool mnt_writers_locked(const struct super_block *sb, const struct vfsmount *mnt);

/* Boot: the tmpfs root and its first directories (/proc, /sys, /bin,
 * /tmp); then, once the initramfs is unpacked (fs/bin.h), the mounts of
 * procfs and sysfs on /proc and /sys. /dev is the initramfs's, with its
 * device nodes (so that a program's open("/dev/zero", O_CREAT) never
 * leaves a regular file where no device is). */
void init_mount_tree(void);
void mount_proc_and_sysfs(void);

/* Linux's path_mount and path_umount on kernel strings (mount(2) and
 * umount2(2) copy theirs in): 0 or Linux's errno. dir is looked up from
 * the caller's working directory. */
int do_mount(const char *dev_name, const char *dir_name, const char *type, unsigned long flags, char *data);
int do_umount_path(const char *name, int flags);

/* Inside fs/: a mount of sb from root (not yet in the table) with one
 * reference, or an ERR_PTR; a new instance of type made from the data
 * string as a mount (Linux's vfs_kern_mount); graft_tree puts a mount
 * on mp (0 or -ENOTDIR), and umount_mnt takes it away (-EBUSY when it
 * has more than refs references, unless lazy). */
struct file_system_type;
struct vfsmount *vfs_create_mount(struct super_block *sb, struct dentry *root, const char *devname, int mnt_flags);
struct vfsmount *vfs_kern_mount(const struct file_system_type *type, unsigned int sb_flags, int mnt_flags,
				const char *devname, char *data);
int graft_tree(struct vfsmount *mnt, const struct path *mp);
/* Linux's clone_mnt: a new mount of old's super block from root, with
 * old's flags and device name (not yet in the table); an ERR_PTR. */
struct vfsmount *clone_mnt(struct vfsmount *old, struct dentry *root);
/* Linux's copy_tree for MS_BIND | MS_REC: every mount below from whose
 * place is under root, copied onto top (from's copy from root) at the
 * same places. 0 or -ENOMEM (what was copied stays, below top). */
int copy_submounts(struct vfsmount *from, struct dentry *root, struct vfsmount *top);
int umount_mnt(struct vfsmount *mnt, bool lazy, long refs);

/* fs/super.c: a new super_block of type (its s_dev an unnamed device,
 * Linux's get_anon_bdev: major 0), with s_active 1. */
struct super_block *alloc_super(const struct file_system_type *type, const struct super_operations *ops,
				unsigned long magic);
/* A mount of sb went: the last one kills it (its type's kill_sb). */
void deactivate_super(struct super_block *sb);
/* The super block's memory, after the type's kill_sb emptied it. */
void free_super(struct super_block *sb);
/* statfs of a file system without blocks of its own (Linux's simple_statfs). */
int simple_statfs(struct dentry *dentry, struct kstatfs *buf);
/* Linux's vfs_statfs: the file system's figures and the mount's ST_* flags. */
int vfs_statfs(const struct path *path, struct kstatfs *buf);

#define TMPFS_MAGIC 0x01021994
#define PROC_SUPER_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572

#endif
