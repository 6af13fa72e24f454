/* getdents64(2) (Linux's fs/readdir.c): a directory's entries from its
 * f_pos on, as struct linux_dirent64 records, by the file's
 * iterate_shared method (tmpfs: dcache_readdir; /proc and /sys:
 * procfs_readdir). f_pos is the next entry's position, so consecutive
 * calls go on where the last stopped; each record's d_off is the position
 * after it (what lseek to resume there takes).
 *
 * The records are built in a kernel buffer (the method may hold
 * dcache_lock, under which no user copy may fault) and copied out at the
 * end. Errnos as Linux's: -EBADF, -ENOTDIR (no iterate_shared), -EFAULT
 * (the buffer is not user memory), -EINVAL (not even the first record
 * fits). */
#include "fs/fs.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/slab.h"
#include "mm/util.h"

struct linux_dirent64 {
	u64 d_ino;
	s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct getdents_callback64 {
	struct dir_context ctx;
	char *buf;
	size_t count, used;
	bool too_small; /* the first record did not fit */
};

static bool filldir64(struct dir_context *ctx, const char *name, int namlen, long offset, unsigned long ino,
		      unsigned int d_type)
{
	struct getdents_callback64 *cb = container_of(ctx, struct getdents_callback64, ctx);
	size_t reclen = ALIGN_UP(offsetof(struct linux_dirent64, d_name) + (size_t)namlen + 1, 8);
	if (cb->used + reclen > cb->count) {
		if (!cb->used)
			cb->too_small = true;
		return false;
	}
	struct linux_dirent64 *d = (struct linux_dirent64 *)(cb->buf + cb->used);
	memset(d, 0, reclen);
	d->d_ino = ino;
	d->d_off = offset + 1;
	d->d_reclen = (unsigned short)reclen;
	d->d_type = (unsigned char)d_type;
	memcpy(d->d_name, name, (size_t)namlen);
	cb->used += reclen;
	return true;
}

long files_getdents64(struct file *f, void *dirent, size_t count, bool user)
{
	if (!f->f_op->iterate_shared)
		return -ENOTDIR;
	if (user && !access_ok(dirent, count))
		return -EFAULT;
	if (count > 65536) /* one call lists at most this much */
		count = 65536;
	struct getdents_callback64 cb = { .ctx = { .actor = filldir64, .pos = f->f_pos }, .count = count };
	cb.buf = kvmalloc(count ? count : 1, GFP_KERNEL);
	if (!cb.buf)
		return -ENOMEM;
	long ret = f->f_op->iterate_shared(f, &cb.ctx);
	if (!ret) {
		if (cb.too_small)
			ret = -EINVAL;
		else if (file_copy_out(dirent, cb.buf, cb.used, user))
			ret = -EFAULT;
		else
			ret = (long)cb.used;
		if (ret >= 0)
			f->f_pos = cb.ctx.pos;
	}
	kvfree(cb.buf);
	return ret;
}

SYSCALL_DEFINE3(getdents64, unsigned int, fd, void __user *, dirent, unsigned int, count)
{
	struct file *f = fdget_pos(current->files, fd);
	if (!f)
		return -EBADF;
	long ret = files_getdents64(f, dirent, count, true);
	fdput_pos(f);
	return ret;
}
