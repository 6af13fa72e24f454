/* Debian's BusyBox (busybox-static: a static glibc executable, not built
 * by the project) run applet by applet, without a terminal: each command
 * is fork + execve("/bin/busybox", {APPLET, args...}) with its output (and
 * errors) in a file of the tmpfs, and the output is held against what this
 * program asks the kernel itself: `free` against sysinfo(2), `ps` and
 * `top -b -n 1` must list this process, `ls -l /proc/self/` must show the
 * exe link to /bin/busybox, `mount` one line per /proc/mounts line,
 * `uname -s` uname(2)'s sysname, `ulimit -v` getrlimit(RLIMIT_AS), `id`
 * getuid(2). The shell's external commands are started as
 * execve("/proc/self/exe", ...) by BusyBox (its FEATURE_PREFER_APPLETS),
 * so `sh -c` checks that /proc/self/exe is a link exec can follow.
 * Where the machine has no /bin/busybox (a host without the package) the
 * program is skipped. A command substitution needs a pipe: it is checked
 * where pipe(2) works, else skipped with the reason. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define BUSYBOX "/bin/busybox"
#define OUT_SIZE (1 << 20)

static char out_path[256];
static char *out;
/* BUSYBOX with links resolved (the host's /bin may be a link to usr/bin). */
static char busybox_real[PATH_MAX];

/* Runs the file path (busybox, or a link to it) with argv (argv[0] the
 * applet) and the environment envp, its stdout and stderr in out_path;
 * out holds what it wrote. Returns its exit status (wait_status_of: 100 +
 * a signal that killed it). */
static int run_file(const char *path, const char *const *argv, const char *const *envp)
{
	out[0] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(fd);
		execve(path, (char *const *)argv, (char *const *)envp);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	int status = wait_status_of(pid);
	if (read_file(out_path, out, OUT_SIZE) < 0)
		out[0] = 0;
	return status;
}

/* The start of out for a message: one line, newlines shown as "|". */
static const char *shown(void)
{
	static char text[121];
	size_t i = 0;
	for (; out[i] && i < sizeof(text) - 1; i++)
		text[i] = out[i] == '\n' ? '|' : out[i];
	text[i] = 0;
	return text;
}

static const char *const path_env[] = { "PATH=/bin:/sbin:/usr/bin:/usr/sbin", NULL };

static int run_env(const char *const *argv, const char *const *envp) { return run_file(BUSYBOX, argv, envp); }
static int run(const char *const *argv) { return run_env(argv, path_env); }

/* The line of out that starts with prefix (after blanks), or NULL. */
static const char *line_starting(const char *prefix)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l + strspn(l, " ");
		if (!strncmp(p, prefix, strlen(prefix)))
			return p;
	}
	return NULL;
}

/* Whether some line of out has pid as its first word (ps) or a word
 * starting the line after blanks (top's PID column). */
static bool lists_pid(pid_t pid)
{
	char word[24];
	snprintf(word, sizeof(word), "%d ", (int)pid);
	return line_starting(word) != NULL;
}

