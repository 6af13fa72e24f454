/* The path walk's and the namespace calls' errnos, in Linux's order: a
 * missing name, a file used as a directory, names of 255 and 256 bytes,
 * paths of 4095 and 4096, a symlink loop and the 40-link limit, "..", the
 * *at calls' dirfd and flags, and what each directory call refuses. In a
 * directory of its own under /tmp. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static char dir[64];

#define at(name) path_in(dir, name)

static void lookups(void)
{
	struct stat st;
	int fd = open(at("file"), O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK_ERRNO(stat(at("missing"), &st), ENOENT);
	CHECK_ERRNO(stat(at("missing/x"), &st), ENOENT);
	CHECK_ERRNO(stat(at("file/"), &st), ENOTDIR);
	CHECK_ERRNO(stat(at("file/x"), &st), ENOTDIR);
	CHECK_ERRNO(open(at("file/"), O_RDONLY), ENOTDIR);
	CHECK_ERRNO(open(at("file"), O_RDONLY | O_DIRECTORY), ENOTDIR);
	CHECK_ERRNO(open(dir, O_WRONLY), EISDIR);
	CHECK_ERRNO(open(at("new/"), O_CREAT | O_WRONLY, 0644), EISDIR);
	CHECK_ERRNO(stat("", &st), ENOENT);
	CHECK(stat(at("."), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat("/..", &st) == 0 && S_ISDIR(st.st_mode)); /* ".." at the root stays */
	struct stat root;
	CHECK(stat("/", &root) == 0);
	CHECK(stat("/../../..", &st) == 0 && st.st_ino == root.st_ino && st.st_dev == root.st_dev);
	/* Names: 255 bytes may be made, 256 are too long. */
	char name[300];
	memset(name, 'n', 255);
	name[255] = 0;
	fd = open(at(name), O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(unlink(at(name)) == 0);
	name[255] = 'n';
	name[256] = 0;
	CHECK_ERRNO(open(at(name), O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	CHECK_ERRNO(mkdir(at(name), 0755), ENAMETOOLONG);
	CHECK_ERRNO(stat(at(name), &st), ENAMETOOLONG);
	/* Paths: 4095 bytes and a NUL fit, 4096 do not. */
	static char path[PATH_MAX + 2];
	memset(path, '/', sizeof(path));
	strcpy(path + PATH_MAX - 1 - 4, "/tmp");
	CHECK(stat(path, &st) == 0);
	memset(path, '/', sizeof(path));
	strcpy(path + PATH_MAX - 4, "/tmp");
	CHECK_ERRNO(stat(path, &st), ENAMETOOLONG);
	CHECK(unlink(at("file")) == 0);
}

static void symlinks(void)
{
	struct stat st;
	CHECK(symlink("loop2", at("loop1")) == 0);
	CHECK(symlink("loop1", at("loop2")) == 0);
	CHECK_ERRNO(stat(at("loop1"), &st), ELOOP);
	CHECK_ERRNO(open(at("loop1"), O_RDONLY), ELOOP);
	CHECK(lstat(at("loop1"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK_ERRNO(stat(at("loop1/x"), &st), ELOOP);
	/* A chain: l0 -> target, l<i> -> l<i-1>. 40 links are followed,
	 * the 41st is ELOOP. */
	int fd = open(at("target"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	char name[16], prev[16];
	CHECK(symlink("target", at("l0")) == 0);
	for (int i = 1; i <= 40; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		snprintf(prev, sizeof(prev), "l%d", i - 1);
		CHECK(symlink(prev, at(name)) == 0);
	}
	CHECK(stat(at("l39"), &st) == 0 && S_ISREG(st.st_mode)); /* 40 links */
	CHECK_ERRNO(stat(at("l40"), &st), ELOOP);                /* 41 */
	CHECK(symlink("/", at("toroot")) == 0);
	CHECK(stat(at("toroot/tmp"), &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(symlink("missing", at("dangling")) == 0);
	CHECK_ERRNO(stat(at("dangling"), &st), ENOENT);
	CHECK_ERRNO(readlink(at("target"), name, sizeof(name)), EINVAL);
	CHECK_ERRNO(symlink("", at("empty")), ENOENT);
	CHECK_ERRNO(symlink("x", at("target")), EEXIST);
	for (int i = 0; i <= 40; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		CHECK(unlink(at(name)) == 0);
	}
	CHECK(unlink(at("loop1")) == 0 && unlink(at("loop2")) == 0 && unlink(at("toroot")) == 0);
	CHECK(unlink(at("dangling")) == 0 && unlink(at("target")) == 0);
}

static void directories(void)
{
	CHECK(mkdir(at("d"), 0755) == 0);
	CHECK_ERRNO(mkdir(at("d"), 0755), EEXIST);
	CHECK(mkdir(at("d/e/"), 0755) == 0); /* a trailing slash names a directory */
	CHECK_ERRNO(rmdir(at("d")), ENOTEMPTY);
	CHECK_ERRNO(rmdir(at("d/e/.")), EINVAL);
	CHECK_ERRNO(unlink(at("d")), EISDIR);
	CHECK_ERRNO(unlinkat(AT_FDCWD, at("d/e"), 0x1), EINVAL); /* an unknown flag */
	int fd = open(at("d/f"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK_ERRNO(rmdir(at("d/f")), ENOTDIR);
	CHECK_ERRNO(unlink(at("d/f/")), ENOTDIR);
	CHECK_ERRNO(rename(at("d/f"), at("d/e")), EISDIR);
	CHECK_ERRNO(rename(at("d/e"), at("d/f")), ENOTDIR);
	CHECK_ERRNO(link(at("d/e"), at("d/g")), EPERM);
	CHECK_ERRNO(mknod(at("d/h"), S_IFDIR | 0755, 0), EPERM);
	CHECK_ERRNO(rename("/proc/meminfo", at("d/x")), EXDEV);
	CHECK_ERRNO(link("/proc/meminfo", at("d/x")), EXDEV);
	CHECK_ERRNO(mkdir("/proc/x", 0755), ENOENT); /* procfs's lookup says so first */
	CHECK_ERRNO(mkdir("/proc/meminfo", 0755), EEXIST);
	int dfd = open(at("d"), O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	CHECK(unlinkat(dfd, "f", 0) == 0);
	CHECK(unlinkat(dfd, "e", AT_REMOVEDIR) == 0);
	CHECK_ERRNO(unlinkat(dfd, "e", AT_REMOVEDIR), ENOENT);
	CHECK(mkdirat(dfd, "m", 0700) == 0);
	struct stat st;
	CHECK(fstatat(dfd, "m", &st, 0) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CHECK_CMP(st.st_nlink, ==, 2);
	CHECK(fstatat(dfd, "", &st, AT_EMPTY_PATH) == 0 && S_ISDIR(st.st_mode));
	CHECK_CMP(st.st_nlink, ==, 3); /* ".", its name, m's ".." */
	CHECK_ERRNO(fstatat(99, "m", &st, 0), EBADF);
	CHECK(unlinkat(dfd, "m", AT_REMOVEDIR) == 0);
	fd = openat(dfd, "f", O_CREAT | O_WRONLY, 0644);
	CHECK_ERRNO(openat(fd, "x", O_RDONLY), ENOTDIR);
	close(fd);
	CHECK(unlinkat(dfd, "f", 0) == 0);
	close(dfd);
	CHECK(rmdir(at("d")) == 0);
}

int main(void)
{
	test_begin("path_errors");
	snprintf(dir, sizeof(dir), "/tmp/path_errors.%d", (int)getpid());
	CHECK(mkdir(dir, 0700) == 0);
	lookups();
	symlinks();
	directories();
	CHECK(rmdir(dir) == 0);
	return test_end();
}
