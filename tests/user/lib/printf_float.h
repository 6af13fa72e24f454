/* The digits of printf's %f, %e and %g (printf_float.c), for stdio.c.
 * Internal to tests/user/lib. */
#ifndef MMLAB_USER_LIB_PRINTF_FLOAT_H
#define MMLAB_USER_LIB_PRINTF_FLOAT_H

#include <stdbool.h>

/* Big enough for any conversion's stored part: 309 integer digits, '.',
 * 1074 fraction digits (a double has no more), an exponent. */
#define PRINTF_FLOAT_OUT 1400

/* Writes the conversion of v (finite, >= 0; the caller handles the sign,
 * inf and nan) for conv 'f', 'e' or 'g' with any precision prec >= 0 and
 * the '#' flag alt into out (PRINTF_FLOAT_OUT bytes); returns its length.
 * Digits past what a double holds are zeros and are not stored: the
 * caller emits *extra '0's between out[0..*split) and the rest (the
 * exponent of %e, if any). */
int __mmlab_format_double(char *out, double v, char conv, int prec, bool alt, int *split,
			  int *extra);

#endif
