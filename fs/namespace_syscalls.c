/* mount(2) and umount2(2) (Linux's fs/namespace.c: do_mount, path_mount,
 * do_new_mount, do_remount, do_reconfigure_mnt, do_loopback,
 * ksys_umount, can_umount, do_umount), with Linux's checks in Linux's
 * order. mmlab runs everything as root, so may_mount's -EPERM never
 * comes.
 *
 * Where mmlab stops short of Linux, the call says so with an errno:
 * - a mount point inside procfs or sysfs (they have no dentries to stand
 *   on), and a bind mount of one of their directories: -EINVAL;
 * - MS_MOVE and the propagation types but MS_PRIVATE (mmlab has one
 *   namespace and no peer groups: every mount is private already, which
 *   MS_PRIVATE then confirms): -EINVAL;
 * - umount of the process's root mount: Linux remounts it read-only
 *   (do_umount_root), -EBUSY while a file there is open for writing;
 *   mmlab's root holds every program and the kernel's own files, which
 *   a read-only root would break for the rest of the run, so it is
 *   always -EBUSY; MNT_DETACH of the root of the table: -EINVAL.
 * A mount or super block with a file open for writing on it cannot be
 * made read-only (-EBUSY, Linux's mnt_make_readonly and
 * sb_prepare_remount_readonly). */
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "fs/fs_struct.h"
#include "fs/internal.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

/* Where a lookup ended, as a mount and a dentry: for procfs and sysfs,
 * their mount and no dentry; *at_root when that is the mount's root. */
static void nd_mount_path(const struct nameidata *nd, struct path *p, bool *at_root)
{
	if (nd->generated) {
		p->mnt = nd->generated_mnt;
		p->dentry = NULL;
		*at_root = !strcmp(nd->generated, nd->generated_mnt->mnt_sb->s_generated_root);
	} else {
		*p = nd->path;
		*at_root = nd->path.dentry == nd->path.mnt->mnt_root;
	}
}

/* Linux's set_mount_attributes: the user's flags replaced, the rest
 * kept; with check_writers (Linux's change_mount_ro_state), -EBUSY
 * instead when it would become read-only under a file open for writing. */
static int set_mount_attributes(struct vfsmount *mnt, int mnt_flags, bool check_writers)
{
	int err = 0;
	mutex_lock(&mount_lock);
	if (check_writers && (mnt_flags & MNT_READONLY) && !(mnt->mnt_flags & MNT_READONLY) &&
	    mnt_writers_locked(NULL, mnt))
		err = -EBUSY;
	else
		mnt->mnt_flags = (mnt->mnt_flags & ~MNT_USER_SETTABLE_MASK) | mnt_flags;
	mutex_unlock(&mount_lock);
	return err;
}

/* Linux's reconfigure_super: no file open for writing when it becomes
 * read-only (mount_lock held throughout, so none opens meanwhile), the
 * type's reconfigure, then the SB_* flags. */
static int reconfigure_super(struct fs_context *fc)
{
	if (fc->sb_flags_mask & ~MS_RMT_MASK)
		return -EINVAL;
	struct super_block *sb = fc->sb;
	mutex_lock(&mount_lock);
	int err = 0;
	if ((fc->sb_flags & SB_RDONLY) && !(sb->s_flags & SB_RDONLY) && mnt_writers_locked(sb, NULL))
		err = -EBUSY;
	if (!err && fc->ops->reconfigure)
		err = fc->ops->reconfigure(fc);
	if (!err)
		sb->s_flags = (sb->s_flags & ~fc->sb_flags_mask) | (fc->sb_flags & fc->sb_flags_mask);
	mutex_unlock(&mount_lock);
	return err;
}

static int do_remount(const struct path *path, bool at_root, unsigned int sb_flags, int mnt_flags, char *data)
{
	if (!at_root)
		return -EINVAL;
	struct fs_context fc;
	int err = fs_context_for_reconfigure(&fc, path->mnt->mnt_sb, sb_flags, MS_RMT_MASK);
	if (!err)
		err = parse_monolithic_mount_data(&fc, data);
	if (!err)
		err = reconfigure_super(&fc);
	if (!err)
		set_mount_attributes(path->mnt, mnt_flags, false);
	put_fs_context(&fc);
	return err;
}

