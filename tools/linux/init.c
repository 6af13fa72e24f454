/* init: PID 1 of the Linux guest that `make compare` (and the linux-*
 * topologies of `make test`) boot. It runs the same user test and crash
 * programs mmlab runs and reports them as one KTAP suite, "linux", judged
 * exactly as build/host/user-linux-runner judges them on the host (the
 * shared code is tests/user/program_run.c), then ends the machine the way
 * an mmlab boot does: through QEMU's isa-debug-exit port 0xf4, value 0x10
 * (exit 33, every case passed) or 0x11 (exit 35, a case failed). If the port
 * cannot be used it powers off instead (QEMU then exits 0, which the runner
 * judges a crash: a boot never passes by accident).
 *
 * The initramfs is mmlab's own (build/initramfs.cpio, or the mm-selftests
 * ISO's archive; docs/initramfs.md) followed by a second archive holding
 * only /init (this, static): the programs in /bin/NAME and their manifest
 * /etc/mmlab/programs (fs/programs.h's format: one "test NAME", "crash
 * NAME", "bench NAME", "demo NAME" or "aux NAME" line per program, in
 * order, or "selftest NAME [ARGS] [:: what mmlab lacks]" for one of Linux's
 * mm selftests: suite "mm_selftests", judged by kselftest's exit codes,
 * started with ARGS; tests/mm_selftests/). Test, crash and selftest lines
 * are cases; bench, demo and aux programs are not: they
 * run only when named by "run=NAME,NAME" on the command line (mmlab's
 * run= word, make bench-compare's Linux side), which replaces the test run:
 * each named program runs in turn with its output on the console, followed
 * by "linux: NAME exited with status N", then the machine ends as after a
 * passing run (a program that fails its own checks says so in its output;
 * its status is in the line). Linux passes run= on to init's environment,
 * which is harmless; init reads it from /proc/cmdline like the others.
 * The kernel command line may also carry the words mmlab's runner gives
 * mmlab: "ktest.filter=GLOB[,GLOB...]" selects the cases whose "linux.NAME" or
 * "user.NAME" matches GLOB (the suite.case glob of tests/kunit.c; "user" is
 * the mmlab suite that runs the same programs, so FILTER='user.*' runs them
 * on both kernels; the others are reported skipped), and "ktest.timeout=S"
 * sets the time one program may take (default 60 s); "ktest.swap=NAME,..."
 * names the programs that run with /dev/vda (the runner's scratch disk,
 * a swap area with disk-format = swap) on as swap, swapon before each and
 * swapoff after it, as mmlab's mm_selftests.swap (tests/mm_selftests_test.c);
 * "ktest.timeout_per_gib=NAME,..." names the programs whose work grows with
 * the memory: they get ktest.timeout once more per GiB of MemTotal
 * (rounded up), as mmlab's mm_selftests.timeout_per_gib.
 * Linux ignores these (dotted words are module parameters), so init
 * reads /proc/cmdline.
 *
 * Debian builds the virtio PCI transport and virtio_blk as modules: the
 * second archive carries them (tools/linux/fetch-kernel.sh keeps them from
 * the same kernel package) as /lib/modules/NAME.ko, and init loads those
 * /lib/modules/order names, in its order, with finit_module(2) before the
 * programs run, so that a machine with a disk has /dev/vda (devtmpfs) as
 * mmlab has. A module that does not load is reported and the run goes on. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "program_run.h"

#define MAX_PROGRAMS 256 /* the kernel's MAX_USER_PROGRAMS */
#define PROGRAM_MANIFEST "/etc/mmlab/programs"
#define PROGRAM_DIR "/bin"
#define QEMU_EXIT_PORT 0xf4
#define QEMU_EXIT_SUCCESS 0x10 /* status 33, as arch/x86_64/qemu_exit.h */
#define QEMU_EXIT_FAILURE 0x11 /* status 35 */

static struct program programs[MAX_PROGRAMS];
static size_t nprograms;
/* The bench, demo and aux lines of the manifest: what run= may name
 * besides the cases. */
static char bench_names[MAX_PROGRAMS][sizeof(programs[0].name)];
static size_t nbench;

static void mount_fs(const char *source, const char *target, const char *type)
{
	mkdir(target, 0755);
	if (mount(source, target, type, 0, NULL) && errno != EBUSY)
		fprintf(stderr, "init: mount %s on %s: %s\n", type, target, strerror(errno));
}

