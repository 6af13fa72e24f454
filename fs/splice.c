/* sendfile(2) and copy_file_range(2): bytes moved from one open file to
 * another inside the kernel (Linux's do_sendfile and vfs_copy_file_range
 * of fs/read_write.c, over fs/splice.c's do_splice_direct), with Linux
 * 6.1's checks in Linux's order.
 *
 * Linux moves the bytes through a pipe: the input's splice_read fills it
 * with page-cache pages, the output's splice_write drains it. mmlab's
 * pipes (fs/pipe.c) hold copies, not page-cache pages, and take no part
 * in that: splice_direct below moves the bytes through a one-page kernel
 * buffer instead, with the same two methods (fs/fs.h) and the same
 * stopping rules: a short or failed write ends the copy, the input's
 * position then counts only what was written, and an error after some
 * bytes moved is dropped for the count. A sendfile whose output is a pipe
 * fills the pipe's free buffers and returns, as Linux's
 * splice_file_to_pipe (below); a pipe is never the input (-EINVAL).
 * vmsplice (the end of the file) moves user pages into a pipe and a
 * pipe's bytes out to user memory.
 *
 * Which files take part, as Linux 6.1's: the input must be a regular
 * file (splice_direct_to_actor) with splice_read: a tmpfs file, read
 * through its page cache, a file of /proc itself, a sysctl or a sysfs
 * attribute (read from its snapshot: fs/proc/inode.c). A /proc/<pid>
 * file, a directory or a character device (/dev/null, the console) is
 * -EINVAL. The output may be any file with splice_write: a tmpfs file,
 * /dev/null, the console, a sysctl or a writable sysfs attribute.
 *
 * Concurrency: as Linux's, neither file's position is taken under
 * f_pos_lock (fdget, not fdget_pos); each read and write of the copy holds
 * the inode's i_rwsem for itself, and a copy to the console holds the
 * tty's write lock throughout, as write(2) does. */
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "fs/pipe_fs_i.h"
#include "fs/poll.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "mm/gup.h"
#include "mm/page_alloc.h"
#include "mm/gfp.h"
#include "mm/slab.h"

long generic_file_splice_read(struct file *in, long *ppos, char *buf, size_t len)
{
	return in->f_op->read(in, buf, len, ppos, false);
}

/* Linux's drains the pipe: after a short write it writes again from where
 * that one stopped, so a write cut by RLIMIT_FSIZE is followed by one at
 * the limit (-EFBIG and SIGXFSZ, the bytes before it still counted). */
long iter_file_splice_write(struct file *out, const char *buf, size_t len, long *ppos)
{
	size_t done = 0;
	while (done < len) {
		long n = out->f_op->write(out, buf + done, len - done, ppos, false);
		if (n <= 0)
			return done ? (long)done : n;
		done += (size_t)n;
	}
	return (long)done;
}

/* The S_IFMT type of an open file: its inode's, a generated node's (a
 * directory or a regular file), or the device's (the console). */
static umode_t file_type(const struct file *f)
{
	if (f->f_inode)
		return f->f_inode->i_mode & S_IFMT;
	if (f->node.entry)
		return proc_node_is_dir(&f->node) ? S_IFDIR : S_IFREG;
	return f->f_op->mode & S_IFMT;
}

/* Linux's do_splice_direct over splice_direct_to_actor: up to len bytes
 * from in at *ppos to out at *opos; both positions moved by what was
 * written. Bytes moved, or an errno when none were. */
static long splice_direct(struct file *in, long *ppos, struct file *out, long *opos, size_t len)
{
	if (out->f_flags & O_APPEND)
		return -EINVAL;
	long ret = rw_verify_area(*opos, len);
	if (ret)
		return ret;
	umode_t type = file_type(in);
	if (!S_ISREG(type) && !S_ISBLK(type))
		return -EINVAL;
	if (!len)
		return 0;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	long bytes = 0;
	tty_write_lock(out);
	while (len) {
		long prev = *ppos;
		/* do_splice_to, then do_splice_from (the actor). */
		ret = in->f_op->splice_read ? in->f_op->splice_read(in, ppos, buf, min(len, (size_t)PAGE_SIZE))
					    : -EINVAL;
		if (ret <= 0)
			break;
		long got = ret;
		ret = out->f_op->splice_write ? out->f_op->splice_write(out, buf, (size_t)got, opos) : -EINVAL;
		if (ret <= 0) {
			*ppos = prev;
			break;
		}
		bytes += ret;
		len -= (size_t)ret;
		if (ret < got) {
			*ppos = prev + ret;
			break;
		}
	}
	tty_write_unlock(out);
	kfree(buf);
	return bytes ? bytes : ret;
}

