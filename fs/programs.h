/* The user programs the kernel knows by name, with their kind and
 * arguments (fs/programs.c): one registry, fed by the initramfs's manifest
 * /etc/mmlab/programs and by the boot loader's program modules (fs/bin.c),
 * asked by run=, the user and mm_selftests suites and the benchmarks.
 * mmlab's own: Linux has no such list (its init finds programs by path). */
#ifndef FS_PROGRAMS_H
#define FS_PROGRAMS_H

#include "kernel/types.h"

#define PROGRAM_MANIFEST "/etc/mmlab/programs"
#define MAX_USER_PROGRAMS 256

/* One line of the manifest, or a module's command line:
 *     <kind> <name> [<argument>...] [:: <what mmlab lacks>]
 * kind is one of test, crash, bench, demo, aux, selftest; name one path
 * component (the program is /bin/<name>); args the rest of the line as
 * written (the mm selftests split off " :: " themselves). */
struct user_program {
	char kind[12];
	char name[40];
	char args[160];
};

/* Parses one line into *p: 0, or -EINVAL with *reason saying what is wrong
 * (an unknown kind, no name, a name with '/' or that is "." or "..", a
 * word too long). Blank lines and '#' comments are not lines to parse
 * (program_line_is_blank). */
int parse_program_line(const char *line, struct user_program *p, const char **reason);
bool program_line_is_blank(const char *line);

/* Adds a parsed line to the registry; source names where it came from in
 * the log. A line refused is logged with its reason; a name already known
 * keeps its first entry (-EEXIST, logged when the kinds differ). 0, -EINVAL,
 * -EEXIST or -ENOSPC (past MAX_USER_PROGRAMS). */
int register_user_program(const char *line, const char *source);
/* Every line of a manifest's text (len bytes, lines ended by '\n'):
 * returns the number registered; *refused counts those refused. */
unsigned int register_program_manifest(const char *text, size_t len, unsigned int *refused);

/* The program of that name, or NULL. */
const struct user_program *find_user_program(const char *name);
/* The registry in the order its entries came (the manifest's order, then
 * the modules'): entry i < nr_user_programs(). */
unsigned int nr_user_programs(void);
const struct user_program *user_program(unsigned int i);
/* Empties the registry (the host test's cases). */
void user_programs_reset(void);

#endif
