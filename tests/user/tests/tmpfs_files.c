/* Files on the root file system (tmpfs on mmlab; on Linux whatever /tmp
 * is): made, written, read back, positioned and sparse, truncated, linked,
 * renamed, listed with getdents64 and removed, in a directory of its own
 * under /tmp. What is checked is what every Linux file system shows
 * (contents, sizes, link counts, names, holes read as zeros), not tmpfs's
 * own figures (a directory's st_size, st_blocks). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif
#define RENAME_NOREPLACE_ 1
#define RENAME_EXCHANGE_ 2

static char dir[64];

#define at(name) path_in(dir, name)

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* The names in a directory, sorted, "." and ".." left out, joined by ','. */
static int list(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	static char names[1024][64];
	int n = 0, dots = 0;
	char buf[512]; /* small: a listing takes several calls */
	long got;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				dots++;
			else if (n < 1024)
				snprintf(names[n++], sizeof(names[0]), "%.60s%s", d->d_name, d->d_type == DT_DIR ? "/" : "");
			off += d->d_reclen;
		}
	}
	close(fd);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[j], names[i]) < 0) {
				char t[sizeof(names[0])];
				memcpy(t, names[i], sizeof(t));
				memcpy(names[i], names[j], sizeof(t));
				memcpy(names[j], t, sizeof(t));
			}
	out[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? "," : "", names[i]);
	return got < 0 ? -1 : dots;
}

