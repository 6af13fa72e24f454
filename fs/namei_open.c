/* The open of a path (Linux's fs/namei.c path_openat, do_open, open_last_lookups
 * and do_tmpfile, and fs/open.c's do_dentry_open): the walk to the last
 * component, its creation with O_CREAT, a nameless file with O_TMPFILE,
 * and the struct file set up with the inode's methods. Below /proc and
 * /sys the generated file opens through fs/proc/inode.c.
 *
 * Errno order (Linux's, for root): the walk's (-ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG), then -EEXIST (O_CREAT|O_EXCL), -EISDIR (a directory with
 * O_CREAT or for writing), -ENOTDIR (O_DIRECTORY), -ELOOP (O_NOFOLLOW on
 * a symlink), -ENXIO (a device no driver has). */
#include "fs/internal.h"
#include "fs/fs_struct.h"
#include "fs/libfs.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

struct file *dentry_open(const struct path *path, int flags)
{
	struct inode *inode = path->dentry->d_inode;
	struct file *f = alloc_file();
	if (!f)
		return ERR_PTR(-ENOMEM);
	int acc = flags & O_ACCMODE;
	/* The open flags stay whole for the open method (a terminal's
	 * looks at O_NOCTTY) and lose the open-only ones after it, as
	 * Linux's do_dentry_open. */
	f->f_flags = (unsigned int)flags;
	f->f_mode = (((unsigned int)acc + 1) & 3) | FMODE_LSEEK | FMODE_PREAD;
	f->f_path = *path;
	path_get(&f->f_path);
	/* Linux's do_dentry_open: a file open for writing (not a device,
	 * FIFO or socket) holds write access to its mount. */
	umode_t mode = inode->i_mode;
	if ((f->f_mode & FMODE_WRITE) && !S_ISCHR(mode) && !S_ISBLK(mode) && !S_ISFIFO(mode) && !S_ISSOCK(mode)) {
		int err = mnt_get_write_access(path->mnt);
		if (err) {
			fput(f);
			return ERR_PTR(err);
		}
		f->f_mode |= FMODE_WRITER;
	}
	f->f_inode = inode;
	f->f_mapping = inode->i_mapping;
	f->f_op = inode->i_fop;
	if (!f->f_op) { /* a FIFO or a socket node: nothing here opens them */
		fput(f);
		return ERR_PTR(-ENXIO);
	}
	if (f->f_op->open) {
		int err = f->f_op->open(inode, f);
		if (err) {
			f->f_op = NULL; /* no release for what did not open */
			fput(f);
			return ERR_PTR(err);
		}
	}
	f->f_flags &= ~(unsigned int)(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY);
	if (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode))
		f->f_mode |= FMODE_ATOMIC_POS;
	if (f->f_op->read)
		f->f_mode |= FMODE_CAN_READ;
	if (f->f_op->write)
		f->f_mode |= FMODE_CAN_WRITE;
	if (!f->f_op->llseek)
		f->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD);
	return f;
}

/* The open of a generated file: the checks fs/proc/inode.c's files want
 * (as Linux's procfs and kernfs give them). */
static int open_generated(struct nameidata *nd, int flags, struct file **fp)
{
	int acc = flags & O_ACCMODE;
	bool dir = proc_node_is_dir(&nd->node);
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if ((flags & O_CREAT) && dir)
		return -EISDIR;
	if (dir && acc != O_RDONLY)
		return -EISDIR;
	if (nd->node.fs == PROC_FS_SYS && !dir && (acc == O_WRONLY || acc == O_RDWR) &&
	    !procfs_node_writable(&nd->node))
		return -EACCES; /* kernfs: a write open of a file without a write method */
	struct file *f = alloc_file();
	if (!f)
		return -ENOMEM;
	f->f_flags = (unsigned int)flags;
	/* OPEN_FMODE, and do_dentry_open's shared f_pos for regular files and
	 * directories (FMODE_ATOMIC_POS). */
	f->f_mode = (((unsigned int)acc + 1) & 3) | FMODE_LSEEK | FMODE_PREAD | FMODE_CAN_READ | FMODE_ATOMIC_POS;
	char *norm = kmalloc(strlen(nd->generated) + 1, GFP_KERNEL);
	int err = -ENOMEM;
	if (norm) {
		memcpy(norm, nd->generated, strlen(nd->generated) + 1);
		err = proc_file_open(f, &nd->node, &norm);
		kfree(norm);
	}
	if (err) {
		fput(f);
		return err;
	}
	/* The file holds the mount it is in (a busy mount is not unmounted),
	 * with no dentry: procfs and sysfs have none. */
	f->f_path.mnt = mntget(nd->generated_mnt);
	*fp = f;
	return 0;
}

