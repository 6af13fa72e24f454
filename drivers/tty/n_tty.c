/* The N_TTY line discipline (Linux's drivers/tty/n_tty.c): received
 * bytes become lines or raw input, are echoed, and raise signals; reads
 * take them out by the rules of canonical and non-canonical mode; writes
 * go out with OPOST's output processing.
 *
 * Invariant: read_head - read_tail <= N_TTY_BUF_SIZE (free-running
 * counters); in canonical mode read_tail <= canon_head <= read_head and a
 * set bit of read_flags at an index in [read_tail, canon_head) ends a
 * line there (in non-canonical mode canon_head is stale, as Linux's: the
 * switch back to canonical mode sets it).
 *
 * Where mmlab differs: Linux queues echoes in an echo buffer that the
 * receive path and writers drain (process_echoes); the drivers here write
 * at once, so each echo goes out as it is made, in the same order and
 * with the same bytes (columns are tracked as Linux's do_output_char
 * does). ECHOPRT, PARMRK, IUCLC/XCASE/OLCUC and the EXTPROC mode are not
 * implemented. Locking: drivers/tty/tty_struct.h. */
#include "drivers/tty/tty_struct.h"
#include "arch/x86_64/apic.h"
#include "fs/fs.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/unistd.h"
#include "lib/string.h"

#define MASK(x) ((x) & (N_TTY_BUF_SIZE - 1))
#define I_FLAG(tty, f) ((tty)->termios.c_iflag & (f))
#define O_FLAG(tty, f) ((tty)->termios.c_oflag & (f))
#define L_FLAG(tty, f) ((tty)->termios.c_lflag & (f))
#define CC(tty, i) ((tty)->termios.c_cc[i])
/* Linux's __DISABLED_CHAR: a c_cc entry of 0 matches nothing, and an EOF
 * is stored as this character (a line end no read copies). */
#define DISABLED_CHAR 0

static bool is_cntrl(unsigned char c) { return c < 0x20 || c == 0x7f; }
static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
/* cc is the character of c_cc slot i, which a 0 disables. */
static bool is_char(struct tty_struct *tty, unsigned char c, int i)
{
	return c == CC(tty, i) && CC(tty, i) != DISABLED_CHAR;
}

static size_t read_cnt(const struct n_tty_data *l) { return l->read_head - l->read_tail; }
static unsigned char read_buf(const struct n_tty_data *l, size_t i) { return l->read_buf[MASK(i)]; }
static bool test_flag(const struct n_tty_data *l, size_t i)
{
	return l->read_flags[MASK(i) / 64] >> (MASK(i) % 64) & 1;
}
static void set_flag(struct n_tty_data *l, size_t i, bool on)
{
	unsigned long bit = 1ul << (MASK(i) % 64);
	if (on)
		l->read_flags[MASK(i) / 64] |= bit;
	else
		l->read_flags[MASK(i) / 64] &= ~bit;
}

static void put_tty_queue(unsigned char c, struct n_tty_data *l)
{
	l->read_buf[MASK(l->read_head)] = c;
	set_flag(l, l->read_head, false);
	l->read_head++;
}

/* Linux's reset_buffer_flags: the read buffer emptied. */
static void reset_buffer_flags(struct n_tty_data *l)
{
	l->read_head = l->canon_head = l->read_tail = 0;
	l->lnext = l->erasing = l->push = false;
	memset(l->read_flags, 0, sizeof(l->read_flags));
}

/* ---- output (do_output_char) ---- */

static void tty_put(struct tty_struct *tty, const unsigned char *s, size_t n)
{
	if (n)
		tty->ops->write(tty, s, n);
}

/* Linux's do_output_char with OPOST on: one character, column kept. */
static void do_output_char(unsigned char c, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	switch (c) {
	case '\n':
		if (O_FLAG(tty, ONLRET))
			l->column = 0;
		if (O_FLAG(tty, ONLCR)) {
			l->canon_column = l->column = 0;
			tty_put(tty, (const unsigned char *)"\r\n", 2);
			return;
		}
		l->canon_column = l->column;
		break;
	case '\r':
		if (O_FLAG(tty, ONOCR) && l->column == 0)
			return;
		if (O_FLAG(tty, OCRNL)) {
			c = '\n';
			if (O_FLAG(tty, ONLRET))
				l->canon_column = l->column = 0;
			break;
		}
		l->canon_column = l->column = 0;
		break;
	case '\t': {
		unsigned spaces = 8 - (l->column & 7);
		if ((tty->termios.c_oflag & TABDLY) == XTABS) {
			l->column += spaces;
			tty_put(tty, (const unsigned char *)"        ", spaces);
			return;
		}
		l->column += spaces;
		break;
	}
	case '\b':
		if (l->column > 0)
			l->column--;
		break;
	default:
		if (!is_cntrl(c))
			l->column++;
		break;
	}
	tty_put(tty, &c, 1);
}

