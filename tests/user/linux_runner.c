/* user-linux-runner: runs the user test and crash programs (tests/user/,
 * built once with musl-gcc -static, plus their glibc builds, into
 * build/user/<name>.elf: the very files the ISO carries) on the host Linux
 * and reports them as one KTAP version 1 suite, "user_linux", one case per
 * program, so that `mmlab-runner test --host` counts them beside the
 * kernel's "user" suite, where the same files run as mmlab processes.
 *
 * Verdicts (program_run.c, shared with the Linux guest's init, tools/linux/init.c),
 * the same protocol the kernel applies:
 *   test program:  exit 0 = ok, exit 77 = ok # SKIP <its last output line>,
 *                  anything else (other status, a signal, a timeout) = not ok;
 *   crash program: killed by SIGSEGV = ok, anything else = not ok.
 * A program's output (stdout and stderr, one pipe) becomes the case's "# "
 * diagnostics, then a line saying how it ended. Each program runs in its
 * own process group with stdin from /dev/null and no core dumps, and is
 * killed after --timeout seconds (default 60); what it wrote until then is
 * kept. A program that cannot be started (execv fails) is told apart from
 * one that exits with 127.
 *
 * Usage: user-linux-runner [--dir DIR] [--suffix S] [--suite NAME]
 *                          [--timeout S] [NAME...]
 * DIR defaults to ../user beside this executable and S to ".elf"; programs
 * are DIR/<name><suffix>. The program lists come from USER_TEST_NAMES /
 * USER_CRASH_NAMES (space-separated, given by tests/user/user.mk with -D);
 * NAMEs select some of them. Exit status 0 if every case passed or was
 * skipped, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "program_run.h"

#ifndef USER_TEST_NAMES
#error "build with -DUSER_TEST_NAMES='\"name ...\"' (tests/user/user.mk does)"
#endif
#ifndef USER_CRASH_NAMES
#error "build with -DUSER_CRASH_NAMES='\"name ...\"' (tests/user/user.mk does)"
#endif

#define MAX_PROGRAMS 256 /* the kernel's MAX_USER_PROGRAMS */

static struct program programs[MAX_PROGRAMS];
static size_t nprograms;

static void add_programs(const char *list, bool crash)
{
	const char *p = list;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (nprograms == MAX_PROGRAMS || n >= sizeof(programs[0].name)) {
			fprintf(stderr, "user-linux-runner: too many or too long program names\n");
			exit(2);
		}
		memcpy(programs[nprograms].name, p, n);
		programs[nprograms].name[n] = 0;
		programs[nprograms].crash = crash;
		nprograms++;
		p += n;
	}
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX + 16] = "";
	const char *suffix = ".elf", *suite = "user_linux";
	int timeout_s = 60;
	bool selected[MAX_PROGRAMS] = { false };
	bool any_selected = false;

	add_programs(USER_TEST_NAMES, false);
	add_programs(USER_CRASH_NAMES, true);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			snprintf(dir, sizeof(dir), "%s", argv[++i]);
		} else if (!strcmp(argv[i], "--suffix") && i + 1 < argc) {
			suffix = argv[++i];
		} else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
			suite = argv[++i];
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout_s = atoi(argv[++i]);
			if (timeout_s <= 0) {
				fprintf(stderr, "user-linux-runner: bad --timeout\n");
				return 2;
			}
		} else {
			size_t k = 0;
			while (k < nprograms && strcmp(programs[k].name, argv[i]))
				k++;
			if (k == nprograms) {
				fprintf(stderr, "usage: %s [--dir DIR] [--suffix S] [--suite NAME] [--timeout S] [NAME...]\n"
						"unknown program '%s'; known: %s %s\n",
					argv[0], argv[i], USER_TEST_NAMES, USER_CRASH_NAMES);
				return 2;
			}
			selected[k] = any_selected = true;
		}
	}
	if (!dir[0]) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			perror("user-linux-runner: /proc/self/exe");
			return 2;
		}
		self[n] = 0;
		char *slash = strrchr(self, '/');
		*slash = 0;
		snprintf(dir, sizeof(dir), "%s/../user", self);
	}

	size_t ncases = 0;
	for (size_t k = 0; k < nprograms; k++)
		ncases += !any_selected || selected[k];
	printf("KTAP version 1\n1..1\n");
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", suite, ncases);
	unsigned pass = 0, fail = 0, skip = 0, number = 0;
	for (size_t k = 0; k < nprograms; k++) {
		if (any_selected && !selected[k])
			continue;
		const struct program *p = &programs[k];
		char path[PATH_MAX + 160];
		snprintf(path, sizeof(path), "%.*s/%.63s%.60s", PATH_MAX - 1, dir, p->name, suffix);
		struct outcome o = program_run(path, p->name, timeout_s);
		number++;
		switch (program_report(p, path, &o, number, timeout_s)) {
		case PROGRAM_PASS:
			pass++;
			break;
		case PROGRAM_SKIP:
			skip++;
			break;
		case PROGRAM_FAIL:
			fail++;
			break;
		}
		free(o.output);
	}
	printf("# %s: pass:%u fail:%u skip:%u total:%u\n", suite, pass, fail, skip, number);
	printf("%s 1 %s\n", fail ? "not ok" : "ok", suite);
	return fail ? 1 : 0;
}
