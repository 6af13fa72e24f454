/* The command-line parser against a parameter table of the test's own. */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "tests/kunit.h"

static bool flag_a, flag_b;
static int number;
static char text[8];

static const struct kernel_param test_params[] = {
	{ .name = "flag_a", .type = PARAM_FLAG, .var = &flag_a },
	{ .name = "flag.b", .type = PARAM_FLAG, .var = &flag_b },
	{ .name = "number", .type = PARAM_INT, .var = &number, .min = -5, .max = 100 },
	{ .name = "text", .type = PARAM_STRING, .var = text, .size = sizeof(text) },
};

static char log[1024];

static unsigned parse(const char *line)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	unsigned problems = parse_params(line, test_params, ARRAY_SIZE(test_params));
	printk_capture_end(&cap);
	return problems;
}

static int reset(struct kunit *test)
{
	(void)test;
	flag_a = false;
	flag_b = true;
	number = 7;
	strlcpy(text, "def", sizeof(text));
	return 0;
}

static void good_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("  flag_a flag.b=off number=-5\ttext=\"a b\" "), 0);
	KUNIT_EXPECT_TRUE(test, flag_a);
	KUNIT_EXPECT_FALSE(test, flag_b);
	KUNIT_EXPECT_EQ(test, number, -5);
	KUNIT_EXPECT_STREQ(test, text, "a b");
	KUNIT_EXPECT_EQ(test, parse("number=0x64 flag.b=yes number=99"), 0);
	KUNIT_EXPECT_EQ(test, number, 99); /* the last one wins, as in Linux */
	KUNIT_EXPECT_TRUE(test, flag_b);
	KUNIT_EXPECT_EQ(test, parse(""), 0);
}

static void unknown_keys_warn(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("bogus=1 flag_a nothing"), 2);
	KUNIT_EXPECT_TRUE(test, flag_a);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "unknown option 'bogus' ignored"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "unknown option 'nothing' ignored"));
}

static void malformed_values_keep_the_default(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("number=101"), 1);
	KUNIT_EXPECT_EQ(test, number, 7);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "bad value '101' for 'number' (expected an integer in -5..100); keeping 7"));
	KUNIT_EXPECT_EQ(test, parse("number=12abc number= number"), 3);
	KUNIT_EXPECT_EQ(test, number, 7);
	KUNIT_EXPECT_EQ(test, parse("number=99999999999999999999999"), 1);
	KUNIT_EXPECT_EQ(test, parse("flag_a=maybe"), 1);
	KUNIT_EXPECT_FALSE(test, flag_a);
	KUNIT_EXPECT_EQ(test, parse("text=toolongvalue"), 1);
	KUNIT_EXPECT_STREQ(test, text, "def");
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "text of at most 7 characters"));
}

/* Issue 15: 'text="ab flag_a' took the rest of the line silently. */
static void unterminated_quote_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("text=\"ab flag_a number=3"), 1);
	KUNIT_EXPECT_STREQ(test, text, "def");
	KUNIT_EXPECT_TRUE(test, flag_a);
	KUNIT_EXPECT_EQ(test, number, 3);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "unterminated quote in the value of 'text'"));
	/* At the very end of the line too. */
	KUNIT_EXPECT_EQ(test, parse("number=4 text=\""), 1);
	KUNIT_EXPECT_EQ(test, number, 4);
	KUNIT_EXPECT_STREQ(test, text, "def");
	/* A closed quote is still fine. */
	KUNIT_EXPECT_EQ(test, parse("text=\"x y\" number=5"), 0);
	KUNIT_EXPECT_STREQ(test, text, "x y");
}

static void fw_cfg_nul_warned(struct kunit *test)
{
	static const char with_nul[] = "ktest\0page_poison=on";
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	size_t at = cmdline_check_nul(with_nul, sizeof(with_nul) - 1);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, at, 5);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "NUL byte at offset 5 of 20"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "the 14 non-NUL bytes after it are ignored"));

	static const char trailing[] = "ktest\0\0";
	printk_capture_begin(&cap, log, sizeof(log));
	at = cmdline_check_nul(trailing, sizeof(trailing) - 1);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, at, 5);
	KUNIT_EXPECT_NULL(test, strstr(log, "NUL byte"));
}

static void registered_params_are_found(struct kunit *test)
{
	size_t nr;
	const struct kernel_param *p = kernel_params(&nr);
	bool have_ktest = false, have_loglevel = false;
	for (size_t i = 0; i < nr; i++) {
		have_ktest |= !strcmp(p[i].name, "ktest");
		have_loglevel |= !strcmp(p[i].name, "loglevel");
	}
	KUNIT_EXPECT_TRUE(test, have_ktest);
	KUNIT_EXPECT_TRUE(test, have_loglevel);
	/* We are running, so 'ktest' was on the live command line. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(boot_command_line, "ktest"));
}

/* help shows each option's default as it was before the command line, and
 * what the command line made of it where that differs: this run was booted
 * with 'ktest' (default off). */
static void help_tells_default_from_value(struct kunit *test)
{
	static char help[8192];
	struct printk_capture cap;
	printk_capture_begin(&cap, help, sizeof(help));
	cmdline_print_help();
	printk_capture_end(&cap);
	const char *line = strstr(help, "  ktest ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	const char *eol = strchr(line, '\n');
	const char *found = strstr(line, "(default off, now on)");
	KUNIT_EXPECT_TRUE(test, found && (!eol || found < eol));
	/* An option the run does not set shows its default alone. */
	line = strstr(help, "  crash ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	eol = strchr(line, '\n');
	found = strstr(line, ", now ");
	KUNIT_EXPECT_TRUE(test, !found || (eol && found > eol));
}

static struct kunit_case cmdline_cases[] = {
	KUNIT_CASE(good_values),
	KUNIT_CASE(unknown_keys_warn),
	KUNIT_CASE(malformed_values_keep_the_default),
	KUNIT_CASE(unterminated_quote_refused),
	KUNIT_CASE(fw_cfg_nul_warned),
	KUNIT_CASE(registered_params_are_found),
	KUNIT_CASE(help_tells_default_from_value),
	{}
};
static struct kunit_suite cmdline_suite = {
	.name = "cmdline", .init = reset, .test_cases = cmdline_cases };
kunit_test_suite(cmdline_suite);
