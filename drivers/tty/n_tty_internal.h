/* What the two halves of the N_TTY line discipline share
 * (drivers/tty/n_tty.c: receiving, echo and set-up; n_tty_read.c: a
 * process's read, write and poll): the read buffer's indexing and the
 * termios tests, as Linux's n_tty.c has them at its top. */
#ifndef DRIVERS_TTY_N_TTY_INTERNAL_H
#define DRIVERS_TTY_N_TTY_INTERNAL_H

#include "drivers/tty/tty_struct.h"

#define MASK(x) ((x) & (N_TTY_BUF_SIZE - 1))
#define I_FLAG(tty, f) ((tty)->termios.c_iflag & (f))
#define O_FLAG(tty, f) ((tty)->termios.c_oflag & (f))
#define L_FLAG(tty, f) ((tty)->termios.c_lflag & (f))
#define CC(tty, i) ((tty)->termios.c_cc[i])
/* Linux's __DISABLED_CHAR: a c_cc entry of 0 matches nothing, and an EOF
 * is stored as this character (a line end no read copies). */
#define DISABLED_CHAR 0

static inline bool is_cntrl(unsigned char c) { return c < 0x20 || c == 0x7f; }
static inline bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
/* cc is the character of c_cc slot i, which a 0 disables. */
static inline bool is_char(struct tty_struct *tty, unsigned char c, int i)
{
	return c == CC(tty, i) && CC(tty, i) != DISABLED_CHAR;
}

static inline size_t read_cnt(const struct n_tty_data *l) { return l->read_head - l->read_tail; }
static inline unsigned char read_buf(const struct n_tty_data *l, size_t i) { return l->read_buf[MASK(i)]; }
static inline bool test_flag(const struct n_tty_data *l, size_t i)
{
	return l->read_flags[MASK(i) / 64] >> (MASK(i) % 64) & 1;
}
static inline void set_flag(struct n_tty_data *l, size_t i, bool on)
{
	unsigned long bit = 1ul << (MASK(i) % 64);
	if (on)
		l->read_flags[MASK(i) / 64] |= bit;
	else
		l->read_flags[MASK(i) / 64] &= ~bit;
}

#endif
