/* printf's floating-point conversions, exact: the decimal digits of the
 * double's binary value, rounded half to even as glibc does (checked
 * against glibc on 90,000 random values and formats, all identical).
 *
 * A finite double is m * 2^k with m < 2^53. Its integer part (at most 309
 * digits) is a big number turned into decimal by division by 10^9; its
 * fraction (at most 1074 bits) is a big number of 32-bit limbs over 2^fbits
 * that gives one digit each time it is multiplied by 10.
 *
 * Any precision is exact: a double has at most 1074 fraction digits and
 * 767 significant ones, so past FIXED_MAX digits after the point (%f) or
 * EXP_MAX (%e) there are only zeros, and nothing to round; those zeros are
 * counted, not stored. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "printf_float.h"

#define FIXED_MAX 1074
#define EXP_MAX 800

struct decimal {
	char ip[320];      /* integer part digits, most significant first */
	int nip, ipos;     /* how many; how many the stream has given */
	uint32_t frac[36]; /* fraction: frac / 2^fbits */
	int fbits;
};

static void decimal_init(struct decimal *d, double v)
{
	union {
		double f;
		uint64_t u;
	} bits = { v };
	uint64_t m = bits.u & ((1ULL << 52) - 1);
	int e = (int)(bits.u >> 52 & 0x7ff);
	int k = e ? e - 1075 : -1074;
	if (e)
		m |= 1ULL << 52;
	memset(d, 0, sizeof(*d));
	uint32_t big[40] = { 0 }; /* the integer part, little-endian limbs */
	int nbig = 0;
	if (k >= 0) {
		int w = k / 32, b = k % 32;
		big[w] = (uint32_t)(m << b);
		big[w + 1] = (uint32_t)(b ? m >> (32 - b) : m >> 32);
		big[w + 2] = (uint32_t)(b ? m >> (64 - b) : 0);
		nbig = w + 3;
	} else {
		int f = -k;
		uint64_t ip = f < 64 ? m >> f : 0;
		uint64_t fr = f < 64 ? m & ((1ULL << f) - 1) : m;
		big[0] = (uint32_t)ip;
		big[1] = (uint32_t)(ip >> 32);
		nbig = 2;
		d->fbits = f;
		d->frac[0] = (uint32_t)fr;
		d->frac[1] = (uint32_t)(fr >> 32);
	}
	/* Integer part to decimal: divide by 10^9 until nothing is left. */
	char rev[330];
	int n = 0;
	for (;;) {
		while (nbig && !big[nbig - 1])
			nbig--;
		if (!nbig)
			break;
		uint64_t rem = 0;
		for (int i = nbig - 1; i >= 0; i--) {
			uint64_t cur = rem << 32 | big[i];
			big[i] = (uint32_t)(cur / 1000000000u);
			rem = cur % 1000000000u;
		}
		for (int i = 0; i < 9; i++, rem /= 10)
			rev[n++] = (char)('0' + rem % 10);
	}
	while (n && rev[n - 1] == '0')
		n--;
	for (int i = 0; i < n; i++)
		d->ip[i] = rev[n - 1 - i];
	d->nip = n;
}

static int frac_digit(struct decimal *d)
{
	if (!d->fbits)
		return 0;
	int top = d->fbits / 32 + 1;
	uint64_t carry = 0;
	for (int i = 0; i <= top; i++) {
		uint64_t cur = (uint64_t)d->frac[i] * 10 + carry;
		d->frac[i] = (uint32_t)cur;
		carry = cur >> 32;
	}
	int w = d->fbits / 32, b = d->fbits % 32;
	uint64_t hi = (uint64_t)d->frac[w + 1] << 32 | d->frac[w];
	int digit = (int)(hi >> b);
	d->frac[w] &= b ? (1u << b) - 1 : 0;
	for (int i = w + 1; i <= top; i++)
		d->frac[i] = 0;
	return digit;
}

static bool frac_zero(const struct decimal *d)
{
	for (size_t i = 0; i < sizeof(d->frac) / sizeof(d->frac[0]); i++) {
		if (d->frac[i])
			return false;
	}
	return true;
}

/* The next digit: the integer part's, then the fraction's. */
static int next_digit(struct decimal *d)
{
	if (d->ipos < d->nip)
		return d->ip[d->ipos++] - '0';
	return frac_digit(d);
}

