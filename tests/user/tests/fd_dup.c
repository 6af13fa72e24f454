/* dup, dup2, dup3 and fcntl: a duplicate shares the open file (offset,
 * O_APPEND), not the close-on-exec flag; the lowest free descriptor,
 * F_DUPFD's minimum, and Linux's errnos. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

int main(void)
{
	/* The descriptor numbers below are this test's own: whatever its
	 * starter left open above stderr is closed first (a program may
	 * inherit descriptors, as Linux's exec keeps those without
	 * FD_CLOEXEC). */
	for (int i = 3; i < 1024; i++)
		close(i);
	test_begin("fd_dup");
	char path[64];
	snprintf(path, sizeof(path), "/tmp/fd_dup.%d", (int)getpid());
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK(unlink(path) == 0); /* the file lives on while it is open */
	CHECK_CMP(fcntl(fd, F_GETFD), ==, FD_CLOEXEC);
	int d = dup(fd);
	CHECK_CMP(d, ==, fd + 1);
	CHECK_CMP(fcntl(d, F_GETFD), ==, 0); /* the flag is the descriptor's */
	CHECK_CMP(write(fd, "abcdef", 6), ==, 6);
	CHECK_CMP(lseek(d, 0, SEEK_CUR), ==, 6); /* one offset */
	CHECK_CMP(lseek(d, 2, SEEK_SET), ==, 2);
	char c;
	CHECK_CMP(read(fd, &c, 1), ==, 1);
	CHECK(c == 'c');
	/* F_GETFL: the access mode (O_LARGEFILE is Linux's own on 64-bit). */
	CHECK_CMP(fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK), ==, O_RDWR);
	CHECK(fcntl(d, F_SETFL, O_APPEND | O_NONBLOCK | O_RDONLY) == 0);
	CHECK_CMP(fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK), ==, O_RDWR | O_APPEND | O_NONBLOCK);
	CHECK_CMP(write(fd, "g", 1), ==, 1);
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, 7); /* appended */
	CHECK(fcntl(fd, F_SETFL, 0) == 0);
	CHECK(fcntl(fd, F_SETFD, 0) == 0);
	CHECK_CMP(fcntl(fd, F_GETFD), ==, 0);
	CHECK(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0);
	/* dup2 and dup3. */
	CHECK_CMP(dup2(fd, 20), ==, 20);
	CHECK_CMP(fcntl(20, F_GETFD), ==, 0);
	CHECK_CMP(dup2(fd, fd), ==, fd);
	CHECK_ERRNO(dup2(30, 31), EBADF);
	CHECK_ERRNO(dup3(fd, fd, 0), EINVAL);
	CHECK_ERRNO(syscall(SYS_dup3, fd, 21, 0x1), EINVAL); /* the kernel's answer (musl may emulate) */
	CHECK_CMP(dup3(fd, 21, O_CLOEXEC), ==, 21);
	CHECK_CMP(fcntl(21, F_GETFD), ==, FD_CLOEXEC);
	CHECK_CMP(dup2(d, 21), ==, 21); /* replaces: the old 21 closed */
	CHECK_CMP(fcntl(21, F_GETFD), ==, 0);
	CHECK_CMP(fcntl(fd, F_DUPFD, 25), ==, 25);
	CHECK_CMP(fcntl(fd, F_DUPFD_CLOEXEC, 25), ==, 26);
	CHECK_CMP(fcntl(26, F_GETFD), ==, FD_CLOEXEC);
	CHECK_ERRNO(fcntl(fd, F_DUPFD, -1), EINVAL);
	CHECK_ERRNO(fcntl(40, F_GETFD), EBADF);
	CHECK_ERRNO(dup(40), EBADF);
	/* RLIMIT_NOFILE: no descriptor at or above it. */
	struct rlimit old, lim;
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	lim = old;
	lim.rlim_cur = 24;
	CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
	CHECK_ERRNO(dup2(fd, 24), EBADF);
	CHECK_ERRNO(fcntl(fd, F_DUPFD, 24), EINVAL);
	CHECK_CMP(dup2(fd, 22), ==, 22);
	CHECK_CMP(dup2(fd, 23), ==, 23);
	CHECK_ERRNO(fcntl(fd, F_DUPFD, 22), EMFILE); /* 22 and 23 taken, 24 is the limit */
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	close(22);
	close(23);
	close(d);
	close(fd);
	close(20);
	close(21);
	close(25);
	close(26);
	return test_end();
}
