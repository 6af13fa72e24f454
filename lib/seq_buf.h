/* Linux's seq_buf (include/linux/seq_buf.h): a bounded buffer that
 * remembers it overflowed. procfs's generators print into one, and
 * procfs_fill() (fs/proc/generic.c) retries with a larger one when it
 * overflowed, so a file is always generated whole. */
#ifndef LIB_SEQ_BUF_H
#define LIB_SEQ_BUF_H

#include "kernel/types.h"

struct seq_buf {
	char *buffer;
	size_t size;
	size_t len; /* > size once something did not fit */
};

static inline bool seq_buf_has_overflowed(const struct seq_buf *s) { return s->len > s->size; }
void __printf(2, 3) seq_buf_printf(struct seq_buf *s, const char *fmt, ...);
static inline void seq_buf_puts(struct seq_buf *s, const char *str) { seq_buf_printf(s, "%s", str); }

/* A set of small integers as Linux's "%*pbl" ("0-3,8"), then a newline. */
void print_list(struct seq_buf *m, const bool *set, int n);
/* A bitmap of nr_bits as Linux's "%*pb" (hex, 32-bit chunks, commas). */
void print_mask(struct seq_buf *m, u64 bits, unsigned nr_bits);

#endif
