/* The registry of user programs (fs/programs.h): kind and arguments by
 * name, from the initramfs's manifest and the boot loader's modules. No
 * VFS here (fs/bin.c reads the manifest file), so the host test
 * (tests/host/program_list_test.c) runs the same parser. Lines come from a
 * build's manifest or a user's GRUB line: a bad one is refused with its
 * reason logged, never trusted. */
#include "fs/programs.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "lib/vsprintf.h"

static const char *const program_kinds[] = { "test", "crash", "bench", "demo", "aux", "selftest" };

static struct user_program programs[MAX_USER_PROGRAMS];
static unsigned int nr_programs;

static bool is_space(char c) { return c == ' ' || c == '\t'; }

bool program_line_is_blank(const char *line)
{
	while (is_space(*line))
		line++;
	return !*line || *line == '#' || *line == '\n';
}

/* The word at *s (up to a space or the end), copied into buf of size
 * bytes; *s moves past it and the spaces after it. -1 when it does not fit,
 * else its length. */
static int take_word(const char **s, char *buf, size_t size)
{
	const char *w = *s;
	size_t n = 0;
	while (w[n] && !is_space(w[n]))
		n++;
	if (n >= size)
		return -1;
	memcpy(buf, w, n);
	buf[n] = 0;
	w += n;
	while (is_space(*w))
		w++;
	*s = w;
	return (int)n;
}

int parse_program_line(const char *line, struct user_program *p, const char **reason)
{
	const char *s = line;
	memset(p, 0, sizeof(*p));
	while (is_space(*s))
		s++;
	*reason = "no kind";
	int n = take_word(&s, p->kind, sizeof(p->kind));
	if (n <= 0) {
		if (n < 0)
			*reason = "kind too long";
		return -EINVAL;
	}
	bool known = false;
	for (size_t i = 0; i < sizeof(program_kinds) / sizeof(program_kinds[0]); i++)
		known |= !strcmp(p->kind, program_kinds[i]);
	if (!known) {
		*reason = "unknown kind (test, crash, bench, demo, aux or selftest)";
		return -EINVAL;
	}
	n = take_word(&s, p->name, sizeof(p->name));
	if (n <= 0) {
		*reason = n < 0 ? "name too long" : "no name";
		return -EINVAL;
	}
	if (strchr(p->name, '/') || !strcmp(p->name, ".") || !strcmp(p->name, "..")) {
		*reason = "a name is one path component, not . or ..";
		return -EINVAL;
	}
	size_t len = strlen(s);
	while (len && (is_space(s[len - 1]) || s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	if (len >= sizeof(p->args)) {
		*reason = "arguments too long";
		return -EINVAL;
	}
	memcpy(p->args, s, len);
	p->args[len] = 0;
	*reason = NULL;
	return 0;
}

int register_user_program(const char *line, const char *source)
{
	struct user_program p;
	const char *reason;
	if (parse_program_line(line, &p, &reason)) {
		pr_warn("programs: %s: line refused (%s): %s\n", source, reason, line);
		return -EINVAL;
	}
	const struct user_program *old = find_user_program(p.name);
	if (old) {
		if (strcmp(old->kind, p.kind) || strcmp(old->args, p.args))
			pr_warn("programs: %s: %s is already a %s program, line ignored: %s\n", source,
				p.name, old->kind, line);
		return -EEXIST;
	}
	if (nr_programs == MAX_USER_PROGRAMS) {
		pr_warn("programs: %s: more than %d programs, line ignored: %s\n", source,
			MAX_USER_PROGRAMS, line);
		return -ENOSPC;
	}
	programs[nr_programs++] = p;
	return 0;
}

unsigned int register_program_manifest(const char *text, size_t len, unsigned int *refused)
{
	unsigned int added = 0, bad = 0;
	char line[256];
	for (size_t at = 0, lineno = 1; at < len; lineno++) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		size_t n = end - at;
		char source[48];
		snprintf(source, sizeof(source), PROGRAM_MANIFEST ":%lu", (unsigned long)lineno);
		if (n >= sizeof(line) || strnlen(text + at, n) != n) {
			pr_warn("programs: %s: line refused (%s)\n", source,
				n >= sizeof(line) ? "longer than 255 bytes" : "a NUL byte");
			bad++;
		} else {
			memcpy(line, text + at, n);
			line[n] = 0;
			if (!program_line_is_blank(line)) {
				int err = register_user_program(line, source);
				if (!err)
					added++;
				else if (err != -EEXIST)
					bad++;
			}
		}
		at = end + 1;
	}
	if (refused)
		*refused = bad;
	return added;
}

const struct user_program *find_user_program(const char *name)
{
	for (unsigned int i = 0; i < nr_programs; i++)
		if (!strcmp(programs[i].name, name))
			return &programs[i];
	return NULL;
}

unsigned int nr_user_programs(void) { return nr_programs; }

const struct user_program *user_program(unsigned int i) { return i < nr_programs ? &programs[i] : NULL; }

void user_programs_reset(void) { nr_programs = 0; }
