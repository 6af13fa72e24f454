/* ioctl(2) (Linux's fs/ioctl.c): the commands every file takes
 * (do_vfs_ioctl: FIOCLEX, FIONCLEX, FIONBIO, and FIONREAD on a regular
 * file), then the file's own method (the console's tty_ioctl,
 * drivers/tty/tty_io.c; a pipe's FIONREAD, fs/pipe.c); a file without one
 * gives -ENOTTY, as vfs_ioctl does. */
#include "arch/x86_64/uaccess.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"

/* Linux's include/uapi/asm-generic/ioctls.h. */
#define FIONREAD 0x541B
#define FIONBIO 0x5421
#define FIONCLEX 0x5450
#define FIOCLEX 0x5451

/* Linux's ioctl_fionbio: O_NONBLOCK on or off as the int at argp says
 * (under f_pos_lock, where fcntl's F_SETFL changes it: fs/fcntl.c). */
static long ioctl_fionbio(struct file *filp, const void __user *argp)
{
	u32 on;
	if (get_user_u32(&on, argp))
		return -EFAULT;
	mutex_lock(&filp->f_pos_lock);
	if (on)
		filp->f_flags |= O_NONBLOCK;
	else
		filp->f_flags &= ~(unsigned int)O_NONBLOCK;
	mutex_unlock(&filp->f_pos_lock);
	return 0;
}

SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	long ret;
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		set_close_on_exec(current->files, (int)fd, cmd == FIOCLEX);
		ret = 0;
		break;
	case FIONBIO:
		ret = ioctl_fionbio(f, (const void __user *)arg);
		break;
	case FIONREAD:
		if (f->f_inode && S_ISREG(f->f_inode->i_mode)) {
			long left = READ_ONCE(f->f_inode->i_size) - f->f_pos;
			ret = put_user_u32((u32)left, (void __user *)arg) ? -EFAULT : 0;
			break;
		}
		__attribute__((fallthrough)); /* the file's own */
	default:
		ret = f->f_op->unlocked_ioctl ? f->f_op->unlocked_ioctl(f, cmd, arg) : -ENOTTY;
		break;
	}
	fput(f);
	return ret;
}
