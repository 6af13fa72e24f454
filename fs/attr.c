/* Changing a file's attributes (Linux's fs/open.c do_truncate, chmod_common,
 * chown_common and fs/utimes.c): truncate and ftruncate, the chmod and
 * chown families and utimensat, each through notify_change to the file
 * system's setattr. Every process is root: ownership changes are stored
 * as given, with no permission check. A generated file (/proc, /sys)
 * takes none of them: -EPERM, as procfs's and kernfs's setattr refuse
 * root too. */
#include "fs/internal.h"
#include "fs/mount.h"
#include "arch/x86_64/uaccess.h"
#include "fs/dcache.h"
#include "fs/namei.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/slab.h"

#define UTIME_NOW ((1l << 30) - 1l)
#define UTIME_OMIT ((1l << 30) - 2l)

/* The attribute change on a looked-up name (user name; flags: lookup). */
static long setattr_name(int dfd, const char __user *filename, unsigned int lookup_flags, struct iattr *attr,
			 bool (*check)(struct dentry *d, long *err))
{
	struct nameidata nd;
	long err = user_path_lookupat(&nd, dfd, filename, lookup_flags);
	if (err)
		return err;
	if (nd.generated)
		err = -EPERM;
	else if ((!check || check(nd.path.dentry, &err)) && !(err = mnt_want_write(nd.path.mnt)))
		err = notify_change(nd.path.dentry, attr);
	path_lookup_done(&nd);
	return err;
}

/* The attribute change on an open file. */
static long setattr_fd(unsigned int fd, struct iattr *attr)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	long err = !f->f_path.dentry ? -EPERM : mnt_want_write(f->f_path.mnt);
	if (!err)
		err = notify_change(f->f_path.dentry, attr);
	fput(f);
	return err;
}

/* ---- truncate ---- */

int inode_newsize_ok(const struct inode *inode, long offset)
{
	if (offset < 0)
		return -EINVAL;
	if (offset > READ_ONCE(inode->i_size)) {
		unsigned long limit = rlimit(RLIMIT_FSIZE);
		if (limit != RLIM_INFINITY && (unsigned long)offset > limit) {
			send_sig(SIGXFSZ, current);
			return -EFBIG;
		}
		/* offset > MAX_LFS_FILESIZE (s_maxbytes) cannot be: offset is a long. */
	}
	return 0;
}

/* do_sys_truncate's order: a directory is -EISDIR, anything else not
 * regular -EINVAL (notify_change), a negative length -EINVAL first. */
static bool truncate_check(struct dentry *d, long *err)
{
	if (d_is_dir(d))
		*err = -EISDIR;
	else if (!S_ISREG(d->d_inode->i_mode))
		*err = -EINVAL;
	else
		return true;
	return false;
}

SYSCALL_DEFINE2(truncate, const char __user *, path, long, length)
{
	if (length < 0)
		return -EINVAL;
	struct iattr attr = { .ia_valid = ATTR_SIZE | ATTR_MTIME, .ia_size = length };
	attr.ia_mtime = current_time();
	return setattr_name(AT_FDCWD, path, LOOKUP_FOLLOW, &attr, truncate_check);
}

/* do_sys_ftruncate: a negative length, then the descriptor, then
 * -EINVAL for a file that is not regular or not open for writing. */
SYSCALL_DEFINE2(ftruncate, unsigned int, fd, long, length)
{
	if (length < 0)
		return -EINVAL;
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	long err;
	if (!f->f_inode || !S_ISREG(f->f_inode->i_mode))
		err = -EINVAL;
	else if (!(f->f_mode & FMODE_WRITE))
		err = -EINVAL;
	else {
		struct iattr attr = { .ia_valid = ATTR_SIZE | ATTR_MTIME, .ia_size = length };
		attr.ia_mtime = current_time();
		err = notify_change(f->f_path.dentry, &attr);
	}
	fput(f);
	return err;
}

/* ---- chmod ---- */

