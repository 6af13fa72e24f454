/* Linux's lib/seq_buf.c, and the bitmap printers procfs's files share
 * (Linux's bitmap_print_to_pagebuf: "%*pbl" and "%*pb"). */
#include "lib/seq_buf.h"
#include "kernel/printk.h"
#include "kernel/types.h"

void seq_buf_printf(struct seq_buf *s, const char *fmt, ...)
{
	if (seq_buf_has_overflowed(s))
		return;
	va_list ap;
	va_start(ap, fmt);
	size_t room = s->size - s->len;
	int n = vsnprintf(s->buffer + s->len, room, fmt, ap);
	va_end(ap);
	/* vsnprintf keeps one byte for its NUL: fitting means n < room. */
	s->len = (size_t)n < room ? s->len + (size_t)n : s->size + 1;
}

/* A set of small integers as Linux's "%*pbl": "0-3,8". */
void print_list(struct seq_buf *m, const bool *set, int n)
{
	bool first = true;
	for (int i = 0; i < n; i++) {
		if (!set[i])
			continue;
		int j = i;
		while (j + 1 < n && set[j + 1])
			j++;
		if (j > i)
			seq_buf_printf(m, "%s%d-%d", first ? "" : ",", i, j);
		else
			seq_buf_printf(m, "%s%d", first ? "" : ",", i);
		first = false;
		i = j;
	}
	seq_buf_puts(m, "\n");
}

/* A bitmap as Linux's "%*pb": hex, 32-bit chunks high to low, commas
 * between, the top chunk as wide as the bits it holds. */
void print_mask(struct seq_buf *m, u64 bits, unsigned nr_bits)
{
	unsigned chunk = nr_bits % 32 ? nr_bits % 32 : 32;
	for (int i = (int)ALIGN_UP(nr_bits, 32u) - 32; i >= 0; i -= 32) {
		u64 val = (i < 64 ? bits >> i : 0) & ((1ull << chunk) - 1);
		seq_buf_printf(m, "%s%0*llx", i == (int)ALIGN_UP(nr_bits, 32u) - 32 ? "" : ",",
			       (int)((chunk + 3) / 4), (unsigned long long)val);
		chunk = 32;
	}
}