static void write_read(void)
{
	int fd = open(at("a"), O_CREAT | O_EXCL | O_RDWR, 0644);
	CHECK(fd >= 0);
	CHECK_CMP(write(fd, "hello, world\n", 13), ==, 13);
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, 13);
	char buf[64] = { 0 };
	CHECK_CMP(pread(fd, buf, sizeof(buf), 7), ==, 6);
	CHECK(!memcmp(buf, "world\n", 6));
	CHECK_CMP(lseek(fd, 0, SEEK_SET), ==, 0);
	CHECK_CMP(read(fd, buf, 5), ==, 5);
	CHECK(!memcmp(buf, "hello", 5));
	CHECK_CMP(pwrite(fd, "J", 1, 0), ==, 1);
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, 5); /* pwrite leaves the offset */
	struct iovec iov[2] = { { "ab", 2 }, { "cd", 2 } };
	CHECK_CMP(lseek(fd, 0, SEEK_END), ==, 13);
	CHECK_CMP(writev(fd, iov, 2), ==, 4);
	CHECK_CMP(file_size(at("a")), ==, 17);
	CHECK_CMP(pread(fd, buf, 17, 0), ==, 17);
	CHECK(!memcmp(buf, "Jello, world\nabcd", 17));
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	CHECK(S_ISREG(st.st_mode) && (st.st_mode & 07777) == (0644 & ~022));
	CHECK_CMP(st.st_nlink, ==, 1);
	CHECK(close(fd) == 0);
	/* O_CREAT of an existing file opens it; O_EXCL refuses; O_TRUNC empties. */
	CHECK_ERRNO(open(at("a"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
	fd = open(at("a"), O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	CHECK_CMP(write(fd, "!", 1), ==, 1);
	CHECK_CMP(pwrite(fd, "?", 1, 0), ==, 1); /* O_APPEND: appends anyway (Linux) */
	CHECK_CMP(file_size(at("a")), ==, 19);
	close(fd);
	fd = open(at("a"), O_WRONLY | O_TRUNC);
	CHECK_CMP(file_size(at("a")), ==, 0);
	close(fd);
	/* A read of a file opened write-only, a write of one read-only. */
	fd = open(at("a"), O_RDONLY);
	CHECK_ERRNO(write(fd, "x", 1), EBADF);
	close(fd);
	/* A buffer that is not the caller's memory: nothing copied. */
	fd = open(at("a"), O_RDWR);
	CHECK_ERRNO(write(fd, (void *)16, 1), EFAULT);
	CHECK_CMP(write(fd, "z", 1), ==, 1);
	CHECK_CMP(lseek(fd, 0, SEEK_SET), ==, 0);
	CHECK_ERRNO(read(fd, (void *)16, 1), EFAULT);
	close(fd);
}

static void sparse_and_truncate(void)
{
	int fd = open(at("sparse"), O_CREAT | O_RDWR, 0600);
	CHECK(fd >= 0);
	CHECK_CMP(pwrite(fd, "end", 3, 1 << 20), ==, 3);
	CHECK_CMP(file_size(at("sparse")), ==, (1 << 20) + 3);
	static char buf[8192];
	memset(buf, 'x', sizeof(buf));
	CHECK_CMP(pread(fd, buf, sizeof(buf), 4096), ==, (long)sizeof(buf));
	int zeros = 1;
	for (size_t i = 0; i < sizeof(buf); i++)
		zeros &= buf[i] == 0;
	CHECK(zeros); /* a hole reads as zeros */
	CHECK_CMP(lseek(fd, 0, SEEK_DATA), ==, 1 << 20);
	CHECK_CMP(lseek(fd, 0, SEEK_HOLE), ==, 0);
	CHECK_CMP(lseek(fd, 1 << 20, SEEK_HOLE), ==, (1 << 20) + 3);
	CHECK_ERRNO(lseek(fd, (1 << 20) + 3, SEEK_DATA), ENXIO);
	/* Shrinking drops the end; growing again shows zeros there. */
	CHECK(ftruncate(fd, (1 << 20) + 1) == 0);
	CHECK(ftruncate(fd, (1 << 20) + 3) == 0);
	char tail[3];
	CHECK_CMP(pread(fd, tail, 3, 1 << 20), ==, 3);
	CHECK(tail[0] == 'e' && tail[1] == 0 && tail[2] == 0);
	CHECK(truncate(at("sparse"), 10) == 0);
	CHECK_CMP(file_size(at("sparse")), ==, 10);
	CHECK_CMP(lseek(fd, 0, SEEK_SET), ==, 0); /* SEEK_DATA and SEEK_HOLE moved it */
	CHECK_CMP(read(fd, buf, 10), ==, 10);
	CHECK_CMP(read(fd, buf, 10), ==, 0); /* the end */
	CHECK_ERRNO(ftruncate(fd, -1), EINVAL);
	/* fallocate: a range made (the size grows unless KEEP_SIZE), a hole
	 * punched (zeros where the data was, the size kept). */
	CHECK(fallocate(fd, 0, 0, 3 * 4096) == 0);
	CHECK_CMP(file_size(at("sparse")), ==, 3 * 4096);
	CHECK(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 5 * 4096) == 0);
	CHECK_CMP(file_size(at("sparse")), ==, 3 * 4096);
	CHECK_CMP(pwrite(fd, "abcdefgh", 8, 4094), ==, 8);
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 2) == 0);
	char got[8];
	CHECK_CMP(pread(fd, got, 8, 4094), ==, 8);
	CHECK(!memcmp(got, "ab\0\0efgh", 8));
	CHECK_ERRNO(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 1), EOPNOTSUPP);
	CHECK_ERRNO(fallocate(fd, 0, -1, 1), EINVAL);
	CHECK_ERRNO(fallocate(fd, 0, 0, 0), EINVAL);
	CHECK(ftruncate(fd, 10) == 0); /* as names() expects it */
	CHECK_ERRNO(truncate(dir, 0), EISDIR);
	close(fd);
	fd = open(at("sparse"), O_RDONLY);
	CHECK_ERRNO(ftruncate(fd, 0), EINVAL); /* not open for writing */
	close(fd);
}