static long do_fchmodat(int dfd, const char __user *filename, umode_t mode, unsigned int flags)
{
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	struct iattr attr = { .ia_valid = ATTR_MODE, .ia_mode = (umode_t)(mode & S_IALLUGO) };
	unsigned int lf = (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) | (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	return setattr_name(dfd, filename, lf, &attr, NULL);
}

SYSCALL_DEFINE2(chmod, const char __user *, filename, umode_t, mode)
{
	return do_fchmodat(AT_FDCWD, filename, mode, 0);
}

SYSCALL_DEFINE3(fchmodat, int, dfd, const char __user *, filename, umode_t, mode)
{
	return do_fchmodat(dfd, filename, mode, 0);
}

SYSCALL_DEFINE4(fchmodat2, int, dfd, const char __user *, filename, umode_t, mode, unsigned int, flags)
{
	return do_fchmodat(dfd, filename, mode, flags);
}

SYSCALL_DEFINE2(fchmod, unsigned int, fd, umode_t, mode)
{
	struct iattr attr = { .ia_valid = ATTR_MODE, .ia_mode = (umode_t)(mode & S_IALLUGO) };
	return setattr_fd(fd, &attr);
}

/* ---- chown: -1 leaves an id as it is ---- */

static void chown_attr(struct iattr *attr, unsigned int user, unsigned int group)
{
	attr->ia_valid = 0;
	if (user != (unsigned int)-1) {
		attr->ia_valid |= ATTR_UID;
		attr->ia_uid = user;
	}
	if (group != (unsigned int)-1) {
		attr->ia_valid |= ATTR_GID;
		attr->ia_gid = group;
	}
}

SYSCALL_DEFINE5(fchownat, int, dfd, const char __user *, filename, unsigned int, user, unsigned int, group,
		int, flag)
{
	if (flag & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	struct iattr attr;
	chown_attr(&attr, user, group);
	unsigned int lf = (flag & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) | (flag & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	return setattr_name(dfd, filename, lf, &attr, NULL);
}

SYSCALL_DEFINE3(chown, const char __user *, filename, unsigned int, user, unsigned int, group)
{
	return __do_sys_fchownat(AT_FDCWD, filename, user, group, 0);
}

SYSCALL_DEFINE3(lchown, const char __user *, filename, unsigned int, user, unsigned int, group)
{
	return __do_sys_fchownat(AT_FDCWD, filename, user, group, AT_SYMLINK_NOFOLLOW);
}

SYSCALL_DEFINE3(fchown, unsigned int, fd, unsigned int, user, unsigned int, group)
{
	struct iattr attr;
	chown_attr(&attr, user, group);
	return setattr_fd(fd, &attr);
}

/* ---- utimensat ---- */

struct kernel_timespec_pair {
	struct __kernel_timespec ts[2];
};

static bool utime_valid(const struct __kernel_timespec *t)
{
	return t->tv_nsec == UTIME_NOW || t->tv_nsec == UTIME_OMIT || (t->tv_nsec >= 0 && t->tv_nsec < 1000000000);
}

/* Linux's do_utimes: times NULL is "now" for both; UTIME_NOW and
 * UTIME_OMIT per time; a NULL filename is dfd itself. */
SYSCALL_DEFINE4(utimensat, int, dfd, const char __user *, filename, struct __kernel_timespec __user *, utimes,
		int, flags)
{
	struct __kernel_timespec t[2];
	struct iattr attr = { .ia_valid = ATTR_ATIME | ATTR_MTIME };
	struct timespec64 now = current_time();
	attr.ia_atime = attr.ia_mtime = now;
	if (utimes) {
		if (copy_from_user(t, utimes, sizeof(t)))
			return -EFAULT;
		if (!utime_valid(&t[0]) || !utime_valid(&t[1]))
			return -EINVAL;
		if (t[0].tv_nsec == UTIME_OMIT && t[1].tv_nsec == UTIME_OMIT)
			return 0;
		for (int i = 0; i < 2; i++) {
			struct timespec64 *dst = i ? &attr.ia_mtime : &attr.ia_atime;
			if (t[i].tv_nsec == UTIME_OMIT)
				attr.ia_valid &= ~(i ? ATTR_MTIME : ATTR_ATIME);
			else if (t[i].tv_nsec != UTIME_NOW)
				*dst = (struct timespec64){ t[i].tv_sec, (long)t[i].tv_nsec };
		}
	}
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!filename && dfd != AT_FDCWD)
		return dfd < 0 ? -EBADF : setattr_fd((unsigned int)dfd, &attr);
	if (!filename)
		return -EFAULT;
	unsigned int lf = (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) | (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	return setattr_name(dfd, filename, lf, &attr, NULL);
}

void setattr_copy(struct inode *inode, const struct iattr *attr)
{
	if (attr->ia_valid & ATTR_MODE)
		inode->i_mode = (umode_t)((inode->i_mode & S_IFMT) | (attr->ia_mode & S_IALLUGO));
	if (attr->ia_valid & ATTR_UID)
		inode->i_uid = attr->ia_uid;
	if (attr->ia_valid & ATTR_GID)
		inode->i_gid = attr->ia_gid;
	if (attr->ia_valid & ATTR_ATIME)
		inode->i_atime = attr->ia_atime;
	if (attr->ia_valid & ATTR_MTIME)
		inode->i_mtime = attr->ia_mtime;
	inode->i_ctime = attr->ia_ctime;
}
