/* The command-line parser against a parameter table of the test's own. */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "tests/kunit.h"

static bool flag_a, flag_b;
static int number;
static char text[8];

/* A handler's option: each call is recorded with the value of number at
 * that moment, so the order against the other options shows. "bad" is
 * refused as a bad value, "twice" as a good value the handler will not
 * take (it says why itself). */
#define MAX_CALLS 8
static struct { char val[16]; bool bare; int number; } calls[MAX_CALLS];
static unsigned nr_calls;
static char last_taken[16];

static int record_setup(const char *val)
{
	if (nr_calls < MAX_CALLS) {
		calls[nr_calls].bare = !val;
		strlcpy(calls[nr_calls].val, val ? val : "", sizeof(calls[nr_calls].val));
		calls[nr_calls].number = number;
	}
	nr_calls++;
	if (val && !strcmp(val, "bad"))
		return -EINVAL;
	if (val && !strcmp(val, "twice")) {
		pr_warn("record: twice, ignoring\n");
		return -EEXIST;
	}
	strlcpy(last_taken, val ? val : "(bare)", sizeof(last_taken));
	return 0;
}

static void record_show(char *buf, size_t size) { snprintf(buf, size, "%s", last_taken); }

static const struct kernel_param test_params[] = {
	{ .name = "flag_a", .type = PARAM_FLAG, .var = &flag_a },
	{ .name = "flag.b", .type = PARAM_FLAG, .var = &flag_b },
	{ .name = "number", .type = PARAM_INT, .var = &number, .min = -5, .max = 100 },
	{ .name = "text", .type = PARAM_STRING, .var = text, .size = sizeof(text) },
	{ .name = "record", .type = PARAM_SETUP, .setup = record_setup, .show = record_show,
	  .expects = "any word but bad" },
	{ .name = "record_quiet", .type = PARAM_SETUP, .setup = record_setup, .expects = "any word but bad" },
};

static char log[1024];
static struct param_counts counts;

static unsigned parse(const char *line)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	unsigned problems = parse_params(line, test_params, ARRAY_SIZE(test_params), &counts);
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
	memset(calls, 0, sizeof(calls));
	nr_calls = 0;
	strlcpy(last_taken, "none", sizeof(last_taken));
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

/* An open quote must not take the rest of the line silently (as Linux's
 * next_arg lets it). */
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

/* A handler is called once per occurrence, in command-line order among
 * the other options, with the value as a C string (NULL for a bare word,
 * a quoted value whole). */
static void setup_handlers_run_in_order(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("number=1 record=a number=2 record=\"b c\" record flag_a record=a"), 0);
	KUNIT_EXPECT_EQ(test, counts.applied, 7u);
	KUNIT_ASSERT_EQ(test, nr_calls, 4u);
	KUNIT_EXPECT_STREQ(test, calls[0].val, "a");
	KUNIT_EXPECT_EQ(test, calls[0].number, 1);
	KUNIT_EXPECT_STREQ(test, calls[1].val, "b c");
	KUNIT_EXPECT_EQ(test, calls[1].number, 2);
	KUNIT_EXPECT_TRUE(test, calls[2].bare);
	KUNIT_EXPECT_FALSE(test, calls[1].bare);
	KUNIT_EXPECT_STREQ(test, calls[3].val, "a"); /* a repeat is a call of its own */
	KUNIT_EXPECT_STREQ(test, last_taken, "a");
	KUNIT_EXPECT_EQ(test, number, 2);
}

/* A value the handler refuses is counted and reported by the parser with
 * what the option expects; one it ignores for a reason of its own is
 * counted, and only the handler's message says why. */
