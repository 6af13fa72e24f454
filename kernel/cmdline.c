#include "kernel/cmdline.h"
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/fw_cfg.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "lib/string.h"

char boot_command_line[COMMAND_LINE_SIZE];

/* Read by the user program syscall_fuzz from /proc/cmdline (make fuzz sets
 * them); declared here so that they are known options, not warnings. */
static int fuzz_calls, fuzz_seed;
kernel_param_int("fuzz.calls", fuzz_calls, 0, 0x7fffffff,
		 "calls for the user program syscall_fuzz (0: its default; make fuzz)");
kernel_param_int("fuzz.seed", fuzz_seed, 0, 0x7fffffff,
		 "seed for the user program syscall_fuzz (0: its default; make fuzz)");

/* Read by the user program paging_policy from /proc/cmdline (its trace
 * and the frames it aims at: docs/reclaim.md, "Replacement policies for
 * teaching"); known options here, so that they are not warnings. */
static char paging_policy_trace[16];
static int paging_policy_frames, paging_policy_rounds, paging_policy_seed;
kernel_param_string("paging_policy.trace", paging_policy_trace,
		    "trace of the user program paging_policy: hotscan (default) or locality");
kernel_param_int("paging_policy.frames", paging_policy_frames, 64, 65536,
		 "page frames the user program paging_policy leaves its trace (default 512)");
kernel_param_int("paging_policy.rounds", paging_policy_rounds, 2, 1000,
		 "rounds of the user program paging_policy's trace (default 32)");
kernel_param_int("paging_policy.seed", paging_policy_seed, 0, 0x7fffffff,
		 "seed of the user program paging_policy's locality trace (default 1)");

static void cmdline_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%s\n", boot_command_line);
}

/* /proc/cmdline, as Linux's: the command line and a newline. */
PROC_FILE(cmdline_entry, proc_root_dir, "cmdline", cmdline_show);

extern const struct kernel_param __kernel_params_start[], __kernel_params_end[];

const struct kernel_param *kernel_params(size_t *nr)
{
	*nr = (size_t)(__kernel_params_end - __kernel_params_start);
	return __kernel_params_start;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static bool word_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

static const char *param_expects(const struct kernel_param *p, char *buf, size_t size)
{
	switch (p->type) {
	case PARAM_FLAG: return "a flag (on/off, 1/0, y/n)";
	case PARAM_INT:
		snprintf(buf, size, "an integer in %lld..%lld", (long long)p->min, (long long)p->max);
		return buf;
	case PARAM_STRING:
		snprintf(buf, size, "text of at most %zu characters", p->size - 1);
		return buf;
	case PARAM_SETUP:
		return p->expects;
	}
	return "?";
}

static void describe_value(const struct kernel_param *p, char *buf, size_t size)
{
	switch (p->type) {
	case PARAM_FLAG: snprintf(buf, size, "%s", *(bool *)p->var ? "on" : "off"); break;
	case PARAM_INT: snprintf(buf, size, "%d", *(int *)p->var); break;
	case PARAM_STRING: snprintf(buf, size, "\"%s\"", (char *)p->var); break;
	case PARAM_SETUP:
		if (p->show)
			p->show(buf, size);
		else
			snprintf(buf, size, "%s", "");
		break;
	}
}

/* PARAM_SETUP: the handler gets the value as a C string (a copy: the
 * text is not written). 0, or its negative errno. */
static int call_setup(const struct kernel_param *p, const char *val, size_t len, bool has_value)
{
	char copy[PARAM_SETUP_VALUE_MAX + 1];
	if (!has_value)
		return p->setup(NULL);
	if (len > PARAM_SETUP_VALUE_MAX) {
		pr_err("cmdline: the value of '%s' is longer than %d characters; ignored\n", p->name,
		       PARAM_SETUP_VALUE_MAX);
		return -E2BIG;
	}
	memcpy(copy, val, len);
	copy[len] = 0;
	return p->setup(copy);
}

/* 0 if the value was applied, else a negative errno: -EINVAL for a value
 * the option does not take. */
static int apply(const struct kernel_param *p, const char *val, size_t len, bool has_value)
{
	switch (p->type) {
	case PARAM_FLAG:
		if (!has_value || word_is(val, len, "1") || word_is(val, len, "y") ||
		    word_is(val, len, "yes") || word_is(val, len, "on") || word_is(val, len, "true")) {
			*(bool *)p->var = true;
			return 0;
		}
		if (word_is(val, len, "0") || word_is(val, len, "n") || word_is(val, len, "no") ||
		    word_is(val, len, "off") || word_is(val, len, "false")) {
			*(bool *)p->var = false;
			return 0;
		}
		return -EINVAL;
	case PARAM_INT: {
		s64 v;
		if (!has_value || parse_s64(val, len, &v) || v < p->min || v > p->max)
			return -EINVAL;
		*(int *)p->var = (int)v;
		return 0;
	}
	case PARAM_STRING:
		if (!has_value || len >= p->size)
			return -EINVAL;
		memcpy(p->var, val, len);
		((char *)p->var)[len] = 0;
		return 0;
	case PARAM_SETUP:
		return call_setup(p, val, len, has_value);
	}
	return -EINVAL;
}

unsigned parse_params(const char *s, const struct kernel_param *params, size_t nr,
		      struct param_counts *counts)
{
	struct param_counts seen = { 0, 0, 0 };

	while (*s) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;
		const char *key = s;
		while (*s && !is_space(*s) && *s != '=')
			s++;
		size_t key_len = (size_t)(s - key);
		const char *val = NULL;
		size_t val_len = 0;
		bool has_value = *s == '=';
		if (has_value) {
			s++;
			if (*s == '"') {
				val = ++s;
				while (*s && *s != '"')
					s++;
				val_len = (size_t)(s - val);
				if (*s == '"') {
					s++;
				} else {
					/* Linux's next_arg() lets an open quote take the
					 * rest of the line, so 'a="x b=1' silently loses b.
					 * Refused here: the option keeps its value and
					 * parsing goes on after the quote's first word. */
					pr_err("cmdline: unterminated quote in the value of '%.*s' "
					       "(\"%.*s): option refused, the words after it are "
					       "read as options\n",
					       (int)key_len, key, (int)min(val_len, (size_t)60), val);
					seen.refused++;
					s = val;
					while (*s && !is_space(*s))
						s++;
					continue;
				}
			} else {
				val = s;
				while (*s && !is_space(*s))
					s++;
				val_len = (size_t)(s - val);
			}
		}

		const struct kernel_param *p = NULL;
		for (size_t i = 0; i < nr; i++)
			if (word_is(key, key_len, params[i].name))
				p = &params[i];
		if (!p) {
			pr_warn("cmdline: unknown option '%.*s' ignored\n", (int)key_len, key);
			seen.unknown++;
			continue;
		}
		int err = apply(p, val, val_len, has_value);
		if (!err) {
			seen.applied++;
			continue;
		}
		seen.refused++;
		/* A handler that ignored a good value has said why. */
		if (err != -EINVAL)
			continue;
		char expects[64], now[80];
		describe_value(p, now, sizeof(now));
		if (now[0])
			pr_err("cmdline: bad value '%.*s' for '%s' (expected %s); keeping %s\n",
			       (int)min(val_len, (size_t)80), has_value ? val : "", p->name,
			       param_expects(p, expects, sizeof(expects)), now);
		else
			pr_err("cmdline: bad value '%.*s' for '%s' (expected %s); ignored\n",
			       (int)min(val_len, (size_t)80), has_value ? val : "", p->name,
			       param_expects(p, expects, sizeof(expects)));
	}
	if (counts)
		*counts = seen;
	return seen.unknown + seen.refused;
}

