/* ioctl(2) (Linux's fs/ioctl.c): the file's own method (the console's
 * tty_ioctl, drivers/tty/tty_io.c); every other file has none (-ENOTTY,
 * as vfs_ioctl gives). */
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"

SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	long ret = f->f_op->unlocked_ioctl ? f->f_op->unlocked_ioctl(f, cmd, arg) : -ENOTTY;
	fput(f);
	return ret;
}
