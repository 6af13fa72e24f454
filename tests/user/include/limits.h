/* limits.h: the compiler's (CHAR_BIT, INT_MAX, LONG_MAX, ...) plus the few
 * POSIX limits glibc's <limits.h> adds. gcc's own limits.h goes on to
 * include the C library's unless _LIBC_LIMITS_H_ says it is already here. */
#ifndef _MMLAB_LIMITS_H
#define _MMLAB_LIMITS_H

#define _LIBC_LIMITS_H_ 1
#include_next <limits.h>

#define SSIZE_MAX LONG_MAX
#define PATH_MAX 4096
#define NAME_MAX 255

#endif
