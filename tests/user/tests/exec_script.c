/* Scripts and execve's argument limits, held beside Linux's: a file whose
 * first line is "#!interpreter [argument]" runs the interpreter with
 * argv = { interpreter, [argument,] the script's path, argv[1]... }
 * (Linux's fs/binfmt_script.c). The interpreter here is this program
 * itself: run with EXEC_SCRIPT_OUT in its environment, it writes what it
 * got (argv, AT_EXECFN, /proc/self/exe, comm) to that file, and the
 * parent compares. Then the line's rules (spaces, one argument, a line
 * longer than the 256 bytes read), the errnos (ENOEXEC, ENOENT, ELOOP past
 * five rewrites), execveat's /dev/fd/N names, and execve's limits: a
 * thousand arguments, a string of MAX_ARG_STRLEN bytes, and E2BIG past a
 * quarter of the stack limit (Linux's bprm_stack_limits). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define MAX_ARG_STRLEN (32 * 4096)

static char self[256], dir[64], out[128];

/* The interpreter's side: what it got, one item a line. */
static int report(int argc, char **argv)
{
	FILE *f = fopen(getenv("EXEC_SCRIPT_OUT"), "w");
	if (!f)
		return 1;
	char exe[256] = "", comm[32] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	read_file("/proc/self/comm", comm, sizeof(comm));
	comm[strcspn(comm, "\n")] = 0;
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	fprintf(f, "exe=%s\ncomm=%s\nexecfn=%s\nargc=%d\n", exe, comm, execfn ? execfn : "", argc);
	for (int i = 0; i < argc; i++)
		fprintf(f, "%s\n", strlen(argv[i]) < 1024 ? argv[i] : "(long)");
	return fclose(f) ? 1 : 0;
}

static const char *script(const char *name, const char *text, size_t len)
{
	static char paths[16][128];
	static int next;
	char *path = paths[next++ % 16];
	snprintf(path, sizeof(paths[0]), "%s/%s", dir, name);
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHECK(fd >= 0 && write(fd, text, len) == (ssize_t)len);
	close(fd);
	return path;
}

static const char *line_script(const char *name, const char *fmt, const char *arg)
{
	char text[600];
	int len = snprintf(text, sizeof(text), fmt, arg);
	return script(name, text, (size_t)len);
}

/* Runs argv through execve (or execveat of dirfd and path, flags) in a
 * child; 0 and the interpreter's report in got, or the errno. */
static int run(int dirfd, const char *path, int flags, char *const argv[], char *got, size_t size)
{
	char env[160];
	snprintf(env, sizeof(env), "EXEC_SCRIPT_OUT=%s", out);
	char *const envp[] = { env, NULL };
	unlink(out);
	int pipefd[2]; /* the child's errno, if its exec fails */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pipefd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
		if (dirfd == AT_FDCWD && !flags)
			execve(path, argv, envp);
		else
			syscall(SYS_execveat, dirfd, path, argv, envp, flags);
		int e = errno;
		if (write(pipefd[1], &e, sizeof(e)) != sizeof(e))
			_exit(126);
		_exit(127);
	}
	close(pipefd[1]);
	int e = 0;
	ssize_t n = read(pipefd[0], &e, sizeof(e));
	close(pipefd[0]);
	int status = wait_status_of(pid);
	if (n == sizeof(e))
		return e;
	CHECKF(status == 0, "the interpreter exited with %d", status);
	got[0] = 0;
	CHECK(read_file(out, got, size) > 0);
	return 0;
}

/* Runs a script with argv[1..] = { "a", "b" }; the report, or "" on an error. */
static int run_script(const char *path, char *got, size_t size)
{
	char *const argv[] = { "ignored", "a", "b", NULL };
	return run(AT_FDCWD, path, 0, argv, got, size);
}

static void expect(const char *got, const char *what, const char *want)
{
	char line[1200];
	snprintf(line, sizeof(line), "\n%s\n", want);
	char text[4200];
	snprintf(text, sizeof(text), "\n%s", got);
	if (strstr(text, line))
		CHECKF(true, "%s", what);
	else
		CHECKF(false, "%s: %s not in\n%s", what, want, got);
}