/* do_open: what an existing file's open checks, then the file. */
static int do_open(struct nameidata *nd, int flags, struct file **fp)
{
	if (nd->generated)
		return open_generated(nd, flags, fp);
	struct dentry *d = nd->path.dentry;
	int acc = flags & O_ACCMODE;
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if (d_is_symlink(d))
		return -ELOOP; /* O_NOFOLLOW */
	if (d_is_dir(d) && ((flags & O_CREAT) || acc == O_WRONLY || acc == O_RDWR))
		return -EISDIR;
	umode_t mode = d->d_inode->i_mode;
	/* Linux's may_open and do_dentry_open: no device on a nodev mount;
	 * nothing but a device opened for writing on a read-only one. */
	if ((S_ISCHR(mode) || S_ISBLK(mode)) && (nd->path.mnt->mnt_flags & MNT_NODEV))
		return -EACCES;
	if ((((flags & O_TRUNC) && S_ISREG(mode)) || ((acc == O_WRONLY || acc == O_RDWR) && !S_ISCHR(mode) &&
						       !S_ISBLK(mode) && !S_ISFIFO(mode) && !S_ISSOCK(mode))) &&
	    mnt_want_write(nd->path.mnt))
		return -EROFS;
	if ((flags & O_TRUNC) && S_ISREG(d->d_inode->i_mode) && (acc == O_WRONLY || acc == O_RDWR)) {
		struct iattr attr = { .ia_valid = ATTR_SIZE | ATTR_MTIME, .ia_size = 0 };
		attr.ia_mtime = current_time();
		int err = notify_change(d, &attr);
		if (err)
			return err;
	}
	struct file *f = dentry_open(&nd->path, flags);
	if (IS_ERR(f))
		return (int)PTR_ERR(f);
	*fp = f;
	return 0;
}

