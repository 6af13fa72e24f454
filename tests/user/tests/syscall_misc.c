/* The small system calls: getpid/gettid, clock_gettime (monotonic, bad
 * clock ids), nanosleep (sleeps at least as long as asked; bad requests),
 * sched_yield, uname, lseek/pread on a /proc file, close/open errors, and
 * a system call number nobody implements (ENOSYS). */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static void ids(void)
{
	pid_t pid = getpid();
	CHECK_CMP(pid, >, 0);
	CHECK_CMP(syscall(SYS_getpid), ==, pid);
	CHECK_CMP(gettid(), ==, pid); /* one thread: its id is the process's */
}

static void clocks(void)
{
	struct timespec a, b;
	CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
	CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000L);
	bool monotonic = true;
	long long prev = now_ns();
	for (int i = 0; i < 1000; i++) {
		long long t = now_ns();
		monotonic &= t >= prev;
		prev = t;
	}
	CHECKF(monotonic, "1000 CLOCK_MONOTONIC readings never go back");
	CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
	CHECK(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
	CHECK_ERRNO(clock_gettime(1000, &a), EINVAL);
	CHECK_ERRNO(clock_gettime(-100, &a), EINVAL);
}

static void sleeping(void)
{
	struct timespec req = { 0, 10 * 1000 * 1000 };
	long long t0 = now_ns();
	CHECK(nanosleep(&req, NULL) == 0);
	long long slept = now_ns() - t0;
	note("nanosleep(10 ms) took %lld us", slept / 1000);
	CHECK_CMP(slept, >=, 10 * 1000 * 1000);
	struct timespec zero = { 0, 0 };
	CHECK(nanosleep(&zero, NULL) == 0);
	struct timespec bad = { 0, 1000000000L };
	CHECK_ERRNO(nanosleep(&bad, NULL), EINVAL);
	struct timespec neg = { -1, 0 };
	CHECK_ERRNO(nanosleep(&neg, NULL), EINVAL);
	struct timespec negns = { 0, -1 };
	CHECK_ERRNO(nanosleep(&negns, NULL), EINVAL);
}

static void misc(void)
{
	CHECK(sched_yield() == 0);
	CHECK_ERRNO(syscall(0x3ff), ENOSYS);
	CHECK_ERRNO(syscall(100000), ENOSYS);
	CHECK_ERRNO(syscall(-1L), ENOSYS);

	struct utsname u;
	memset(&u, 0, sizeof(u));
	CHECK(uname(&u) == 0);
	note("uname: sysname '%s' release '%s' machine '%s'", u.sysname, u.release, u.machine);
	CHECK(u.sysname[0] != 0 && !strcmp(u.machine, "x86_64"));

	static const char msg[] = "syscall_misc: write(2) returns its count\n";
	fflush(stdout);
	CHECK_CMP(write(1, msg, sizeof(msg) - 1), ==, (long)sizeof(msg) - 1);
	CHECK_CMP(write(1, msg, 0), ==, 0);
}

static void files(void)
{
	char a[64], b[64];
	int fd = open("/proc/meminfo", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_CMP(read(fd, a, sizeof(a)), ==, (long)sizeof(a));
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, (long)sizeof(a));
	CHECK_CMP(lseek(fd, 0, SEEK_SET), ==, 0);
	CHECK_CMP(read(fd, b, sizeof(b)), ==, (long)sizeof(b));
	CHECK(!memcmp(a, b, 9)); /* "MemTotal:"; the numbers may move meanwhile */
	CHECK_CMP(pread(fd, b, 8, 3), ==, 8);
	CHECK(!memcmp(b, "Total:", 6));
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, (long)sizeof(a)); /* pread leaves the offset */
	CHECK_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	CHECK(close(fd) == 0);
	CHECK_ERRNO(close(fd), EBADF);
	CHECK_ERRNO(close(1000), EBADF);
	CHECK_ERRNO(read(fd, a, 1), EBADF);
	CHECK_ERRNO(open("/proc/no-such-file", O_RDONLY), ENOENT);
	CHECK_ERRNO(open("/no/such/file", O_RDONLY), ENOENT);
	int fd2 = openat(AT_FDCWD, "/proc/self/status", O_RDONLY);
	CHECK(fd2 >= 0);
	CHECK(close(fd2) == 0);
}

int main(void)
{
	test_begin("syscall_misc");
	ids();
	clocks();
	sleeping();
	misc();
	files();
	return test_end();
}