static unsigned count_lines(const char *s)
{
	unsigned n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void check_echo_and_uname(void)
{
	CHECK_CMP(run((const char *const[]){ "echo", "hi", "there", NULL }), ==, 0);
	CHECKF(!strcmp(out, "hi there\n"), "echo hi there printed \"hi there\\n\" (got \"%s\")", shown());

	struct utsname u;
	CHECK_CMP(uname(&u), ==, 0);
	CHECK_CMP(run((const char *const[]){ "uname", "-s", NULL }), ==, 0);
	char want[sizeof(u.sysname) + 1];
	snprintf(want, sizeof(want), "%s\n", u.sysname);
	CHECKF(!strcmp(out, want), "uname -s printed uname(2)'s sysname %s (got \"%s\")", u.sysname, shown());
	CHECK_CMP(run((const char *const[]){ "uname", "-a", NULL }), ==, 0);
	CHECKF(strstr(out, u.sysname) && strstr(out, u.release) && strstr(out, u.machine),
	       "uname -a names the sysname, release and machine (%s)", shown());
}

/* BusyBox's free reads sysinfo(2) and prints KiB: total and free memory
 * must be the kernel's (free memory may move between the two reads by
 * what the fork and exec took). */
static void check_free(void)
{
	CHECK_CMP(run((const char *const[]){ "free", NULL }), ==, 0);
	struct sysinfo si;
	CHECK_CMP(sysinfo(&si), ==, 0);
	const char *mem = line_starting("Mem:");
	CHECKF(mem != NULL, "free printed a Mem: line (%s)", shown());
	unsigned long long total = 0, used = 0, freekb = 0;
	if (mem)
		CHECK_CMP(sscanf(mem, "Mem: %llu %llu %llu", &total, &used, &freekb), ==, 3);
	unsigned long long want_total = (unsigned long long)si.totalram * si.mem_unit / 1024;
	CHECK_CMP(total, ==, want_total);
	unsigned long long now_free = (unsigned long long)si.freeram * si.mem_unit / 1024;
	CHECKF(freekb <= want_total && freekb + 65536 >= now_free && now_free + 65536 >= freekb,
	       "free's free %llu kB is sysinfo's %llu kB within 64 MiB", freekb, now_free);
	const char *swap = line_starting("Swap:");
	unsigned long long swap_total = ~0ULL;
	CHECKF(swap && sscanf(swap, "Swap: %llu", &swap_total) == 1 &&
	       swap_total == (unsigned long long)si.totalswap * si.mem_unit / 1024,
	       "free's Swap: total is sysinfo's %llu kB", (unsigned long long)si.totalswap * si.mem_unit / 1024);
}

static void check_proc_readers(void)
{
	/* cat of /proc/meminfo: the same first line as this program reads. */
	char mine[4096];
	CHECK_CMP(read_file("/proc/meminfo", mine, sizeof(mine)), >, 0);
	CHECK_CMP(run((const char *const[]){ "cat", "/proc/meminfo", NULL }), ==, 0);
	CHECKF(!strncmp(out, mine, strcspn(mine, "\n") + 1), "cat /proc/meminfo starts with MemTotal as read here");
	CHECK_CMP(count_lines(out), ==, count_lines(mine));

	/* ps walks /proc/<pid>/stat (and cmdline): this process is listed. */
	CHECK_CMP(run((const char *const[]){ "ps", NULL }), ==, 0);
	CHECKF(line_starting("PID") != NULL, "ps printed its PID header");
	CHECKF(lists_pid(getpid()), "ps lists this process, %d", (int)getpid());

	/* top chdir's to /proc and reads each process's stat; -b -n 1: one
	 * batch screen, no terminal needed. */
	CHECK_CMP(run((const char *const[]){ "top", "-b", "-n", "1", NULL }), ==, 0);
	CHECKF(line_starting("Mem:") != NULL, "top's header has a Mem: line");
	CHECKF(lists_pid(getpid()), "top lists this process, %d", (int)getpid());

	/* ls -l of /proc/self/: the ls process's own directory, whose exe
	 * is a symbolic link to the file it runs. */
	char exe[PATH_MAX + 16];
	snprintf(exe, sizeof(exe), " exe -> %s\n", busybox_real);
	CHECK_CMP(run((const char *const[]){ "ls", "-l", "/proc/self/", NULL }), ==, 0);
	CHECKF(strstr(out, exe) != NULL, "ls -l /proc/self/ shows%.*s", (int)strlen(exe) - 1, exe);
	CHECKF(strstr(out, " maps\n") && strstr(out, " status\n"), "ls -l /proc/self/ lists maps and status");

	/* mount prints /proc/mounts, a line each. */
	CHECK_CMP(read_file("/proc/mounts", mine, sizeof(mine)), >, 0);
	CHECK_CMP(run((const char *const[]){ "mount", NULL }), ==, 0);
	CHECK_CMP(count_lines(out), ==, count_lines(mine));
	CHECKF(strstr(out, "proc on /proc type proc (") != NULL, "mount shows procfs on /proc");

	/* df: statfs(2) of each mount. BusyBox finds the mount of a path in
	 * /proc/mounts and passes over the one named "rootfs" (its
	 * FEATURE_SKIP_ROOTFS), which is what an initramfs root is on Linux
	 * (and on mmlab): then `df /` cannot find a mount point, on both. */
	CHECK_CMP(run((const char *const[]){ "df", NULL }), ==, 0);
	CHECKF(line_starting("Filesystem") != NULL, "df printed its header (%s)", shown());
	bool root_is_rootfs = strstr(mine, "\nrootfs / ") || !strncmp(mine, "rootfs / ", 9);
	int status = run((const char *const[]){ "df", "/", NULL });
	if (root_is_rootfs)
		CHECKF(status == 1 && strstr(out, "can't find mount point"),
		       "df / on a rootfs root: exit 1, no mount point (%d: %s)", status, shown());
	else
		CHECKF(status == 0 && count_lines(out) == 2, "df / printed a header and one line (%d: %s)", status, shown());
}

static void check_shell(void)
{
	/* A process started through a symbolic link to busybox (as /bin/sh
	 * is on mmlab) has the link's target as its exe: Linux's d_path of
	 * the file it runs. */
	bool tmpfs;
	char link[512];
	snprintf(link, sizeof(link), "%s", path_in(tmpfs_dir(&tmpfs), "busybox_applets.sh"));
	unlink(link);
	CHECK_CMP(symlink(BUSYBOX, link), ==, 0);
	char want_exe[PATH_MAX + 2];
	snprintf(want_exe, sizeof(want_exe), "%s\n", busybox_real);
	CHECK_CMP(run_file(link, (const char *const[]){ "sh", "-c", "readlink /proc/$$/exe", NULL }, path_env), ==, 0);
	CHECKF(!strcmp(out, want_exe), "sh run through a link: /proc/$$/exe is %s (got \"%s\")", busybox_real, shown());
	unlink(link);

	/* sh runs cat as execve("/proc/self/exe", {"cat", ...}). */
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "echo hi > /tmp/busybox_applets.x; cat /tmp/busybox_applets.x; rm /tmp/busybox_applets.x", NULL }), ==, 0);
	CHECKF(!strcmp(out, "hi\n"), "sh -c 'echo hi > f; cat f' printed hi (got \"%s\")", shown());
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "exit 7", NULL }), ==, 7);
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "/bin/false", NULL }), ==, 1);
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "no_such_command_here", NULL }), ==, 127);
	CHECKF(strstr(out, "not found") != NULL, "an unknown command is reported not found (%s)", shown());

	static const char *const env[] = { "A=1", "B=two words", NULL };
	CHECK_CMP(run_env((const char *const[]){ "env", NULL }, env), ==, 0);
	CHECKF(!strcmp(out, "A=1\nB=two words\n"), "env printed its environment (got \"%s\")", shown());

	char want[64];
	CHECK_CMP(run((const char *const[]){ "id", "-u", NULL }), ==, 0);
	snprintf(want, sizeof(want), "%d\n", (int)getuid());
	CHECKF(!strcmp(out, want), "id -u printed getuid() %d (got \"%s\")", (int)getuid(), shown());

	struct rlimit as;
	CHECK_CMP(getrlimit(RLIMIT_AS, &as), ==, 0);
	if (as.rlim_cur == RLIM_INFINITY)
		snprintf(want, sizeof(want), "unlimited\n");
	else
		snprintf(want, sizeof(want), "%llu\n", (unsigned long long)as.rlim_cur / 1024);
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "ulimit -v", NULL }), ==, 0);
	CHECKF(!strcmp(out, want), "ulimit -v printed getrlimit(RLIMIT_AS) %s (got \"%s\")", want, shown());
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "ulimit -v 65536; ulimit -v", NULL }), ==, 0);
	CHECKF(!strcmp(out, "65536\n"), "ulimit -v 65536 then ulimit -v printed 65536 (got \"%s\")", shown());

	/* time: wait4's rusage after the command ends. */
	CHECK_CMP(run((const char *const[]){ "time", "true", NULL }), ==, 0);
	CHECKF(line_starting("real") != NULL && line_starting("user") != NULL, "time true printed real and user (%s)", shown());

	int fds[2];
	if (pipe(fds) != 0) {
		check_skip("command substitution: pipe(2) failed here (%s)", errno_name(errno));
		return;
	}
	close(fds[0]);
	close(fds[1]);
	CHECK_CMP(run((const char *const[]){ "sh", "-c", "x=$(echo a); echo $x$x", NULL }), ==, 0);
	CHECKF(!strcmp(out, "aa\n"), "x=$(echo a); echo $x$x printed aa (got \"%s\")", shown());
}

int main(void)
{
	test_begin("busybox_applets");
	if (access(BUSYBOX, X_OK) != 0)
		test_skip("no " BUSYBOX " here (Debian's busybox-static)");
	bool tmpfs;
	snprintf(out_path, sizeof(out_path), "%s", path_in(tmpfs_dir(&tmpfs), "busybox_applets.out"));
	if (!realpath(BUSYBOX, busybox_real))
		snprintf(busybox_real, sizeof(busybox_real), "%s", BUSYBOX);
	out = malloc(OUT_SIZE);
	CHECK(out != NULL);
	if (!out)
		return test_end();
	check_echo_and_uname();
	check_free();
	check_proc_readers();
	check_shell();
	unlink(out_path);
	free(out);
	return test_end();
}
