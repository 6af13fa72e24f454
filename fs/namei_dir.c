/* The system calls that change directories (Linux's fs/namei.c do_mkdirat,
 * do_mknodat, do_rmdir, do_unlinkat, do_symlinkat, do_linkat,
 * do_renameat2 and filename_create): each walks to the parent of its
 * last name, then, under dcache_lock (one change to the namespace at a
 * time: fs/dcache.h), looks the name up and calls the directory's inode
 * method. The errno order is Linux's for root.
 *
 * Below /proc and /sys nothing changes: a name that exists there is
 * -EEXIST to a creation, a missing one -ENOENT under /proc (procfs's
 * lookup) and -EPERM under /sys, anything else -EPERM (procfs and sysfs
 * have no such methods); across mounts, link and rename are -EXDEV. */
#include "fs/namei.h"
#include "fs/fs_struct.h"
#include "fs/internal.h"
#include "fs/libfs.h"
#include "fs/mount.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

/* Whether the last name exists in a generated directory. */
static bool generated_child_exists(struct nameidata *nd)
{
	size_t len = strlen(nd->generated);
	char *full = kmalloc(len + nd->last.len + 2, GFP_KERNEL);
	if (!full)
		return false;
	memcpy(full, nd->generated, len);
	full[len] = '/';
	memcpy(full + len + 1, nd->last.name, nd->last.len);
	full[len + 1 + nd->last.len] = 0;
	struct proc_node node;
	bool exists = !procfs_lookup(full, proc_self_task(), &node);
	kfree(full);
	return exists;
}

/* Linux's filename_create: the parent walked, the last name looked up
 * and found missing. On success dcache_lock is held and the negative
 * dentry returned; done_path_create ends it. */
static struct dentry *filename_create(int dfd, const char *name, unsigned int lookup_flags, struct nameidata *nd)
{
	int err = path_parentat(nd, current->files, dfd, name, 0);
	if (err)
		return ERR_PTR(err);
	bool want_dir = lookup_flags & LOOKUP_DIRECTORY;
	if (nd->last_type != LAST_NORM) {
		err = -EEXIST;
	} else if (nd->generated) {
		/* procfs's lookup fails a missing name (-ENOENT); kernfs's gives
		 * a negative dentry, and sysfs has no methods to create with. */
		err = generated_child_exists(nd) ? -EEXIST : nd->node.fs == PROC_FS_SYS ? -EPERM : -ENOENT;
	} else {
		mutex_lock(&dcache_lock);
		struct dentry *d = lookup_one_locked(nd->path.dentry, &nd->last);
		if (IS_ERR(d))
			err = (int)PTR_ERR(d);
		else if (d->d_inode)
			err = -EEXIST;
		else if (nd->trailing_slash && !want_dir)
			err = -ENOENT;
		else if (!(err = mnt_want_write(nd->path.mnt))) /* -EROFS after the other errors, as Linux's */
			return d;
		if (!IS_ERR(d))
			dput_locked(d);
		mutex_unlock(&dcache_lock);
	}
	path_lookup_done(nd);
	return ERR_PTR(err);
}

static void done_path_create(struct nameidata *nd, struct dentry *d)
{
	dput_locked(d);
	mutex_unlock(&dcache_lock);
	path_lookup_done(nd);
}

int do_mkdirat(int dfd, const char *name, umode_t mode)
{
	struct nameidata nd;
	struct dentry *d = filename_create(dfd, name, LOOKUP_DIRECTORY, &nd);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *dir = nd.path.dentry->d_inode;
	int err = dir->i_op->mkdir ? dir->i_op->mkdir(dir, d, (umode_t)(mode & 01777 & ~current_umask()))
				   : -EPERM;
	done_path_create(&nd, d);
	return err;
}