size_t cmdline_check_nul(const char *buf, size_t len)
{
	size_t at = strnlen(buf, len), dropped = 0;
	for (size_t i = at; i < len; i++)
		dropped += buf[i] != 0;
	/* Trailing NULs (a file written with one) lose nothing: no warning. */
	if (dropped)
		pr_warn("cmdline: fw_cfg opt/mmlab/cmdline has a NUL byte at offset %zu of %zu: "
			"the %zu non-NUL bytes after it are ignored\n", at, len, dropped);
	return at;
}

/* Each option's value before parsing, as help shows it ("default"); the
 * variables themselves hold what the command line made of them. */
#define MAX_DESCRIBED_DEFAULTS 64
static char param_defaults[MAX_DESCRIBED_DEFAULTS][80];
static struct param_counts boot_counts;

const struct param_counts *cmdline_boot_counts(void)
{
	return &boot_counts;
}

void cmdline_init(const char *multiboot_cmdline)
{
	static char extra[COMMAND_LINE_SIZE];

	boot_command_line[0] = 0;
	if (multiboot_cmdline)
		strlcpy(boot_command_line, multiboot_cmdline, sizeof(boot_command_line));
	long n = fw_cfg_read_file("opt/mmlab/cmdline", extra, sizeof(extra));
	if (n > 0)
		cmdline_check_nul(extra, min((size_t)n, sizeof(extra) - 1));
	if (n > 0) {
		if (boot_command_line[0])
			strlcat(boot_command_line, " ", sizeof(boot_command_line));
		if (strlcat(boot_command_line, extra, sizeof(boot_command_line)) >=
			    sizeof(boot_command_line) ||
		    (size_t)n >= sizeof(extra))
			pr_warn("cmdline: longer than %d bytes, truncated\n", COMMAND_LINE_SIZE - 1);
	}
	size_t nr;
	const struct kernel_param *params = kernel_params(&nr);
	/* What each option is before the command line touches it, for help. */
	for (size_t i = 0; i < nr && i < MAX_DESCRIBED_DEFAULTS; i++)
		describe_value(&params[i], param_defaults[i], sizeof(param_defaults[i]));
	parse_params(boot_command_line, params, nr, &boot_counts);
}

void cmdline_print_help(void)
{
	size_t nr;
	const struct kernel_param *params = kernel_params(&nr);
	pr_info("Command-line options:\n");
	for (size_t i = 0; i < nr; i++) {
		char expects[64], now[80];
		describe_value(&params[i], now, sizeof(now));
		const char *def = i < MAX_DESCRIBED_DEFAULTS ? param_defaults[i] : "?";
		bool changed = strcmp(now, def) != 0;
		/* A handler's option without a description of its state has
		 * no default to show: its line says what it takes. */
		if (params[i].type == PARAM_SETUP && !params[i].show)
			pr_info("  %-20s %s; %s\n", params[i].name, params[i].help,
				param_expects(&params[i], expects, sizeof(expects)));
		else
			pr_info("  %-20s %s; %s (default %s%s%s)\n", params[i].name, params[i].help,
				param_expects(&params[i], expects, sizeof(expects)), def,
				changed ? ", now " : "", changed ? now : "");
	}
}
