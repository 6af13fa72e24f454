/* stdout/stderr and printf for the mmlab user C library.
 *
 * A stream is a file descriptor and a buffer. Output is appended to the
 * buffer, which is written out when it fills, at the end of a call that
 * appended a newline (line buffered: stdout) or at the end of every call
 * (unbuffered: stderr; a whole printf still goes out as one write), on
 * fflush and at exit. On mmlab fd 1 and 2 are the same console, which
 * prefixes each line the process writes; whole-line writes keep lines from
 * being split. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "printf_float.h"

struct mmlab_file {
	int fd;
	int mode;          /* _IOFBF, _IOLBF or _IONBF */
	int newline;       /* a newline was appended since the last flush */
	size_t len;
	char buf[BUFSIZ];
};

static struct mmlab_file files[3] = {
	{ .fd = 0, .mode = _IOLBF },
	{ .fd = 1, .mode = _IOLBF },
	{ .fd = 2, .mode = _IONBF },
};
FILE *stdin = &files[0];
FILE *stdout = &files[1];
FILE *stderr = &files[2];

int fflush(FILE *f)
{
	if (!f) {
		fflush(stdout);
		return fflush(stderr);
	}
	size_t done = 0;
	int ret = 0;
	while (done < f->len) {
		ssize_t n = write(f->fd, f->buf + done, f->len - done);
		if (n <= 0) {
			ret = EOF; /* nowhere to report it: drop the rest */
			break;
		}
		done += (size_t)n;
	}
	f->len = 0;
	f->newline = 0;
	return ret;
}

void __mmlab_stdio_flush_all(void)
{
	fflush(NULL);
}

static void append(FILE *f, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(f->buf) - f->len;
		size_t k = n < room ? n : room;
		memcpy(f->buf + f->len, s, k);
		if (memchr(s, '\n', k))
			f->newline = 1;
		f->len += k;
		s += k;
		n -= k;
		if (f->len == sizeof(f->buf))
			fflush(f);
	}
}

/* The end of one output call: flush as the stream's mode says. */
static void end_call(FILE *f)
{
	if (f->mode == _IONBF || (f->mode == _IOLBF && f->newline))
		fflush(f);
}

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	(void)buf;
	(void)size;
	if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
		return -1;
	fflush(f);
	f->mode = mode;
	return 0;
}

/* The formatter writes through a sink: a stream or a bounded buffer. */
struct sink {
	FILE *f;         /* or NULL: to buf */
	char *buf;
	size_t size;     /* of buf, including the terminating NUL */
	size_t count;    /* characters produced (what printf returns) */
};

static void emit(struct sink *s, const char *p, size_t n)
{
	if (s->f) {
		append(s->f, p, n);
	} else if (s->count + 1 < s->size) {
		size_t room = s->size - 1 - s->count;
		memcpy(s->buf + s->count, p, n < room ? n : room);
	}
	s->count += n;
}

static void emit_pad(struct sink *s, char c, int n)
{
	char pad[32];
	memset(pad, c, sizeof(pad));
	while (n > 0) {
		int k = n < (int)sizeof(pad) ? n : (int)sizeof(pad);
		emit(s, pad, (size_t)k);
		n -= k;
	}
}

struct spec {
	int left, plus, space, zero, alt;
	int width, prec; /* prec < 0: none */
};

/* Emits prefix (sign, 0x) and digits with the width, zero padding and
 * left justification of sp. */
static void emit_field(struct sink *s, const struct spec *sp, const char *prefix,
		       const char *digits, int ndigits, int zeros)
{
	int plen = (int)strlen(prefix);
	int total = plen + zeros + ndigits;
	int pad = sp->width > total ? sp->width - total : 0;
	if (!sp->left && !sp->zero)
		emit_pad(s, ' ', pad);
	emit(s, prefix, (size_t)plen);
	if (!sp->left && sp->zero)
		emit_pad(s, '0', pad);
	emit_pad(s, '0', zeros);
	emit(s, digits, (size_t)ndigits);
	if (sp->left)
		emit_pad(s, ' ', pad);
}

static void format_int(struct sink *s, struct spec sp, unsigned long long v, int neg,
		       unsigned base, int upper)
{
	char digits[32];
	int n = 0;
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned long long orig = v;
	while (v) {
		digits[sizeof(digits) - 1 - n++] = set[v % base];
		v /= base;
	}
	if (n == 0 && sp.prec != 0)
		digits[sizeof(digits) - 1 - n++] = '0';
	const char *prefix = neg ? "-" : sp.plus ? "+" : sp.space ? " " : "";
	if (sp.alt && base == 16 && orig)
		prefix = upper ? "0X" : "0x";
	int zeros = sp.prec > n ? sp.prec - n : 0;
	/* '#' with 'o': the first digit is a 0 ("%#.0o" of 0 is "0"). */
	if (sp.alt && base == 8 && zeros == 0 && (n == 0 || digits[sizeof(digits) - n] != '0'))
		zeros = 1;
	if (sp.prec >= 0)
		sp.zero = 0;
	emit_field(s, &sp, prefix, digits + sizeof(digits) - n, n, zeros);
}