/* Linux's lock_mount: a directory removed cannot be mounted on. */
static int mountpoint_alive(const struct path *path)
{
	struct dentry *d = path->dentry;
	return d_unhashed(d) && d->d_parent != d ? -ENOENT : 0;
}

static int do_loopback(const struct path *path, const char *old_name, bool recurse)
{
	if (!old_name || !*old_name)
		return -EINVAL;
	struct nameidata old;
	int err = path_lookupat(&old, current->files, AT_FDCWD, old_name, LOOKUP_FOLLOW);
	if (err)
		return err;
	struct vfsmount *from = old.generated ? NULL : old.path.mnt;
	if (!from || !path->dentry)
		err = -EINVAL;
	else
		err = mountpoint_alive(path);
	struct vfsmount *m = NULL;
	if (!err) {
		m = clone_mnt(from, old.path.dentry);
		if (IS_ERR(m)) {
			err = (int)PTR_ERR(m);
		} else if ((err = graft_tree(m, path))) {
			mntput(m);
		} else if (recurse && (err = copy_submounts(from, old.path.dentry, m))) {
			umount_mnt(m, true, 0); /* Linux undoes the whole copy too */
		}
	}
	path_lookup_done(&old);
	return err;
}

static int do_new_mount(const struct path *path, bool at_root, const char *fstype, unsigned int sb_flags,
			int mnt_flags, const char *name, char *data)
{
	if (!fstype)
		return -EINVAL;
	const struct file_system_type *type = get_fs_type(fstype);
	if (!type)
		return -ENODEV;
	struct vfsmount *m = vfs_kern_mount(type, sb_flags, mnt_flags, name ? name : "none", data);
	if (IS_ERR(m))
		return (int)PTR_ERR(m);
	int err;
	/* Linux's do_add_mount: the same instance twice on one place. */
	if (at_root && path->mnt->mnt_sb == m->mnt_sb)
		err = -EBUSY;
	else if (!path->dentry)
		err = -EINVAL; /* inside procfs or sysfs */
	else if ((err = mountpoint_alive(path)) == 0)
		err = graft_tree(m, path);
	if (err)
		mntput(m);
	return err;
}

static int path_mount(const char *dev_name, const struct nameidata *nd, const char *type_page,
		      unsigned long flags, char *data_page)
{
	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if (flags & MS_NOUSER)
		return -EINVAL;
	int mnt_flags = 0;
	if (!(flags & MS_NOATIME))
		mnt_flags |= MNT_RELATIME;
	static const struct { unsigned long ms; int mnt; } per_mount[] = {
		{ MS_NOSUID, MNT_NOSUID }, { MS_NODEV, MNT_NODEV }, { MS_NOEXEC, MNT_NOEXEC },
		{ MS_NOATIME, MNT_NOATIME }, { MS_NODIRATIME, MNT_NODIRATIME }, { MS_RDONLY, MNT_READONLY },
		{ MS_NOSYMFOLLOW, MNT_NOSYMFOLLOW },
	};
	for (size_t i = 0; i < ARRAY_SIZE(per_mount); i++)
		if (flags & per_mount[i].ms)
			mnt_flags |= per_mount[i].mnt;
	if (flags & MS_STRICTATIME)
		mnt_flags &= ~(MNT_RELATIME | MNT_NOATIME);
	struct path path;
	bool at_root;
	nd_mount_path(nd, &path, &at_root);
	/* A remount keeps the atime flags unless it names one. */
	if ((flags & MS_REMOUNT) && !(flags & (MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME)))
		mnt_flags = (mnt_flags & ~MNT_ATIME_MASK) | (path.mnt->mnt_flags & MNT_ATIME_MASK);
	unsigned int sb_flags = (unsigned int)(flags & (SB_RDONLY | SB_SYNCHRONOUS | SB_MANDLOCK | SB_DIRSYNC |
							 SB_SILENT | SB_POSIXACL | SB_LAZYTIME | SB_I_VERSION));
	if ((flags & (MS_REMOUNT | MS_BIND)) == (MS_REMOUNT | MS_BIND)) {
		if (!at_root) /* Linux's do_reconfigure_mnt: the mount's flags only */
			return -EINVAL;
		return set_mount_attributes(path.mnt, mnt_flags, true);
	}
	if (flags & MS_REMOUNT)
		return do_remount(&path, at_root, sb_flags, mnt_flags, data_page);
	if (flags & MS_BIND)
		return do_loopback(&path, dev_name, flags & MS_REC);
	if (flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)) {
		if (!at_root) /* Linux's do_change_type */
			return -EINVAL;
		unsigned long type = flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE);
		return type == MS_PRIVATE ? 0 : -EINVAL;
	}
	if (flags & MS_MOVE)
		return -EINVAL;
	return do_new_mount(&path, at_root, type_page, sb_flags, mnt_flags, dev_name, data_page);
}