int do_mknodat(int dfd, const char *name, umode_t mode, dev_t dev)
{
	/* may_mknod: a directory is mkdir's, an unknown type is invalid. */
	switch (mode & S_IFMT) {
	case 0:
	case S_IFREG:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
	struct nameidata nd;
	struct dentry *d = filename_create(dfd, name, 0, &nd);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *dir = nd.path.dentry->d_inode;
	umode_t m = (umode_t)(mode & S_IALLUGO & ~current_umask());
	int err;
	if (!(mode & S_IFMT) || S_ISREG(mode))
		err = dir->i_op->create ? dir->i_op->create(dir, d, (umode_t)(m | S_IFREG), true) : -EPERM;
	else
		err = dir->i_op->mknod ? dir->i_op->mknod(dir, d, (umode_t)(m | (mode & S_IFMT)),
							 (S_ISCHR(mode) || S_ISBLK(mode)) ? dev : 0)
				       : -EPERM;
	done_path_create(&nd, d);
	return err;
}

int do_symlinkat(const char *target, int newdfd, const char *newname)
{
	if (!target[0])
		return -ENOENT;
	struct nameidata nd;
	struct dentry *d = filename_create(newdfd, newname, 0, &nd);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *dir = nd.path.dentry->d_inode;
	int err = dir->i_op->symlink ? dir->i_op->symlink(dir, d, target) : -EPERM;
	done_path_create(&nd, d);
	return err;
}

/* The parent walked and the last name looked up (it must exist): for
 * rmdir and unlink. dcache_lock held on success. */
static struct dentry *lookup_for_delete(int dfd, const char *name, struct nameidata *nd, int dot_err,
					int dotdot_err, int root_err)
{
	int err = path_parentat(nd, current->files, dfd, name, 0);
	if (err)
		return ERR_PTR(err);
	if (nd->last_type != LAST_NORM) {
		err = nd->last_type == LAST_DOT ? dot_err : nd->last_type == LAST_DOTDOT ? dotdot_err : root_err;
	} else if (nd->generated) {
		err = generated_child_exists(nd) ? -EPERM : -ENOENT;
	} else if ((err = mnt_want_write(nd->path.mnt))) {
		/* -EROFS before the name is looked up, as Linux's do_rmdir */
	} else {
		mutex_lock(&dcache_lock);
		struct dentry *d = lookup_one_locked(nd->path.dentry, &nd->last);
		if (IS_ERR(d)) {
			err = (int)PTR_ERR(d);
		} else if (!d->d_inode) {
			dput_locked(d);
			err = -ENOENT;
		} else {
			return d;
		}
		mutex_unlock(&dcache_lock);
	}
	path_lookup_done(nd);
	return ERR_PTR(err);
}

int do_rmdir(int dfd, const char *name)
{
	struct nameidata nd;
	struct dentry *d = lookup_for_delete(dfd, name, &nd, -EINVAL, -ENOTEMPTY, -EBUSY);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *dir = nd.path.dentry->d_inode;
	int err;
	if (!d_is_dir(d))
		err = -ENOTDIR;
	else if (d->d_flags & DCACHE_MOUNTED)
		err = -EBUSY;
	else
		err = dir->i_op->rmdir ? dir->i_op->rmdir(dir, d) : -EPERM;
	done_path_create(&nd, d);
	return err;
}

int do_unlinkat(int dfd, const char *name)
{
	struct nameidata nd;
	struct dentry *d = lookup_for_delete(dfd, name, &nd, -EISDIR, -EISDIR, -EISDIR);
	if (IS_ERR(d))
		return (int)PTR_ERR(d);
	struct inode *dir = nd.path.dentry->d_inode;
	int err;
	if (nd.trailing_slash) /* "name/": a directory was meant */
		err = d_is_dir(d) ? -EISDIR : -ENOTDIR;
	else if (d_is_dir(d))
		err = -EISDIR;
	else if (d->d_flags & DCACHE_MOUNTED)
		err = -EBUSY;
	else
		err = dir->i_op->unlink ? dir->i_op->unlink(dir, d) : -EPERM;
	done_path_create(&nd, d);
	return err;
}

int do_linkat(int olddfd, const char *oldname, int newdfd, const char *newname, int flags)
{
	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	struct nameidata old;
	unsigned int lf = (flags & AT_SYMLINK_FOLLOW ? LOOKUP_FOLLOW : 0) | (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	int err = path_lookupat(&old, current->files, olddfd, oldname, lf);
	if (err)
		return err;
	struct nameidata nd;
	struct dentry *d = filename_create(newdfd, newname, 0, &nd);
	if (IS_ERR(d)) {
		path_lookup_done(&old);
		return (int)PTR_ERR(d);
	}
	struct inode *dir = nd.path.dentry->d_inode;
	struct dentry *od = old.path.dentry;
	if (old.generated || old.path.mnt != nd.path.mnt)
		err = -EXDEV;
	else if (d_is_dir(od))
		err = -EPERM;
	else if (od->d_inode->i_nlink == 0 && !(od->d_inode->i_state & I_LINKABLE))
		err = -ENOENT;
	else
		err = dir->i_op->link ? dir->i_op->link(od, dir, d) : -EPERM;
	done_path_create(&nd, d);
	path_lookup_done(&old);
	return err;
}

/* Whether d is below (or is) ancestor (dcache_lock held). */
static bool is_subdir(struct dentry *d, struct dentry *ancestor)
{
	for (;;) {
		if (d == ancestor)
			return true;
		if (d->d_parent == d)
			return false;
		d = d->d_parent;
	}
}

int do_renameat2(int olddfd, const char *oldname, int newdfd, const char *newname, unsigned int flags)
{
	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & RENAME_WHITEOUT)
		return -EINVAL; /* no overlay file system here wants them */
	struct nameidata on, nn;
	int err = path_parentat(&on, current->files, olddfd, oldname, 0);
	if (err)
		return err;
	err = path_parentat(&nn, current->files, newdfd, newname, 0);
	if (err) {
		path_lookup_done(&on);
		return err;
	}
	if (on.generated || nn.generated || on.path.mnt != nn.path.mnt)
		err = on.generated && nn.generated ? -EPERM : -EXDEV;
	else if (on.last_type != LAST_NORM)
		err = -EBUSY;
	else if (nn.last_type != LAST_NORM)
		err = flags & RENAME_NOREPLACE ? -EEXIST : -EBUSY;
	else
		err = mnt_want_write(on.path.mnt);
	if (err)
		goto out;
	struct dentry *odir = on.path.dentry, *ndir = nn.path.dentry, *od, *nd_ = NULL;
	mutex_lock(&dcache_lock);
	od = lookup_one_locked(odir, &on.last);
	if (IS_ERR(od)) {
		err = (int)PTR_ERR(od);
		goto unlock;
	}
	err = -ENOENT;
	if (!od->d_inode)
		goto put_old;
	nd_ = lookup_one_locked(ndir, &nn.last);
	if (IS_ERR(nd_)) {
		err = (int)PTR_ERR(nd_);
		goto put_old;
	}
	bool old_dir = d_is_dir(od);
	if ((flags & RENAME_EXCHANGE) && !nd_->d_inode)
		err = -ENOENT;
	else if (!old_dir && (on.trailing_slash || (!(flags & RENAME_EXCHANGE) && nn.trailing_slash)))
		err = -ENOTDIR;
	else if ((flags & RENAME_NOREPLACE) && nd_->d_inode)
		err = -EEXIST;
	else if (is_subdir(ndir, od)) /* into itself */
		err = -EINVAL;
	else if (nd_->d_inode && is_subdir(odir, nd_)) /* over an ancestor of itself */
		err = flags & RENAME_EXCHANGE ? -EINVAL : -ENOTEMPTY;
	else if (od->d_inode == nd_->d_inode)
		err = 0; /* the same file: nothing to do, as Linux's vfs_rename */
	else if (!(flags & RENAME_EXCHANGE) && nd_->d_inode && old_dir && !d_is_dir(nd_))
		err = -ENOTDIR;
	else if (!(flags & RENAME_EXCHANGE) && nd_->d_inode && !old_dir && d_is_dir(nd_))
		err = -EISDIR;
	else if ((od->d_flags | nd_->d_flags) & DCACHE_MOUNTED)
		err = -EBUSY;
	else
		err = odir->d_inode->i_op->rename ? odir->d_inode->i_op->rename(odir->d_inode, od, ndir->d_inode,
										nd_, flags)
						  : -EPERM;
	dput_locked(nd_);
put_old:
	dput_locked(od);
unlock:
	mutex_unlock(&dcache_lock);
out:
	path_lookup_done(&nn);
	path_lookup_done(&on);
	return err;
}

/* ---- the system calls: names from user space ---- */

static long with_name(const char __user *u, bool empty_ok, char **name) { return getname(u, empty_ok, name); }

SYSCALL_DEFINE3(mkdirat, int, dfd, const char __user *, pathname, umode_t, mode)
{
	char *name;
	long err = with_name(pathname, false, &name);
	if (err)
		return err;
	err = do_mkdirat(dfd, name, mode);
	kfree(name);
	return err;
}

SYSCALL_DEFINE2(mkdir, const char __user *, pathname, umode_t, mode)
{
	return __do_sys_mkdirat(AT_FDCWD, pathname, mode);
}

SYSCALL_DEFINE4(mknodat, int, dfd, const char __user *, filename, umode_t, mode, unsigned int, dev)
{
	char *name;
	long err = with_name(filename, false, &name);
	if (err)
		return err;
	err = do_mknodat(dfd, name, mode, new_decode_dev(dev));
	kfree(name);
	return err;
}

SYSCALL_DEFINE3(mknod, const char __user *, filename, umode_t, mode, unsigned int, dev)
{
	return __do_sys_mknodat(AT_FDCWD, filename, mode, dev);
}

SYSCALL_DEFINE1(rmdir, const char __user *, pathname)
{
	char *name;
	long err = with_name(pathname, false, &name);
	if (err)
		return err;
	err = do_rmdir(AT_FDCWD, name);
	kfree(name);
	return err;
}

SYSCALL_DEFINE3(unlinkat, int, dfd, const char __user *, pathname, int, flag)
{
	if (flag & ~AT_REMOVEDIR)
		return -EINVAL;
	char *name;
	long err = with_name(pathname, false, &name);
	if (err)
		return err;
	err = flag & AT_REMOVEDIR ? do_rmdir(dfd, name) : do_unlinkat(dfd, name);
	kfree(name);
	return err;
}

SYSCALL_DEFINE1(unlink, const char __user *, pathname)
{
	return __do_sys_unlinkat(AT_FDCWD, pathname, 0);
}

SYSCALL_DEFINE3(symlinkat, const char __user *, oldname, int, newdfd, const char __user *, newname)
{
	char *target, *name;
	long err = with_name(oldname, false, &target);
	if (err)
		return err;
	err = with_name(newname, false, &name);
	if (!err) {
		err = do_symlinkat(target, newdfd, name);
		kfree(name);
	}
	kfree(target);
	return err;
}

SYSCALL_DEFINE2(symlink, const char __user *, oldname, const char __user *, newname)
{
	return __do_sys_symlinkat(oldname, AT_FDCWD, newname);
}

SYSCALL_DEFINE5(linkat, int, olddfd, const char __user *, oldname, int, newdfd, const char __user *,
		newname, int, flags)
{
	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	char *from, *to;
	long err = with_name(oldname, flags & AT_EMPTY_PATH, &from);
	if (err)
		return err;
	err = with_name(newname, false, &to);
	if (!err) {
		err = do_linkat(olddfd, from, newdfd, to, flags);
		kfree(to);
	}
	kfree(from);
	return err;
}

SYSCALL_DEFINE2(link, const char __user *, oldname, const char __user *, newname)
{
	return __do_sys_linkat(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

SYSCALL_DEFINE5(renameat2, int, olddfd, const char __user *, oldname, int, newdfd, const char __user *,
		newname, unsigned int, flags)
{
	char *from, *to;
	long err = with_name(oldname, false, &from);
	if (err)
		return err;
	err = with_name(newname, false, &to);
	if (!err) {
		err = do_renameat2(olddfd, from, newdfd, to, flags);
		kfree(to);
	}
	kfree(from);
	return err;
}

SYSCALL_DEFINE4(renameat, int, olddfd, const char __user *, oldname, int, newdfd, const char __user *, newname)
{
	return __do_sys_renameat2(olddfd, oldname, newdfd, newname, 0);
}

SYSCALL_DEFINE2(rename, const char __user *, oldname, const char __user *, newname)
{
	return __do_sys_renameat2(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}
