/* memfd_create(2) and its seals, and MAP_SHARED mappings of /dev/zero.
 *
 * A memfd is an unlinked tmpfs file: written, read, mapped shared by a
 * parent and its child; /proc/self/fd/N and /proc/self/maps name it
 * "/memfd:NAME (deleted)". memfd_create's refusals: unknown flags and a
 * name of 250 bytes (EINVAL), a bad name pointer (EFAULT), a hugetlb size
 * with no huge page size behind it (ENODEV). Each seal's refusals
 * (EPERM, EBUSY while a shared writable mapping exists, EACCES from
 * mprotect), and fcntl's on files that take no seals. /dev/zero mapped
 * shared is one memory for parent and child; mapped private it is each
 * process's own.
 *
 * A read-only MAP_SHARED mapping of a write-sealed memfd is made, and
 * cannot be made writable (EACCES): the rule since "mm: update memfd seal
 * write check to include F_SEAL_WRITE" (Lorenzo Stoakes, 6.7), which
 * Debian 12's 6.1 stable kernel (linux-ring) follows too; kernels without
 * it refuse the mapping (EPERM). Where kernels differ on purpose:
 * MFD_HUGETLB with the default size makes a hugetlbfs file on both
 * (tests/user/tests/hugetlbfs.c maps one), unless a Linux has no
 * hugetlbfs (ENOSYS). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NR_memfd_create 319
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#endif
#define SEAL_SEAL 0x1
#define SEAL_SHRINK 0x2
#define SEAL_GROW 0x4
#define SEAL_WRITE 0x8
#define SEAL_FUTURE_WRITE 0x10
#define MFD_CLOEXEC_ 0x1u
#define MFD_ALLOW_SEALING_ 0x2u
#define MFD_HUGETLB_ 0x4u
#define MFD_HUGE_SHIFT_ 26
#define FALLOC_KEEP_SIZE 0x1
#define FALLOC_PUNCH_HOLE 0x2

static long page;

static int memfd(const char *name, unsigned int flags)
{
	return (int)syscall(NR_memfd_create, name, flags);
}

static int wait_status(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void create_errors(void)
{
	CHECK_ERRNO(memfd("x", 0x100), EINVAL);
	CHECK_ERRNO(memfd("x", 21u << MFD_HUGE_SHIFT_), EINVAL); /* a size without MFD_HUGETLB */
	CHECK_ERRNO(memfd((const char *)1, 0), EFAULT);
	char name[251];
	memset(name, 'n', 250);
	name[250] = 0;
	CHECK_ERRNO(memfd(name, 0), EINVAL); /* 250 bytes: "memfd:" makes 256 */
	name[249] = 0;
	int fd = memfd(name, 0);
	CHECKF(fd >= 0, "a name of 249 bytes is taken");
	char link[64], target[300];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	long n = readlink(link, target, sizeof(target) - 1);
	CHECK_CMP(n, ==, 6 + 249 + 1 + 10);
	close(fd);
	/* 1 MiB pages: no hstate on x86_64. */
	long r = syscall(NR_memfd_create, "h", MFD_HUGETLB_ | (20u << MFD_HUGE_SHIFT_));
	int err = errno;
	if (on_mmlab() || r >= 0 || err != ENOSYS) /* ENOSYS: a Linux without hugetlbfs */
		CHECK_ERRNO((errno = err, r), ENODEV);
	else
		printf("ok: MFD_HUGETLB: ENOSYS (no hugetlbfs in this kernel)\n");
	r = syscall(NR_memfd_create, "h", MFD_HUGETLB_);
	if (r < 0 && errno == ENOSYS && !on_mmlab())
		printf("ok: MFD_HUGETLB: ENOSYS (no hugetlbfs in this kernel)\n");
	else if (CHECK(r >= 0))
		close((int)r);
}

static void basics(void)
{
	int fd = memfd("basics", MFD_CLOEXEC_);
	CHECK(fd >= 0);
	CHECK_CMP(fcntl(fd, F_GETFD), ==, FD_CLOEXEC);
	CHECK_CMP(fcntl(fd, F_GETFL) & O_ACCMODE, ==, O_RDWR);
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_CMP(st.st_nlink, ==, 0);
	CHECK_CMP(st.st_size, ==, 0);
	char link[64], target[128] = { 0 };
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	CHECK_CMP(readlink(link, target, sizeof(target) - 1), ==, (long)strlen("/memfd:basics (deleted)"));
	CHECKF(!strcmp(target, "/memfd:basics (deleted)"), "the link reads %s", target);
	/* Without MFD_ALLOW_SEALING: sealed against seals. */
	CHECK_CMP(fcntl(fd, F_GET_SEALS), ==, SEAL_SEAL);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), EPERM);
	CHECK_CMP(write(fd, "hello", 5), ==, 5);
	char buf[8] = { 0 };
	CHECK_CMP(pread(fd, buf, sizeof(buf), 0), ==, 5);
	CHECK(!memcmp(buf, "hello", 5));
	close(fd);
}