/* %a: the double in hexadecimal as glibc prints it: "0x1.8p+1", a
 * subnormal as "0x0.0000000000001p-1022", zero as "0x0p+0"; without a
 * precision as many digits as it takes (trailing zeros dropped), with one
 * rounded half to even (a carry can make the leading digit 2). Writes out
 * (at least 32 bytes) up to where *extra zeros go (after the digits, before
 * the 'p'); returns the length. */
static int hex_double(char *out, double v, int prec, int alt, int upper, int *split, int *extra)
{
	union {
		double f;
		uint64_t u;
	} bits = { v };
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	uint64_t m = bits.u & ((1ULL << 52) - 1);
	int e = (int)(bits.u >> 52 & 0x7ff);
	int lead = e != 0, exp2 = e ? e - 1023 : m ? -1022 : 0;
	int ndig = 13; /* hex digits of m */
	if (prec < 0) {
		while (ndig && !(m & 0xf)) {
			m >>= 4;
			ndig--;
		}
		prec = ndig;
	} else if (prec < ndig) {
		int cut = 4 * (ndig - prec);
		uint64_t rem = m & ((1ULL << cut) - 1), half = 1ULL << (cut - 1);
		m >>= cut;
		ndig = prec;
		int odd = prec ? (int)(m & 1) : lead & 1;
		if (rem > half || (rem == half && odd)) {
			if (++m >> (4 * ndig)) {
				m = 0;
				lead++;
			}
		}
	}
	int n = 0;
	out[n++] = (char)('0' + lead);
	if (prec || alt)
		out[n++] = '.';
	for (int i = ndig - 1; i >= 0; i--)
		out[n++] = set[m >> (4 * i) & 0xf];
	*split = n;
	*extra = prec - ndig;
	out[n++] = upper ? 'P' : 'p';
	out[n++] = exp2 < 0 ? '-' : '+';
	unsigned a = (unsigned)(exp2 < 0 ? -exp2 : exp2);
	char rev[8];
	int k = 0;
	do
		rev[k++] = (char)('0' + a % 10);
	while (a /= 10);
	while (k)
		out[n++] = rev[--k];
	return n;
}

/* %f %F %e %E %g %G %a %A: the sign, inf and nan here, the decimal digits
 * in printf_float.c. Any precision is exact: past the digits a double has,
 * there are only zeros, which are emitted without being stored. */