/* The serial console as stdin/stdout/stderr: the kernel may have found no
 * /dev/console in the initramfs (it has no device nodes), so init opens it
 * itself from devtmpfs. */
static void open_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

static __attribute__((noreturn)) void finish(bool passed)
{
	fflush(stdout);
	fflush(stderr);
	/* write() returns once the tty has the bytes, not once the UART sent
	 * them: without this the last lines are lost when QEMU exits. */
	tcdrain(STDOUT_FILENO);
	sync();
	if (ioperm(QEMU_EXIT_PORT, 1, 1) == 0)
		outb(passed ? QEMU_EXIT_SUCCESS : QEMU_EXIT_FAILURE, QEMU_EXIT_PORT);
	else
		fprintf(stderr, "init: ioperm(0x%x): %s; powering off\n", QEMU_EXIT_PORT, strerror(errno));
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* The value of word KEY=value on the kernel command line (the last, if
 * it is there more than once), or NULL. */
static const char *cmdline_value(const char *cmdline, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *found = NULL;
	for (const char *p = cmdline; *p;) {
		while (isspace((unsigned char)*p))
			p++;
		size_t n = strcspn(p, " \t\n");
		/* The last one counts, as a kernel parameter given twice
		 * (the runner's --cmdline comes after the topology's words). */
		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			size_t v = n - klen - 1;
			if (v >= size)
				v = size - 1;
			memcpy(buf, p + klen + 1, v);
			buf[v] = 0;
			found = buf;
		}
		p += n;
	}
	return found;
}

/* tests/kunit.c's kunit_filter_match(): globs separated by commas, a case
 * any of them selects; in each, the part before the first '.' is a glob
 * on the suite, the rest (if any) a glob on the case. */
static bool glob_match(const char *g, size_t len, const char *suite, const char *name)
{
	char glob[256];
	if (len >= sizeof(glob))
		len = sizeof(glob) - 1;
	memcpy(glob, g, len);
	glob[len] = 0;
	char *dot = strchr(glob, '.');
	if (dot)
		*dot = 0;
	if (fnmatch(glob, suite, 0))
		return false;
	return !dot || !fnmatch(dot + 1, name, 0);
}

static bool filter_match(const char *filter, const char *suite, const char *name)
{
	if (!filter || !*filter)
		return true;
	for (const char *g = filter;;) {
		const char *comma = strchr(g, ',');
		size_t len = comma ? (size_t)(comma - g) : strlen(g);
		if (len && glob_match(g, len, suite, name))
			return true;
		if (!comma)
			return false;
		g = comma + 1;
	}
}

/* The first line of a small file, without its newline; buf unchanged if
 * the file cannot be read. */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Reads the manifest; a malformed line is reported and fails the boot. */
static bool read_manifest(void)
{
	FILE *f = fopen(PROGRAM_MANIFEST, "r");
	if (!f) {
		fprintf(stderr, "init: " PROGRAM_MANIFEST ": %s\n", strerror(errno));
		return false;
	}
	char line[256], kind[16], name[sizeof(programs[0].name)];
	bool ok = true;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%15s %63s", kind, name) == 2 &&
		    (!strcmp(kind, "bench") || !strcmp(kind, "demo") || !strcmp(kind, "aux")) &&
		    nbench < MAX_PROGRAMS) {
			snprintf(bench_names[nbench++], sizeof(bench_names[0]), "%s", name);
			continue;
		}
		int end = 0;
		if (sscanf(line, "%15s %63s%n", kind, name, &end) != 2 ||
		    (strcmp(kind, "test") && strcmp(kind, "crash") && strcmp(kind, "selftest")) ||
		    nprograms == MAX_PROGRAMS) {
			fprintf(stderr, "init: " PROGRAM_MANIFEST ": bad line (or too many): %s", line);
			ok = false;
			continue;
		}
		struct program *p = &programs[nprograms++];
		snprintf(p->name, sizeof(p->name), "%s", name);
		p->crash = kind[0] == 'c';
		p->selftest = kind[0] == 's';
		const char *args = line + end + strspn(line + end, " ");
		snprintf(p->args, sizeof(p->args), "%.*s", (int)strcspn(args, "\n"), args);
		/* What mmlab lacks, after " :: ", is mmlab's note, not arguments. */
		char *lacks = !strncmp(p->args, "::", 2) ? p->args : strstr(p->args, " ::");
		if (lacks)
			*lacks = 0;
	}
	fclose(f);
	return ok;
}

