/* open(2) and its family, access(2), fallocate(2), and the working
 * directory (Linux's fs/open.c): the flags' own checks (build_open_flags), a descriptor
 * reserved before the lookup (-EMFILE first, as do_sys_openat2), the
 * path opened (fs/namei_open.c) and the file installed; chdir, fchdir and
 * chroot; and umask (Linux's kernel/sys.c), which applies to what they
 * create. */
#include "fs/internal.h"
#include "fs/fdtable.h"
#include "fs/fs_struct.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

int files_open(struct files_struct *files, int dirfd, const char *path, int flags, unsigned int mode)
{
	if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL;
	/* build_open_flags: O_TMPFILE needs O_DIRECTORY's bit and a write
	 * access mode. */
	if (flags & __O_TMPFILE) {
		if ((flags & O_TMPFILE) != O_TMPFILE)
			return -EINVAL;
		if ((flags & O_ACCMODE) != O_WRONLY && (flags & O_ACCMODE) != O_RDWR)
			return -EINVAL;
	}
	if (!path[0])
		return -ENOENT;
	if (strnlen(path, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!files)
		return -EMFILE;
	flags |= O_LARGEFILE; /* build_open_flags: force_o_largefile on 64-bit */
	/* do_sys_openat2: the fd is reserved first (-EMFILE before the
	 * lookup), the file installed when it is open. */
	int fd = alloc_fd(files);
	if (fd < 0)
		return fd;
	struct file *f;
	int err = do_filp_open(files, dirfd, path, flags, (umode_t)mode, &f);
	if (err) {
		put_unused_fd(files, fd);
		return err;
	}
	fd_install(files, fd, f);
	set_close_on_exec(files, fd, flags & O_CLOEXEC);
	return fd;
}

/* do_sys_openat2: the name (getname), then the open. */
static long do_sys_open(int dfd, const char __user *filename, int flags, umode_t mode)
{
	if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL;
	char *name;
	long ret = getname(filename, false, &name);
	if (ret)
		return ret;
	ret = files_open(current->files, dfd, name, flags, mode);
	kfree(name);
	return ret;
}

SYSCALL_DEFINE3(open, const char __user *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, filename, flags, mode);
}

SYSCALL_DEFINE4(openat, int, dfd, const char __user *, filename, int, flags, umode_t, mode)
{
	return do_sys_open(dfd, filename, flags, mode);
}