void n_tty_output(struct tty_struct *tty, const unsigned char *s, size_t n, bool opost)
{
	if (!opost) {
		tty_put(tty, s, n);
		return;
	}
	/* Runs of characters do_output_char would pass alone go out whole
	 * (Linux's process_output_block). */
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && !is_cntrl(s[j]))
			j++;
		if (j > i) {
			tty->ldata.column += (unsigned)(j - i);
			tty_put(tty, s + i, j - i);
		}
		if (j < n)
			do_output_char(s[j++], tty);
		i = j;
	}
}

/* ---- echo (Linux's echo_char, echo_char_raw, process_echoes) ---- */

static void echo_out(unsigned char c, struct tty_struct *tty)
{
	if (O_FLAG(tty, OPOST))
		do_output_char(c, tty);
	else
		tty_put(tty, &c, 1);
}

/* Linux's echo_char_raw. */
static void echo_char_raw(unsigned char c, struct tty_struct *tty)
{
	echo_out(c, tty);
}

/* Linux's echo_char: a control character but tab shows as ^X with
 * ECHOCTL (two columns). */
static void echo_char(unsigned char c, struct tty_struct *tty)
{
	if (L_FLAG(tty, ECHOCTL) && is_cntrl(c) && c != '\t') {
		unsigned char s[2] = { '^', (unsigned char)(c ^ 0100) };
		tty_put(tty, s, 2);
		tty->ldata.column += 2;
		return;
	}
	echo_out(c, tty);
}

static void echo_set_canon_col(struct tty_struct *tty)
{
	tty->ldata.canon_column = tty->ldata.column;
}

/* Linux's finish_erasing (ECHOPRT's closing '/': not implemented, so
 * only the state). */
static void finish_erasing(struct n_tty_data *l)
{
	l->erasing = false;
}

/* The echo of a character going into the line: the line's first one
 * sets the column erasures go back to (Linux's echo_set_canon_col). */
static void echo_input_char(unsigned char c, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	finish_erasing(l);
	if (l->canon_head == l->read_head)
		echo_set_canon_col(tty);
	echo_char(c, tty);
}

/* Linux's ECHO_OP_ERASE_TAB: back over a tab, num_chars the columns its
 * line used before it (counted from the previous tab when after_tab). */
static void echo_erase_tab(unsigned num_chars, bool after_tab, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	if (!after_tab)
		num_chars += l->canon_column;
	unsigned num_bs = 8 - (num_chars & 7);
	if (num_bs > l->column)
		num_bs = l->column;
	while (num_bs--) {
		tty_put(tty, (const unsigned char *)"\b", 1);
		if (l->column > 0)
			l->column--;
	}
}

static void echo_erase_one(struct tty_struct *tty)
{
	echo_char_raw('\b', tty);
	echo_char_raw(' ', tty);
	echo_char_raw('\b', tty);
}

/* ---- input ---- */

enum { ERASE, WERASE, KILL };

/* Linux's eraser: VERASE takes back a character, VWERASE a word (BSD's
 * ALTWERASE: alphanumerics and '_' make a word), VKILL the line. */