/* Whether NAME is a program of the initramfs (a case or a bench, demo or
 * aux line). */
static bool known_program(const char *name)
{
	for (size_t k = 0; k < nprograms; k++)
		if (!strcmp(programs[k].name, name))
			return true;
	for (size_t k = 0; k < nbench; k++)
		if (!strcmp(bench_names[k], name))
			return true;
	return false;
}

/* run=NAME,NAME: each program in turn, its output straight to the console
 * (no timeout: a benchmark under -icount may take minutes; the runner's run
 * mode has none either). Returns whether every name was a program. */
static bool run_list(char *list)
{
	bool ok = true;
	for (char *name = list, *next; name && *name; name = next) {
		next = strchr(name, ',');
		if (next)
			*next++ = 0;
		if (!known_program(name)) {
			printf("linux: %s: no such program in the initramfs\n", name);
			ok = false;
			continue;
		}
		char path[PATH_MAX];
		snprintf(path, sizeof(path), PROGRAM_DIR "/%s", name);
		printf("linux: running %s\n", name);
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			execl(path, name, (char *)NULL);
			fprintf(stderr, "linux: exec %s: %s\n", path, strerror(errno));
			_exit(127);
		}
		int status = 0;
		if (pid < 0 || waitpid(pid, &status, 0) < 0) {
			printf("linux: %s could not be run: %s\n", name, strerror(errno));
			ok = false;
		} else if (WIFSIGNALED(status)) {
			printf("linux: %s killed by signal %d\n", name, WTERMSIG(status));
		} else {
			printf("linux: %s exited with status %d\n", name, WEXITSTATUS(status));
		}
		fflush(stdout);
	}
	return ok;
}

/* ktest.swap's and ktest.timeout_per_gib's lists, and whether name is in
 * one. */
static char swap_list[256], per_gib_list[256];
#define SWAP_DISK "/dev/vda"

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return true;
		if (!p[len])
			break;
		p += len + 1;
	}
	return false;
}

/* Runs the programs of one suite (selftests or not) as KTAP suite number
 * suite_no, adding to total[] (pass, fail, skip). */
