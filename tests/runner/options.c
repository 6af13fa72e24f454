/*
 * options.c - mmlab-runner's command line (options.h): the usage text and
 * the parsing of "test", "run" and "print-cmd" with their options.
 * Runs once, before anything else: no state beyond struct opts.
 */
#define _GNU_SOURCE
#include "options.h"
#include "xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char progname[] = "mmlab-runner";

static void usage(FILE *f)
{
	fprintf(f,
		"usage:\n"
		"  %1$s test --iso ISO --topologies DIR[:DIR...] --results DIR [--topology NAME]...\n"
		"            [--filter GLOB] [--accel tcg|kvm] [--jobs N] [--host PROGRAM]...\n"
		"            [--kunit-tool DIR]   (DIR contains tools/testing/kunit/kunit.py)\n"
		"            [--linux-kernel BZIMAGE --linux-initrd CPIO]   (what the\n"
		"            'kernel = linux' topologies boot; also valid with run, print-cmd)\n"
		"  %1$s run --iso ISO --topologies DIR [--results DIR] [--accel tcg|kvm] [--gdb]\n"
		"            [--cmdline WORDS] [--icount] NAME   (WORDS: extra kernel options,\n"
		"            e.g. \"bench\"; --icount: TCG on one thread with -icount shift=0,\n"
		"            so a guest nanosecond is one instruction: deterministic costs)\n"
		"            [--shell-log FILE]   (the terminal is the guest's serial port:\n"
		"            ^C and ^Z go to the guest, ^A x quits; the second serial\n"
		"            port, ttyS1, writes to FILE: make shell)\n"
		"  %1$s print-cmd --iso ISO --topologies DIR [--results DIR] [--accel tcg|kvm]\n"
		"            [--filter GLOB] [--gdb] [--test] NAME\n"
		"  every command: [--tcg-threads auto|single|multi]   (TCG: one host thread\n"
		"            for all vCPUs, or one per vCPU; auto: one per vCPU only when the\n"
		"            machine's vCPUs fit in its share of the host's CPUs, host CPUs / jobs,\n"
		"            unless the topology says 'tcg_threads = ...')\n"
		"environment: ACCEL (default for --accel), TCG_THREADS (default for\n"
		"             --tcg-threads), QEMU (emulator binary),\n"
		"             OVMF_CODE, OVMF_VARS (UEFI firmware images),\n"
		"             KUNIT_PYTHON (the Python for kunit.py)\n",
		progname);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	exit(EXIT_USAGE);
}

void parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	if (argc < 2)
		usage_error("missing command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		exit(0);
	}
	if (!strcmp(argv[1], "test"))
		o->mode = MODE_TEST;
	else if (!strcmp(argv[1], "run"))
		o->mode = MODE_RUN;
	else if (!strcmp(argv[1], "print-cmd"))
		o->mode = MODE_PRINT;
	else
		usage_error("unknown command '%s'", argv[1]);
	o->accel = getenv("ACCEL") && *getenv("ACCEL") ? getenv("ACCEL") : "tcg";
	const char *tcg_threads = getenv("TCG_THREADS") && *getenv("TCG_THREADS") ? getenv("TCG_THREADS")
										  : "auto";
	o->names = xrealloc(NULL, (size_t)argc * sizeof(*o->names));
	o->hosts = xrealloc(NULL, (size_t)argc * sizeof(*o->hosts));
	for (int i = 2; i < argc; i++) {
		char *a = argv[i];
		const char *val = NULL;
		char *eq = NULL;
		static const char *const with_value[] = {"--iso", "--topologies", "--results",
			"--topology", "--filter", "--accel", "--jobs", "--host", "--kunit-tool", "--cmdline",
			"--linux-kernel", "--linux-initrd", "--tcg-threads", "--shell-log", NULL};
		bool takes = false;
		if (a[0] == '-' && a[1] == '-' && (eq = strchr(a, '=')))
			*eq = '\0';
		for (int k = 0; with_value[k]; k++)
			takes |= !strcmp(a, with_value[k]);
		if (takes) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				usage_error("option %s needs a value", a);
		} else if (eq) {
			usage_error("option %s takes no value", a);
		}
		if (!strcmp(a, "--iso"))
			o->iso = val;
		else if (!strcmp(a, "--topologies"))
			o->topo_dir = val;
		else if (!strcmp(a, "--results"))
			o->results = val;
		else if (!strcmp(a, "--filter"))
			o->filter = val;
		else if (!strcmp(a, "--accel"))
			o->accel = val;
		else if (!strcmp(a, "--cmdline"))
			o->extra_cmdline = val;
		else if (!strcmp(a, "--tcg-threads"))
			tcg_threads = val;
		else if (!strcmp(a, "--linux-kernel"))
			o->linux_kernel = val;
		else if (!strcmp(a, "--linux-initrd"))
			o->linux_initrd = val;
		else if (!strcmp(a, "--shell-log")) {
			if (o->mode == MODE_TEST)
				usage_error("--shell-log is only valid with 'run' and 'print-cmd'");
			o->shell_log = val;
		}
		else if (!strcmp(a, "--kunit-tool")) {
			if (o->mode != MODE_TEST)
				usage_error("--kunit-tool is only valid with 'test'");
			o->kunit_tool = val;
		}
		else if (!strcmp(a, "--host")) {
			if (o->mode != MODE_TEST)
				usage_error("--host is only valid with 'test'");
			o->hosts[o->nhosts++] = val;
		} else if (!strcmp(a, "--topology")) {
			if (o->mode != MODE_TEST)
				usage_error("--topology is only valid with 'test' (give NAME instead)");
			o->names[o->nnames++] = val;
		} else if (!strcmp(a, "--jobs")) {
			char *end;
			o->jobs = strtol(val, &end, 10);
			if (*end || o->jobs < 1 || o->jobs > 1024)
				usage_error("--jobs needs a number from 1 to 1024, not '%s'", val);
		} else if (!strcmp(a, "--gdb")) {
			if (o->mode == MODE_TEST)
				usage_error("--gdb is not valid with 'test'");
			o->gdb = true;
		} else if (!strcmp(a, "--icount")) {
			if (o->mode != MODE_RUN)
				usage_error("--icount is only valid with 'run' (tests must not depend on timing anyway)");
			o->icount = true;
		} else if (!strcmp(a, "--test")) {
			if (o->mode != MODE_PRINT)
				usage_error("--test is only valid with 'print-cmd'");
			o->test_flag = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (a[0] == '-') {
			usage_error("unknown option '%s'", a);
		} else {
			if (o->mode == MODE_TEST)
				usage_error("unexpected argument '%s' (use --topology NAME)", a);
			o->names[o->nnames++] = a;
		}
	}
	if (!strcmp(tcg_threads, "auto"))
		o->tcg_threads = TCG_THREADS_AUTO;
	else if (!strcmp(tcg_threads, "single"))
		o->tcg_threads = TCG_THREADS_SINGLE;
	else if (!strcmp(tcg_threads, "multi"))
		o->tcg_threads = TCG_THREADS_MULTI;
	else
		usage_error("tcg-threads must be 'auto', 'single' or 'multi', not '%s'", tcg_threads);
	if (strcmp(o->accel, "tcg") && strcmp(o->accel, "kvm"))
		usage_error("accel must be 'tcg' or 'kvm', not '%s'", o->accel);
	if (!o->linux_kernel != !o->linux_initrd)
		usage_error("--linux-kernel and --linux-initrd go together");
	if (o->icount && strcmp(o->accel, "tcg"))
		usage_error("--icount counts TCG's instructions: it needs --accel tcg");
	if (o->mode != MODE_TEST) {
		if (o->mode == MODE_RUN && o->filter)
			usage_error("--filter is only valid with 'test' and 'print-cmd --test'");
		if (o->nnames != 1)
			usage_error("'%s' needs exactly one topology NAME", argv[1]);
		if (!o->iso || !o->topo_dir)
			usage_error("'%s' needs --iso and --topologies", argv[1]);
		if (!o->results)
			o->results = "build/test-results";
	} else {
		if (!o->results)
			usage_error("'test' needs --results");
		if (!o->topo_dir && o->nnames)
			usage_error("--topology needs --topologies");
		if (o->topo_dir && !o->iso)
			usage_error("--topologies needs --iso");
		if (!o->topo_dir && !o->nhosts)
			usage_error("nothing to test: give --topologies/--iso and/or --host");
		if (o->kunit_tool) {
			char *py = xasprintf("%s/tools/testing/kunit/kunit.py", o->kunit_tool);
			if (access(py, R_OK))
				usage_error("--kunit-tool %s: cannot read %s: %s", o->kunit_tool, py,
					    strerror(errno));
			free(py);
		}
		if (!o->jobs) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			o->jobs = n > 0 ? n : 1;
		}
	}
}
