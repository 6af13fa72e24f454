/* read, write, their vector and positional forms, and lseek (Linux's
 * fs/read_write.c): the checks of vfs_read/vfs_write and rw_verify_area
 * in Linux's order, then the file's own method.
 *
 * Concurrency: f_pos of a file with FMODE_ATOMIC_POS (regular files and
 * directories: procfs, sysfs) is read and moved under f->f_pos_lock by
 * read, write, readv, writev and lseek (fdget_pos); pread never touches
 * f_pos. A write to the console holds its tty write lock for the whole
 * call (drivers/tty/tty_io.c). */
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "mm/slab.h"

int rw_verify_area(long pos, size_t count)
{
	if ((long)count < 0 || pos < 0 || (long)((unsigned long)pos + count) < 0)
		return -EINVAL;
	return 0;
}

/* vfs_read()'s checks, in Linux's order. */
static long do_read(struct file *f, void *buf, size_t count, long *pos, bool user)
{
	if (!f || !(f->f_mode & FMODE_READ))
		return -EBADF;
	if (!(f->f_mode & FMODE_CAN_READ))
		return -EINVAL;
	if (user && !access_ok(buf, count))
		return -EFAULT;
	int err = rw_verify_area(*pos, count);
	if (err)
		return err;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	return f->f_op->read(f, buf, count, pos, user);
}

static long do_pread(struct file *f, void *buf, size_t count, long pos, bool user)
{
	if (pos < 0)
		return -EINVAL;
	if (!f)
		return -EBADF;
	if (!(f->f_mode & FMODE_PREAD))
		return -ESPIPE;
	return do_read(f, buf, count, &pos, user);
}

static long do_write(struct file *f, const void *buf, size_t count, long *pos, bool user)
{
	if (!f || !(f->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!(f->f_mode & FMODE_CAN_WRITE))
		return -EINVAL;
	if (user && !access_ok(buf, count))
		return -EFAULT;
	int err = rw_verify_area(*pos, count);
	if (err)
		return err;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	return f->f_op->write(f, buf, count, pos, user);
}

/* ksys_read, ksys_pread64, ksys_write, ksys_lseek: the file held for the
 * call (fdget_pos where f_pos is used, fdget for pread). */
static long ksys_read(struct files_struct *files, unsigned int fd, void *buf, size_t count, bool user)
{
	struct file *f = fdget_pos(files, fd);
	long ret = do_read(f, buf, count, f ? &f->f_pos : NULL, user);
	fdput_pos(f);
	return ret;
}

static long ksys_pread64(struct files_struct *files, unsigned int fd, void *buf, size_t count,
			 long pos, bool user)
{
	if (pos < 0) /* before the descriptor, as Linux */
		return -EINVAL;
	struct file *f = fget(files, fd);
	long ret = do_pread(f, buf, count, pos, user);
	fdput(f);
	return ret;
}

static long ksys_write(struct files_struct *files, unsigned int fd, const void *buf, size_t count,
		       bool user)
{
	struct file *f = fdget_pos(files, fd);
	tty_write_lock(f);
	long ret = do_write(f, buf, count, f ? &f->f_pos : NULL, user);
	tty_write_unlock(f);
	fdput_pos(f);
	return ret;
}

long files_read(struct files_struct *files, unsigned int fd, void *buf, size_t count)
{
	return ksys_read(files, fd, buf, count, false);
}

long files_pread(struct files_struct *files, unsigned int fd, void *buf, size_t count, long pos)
{
	return ksys_pread64(files, fd, buf, count, pos, false);
}

long files_write(struct files_struct *files, unsigned int fd, const void *buf, size_t count)
{
	return ksys_write(files, fd, buf, count, false);
}

long files_lseek(struct files_struct *files, unsigned int fd, long offset, int whence)
{
	struct file *f = fdget_pos(files, fd);
	long ret;
	if (!f)
		ret = -EBADF;
	else if (whence < 0 || whence > SEEK_HOLE)
		ret = -EINVAL;
	else if (!(f->f_mode & FMODE_LSEEK))
		ret = -ESPIPE;
	else
		ret = f->f_op->llseek(f, offset, whence);
	fdput_pos(f);
	return ret;
}

SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(current->files, fd, buf, count, true);
}

