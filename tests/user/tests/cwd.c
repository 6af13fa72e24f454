/* The working directory and what depends on it: chdir, fchdir, getcwd,
 * relative names, ".." at the root, a removed working directory,
 * /proc/self/cwd; and the umask, chmod, chown (stored: root may set any
 * owner), utimensat, O_TMPFILE made a name with linkat, statfs. In a
 * directory of its own under /tmp. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* A thread shares the process's working directory (CLONE_FS, as every
 * libc's pthread_create asks); a forked child has a copy of its own. */
static void *thread_chdir(void *arg)
{
	return (void *)(long)chdir((const char *)arg);
}

static void shared_and_copied(const char *dir)
{
	char buf[256];
	CHECK(chdir("/") == 0);
	pthread_t t;
	void *ret;
	CHECK(pthread_create(&t, NULL, thread_chdir, (void *)dir) == 0);
	CHECK(pthread_join(t, &ret) == 0 && ret == NULL);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, dir));
	pid_t pid = fork();
	if (pid == 0)
		_exit(chdir("/proc") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/proc") ? 0 : 1);
	int status;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, dir)); /* the child's chdir stayed its own */
	umask(022);
}

int main(void)
{
	test_begin("cwd");
	char dir[64], buf[256], sub[80];
	struct stat st;
	snprintf(dir, sizeof(dir), "/tmp/cwd.%d", (int)getpid());
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CHECK(mkdir(dir, 0700) == 0);
	shared_and_copied(dir);
	CHECK(chdir(dir) == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, dir));
	CHECK_ERRNO(syscall(SYS_getcwd, buf, 3), ERANGE);
	CHECK(mkdir("sub", 0755) == 0);
	CHECK(chdir("sub") == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, sub));
	int fd = open("f", O_CREAT | O_WRONLY, 0666);
	CHECK(fd >= 0);
	close(fd);
	CHECK(stat("../sub/f", &st) == 0);
	CHECK(readlink("/proc/self/cwd", buf, sizeof(buf)) == (long)strlen(sub));
	CHECK(!memcmp(buf, sub, strlen(sub)));
	/* The umask: 0666 & ~022 above; 0777 & ~077 now. */
	CHECK((st.st_mode & 0777) == 0644);
	CHECK_CMP(umask(077), ==, 022);
	CHECK(mkdir("m", 0777) == 0);
	CHECK(stat("m", &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK_CMP(umask(022), ==, 077);
	CHECK(chmod("m", 02751) == 0);
	CHECK(stat("m", &st) == 0 && (st.st_mode & 07777) == 02751);
	int dfd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK(fchmodat(dfd, "f", 0600, 0) == 0);
	CHECK(stat("f", &st) == 0 && (st.st_mode & 07777) == 0600);
	CHECK(chown("f", 1234, 5678) == 0);
	CHECK(stat("f", &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678);
	CHECK(lchown("f", -1, 0) == 0);
	CHECK(stat("f", &st) == 0 && st.st_uid == 1234 && st.st_gid == 0);
	struct timespec ts[2] = { { 1000000000, 5 }, { 1200000000, 7 } };
	CHECK(utimensat(dfd, "f", ts, 0) == 0);
	CHECK(stat("f", &st) == 0 && st.st_atim.tv_sec == 1000000000 && st.st_mtim.tv_sec == 1200000000);
	CHECK(st.st_mtim.tv_nsec == 7);
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = 1000000000;
	CHECK_ERRNO(utimensat(dfd, "f", ts, 0), EINVAL);
	/* fchdir, and ".." up to the root and no further. */
	CHECK(chdir("/") == 0);
	CHECK(fchdir(dfd) == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, sub));
	CHECK(chdir("../../../../../../..") == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"));
	CHECK(chdir(sub + 1) == 0); /* relative to "/" */
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, sub));
	CHECK(chdir("/proc/self") == 0);
	CHECK(stat("status", &st) == 0);
	CHECK(chdir("/proc") == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/proc"));
	CHECK(chdir("..") == 0);
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"));
	/* A removed working directory: getcwd is ENOENT, "." still stats. */
	CHECK(chdir(sub) == 0);
	CHECK(chdir("m") == 0);
	CHECK(rmdir("../m") == 0);
	CHECK_ERRNO(syscall(SYS_getcwd, buf, sizeof(buf)), ENOENT);
	CHECK(stat(".", &st) == 0 && st.st_nlink == 0);
	CHECK_ERRNO(open("x", O_CREAT | O_WRONLY, 0644), ENOENT);
	CHECK(chdir(dir) == 0);
	/* O_TMPFILE: a file with no name, then one with linkat. */
	fd = open("sub", O_TMPFILE | O_RDWR, 0600);
	CHECK(fd >= 0);
	CHECK_CMP(write(fd, "tmp", 3), ==, 3);
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0 && S_ISREG(st.st_mode));
	CHECK(linkat(fd, "", AT_FDCWD, "sub/named", AT_EMPTY_PATH) == 0);
	CHECK(stat("sub/named", &st) == 0 && st.st_size == 3 && st.st_nlink == 1);
	close(fd);
	fd = open("sub", O_TMPFILE | O_RDWR | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_ERRNO(linkat(fd, "", AT_FDCWD, "sub/never", AT_EMPTY_PATH), ENOENT);
	/* Mapped, it shows as "<dir>/#<inode> (deleted)" in /proc/self/maps. */
	CHECK(ftruncate(fd, 4096) == 0);
	char *map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED);
	static char maps[65536];
	CHECK(read_file("/proc/self/maps", maps, sizeof(maps)) > 0);
	char start[32], want[128];
	snprintf(start, sizeof(start), "%lx-", (unsigned long)map);
	snprintf(want, sizeof(want), "%s/#%lu (deleted)\n", sub, (unsigned long)(fstat(fd, &st) ? 0 : st.st_ino));
	char *line = strstr(maps, start), *eol = line ? strchr(line, '\n') : NULL;
	CHECKF(line && eol && !strncmp(eol + 1 - strlen(want), want, strlen(want)), "maps names it %s", want);
	munmap(map, 4096);
	close(fd);
	CHECK_ERRNO(open("sub", O_TMPFILE | O_RDONLY, 0600), EINVAL);
	/* statfs: the root's tmpfs on mmlab; /proc's magic on both. */
	struct statfs sf;
	CHECK(statfs("/proc", &sf) == 0 && sf.f_type == 0x9fa0);
	CHECK(fstatfs(dfd, &sf) == 0 && sf.f_namelen == 255);
	if (on_mmlab())
		CHECK(sf.f_type == 0x01021994);
	CHECK(fsync(dfd) == 0 && fdatasync(dfd) == 0 && syncfs(dfd) == 0);
	CHECK_ERRNO(fsync(99), EBADF);
	close(dfd);
	CHECK(unlink("sub/named") == 0 && unlink("sub/f") == 0);
	CHECK(rmdir("sub") == 0);
	CHECK(chdir("/") == 0);
	CHECK(rmdir(dir) == 0);
	return test_end();
}
