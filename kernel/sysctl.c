/* The sysctl handlers (Linux's kernel/sysctl.c): numbers read and written
 * whole, with Linux's parsing and min/max checks, and the procfs methods
 * every registered ctl_table row shares (see kernel/sysctl.h). */
#include "kernel/sysctl.h"
#include "lib/string.h"

const int sysctl_vals[] = { 0, 1, 2 };

int proc_get_long(const char *buf, size_t len, bool is_signed, s64 *out)
{
	while (len && (buf[0] == ' ' || buf[0] == '\t' || buf[0] == '\n'))
		buf++, len--;
	while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\n' ||
		       buf[len - 1] == 0))
		len--;
	if (!len || (!is_signed && buf[0] == '-'))
		return -EINVAL;
	if (buf[0] == '-' || buf[0] == '+') {
		s64 v;
		if (len < 2 || buf[1] == '-' || buf[1] == '+' || parse_s64(buf + 1, len - 1, &v))
			return -EINVAL;
		*out = buf[0] == '-' ? -v : v;
		return 0;
	}
	if (is_signed)
		return parse_s64(buf, len, out) ? -EINVAL : 0;
	u64 u;
	if (parse_u64(buf, len, &u))
		return -EINVAL;
	*out = (s64)u;
	return 0;
}

/* do_proc_dointvec: an int, within [*extra1, *extra2] where they are set. */
static int do_proc_dointvec(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
			    size_t len, bool minmax)
{
	int *value = table->data;
	if (!write) {
		seq_buf_printf(m, "%d\n", READ_ONCE(*value));
		return 0;
	}
	s64 v;
	if (proc_get_long(buf, len, true, &v) || v < -0x80000000ll || v > 0x7fffffff)
		return -EINVAL;
	if (minmax && ((table->extra1 && v < *(const int *)table->extra1) ||
		       (table->extra2 && v > *(const int *)table->extra2)))
		return -EINVAL;
	WRITE_ONCE(*value, (int)v);
	return 0;
}

int proc_dointvec(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf, size_t len)
{
	return do_proc_dointvec(table, write, m, buf, len, false);
}

int proc_dointvec_minmax(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
			 size_t len)
{
	return do_proc_dointvec(table, write, m, buf, len, true);
}

/* __do_proc_doulongvec_minmax: an unsigned long (no sign), within
 * [*extra1, *extra2] where they are set. */
int proc_doulongvec_minmax(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
			   size_t len)
{
	unsigned long *value = table->data;
	if (!write) {
		seq_buf_printf(m, "%lu\n", READ_ONCE(*value));
		return 0;
	}
	s64 v;
	if (proc_get_long(buf, len, false, &v))
		return -EINVAL;
	unsigned long u = (unsigned long)v;
	if ((table->extra1 && u < *(const unsigned long *)table->extra1) ||
	    (table->extra2 && u > *(const unsigned long *)table->extra2))
		return -EINVAL;
	WRITE_ONCE(*value, u);
	return 0;
}

void proc_sys_show(struct seq_buf *m, const struct proc_node *node)
{
	const struct ctl_table *table = node->entry->data;
	table->proc_handler(table, false, m, NULL, 0);
}

long proc_sys_write(const struct proc_node *node, const char *buf, size_t len)
{
	const struct ctl_table *table = node->entry->data;
	int err = table->proc_handler(table, true, NULL, buf, len);
	return err ? err : (long)len;
}
