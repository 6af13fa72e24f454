/* The process's side of the N_TTY line discipline (Linux's n_tty_read,
 * n_tty_write and n_tty_poll, drivers/tty/n_tty.c): reads by the rules of
 * canonical and non-canonical mode, writes with OPOST's processing, and
 * readiness. The receiving side is drivers/tty/n_tty.c; locking,
 * drivers/tty/tty_struct.h. */
#include "drivers/tty/n_tty_internal.h"
#include "arch/x86_64/apic.h"
#include "fs/fs.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/unistd.h"

/* ---- the reader's side ---- */

/* Linux's input_available_p (poll false): a complete line in canonical
 * mode, a byte otherwise. Under ldisc_lock, or racy. */
bool n_tty_input_available(struct tty_struct *tty)
{
	const struct n_tty_data *l = &tty->ldata;
	if (l->icanon)
		return l->canon_head != l->read_tail;
	return l->read_head != l->read_tail;
}

size_t n_tty_inq(struct tty_struct *tty)
{
	spin_lock(&tty->ldisc_lock);
	const struct n_tty_data *l = &tty->ldata;
	size_t n;
	if (l->icanon) {
		/* Linux's inq_canon: an EOF is no byte to read. */
		n = l->canon_head - l->read_tail;
		for (size_t i = l->read_tail; i != l->canon_head; i++)
			if (test_flag(l, i) && read_buf(l, i) == DISABLED_CHAR)
				n--;
	} else {
		n = read_cnt(l);
	}
	spin_unlock(&tty->ldisc_lock);
	return n;
}

/* Linux's canon_copy_from_read_buf: up to nr bytes of the first line,
 * the line's end included but for an EOF's (consumed, never copied).
 * Sets *line_end when the line ended in what was taken. Under
 * ldisc_lock. */
static size_t canon_copy(struct n_tty_data *l, unsigned char *kb, size_t nr, bool *line_end)
{
	size_t avail = l->canon_head - l->read_tail, n = 0;
	*line_end = false;
	while (n < avail && n < nr) {
		size_t i = l->read_tail + n;
		unsigned char c = read_buf(l, i);
		if (test_flag(l, i)) {
			set_flag(l, i, false);
			*line_end = true;
			l->read_tail += n + 1;
			if (c != DISABLED_CHAR)
				kb[n++] = c;
			return n;
		}
		kb[n++] = c;
	}
	l->read_tail += n;
	return n;
}

/* Linux's copy_from_read_buf (non-canonical mode). Under ldisc_lock. */
static size_t raw_copy(struct n_tty_data *l, unsigned char *kb, size_t nr)
{
	size_t n = min(nr, read_cnt(l));
	for (size_t i = 0; i < n; i++)
		kb[i] = read_buf(l, l->read_tail + i);
	l->read_tail += n;
	return n;
}

/* Linux's n_tty_read. Non-canonical mode follows VMIN and VTIME (tenths
 * of a second) exactly as Linux's: MIN 0 TIME 0 returns what is there
 * (perhaps nothing); MIN 0 TIME t waits up to t for the first byte; MIN n
 * TIME 0 waits for n bytes (or count); MIN n TIME t waits for the first
 * byte as long as it takes, then for each next one up to t. Canonical
 * mode returns one line (or count bytes of it). The caller holds
 * atomic_read_lock. */