static void format_float(struct sink *s, struct spec sp, double v, char conv)
{
	static char out[PRINTF_FLOAT_OUT];
	char prefix[4] = "";
	int upper = conv >= 'A' && conv <= 'Z';
	conv = (char)(conv | 0x20);
	if (__builtin_signbit(v)) {
		strcpy(prefix, "-");
		v = -v;
	} else if (sp.plus) {
		strcpy(prefix, "+");
	} else if (sp.space) {
		strcpy(prefix, " ");
	}
	if (v != v || v > 1.7976931348623157e308) {
		sp.zero = 0;
		emit_field(s, &sp, prefix, v != v ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3, 0);
		return;
	}
	int n, split, extra;
	if (conv == 'a') {
		strcat(prefix, upper ? "0X" : "0x");
		n = hex_double(out, v, sp.prec, sp.alt, upper, &split, &extra);
	} else {
		n = __mmlab_format_double(out, v, conv, sp.prec < 0 ? 6 : sp.prec, sp.alt, &split, &extra);
		for (int i = split; upper && i < n; i++)
			out[i] = out[i] == 'e' ? 'E' : out[i];
	}
	int plen = (int)strlen(prefix);
	int pad = sp.width - plen - n > extra ? sp.width - plen - n - extra : 0;
	if (!sp.left && !sp.zero)
		emit_pad(s, ' ', pad);
	emit(s, prefix, (size_t)plen);
	if (!sp.left && sp.zero)
		emit_pad(s, '0', pad);
	emit(s, out, (size_t)split);
	emit_pad(s, '0', extra);
	emit(s, out + split, (size_t)(n - split));
	if (sp.left)
		emit_pad(s, ' ', pad);
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
	while (*fmt) {
		const char *start = fmt;
		while (*fmt && *fmt != '%')
			fmt++;
		if (fmt > start)
			emit(s, start, (size_t)(fmt - start));
		if (!*fmt)
			break;
		const char *conv_start = fmt++;
		struct spec sp = { .prec = -1 };
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = 1;
			else if (*fmt == '+')
				sp.plus = 1;
			else if (*fmt == ' ')
				sp.space = 1;
			else if (*fmt == '0')
				sp.zero = 1;
			else if (*fmt == '#')
				sp.alt = 1;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0)
				sp.left = 1, sp.width = -sp.width;
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				sp.width = sp.width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			sp.prec = 0;
			if (*fmt == '*') {
				sp.prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					sp.prec = sp.prec * 10 + (*fmt++ - '0');
			}
		}
		if (sp.left)
			sp.zero = 0;
		int size = 0; /* -2 hh, -1 h, 0 int, 1 long, 2 long long, 3 L */
		if (*fmt == 'h') {
			size = -1;
			if (*++fmt == 'h')
				size = -2, fmt++;
		} else if (*fmt == 'l') {
			size = 1;
			if (*++fmt == 'l')
				size = 2, fmt++;
		} else if (*fmt == 'L') {
			size = 3; /* long double; with an integer conversion long long, as glibc */
			fmt++;
		} else if (*fmt == 'z' || *fmt == 't' || *fmt == 'j') {
			size = 1;
			fmt++;
		}
		char c = *fmt++;
		switch (c) {
		case 'd':
		case 'i': {
			long long v = size >= 1 ? (size >= 2 ? va_arg(ap, long long) : va_arg(ap, long))
						: va_arg(ap, int);
			if (size == -1)
				v = (short)v;
			else if (size == -2)
				v = (signed char)v;
			format_int(s, sp, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0, 10, 0);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned long long v = size >= 1 ? (size >= 2 ? va_arg(ap, unsigned long long)
								      : va_arg(ap, unsigned long))
							 : va_arg(ap, unsigned int);
			if (size == -1)
				v = (unsigned short)v;
			else if (size == -2)
				v = (unsigned char)v;
			sp.plus = sp.space = 0;
			format_int(s, sp, v, 0, c == 'o' ? 8 : c == 'u' ? 10 : 16, c == 'X');
			break;
		}
		case 'p': {
			void *p = va_arg(ap, void *);
			if (!p) {
				sp.zero = 0;
				emit_field(s, &sp, "", "(nil)", 5, 0);
			} else {
				sp.alt = 1;
				format_int(s, sp, (uintptr_t)p, 0, 16, 0);
			}
			break;
		}
		case 'c': {
			char ch = (char)va_arg(ap, int);
			sp.zero = 0;
			emit_field(s, &sp, "", &ch, 1, 0);
			break;
		}
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str) /* glibc: "(null)" if it fits the precision, else nothing */
				str = sp.prec < 0 || sp.prec >= 6 ? "(null)" : "";
			size_t len = sp.prec >= 0 ? strnlen(str, (size_t)sp.prec) : strlen(str);
			sp.zero = 0;
			emit_field(s, &sp, "", str, (int)len, 0);
			break;
		}
		case 'f':
		case 'F':
		case 'e':
		case 'E':
		case 'g':
		case 'G':
		case 'a':
		case 'A': {
			/* A long double is formatted as the double nearest to it
			 * (glibc prints all its 64 bits: %La differs, 0x8p-3 for 1). */
			double v = size == 3 ? (double)va_arg(ap, long double) : va_arg(ap, double);
			format_float(s, sp, v, c);
			break;
		}
		case '%':
			emit(s, "%", 1);
			break;
		default: /* unknown (takes no argument): print it as written */
			if (!c)
				fmt--;
			emit(s, conv_start, (size_t)(fmt - conv_start));
			break;
		}
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink s = { .buf = buf, .size = size };
	format(&s, fmt, ap);
	if (size)
		buf[s.count < size ? s.count : size - 1] = 0;
	return (int)s.count;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, SIZE_MAX, fmt, ap);
	va_end(ap);
	return n;
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	struct sink s = { .f = f };
	format(&s, fmt, ap);
	end_call(f);
	return (int)s.count;
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int fputs(const char *str, FILE *f)
{
	append(f, str, strlen(str));
	end_call(f);
	return 0;
}

int puts(const char *str)
{
	append(stdout, str, strlen(str));
	append(stdout, "\n", 1);
	end_call(stdout);
	return 0;
}

int fputc(int c, FILE *f)
{
	char ch = (char)c;
	append(f, &ch, 1);
	end_call(f);
	return (unsigned char)c;
}

int putc(int c, FILE *f)
{
	return fputc(c, f);
}

int putchar(int c)
{
	return fputc(c, stdout);
}

void perror(const char *msg)
{
	int err = errno;
	if (msg && *msg)
		fprintf(stderr, "%s: %s\n", msg, strerror(err));
	else
		fprintf(stderr, "%s\n", strerror(err));
}
