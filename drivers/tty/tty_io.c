/* Terminal files (Linux's drivers/tty/tty_io.c): two kinds.
 *
 * The console line of the kernel's test and boot programs: the files
 * behind a process's fd 0 (reads as end of file), 1 and 2 (line-buffered,
 * prefixed output through drivers/tty/console_line.c), their ioctls, and
 * the write lock that keeps one write() whole. This keeps the serial log
 * whole and KTAP parseable while programs run (docs/tty.md).
 *
 * Real terminals (struct tty_struct, drivers/tty/tty_struct.h): the files
 * of /dev/ttyS0 (4:64), /dev/ttyS1 (4:65), /dev/console (5:1: the
 * console's port) and /dev/tty (5:0: the caller's controlling terminal,
 * -ENXIO without one), through the n_tty line discipline; their opens
 * give a session leader its controlling terminal, and a hangup
 * (tty_vhangup) turns every open file into a hung-up one (reads end of
 * file, writes and ioctls -EIO, as Linux's hung_up_tty_fops).
 *
 * Concurrency: the console (fd 1 and 2 of every thread) is written under
 * the process's console_tty.atomic_write_lock for a whole write() or
 * writev() (tty_write_lock, which writev also goes through), so the bytes
 * of one call stay together: lines of two threads meet only at the
 * borders of write calls. Order: atomic_write_lock -> mmap_lock (the copy
 * from user) and -> the console's printk lock. */
#include "drivers/tty/tty.h"
#include "drivers/tty/tty_struct.h"
#include "arch/x86_64/uaccess.h"
#include "fs/char_dev.h"
#include "fs/fs.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

static long console_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	(void)pos; /* a stream: no position */
	char chunk[128];
	size_t done = 0;
	long ret = (long)count;
	/* The caller holds atomic_write_lock (tty_write_lock). */
	while (done < count) {
		size_t n = min(count - done, sizeof(chunk));
		size_t got = n - file_copy_in(chunk, src + done, n, user);
		console_line_put(&f->console->line, chunk, got);
		done += got;
		if (got < n) {
			ret = done ? (long)done : -EFAULT;
			break;
		}
		/* A write of gigabytes must not hold the CPU (the kernel is not
		 * preemptible, and RCU waits for this CPU). */
		cond_resched();
	}
	return ret;
}

static long console_read_eof(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)f, (void)dst, (void)count, (void)pos, (void)user;
	return 0;
}

/* What Linux's ttyS0 reports when it is the console at 115200n8:
 * tty_std_termios (iflag ICRNL|IXON, oflag OPOST|ONLCR, lflag ISIG|ICANON|
 * ECHO|ECHOE|ECHOK|ECHOCTL|ECHOKE|IEXTEN, INIT_C_CC) with the console's
 * cflag B115200|CS8|CREAD|HUPCL|CLOCAL (uart_port_startup copies the
 * console's cflag into the tty's termios). */
static const struct termios console_termios = {
	.c_iflag = 0000400 | 0002000,
	.c_oflag = 0000001 | 0000004,
	.c_cflag = 0010002 | 0000060 | 0000200 | 0002000 | 0004000,
	.c_lflag = 0000001 | 0000002 | 0000010 | 0000020 | 0000040 | 0001000 | 0004000 | 0100000,
	.c_line = 0,
	.c_cc = { 003, 034, 0177, 025, 004, 0, 1, 0, 021, 023, 032, 0, 022, 017, 027, 026, 0 },
};

/* Linux's tty_ioctl as the console line answers it (TCGETS, TIOCGWINSZ: a serial line
 * has no size, 0x0 as Linux's ttyS0); -ENOTTY for a command it does not
 * know. */
static long console_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	(void)f; /* the answers need nothing of the file */
	switch (cmd) {
	case TCGETS:
		return copy_to_user((void *)arg, &console_termios, sizeof(console_termios)) ? -EFAULT : 0;
	case TIOCGWINSZ: {
		struct winsize ws = { 0, 0, 0, 0 };
		return copy_to_user((void *)arg, &ws, sizeof(ws)) ? -EFAULT : 0;
	}
	default:
		return -ENOTTY;
	}
}

static const struct file_operations console_in_fops = {
	.read = console_read_eof, .llseek = no_llseek, .unlocked_ioctl = console_ioctl,
	.mode = S_IFCHR | 0620, .blksize = 1024,
};
static const struct file_operations console_out_fops = {
	.write = console_write, .llseek = no_llseek, .unlocked_ioctl = console_ioctl,
	.splice_write = iter_file_splice_write,
	.mode = S_IFCHR | 0620, .blksize = 1024,
};

struct file *tty_console_file(struct console_tty *tty, bool out)
{
	struct file *f = alloc_file();
	if (!f)
		return NULL;
	f->f_op = out ? &console_out_fops : &console_in_fops;
	f->f_flags = out ? O_WRONLY : O_RDONLY;
	/* A character device: no FMODE_ATOMIC_POS (its f_pos is never used). */
	f->f_mode = out ? FMODE_WRITE | FMODE_CAN_WRITE : FMODE_READ | FMODE_CAN_READ;
	f->console = tty;
	return f;
}