/* A shared mapping in a parent and its child, and one the child makes
 * of the same descriptor: every store is seen by the other process and
 * by read. */
static void shared_across_fork(void)
{
	int fd = memfd("shared", 0);
	CHECK(fd >= 0);
	CHECK(ftruncate(fd, 2 * page) == 0);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	p[0] = 'P';
	char maps[16384];
	CHECK(maps_snapshot(maps, sizeof(maps)) > 0);
	CHECKF(strstr(maps, "/memfd:shared (deleted)") != NULL, "/proc/self/maps names the memfd");
	pid_t pid = fork();
	if (pid == 0) {
		char *q = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page);
		if (p[0] != 'P' || q == MAP_FAILED)
			_exit(1);
		p[1] = 'C';
		q[0] = 'Q';
		_exit(0);
	}
	CHECK_CMP(wait_status(pid), ==, 0);
	CHECK_CMP(p[1], ==, 'C');
	CHECK_CMP(p[page], ==, 'Q');
	char b = 0;
	CHECK_CMP(pread(fd, &b, 1, page), ==, 1);
	CHECK_CMP(b, ==, 'Q');
	munmap(p, 2 * page);
	close(fd);
}

static void seal_write(void)
{
	int fd = memfd("seal_write", MFD_ALLOW_SEALING_);
	CHECK(fd >= 0);
	CHECK_CMP(fcntl(fd, F_GET_SEALS), ==, 0);
	CHECK(ftruncate(fd, 2 * page) == 0);
	CHECK_CMP(pwrite(fd, "data", 4, 0), ==, 4);
	char *w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(w != MAP_FAILED);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), EBUSY);
	/* Read-only now, but it may be made writable again: still counted. */
	CHECK(mprotect(w, page, PROT_READ) == 0);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), EBUSY);
	/* A copy made by fork counts too, until the child is gone. */
	munmap(w, page);
	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(w != MAP_FAILED);
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause(); /* until killed */
	}
	munmap(w, page);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), EBUSY); /* the child's */
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK_CMP(wait_status(pid), ==, 128 + SIGKILL); /* its mm is gone with it */
	CHECK_CMP(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), ==, 0);
	CHECK_CMP(fcntl(fd, F_GET_SEALS), ==, SEAL_WRITE);

	CHECK_ERRNO(write(fd, "x", 1), EPERM);
	CHECK_ERRNO(pwrite(fd, "x", 1, 0), EPERM);
	struct iovec iov = { "x", 1 };
	CHECK_ERRNO(writev(fd, &iov, 1), EPERM);
	CHECK_ERRNO(fallocate(fd, FALLOC_PUNCH_HOLE | FALLOC_KEEP_SIZE, 0, page), EPERM);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EPERM);
	/* The size may still change (no SHRINK or GROW seal). */
	CHECK(ftruncate(fd, 3 * page) == 0);
	void *r = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(r != MAP_FAILED);
	if (r != MAP_FAILED) {
		CHECK(!memcmp(r, "data", 4));
		CHECK_ERRNO(mprotect(r, page, PROT_READ | PROT_WRITE), EACCES);
		munmap(r, page);
	}
	/* A private mapping stays copy-on-write writable; the file keeps its bytes. */
	char *priv = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(priv != MAP_FAILED);
	if (priv != MAP_FAILED) {
		priv[0] = 'X';
		char b = 0;
		CHECK_CMP(pread(fd, &b, 1, 0), ==, 1);
		CHECK_CMP(b, ==, 'd');
		munmap(priv, page);
	}
	close(fd);
}

static void seal_future_write(void)
{
	int fd = memfd("future", MFD_ALLOW_SEALING_);
	CHECK(fd >= 0);
	CHECK(ftruncate(fd, page) == 0);
	char *w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(w != MAP_FAILED);
	if (w == MAP_FAILED)
		return;
	CHECK_CMP(fcntl(fd, F_ADD_SEALS, SEAL_FUTURE_WRITE), ==, 0);
	w[0] = 'W'; /* the mapping made before stays writable */
	char b = 0;
	CHECK_CMP(pread(fd, &b, 1, 0), ==, 1);
	CHECK_CMP(b, ==, 'W');
	CHECK_ERRNO(write(fd, "x", 1), EPERM);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EPERM);
	char *r = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(r != MAP_FAILED);
	if (r != MAP_FAILED) {
		CHECK_CMP(r[0], ==, 'W');
		CHECK_ERRNO(mprotect(r, page, PROT_READ | PROT_WRITE), EACCES);
		munmap(r, page);
	}
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), EBUSY); /* w is still there */
	munmap(w, page);
	close(fd);
}