/* Linux's splice_file_to_pipe, sendfile's way into a pipe: once there
 * is room (wait_for_space; the output's O_NONBLOCK makes it -EAGAIN), the
 * input's bytes from *ppos fill as many buffers as are free, each as the
 * page-cache page it comes from would (from *ppos's place in its page to
 * the page's end), and the call returns: a short count when the pipe
 * filled. Linux's buffers are the page-cache pages themselves; mmlab
 * copies into pages of the pipe's own (splice_read's kernel buffer). */
static long splice_file_to_pipe(struct file *in, struct pipe_inode_info *pipe, long *ppos, size_t len,
				bool nonblock)
{
	if (!in->f_op->splice_read)
		return -EINVAL;
	long total = 0;
	pipe_lock(pipe);
	long ret = pipe_wait_for_space(pipe, nonblock);
	while (!ret && len && !pipe_full(pipe->head, pipe->tail, pipe->max_usage)) {
		struct page *page = alloc_page(GFP_KERNEL_ACCOUNT);
		if (!page) {
			ret = -ENOMEM;
			break;
		}
		size_t off = (size_t)*ppos & (PAGE_SIZE - 1);
		size_t n = min(len, PAGE_SIZE - off);
		long got = in->f_op->splice_read(in, ppos, (char *)page_address(page) + off, n);
		if (got <= 0) { /* the end of the input, or its error */
			__free_page(page);
			ret = got;
			break;
		}
		/* The pipe's lock is held: room and readers are as checked. */
		struct pipe_buffer buf = { page, (unsigned int)off, (unsigned int)got, 0 };
		add_to_pipe(pipe, &buf);
		total += got;
		len -= (size_t)got;
		if ((size_t)got < n)
			break;
	}
	pipe_unlock(pipe);
	if (total > 0)
		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
	return total ? total : ret;
}

/* Linux's do_sendfile: ppos NULL moves in_fd's position, else *ppos moves
 * and in_fd's stays. The output's position always moves. */
static long do_sendfile(int out_fd, int in_fd, long *ppos, size_t count)
{
	struct files_struct *files = current->files;
	struct file *in = fget(files, (unsigned int)in_fd), *out = NULL;
	long ret = -EBADF, pos, out_pos;
	if (!in || !(in->f_mode & FMODE_READ))
		goto out;
	if (!ppos) {
		pos = in->f_pos;
	} else {
		pos = *ppos;
		ret = -ESPIPE;
		if (!(in->f_mode & FMODE_PREAD))
			goto out;
	}
	ret = rw_verify_area(pos, count);
	if (ret)
		goto out;
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	ret = -EBADF;
	out = fget(files, (unsigned int)out_fd);
	if (!out || !(out->f_mode & FMODE_WRITE))
		goto out;
	out_pos = out->f_pos;
	/* Linux cuts the copy at the smaller s_maxbytes of the two files
	 * (-EOVERFLOW past it): MAX_LFS_FILESIZE for every file here, which
	 * pos + count, checked above, cannot pass. */
	struct pipe_inode_info *opipe = get_pipe_info(out);
	if (opipe) {
		ret = splice_file_to_pipe(in, opipe, &pos, count, out->f_flags & O_NONBLOCK);
	} else {
		ret = rw_verify_area(out_pos, count);
		if (ret)
			goto out;
		ret = splice_direct(in, &pos, out, &out_pos, count);
	}
	if (ret > 0) {
		out->f_pos = out_pos;
		if (ppos)
			*ppos = pos;
		else
			in->f_pos = pos;
	}
out:
	fdput(out);
	fdput(in);
	return ret;
}

/* x86_64's sendfile is Linux's sendfile64: a 64-bit offset, no
 * MAX_NON_LFS cut. A bad offset pointer is -EFAULT before anything moves
 * (read) or after (written back: the bytes stay copied). */
