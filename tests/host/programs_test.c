/* The registry of user programs (fs/programs.c) on the host, under
 * ASan+UBSan: the manifest's line format ("<kind> <name> [args...]
 * [:: lacks]"), each kind of bad line refused with its reason logged,
 * names already known kept, the registry's bound, a real manifest cut at
 * every length and random bytes (never a crash, never a name with '/'). */
#include "fs/programs.h"
#include "kernel/printk.h"
#include "tests/host/ktest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char log_buf[1 << 16];
static struct printk_capture cap;

static void setup(struct ktest *t)
{
	(void)t;
	user_programs_reset();
}

static void capture(void) { printk_capture_begin(&cap, log_buf, sizeof(log_buf)); }
static void end_capture(void) { printk_capture_end(&cap); }

static void good_lines(struct ktest *t)
{
	struct user_program p;
	const char *reason = "unset";
	KTEST_EXPECT_EQ(t, parse_program_line("test hello", &p, &reason), 0);
	KTEST_EXPECT_NULL(t, reason);
	KTEST_EXPECT_EQ(t, strcmp(p.kind, "test"), 0);
	KTEST_EXPECT_EQ(t, strcmp(p.name, "hello"), 0);
	KTEST_EXPECT_EQ(t, strcmp(p.args, ""), 0);
	/* Spaces and tabs around words, a CR at the end (a manifest edited
	 * elsewhere): the arguments keep their inner spaces, not the ends. */
	KTEST_EXPECT_EQ(t, parse_program_line("  selftest\tuffd-stress  anon 20 16 :: userfaultfd \r", &p, &reason), 0);
	KTEST_EXPECT_EQ(t, strcmp(p.kind, "selftest"), 0);
	KTEST_EXPECT_EQ(t, strcmp(p.name, "uffd-stress"), 0);
	KTEST_EXPECT_EQ(t, strcmp(p.args, "anon 20 16 :: userfaultfd"), 0);
	const char *kinds[] = { "test", "crash", "bench", "demo", "aux", "selftest" };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "%s x%zu", kinds[i], i);
		KTEST_EXPECT_EQ(t, parse_program_line(line, &p, &reason), 0);
	}
	KTEST_EXPECT_TRUE(t, program_line_is_blank(""));
	KTEST_EXPECT_TRUE(t, program_line_is_blank("  \t"));
	KTEST_EXPECT_TRUE(t, program_line_is_blank(" # test hello"));
	KTEST_EXPECT_FALSE(t, program_line_is_blank("test hello"));
}

/* Each bad line, and the words of the reason the log must give. */
static void bad_lines(struct ktest *t)
{
	static const struct {
		const char *line, *reason;
	} cases[] = {
		{ "", "no kind" },
		{ "game hello", "unknown kind" },
		{ "Test hello", "unknown kind" },
		{ "testx hello", "unknown kind" },
		{ "verylongkindname hello", "kind too long" },
		{ "test", "no name" },
		{ "test   ", "no name" },
		{ "test a/b", "one path component" },
		{ "test /bin/hello", "one path component" },
		{ "test .", "one path component" },
		{ "test ..", "one path component" },
		{ "test 0123456789012345678901234567890123456789", "name too long" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct user_program p;
		const char *reason = NULL;
		KTEST_EXPECT_EQ(t, parse_program_line(cases[i].line, &p, &reason), -EINVAL);
		KTEST_EXPECT_TRUE(t, reason && strstr(reason, cases[i].reason));
		capture();
		KTEST_EXPECT_EQ(t, register_user_program(cases[i].line, "host"), -EINVAL);
		end_capture();
		KTEST_EXPECT_TRUE(t, strstr(log_buf, "line refused") && strstr(log_buf, cases[i].reason));
	}
	char args[200];
	memset(args, 'a', sizeof(args) - 1);
	args[sizeof(args) - 1] = 0;
	char line[256];
	snprintf(line, sizeof(line), "test x %s", args);
	struct user_program p;
	const char *reason = NULL;
	KTEST_EXPECT_EQ(t, parse_program_line(line, &p, &reason), -EINVAL);
	KTEST_EXPECT_TRUE(t, reason && strstr(reason, "arguments too long"));
	KTEST_EXPECT_EQ(t, nr_user_programs(), 0);
}

static void first_entry_of_a_name_stays(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, register_user_program("test hello", "host"), 0);
	capture();
	KTEST_EXPECT_EQ(t, register_user_program("test hello", "host"), -EEXIST);
	end_capture();
	KTEST_EXPECT_EQ(t, log_buf[0], 0); /* the same line twice: nothing to say */
	capture();
	KTEST_EXPECT_EQ(t, register_user_program("crash hello", "host"), -EEXIST);
	end_capture();
	KTEST_EXPECT_NOT_NULL(t, strstr(log_buf, "already a test program"));
	KTEST_EXPECT_EQ(t, nr_user_programs(), 1);
	KTEST_EXPECT_EQ(t, strcmp(find_user_program("hello")->kind, "test"), 0);
	KTEST_EXPECT_NULL(t, find_user_program("hell"));
	KTEST_EXPECT_NULL(t, user_program(1));
}