static void eraser(unsigned char c, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	int kill_type;
	if (l->read_head == l->canon_head)
		return; /* nothing to erase: Linux echoes nothing either (no BEL) */
	if (is_char(tty, c, VERASE))
		kill_type = ERASE;
	else if (is_char(tty, c, VWERASE))
		kill_type = WERASE;
	else {
		if (!L_FLAG(tty, ECHO)) {
			l->read_head = l->canon_head;
			return;
		}
		if (!L_FLAG(tty, ECHOK) || !L_FLAG(tty, ECHOKE) || !L_FLAG(tty, ECHOE)) {
			l->read_head = l->canon_head;
			finish_erasing(l);
			echo_char(c, tty);
			if (L_FLAG(tty, ECHOK))
				echo_char_raw('\n', tty);
			return;
		}
		kill_type = KILL;
	}
	unsigned seen_alnums = 0;
	while (MASK(l->read_head) != MASK(l->canon_head)) {
		size_t head = l->read_head - 1;
		c = read_buf(l, head);
		if (kill_type == WERASE) {
			if (is_alnum(c) || c == '_')
				seen_alnums++;
			else if (seen_alnums)
				break;
		}
		l->read_head = head;
		if (L_FLAG(tty, ECHO)) {
			if (kill_type == ERASE && !L_FLAG(tty, ECHOE)) {
				echo_char(CC(tty, VERASE), tty);
			} else if (c == '\t') {
				unsigned num_chars = 0;
				bool after_tab = false;
				size_t tail = l->read_head;
				while (MASK(tail) != MASK(l->canon_head)) {
					tail--;
					unsigned char p = read_buf(l, tail);
					if (p == '\t') {
						after_tab = true;
						break;
					} else if (is_cntrl(p)) {
						if (L_FLAG(tty, ECHOCTL))
							num_chars += 2;
					} else {
						num_chars++;
					}
				}
				echo_erase_tab(num_chars, after_tab, tty);
			} else {
				if (is_cntrl(c) && L_FLAG(tty, ECHOCTL))
					echo_erase_one(tty);
				if (!is_cntrl(c) || L_FLAG(tty, ECHOCTL))
					echo_erase_one(tty);
			}
		}
		if (kill_type == ERASE)
			break;
	}
	if (l->read_head == l->canon_head && L_FLAG(tty, ECHO))
		finish_erasing(l);
}

/* Linux's isig (the flush half of n_tty_receive_signal_char): unless
 * NOFLSH, the input so far goes (the rest of the batch is received after
 * it, as in Linux; the driver has no output queue to flush); the signal
 * is sent once ldisc_lock is dropped. */
static void isig(int sig, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	l->pending_sigs |= 1ul << sig;
	if (!L_FLAG(tty, NOFLSH))
		reset_buffer_flags(l);
}

static void receive_signal_char(int sig, unsigned char c, struct tty_struct *tty)
{
	isig(sig, tty);
	if (I_FLAG(tty, IXON))
		start_tty(tty);
	if (L_FLAG(tty, ECHO))
		echo_char(c, tty);
}

/* Linux's handle_newline: a line ends (newline, EOF, EOL): readers wake. */
static void handle_newline(unsigned char c, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	set_flag(l, l->read_head, true);
	l->read_buf[MASK(l->read_head)] = c;
	l->read_head++;
	l->canon_head = l->read_head;
}

/* Linux's n_tty_receive_char_special then n_tty_receive_char: one
 * character. */
static void receive_char(unsigned char c, struct tty_struct *tty)
{
	struct n_tty_data *l = &tty->ldata;
	if (I_FLAG(tty, ISTRIP))
		c &= 0x7f;
	if (l->lnext) {
		/* Linux's n_tty_receive_char_lnext: literal, echoed as itself. */
		l->lnext = false;
		if (L_FLAG(tty, ECHO))
			echo_input_char(c, tty);
		put_tty_queue(c, l);
		return;
	}
	if (I_FLAG(tty, IXON)) {
		if (is_char(tty, c, VSTART)) {
			start_tty(tty);
			return;
		}
		if (is_char(tty, c, VSTOP)) {
			stop_tty(tty);
			return;
		}
	}
	if (L_FLAG(tty, ISIG)) {
		int sig = is_char(tty, c, VINTR) ? SIGINT : is_char(tty, c, VQUIT) ? SIGQUIT :
			  is_char(tty, c, VSUSP) ? SIGTSTP : 0;
		if (sig) {
			receive_signal_char(sig, c, tty);
			return;
		}
	}
	if (READ_ONCE(tty->stopped) && I_FLAG(tty, IXON) && I_FLAG(tty, IXANY))
		start_tty(tty);
	if (c == '\r') {
		if (I_FLAG(tty, IGNCR))
			return;
		if (I_FLAG(tty, ICRNL))
			c = '\n';
	} else if (c == '\n' && I_FLAG(tty, INLCR)) {
		c = '\r';
	}
	if (l->icanon) {
		if (is_char(tty, c, VERASE) || is_char(tty, c, VKILL) ||
		    (is_char(tty, c, VWERASE) && L_FLAG(tty, IEXTEN))) {
			eraser(c, tty);
			return;
		}
		if (is_char(tty, c, VLNEXT) && L_FLAG(tty, IEXTEN)) {
			l->lnext = true;
			if (L_FLAG(tty, ECHO)) {
				finish_erasing(l);
				if (L_FLAG(tty, ECHOCTL)) {
					echo_char_raw('^', tty);
					echo_char_raw('\b', tty);
				}
			}
			return;
		}
		if (c == '\n') {
			if (L_FLAG(tty, ECHO) || L_FLAG(tty, ECHONL))
				echo_char_raw('\n', tty);
			handle_newline(c, tty);
			return;
		}
		if (is_char(tty, c, VEOF)) {
			handle_newline(DISABLED_CHAR, tty);
			return;
		}
		if (is_char(tty, c, VEOL) || (is_char(tty, c, VEOL2) && L_FLAG(tty, IEXTEN))) {
			if (L_FLAG(tty, ECHO))
				echo_input_char(c, tty);
			handle_newline(c, tty);
			return;
		}
	}
	if (L_FLAG(tty, ECHO)) {
		if (c == '\n') {
			finish_erasing(l);
			echo_char_raw('\n', tty);
		} else {
			echo_input_char(c, tty);
		}
	}
	put_tty_queue(c, l);
	return;
}

