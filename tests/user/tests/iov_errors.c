/* writev(2)/readv(2) as Linux checks them: EBADF (not open, or not open
 * for that direction), EINVAL (a negative count, more than UIO_MAXIOV
 * vectors, a negative length), EFAULT (the vector array unreadable, a
 * buffer beyond the user address space); a count of 0 writes nothing; a read spreads over the
 * vectors in order. */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_readv
#define SYS_readv 19
#endif
#ifndef SYS_writev
#define SYS_writev 20
#endif
#define UIO_MAXIOV 1024

struct kiovec {
	void *iov_base;
	size_t iov_len;
};

static void writes(void)
{
	static const char a[] = "iov_errors: one line ", b[] = "from two vectors\n";
	struct kiovec v[2] = { { (void *)a, sizeof(a) - 1 }, { (void *)b, sizeof(b) - 1 } };
	CHECK_CMP(syscall(SYS_writev, 1, v, 2), ==, (long)(sizeof(a) + sizeof(b) - 2));
	CHECK_CMP(syscall(SYS_writev, 1, v, 0), ==, 0);
	struct kiovec empty[2] = { { (void *)a, 0 }, { NULL, 0 } };
	CHECK_CMP(syscall(SYS_writev, 1, empty, 2), ==, 0);
	CHECK_ERRNO(syscall(SYS_writev, 999, v, 2), EBADF);
	CHECK_ERRNO(syscall(SYS_writev, 1, v, -1), EINVAL);
	CHECK_ERRNO(syscall(SYS_writev, 1, v, UIO_MAXIOV + 1), EINVAL);
	CHECK_ERRNO(syscall(SYS_writev, 1, (void *)8, 2), EFAULT);
	/* A length past the user address space fails access_ok (EFAULT); a
	 * negative one (as ssize_t) is EINVAL (iovec_from_user). */
	struct kiovec huge[2] = { { (void *)a, (size_t)1 << 62 }, { (void *)b, (size_t)1 << 62 } };
	CHECK_ERRNO(syscall(SYS_writev, 1, huge, 2), EFAULT);
	struct kiovec neg[1] = { { (void *)a, (size_t)-1 } };
	CHECK_ERRNO(syscall(SYS_writev, 1, neg, 1), EINVAL);
}

static void reads(void)
{
	int fd = open("/proc/self/status", O_RDONLY);
	CHECK_CMP(fd, >=, 0);
	if (fd < 0)
		return;
	char x[5], y[200];
	memset(x, 0, sizeof(x));
	memset(y, 0, sizeof(y));
	struct kiovec v[2] = { { x, sizeof(x) }, { y, sizeof(y) - 1 } };
	long n = syscall(SYS_readv, fd, v, 2);
	CHECK_CMP(n, >, (long)sizeof(x));
	CHECKF(!memcmp(x, "Name:", 5), "the first vector has the file's start");
	CHECK(y[0] != 0); /* the rest went on into the second */
	CHECK_ERRNO(syscall(SYS_readv, 999, v, 2), EBADF);
	CHECK_ERRNO(syscall(SYS_readv, fd, v, -1), EINVAL);
	CHECK_ERRNO(syscall(SYS_readv, fd, v, UIO_MAXIOV + 1), EINVAL);
	CHECK_ERRNO(syscall(SYS_readv, fd, (void *)8, 2), EFAULT);
	/* The file is not open for writing: EBADF, even for an empty vector.
	 * (Which comes first, this or a bad vector, changed between Linux 6.1
	 * and today's, so this program, run on both, does not ask.) */
	CHECK_ERRNO(syscall(SYS_writev, fd, v, 2), EBADF);
	CHECK_ERRNO(syscall(SYS_writev, fd, v, 0), EBADF);
	close(fd);
	CHECK_ERRNO(syscall(SYS_readv, fd, v, 2), EBADF);
}

int main(void)
{
	test_begin("iov_errors");
	writes();
	reads();
	return test_end();
}