static void registry_is_bounded(struct ktest *t)
{
	char line[64];
	for (int i = 0; i < MAX_USER_PROGRAMS; i++) {
		snprintf(line, sizeof(line), "aux p%d", i);
		KTEST_ASSERT_EQ(t, register_user_program(line, "host"), 0);
	}
	capture();
	KTEST_EXPECT_EQ(t, register_user_program("aux one_more", "host"), -ENOSPC);
	end_capture();
	KTEST_EXPECT_NOT_NULL(t, strstr(log_buf, "more than"));
	KTEST_EXPECT_EQ(t, nr_user_programs(), MAX_USER_PROGRAMS);
	KTEST_EXPECT_EQ(t, strcmp(user_program(MAX_USER_PROGRAMS - 1)->name, "p255"), 0);
}

static const char manifest[] = "# <kind> <name> [args...]\n"
			       "test hello\n"
			       "\n"
			       "crash null_write\n"
			       "bogus line\n"
			       "selftest gup_test -u :: /dev/zero, debugfs gup_test\n"
			       "bench fork_cost";

static void a_manifest(struct ktest *t)
{
	unsigned int refused = 99;
	capture();
	KTEST_EXPECT_EQ(t, register_program_manifest(manifest, sizeof(manifest) - 1, &refused), 4);
	end_capture();
	KTEST_EXPECT_EQ(t, refused, 1);
	KTEST_EXPECT_NOT_NULL(t, strstr(log_buf, PROGRAM_MANIFEST ":5: line refused (unknown kind"));
	KTEST_EXPECT_EQ(t, nr_user_programs(), 4);
	KTEST_EXPECT_EQ(t, strcmp(user_program(0)->name, "hello"), 0);
	KTEST_EXPECT_EQ(t, strcmp(user_program(3)->name, "fork_cost"), 0);
	KTEST_EXPECT_EQ(t, strcmp(find_user_program("gup_test")->args, "-u :: /dev/zero, debugfs gup_test"), 0);
	/* A NUL inside a line, and a line past 255 bytes: refused. */
	char odd[400];
	memset(odd, 'x', sizeof(odd));
	memcpy(odd, "test a\0b\ntest ", 14);
	capture();
	KTEST_EXPECT_EQ(t, register_program_manifest(odd, sizeof(odd), &refused), 0);
	end_capture();
	KTEST_EXPECT_EQ(t, refused, 2);
	KTEST_EXPECT_NOT_NULL(t, strstr(log_buf, "a NUL byte"));
	KTEST_EXPECT_NOT_NULL(t, strstr(log_buf, "longer than 255 bytes"));
	KTEST_EXPECT_EQ(t, register_program_manifest("", 0, NULL), 0);
}

/* Cut at every length (from a heap copy of just that length, so ASan sees
 * any read past it): never more than the whole's programs, every name
 * well formed. */
static void manifest_cut_everywhere(struct ktest *t)
{
	for (size_t len = 0; len < sizeof(manifest); len++) {
		user_programs_reset();
		char *copy = malloc(len ? len : 1);
		memcpy(copy, manifest, len);
		capture();
		unsigned int added = register_program_manifest(copy, len, NULL);
		end_capture();
		free(copy);
		KTEST_EXPECT_LE(t, added, 4);
		KTEST_EXPECT_EQ(t, nr_user_programs(), added);
		for (unsigned int i = 0; i < nr_user_programs(); i++)
			KTEST_EXPECT_TRUE(t, user_program(i)->name[0] && !strchr(user_program(i)->name, '/'));
	}
}

static void random_bytes(struct ktest *t)
{
	u64 seed = 0x9e3779b97f4a7c15ull;
	static const char alphabet[] = "test crash aux/ .\n\t#:\0xyz";
	for (int round = 0; round < 2000; round++) {
		user_programs_reset();
		size_t len = ktest_xorshift64(&seed) % 300;
		char *buf = malloc(len ? len : 1);
		for (size_t i = 0; i < len; i++) {
			u64 r = ktest_xorshift64(&seed);
			buf[i] = r & 1 ? alphabet[(r >> 1) % (sizeof(alphabet) - 1)] : (char)(r >> 8);
		}
		capture();
		register_program_manifest(buf, len, NULL);
		end_capture();
		free(buf);
		for (unsigned int i = 0; i < nr_user_programs(); i++) {
			const struct user_program *p = user_program(i);
			KTEST_EXPECT_TRUE(t, p->name[0] && !strchr(p->name, '/') && strcmp(p->name, "..") &&
						     strlen(p->name) < sizeof(p->name));
		}
	}
}

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(good_lines),
		KTEST_CASE(bad_lines),
		KTEST_CASE(first_entry_of_a_name_stays),
		KTEST_CASE(registry_is_bounded),
		KTEST_CASE(a_manifest),
		KTEST_CASE(manifest_cut_everywhere),
		KTEST_CASE(random_bytes),
	};
	return ktest_run_suite("host_programs", cases, sizeof(cases) / sizeof(cases[0]), setup);
}
