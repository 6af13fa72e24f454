/* open(2) and openat(2) (Linux's fs/open.c): the flags' own checks
 * (build_open_flags), then a descriptor reserved before the lookup
 * (-EMFILE first, as do_sys_openat2), the path opened (fs/namei.c), and
 * the file installed. */
#include "fs/internal.h"
#include "fs/fdtable.h"
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
