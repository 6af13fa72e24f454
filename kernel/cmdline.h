/* The kernel command line: the multiboot2 command line followed by QEMU's
 * fw_cfg file opt/mmlab/cmdline. Options are declared next to the code that
 * uses them with the kernel_param_* macros (a linker section collects them,
 * there is no central list):
 *
 *   static int loglevel = 6;
 *   kernel_param_int("loglevel", loglevel, 0, 7, "console log level");
 *
 * An option whose meaning depends on the words around it, or whose value
 * is not one of the kinds above, has a handler instead (Linux's __setup
 * and early_param): kernel_param_setup names it, and the parser calls it
 * once per occurrence, in command-line order.
 *
 * Words are "key=value" or bare flags; a value may be double-quoted (an
 * unterminated quote is refused with a message). An unknown key gets a
 * warning; a malformed value gets a message naming the option, what it
 * expects, and the value that stays in force. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "kernel/types.h"

enum kernel_param_type { PARAM_FLAG, PARAM_INT, PARAM_STRING, PARAM_SETUP };

/* PARAM_SETUP's handler: val is the value as a C string, or NULL for a
 * bare word ("name" without "="). Returns 0 when it applied it; -EINVAL
 * when the value is not one the option takes (the parser then reports it
 * with the option's expects text); any other negative errno when it
 * ignored a well-formed value for a reason of its own, which it has
 * reported itself (hugepagesz= naming a size twice). Either way the word
 * is counted as refused. */
typedef int (*param_setup_fn)(const char *val);
/* PARAM_SETUP's optional description of what the option has set so far,
 * for help ("default ..., now ...") and the "keeping ..." of a refusal. */
typedef void (*param_show_fn)(char *buf, size_t size);

struct kernel_param {
	const char *name;
	enum kernel_param_type type;
	void *var;
	s64 min, max;      /* PARAM_INT */
	size_t size;       /* PARAM_STRING: buffer size */
	const char *help;
	param_setup_fn setup;  /* PARAM_SETUP */
	param_show_fn show;    /* PARAM_SETUP, may be NULL */
	const char *expects;   /* PARAM_SETUP: what the value must be */
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

/* fn(val) for each occurrence of name, in order; show (may be NULL)
 * describes the option's state, expects what a good value is ("always,
 * madvise or never"). */
#define kernel_param_setup(pname, fn, pshow, pexpects, phelp)                             \
	static const struct kernel_param __kernel_param_##fn __used                       \
		__section(".kernel_params") __aligned(8) = {                              \
			.name = pname, .type = PARAM_SETUP, .setup = fn, .show = pshow,   \
			.expects = pexpects, .help = phelp }

#define COMMAND_LINE_SIZE 2048
/* The longest value a PARAM_SETUP handler is given; a longer one is
 * refused. */
#define PARAM_SETUP_VALUE_MAX 255

extern char boot_command_line[COMMAND_LINE_SIZE];

/* What a parse made of its words: applied, unknown (no such option) and
 * refused (a malformed value, an unterminated quote, or a value a handler
 * refused). */
struct param_counts {
	unsigned applied, unknown, refused;
};

/* Parses text against the given parameters, word by word in order;
 * returns the number of problems (unknown + refused), each reported with
 * printk, and fills counts when it is not NULL. */
unsigned parse_params(const char *text, const struct kernel_param *params, size_t nr,
		      struct param_counts *counts);
/* What the parse of boot_command_line at boot made of it. */
const struct param_counts *cmdline_boot_counts(void);
/* The registered parameters. */
const struct kernel_param *kernel_params(size_t *nr);
/* The fw_cfg command line is a C string: returns the length up to its first
 * NUL, and warns when a NUL hides later (non-NUL) bytes of the len read. */
size_t cmdline_check_nul(const char *buf, size_t len);
/* Builds boot_command_line from the two sources and applies it. */
void cmdline_init(const char *multiboot_cmdline);
void cmdline_print_help(void);

#endif