SYSCALL_DEFINE3(write, unsigned int, fd, const char __user *, buf, size_t, count)
{
	return ksys_write(current->files, fd, buf, count, true);
}

/* readv and writev, in today's Linux order (fs/read_write.c do_readv/
 * vfs_readv and lib/iov_iter.c __import_iovec; seen on the host's 6.18):
 * EBADF for no file or one not open for that direction, EINVAL for one that
 * cannot do it; then the vector: more than UIO_MAXIOV entries is EINVAL
 * (the count taken as unsigned int, as import_iovec's nr_segs), it is
 * copied in whole (EFAULT), a length negative as ssize_t is EINVAL, a
 * segment outside user space EFAULT, and the total is capped at
 * MAX_RW_COUNT by shortening the entries that pass it; an empty total is 0.
 * (Linux 6.1 imported the vector before looking at the file's mode.) The
 * entries are transferred in order: a short transfer ends the call, and an
 * error after some bytes were transferred returns the count so far. */
long import_iovec(const struct iovec __user *uvec, unsigned long vlen, struct iovec **iovp)
{
	unsigned int nr_segs = (unsigned int)vlen;
	size_t total = 0;
	*iovp = NULL;
	if (nr_segs > UIO_MAXIOV)
		return -EINVAL;
	if (!nr_segs)
		return 0;
	struct iovec *iov = kcalloc(nr_segs, sizeof(*iov), GFP_KERNEL);
	if (!iov)
		return -ENOMEM;
	long ret = -EFAULT;
	if (copy_from_user(iov, uvec, nr_segs * sizeof(*iov)))
		goto fail;
	ret = -EINVAL;
	for (unsigned int i = 0; i < nr_segs; i++)
		if ((long)iov[i].iov_len < 0)
			goto fail;
	/* Each segment must lie in user space (access_ok on its whole
	 * length, before the MAX_RW_COUNT cut). */
	ret = -EFAULT;
	for (unsigned int i = 0; i < nr_segs; i++) {
		if (!access_ok(iov[i].iov_base, iov[i].iov_len))
			goto fail;
		if (iov[i].iov_len > MAX_RW_COUNT - total)
			iov[i].iov_len = MAX_RW_COUNT - total;
		total += iov[i].iov_len;
	}
	*iovp = iov;
	return (long)total;
fail:
	kfree(iov);
	return ret;
}

static long do_iov(unsigned long fd, const struct iovec __user *uvec, unsigned long vlen, bool write)
{
	/* do_readv/do_writev: fdget_pos, held to the end. */
	struct file *f = fdget_pos(current->files, (unsigned int)fd);
	struct iovec *iov = NULL;
	unsigned int nr_segs = (unsigned int)vlen;
	long ret = 0;
	if (!f || !(f->f_mode & (write ? FMODE_WRITE : FMODE_READ))) {
		ret = -EBADF;
		goto out;
	}
	if (!(f->f_mode & (write ? FMODE_CAN_WRITE : FMODE_CAN_READ))) {
		ret = -EINVAL;
		goto out;
	}
	long imported = import_iovec(uvec, vlen, &iov);
	if (imported < 0) {
		ret = imported;
		goto out;
	}
	size_t total = (size_t)imported;
	if (!total)
		goto out;
	if (write)
		tty_write_lock(f);
	for (unsigned int i = 0; i < nr_segs; i++) {
		if (!iov[i].iov_len)
			continue;
		/* Linux cuts the whole vector to RLIMIT_FSIZE at once
		 * (generic_write_checks): a later segment that starts at the
		 * limit ends the call, with no SIGXFSZ. */
		if (write && ret && f->f_inode && S_ISREG(f->f_inode->i_mode) &&
		    (unsigned long)f->f_pos >= rlimit(RLIMIT_FSIZE))
			break;
		long n = write ? do_write(f, iov[i].iov_base, iov[i].iov_len, &f->f_pos, true)
			       : do_read(f, iov[i].iov_base, iov[i].iov_len, &f->f_pos, true);
		if (n < 0) {
			if (!ret)
				ret = n;
			break;
		}
		ret += n;
		if ((size_t)n < iov[i].iov_len)
			break;
	}
	if (write)
		tty_write_unlock(f);
out:
	kfree(iov);
	fdput_pos(f);
	return ret;
}