static void names(void)
{
	char got[512];
	CHECK(mkdir(at("sub"), 0755) == 0);
	CHECK(link(at("sparse"), at("sub/hard")) == 0);
	struct stat st;
	CHECK(stat(at("sparse"), &st) == 0);
	CHECK_CMP(st.st_nlink, ==, 2);
	CHECK(symlink("../sparse", at("sub/soft")) == 0);
	char target[64] = { 0 };
	CHECK_CMP(readlink(at("sub/soft"), target, sizeof(target)), ==, 9);
	CHECK(!strcmp(target, "../sparse"));
	CHECK(lstat(at("sub/soft"), &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 9);
	CHECK(stat(at("sub/soft"), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 10);
	CHECK_ERRNO(open(at("sub/soft"), O_RDONLY | O_NOFOLLOW), ELOOP);
	CHECK(list(at("sub"), got, sizeof(got)) == 2);
	CHECKF(!strcmp(got, "hard,soft"), "sub lists %s", got);
	/* rename: over a name, refused with RENAME_NOREPLACE, swapped. */
	int fd = open(at("b"), O_CREAT | O_WRONLY, 0644);
	CHECK_CMP(write(fd, "bb", 2), ==, 2);
	close(fd);
	CHECK(rename(at("b"), at("c")) == 0);
	CHECK_ERRNO(stat(at("b"), &st), ENOENT);
	CHECK_ERRNO(syscall(SYS_renameat2, AT_FDCWD, at("c"), AT_FDCWD, at("sparse"), RENAME_NOREPLACE_), EEXIST);
	CHECK(syscall(SYS_renameat2, AT_FDCWD, at("c"), AT_FDCWD, at("sparse"), RENAME_EXCHANGE_) == 0);
	CHECK_CMP(file_size(at("sparse")), ==, 2);
	CHECK_CMP(file_size(at("c")), ==, 10);
	CHECK_CMP(file_size(at("sub/hard")), ==, 10); /* the link follows the inode */
	CHECK(rename(at("c"), at("sub/moved")) == 0);
	CHECK(list(dir, got, sizeof(got)) == 2);
	CHECKF(!strcmp(got, "a,sparse,sub/"), "the directory lists %s", got);
	CHECK(list(at("sub"), got, sizeof(got)) == 2);
	CHECKF(!strcmp(got, "hard,moved,soft"), "sub lists %s", got);
	CHECK_ERRNO(rmdir(at("sub")), ENOTEMPTY);
	CHECK_ERRNO(rename(dir, at("sub/x")), EINVAL); /* into itself */
	/* A file unlinked while open is still read through the descriptor. */
	fd = open(at("sub/moved"), O_RDONLY);
	CHECK(unlink(at("sub/moved")) == 0 && unlink(at("sub/hard")) == 0);
	char buf[16];
	CHECK_CMP(read(fd, buf, sizeof(buf)), ==, 10);
	CHECK(fstat(fd, &st) == 0);
	CHECK_CMP(st.st_nlink, ==, 0);
	close(fd);
	CHECK(unlink(at("sub/soft")) == 0);
	CHECK(rmdir(at("sub")) == 0);
	CHECK(unlink(at("a")) == 0 && unlink(at("sparse")) == 0);
	CHECK(list(dir, got, sizeof(got)) == 2);
	CHECKF(!got[0], "the directory lists %s at the end", got);
}

/* /proc and /sys list their entries too. */
static void generated_dirs(void)
{
	static char got[65536];
	CHECK(list("/proc", got, sizeof(got)) == 2);
	CHECK(strstr(got, "meminfo") && strstr(got, "self"));
	CHECK(list("/sys/devices/system/node", got, sizeof(got)) == 2);
	CHECK(strstr(got, "node0/") != NULL);
}

int main(void)
{
	test_begin("tmpfs_files");
	snprintf(dir, sizeof(dir), "/tmp/tmpfs_files.%d", (int)getpid());
	CHECK(mkdir(dir, 0700) == 0);
	write_read();
	sparse_and_truncate();
	names();
	generated_dirs();
	CHECK(rmdir(dir) == 0);
	return test_end();
}
