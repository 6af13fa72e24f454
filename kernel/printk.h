/* printk: formatted kernel messages on the serial console.
 *
 * A message may start with a log level (KERN_ERR "..."), as in Linux; messages
 * less important than the console log level (loglevel= on the command line)
 * are not printed. While a test case runs, the test framework sets a line
 * prefix so that everything the kernel prints becomes a KTAP diagnostic line
 * of that case. */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "kernel/types.h"
#include "lib/vsprintf.h"

#define KERN_SOH "\001"
#define KERN_EMERG KERN_SOH "0"
#define KERN_ALERT KERN_SOH "1"
#define KERN_CRIT KERN_SOH "2"
#define KERN_ERR KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE KERN_SOH "5"
#define KERN_INFO KERN_SOH "6"
#define KERN_DEBUG KERN_SOH "7"
/* Printed whatever the log level: test results must always reach CI. */
#define KERN_ALWAYS KERN_SOH "!"

#define LOGLEVEL_DEFAULT 6 /* print up to and including KERN_INFO */
#define MESSAGE_LOGLEVEL_DEFAULT 5 /* messages without a level: KERN_NOTICE */

int vprintk(const char *fmt, va_list ap);
int printk(const char *fmt, ...) __printf(1, 2);

#define pr_emerg(...) printk(KERN_EMERG __VA_ARGS__)
#define pr_err(...) printk(KERN_ERR __VA_ARGS__)
#define pr_warn(...) printk(KERN_WARNING __VA_ARGS__)
#define pr_notice(...) printk(KERN_NOTICE __VA_ARGS__)
#define pr_info(...) printk(KERN_INFO __VA_ARGS__)
#define pr_debug(...) printk(KERN_DEBUG __VA_ARGS__)

extern int console_loglevel;
/* Set by panic: printk stops waiting for the console lock. */
extern bool oops_in_progress;

/* Text put before every console line (NULL for none); returns the old one. */
const char *printk_set_line_prefix(const char *prefix);

/* Divert console output into buf (for tests of code that prints). Captures
 * nest: ending one restores the capture that was active when it began. A
 * capture records every log level, whatever loglevel= says, unless
 * console_filter is set after printk_capture_begin(). */
struct printk_capture {
	char *buf;
	size_t size;
	size_t len;
	bool console_filter;
	struct printk_capture *outer;
};
void printk_capture_begin(struct printk_capture *cap, char *buf, size_t size);
void printk_capture_end(struct printk_capture *cap);
/* The capture in force (NULL: none), and putting one back: for the test
 * framework, whose case may fault between a begin and its end. */
struct printk_capture *printk_capture_current(void);
void printk_capture_restore(struct printk_capture *cap);
/* Whether this CPU holds the console lock (a fault there must not be
 * unwound past it). */
bool printk_console_held(void);
/* The console lock for output of the caller's own on the console's port
 * (a terminal on the same UART, drivers/tty/serial/8250.c), so that no
 * printk line is torn by it: returns whether it took the lock (false:
 * this CPU held it already), for printk_console_unlock. */
bool printk_console_lock(void);
void printk_console_unlock(bool took);

#endif