SYSCALL_DEFINE4(sendfile, int, out_fd, int, in_fd, long __user *, offset, size_t, count)
{
	if (!offset)
		return do_sendfile(out_fd, in_fd, NULL, count);
	long pos;
	if (copy_from_user(&pos, offset, sizeof(pos)))
		return -EFAULT;
	long ret = do_sendfile(out_fd, in_fd, &pos, count);
	if (copy_to_user(offset, &pos, sizeof(pos)))
		return -EFAULT;
	return ret;
}

/* Linux 6.1's generic_file_rw_checks and generic_copy_file_checks, then
 * vfs_copy_file_range's rw_verify_area on both ranges. tmpfs has no
 * copy_file_range or remap_file_range method, so Linux copies through
 * do_splice_direct, as here. A /proc or /sys file has no inode and so no
 * super block in common with any file: -EXDEV (Linux's /proc files read
 * as size 0 there and copy nothing). */
static long vfs_copy_file_range(struct file *fin, long pos_in, struct file *fout, long pos_out, size_t len)
{
	umode_t tin = file_type(fin), tout = file_type(fout);
	if (S_ISDIR(tin) || S_ISDIR(tout))
		return -EISDIR;
	if (!S_ISREG(tin) || !S_ISREG(tout))
		return -EINVAL;
	if (!(fin->f_mode & FMODE_READ) || !(fout->f_mode & FMODE_WRITE) || (fout->f_flags & O_APPEND))
		return -EBADF;
	struct inode *iin = fin->f_inode, *iout = fout->f_inode;
	if (!iin || !iout || iin->i_sb != iout->i_sb)
		return -EXDEV;
	/* Offsets that wrap, as Linux's unsigned sum (a negative offset
	 * passes unless the sum wraps, and rw_verify_area refuses it). */
	unsigned long count = len;
	if ((unsigned long)pos_in + count < (unsigned long)pos_in ||
	    (unsigned long)pos_out + count < (unsigned long)pos_out)
		return -EOVERFLOW;
	long size_in = READ_ONCE(iin->i_size);
	count = pos_in >= size_in ? 0 : min(count, (unsigned long)(size_in - pos_in));
	int err = generic_write_check_limits(fout, pos_out, &count);
	if (err)
		return err;
	if (iin == iout && pos_out + (long)count > pos_in && pos_out < pos_in + (long)count)
		return -EINVAL;
	if ((err = rw_verify_area(pos_in, count)) || (err = rw_verify_area(pos_out, count)))
		return err;
	if (!count)
		return 0;
	return splice_direct(fin, &pos_in, fout, &pos_out, min(count, (unsigned long)MAX_RW_COUNT));
}

/* Linux 6.1's order: the descriptors (-EBADF), the offsets read
 * (-EFAULT), flags (-EINVAL: none defined), then the copy; the positions
 * (the pointers', else the files') move by what was copied. */
SYSCALL_DEFINE6(copy_file_range, int, fd_in, long __user *, off_in, int, fd_out, long __user *, off_out,
		size_t, len, unsigned int, flags)
{
	struct files_struct *files = current->files;
	struct file *fin = fget(files, (unsigned int)fd_in), *fout = NULL;
	long ret = -EBADF, pos_in, pos_out;
	if (!fin || !(fout = fget(files, (unsigned int)fd_out)))
		goto out;
	ret = -EFAULT;
	if (off_in ? copy_from_user(&pos_in, off_in, sizeof(pos_in)) : (pos_in = fin->f_pos, 0))
		goto out;
	if (off_out ? copy_from_user(&pos_out, off_out, sizeof(pos_out)) : (pos_out = fout->f_pos, 0))
		goto out;
	ret = -EINVAL;
	if (flags)
		goto out;
	ret = vfs_copy_file_range(fin, pos_in, fout, pos_out, len);
	if (ret > 0) {
		pos_in += ret;
		pos_out += ret;
		if (!off_in)
			fin->f_pos = pos_in;
		else if (copy_to_user(off_in, &pos_in, sizeof(pos_in)))
			ret = -EFAULT;
		if (!off_out)
			fout->f_pos = pos_out;
		else if (copy_to_user(off_out, &pos_out, sizeof(pos_out)))
			ret = -EFAULT;
	}
out:
	fdput(fout);
	fdput(fin);
	return ret;
}

/* ---- vmsplice ---- */