static void setup_refusals_are_problems(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("record=x record=bad"), 1);
	KUNIT_EXPECT_EQ(test, counts.refused, 1u);
	KUNIT_EXPECT_EQ(test, counts.applied, 1u);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "bad value 'bad' for 'record' (expected any word but bad); keeping x"));
	KUNIT_EXPECT_STREQ(test, last_taken, "x");

	KUNIT_EXPECT_EQ(test, parse("record_quiet=bad"), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "bad value 'bad' for 'record_quiet' (expected any word but bad); ignored"));

	KUNIT_EXPECT_EQ(test, parse("record=twice number=3"), 1);
	KUNIT_EXPECT_EQ(test, counts.refused, 1u);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "record: twice, ignoring"));
	KUNIT_EXPECT_NULL(test, strstr(log, "bad value"));
	KUNIT_EXPECT_EQ(test, number, 3);

	/* A value longer than a handler is given: refused unseen. */
	static char line[PARAM_SETUP_VALUE_MAX + 32];
	strlcpy(line, "record=", sizeof(line));
	size_t at = strlen(line);
	memset(line + at, 'v', PARAM_SETUP_VALUE_MAX + 1);
	line[at + PARAM_SETUP_VALUE_MAX + 1] = 0;
	unsigned before = nr_calls;
	KUNIT_EXPECT_EQ(test, parse(line), 1);
	KUNIT_EXPECT_EQ(test, nr_calls, before);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "the value of 'record' is longer than 255 characters; ignored"));
	line[at + PARAM_SETUP_VALUE_MAX] = 0;
	KUNIT_EXPECT_EQ(test, parse(line), 0);
	KUNIT_EXPECT_EQ(test, nr_calls, before + 1);
}

/* Unknown words are counted apart from refused ones. */
static void unknown_and_refused_are_counted_apart(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("zz record=a yy=1 number=1000 record=bad flag_a"), 4);
	KUNIT_EXPECT_EQ(test, counts.unknown, 2u);
	KUNIT_EXPECT_EQ(test, counts.refused, 2u);
	KUNIT_EXPECT_EQ(test, counts.applied, 2u);
}

/* Every word of this boot's command line is an option the kernel knows:
 * hugetlb's and THP's included, which are read by their handlers. */
static void boot_line_has_no_unknown_option(struct kunit *test)
{
	const struct param_counts *boot = cmdline_boot_counts();
	kunit_info(test, "boot line: %u applied, %u unknown, %u refused", boot->applied, boot->unknown,
		   boot->refused);
	KUNIT_EXPECT_EQ(test, boot->unknown, 0u);
	KUNIT_EXPECT_GT(test, boot->applied, 0u); /* ktest at least */
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
	static char help[16384];
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
	/* Options read by handlers are listed too, with what they take,
	 * and the state where the option describes one. */
	line = strstr(help, "  hugepagesz ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	eol = strchr(line, '\n');
	found = strstr(line, "2M, or 1G");
	KUNIT_EXPECT_TRUE(test, found && (!eol || found < eol));
	KUNIT_EXPECT_NOT_NULL(test, strstr(help, "  hugepages "));
	line = strstr(help, "  transparent_hugepage ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	eol = strchr(line, '\n');
	found = strstr(line, "(default ");
	KUNIT_EXPECT_TRUE(test, found && (!eol || found < eol));
}

static struct kunit_case cmdline_cases[] = {
	KUNIT_CASE(good_values),
	KUNIT_CASE(unknown_keys_warn),
	KUNIT_CASE(malformed_values_keep_the_default),
	KUNIT_CASE(unterminated_quote_refused),
	KUNIT_CASE(setup_handlers_run_in_order),
	KUNIT_CASE(setup_refusals_are_problems),
	KUNIT_CASE(unknown_and_refused_are_counted_apart),
	KUNIT_CASE(boot_line_has_no_unknown_option),
	KUNIT_CASE(fw_cfg_nul_warned),
	KUNIT_CASE(registered_params_are_found),
	KUNIT_CASE(help_tells_default_from_value),
	{}
};
static struct kunit_suite cmdline_suite = {
	.name = "cmdline", .init = reset, .test_cases = cmdline_cases };
kunit_test_suite(cmdline_suite);
