/* readlink(2)/readlinkat(2) of /proc/self/exe: the program's path (on
 * mmlab "/bin/<name>"; on Linux wherever the file is, ending in "/<name>"), no
 * NUL added, cut at bufsiz without error; /proc/self is a link to the pid.
 * Linux's errors in its order: EINVAL for bufsiz <= 0 (before the path is
 * read), EFAULT, ENOENT for a missing file and for "", EINVAL for a file
 * that is not a link, EBADF for a bad dirfd with a relative path. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_readlink
#define SYS_readlink 89
#endif
#ifndef SYS_readlinkat
#define SYS_readlinkat 267
#endif
#define AT_FDCWD_ (-100)

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void exe(const char *argv0)
{
	char buf[256];
	memset(buf, 'x', sizeof(buf));
	long n = syscall(SYS_readlink, "/proc/self/exe", buf, sizeof(buf));
	CHECK_CMP(n, >, 0);
	if (n <= 0 || n >= (long)sizeof(buf))
		return;
	CHECKF(buf[n] == 'x', "no NUL written after the %ld bytes", n);
	buf[n] = 0;
	note("/proc/self/exe -> %s", buf);
	CHECK(buf[0] == '/');
	/* (make user-elfs-on-host runs the mmlab build on Linux as <name>.elf) */
	CHECKF(!strcmp(base_name(buf), "readlink_self") || !strcmp(base_name(buf), "readlink_self.elf"),
	       "the link names this program: %s", buf);
	(void)argv0;

	char buf2[256];
	long n2 = syscall(SYS_readlinkat, AT_FDCWD_, "/proc/self/exe", buf2, sizeof(buf2));
	CHECK_CMP(n2, ==, n);
	CHECK(n2 == n && !memcmp(buf, buf2, (size_t)n));
	char own[64];
	snprintf(own, sizeof(own), "/proc/%d/exe", getpid());
	CHECK_CMP(syscall(SYS_readlink, own, buf2, sizeof(buf2)), ==, n);
	int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
	CHECK_CMP(dir, >=, 0);
	CHECK_CMP(syscall(SYS_readlinkat, dir, "exe", buf2, sizeof(buf2)), ==, n);
	close(dir);

	/* Cut short at bufsiz: no error, no NUL, nothing past it written. */
	char small[8];
	memset(small, 'x', sizeof(small));
	CHECK_CMP(syscall(SYS_readlink, "/proc/self/exe", small, 3), ==, 3);
	CHECK(!memcmp(small, buf, 3));
	CHECK(small[3] == 'x');
	CHECK_CMP(syscall(SYS_readlink, "/proc/self/exe", small, 1), ==, 1);
	CHECK(small[0] == '/');

	/* /proc/self is a link to the pid. */
	char pid[32], want[32];
	snprintf(want, sizeof(want), "%d", getpid());
	n = syscall(SYS_readlink, "/proc/self", pid, sizeof(pid) - 1);
	CHECK_CMP(n, ==, (long)strlen(want));
	if (n > 0) {
		pid[n] = 0;
		CHECKF(!strcmp(pid, want), "/proc/self -> %s", pid);
	}
}

static void errors(void)
{
	char buf[64];
	CHECK_ERRNO(syscall(SYS_readlink, "/proc/self/exe", buf, 0), EINVAL);
	CHECK_ERRNO(syscall(SYS_readlink, "/proc/self/exe", buf, -1), EINVAL);
	CHECK_ERRNO(syscall(SYS_readlink, (void *)8, buf, 0), EINVAL); /* bufsiz first */
	CHECK_ERRNO(syscall(SYS_readlink, (void *)8, buf, sizeof(buf)), EFAULT);
	CHECK_ERRNO(syscall(SYS_readlink, "/proc/self/exe", (void *)8, sizeof(buf)), EFAULT);
	CHECK_ERRNO(syscall(SYS_readlink, "/no/such/link", buf, sizeof(buf)), ENOENT);
	CHECK_ERRNO(syscall(SYS_readlink, "/proc/self/no_such_entry", buf, sizeof(buf)), ENOENT);
	CHECK_ERRNO(syscall(SYS_readlink, "", buf, sizeof(buf)), ENOENT);
	CHECK_ERRNO(syscall(SYS_readlink, "/proc/self/status", buf, sizeof(buf)), EINVAL);
	CHECK_ERRNO(syscall(SYS_readlink, "/proc", buf, sizeof(buf)), EINVAL);
	CHECK_ERRNO(syscall(SYS_readlinkat, 999, "exe", buf, sizeof(buf)), EBADF);
	CHECK_ERRNO(syscall(SYS_readlinkat, AT_FDCWD_, "/proc/self/exe", buf, 0), EINVAL);
}

int main(int argc, char **argv)
{
	(void)argc;
	test_begin("readlink_self");
	exe(argv[0]);
	errors();
	return test_end();
}