/* splice's flags (Linux's include/linux/splice.h). */
#define SPLICE_F_MOVE 0x01
#define SPLICE_F_NONBLOCK 0x02
#define SPLICE_F_MORE 0x04
#define SPLICE_F_GIFT 0x08
#define SPLICE_F_ALL (SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT)
#define VMSPLICE_BATCH 16 /* pages taken at a time (Linux's iter_to_pipe) */

/* Linux's iter_to_pipe: the user pages of the segments go into the pipe
 * by reference (get_user_pages_fast: no copy; a page that cannot be
 * taken, secret memory's among them, is -EFAULT), a buffer per page piece,
 * until the ring is full. The bytes added, or the first error. */
static long iter_to_pipe(struct pipe_inode_info *pipe, const struct iovec *iov, unsigned long nr_segs)
{
	long total = 0, ret = 0;
	for (unsigned long s = 0; s < nr_segs && !ret; s++) {
		unsigned long addr = (unsigned long)iov[s].iov_base;
		size_t left = iov[s].iov_len;
		while (left && !ret) {
			struct page *pages[VMSPLICE_BATCH];
			size_t start = addr & (PAGE_SIZE - 1);
			unsigned long n = (start + left + PAGE_SIZE - 1) / PAGE_SIZE;
			if (n > VMSPLICE_BATCH)
				n = VMSPLICE_BATCH;
			long got = get_user_pages_fast(addr - start, n, 0, pages);
			if (got <= 0) {
				ret = got ? got : -EFAULT;
				break;
			}
			for (long i = 0; i < got; i++) {
				size_t size = left < PAGE_SIZE - start ? left : PAGE_SIZE - start;
				struct pipe_buffer buf = { pages[i], (unsigned int)start, (unsigned int)size, 0 };
				if (ret) { /* the ring filled: the rest go back */
					put_page(pages[i]);
					continue;
				}
				long added = add_to_pipe(pipe, &buf);
				if (added < 0) {
					ret = added;
					continue;
				}
				total += added;
				addr += size;
				left -= size;
				start = 0;
			}
		}
	}
	return total ? total : ret;
}

/* Linux's vmsplice_to_pipe: waits for room once (unless
 * SPLICE_F_NONBLOCK), then adds what fits. */
static long vmsplice_to_pipe(struct file *file, const struct iovec *iov, unsigned long nr_segs,
			     unsigned int flags)
{
	struct pipe_inode_info *pipe = get_pipe_info(file);
	if (!pipe)
		return -EBADF;
	pipe_lock(pipe);
	long ret = pipe_wait_for_space(pipe, flags & SPLICE_F_NONBLOCK);
	if (!ret)
		ret = iter_to_pipe(pipe, iov, nr_segs);
	pipe_unlock(pipe);
	if (ret > 0)
		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
	return ret;
}

/* Linux's vmsplice_to_user: the pipe's bytes copied into the segments;
 * only the first waits for data (unless SPLICE_F_NONBLOCK), the others
 * take what is there. */
static long vmsplice_to_user(struct file *file, const struct iovec *iov, unsigned long nr_segs,
			     unsigned int flags)
{
	if (!get_pipe_info(file))
		return -EBADF;
	long total = 0;
	for (unsigned long s = 0; s < nr_segs; s++) {
		if (!iov[s].iov_len)
			continue;
		long n = pipe_read_to(file, iov[s].iov_base, iov[s].iov_len, true,
				      total > 0 || (flags & SPLICE_F_NONBLOCK));
		if (n < 0)
			return total ? total : n;
		total += n;
		if ((size_t)n < iov[s].iov_len)
			break;
	}
	return total;
}

/* Linux's vmsplice: a file open for writing takes the user's pages, one
 * open for reading gives its bytes (only a pipe: -EBADF otherwise). */
SYSCALL_DEFINE4(vmsplice, int, fd, const struct iovec __user *, uiov, unsigned long, nr_segs, unsigned int, flags)
{
	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	struct file *f = fget(current->files, (unsigned int)fd);
	if (!f || !(f->f_mode & (FMODE_READ | FMODE_WRITE))) {
		fdput(f);
		return -EBADF;
	}
	struct iovec *iov;
	long ret = import_iovec(uiov, nr_segs, &iov);
	if (ret > 0)
		ret = (f->f_mode & FMODE_WRITE) ? vmsplice_to_pipe(f, iov, nr_segs, flags)
						: vmsplice_to_user(f, iov, nr_segs, flags);
	kfree(iov);
	fdput(f);
	return ret;
}
