/* The N_TTY line discipline (Linux's drivers/tty/n_tty.c): received
 * bytes become lines or raw input, are echoed, and raise signals (here);
 * reads take them out by the rules of canonical and non-canonical mode
 * and writes go out with OPOST's output processing (n_tty_read.c).
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
#include "drivers/tty/n_tty_internal.h"
#include "arch/x86_64/apic.h"
#include "fs/fs.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/unistd.h"
#include "lib/string.h"

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
		if (is_char(tty, c, VREPRINT) && L_FLAG(tty, ECHO) && L_FLAG(tty, IEXTEN)) {
			/* ^R: the line so far, again, on a line of its own. */
			finish_erasing(l);
			echo_char(c, tty);
			echo_char_raw('\n', tty);
			for (size_t i = l->canon_head; i != l->read_head; i++)
				echo_char(read_buf(l, i), tty);
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
