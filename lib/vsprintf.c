/* Linux's lib/vsprintf.c, as much as the kernel uses: %d %i %u %x %X %o %p
 * %s %c %%, flags '-' '0' ' ' '+' '#', a width (also '*'), a precision (also
 * '*'; for %s, and the least digits of a number), and the hh/h/l/ll/z/t
 * length modifiers. It never writes past size and always returns the
 * length the full output would have had, like C's snprintf; the host tests
 * (tests/host/vsprintf_test.c) hold it beside the C library's. Where C
 * and Linux part, it is Linux's (number(): a zero has one digit whatever
 * the precision, and '#' adds its prefix to any value: %#x of 0 is 0x0);
 * %p prints the whole address, zero-padded (this is a lab: no hashed
 * pointers). */
#include "lib/vsprintf.h"
#include "lib/string.h"

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
