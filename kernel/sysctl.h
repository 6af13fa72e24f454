/* sysctls: the files of /proc/sys, each a row of Linux's struct ctl_table
 * registered where its value lives, with Linux's handlers for numbers
 * (proc_dointvec, proc_dointvec_minmax, proc_doulongvec_minmax) and their
 * min/max checks (extra1, extra2), or a handler of the subsystem's own:
 *
 *	SYSCTL_ENTRY(proc_sys_vm_dir, overcommit_memory,
 *		     .data = &sysctl_overcommit_memory, .maxlen = sizeof(int),
 *		     .proc_handler = proc_dointvec_minmax,
 *		     .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_TWO);
 *
 * A sysctl is mode 0644 (root writes it, everyone reads it), as every vm
 * sysctl of Linux's. A read prints the value and a newline; a write gives
 * the whole value to the handler at once (kernel/sysctl.c). */
#ifndef KERNEL_SYSCTL_H
#define KERNEL_SYSCTL_H

#include "fs/proc/proc_fs.h"

struct ctl_table;

/* Linux's proc_handler for one whole value: with write false, prints the
 * value into m; with write true, takes buf (len bytes, NUL-terminated) and
 * returns 0 or a negative errno (-EINVAL for a value it does not take). */
typedef int proc_handler(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
			 size_t len);

struct ctl_table {
	const char *procname;
	void *data;        /* the value: an int or an unsigned long (maxlen says which) */
	int maxlen;
	proc_handler *proc_handler;
	const void *extra1, *extra2; /* the _minmax handlers' bounds (NULL: none) */
};

proc_handler proc_dointvec;
proc_handler proc_dointvec_minmax;
proc_handler proc_doulongvec_minmax;

/* Linux's sysctl_vals: bounds for extra1/extra2. */
extern const int sysctl_vals[];
#define SYSCTL_ZERO ((const void *)&sysctl_vals[0])
#define SYSCTL_ONE ((const void *)&sysctl_vals[1])
#define SYSCTL_TWO ((const void *)&sysctl_vals[2])

/* Linux's proc_get_long for one whole value: blanks, an optional sign (only
 * for a signed value), digits (base 0: 0x hex too), blanks. 0 or -EINVAL. */
int proc_get_long(const char *buf, size_t len, bool is_signed, s64 *out);

/* The procfs side of every sysctl: the entry's data is its ctl_table. */
void proc_sys_show(struct seq_buf *m, const struct proc_node *node);
long proc_sys_write(const struct proc_node *node, const char *buf, size_t len);

#define SYSCTL_ENTRY(dir_, name_, ...) SYSCTL_ENTRY_NAMED(dir_, name_, #name_, __VA_ARGS__)
/* The same for a file whose name is no C identifier ("ctrl-alt-del"). */
#define SYSCTL_ENTRY_NAMED(dir_, id_, procname_, ...)                                        \
	static const struct ctl_table ctl_##id_ = { .procname = procname_, __VA_ARGS__ };   \
	static const struct proc_dir_entry ctl_entry_##id_ __proc_entry = {                 \
		.parent = &dir_, .name = procname_, .mode = S_IFREG | 0644, .show = proc_sys_show, \
		.write = proc_sys_write, .data = &ctl_##id_,                                \
	}

#endif
