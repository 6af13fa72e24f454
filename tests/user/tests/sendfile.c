/* sendfile(2) and copy_file_range(2), held beside Linux's: bytes copied
 * from a tmpfs file (memfd_create's, tmpfs on both kernels) to another,
 * to /dev/null, with and without an offset pointer (which moves instead
 * of the input's position), cut at the end of the input; and the errnos
 * in Linux's order: EBADF for a descriptor that is not open or not open
 * for that direction, EINVAL for an input that is not a regular file (a
 * directory, /dev/null) or cannot splice (/proc/self/status: /proc/meminfo
 * can), an output opened O_APPEND, a negative offset;
 * ESPIPE never arises from these files; EFAULT for an offset pointer that
 * cannot be read (nothing copied) or written back (the bytes stay
 * copied). copy_file_range: same-file ranges that overlap are EINVAL,
 * flags EINVAL, O_APPEND EBADF, a directory EISDIR, a device EINVAL. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_copy_file_range
#define SYS_copy_file_range 326
#endif

#define SIZE (3 * 4096 + 100)

static char pattern[SIZE];

static long sys_sendfile(int out, int in, long *off, size_t count)
{
	return syscall(SYS_sendfile, out, in, off, count);
}

static long sys_copy(int in, long *off_in, int out, long *off_out, size_t len, unsigned flags)
{
	return syscall(SYS_copy_file_range, in, off_in, out, off_out, len, flags);
}

static int memfd(const char *name)
{
	return (int)syscall(SYS_memfd_create, name, 0u);
}

/* The first n bytes of fd (read with pread) equal want. */
static bool contents_are(int fd, const char *want, size_t n)
{
	static char buf[SIZE + 4096];
	return pread(fd, buf, n, 0) == (long)n && !memcmp(buf, want, n);
}

static long size_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? -1 : (long)st.st_size;
}

static void copies(int in)
{
	/* No offset: the input's position moves, and the output's. */
	int out = memfd("out");
	CHECK(out >= 0);
	CHECK_CMP(lseek(in, 0, SEEK_SET), ==, 0);
	CHECK_CMP(sys_sendfile(out, in, NULL, 5000), ==, 5000);
	CHECK_CMP(lseek(in, 0, SEEK_CUR), ==, 5000);
	CHECK_CMP(lseek(out, 0, SEEK_CUR), ==, 5000);
	CHECK_CMP(sys_sendfile(out, in, NULL, 1 << 20), ==, SIZE - 5000); /* cut at the end */
	CHECK_CMP(sys_sendfile(out, in, NULL, 1 << 20), ==, 0);          /* at the end */
	CHECK_CMP(size_of(out), ==, SIZE);
	CHECK(contents_are(out, pattern, SIZE));
	CHECK_CMP(sys_sendfile(out, in, NULL, 0), ==, 0);
	close(out);

	/* An offset: it moves, the input's position stays. */
	out = memfd("out2");
	CHECK_CMP(lseek(in, 7, SEEK_SET), ==, 7);
	long off = 100;
	CHECK_CMP(sys_sendfile(out, in, &off, 1000), ==, 1000);
	CHECK_CMP(off, ==, 1100);
	CHECK_CMP(lseek(in, 0, SEEK_CUR), ==, 7);
	CHECK(contents_are(out, pattern + 100, 1000));
	off = SIZE + 5; /* past the end: nothing */
	CHECK_CMP(sys_sendfile(out, in, &off, 10), ==, 0);
	CHECK_CMP(off, ==, SIZE + 5);
	close(out);

	/* A file of /proc itself splices (Linux's seq files of
	 * proc_create_single); a /proc/<pid> file does not (seq_read only:
	 * EINVAL). */
	out = memfd("proc");
	int meminfo = open("/proc/meminfo", O_RDONLY), status = open("/proc/self/status", O_RDONLY);
	CHECK(meminfo >= 0 && status >= 0);
	CHECK_CMP(sys_sendfile(out, meminfo, NULL, 4096), >, 9);
	CHECK(contents_are(out, "MemTotal:", 9));
	CHECK_ERRNO(sys_sendfile(out, status, NULL, 4096), EINVAL);
	close(meminfo);
	close(status);
	close(out);

	/* /dev/null takes everything. */
	int null = open("/dev/null", O_WRONLY);
	CHECK(null >= 0);
	off = 10;
	CHECK_CMP(sys_sendfile(null, in, &off, 1 << 30), ==, SIZE - 10);
	CHECK_CMP(off, ==, SIZE);
	close(null);
}