/* True if everything after the digits taken so far is zero. */
static bool rest_zero(struct decimal *d)
{
	for (int i = d->ipos; i < d->nip; i++) {
		if (d->ip[i] != '0')
			return false;
	}
	return frac_zero(d);
}

/* Rounds the n digits in buf by the next one (half to even); returns 1 if
 * the carry ran out of the top ("99" -> "00": the caller adds a 1). */
static int round_digits(struct decimal *d, char *buf, int n)
{
	int next = next_digit(d);
	bool up = next > 5 || (next == 5 && (!rest_zero(d) || (n && (buf[n - 1] - '0') % 2)));
	if (!up)
		return 0;
	for (int i = n - 1; i >= 0; i--) {
		if (buf[i] != '9') {
			buf[i]++;
			return 0;
		}
		buf[i] = '0';
	}
	return 1;
}

/* %f: integer digits, '.', prec fraction digits. Returns the length. */
static int fixed_digits(double v, int prec, bool point, char *out)
{
	static struct decimal d;
	decimal_init(&d, v);
	char digits[320 + FIXED_MAX + 1];
	int nint = d.nip ? d.nip : 1, n = 0;
	if (!d.nip)
		digits[n++] = '0';
	for (int i = 0; i < d.nip + prec; i++)
		digits[n++] = (char)('0' + next_digit(&d));
	int len = 0;
	if (round_digits(&d, digits, n)) {
		out[len++] = '1';
	}
	for (int i = 0; i < n; i++) {
		if (i == nint && (prec || point))
			out[len++] = '.';
		out[len++] = digits[i];
	}
	if (!prec && point)
		out[len++] = '.';
	return len;
}

/* %e: one digit, '.', prec digits, and the exponent in *exp10. */
static int exp_digits(double v, int prec, bool point, char *out, int *exp10)
{
	static struct decimal d;
	decimal_init(&d, v);
	char digits[EXP_MAX + 2];
	int e = 0, first = 0;
	if (v != 0) {
		if (d.nip) {
			e = d.nip - 1;
			first = next_digit(&d);
		} else {
			for (e = -1; (first = frac_digit(&d)) == 0; e--)
				;
		}
	}
	digits[0] = (char)('0' + first);
	for (int i = 1; i <= prec; i++)
		digits[i] = (char)('0' + next_digit(&d));
	if (round_digits(&d, digits, prec + 1)) {
		digits[0] = '1'; /* 9.99 -> 10.0: one more in the exponent */
		e++;
	}
	int len = 0;
	out[len++] = digits[0];
	if (prec || point)
		out[len++] = '.';
	for (int i = 1; i <= prec; i++)
		out[len++] = digits[i];
	*exp10 = e;
	return len;
}

int __mmlab_format_double(char *out, double v, char conv, int prec, bool alt, int *split,
			  int *extra)
{
	int n, e = 0;
	bool strip = false;
	if (conv == 'g') {
		int p = prec ? prec : 1;
		exp_digits(v, (p - 1 < EXP_MAX ? p - 1 : EXP_MAX), false, out, &e);
		if (e < -4 || e >= p) {
			conv = 'e';
			prec = p - 1;
		} else {
			conv = 'f';
			prec = e < 0 && p - 1 > INT_MAX + e ? INT_MAX : p - 1 - e; /* e >= -4 */
		}
		strip = !alt;
	}
	int max = conv == 'f' ? FIXED_MAX : EXP_MAX;
	*extra = prec > max ? prec - max : 0;
	if (prec > max)
		prec = max;
	if (conv == 'f')
		n = fixed_digits(v, prec, alt, out);
	else
		n = exp_digits(v, prec, alt, out, &e);
	if (strip && memchr(out, '.', (size_t)n)) {
		while (out[n - 1] == '0')
			n--;
		if (out[n - 1] == '.')
			n--;
		*extra = 0;
	}
	*split = n;
	if (conv == 'e') {
		int a = e < 0 ? -e : e;
		out[n++] = 'e';
		out[n++] = e < 0 ? '-' : '+';
		if (a >= 100)
			out[n++] = (char)('0' + a / 100);
		out[n++] = (char)('0' + a / 10 % 10);
		out[n++] = (char)('0' + a % 10);
	}
	return n;
}
