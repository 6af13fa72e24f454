/* The system-call wrappers of the mmlab user C library. Each returns what
 * glibc's returns: the kernel's result, or -1 (MAP_FAILED for mmap) with
 * errno set. clock_gettime is a real system call here (no vDSO). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "syscall.h"

ssize_t read(int fd, void *buf, size_t count)
{
	return syscall_result(raw_syscall3(SYS_read, fd, buf, count));
}

ssize_t write(int fd, const void *buf, size_t count)
{
	return syscall_result(raw_syscall3(SYS_write, fd, buf, count));
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	return syscall_result(raw_syscall4(SYS_pread64, fd, buf, count, offset));
}

int close(int fd)
{
	return (int)syscall_result(raw_syscall1(SYS_close, fd));
}

off_t lseek(int fd, off_t offset, int whence)
{
	return syscall_result(raw_syscall3(SYS_lseek, fd, offset, whence));
}

/* The mode argument is only read with O_CREAT or O_TMPFILE, as in glibc's
 * __OPEN_NEEDS_MODE (mmlab has no writable files, but the call is the
 * standard one). */
#define OPEN_NEEDS_MODE(flags) (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE)
int open(const char *path, int flags, ...)
{
	unsigned int mode = 0;
	if (OPEN_NEEDS_MODE(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, unsigned int);
		va_end(ap);
	}
	return (int)syscall_result(raw_syscall3(SYS_open, path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
	unsigned int mode = 0;
	if (OPEN_NEEDS_MODE(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, unsigned int);
		va_end(ap);
	}
	return (int)syscall_result(raw_syscall4(SYS_openat, dirfd, path, flags, mode));
}

pid_t getpid(void)
{
	return (pid_t)raw_syscall0(SYS_getpid);
}

pid_t gettid(void)
{
	return (pid_t)raw_syscall0(SYS_gettid);
}

long sysconf(int name)
{
	switch (name) {
	case _SC_PAGESIZE:
		return (long)__mmlab_page_size;
	case _SC_CLK_TCK:
		return 100;
	}
	errno = EINVAL;
	return -1;
}

int getpagesize(void)
{
	return (int)__mmlab_page_size;
}

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
	long r = raw_syscall6(SYS_mmap, (long)addr, (long)length, prot, flags, fd, offset);
	return (void *)syscall_result(r);
}

int munmap(void *addr, size_t length)
{
	return (int)syscall_result(raw_syscall2(SYS_munmap, addr, length));
}

int mprotect(void *addr, size_t length, int prot)
{
	return (int)syscall_result(raw_syscall3(SYS_mprotect, addr, length, prot));
}

int madvise(void *addr, size_t length, int advice)
{
	return (int)syscall_result(raw_syscall3(SYS_madvise, addr, length, advice));
}

/* The kernel's brk(2) returns the new break, or the old one when it refuses
 * to move it; glibc turns that into 0 / -1 ENOMEM and caches the break for
 * sbrk. So do we. */
static unsigned long current_break;

int brk(void *addr)
{
	unsigned long r = (unsigned long)raw_syscall1(SYS_brk, addr);
	current_break = r;
	if (r < (unsigned long)addr) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void *sbrk(intptr_t increment)
{
	if (!current_break && brk(NULL) < 0)
		return (void *)-1;
	unsigned long old = current_break;
	if (!increment)
		return (void *)old;
	if ((increment > 0 && old + (unsigned long)increment < old) ||
	    (increment < 0 && (unsigned long)-increment > old)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	if (brk((void *)(old + (unsigned long)increment)) < 0)
		return (void *)-1;
	return (void *)old;
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	return (int)syscall_result(raw_syscall2(SYS_clock_gettime, clock, ts));
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)syscall_result(raw_syscall2(SYS_nanosleep, req, rem));
}

int sched_yield(void)
{
	return (int)syscall_result(raw_syscall0(SYS_sched_yield));
}

int uname(struct utsname *buf)
{
	return (int)syscall_result(raw_syscall1(SYS_uname, buf));
}
