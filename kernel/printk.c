/* Formatting and console output for printk. vsnprintf supports what the kernel
 * uses: %d %i %u %x %X %o %p %s %c %%, flags '-' '0' ' ' '+' '#', a width
 * (also '*'), a precision for %s, and the hh/h/l/ll/z/t length modifiers. It
 * never writes past size and always returns the length the full output would
 * have had, like C's snprintf. */
#include "kernel/printk.h"
#include "arch/x86_64/serial.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

int console_loglevel = LOGLEVEL_DEFAULT;

struct out {
	char *buf;
	size_t size;
	size_t pos;
};

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->size)
		o->buf[o->pos] = c;
	o->pos++;
}

static void put_padding(struct out *o, int n, char c)
{
	while (n-- > 0)
		put(o, c);
}

enum { F_LEFT = 1, F_ZERO = 2, F_PLUS = 4, F_SPACE = 8, F_ALT = 16 };

static void put_number(struct out *o, u64 v, bool neg, unsigned base, bool upper,
		       int flags, int width, int precision)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (n < precision && n < (int)sizeof(tmp))
		tmp[n++] = '0';

	char sign = neg ? '-' : (flags & F_PLUS) ? '+' : (flags & F_SPACE) ? ' ' : 0;
	const char *alt = (flags & F_ALT) ? (base == 16 ? (upper ? "0X" : "0x") : base == 8 ? "0" : "") : "";
	int len = n + (sign != 0) + (int)strlen(alt);
	int pad = width > len ? width - len : 0;

	if (!(flags & (F_LEFT | F_ZERO)))
		put_padding(o, pad, ' ');
	if (sign)
		put(o, sign);
	for (const char *a = alt; *a; a++)
		put(o, *a);
	if ((flags & F_ZERO) && !(flags & F_LEFT))
		put_padding(o, pad, '0');
	while (n)
		put(o, tmp[--n]);
	if (flags & F_LEFT)
		put_padding(o, pad, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		int flags = 0;
		for (;; fmt++) {
			if (*fmt == '-') flags |= F_LEFT;
			else if (*fmt == '0') flags |= F_ZERO;
			else if (*fmt == '+') flags |= F_PLUS;
			else if (*fmt == ' ') flags |= F_SPACE;
			else if (*fmt == '#') flags |= F_ALT;
			else break;
		}
		int width = 0;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				flags |= F_LEFT;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		int precision = -1;
		if (*fmt == '.') {
			fmt++;
			precision = 0;
			if (*fmt == '*') {
				precision = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					precision = precision * 10 + (*fmt++ - '0');
			}
		}
		int lng = 0; /* -2 hh, -1 h, 0 int, 1 long, 2 long long, 3 size_t */
		if (*fmt == 'h') {
			lng = -1;
			if (*++fmt == 'h') {
				lng = -2;
				fmt++;
			}
		} else if (*fmt == 'l') {
			lng = 1;
			if (*++fmt == 'l') {
				lng = 2;
				fmt++;
			}
		} else if (*fmt == 'z' || *fmt == 't') {
			lng = 3;
			fmt++;
		}

		char c = *fmt;
		if (!c)
			break;
		switch (c) {
		case 'd':
		case 'i': {
			s64 v;
			if (lng == 2) v = va_arg(ap, long long);
			else if (lng == 1 || lng == 3) v = va_arg(ap, long);
			else v = va_arg(ap, int);
			if (lng == -1) v = (short)v;
			if (lng == -2) v = (signed char)v;
			put_number(&o, v < 0 ? 0 - (u64)v : (u64)v, v < 0, 10, false, flags, width, precision);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			u64 v;
			if (lng == 2) v = va_arg(ap, unsigned long long);
			else if (lng == 1 || lng == 3) v = va_arg(ap, unsigned long);
			else v = va_arg(ap, unsigned int);
			if (lng == -1) v = (unsigned short)v;
			if (lng == -2) v = (unsigned char)v;
			unsigned base = c == 'u' ? 10 : c == 'o' ? 8 : 16;
			put_number(&o, v, false, base, c == 'X', flags & ~(F_PLUS | F_SPACE), width, precision);
			break;
		}
		case 'p': {
			void *p = va_arg(ap, void *);
			/* Kernel pointers are always shown in full: this is a lab. */
			put_number(&o, (u64)(uintptr_t)p, false, 16, false, F_ZERO | (flags & F_LEFT), 16, -1);
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int len = (int)(precision >= 0 ? strnlen(s, precision) : strlen(s));
			if (!(flags & F_LEFT))
				put_padding(&o, width - len, ' ');
			for (int i = 0; i < len; i++)
				put(&o, s[i]);
			if (flags & F_LEFT)
				put_padding(&o, width - len, ' ');
			break;
		}
		case 'c': {
			if (!(flags & F_LEFT))
				put_padding(&o, width - 1, ' ');
			put(&o, (char)va_arg(ap, int));
			if (flags & F_LEFT)
				put_padding(&o, width - 1, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:
			/* Unknown conversion: show it rather than eat arguments. */
			put(&o, '%');
			put(&o, c);
			break;
		}
	}
	if (o.size)
		o.buf[o.pos < o.size ? o.pos : o.size - 1] = 0;
	return (int)o.pos;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

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
