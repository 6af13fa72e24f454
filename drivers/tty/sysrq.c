/* /proc/sysrq-trigger: Linux's magic SysRq keys written as a file (Linux's
 * drivers/tty/sysrq.c), with the one key mmlab has: 'g', which enters the
 * debugger (Linux's kgdb; here the stop gdb breaks on, kernel/debugger.h).
 * As in Linux, each byte written is a key, unknown keys print the list of
 * known ones, and the file is write-only (0200); reading it gives nothing. */
#include "fs/proc/proc_fs.h"
#include "kernel/debugger.h"
#include "kernel/printk.h"

static long sysrq_trigger_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	for (size_t i = 0; i < len; i++) {
		switch (buf[i]) {
		case 'g':
			pr_info("sysrq: DEBUG\n");
			debugger_enter("sysrq g");
			break;
		case '\n':
			break;
		default:
			pr_info("sysrq: HELP : debug(g)\n");
			break;
		}
	}
	return (long)len;
}

static void sysrq_trigger_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)m;
	(void)node;
}

static const struct proc_dir_entry sysrq_trigger_entry __proc_entry = {
	.parent = &proc_root_dir, .name = "sysrq-trigger", .mode = S_IFREG | 0200,
	.show = sysrq_trigger_show, .write = sysrq_trigger_write,
};