int do_mount(const char *dev_name, const char *dir_name, const char *type, unsigned long flags, char *data)
{
	struct nameidata nd;
	int err = path_lookupat(&nd, current->files, AT_FDCWD, dir_name, LOOKUP_FOLLOW);
	if (err)
		return err;
	err = path_mount(dev_name, &nd, type, flags, data);
	path_lookup_done(&nd);
	return err;
}

/* Linux's do_umount after can_umount; refs: the table's and the lookup's. */
static int do_umount(struct vfsmount *mnt, int flags)
{
	struct path root;
	get_fs_root(current_fs(), &root);
	bool is_root = mnt == root.mnt;
	path_put(&root);
	if (flags & MNT_EXPIRE) {
		if (is_root || (flags & (MNT_FORCE | MNT_DETACH)))
			return -EINVAL;
		if (__atomic_load_n(&mnt->mnt_count, __ATOMIC_ACQUIRE) != 2)
			return -EBUSY;
		if (!__atomic_exchange_n(&mnt->mnt_expiry_mark, true, __ATOMIC_ACQ_REL))
			return -EAGAIN;
	}
	/* MNT_FORCE: none of these file systems has umount_begin. */
	if (is_root && !(flags & MNT_DETACH))
		return -EBUSY;
	if (mnt->mnt_parent == mnt)
		return -EINVAL; /* the root of the table */
	return umount_mnt(mnt, flags & MNT_DETACH, 2);
}

int do_umount_path(const char *name, int flags)
{
	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	struct nameidata nd;
	int err = path_lookupat(&nd, current->files, AT_FDCWD, name, flags & UMOUNT_NOFOLLOW ? 0 : LOOKUP_FOLLOW);
	if (err)
		return err;
	struct path path;
	bool at_root;
	nd_mount_path(&nd, &path, &at_root);
	if (!at_root || !path.mnt->mnt_attached) /* Linux's can_umount */
		err = -EINVAL;
	else
		err = do_umount(path.mnt, flags);
	path_lookup_done(&nd);
	return err;
}

/* Linux's copy_mount_string (whole: -EINVAL for PATH_MAX bytes or more,
 * as strndup_user) and copy_mount_options (up to a page, cut there, as
 * path_mount NUL-terminates it): NULL stays NULL; -EFAULT. */
static long copy_mount_in(const char __user *s, size_t size, bool whole, char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	char *k = kmalloc(size, GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	long len = strncpy_from_user(k, s, (long)size);
	if (len < 0 || (whole && len >= (long)size)) {
		kfree(k);
		return len < 0 ? -EFAULT : -EINVAL;
	}
	k[size - 1] = 0;
	*out = k;
	return 0;
}

SYSCALL_DEFINE5(mount, char __user *, dev_name, char __user *, dir_name, char __user *, type, unsigned long,
		flags, void __user *, data)
{
	char *kernel_type, *kernel_dev = NULL, *options = NULL, *dir = NULL;
	long err = copy_mount_in(type, PATH_MAX, true, &kernel_type);
	if (!err)
		err = copy_mount_in(dev_name, PATH_MAX, true, &kernel_dev);
	if (!err)
		err = copy_mount_in(data, PAGE_SIZE, false, &options);
	if (!err)
		err = getname(dir_name, false, &dir);
	if (!err)
		err = do_mount(kernel_dev, dir, kernel_type, flags, options);
	kfree(dir);
	kfree(options);
	kfree(kernel_dev);
	kfree(kernel_type);
	return err;
}

SYSCALL_DEFINE2(umount2, char __user *, name, int, flags)
{
	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	char *kname;
	long err = getname(name, false, &kname);
	if (err)
		return err;
	err = do_umount_path(kname, flags);
	kfree(kname);
	return err;
}