/* tty_write_lock()/tty_write_unlock(). */
void tty_write_lock(struct file *f)
{
	if (f && f->console && f->f_op == &console_out_fops)
		mutex_lock(&f->console->atomic_write_lock);
}

void tty_write_unlock(struct file *f)
{
	if (f && f->console && f->f_op == &console_out_fops)
		mutex_unlock(&f->console->atomic_write_lock);
}

/* ---- real terminals ---- */

const struct termios tty_std_termios = {
	.c_iflag = ICRNL | IXON,
	.c_oflag = OPOST | ONLCR,
	.c_cflag = B38400 | CS8 | CREAD | HUPCL,
	.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.c_line = 0,
	.c_cc = { 003, 034, 0177, 025, 004, 0, 1, 0, 021, 023, 032, 0, 022, 017, 027, 026, 0 },
};

/* Linux's tty_file_private: an open file of a terminal, on its tty_files
 * list; hung_up once tty_vhangup ran. */
struct tty_file_private {
	struct tty_struct *tty;
	struct file *file;
	struct list_head list;
	bool hung_up;
};

static const struct file_operations tty_fops;

struct tty_struct *file_tty(struct file *f)
{
	if (!f || f->f_op != &tty_fops)
		return NULL;
	return ((struct tty_file_private *)f->private_data)->tty;
}

bool tty_hung_up_p(struct file *f)
{
	return f && f->f_op == &tty_fops && READ_ONCE(((struct tty_file_private *)f->private_data)->hung_up);
}

void tty_init_struct(struct tty_struct *tty, const char *name, const struct tty_operations *ops,
		     void *driver_data)
{
	memset(tty, 0, sizeof(*tty));
	tty->name = name;
	tty->ops = ops;
	tty->driver_data = driver_data;
	mutex_init(&tty->atomic_read_lock);
	mutex_init(&tty->atomic_write_lock);
	mutex_init(&tty->termios_rwsem);
	spin_lock_init(&tty->ldisc_lock);
	spin_lock_init(&tty->ctrl_lock);
	spin_lock_init(&tty->files_lock);
	INIT_LIST_HEAD(&tty->tty_files);
	init_waitqueue_head(&tty->read_wait);
	init_waitqueue_head(&tty->write_wait);
	spin_lock_init(&tty->buf.lock);
	mutex_init(&tty->buf.flush_lock);
	INIT_LIST_HEAD(&tty->buf.work);
	tty->termios = tty_std_termios;
	n_tty_open(tty);
}

/* The tty must be nobody's controlling terminal and have no open file
 * left (the caller's business: a test's). */
void tty_free_struct(struct tty_struct *tty)
{
	tty_buffer_cancel_work(tty);
}

/* What every open of a terminal does (Linux's tty_open after the tty is
 * found): the file on the tty's list; its controlling-terminal step
 * unless noctty. */
static int tty_open_common(struct tty_struct *tty, struct file *f, bool noctty)
{
	struct tty_file_private *priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->tty = tty;
	priv->file = f;
	f->private_data = priv;
	f->f_op = &tty_fops;
	spin_lock(&tty->files_lock);
	list_add_tail(&priv->list, &tty->tty_files);
	spin_unlock(&tty->files_lock);
	if (!noctty && current->signal)
		tty_open_proc_set_tty(f, tty);
	return 0;
}

struct file *tty_open_file(struct tty_struct *tty, unsigned int flags)
{
	struct file *f = alloc_file();
	if (!f)
		return NULL;
	unsigned acc = flags & O_ACCMODE;
	f->f_flags = flags;
	f->f_mode = (acc != O_WRONLY ? FMODE_READ | FMODE_CAN_READ : 0) |
		    (acc != O_RDONLY ? FMODE_WRITE | FMODE_CAN_WRITE : 0);
	if (tty_open_common(tty, f, true)) {
		fput(f);
		return NULL;
	}
	return f;
}

static void tty_release(struct inode *inode, struct file *f)
{
	(void)inode;
	struct tty_file_private *priv = f->private_data;
	spin_lock(&priv->tty->files_lock);
	list_del(&priv->list);
	spin_unlock(&priv->tty->files_lock);
	kfree(priv);
}

static long tty_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)pos;
	struct tty_struct *tty = file_tty(f);
	if (tty_hung_up_p(f))
		return 0;
	/* Even a read of 0 bytes goes to n_tty_read: its job-control check
	 * stops a background reader, as Linux's iterate_tty_read. */
	mutex_lock(&tty->atomic_read_lock);
	long ret = n_tty_read(tty, f, dst, count, user);
	mutex_unlock(&tty->atomic_read_lock);
	return ret;
}

static long tty_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	(void)pos;
	struct tty_struct *tty = file_tty(f);
	if (tty_hung_up_p(f))
		return -EIO;
	mutex_lock(&tty->atomic_write_lock);
	long ret = n_tty_write(tty, f, src, count, user);
	mutex_unlock(&tty->atomic_write_lock);
	return ret;
}