static void basic_lines(void)
{
	char got[4096], want[600];
	const char *s = line_script("plain", "#!%s\n", self);
	CHECK_CMP(run_script(s, got, sizeof(got)), ==, 0);
	snprintf(want, sizeof(want), "exe=%s\ncomm=plain\nexecfn=%s\nargc=4\n%s\n%s\na\nb", self, s, self, s);
	expect(got, "a #! line", want);

	s = line_script("spaced", "#!  %s   one  two \t \n", self);
	CHECK_CMP(run_script(s, got, sizeof(got)), ==, 0);
	snprintf(want, sizeof(want), "argc=5\n%s\none  two\n%s\na\nb", self, s);
	expect(got, "one argument, spaces inside kept", want);

	s = script("noeol", want, (size_t)snprintf(want, sizeof(want), "#!%s", self));
	CHECK_CMP(run_script(s, got, sizeof(got)), ==, 0);
	snprintf(want, sizeof(want), "argc=4\n%s\n%s\na", self, s);
	expect(got, "a line without its newline", want);

	/* Longer than the 256 bytes read: the name ends inside them, so the
	 * argument is what of it fits (255 bytes of the line). */
	char xs[400];
	memset(xs, 'x', sizeof(xs) - 1);
	xs[sizeof(xs) - 1] = 0;
	char fmt[300];
	snprintf(fmt, sizeof(fmt), "#!%s %%s\n", self);
	s = line_script("long", fmt, xs);
	CHECK_CMP(run_script(s, got, sizeof(got)), ==, 0);
	size_t arg_len = 255 - 2 - strlen(self) - 1;
	snprintf(want, sizeof(want), "argc=5\n%s\n%.*s\n%s", self, (int)arg_len, xs, s);
	expect(got, "an argument cut at 255 bytes", want);
}

static void refusals(void)
{
	char got[4096];
	CHECK_CMP(run_script(script("empty", "#!\n", 3), got, sizeof(got)), ==, ENOEXEC);
	CHECK_CMP(run_script(script("blank", "#!  \t \n", 7), got, sizeof(got)), ==, ENOEXEC);
	CHECK_CMP(run_script(script("missing", "#!/nonexistent/interp\n", 22), got, sizeof(got)), ==, ENOENT);
	CHECK_CMP(run_script(script("text", "echo hi\n", 8), got, sizeof(got)), ==, ENOEXEC);
	char name[400] = "#!/";
	memset(name + 3, 'a', 300);
	name[303] = 0;
	CHECK_CMP(run_script(script("longname", name, 303), got, sizeof(got)), ==, ENOEXEC);
	/* A directory named as the interpreter. */
	CHECK_CMP(run_script(line_script("dirinterp", "#!%s\n", dir), got, sizeof(got)), ==, EACCES);
}

static void nesting(void)
{
	char got[4096], want[800], prev[128], name[16];
	/* s0 runs this program; s<k> names s<k-1>. */
	snprintf(prev, sizeof(prev), "%s", line_script("s0", "#!%s -x\n", self));
	const char *paths[7];
	paths[0] = strdup(prev);
	for (int k = 1; k <= 6; k++) {
		snprintf(name, sizeof(name), "s%d", k);
		paths[k] = strdup(line_script(name, "#!%s\n", paths[k - 1]));
	}
	CHECK_CMP(run_script(paths[1], got, sizeof(got)), ==, 0);
	snprintf(want, sizeof(want), "exe=%s\ncomm=s1\nexecfn=%s\nargc=6\n%s\n-x\n%s\n%s\na", self, paths[1], self,
		 paths[0], paths[1]);
	expect(got, "a script as interpreter", want);
	/* Five scripts and the program: six loads, Linux's most. */
	CHECK_CMP(run_script(paths[4], got, sizeof(got)), ==, 0);
	CHECK_CMP(run_script(paths[5], got, sizeof(got)), ==, ELOOP);
	CHECK_CMP(run_script(paths[6], got, sizeof(got)), ==, ELOOP);
	for (int k = 0; k <= 6; k++)
		free((void *)paths[k]);
}

