/* How a pipe's files come to be (Linux 6.1's fs/pipe.c): pipe 22 and
 * pipe2 293, two files on one inode of the internal pipefs, and the open
 * of a FIFO, a tmpfs node of type S_IFIFO whose pipe lives while some file
 * of it is open (inode->i_pipe). The pipe itself, its reads, writes and
 * poll, is fs/pipe.c's.
 *
 * pipe2 takes O_CLOEXEC, O_NONBLOCK and O_DIRECT (packet mode);
 * O_NOTIFICATION_PIPE and anything else is -EINVAL. */
#include "fs/pipe_fs_i.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "kernel/cred.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"

#define PIPEFS_MAGIC 0x50495045

static struct super_block pipefs_sb = {
	.s_magic = PIPEFS_MAGIC, .s_type = "pipefs", .s_next_ino = 1, .s_blocksize = PAGE_SIZE,
};

static void pipe_file(struct file *f, struct inode *inode, struct pipe_inode_info *pipe, unsigned int flags,
		      unsigned int mode)
{
	f->f_op = &pipefifo_fops;
	f->f_inode = inode;
	f->f_mapping = inode->i_mapping;
	f->private_data = pipe;
	f->f_flags = flags;
	f->f_mode = mode;
}

/* Linux's create_pipe_files: an inode of pipefs (S_IFIFO, 0600) with its
 * pipe, a write end (O_WRONLY, with O_NONBLOCK and O_DIRECT of flags) and
 * a read end (O_RDONLY, O_NONBLOCK); each holds a reference to the
 * inode. */
static int create_pipe_files(struct file **res, int flags)
{
	struct inode *inode = new_inode(&pipefs_sb);
	if (!inode)
		return -ENOMEM;
	struct pipe_inode_info *pipe = alloc_pipe_info();
	if (!pipe) {
		iput(inode);
		return -ENOMEM;
	}
	inode->i_pipe = pipe;
	pipe->files = 2;
	pipe->readers = pipe->writers = 1;
	inode->i_mode = S_IFIFO | 0600;
	inode->i_uid = current_cred()->fsuid;
	inode->i_gid = current_cred()->fsgid;
	res[0] = alloc_file();
	res[1] = alloc_file();
	if (!res[0] || !res[1]) { /* files with no f_op: fput only frees them */
		if (res[0])
			fput(res[0]);
		if (res[1])
			fput(res[1]);
		inode->i_pipe = NULL;
		free_pipe_info(pipe);
		iput(inode);
		return -ENOMEM;
	}
	ihold(inode); /* the second file's */
	unsigned int fl = (unsigned int)flags;
	pipe_file(res[1], inode, pipe, O_WRONLY | (fl & (O_NONBLOCK | O_DIRECT)), FMODE_WRITE | FMODE_CAN_WRITE);
	pipe_file(res[0], inode, pipe, O_RDONLY | (fl & O_NONBLOCK), FMODE_READ | FMODE_CAN_READ);
	return 0;
}

/* Linux's __do_pipe_flags: the two files and two reserved fds (fd[0]
 * the read end), or an errno with nothing left behind. */
static int __do_pipe_flags(struct files_struct *files, int fd[2], struct file **res, int flags)
{
	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	int error = create_pipe_files(res, flags);
	if (error)
		return error;
	fd[0] = alloc_fd(files);
	fd[1] = fd[0] >= 0 ? alloc_fd(files) : -1;
	if (fd[1] >= 0)
		return 0;
	error = fd[0] < 0 ? fd[0] : fd[1];
	if (fd[0] >= 0)
		put_unused_fd(files, fd[0]);
	fput(res[0]);
	fput(res[1]);
	return error;
}

static void pipe_fd_install(struct files_struct *files, const int fd[2], struct file **res, int flags)
{
	for (int i = 0; i < 2; i++) {
		set_close_on_exec(files, fd[i], flags & O_CLOEXEC);
		fd_install(files, fd[i], res[i]);
	}
}

int files_pipe2(struct files_struct *files, int fd[2], int flags)
{
	struct file *res[2];
	int error = __do_pipe_flags(files, fd, res, flags);
	if (!error)
		pipe_fd_install(files, fd, res, flags);
	return error;
}

/* Linux's do_pipe2: the descriptors reach the table only once the user
 * has them. */