/* Linux's n_tty_receive_buf_common: the room is what the read buffer
 * has; with none left in canonical mode and no complete line in it
 * (nothing a read could take to make room), Linux keeps taking one
 * character at a time, each overwriting the last one of the buffer, so
 * that a newline, an erase or a signal character still gets through:
 * here too, counted in overflow_chars. */
size_t n_tty_receive_buf(struct tty_struct *tty, const unsigned char *cp, size_t count)
{
	struct n_tty_data *l = &tty->ldata;
	size_t done = 0;
	spin_lock(&tty->ldisc_lock);
	while (done < count) {
		long room = (long)N_TTY_BUF_SIZE - (long)read_cnt(l) - 1;
		if (room <= 0) {
			bool overflow = l->icanon && l->canon_head == l->read_tail;
			if (overflow && room < 0) {
				l->read_head--;
				l->overflow_chars++;
			}
			room = overflow;
		}
		if (!room)
			break;
		size_t n = min((size_t)room, count - done);
		for (size_t i = 0; i < n; i++)
			receive_char(cp[done + i], tty);
		done += n;
	}
	bool wake = n_tty_input_available(tty);
	unsigned long sigs = l->pending_sigs;
	l->pending_sigs = 0;
	spin_unlock(&tty->ldisc_lock);
	for (int sig = 1; sig < 64; sig++)
		if (sigs & (1ul << sig))
			tty_signal_pgrp(tty, sig);
	if (wake || sigs)
		wake_up_all(&tty->read_wait);
	return done;
}

/* ---- flow control ---- */

void stop_tty(struct tty_struct *tty)
{
	WRITE_ONCE(tty->stopped, true);
}

void start_tty(struct tty_struct *tty)
{
	WRITE_ONCE(tty->stopped, false);
	wake_up_all(&tty->write_wait);
}

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

/* ---- set-up ---- */

void n_tty_flush_buffer(struct tty_struct *tty)
{
	spin_lock(&tty->ldisc_lock);
	reset_buffer_flags(&tty->ldata);
	spin_unlock(&tty->ldisc_lock);
	wake_up_all(&tty->write_wait);
}

/* Linux's n_tty_set_termios: switching canonical mode on makes what was
 * typed so far the line being edited (canon_head at the tail), off makes
 * all of it readable (canon_head at the head); lnext is forgotten. */
void n_tty_set_termios(struct tty_struct *tty, const struct termios *old)
{
	struct n_tty_data *l = &tty->ldata;
	spin_lock(&tty->ldisc_lock);
	bool icanon = L_FLAG(tty, ICANON) != 0;
	if (!old || ((old->c_lflag ^ tty->termios.c_lflag) & (ICANON | EXTPROC))) {
		memset(l->read_flags, 0, sizeof(l->read_flags));
		if (!icanon || !read_cnt(l)) {
			l->canon_head = l->read_tail;
			l->push = false;
		} else {
			set_flag(l, l->read_head - 1, true);
			l->canon_head = l->read_head;
			l->push = true;
		}
		l->erasing = false;
		l->lnext = false;
	}
	l->icanon = icanon;
	spin_unlock(&tty->ldisc_lock);
	wake_up_all(&tty->read_wait);
	if (!I_FLAG(tty, IXON) && old && (old->c_iflag & IXON) && READ_ONCE(tty->stopped))
		start_tty(tty);
}

void n_tty_open(struct tty_struct *tty)
{
	memset(&tty->ldata, 0, sizeof(tty->ldata));
	n_tty_set_termios(tty, NULL);
}
