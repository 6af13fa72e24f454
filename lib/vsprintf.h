/* The kernel's formatted output into a buffer (lib/vsprintf.c), with C's
 * snprintf contract: never past size, NUL-terminated when size > 0, and the
 * length the whole output would have had returned. */
#ifndef LIB_VSPRINTF_H
#define LIB_VSPRINTF_H

#include "kernel/types.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#endif
