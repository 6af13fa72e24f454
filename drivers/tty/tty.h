/* The serial console as a tty (drivers/tty/tty_io.c): what a process's fd
 * 0, 1 and 2 are. Output is line-buffered per process
 * (drivers/tty/console_line.c); input reads as end of file. */
#ifndef DRIVERS_TTY_TTY_H
#define DRIVERS_TTY_TTY_H

#include "drivers/tty/console_line.h"
#include "kernel/mutex.h"

struct file;

/* Linux's tty_struct, as much of it as the console needs: the
 * atomic_write_lock around the line discipline's buffer. */
struct console_tty {
	struct mutex atomic_write_lock;
	struct console_line line;
};

/* A console file with one reference (the caller's) on tty: fd 0 (read
 * side, out false) or fd 1/2 (out true); NULL when memory is short. */
struct file *tty_console_file(struct console_tty *tty, bool out);
/* tty_write_lock()/tty_write_unlock(): one write() or writev() at a time
 * on the console's line, whole; nothing for any other file (or NULL). */
void tty_write_lock(struct file *f);
void tty_write_unlock(struct file *f);

#endif
