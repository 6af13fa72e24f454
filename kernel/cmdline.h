/* The kernel command line: the multiboot2 command line followed by QEMU's
 * fw_cfg file opt/mmlab/cmdline. Options are declared next to the code that
 * uses them with the kernel_param_* macros (a linker section collects them,
 * there is no central list):
 *
 *   static int loglevel = 6;
 *   kernel_param_int("loglevel", loglevel, 0, 7, "console log level");
 *
 * Words are "key=value" or bare flags; a value may be double-quoted (an
 * unterminated quote is refused with a message). An unknown key gets a warning; a malformed value gets a message naming the
 * option, what it expects, and the value that stays in force. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "kernel/types.h"

enum kernel_param_type { PARAM_FLAG, PARAM_INT, PARAM_STRING };

struct kernel_param {
	const char *name;
	enum kernel_param_type type;
	void *var;
	s64 min, max;      /* PARAM_INT */
	size_t size;       /* PARAM_STRING: buffer size */
	const char *help;
};

#define __kernel_param(pname, ptype, pvar, pmin, pmax, psize, phelp)                      \
	static const struct kernel_param __kernel_param_##pvar __used                     \
		__section(".kernel_params") __aligned(8) = {                              \
			.name = pname, .type = ptype, .var = &pvar, .min = pmin,          \
			.max = pmax, .size = psize, .help = phelp }

/* bool var: bare "name" or name=1/y/yes/on/true sets it, 0/n/no/off/false clears. */
#define kernel_param_flag(name, var, help) __kernel_param(name, PARAM_FLAG, var, 0, 1, 0, help)
/* int var, value in [lo, hi] (decimal or 0x hex, may be negative). */
#define kernel_param_int(name, var, lo, hi, help) __kernel_param(name, PARAM_INT, var, lo, hi, 0, help)
/* char var[N]: the value is copied; longer than N - 1 is refused. */
#define kernel_param_string(name, var, help) \
	__kernel_param(name, PARAM_STRING, var, 0, 0, sizeof(var), help)

#define COMMAND_LINE_SIZE 2048

extern char boot_command_line[COMMAND_LINE_SIZE];

/* Parses text against the given parameters; returns the number of problems
 * (unknown keys, malformed values), each reported with printk. */
unsigned parse_params(const char *text, const struct kernel_param *params, size_t nr);
/* The registered parameters. */
const struct kernel_param *kernel_params(size_t *nr);
/* The fw_cfg command line is a C string: returns the length up to its first
 * NUL, and warns when a NUL hides later (non-NUL) bytes of the len read. */
size_t cmdline_check_nul(const char *buf, size_t len);
/* Builds boot_command_line from the two sources and applies it. */
void cmdline_init(const char *multiboot_cmdline);
void cmdline_print_help(void);
/* /proc/cmdline (kernel/procfs.c), as Linux's: the command line and a
 * newline. */
struct seq_buf;
struct proc_node;
void cmdline_show(struct seq_buf *m, const struct proc_node *node);

#endif
