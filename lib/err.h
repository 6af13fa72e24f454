/* Pointers that carry an errno (Linux's include/linux/err.h): the last
 * page of the address space is never a valid pointer, so a negative errno
 * cast to a pointer is told apart from a real one. */
#ifndef LIB_ERR_H
#define LIB_ERR_H

#include "kernel/types.h"

#define MAX_ERRNO 4095
#ifndef IS_ERR_VALUE
#define IS_ERR_VALUE(x) ((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
#endif

static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

#endif
