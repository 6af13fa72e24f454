/* fstat, newfstatat and readlink (Linux's fs/stat.c): what a file says
 * about itself (its type and mode, Linux's sizes), and the targets of the
 * links /proc/self and /proc/self/exe. */
#include "fs/internal.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

#define AT_NO_AUTOMOUNT 0x800
#define AT_STATX_SYNC_TYPE 0x6000

/* struct stat of x86_64 (arch/x86/include/uapi/asm/stat.h). */
struct stat {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned int st_mode, st_uid, st_gid, __pad0;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	unsigned long st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	long __unused[3];
};

/* Only what we know: the type and mode, Linux's sizes (0 for /proc files,
 * PAGE_SIZE for sysfs attributes), the console as ttyS0 (4:64, Linux's
 * new_encode_dev), st_blksize 1024 as a tty's; no inode numbers, devices
 * or times (0). */
static void fill_stat(const struct file *f, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_nlink = f->path ? 2 : 1;
	/* A procfs or sysfs file's mode is its entry's; a device's its methods'. */
	st->st_mode = f->node.entry ? f->node.entry->mode : f->f_op->mode;
	st->st_rdev = f->console ? (4u << 8) | 64u : 0;
	st->st_size = f->f_op->size;
	st->st_blksize = f->f_op->blksize;
}

SYSCALL_DEFINE2(fstat, unsigned int, fd, struct stat __user *, statbuf)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	struct stat st;
	fill_stat(f, &st);
	fput(f);
	return copy_to_user(statbuf, &st, sizeof(st)) ? -EFAULT : 0;
}

/* Stat of a kernel path from dirfd (vfs_statx): flags first (-EINVAL),
 * then the lookup's errors, as files_open's. The
 * file is opened read-only for the look and closed again. No file here is
 * a symbolic link (mmlab's /proc/self is resolved as a directory), so
 * AT_SYMLINK_NOFOLLOW changes nothing. */
static long stat_path(struct files_struct *files, int dirfd, const char *path, int flags,
		      struct stat *st)
{
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if (!path[0]) { /* AT_EMPTY_PATH with a name of "" and dirfd AT_FDCWD: the cwd */
		if (dirfd != AT_FDCWD)
			return -EBADF;
		path = "/";
	}
	struct file *f;
	int err = path_openat(files, dirfd, path, O_RDONLY, &f);
	if (err)
		return err;
	fill_stat(f, st);
	fput(f);
	return 0;
}

/* Linux's vfs_fstatat (as Linux 6.18 behaves: unknown flags are -EINVAL
 * before the name is read); an empty name with AT_EMPTY_PATH and a real
 * dirfd is fstat(dirfd). */
SYSCALL_DEFINE4(newfstatat, int, dfd, const char __user *, filename, struct stat __user *, statbuf,
		int, flag)
{
	char *name;
	if (flag & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	long ret = getname(filename, flag & AT_EMPTY_PATH, &name);
	if (ret)
		return ret;
	struct stat st;
	if (!name[0] && dfd >= 0) {
		struct file *f = fget(current->files, (unsigned int)dfd);
		ret = f ? 0 : -EBADF;
		if (f) {
			fill_stat(f, &st);
			fput(f);
		}
	} else {
		ret = stat_path(current->files, dfd, name, flag, &st);
	}
	kfree(name);
	if (!ret && copy_to_user(statbuf, &st, sizeof(st)))
		ret = -EFAULT;
	return ret;
}

/* ---- readlink: /proc/self/exe ---- */

/* The target of the link at a normalised path, or NULL if the path is not
 * a link. /proc/self is a link to the process's pid (the tgid, in every
 * thread), /proc/<pid>/exe (the caller's own pid, or self) to its program. */
static const char *proc_link_target(struct files_struct *files, const char *norm, char *buf,
				    size_t size)
{
	int pid = proc_self_task()->pid;
	char own[32];
	if (!strcmp(norm, "/proc/self")) {
		snprintf(buf, size, "%d", pid);
		return buf;
	}
	snprintf(own, sizeof(own), "/proc/%d/exe", pid);
	if ((!strcmp(norm, "/proc/self/exe") || !strcmp(norm, own)) && files) {
		/* Another thread may be setting it (files_set_exe_path). */
		spin_lock(&files->file_lock);
		strlcpy(buf, files->exe_path, size);
		spin_unlock(&files->file_lock);
		if (buf[0])
			return buf;
	}
	return NULL;
}

/* Linux's do_readlinkat: bufsiz first (-EINVAL), then the name (getname
 * with LOOKUP_EMPTY: "" is allowed and gives -ENOENT), then the lookup
 * (-EBADF, -ENOTDIR, -ENOENT), then -EINVAL if it is not a link. The
 * target is copied without a NUL and cut at bufsiz (do_proc_readlink);
 * returns its length as copied. */
long files_readlinkat(struct files_struct *files, int dfd, const char *path, char *buf, int bufsiz,
		      bool user)
{
	if (bufsiz <= 0)
		return -EINVAL;
	const char *base;
	struct file *dirf;
	long err = path_base(files, dfd, path, &base, &dirf);
	if (err)
		return err;
	char *norm = path[0] ? kmalloc(strlen(base) + strlen(path) + 2, GFP_KERNEL) : NULL;
	if (!norm) {
		fdput(dirf);
		return path[0] ? -ENOMEM : -ENOENT;
	}
	struct proc_node node;
	bool slash;
	char target[64];
	err = path_walk(base, path, norm, &node, &slash);
	fdput(dirf);
	const char *t = err < 0 ? NULL : proc_link_target(files, norm, target, sizeof(target));
	if (t) {
		long len = min((long)strlen(t), (long)bufsiz);
		err = file_copy_out(buf, t, (size_t)len, user) ? -EFAULT : len;
	} else if (err >= 0) {
		err = err == 1 ? -ENOENT : -EINVAL;
	}
	kfree(norm);
	return err;
}

SYSCALL_DEFINE4(readlinkat, int, dfd, const char __user *, pathname, char __user *, buf, int, bufsiz)
{
	if (bufsiz <= 0)
		return -EINVAL;
	char *name;
	long ret = getname(pathname, true, &name);
	if (ret)
		return ret;
	ret = files_readlinkat(current->files, dfd, name, buf, bufsiz, true);
	kfree(name);
	return ret;
}

SYSCALL_DEFINE3(readlink, const char __user *, path, char __user *, buf, int, bufsiz)
{
	return __do_sys_readlinkat(AT_FDCWD, path, buf, bufsiz);
}