static unsigned int open_lookup_flags(int flags)
{
	unsigned int lf = (flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW;
	if (flags & O_DIRECTORY)
		lf |= LOOKUP_DIRECTORY;
	return lf;
}

/* O_TMPFILE: a nameless regular file in the directory the path names. */
static int do_tmpfile(struct files_struct *files, int dfd, const char *name, int flags, umode_t mode,
		      struct file **fp)
{
	struct nameidata nd;
	int err = path_lookupat(&nd, files, dfd, name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY);
	if (err)
		return err;
	struct inode *dir = nd.generated ? NULL : nd.path.dentry->d_inode;
	if (dir && (err = mnt_want_write(nd.path.mnt))) {
		path_lookup_done(&nd);
		return err;
	}
	if (!dir || !dir->i_op->tmpfile) {
		path_lookup_done(&nd);
		return -EOPNOTSUPP;
	}
	static const struct qstr unnamed = { "#", 1, 0 }; /* d_tmpfile names it */
	mutex_lock(&dcache_lock);
	struct dentry *child = d_alloc(nd.path.dentry, &unnamed);
	err = child ? dir->i_op->tmpfile(dir, child, (umode_t)(mode & ~current_umask() & S_IALLUGO)) : -ENOMEM;
	if (!err && !(flags & O_EXCL))
		child->d_inode->i_state |= I_LINKABLE;
	mutex_unlock(&dcache_lock);
	if (!err) {
		struct path p = { nd.path.mnt, child };
		struct file *f = dentry_open(&p, flags & ~O_DIRECTORY);
		if (IS_ERR(f))
			err = (int)PTR_ERR(f);
		else
			*fp = f;
	}
	dput(child);
	path_lookup_done(&nd);
	return err;
}

/* open_last_lookups with O_CREAT: the parent, then the last name created
 * when missing (under dcache_lock, so two opens cannot both create it). */
static int open_create(struct files_struct *files, int dfd, const char *name, int flags, umode_t mode,
		       struct file **fp)
{
	struct nameidata nd;
	int err = path_parentat(&nd, files, dfd, name, 0);
	if (err)
		return err;
	if (nd.last_type != LAST_NORM) { /* "/", "." or "..": a directory */
		path_lookup_done(&nd);
		return -EISDIR;
	}
	bool exists;
	if (nd.generated) {
		/* procfs answers the lookup itself (-ENOENT even with O_CREAT);
		 * sysfs refuses the creation (-EACCES). */
		struct proc_node node;
		size_t len = strlen(nd.generated);
		char *full = kmalloc(len + nd.last.len + 2, GFP_KERNEL);
		err = -ENOMEM;
		if (full) {
			memcpy(full, nd.generated, len);
			full[len] = '/';
			memcpy(full + len + 1, nd.last.name, nd.last.len);
			full[len + 1 + nd.last.len] = 0;
			err = procfs_lookup(full, proc_self_task(), &node);
			kfree(full);
		}
		exists = !err;
		if (err == -ENOENT && nd.node.fs == PROC_FS_SYS)
			err = nd.trailing_slash ? -EISDIR : -EACCES;
		if (err && !exists) {
			path_lookup_done(&nd);
			return err;
		}
	} else {
		struct dentry *dir = nd.path.dentry;
		mutex_lock(&dcache_lock);
		struct dentry *child = lookup_one_locked(dir, &nd.last);
		if (IS_ERR(child)) {
			mutex_unlock(&dcache_lock);
			path_lookup_done(&nd);
			return (int)PTR_ERR(child);
		}
		exists = child->d_inode != NULL;
		if (!exists) {
			err = nd.trailing_slash ? -EISDIR : mnt_want_write(nd.path.mnt) ? -EROFS : -EACCES;
			struct inode *inode = dir->d_inode;
			if (err == -EACCES && inode->i_op->create)
				err = inode->i_op->create(inode, child,
							  (umode_t)((mode & S_IALLUGO & ~current_umask()) | S_IFREG),
							  flags & O_EXCL);
		}
		mutex_unlock(&dcache_lock);
		if (!exists && !err) {
			struct path p = { nd.path.mnt, child };
			struct file *f = dentry_open(&p, flags);
			if (IS_ERR(f))
				err = (int)PTR_ERR(f);
			else
				*fp = f;
		}
		dput(child);
		if (!exists) {
			path_lookup_done(&nd);
			return err;
		}
	}
	path_lookup_done(&nd);
	/* It exists: opened as without O_CREAT (a symlink followed unless
	 * O_NOFOLLOW or O_EXCL, a mount point crossed). */
	if (flags & O_EXCL)
		return -EEXIST;
	err = path_lookupat(&nd, files, dfd, name, open_lookup_flags(flags));
	if (err)
		return err;
	err = do_open(&nd, flags, fp);
	path_lookup_done(&nd);
	return err;
}

int do_filp_open(struct files_struct *files, int dfd, const char *name, int flags, umode_t mode,
		 struct file **fp)
{
	if (flags & __O_TMPFILE)
		return do_tmpfile(files, dfd, name, flags, mode, fp);
	if (flags & O_CREAT)
		return open_create(files, dfd, name, flags, mode, fp);
	struct nameidata nd;
	int err = path_lookupat(&nd, files, dfd, name, open_lookup_flags(flags));
	if (err)
		return err;
	err = do_open(&nd, flags, fp);
	path_lookup_done(&nd);
	return err;
}
