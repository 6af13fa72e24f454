/* A process's console output, line-buffered (drivers/tty/console_line.c): what
 * the process writes to fd 1 and 2 is held until its newline and then
 * leaves as one printk with the process's prefix, so that lines from
 * processes on several CPUs never interleave. */
#ifndef DRIVERS_TTY_CONSOLE_LINE_H
#define DRIVERS_TTY_CONSOLE_LINE_H

#include "kernel/types.h"

/* A line leaves as one printk of prefix + line + '\n', which must fit
 * printk's 512-byte buffer. */
#define CONSOLE_PREFIX_MAX 64
#define CONSOLE_LINE_MAX 384

#define CONSOLE_LAST_LINE_MAX 128

struct console_line {
	char prefix[CONSOLE_PREFIX_MAX];
	char buf[CONSOLE_LINE_MAX];
	size_t len;
	/* The last line sent out (cut to fit): a program's last words, such as
	 * a test's "SKIP: reason", for whoever reaps it. */
	char last[CONSOLE_LAST_LINE_MAX];
};

/* An empty line buffer whose lines get prefix (copied, at most
 * CONSOLE_PREFIX_MAX - 1 bytes; NULL means ""). */
void console_line_init(struct console_line *c, const char *prefix);
/* Adds n bytes: each '\n' sends the line out, a full buffer sends it out
 * as a piece of CONSOLE_LINE_MAX bytes, NUL bytes are dropped and other
 * control characters but tab become '?'. */
void console_line_put(struct console_line *c, const char *s, size_t n);
/* Sends out a partial line, if there is one (at exit). */
void console_line_end(struct console_line *c);

#endif
