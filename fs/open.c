/* open(2) and openat(2), access(2) and faccessat(2) (Linux's fs/open.c): the flags' own checks
 * (build_open_flags), then a descriptor reserved before the lookup
 * (-EMFILE first, as do_sys_openat2), the path opened (fs/namei.c), and
 * the file installed. */
#include "fs/internal.h"
#include "fs/fdtable.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

int files_open(struct files_struct *files, int dirfd, const char *path, int flags, unsigned int mode)
{
	(void)mode; /* nothing is ever created */
	if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL;
	/* build_open_flags: O_TMPFILE needs O_DIRECTORY's bit and a write
	 * access mode; no file system here makes temporary files. */
	if (flags & __O_TMPFILE) {
		if ((flags & O_TMPFILE) != O_TMPFILE)
			return -EINVAL;
		if ((flags & O_ACCMODE) != O_WRONLY && (flags & O_ACCMODE) != O_RDWR)
			return -EINVAL;
		return -EOPNOTSUPP;
	}
	if (!path[0])
		return -ENOENT;
	if (strnlen(path, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (!files)
		return -EMFILE;
	/* do_sys_openat2: the fd is reserved first (-EMFILE before the
	 * lookup), the file installed when it is open. */
	int fd = alloc_fd(files);
	if (fd < 0)
		return fd;
	struct file *f;
	int err = path_openat(files, dirfd, path, flags, &f);
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

#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

/* Linux's do_faccessat: the mode and flags checked, the path looked up as
 * open's is (-ENOENT, -ENOTDIR...). Every mmlab process is root (Linux's
 * CAP_DAC_OVERRIDE): reading and writing pass, but writing /bin, a
 * read-only file system, is -EROFS; executing needs an x bit on anything
 * but a directory. AT_EACCESS changes nothing with one identity. */
static long do_faccessat(int dfd, const char __user *filename, int mode, int flags)
{
	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	char *name;
	long err = getname(filename, flags & AT_EMPTY_PATH, &name);
	if (err)
		return err;
	struct proc_node node;
	bool slash;
	char *norm;
	err = path_lookupat(current->files, dfd, name, &node, &norm, &slash);
	kfree(name);
	if (!norm)
		return err;
	if (err == 1)
		err = -ENOENT; /* the last name is missing */
	if (!err) {
		bool dir = proc_node_is_dir(&node);
		unsigned short m = node.entry ? node.entry->mode : 0;
		if (slash && !dir)
			err = -ENOTDIR;
		else if ((mode & W_OK) && node.module)
			err = -EROFS;
		else if ((mode & X_OK) && !dir && !(m & 0111))
			err = -EACCES;
	}
	kfree(norm);
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