SYSCALL_DEFINE2(creat, const char __user *, pathname, umode_t, mode)
{
	return do_sys_open(AT_FDCWD, pathname, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

/* Linux's do_faccessat: the mode and flags checked, the path looked up as
 * open's is (-ENOENT, -ENOTDIR...). Every mmlab process is root (Linux's
 * CAP_DAC_OVERRIDE): reading and writing pass; executing needs an x bit
 * on anything but a directory. AT_EACCESS changes nothing with one
 * identity. */
static long do_faccessat(int dfd, const char __user *filename, int mode, int flags)
{
	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	struct nameidata nd;
	unsigned int lf = (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) | (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	long err = user_path_lookupat(&nd, dfd, filename, lf);
	if (err)
		return err;
	umode_t m = nd.generated ? (nd.node.entry ? nd.node.entry->mode : 0) : nd.path.dentry->d_inode->i_mode;
	if ((mode & X_OK) && !S_ISDIR(m) && !(m & 0111))
		err = -EACCES;
	path_lookup_done(&nd);
	return err;
}

SYSCALL_DEFINE2(access, const char __user *, filename, int, mode)
{
	return do_faccessat(AT_FDCWD, filename, mode, 0);
}

SYSCALL_DEFINE3(faccessat, int, dfd, const char __user *, filename, int, mode)
{
	return do_faccessat(dfd, filename, mode, 0);
}

SYSCALL_DEFINE4(faccessat2, int, dfd, const char __user *, filename, int, mode, int, flags)
{
	return do_faccessat(dfd, filename, mode, flags);
}

/* ---- the working directory and root ---- */

/* The place a finished lookup names as a working directory: a path (with
 * its references, taken from nd) and for a generated directory its name
 * (kmalloc'd). */
static int take_dir(struct nameidata *nd, struct path *path, char **gen)
{
	*gen = NULL;
	if (nd->generated) {
		size_t len = strlen(nd->generated) + 1;
		if (len > PATH_MAX)
			return -ENAMETOOLONG;
		if (!(*gen = kmalloc(len, GFP_KERNEL)))
			return -ENOMEM;
		memcpy(*gen, nd->generated, len);
	}
	*path = nd->path;
	nd->path.dentry = NULL;
	nd->path.mnt = NULL;
	return 0;
}

SYSCALL_DEFINE1(chdir, const char __user *, filename)
{
	char *gen;
	struct nameidata nd;
	long err = user_path_lookupat(&nd, AT_FDCWD, filename, LOOKUP_FOLLOW | LOOKUP_DIRECTORY);
	if (err)
		return err;
	struct path path;
	err = take_dir(&nd, &path, &gen);
	path_lookup_done(&nd);
	if (!err)
		set_fs_pwd(current_fs(), &path, gen);
	return err;
}

SYSCALL_DEFINE1(fchdir, unsigned int, fd)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	long err = 0;
	if (f->f_path.dentry && d_is_dir(f->f_path.dentry)) {
		path_get(&f->f_path);
		set_fs_pwd(current_fs(), &f->f_path, NULL);
	} else if (f->path) { /* a generated directory: its mount point and name */
		struct vfsmount *m = file_generated_mount(f);
		char *gen = kmalloc(strlen(f->path) + 1, GFP_KERNEL);
		if (!m || !gen || !m->mnt_mountpoint) {
			kfree(gen);
			err = gen ? -ENOENT : -ENOMEM; /* no mount point: unmounted since */
		} else {
			memcpy(gen, f->path, strlen(f->path) + 1);
			struct path p = { mntget(m->mnt_parent), dget(m->mnt_mountpoint) };
			set_fs_pwd(current_fs(), &p, gen);
		}
	} else {
		err = -ENOTDIR;
	}
	fput(f);
	return err;
}

/* chroot(2): a directory of a real file system (a generated one cannot
 * be a root here: -EINVAL). */
SYSCALL_DEFINE1(chroot, const char __user *, filename)
{
	struct nameidata nd;
	long err = user_path_lookupat(&nd, AT_FDCWD, filename, LOOKUP_FOLLOW | LOOKUP_DIRECTORY);
	if (err)
		return err;
	if (nd.generated) {
		err = -EINVAL;
	} else {
		set_fs_root(current_fs(), &nd.path);
		nd.path.dentry = NULL;
		nd.path.mnt = NULL;
	}
	path_lookup_done(&nd);
	return err;
}

/* fallocate(2) (Linux's vfs_fallocate), its checks in Linux's order:
 * the range and the mode (-EINVAL, -EOPNOTSUPP), the descriptor's access
 * (-EBADF), the file's type (-ESPIPE, -EISDIR, -ENODEV), the size
 * (-EFBIG), then
 * the file system's method (tmpfs: mm/shmem.c). */
#define FALLOC_FL_SUPPORTED_MASK                                                                     \
	(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE | \
	 FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE)

long vfs_fallocate(struct file *f, int mode, long offset, long len)
{
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (mode & ~FALLOC_FL_SUPPORTED_MASK)
		return -EOPNOTSUPP;
	if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if ((mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) && mode != FALLOC_FL_COLLAPSE_RANGE &&
	    mode != FALLOC_FL_INSERT_RANGE)
		return -EINVAL;
	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	struct inode *inode = f->f_inode;
	if (!inode)
		return -ENODEV;
	if (S_ISFIFO(inode->i_mode))
		return -ESPIPE;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;
	long end;
	if (__builtin_add_overflow(offset, len, &end))
		return -EFBIG;
	if (!f->f_op->fallocate)
		return -EOPNOTSUPP;
	return f->f_op->fallocate(f, mode, offset, len);
}

SYSCALL_DEFINE4(fallocate, int, fd, int, mode, long, offset, long, len)
{
	struct file *f = fd < 0 ? NULL : fget(current->files, (unsigned int)fd);
	if (!f)
		return -EBADF;
	long ret = vfs_fallocate(f, mode, offset, len);
	fput(f);
	return ret;
}

/* umask(2) (Linux's kernel/sys.c): the old mask. */
SYSCALL_DEFINE1(umask, int, mask)
{
	struct fs_struct *fs = current_fs();
	spin_lock(&fs->lock);
	int old = fs->umask;
	fs->umask = mask & 0777;
	spin_unlock(&fs->lock);
	return old;
}
