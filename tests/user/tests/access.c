/* access(2), faccessat(2) and faccessat2(2): what exists, what may be
 * read, written and executed by root, and Linux's errnos for bad modes,
 * bad flags, a missing name and a file named as a directory. Runs as
 * root on both kernels (the host runner runs its programs as root). */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

int main(void)
{
	test_begin("access");
	if (geteuid() != 0)
		test_skip("not root: the expectations are root's");
	CHECK(access("/proc/meminfo", F_OK) == 0);
	CHECK(access("/proc/meminfo", R_OK) == 0);
	CHECK(access("/proc/self/maps", R_OK | W_OK) == 0); /* root: writing passes the check */
	CHECK_ERRNO(access("/proc/meminfo", X_OK), EACCES); /* no x bit: not even root */
	CHECK(access("/proc", X_OK) == 0);                  /* a directory: searchable */
	CHECK(access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0 ||
	      access("/sys/kernel/mm", F_OK) == 0);
	CHECK_ERRNO(access("/proc/no-such-file", F_OK), ENOENT);
	CHECK_ERRNO(access("/proc/meminfo/", F_OK), ENOTDIR);
	CHECK_ERRNO(access("/proc/meminfo", 8), EINVAL);
	CHECK_ERRNO(access(NULL, F_OK), EFAULT);
	CHECK(faccessat(AT_FDCWD, "/proc/self/status", R_OK, 0) == 0);
	int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
	CHECK(dir >= 0);
	CHECK(syscall(SYS_faccessat, dir, "status", R_OK) == 0);
	CHECK(syscall(SYS_faccessat2, dir, "status", R_OK, AT_EACCESS) == 0);
	CHECK_ERRNO(syscall(SYS_faccessat2, dir, "status", R_OK, 0x1), EINVAL); /* an unknown flag */
	CHECK_ERRNO(syscall(SYS_faccessat, dir, "missing", F_OK), ENOENT);
	close(dir);
	return test_end();
}
