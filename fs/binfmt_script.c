/* Scripts: a file whose first line is "#!interpreter [argument]" runs the
 * interpreter with the script's path as an argument (Linux's
 * fs/binfmt_script.c, load_script, with its rules for the line: spaces and
 * tabs around the name are skipped, everything after the name up to the
 * line's end, trimmed, is one argument, and a line longer than the 256
 * bytes read is accepted only if the name itself ends inside them). */
#include "fs/binprm.h"
#include "fs/file.h"
#include "lib/string.h"

static bool spacetab(char c) { return c == ' ' || c == '\t'; }

/* The first byte in [s, end) that is not a space or tab, or NULL. */
static char *next_non_spacetab(char *s, const char *end)
{
	for (; s < end; s++)
		if (!spacetab(*s))
			return s;
	return NULL;
}

/* The first space, tab or NUL in [s, end), or NULL. */
static char *next_terminator(char *s, const char *end)
{
	for (; s < end; s++)
		if (spacetab(*s) || !*s)
			return s;
	return NULL;
}

int load_script(struct linux_binprm *bprm, const char *file, size_t len)
{
	/* Linux's bprm->buf: the first BINPRM_BUF_SIZE bytes, zero-filled
	 * past a shorter file; its last byte is never part of the line. */
	char buf[BINPRM_BUF_SIZE];
	memset(buf, 0, sizeof(buf));
	memcpy(buf, file, len < sizeof(buf) ? len : sizeof(buf));
	if (buf[0] != '#' || buf[1] != '!')
		return -ENOEXEC;
	char *buf_end = buf + sizeof(buf) - 1;
	char *i_end = NULL;
	for (char *c = buf; c < buf + sizeof(buf) && !i_end; c++)
		if (*c == '\n')
			i_end = c;
	if (!i_end) {
		i_end = next_non_spacetab(buf + 2, buf_end);
		if (!i_end)
			return -ENOEXEC; /* nothing but spaces and tabs */
		/* No space, tab or NUL after the name: it may go on past
		 * what was read, so it cannot be trusted. */
		if (!next_terminator(i_end, buf_end))
			return -ENOEXEC;
		i_end = buf_end;
	}
	while (i_end > buf + 2 && spacetab(i_end[-1]))
		i_end--;
	*i_end = '\0';
	char *i_name = next_non_spacetab(buf + 2, i_end);
	if (!i_name || i_name == i_end)
		return -ENOEXEC; /* no interpreter named */
	char *i_arg = NULL;
	char *i_sep = next_terminator(i_name, i_end);
	if (i_sep && *i_sep) {
		i_arg = next_non_spacetab(i_sep, i_end);
		*i_sep = '\0';
	}
	if (strlen(i_name) >= PATH_MAX)
		return -ENAMETOOLONG;

	/* argv[0] gives way to: the interpreter, its argument, the script. */
	bprm_remove_arg_zero(bprm);
	int err = bprm_prepend_arg(bprm, bprm->interp);
	if (!err && i_arg)
		err = bprm_prepend_arg(bprm, i_arg);
	if (!err)
		err = bprm_prepend_arg(bprm, i_name);
	if (err)
		return err;
	strlcpy(bprm->interp, i_name, PATH_MAX);
	return 0;
}
