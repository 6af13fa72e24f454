/* The console line buffer behind a process's fd 1 and 2 (see
 * console_line.h; the file side, console_write, is in drivers/tty/tty_io.c).
 *
 * Invariant: c->buf only ever holds a partial line (no '\n'), and each
 * full line leaves in one printk, which the console lock keeps whole
 * against other CPUs.
 *
 * Concurrency: a line buffer belongs to one process's file table, shared
 * by its threads; it takes no lock of its own: drivers/tty/tty_io.c calls
 * console_line_put only under the table's console atomic_write_lock (one
 * write() or writev() at a time), and console_line_end only once no
 * thread is left. */
#include "drivers/tty/console_line.h"
#include "kernel/printk.h"
#include "lib/string.h"

void console_line_init(struct console_line *c, const char *prefix)
{
	strlcpy(c->prefix, prefix ? prefix : "", CONSOLE_PREFIX_MAX);
	c->len = 0;
	c->last[0] = 0;
}

static void console_flush(struct console_line *c)
{
	printk(KERN_ALWAYS "%s%.*s\n", c->prefix, (int)c->len, c->buf);
	size_t n = c->len < CONSOLE_LAST_LINE_MAX - 1 ? c->len : CONSOLE_LAST_LINE_MAX - 1;
	memcpy(c->last, c->buf, n);
	c->last[n] = 0;
	c->len = 0;
}

/* A line longer than the buffer leaves in pieces of CONSOLE_LINE_MAX. NUL
 * bytes are dropped: %.*s would stop at them. Other control characters
 * but tab become '?': the console is also the KTAP channel, and a '\r'
 * would start a line of the program's own there (a fake "ok" case). */
void console_line_put(struct console_line *c, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\n') {
			console_flush(c);
		} else if (ch) {
			c->buf[c->len++] = (ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : (char)ch;
			if (c->len == CONSOLE_LINE_MAX)
				console_flush(c);
		}
	}
}

void console_line_end(struct console_line *c)
{
	if (c->len)
		console_flush(c);
}
