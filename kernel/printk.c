/* printk: kernel messages on the serial console, with log levels, a line
 * prefix for the test framework, and captures for tests (kernel/printk.h).
 * The formatting is lib/vsprintf.c's. */
#include "kernel/printk.h"
#include "arch/x86_64/serial.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

int console_loglevel = LOGLEVEL_DEFAULT;

/* One CPU prints at a time, so lines do not interleave. The lock is taken
 * by hand rather than with spin_lock(): a fault while printing re-enters
 * printk on the same CPU, which must go on (not report recursion, not
 * deadlock), and a panic prints whoever holds it. */
static int console_owner = -1;
bool oops_in_progress;

static bool console_lock(void)
{
	int me = (int)smp_processor_id();
	if (__atomic_load_n(&console_owner, __ATOMIC_RELAXED) == me || oops_in_progress)
		return false;
	int expected = -1;
	while (!__atomic_compare_exchange_n(&console_owner, &expected, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		expected = -1;
		__builtin_ia32_pause();
	}
	return true;
}

static void console_unlock(bool took)
{
	if (took)
		__atomic_store_n(&console_owner, -1, __ATOMIC_RELEASE);
}

static const char *line_prefix;
static bool at_line_start = true;
static struct printk_capture *capture;

const char *printk_set_line_prefix(const char *prefix)
{
	const char *old = line_prefix;
	line_prefix = prefix;
	return old;
}

void printk_capture_begin(struct printk_capture *cap, char *buf, size_t size)
{
	cap->buf = buf;
	cap->size = size;
	cap->len = 0;
	if (size)
		buf[0] = 0;
	cap->console_filter = false;
	/* Under the console lock: another CPU's printk is either all before
	 * the switch or all after it, never half in each buffer. */
	unsigned long flags;
	local_irq_save(flags);
	bool took = console_lock();
	cap->outer = capture;
	capture = cap;
	console_unlock(took);
	local_irq_restore(flags);
}

void printk_capture_end(struct printk_capture *cap)
{
	unsigned long flags;
	local_irq_save(flags);
	bool took = console_lock();
	capture = cap->outer;
	console_unlock(took);
	local_irq_restore(flags);
}

struct printk_capture *printk_capture_current(void)
{
	return __atomic_load_n(&capture, __ATOMIC_ACQUIRE);
}

void printk_capture_restore(struct printk_capture *cap)
{
	unsigned long flags;
	local_irq_save(flags);
	bool took = console_lock();
	capture = cap;
	console_unlock(took);
	local_irq_restore(flags);
}

bool printk_console_lock(void)
{
	return console_lock();
}

void printk_console_unlock(bool took)
{
	console_unlock(took);
}

bool printk_console_held(void)
{
	return __atomic_load_n(&console_owner, __ATOMIC_RELAXED) == (int)smp_processor_id();
}

static void console_emit(const char *s, size_t len)
{
	if (capture) {
		for (size_t i = 0; i < len && capture->len + 1 < capture->size; i++)
			capture->buf[capture->len++] = s[i];
		if (capture->size)
			capture->buf[capture->len] = 0;
		return;
	}
	serial_write(s, len);
}

static const char *find_newline(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\n')
			return s + i;
	return NULL;
}

static void console_write(const char *s, size_t len)
{
	while (len) {
		if (at_line_start && line_prefix)
			console_emit(line_prefix, strlen(line_prefix));
		const char *nl = find_newline(s, len);
		size_t chunk = nl ? (size_t)(nl - s) + 1 : len;
		console_emit(s, chunk);
		at_line_start = nl != NULL;
		s += chunk;
		len -= chunk;
	}
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int level = MESSAGE_LOGLEVEL_DEFAULT;

	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	} else if (fmt[0] == KERN_SOH[0] && fmt[1] == '!') {
		level = -1;
		fmt += 2;
	}
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	unsigned long flags;
	local_irq_save(flags);
	bool took = console_lock();
	/* The capture is read under the lock (it may be ending on another CPU). */
	if (level <= console_loglevel || (capture && !capture->console_filter)) {
		console_write(buf, len);
		if ((size_t)n >= sizeof(buf))
			console_write("[...]\n", 6);
	}
	console_unlock(took);
	local_irq_restore(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
