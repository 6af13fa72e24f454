/* The terminal's mode ioctls (Linux's drivers/tty/tty_ioctl.c and the
 * ioctl half of n_tty.c): termios (TCGETS, TCSETS, TCSETSW, TCSETSF),
 * the window size (TIOCGWINSZ, TIOCSWINSZ: SIGWINCH to the foreground
 * group when it changes), flushing (TCFLSH), flow (TCXONC), the byte
 * counts (FIONREAD, TIOCOUTQ) and TCSBRK (tcdrain). Changes from a
 * background group stop it first (tty_check_change).
 *
 * Where mmlab differs: the 8250 keeps 115200 8N1 whatever c_cflag says
 * (Linux's uart_set_termios reprograms the divisor and writes the speed
 * it got back); c_cflag is kept as given. Output is never queued, so
 * TCSETSW and TCSBRK have nothing to wait for and TIOCOUTQ is 0. */
#include "drivers/tty/tty_struct.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fs.h"
#include "kernel/signal.h"
#include "lib/string.h"

/* Linux's set_termios: TCSETSF flushes the input first. */
static long set_termios(struct tty_struct *tty, unsigned long arg, bool flush)
{
	int ret = tty_check_change(tty);
	if (ret)
		return ret;
	struct termios t;
	if (copy_from_user(&t, (const void *)arg, sizeof(t)))
		return -EFAULT;
	if (flush)
		n_tty_flush_buffer(tty);
	mutex_lock(&tty->termios_rwsem);
	struct termios old = tty->termios;
	tty->termios = t;
	n_tty_set_termios(tty, &old);
	mutex_unlock(&tty->termios_rwsem);
	return 0;
}

/* Linux's tty_do_resize. */
static long set_winsize(struct tty_struct *tty, unsigned long arg)
{
	struct winsize ws;
	if (copy_from_user(&ws, (const void *)arg, sizeof(ws)))
		return -EFAULT;
	mutex_lock(&tty->termios_rwsem);
	bool changed = memcmp(&ws, &tty->winsize, sizeof(ws)) != 0;
	tty->winsize = ws;
	mutex_unlock(&tty->termios_rwsem);
	if (changed)
		tty_signal_pgrp(tty, SIGWINCH);
	return 0;
}

/* Linux's tty_perform_flush: the output has nothing queued. */
static long perform_flush(struct tty_struct *tty, unsigned long arg)
{
	int ret = tty_check_change(tty);
	if (ret)
		return ret;
	switch (arg) {
	case TCIFLUSH:
	case TCIOFLUSH:
		tty_buffer_flush(tty);
		n_tty_flush_buffer(tty);
		return 0;
	case TCOFLUSH:
		return 0;
	default:
		return -EINVAL;
	}
}

/* Linux's TCXONC: TCIOFF and TCION send the STOP and START characters. */
static long xonc(struct tty_struct *tty, unsigned long arg)
{
	int ret = tty_check_change(tty);
	if (ret)
		return ret;
	unsigned char c;
	switch (arg) {
	case TCOOFF:
		stop_tty(tty);
		return 0;
	case TCOON:
		start_tty(tty);
		return 0;
	case TCIOFF:
	case TCION:
		c = tty->termios.c_cc[arg == TCIOFF ? VSTOP : VSTART];
		if (c)
			tty->ops->write(tty, &c, 1);
		return 0;
	default:
		return -EINVAL;
	}
}

/* TCGETS and TIOCGWINSZ: a copy taken under termios_rwsem, then out. */
static long copy_out_locked(struct tty_struct *tty, const void *field, size_t size, unsigned long arg)
{
	char copy[sizeof(struct termios) > sizeof(struct winsize) ? sizeof(struct termios) : sizeof(struct winsize)];
	mutex_lock(&tty->termios_rwsem);
	memcpy(copy, field, size);
	mutex_unlock(&tty->termios_rwsem);
	return copy_to_user((void *)arg, copy, size) ? -EFAULT : 0;
}

long tty_mode_ioctl(struct tty_struct *tty, struct file *f, unsigned int cmd, unsigned long arg)
{
	(void)f;
	switch (cmd) {
	case TCGETS:
		return copy_out_locked(tty, &tty->termios, sizeof(tty->termios), arg);
	case TCSETS:
	case TCSETSW:
		return set_termios(tty, arg, false);
	case TCSETSF:
		return set_termios(tty, arg, true);
	case TIOCGWINSZ:
		return copy_out_locked(tty, &tty->winsize, sizeof(tty->winsize), arg);
	case TIOCSWINSZ:
		return set_winsize(tty, arg);
	case TCFLSH:
		return perform_flush(tty, arg);
	case TCXONC:
		return xonc(tty, arg);
	case TCSBRK:
		return tty_check_change(tty);
	case FIONREAD:
		return put_user_u32((u32)n_tty_inq(tty), (void *)arg) ? -EFAULT : 0;
	case TIOCOUTQ:
		return put_user_u32(0, (void *)arg) ? -EFAULT : 0;
	default:
		return -ENOIOCTLCMD;
	}
}
