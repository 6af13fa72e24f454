/* The serial console as a tty (Linux's drivers/tty/tty_io.c and
 * n_tty.c, as much as the console needs): the files behind a process's fd
 * 0 (reads as end of file), 1 and 2 (line-buffered output through
 * drivers/tty/console_line.c), their ioctls, and the write lock that keeps
 * one write() whole.
 *
 * Concurrency: the console (fd 1 and 2 of every thread) is written under
 * the process's console_tty.atomic_write_lock for a whole write() or
 * writev() (tty_write_lock, which writev also goes through), so the bytes
 * of one call stay together: lines of two threads meet only at the
 * borders of write calls. Order: atomic_write_lock -> mmap_lock (the copy
 * from user) and -> the console's printk lock. */
#include "drivers/tty/tty.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"

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

#define TCGETS 0x5401
#define TIOCGWINSZ 0x5413
#define NCCS 19

/* The kernel's struct termios (asm-generic/termbits.h), which TCGETS
 * copies out. */
struct termios {
	u32 c_iflag, c_oflag, c_cflag, c_lflag;
	u8 c_line;
	u8 c_cc[NCCS];
};

struct winsize {
	unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

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

/* Linux's tty_ioctl for the console (TCGETS, TIOCGWINSZ: a serial line
 * has no size, 0x0 as Linux's ttyS0); -ENOTTY for a command it does not
 * know. */
static long tty_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
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
	.read = console_read_eof, .llseek = no_llseek, .unlocked_ioctl = tty_ioctl,
	.mode = S_IFCHR | 0620, .blksize = 1024,
};
static const struct file_operations console_out_fops = {
	.write = console_write, .llseek = no_llseek, .unlocked_ioctl = tty_ioctl,
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