static void through_descriptors(void)
{
	char got[4096], want[600];
	line_script("viafd", "#!%s\n", self);
	char *const argv[] = { "ignored", "z", NULL };
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0);
	CHECK_CMP(run(d, "viafd", 0, argv, got, sizeof(got)), ==, 0);
	snprintf(want, sizeof(want), "%s\n/dev/fd/%d/viafd\nz", self, d);
	expect(got, "execveat of a name in a directory descriptor", want);
	int f = openat(d, "viafd", O_RDONLY);
	CHECK(f >= 0);
	CHECK_CMP(run(f, "", AT_EMPTY_PATH, argv, got, sizeof(got)), ==, 0);
	snprintf(want, sizeof(want), "%s\n/dev/fd/%d\nz", self, f);
	expect(got, "execveat of the script's descriptor", want);
	/* Close-on-exec: the interpreter could not open the name. */
	int dc = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fc = openat(d, "viafd", O_RDONLY | O_CLOEXEC);
	CHECK(dc >= 0 && fc >= 0);
	CHECK_CMP(run(dc, "viafd", 0, argv, got, sizeof(got)), ==, ENOENT);
	CHECK_CMP(run(fc, "", AT_EMPTY_PATH, argv, got, sizeof(got)), ==, ENOENT);
	close(d);
	close(f);
	close(dc);
	close(fc);
}

static void limits(void)
{
	char got[8192];
	static char *argv[1100];
	argv[0] = "many";
	for (int i = 1; i < 1001; i++)
		argv[i] = "arg";
	argv[1001] = NULL;
	const char *s = line_script("limits", "#!%s\n", self);
	CHECK_CMP(run(AT_FDCWD, s, 0, argv, got, sizeof(got)), ==, 0);
	expect(got, "a thousand arguments", "argc=1002");

	/* One string: MAX_ARG_STRLEN bytes with its NUL, and one more. */
	char *big = malloc(MAX_ARG_STRLEN + 1);
	memset(big, 'y', MAX_ARG_STRLEN);
	big[MAX_ARG_STRLEN - 1] = 0;
	char *one[] = { "one", big, NULL };
	CHECK_CMP(run(AT_FDCWD, s, 0, one, got, sizeof(got)), ==, 0);
	big[MAX_ARG_STRLEN - 1] = 'y';
	big[MAX_ARG_STRLEN] = 0;
	CHECK_CMP(run(AT_FDCWD, s, 0, one, got, sizeof(got)), ==, E2BIG);

	/* The whole: a quarter of RLIMIT_STACK (with the default 8 MiB, 2 MiB). */
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_STACK, &rl) == 0);
	if (rl.rlim_cur != 8 * MiB) {
		check_skip("RLIMIT_STACK is %llu, not 8 MiB: the total's limit not checked",
			   (unsigned long long)rl.rlim_cur);
	} else {
		big[MAX_ARG_STRLEN - 1] = 0;
		static char *many[40];
		many[0] = "many";
		for (int i = 1; i < 40; i++)
			many[i] = NULL;
		for (int i = 1; i <= 12; i++) /* 1.5 MiB */
			many[i] = big;
		CHECK_CMP(run(AT_FDCWD, s, 0, many, got, sizeof(got)), ==, 0);
		for (int i = 13; i <= 20; i++) /* 2.5 MiB */
			many[i] = big;
		CHECK_CMP(run(AT_FDCWD, s, 0, many, got, sizeof(got)), ==, E2BIG);
	}
	free(big);
}

int main(int argc, char **argv)
{
	if (getenv("EXEC_SCRIPT_OUT"))
		return report(argc, argv);
	test_begin("exec_script");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	CHECK(n > 0 && self[0] == '/');
	snprintf(dir, sizeof(dir), "/tmp/exec_script.XXXXXX");
	if (!mkdtemp(dir))
		test_skip("no writable /tmp: %s", strerror(errno));
	snprintf(out, sizeof(out), "%s/out", dir);
	basic_lines();
	refusals();
	nesting();
	through_descriptors();
	limits();
	/* Remove what was made. */
	static const char *const names[] = { "plain", "spaced", "noeol", "long", "empty", "blank", "missing", "text",
					     "longname", "dirinterp", "s0", "s1", "s2", "s3", "s4", "s5", "s6",
					     "viafd", "limits", "out" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(AT_FDCWD, path_in(dir, names[i]), 0);
	CHECK(rmdir(dir) == 0);
	return test_end();
}
