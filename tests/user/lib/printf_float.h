/* The digits of printf's %f, %e and %g (printf_float.c), for stdio.c.
 * Internal to tests/user/lib. */
#ifndef MMLAB_USER_LIB_PRINTF_FLOAT_H
#define MMLAB_USER_LIB_PRINTF_FLOAT_H

#include <stdbool.h>

/* Writes the conversion of v (finite, >= 0; the caller handles the sign,
 * inf and nan) for conv 'f', 'e' or 'g' with precision prec (<= 60) and
 * the '#' flag alt into out (at least 800 bytes); returns its length. */
int __mmlab_format_double(char *out, double v, char conv, int prec, bool alt);

#endif