SYSCALL_DEFINE3(readv, unsigned long, fd, const struct iovec __user *, vec, unsigned long, vlen)
{
	return do_iov(fd, vec, vlen, false);
}

SYSCALL_DEFINE3(writev, unsigned long, fd, const struct iovec __user *, vec, unsigned long, vlen)
{
	return do_iov(fd, vec, vlen, true);
}

SYSCALL_DEFINE4(pread64, unsigned int, fd, char __user *, buf, size_t, count, long, pos)
{
	return ksys_pread64(current->files, fd, buf, count, pos, true);
}

/* pwrite64: as pread64, at pos without moving f_pos (a file opened
 * O_APPEND still appends, as Linux's). */
static long ksys_pwrite64(struct files_struct *files, unsigned int fd, const void *buf, size_t count,
			  long pos, bool user)
{
	if (pos < 0)
		return -EINVAL;
	struct file *f = fget(files, fd);
	long ret;
	if (!f)
		ret = -EBADF;
	else if (!(f->f_mode & FMODE_WRITE))
		ret = -EBADF;
	else if (!(f->f_mode & FMODE_PREAD))
		ret = -ESPIPE;
	else
		ret = do_write(f, buf, count, &pos, user);
	fdput(f);
	return ret;
}

SYSCALL_DEFINE4(pwrite64, unsigned int, fd, const char __user *, buf, size_t, count, long, pos)
{
	return ksys_pwrite64(current->files, fd, buf, count, pos, true);
}

long files_pwrite(struct files_struct *files, unsigned int fd, const void *buf, size_t count, long pos)
{
	return ksys_pwrite64(files, fd, buf, count, pos, false);
}

SYSCALL_DEFINE3(lseek, unsigned int, fd, long, offset, unsigned int, whence)
{
	return files_lseek(current->files, fd, offset, whence > SEEK_HOLE ? -1 : (int)whence);
}

/* generic_file_llseek(): the end is the inode's i_size (a generated
 * file's: its methods' size). */
long generic_file_llseek(struct file *f, long offset, int whence)
{
	return generic_file_llseek_size(f, offset, whence, f->f_inode ? READ_ONCE(f->f_inode->i_size) : f->f_op->size);
}

long generic_file_llseek_size(struct file *f, long offset, int whence, long eof)
{
	switch (whence) {
	case SEEK_END:
		if (__builtin_add_overflow(offset, eof, &offset))
			return -EINVAL;
		break;
	case SEEK_CUR:
		if (offset == 0)
			return f->f_pos;
		if (__builtin_add_overflow(offset, f->f_pos, &offset))
			return -EINVAL;
		break;
	case SEEK_DATA:
		if (offset < 0 || offset >= eof)
			return -ENXIO;
		break;
	case SEEK_HOLE:
		if (offset < 0 || offset >= eof)
			return -ENXIO;
		offset = eof;
		break;
	}
	if (offset < 0)
		return -EINVAL;
	f->f_pos = offset;
	return offset;
}

long no_llseek(struct file *f, long offset, int whence)
{
	(void)f, (void)offset, (void)whence;
	return -ESPIPE;
}
