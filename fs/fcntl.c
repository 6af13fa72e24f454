/* dup, dup2, dup3 and fcntl (Linux's fs/fcntl.c and fs/file.c's
 * do_dup2/replace_fd): more descriptors for one open file, and the
 * descriptor's and the file's flags.
 *
 * A duplicate shares the struct file (one more reference): its offset,
 * its O_APPEND and O_NONBLOCK; the close-on-exec flag is the
 * descriptor's own. Limits as Linux's: the table's size (64 here) and
 * RLIMIT_NOFILE, whichever is smaller: -EMFILE when no descriptor is
 * free below it, -EBADF for dup2 to one at or above it, -EINVAL for
 * F_DUPFD from one at or above it. Locking: files->file_lock for the
 * table (fs/file.c); f_flags' O_APPEND and O_NONBLOCK change under the
 * file's f_pos_lock (Linux's f_lock). */
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "fs/pipe_fs_i.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/memfd.h"

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1

/* RLIMIT_NOFILE, capped at the table's size. */
static unsigned int nofile_limit(void)
{
	struct signal_struct *sig = current->signal;
	unsigned long lim = sig ? READ_ONCE(sig->rlim[RLIMIT_NOFILE].rlim_cur) : NR_OPEN_DEFAULT;
	return lim < NR_OPEN_DEFAULT ? (unsigned int)lim : NR_OPEN_DEFAULT;
}

/* The lowest free fd >= start, below the limit, given f (which takes one
 * more reference): the fd, or -EMFILE. */
static int f_dupfd(struct files_struct *files, unsigned int start, struct file *f, bool cloexec)
{
	unsigned int limit = nofile_limit();
	int fd = -EMFILE;
	spin_lock(&files->file_lock);
	for (unsigned int i = start; i < limit; i++) {
		if (!(files->open_fds & (1ul << i))) {
			fd = (int)i;
			break;
		}
	}
	if (fd >= 0) {
		__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
		files->fd[fd] = f;
		files->open_fds |= 1ul << fd;
		if (cloexec)
			files->close_on_exec |= 1ul << fd;
		else
			files->close_on_exec &= ~(1ul << fd);
	}
	spin_unlock(&files->file_lock);
	return fd;
}

SYSCALL_DEFINE1(dup, unsigned int, fildes)
{
	struct file *f = fget(current->files, fildes);
	if (!f)
		return -EBADF;
	int ret = f_dupfd(current->files, 0, f, false);
	fput(f);
	return ret;
}

/* Linux's do_dup2: newfd now names oldfd's file; what it named before is
 * closed (after the table is unlocked). A newfd reserved by an open in
 * another thread is -EBUSY, as Linux's. */
static long do_dup2(struct files_struct *files, unsigned int oldfd, unsigned int newfd, bool cloexec)
{
	if (newfd >= nofile_limit())
		return -EBADF;
	struct file *f = fget(files, oldfd);
	if (!f)
		return -EBADF;
	spin_lock(&files->file_lock);
	struct file *old = files->fd[newfd];
	if (!old && (files->open_fds & (1ul << newfd))) {
		spin_unlock(&files->file_lock);
		fput(f);
		return -EBUSY;
	}
	files->fd[newfd] = f; /* the table takes fget's reference */
	files->open_fds |= 1ul << newfd;
	if (cloexec)
		files->close_on_exec |= 1ul << newfd;
	else
		files->close_on_exec &= ~(1ul << newfd);
	spin_unlock(&files->file_lock);
	if (old)
		fput(old);
	return newfd;
}

SYSCALL_DEFINE3(dup3, unsigned int, oldfd, unsigned int, newfd, int, flags)
{
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (oldfd == newfd)
		return -EINVAL;
	return do_dup2(current->files, oldfd, newfd, flags & O_CLOEXEC);
}

SYSCALL_DEFINE2(dup2, unsigned int, oldfd, unsigned int, newfd)
{
	if (oldfd == newfd) { /* Linux: newfd if oldfd is open */
		struct file *f = fget(current->files, oldfd);
		fdput(f);
		return f ? (long)newfd : -EBADF;
	}
	return do_dup2(current->files, oldfd, newfd, false);
}

#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_NOATIME)

SYSCALL_DEFINE3(fcntl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct files_struct *files = current->files;
	struct file *f = fget(files, fd);
	if (!f)
		return -EBADF;
	long ret;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		ret = arg >= nofile_limit() ? -EINVAL : f_dupfd(files, (unsigned int)arg, f, cmd == F_DUPFD_CLOEXEC);
		break;
	case F_GETFD:
		ret = (READ_ONCE(files->close_on_exec) >> fd) & 1 ? FD_CLOEXEC : 0;
		break;
	case F_SETFD:
		set_close_on_exec(files, (int)fd, arg & FD_CLOEXEC);
		ret = 0;
		break;
	case F_GETFL:
		ret = f->f_flags;
		break;
	case F_SETFL:
		/* Linux's setfl: only these change; the access mode and the
		 * creation flags stay. */
		mutex_lock(&f->f_pos_lock);
		f->f_flags = (f->f_flags & ~(unsigned int)SETFL_MASK) | ((unsigned int)arg & SETFL_MASK);
		mutex_unlock(&f->f_pos_lock);
		ret = 0;
		break;
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		ret = pipe_fcntl(f, cmd, (unsigned int)arg);
		break;
	case F_ADD_SEALS:
	case F_GET_SEALS:
		ret = memfd_fcntl(f, cmd, arg);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	fput(f);
	return ret;
}