static long do_pipe2(int __user *fildes, int flags)
{
	struct files_struct *files = current->files;
	struct file *res[2];
	int fd[2];
	int error = __do_pipe_flags(files, fd, res, flags);
	if (error)
		return error;
	if (copy_to_user(fildes, fd, sizeof(fd))) {
		put_unused_fd(files, fd[0]);
		put_unused_fd(files, fd[1]);
		fput(res[0]);
		fput(res[1]);
		return -EFAULT;
	}
	pipe_fd_install(files, fd, res, flags);
	return 0;
}

SYSCALL_DEFINE2(pipe2, int __user *, fildes, int, flags) { return do_pipe2(fildes, flags); }
SYSCALL_DEFINE1(pipe, int __user *, fildes) { return do_pipe2(fildes, 0); }

/* ---- FIFOs ---- */

/* A FIFO's open (Linux's fifo_open) waits for the other side: O_RDONLY
 * until a writer opens (not with O_NONBLOCK), O_WRONLY until a reader
 * does (-ENXIO at once with O_NONBLOCK); O_RDWR never waits. */
static int wait_for_partner(struct pipe_inode_info *pipe, unsigned int *cnt)
{
	DEFINE_WAIT(rdwait);
	unsigned int cur = *cnt;
	while (cur == READ_ONCE(*cnt)) {
		prepare_to_wait(&pipe->rd_wait, &rdwait, TASK_INTERRUPTIBLE);
		pipe_unlock(pipe);
		if (cur == READ_ONCE(*cnt) && !signal_pending(current))
			schedule();
		finish_wait(&pipe->rd_wait, &rdwait);
		pipe_lock(pipe);
		if (signal_pending(current))
			break;
	}
	return cur == *cnt ? -ERESTARTSYS : 0;
}

static void wake_up_partner(struct pipe_inode_info *pipe) { wake_up_interruptible_all(&pipe->rd_wait); }

int fifo_open(struct inode *inode, struct file *filp)
{
	filp->f_version = 0;
	spin_lock(&pipe_inode_lock);
	struct pipe_inode_info *pipe = inode->i_pipe;
	if (pipe)
		pipe->files++;
	spin_unlock(&pipe_inode_lock);
	if (!pipe) {
		struct pipe_inode_info *fresh = alloc_pipe_info();
		if (!fresh)
			return -ENOMEM;
		fresh->files = 1;
		spin_lock(&pipe_inode_lock);
		pipe = inode->i_pipe;
		if (pipe) { /* another open made one meanwhile */
			pipe->files++;
		} else {
			inode->i_pipe = fresh;
			pipe = fresh;
			fresh = NULL;
		}
		spin_unlock(&pipe_inode_lock);
		if (fresh)
			free_pipe_info(fresh);
	}
	filp->private_data = pipe;
	/* Only reads and writes: no offset (Linux's stream_open). */
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD);
	int ret = 0;
	pipe_lock(pipe);
	switch (filp->f_mode & (FMODE_READ | FMODE_WRITE)) {
	case FMODE_READ:
		pipe->r_counter++;
		if (pipe->readers++ == 0)
			wake_up_partner(pipe);
		if (!pipe->writers) {
			if (filp->f_flags & O_NONBLOCK) {
				filp->f_version = pipe->w_counter; /* no POLLHUP until a writer came */
			} else if (wait_for_partner(pipe, &pipe->w_counter)) {
				if (!--pipe->readers)
					wake_up_interruptible(&pipe->wr_wait);
				ret = -ERESTARTSYS;
			}
		}
		break;
	case FMODE_WRITE:
		if ((filp->f_flags & O_NONBLOCK) && !pipe->readers) {
			ret = -ENXIO;
			break;
		}
		pipe->w_counter++;
		if (!pipe->writers++)
			wake_up_partner(pipe);
		if (!pipe->readers && wait_for_partner(pipe, &pipe->r_counter)) {
			if (!--pipe->writers)
				wake_up_interruptible_all(&pipe->rd_wait);
			ret = -ERESTARTSYS;
		}
		break;
	case FMODE_READ | FMODE_WRITE:
		pipe->readers++;
		pipe->writers++;
		pipe->r_counter++;
		pipe->w_counter++;
		if (pipe->readers == 1 || pipe->writers == 1)
			wake_up_partner(pipe);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	pipe_unlock(pipe);
	if (ret) {
		put_pipe_info(inode, pipe);
		return ret;
	}
	ihold(inode); /* pipe_release's iput */
	return 0;
}

