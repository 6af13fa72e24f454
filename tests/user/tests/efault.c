/* Bad user pointers handed to system calls come back as EFAULT, and the
 * process goes on: write(2) from an unmapped page and from a kernel
 * address, read(2)/pread(2) of a /proc file into an unmapped page, open(2)
 * with a bad path pointer, clock_gettime(2), nanosleep(2) and uname(2) with
 * bad pointers. A pointer to mapped memory that was never touched is fine:
 * the kernel faults it in. clock_gettime goes through syscall(2): glibc's
 * would run in the vDSO and fault in user mode. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* An address the compiler cannot see through (it would warn about, or
 * drop, accesses to constant bad pointers). */
static void *opaque(unsigned long v)
{
	void *p = (void *)v;
	__asm__ volatile("" : "+r"(p));
	return p;
}

#define KERNEL_ADDR opaque(0xffffffff80000000UL)
#define NONCANONICAL opaque(0x8000000000000000UL)

int main(void)
{
	test_begin("efault");
	char *hole = mmap(NULL, 2 * PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(hole != MAP_FAILED);
	CHECK(munmap(hole, 2 * PAGE_4K) == 0);

	CHECK_ERRNO(write(1, hole, 16), EFAULT);
	CHECK_ERRNO(write(1, opaque(8), 16), EFAULT);
	CHECK_ERRNO(write(2, KERNEL_ADDR, 16), EFAULT);
	CHECK_ERRNO(write(1, NONCANONICAL, 16), EFAULT);

	int fd = open("/proc/self/status", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERRNO(read(fd, hole, 64), EFAULT);
	CHECK_ERRNO(read(fd, KERNEL_ADDR, 64), EFAULT);
	CHECK_ERRNO(pread(fd, hole + PAGE_4K, 64, 0), EFAULT);
	char buf[64];
	CHECK_CMP(pread(fd, buf, sizeof(buf), 0), ==, (long)sizeof(buf));
	CHECK(memchr(buf, ':', sizeof(buf)) != NULL);
	CHECK(close(fd) == 0);

	CHECK_ERRNO(open(hole, O_RDONLY), EFAULT);
	CHECK_ERRNO(open(opaque(1), O_RDONLY), EFAULT);
	CHECK_ERRNO(open(KERNEL_ADDR, O_RDONLY), EFAULT);
	CHECK_ERRNO(openat(AT_FDCWD, hole, O_RDONLY), EFAULT);

	CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, hole), EFAULT);
	CHECK_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, KERNEL_ADDR), EFAULT);
	CHECK_ERRNO(syscall(SYS_nanosleep, hole, NULL), EFAULT);
	CHECK_ERRNO(syscall(SYS_uname, hole), EFAULT);
	CHECK_ERRNO(syscall(SYS_uname, KERNEL_ADDR), EFAULT);

	/* Fresh, never touched memory as a destination: no EFAULT. */
	char *fresh = mmap(NULL, PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(fresh != MAP_FAILED);
	CHECK(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, fresh) == 0);
	CHECK(uname((struct utsname *)fresh) == 0 && fresh[0] != 0);
	fd = open("/proc/meminfo", O_RDONLY);
	CHECK(fd >= 0 && read(fd, fresh, 100) == 100 && !strncmp(fresh, "MemTotal:", 9));
	close(fd);
	CHECK(munmap(fresh, PAGE_4K) == 0);

	/* A buffer that ends in the unmapped page: the part before it is
	 * copied and the call reports what it did, a short read of exactly
	 * those 8 bytes (as Linux does: copy_to_user stops at the hole), and
	 * the process lives on. */
	char *edge = mmap(NULL, 2 * PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(edge != MAP_FAILED && munmap(edge + PAGE_4K, PAGE_4K) == 0);
	fd = open("/proc/self/status", O_RDONLY);
	long r = read(fd, edge + PAGE_4K - 8, 64);
	CHECKF(r == 8 && !strncmp(edge + PAGE_4K - 8, "Name:\t", 6),
	       "read into a buffer running off the mapping: %ld (errno %s)", r,
	       r < 0 ? errno_name(errno) : "-");
	close(fd);
	munmap(edge, PAGE_4K);

	printf("efault: still alive after %d bad pointers\n", 18);
	return test_end();
}
