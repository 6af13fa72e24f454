/* Integer base-2 logarithms (Linux's include/linux/log2.h and the fls64 of
 * its bitops), for sizes and counts; pure, shared by the kernel and the
 * host builds. */
#ifndef LIB_LOG2_H
#define LIB_LOG2_H

#include "kernel/types.h"

/* The position of the highest set bit, counting from 1; 0 for 0 (Linux's
 * fls64). */
static inline unsigned int fls64(u64 x)
{
	return x ? 64 - (unsigned int)__builtin_clzll(x) : 0;
}

/* floor(log2(n)); n must not be 0 (Linux's ilog2). */
static inline unsigned int ilog2(u64 n)
{
	return fls64(n) - 1;
}

/* The smallest order with 1 << order >= n: ceil(log2(n)), and 0 for 0 and
 * 1 (Linux's order_base_2). For a count of pages, where get_order takes
 * bytes. */
static inline unsigned int order_base_2(u64 n)
{
	return n > 1 ? ilog2(n - 1) + 1 : 0;
}

#endif