static void errnos(int in, const char *dir)
{
	int out = memfd("err");
	int rdonly = open("/dev/null", O_RDONLY), wronly = open("/dev/null", O_WRONLY);
	CHECK(out >= 0 && rdonly >= 0 && wronly >= 0);
	long off = 0;
	CHECK_ERRNO(sys_sendfile(out, -1, NULL, 10), EBADF);
	CHECK_ERRNO(sys_sendfile(-1, in, NULL, 10), EBADF);
	CHECK_ERRNO(sys_sendfile(out, wronly, NULL, 10), EBADF); /* input not open for reading */
	CHECK_ERRNO(sys_sendfile(rdonly, in, NULL, 10), EBADF);  /* output not open for writing */
	CHECK_ERRNO(sys_sendfile(out, rdonly, NULL, 10), EINVAL); /* a character device */
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0);
	CHECK_ERRNO(sys_sendfile(out, d, NULL, 10), EINVAL); /* a directory */
	off = -1;
	CHECK_ERRNO(sys_sendfile(out, in, &off, 10), EINVAL);
	CHECK_ERRNO(sys_sendfile(out, in, (long *)8, 10), EFAULT);
	CHECK_CMP(size_of(out), ==, 0);

	/* An output opened O_APPEND: EINVAL (do_splice_direct). */
	int app = open(path_in(dir, "append"), O_CREAT | O_WRONLY | O_APPEND, 0600);
	CHECK(app >= 0);
	off = 0;
	CHECK_ERRNO(sys_sendfile(app, in, &off, 10), EINVAL);
	CHECK_CMP(size_of(app), ==, 0);

	/* The offset written back to a read-only page: EFAULT, but the
	 * bytes were copied and the output's position moved. */
	long *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED);
	*ro = 50;
	CHECK(mprotect(ro, 4096, PROT_READ) == 0);
	CHECK_ERRNO(sys_sendfile(out, in, ro, 200), EFAULT);
	CHECK_CMP(*ro, ==, 50);
	CHECK_CMP(size_of(out), ==, 200);
	CHECK_CMP(lseek(out, 0, SEEK_CUR), ==, 200);
	CHECK(contents_are(out, pattern + 50, 200));
	munmap(ro, 4096);

	/* copy_file_range's. */
	long oin = 0, oout = 0;
	CHECK_ERRNO(sys_copy(-1, NULL, out, NULL, 10, 0), EBADF);
	CHECK_ERRNO(sys_copy(in, NULL, -1, NULL, 10, 0), EBADF);
	CHECK_ERRNO(sys_copy(in, (long *)8, out, NULL, 10, 0), EFAULT);
	CHECK_ERRNO(sys_copy(in, &oin, out, &oout, 10, 1), EINVAL);
	CHECK_ERRNO(sys_copy(d, NULL, out, NULL, 10, 0), EISDIR);
	CHECK_ERRNO(sys_copy(rdonly, NULL, out, NULL, 10, 0), EINVAL);
	CHECK_ERRNO(sys_copy(in, &oin, app, NULL, 10, 0), EBADF); /* O_APPEND */
	CHECK_ERRNO(sys_copy(in, &oin, rdonly, NULL, 10, 0), EINVAL); /* not regular before not writable */
	close(app);
	CHECK(unlink(path_in(dir, "append")) == 0);
	close(d);
	close(rdonly);
	close(wronly);
	close(out);
}

static void copy_range(int in)
{
	int out = memfd("copy");
	CHECK(out >= 0);
	long oin = 4000, oout = 10;
	CHECK_CMP(sys_copy(in, &oin, out, &oout, 300, 0), ==, 300);
	CHECK_CMP(oin, ==, 4300);
	CHECK_CMP(oout, ==, 310);
	CHECK_CMP(size_of(out), ==, 310);
	static char want[310];
	memcpy(want + 10, pattern + 4000, 300);
	CHECK(contents_are(out, want, 310));
	/* The files' positions when no pointer is given. */
	CHECK_CMP(lseek(in, SIZE - 50, SEEK_SET), ==, SIZE - 50);
	CHECK_CMP(lseek(out, 0, SEEK_SET), ==, 0);
	CHECK_CMP(sys_copy(in, NULL, out, NULL, 1000, 0), ==, 50); /* cut at the input's end */
	CHECK_CMP(lseek(in, 0, SEEK_CUR), ==, SIZE);
	CHECK_CMP(lseek(out, 0, SEEK_CUR), ==, 50);
	CHECK_CMP(sys_copy(in, NULL, out, NULL, 1000, 0), ==, 0);
	/* Within one file: overlapping ranges are EINVAL, others copy. */
	int f = memfd("same");
	CHECK_CMP(write(f, pattern, 8192), ==, 8192);
	oin = 0, oout = 100;
	CHECK_ERRNO(sys_copy(f, &oin, f, &oout, 200, 0), EINVAL);
	oin = 0, oout = 4096;
	CHECK_CMP(sys_copy(f, &oin, f, &oout, 4096, 0), ==, 4096);
	CHECK(contents_are(f, pattern, 4096));
	static char twice[8192];
	memcpy(twice, pattern, 4096);
	memcpy(twice + 4096, pattern, 4096);
	CHECK(contents_are(f, twice, 8192));
	close(f);
	close(out);
}

int main(void)
{
	test_begin("sendfile");
	for (int i = 0; i < SIZE; i++)
		pattern[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	static char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/sendfile.%d", (int)getpid());
	CHECK(mkdir(dir, 0700) == 0);
	int in = memfd("in");
	CHECK(in >= 0);
	CHECK_CMP(write(in, pattern, SIZE), ==, SIZE);
	copies(in);
	errnos(in, dir);
	copy_range(in);
	close(in);
	CHECK(rmdir(dir) == 0);
	return test_end();
}
