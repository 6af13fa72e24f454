/* get_order (Linux's include/asm-generic/getorder.h): the smallest page
 * allocation order that holds a number of bytes. */
#ifndef LIB_GETORDER_H
#define LIB_GETORDER_H

#include "arch/x86_64/page_types.h"
#include "lib/log2.h"

/* The smallest order with PAGE_SIZE << order >= size, for size >= 1: 0 up
 * to PAGE_SIZE, 1 up to 2 * PAGE_SIZE, ... A size that is not a multiple
 * of PAGE_SIZE rounds up. get_order(0) is undefined, as Linux's (this one
 * gives 64 - PAGE_SHIFT, no valid order): callers never ask for 0 bytes. */
static inline unsigned int get_order(unsigned long size)
{
	return fls64((size - 1) >> PAGE_SHIFT);
}

#endif