/* Linux's tty_ioctl: a hung-up file answers -EIO (TIOCSPGRP -ENOTTY);
 * then the job-control ioctls, then the mode ioctls. */
static long tty_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct tty_struct *tty = file_tty(f);
	if (tty_hung_up_p(f))
		return cmd == TIOCSPGRP ? -ENOTTY : -EIO;
	long ret = tty_jobctrl_ioctl(tty, f, cmd, arg);
	if (ret != -ENOIOCTLCMD)
		return ret;
	ret = tty_mode_ioctl(tty, f, cmd, arg);
	return ret == -ENOIOCTLCMD ? -ENOTTY : ret;
}

/* Linux's tty_poll; a hung-up file is ready for everything and hung up
 * (hung_up_tty_poll). */
static __poll_t tty_poll(struct file *f, struct poll_table_struct *wait)
{
	if (tty_hung_up_p(f))
		return EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLRDNORM | EPOLLWRNORM;
	return n_tty_poll(file_tty(f), f, wait);
}

static const struct file_operations tty_fops = {
	.read = tty_read, .write = tty_write, .llseek = no_llseek, .unlocked_ioctl = tty_ioctl,
	.poll = tty_poll,
	.release = tty_release, .mode = S_IFCHR | 0620, .blksize = 1024,
};

void tty_vhangup(struct tty_struct *tty, bool exit_session)
{
	tty_hangup_session(tty, exit_session);
	spin_lock(&tty->files_lock);
	struct tty_file_private *priv;
	list_for_each_entry(priv, &tty->tty_files, list)
		WRITE_ONCE(priv->hung_up, true);
	tty->hangups++;
	spin_unlock(&tty->files_lock);
	n_tty_flush_buffer(tty);
	wake_up_all(&tty->read_wait);
	wake_up_all(&tty->write_wait);
}

/* ---- device numbers ---- */

#define TTY_MAJOR 4
#define TTYAUX_MAJOR 5
#define TTY_MAX_DEVICES 4

static struct {
	unsigned int major, minor;
	struct tty_struct *tty;
} tty_devices[TTY_MAX_DEVICES];
static unsigned nr_tty_devices;
static struct tty_struct *console_device;

static struct tty_struct *tty_lookup(unsigned int major, unsigned int minor)
{
	for (unsigned i = 0; i < nr_tty_devices; i++)
		if (tty_devices[i].major == major && tty_devices[i].minor == minor)
			return tty_devices[i].tty;
	return NULL;
}

/* Linux's tty_open for a driver's own number: O_NOCTTY is honoured. */
static int tty_open(struct inode *inode, struct file *f)
{
	struct tty_struct *tty = tty_lookup(MAJOR(inode->i_rdev), MINOR(inode->i_rdev));
	if (!tty)
		return -ENXIO;
	return tty_open_common(tty, f, f->f_flags & O_NOCTTY);
}

/* /dev/tty: the caller's controlling terminal (Linux's
 * tty_open_current_tty), -ENXIO without one. */
static int tty_open_current(struct inode *inode, struct file *f)
{
	(void)inode;
	struct tty_struct *tty = current->signal ? get_current_tty() : NULL;
	if (!tty)
		return -ENXIO;
	return tty_open_common(tty, f, true);
}

/* /dev/console: the console's port; never a controlling terminal (Linux's
 * noctty for TTYAUX_MAJOR 1). */
static int tty_open_console(struct inode *inode, struct file *f)
{
	(void)inode;
	if (!console_device)
		return -ENODEV;
	return tty_open_common(console_device, f, true);
}

static const struct file_operations tty_dev_fops = { .open = tty_open, .mode = S_IFCHR | 0620 };
static const struct file_operations tty_current_fops = { .open = tty_open_current, .mode = S_IFCHR | 0666 };
static const struct file_operations console_dev_fops = { .open = tty_open_console, .mode = S_IFCHR | 0600 };

int tty_register_device(struct tty_struct *tty, unsigned int major, unsigned int minor, bool console)
{
	if (nr_tty_devices == TTY_MAX_DEVICES)
		return -ENOSPC;
	int ret = register_chrdev_fops(major, minor, &tty_dev_fops);
	if (ret)
		return ret;
	tty_devices[nr_tty_devices].major = major;
	tty_devices[nr_tty_devices].minor = minor;
	tty_devices[nr_tty_devices].tty = tty;
	nr_tty_devices++;
	tty->major = major;
	tty->minor = minor;
	if (console)
		console_device = tty;
	return 0;
}

/* Linux's tty_init: /dev/tty and /dev/console. */
int tty_init(void)
{
	int ret = register_chrdev_fops(TTYAUX_MAJOR, 0, &tty_current_fops);
	if (!ret)
		ret = register_chrdev_fops(TTYAUX_MAJOR, 1, &console_dev_fops);
	if (!ret)
		ret = tty_buffer_init_worker();
	return ret;
}