static void run_suite(const char *suite, bool selftests, const char *glob, int timeout_s,
		      unsigned suite_no, unsigned total[3])
{
	unsigned ncases = 0;
	for (size_t k = 0; k < nprograms; k++)
		ncases += programs[k].selftest == selftests;
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", suite, ncases);
	fflush(stdout);
	unsigned pass = 0, fail = 0, skip = 0, number = 0;
	for (size_t k = 0; k < nprograms; k++) {
		if (programs[k].selftest != selftests)
			continue;
		/* A case the filter leaves out is reported skipped, as Linux's
		 * KUnit does with kunit.filter_action=skip (lib/kunit/executor.c):
		 * the suite is never empty, which kunit_tool would call an error.
		 * The "linux" cases are also mmlab's "user" ones. */
		if (!filter_match(glob, suite, programs[k].name) &&
		    (selftests || !filter_match(glob, "user", programs[k].name))) {
			printf("    ok %u %s # SKIP not selected by ktest.filter=%s\n", ++number,
			       programs[k].name, glob);
			skip++;
			continue;
		}
		char path[PATH_MAX], args[sizeof(programs[k].args)];
		snprintf(path, sizeof(path), PROGRAM_DIR "/%.63s", programs[k].name);
		snprintf(args, sizeof(args), "%s", programs[k].args);
		char *argv[16] = { programs[k].name };
		int argc = 1;
		for (char *w = strtok(args, " "); w && argc < 15; w = strtok(NULL, " "))
			argv[argc++] = w;
		argv[argc] = NULL;
		bool swap = listed(swap_list, programs[k].name);
		int limit_s = timeout_s;
		if (listed(per_gib_list, programs[k].name)) {
			struct sysinfo si;
			unsigned long long gib = 0;
			if (!sysinfo(&si))
				gib = ((unsigned long long)si.totalram * si.mem_unit + (1ull << 30) - 1) >> 30;
			limit_s = timeout_s * (int)(1 + gib);
			printf("    # %s may run %d s: %d s, and %d s per GiB of %llu GiB (ktest.timeout_per_gib)\n",
			       programs[k].name, limit_s, timeout_s, timeout_s, gib);
			fflush(stdout);
		}
		if (swap) {
			long r = syscall(SYS_swapon, SWAP_DISK, 0);
			printf("    # %s: swapon %s: %s (ktest.swap)\n", programs[k].name, SWAP_DISK,
			       r ? strerror(errno) : "on");
			fflush(stdout);
		}
		struct outcome o = program_run_argv(path, argv, limit_s);
		if (swap && syscall(SYS_swapoff, SWAP_DISK)) {
			printf("    # %s: swapoff %s: %s\n", programs[k].name, SWAP_DISK, strerror(errno));
			fflush(stdout);
		}
		switch (program_report(&programs[k], path, &o, ++number, limit_s)) {
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
	printf("%s %u %s\n", fail ? "not ok" : "ok", suite_no, suite);
	fflush(stdout);
	total[0] += pass;
	total[1] += fail;
	total[2] += skip;
}

/* insmod of each module /lib/modules/order names (see above). */
static void load_modules(void)
{
	FILE *order = fopen("/lib/modules/order", "r");
	if (!order)
		return;
	char name[128], path[192];
	while (fscanf(order, "%127s", name) == 1) {
		snprintf(path, sizeof(path), "/lib/modules/%s", name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			printf("# init: insmod %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	fclose(order);
}

int main(void)
{
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	open_console();
	load_modules();
	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("tmpfs", "/tmp", "tmpfs");
	/* Pseudo-terminals (tests/user/tests/tty_jobctl.c), as a Linux
	 * system has them. */
	mount_fs("devpts", "/dev/pts", "devpts");
	setenv("PATH", PROGRAM_DIR ":/", 1);
	setenv("HOME", "/", 1);

	char cmdline[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = 0;
		fclose(f);
	}
	char filter[256], tbuf[16];
	const char *glob = cmdline_value(cmdline, "ktest.filter", filter, sizeof(filter));
	int timeout_s = 60;
	if (cmdline_value(cmdline, "ktest.timeout", tbuf, sizeof(tbuf)) && atoi(tbuf) > 0)
		timeout_s = atoi(tbuf);

	if (!cmdline_value(cmdline, "ktest.swap", swap_list, sizeof(swap_list)))
		swap_list[0] = 0;
	if (!cmdline_value(cmdline, "ktest.timeout_per_gib", per_gib_list, sizeof(per_gib_list)))
		per_gib_list[0] = 0;

	bool manifest_ok = read_manifest();

	struct utsname u;
	uname(&u);
	/* Before the KTAP header: boot text to both parsers. */
	printf("init: running on %s %s %s %s\n", u.sysname, u.release, u.version, u.machine);
	char nodes[64] = "?", cpus[64] = "?";
	read_line("/sys/devices/system/node/online", nodes, sizeof(nodes));
	read_line("/sys/devices/system/cpu/online", cpus, sizeof(cpus));
	printf("init: NUMA nodes online %s, CPUs online %s\n", nodes, cpus);
	char run[1024];
	if (cmdline_value(cmdline, "run", run, sizeof(run)))
		finish(run_list(run) && manifest_ok);
	/* Two suites: "linux" (the test and crash programs, mmlab's "user")
	 * and "mm_selftests" (Linux's own, tests/mm_selftests/), each printed
	 * only when the initramfs has programs of it. */
	bool has[2] = { false, false };
	for (size_t k = 0; k < nprograms; k++)
		has[programs[k].selftest] = true;
	printf("KTAP version 1\n1..%d\n", has[0] + has[1]);
	unsigned total[3] = { 0 }, suite_no = 0; /* pass, fail, skip */
	for (int s = 0; s < 2; s++) {
		if (has[s])
			run_suite(s ? "mm_selftests" : "linux", s, glob, timeout_s, ++suite_no, total);
	}
	unsigned fail = total[1];
	printf("# Totals: pass:%u fail:%u skip:%u total:%u\n", total[0], total[1], total[2],
	       total[0] + total[1] + total[2]);
	fflush(stdout);
	finish(manifest_ok && !fail);
}