static void seal_size(void)
{
	int fd = memfd("size", MFD_ALLOW_SEALING_);
	CHECK(fd >= 0);
	CHECK(ftruncate(fd, 2 * page) == 0);
	CHECK_CMP(fcntl(fd, F_ADD_SEALS, SEAL_SHRINK), ==, 0);
	CHECK_ERRNO(ftruncate(fd, page), EPERM);
	CHECK(ftruncate(fd, 3 * page) == 0);
	CHECK_CMP(fcntl(fd, F_ADD_SEALS, SEAL_GROW), ==, 0);
	CHECK_CMP(fcntl(fd, F_GET_SEALS), ==, SEAL_SHRINK | SEAL_GROW);
	CHECK_ERRNO(ftruncate(fd, 4 * page), EPERM);
	CHECK(ftruncate(fd, 3 * page) == 0); /* the same size */
	CHECK_CMP(pwrite(fd, "in", 2, 3 * page - 2), ==, 2);
	CHECK_ERRNO(pwrite(fd, "out", 3, 3 * page), EPERM);
	CHECK_CMP(lseek(fd, 0, SEEK_END), ==, 3 * page);
	CHECK_ERRNO(write(fd, "x", 1), EPERM);
	CHECK_ERRNO(fallocate(fd, 0, 0, 4 * page), EPERM);
	CHECK_ERRNO(fallocate(fd, FALLOC_KEEP_SIZE, 2 * page, 2 * page), EPERM);
	CHECK_CMP(fallocate(fd, 0, 0, 3 * page), ==, 0);
	/* F_SEAL_SEAL: nothing more. */
	CHECK_CMP(fcntl(fd, F_ADD_SEALS, SEAL_SEAL), ==, 0);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, SEAL_WRITE), EPERM);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, 0), EPERM);
	close(fd);
}

/* fcntl's seal commands on other files: EPERM first for a descriptor not
 * open for writing, EINVAL for unknown seals, then for a file that takes
 * none. */
static void seal_other_files(void)
{
	int fd = memfd("bits", MFD_ALLOW_SEALING_);
	CHECK(fd >= 0);
	CHECK_ERRNO(fcntl(fd, F_ADD_SEALS, 0x100), EINVAL);
	close(fd);
	int rw = open("/dev/null", O_RDWR), ro = open("/dev/null", O_RDONLY);
	CHECK(rw >= 0 && ro >= 0);
	CHECK_ERRNO(fcntl(rw, F_ADD_SEALS, SEAL_WRITE), EINVAL);
	CHECK_ERRNO(fcntl(rw, F_GET_SEALS), EINVAL);
	CHECK_ERRNO(fcntl(ro, F_ADD_SEALS, SEAL_WRITE), EPERM);
	CHECK_ERRNO(fcntl(ro, F_ADD_SEALS, 0x100), EPERM);
	close(rw);
	close(ro);
}

/* MAP_SHARED of /dev/zero: one memory, zero-filled, for parent and child;
 * MAP_PRIVATE: each process's own. */
static void dev_zero(void)
{
	int fd = open("/dev/zero", O_RDWR);
	CHECK(fd >= 0);
	char *s = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	CHECK(s != MAP_FAILED && p != MAP_FAILED);
	if (s == MAP_FAILED || p == MAP_FAILED)
		return;
	CHECK(all_bytes(s, 2 * page, 0));
	CHECK(all_bytes(p, page, 0));
	s[0] = 'S';
	p[0] = 'P';
	pid_t pid = fork();
	if (pid == 0) {
		if (s[0] != 'S' || p[0] != 'P')
			_exit(1);
		s[page] = 'C';
		p[0] = 'C';
		_exit(0);
	}
	CHECK_CMP(wait_status(pid), ==, 0);
	CHECK_CMP(s[page], ==, 'C');
	CHECK_CMP(p[0], ==, 'P');
	munmap(s, 2 * page);
	munmap(p, page);
}

int main(void)
{
	test_begin("memfd");
	page = sysconf(_SC_PAGESIZE);
	create_errors();
	basics();
	shared_across_fork();
	seal_write();
	seal_future_write();
	seal_size();
	seal_other_files();
	dev_zero();
	return test_end();
}