long n_tty_read(struct tty_struct *tty, struct file *f, char *dst, size_t count, bool user)
{
	struct n_tty_data *l = &tty->ldata;
	int c = __tty_check_change(tty, SIGTTIN);
	if (c < 0)
		return c;
	mutex_lock(&tty->termios_rwsem);
	size_t minimum = 0;
	long time = 0, timeout = MAX_SCHEDULE_TIMEOUT;
	bool icanon = tty->ldata.icanon;
	if (!icanon) {
		minimum = CC(tty, VMIN);
		if (minimum) {
			time = (HZ / 10) * CC(tty, VTIME);
		} else {
			timeout = (HZ / 10) * CC(tty, VTIME);
			minimum = 1;
		}
	}
	mutex_unlock(&tty->termios_rwsem);
	size_t done = 0;
	long ret = 0;
	unsigned char kb[256];
	DEFINE_WAIT(wait);
	while (done < count) {
		spin_lock(&tty->ldisc_lock);
		bool avail = n_tty_input_available(tty);
		spin_unlock(&tty->ldisc_lock);
		if (!avail) {
			flush_to_ldisc(tty);
			prepare_to_wait(&tty->read_wait, &wait, TASK_INTERRUPTIBLE);
			spin_lock(&tty->ldisc_lock);
			avail = n_tty_input_available(tty);
			spin_unlock(&tty->ldisc_lock);
			if (!avail) {
				if (tty_hung_up_p(f))
					break;
				if (!timeout)
					break;
				if (f && (f->f_flags & O_NONBLOCK)) {
					ret = -EAGAIN;
					break;
				}
				if (signal_pending(current)) {
					ret = -ERESTARTSYS;
					break;
				}
				timeout = schedule_timeout(timeout);
				continue;
			}
			finish_wait(&tty->read_wait, &wait);
		}
		bool line_end = false;
		spin_lock(&tty->ldisc_lock);
		size_t want = min(count - done, sizeof(kb));
		size_t n = icanon ? canon_copy(l, kb, want, &line_end) : raw_copy(l, kb, want);
		spin_unlock(&tty->ldisc_lock);
		if (n && file_copy_out(dst + done, kb, n, user)) {
			ret = -EFAULT;
			break;
		}
		done += n;
		tty_buffer_restart_work(tty);
		if (icanon ? line_end : done >= minimum)
			break;
		if (time)
			timeout = time;
	}
	finish_wait(&tty->read_wait, &wait);
	return done ? (long)done : ret;
}

/* ---- the writer's side ---- */

/* Linux's n_tty_write: with TOSTOP a background group is stopped
 * (SIGTTOU) first; output waits while the tty is stopped (^S). The
 * caller holds atomic_write_lock. */
long n_tty_write(struct tty_struct *tty, struct file *f, const char *src, size_t count, bool user)
{
	if (L_FLAG(tty, TOSTOP)) {
		int ret = tty_check_change(tty);
		if (ret)
			return ret;
	}
	size_t done = 0;
	long ret = 0;
	unsigned char kb[256];
	while (done < count) {
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (tty_hung_up_p(f)) {
			ret = -EIO;
			break;
		}
		if (READ_ONCE(tty->stopped)) {
			if (f && (f->f_flags & O_NONBLOCK)) {
				ret = -EAGAIN;
				break;
			}
			DEFINE_WAIT(wait);
			prepare_to_wait(&tty->write_wait, &wait, TASK_INTERRUPTIBLE);
			if (READ_ONCE(tty->stopped) && !signal_pending(current) && !tty_hung_up_p(f))
				schedule();
			finish_wait(&tty->write_wait, &wait);
			continue;
		}
		size_t n = min(count - done, sizeof(kb));
		size_t got = n - file_copy_in(kb, src + done, n, user);
		spin_lock(&tty->ldisc_lock);
		n_tty_output(tty, kb, got, O_FLAG(tty, OPOST));
		spin_unlock(&tty->ldisc_lock);
		done += got;
		if (got < n) {
			ret = -EFAULT;
			break;
		}
		cond_resched();
	}
	return done ? (long)done : ret;
}

/* ---- poll ---- */

/* Linux's n_tty_poll: readable when a read would not sleep, by the mode
 * (input_available_p with poll set: VMIN bytes in non-canonical mode
 * without VTIME), after the flip buffer is drained; EPOLLHUP for a
 * hung-up file; writable unless output is stopped (nothing is queued). */
__poll_t n_tty_poll(struct tty_struct *tty, struct file *f, struct poll_table_struct *wait)
{
	__poll_t mask = 0;
	poll_wait(f, &tty->read_wait, wait);
	poll_wait(f, &tty->write_wait, wait);
	for (int pass = 0; pass < 2 && !mask; pass++) {
		if (pass)
			flush_to_ldisc(tty);
		spin_lock(&tty->ldisc_lock);
		const struct n_tty_data *l = &tty->ldata;
		size_t amt = !CC(tty, VTIME) && CC(tty, VMIN) ? CC(tty, VMIN) : 1;
		bool ready = l->icanon ? l->canon_head != l->read_tail : read_cnt(l) >= amt;
		spin_unlock(&tty->ldisc_lock);
		if (ready)
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	if (tty_hung_up_p(f))
		mask |= EPOLLHUP;
	if (!READ_ONCE(tty->stopped))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

