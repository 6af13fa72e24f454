/* The kernel's own file operations at boot (Linux's fs/init.c):
 * fs/init.h. Each is the system call's work on a kernel name, with no
 * descriptor table (a relative name starts at init_fs's "/"). */
#include "fs/init.h"
#include "fs/dcache.h"
#include "fs/internal.h"
#include "fs/namei.h"
#include "kernel/unistd.h"
#include "lib/err.h"

int init_mkdir(const char *pathname, umode_t mode) { return do_mkdirat(AT_FDCWD, pathname, mode); }

int init_mknod(const char *filename, umode_t mode, unsigned int dev)
{
	if (S_ISFIFO(mode) || S_ISSOCK(mode))
		dev = 0;
	else if (!S_ISBLK(mode) && !S_ISCHR(mode))
		return -EINVAL;
	return do_mknodat(AT_FDCWD, filename, mode, new_decode_dev(dev));
}

int init_symlink(const char *oldname, const char *newname) { return do_symlinkat(oldname, AT_FDCWD, newname); }

int init_link(const char *oldname, const char *newname)
{
	return do_linkat(AT_FDCWD, oldname, AT_FDCWD, newname, 0);
}

int init_unlink(const char *pathname) { return do_unlinkat(AT_FDCWD, pathname); }

int init_rmdir(const char *pathname) { return do_rmdir(AT_FDCWD, pathname); }

static int init_setattr(const char *filename, unsigned int lookup_flags, struct iattr *attr)
{
	struct path path;
	int err = kern_path(filename, lookup_flags, &path);
	if (err)
		return err;
	err = notify_change(path.dentry, attr);
	path_put(&path);
	return err;
}

int init_chown(const char *filename, unsigned int user, unsigned int group, int flags)
{
	struct iattr attr = { .ia_valid = ATTR_UID | ATTR_GID, .ia_uid = user, .ia_gid = group };
	return init_setattr(filename, flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW, &attr);
}

int init_chmod(const char *filename, umode_t mode)
{
	struct iattr attr = { .ia_valid = ATTR_MODE, .ia_mode = mode };
	return init_setattr(filename, LOOKUP_FOLLOW, &attr);
}

int init_utimes(const char *filename, long long mtime_seconds)
{
	struct iattr attr = { .ia_valid = ATTR_ATIME | ATTR_MTIME };
	attr.ia_atime.tv_sec = attr.ia_mtime.tv_sec = mtime_seconds;
	/* A symlink's own times, as Linux's init_utimes (kern_path with no
	 * LOOKUP_FOLLOW): the unpacker stamps each symlink it makes, and
	 * following it stamped its target instead. */
	return init_setattr(filename, 0, &attr);
}

struct file *filp_open(const char *filename, int flags, umode_t mode)
{
	struct file *f;
	int err = do_filp_open(NULL, AT_FDCWD, filename, flags, mode, &f);
	return err ? ERR_PTR(err) : f;
}

long kernel_write(struct file *file, const void *buf, size_t count, long long *pos)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_WRITE))
		return -EINVAL;
	long p = (long)*pos;
	long ret = file->f_op->write(file, buf, min(count, (size_t)MAX_RW_COUNT), &p, false);
	*pos = p;
	return ret;
}

long kernel_read(struct file *file, void *buf, size_t count, long long *pos)
{
	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!(file->f_mode & FMODE_CAN_READ))
		return -EINVAL;
	if (*pos < 0)
		return -EINVAL;
	long p = (long)*pos;
	long ret = file->f_op->read(file, buf, min(count, (size_t)MAX_RW_COUNT), &p, false);
	*pos = p;
	return ret;
}

int filp_close(struct file *file)
{
	fput(file);
	return 0;
}
