/* memfd_secret(2), held beside Linux's (mm/secretmem.c):
 *   - flags 0 or O_CLOEXEC (EINVAL otherwise); a regular file of size 0;
 *   - no read or write (EINVAL), no positioned I/O or seek (ESPIPE), no
 *     fallocate (EOPNOTSUPP); ftruncate once (EINVAL after);
 *   - mmap MAP_SHARED only (MAP_PRIVATE: EINVAL), never PROT_EXEC (EPERM:
 *     a noexec mount; mprotect EACCES); nothing faulted in by the mmap; a
 *     page past the file's end is SIGBUS;
 *   - locked, as Linux 6.1's source has it (mmlab; the host's 6.18): in
 *     VmLck, still after munlock, MADV_DONTNEED EINVAL, and without
 *     CAP_IPC_LOCK RLIMIT_MEMLOCK bounds the mappings (EAGAIN past it).
 *     Debian's 6.1.192 no longer locks the mapping (the 6.12 source tree
 *     charges RLIMIT_MEMLOCK at the fault instead): where VmLck does not
 *     grow at the mmap, those parts are skipped, saying so;
 *   - the kernel will not reach the pages for anyone through the mapping:
 *     process_vm_readv EFAULT, /proc/self/mem EIO; the process's own
 *     accesses, and a write(2) from the memory, work; a forked child shares
 *     the pages.
 * Where the kernel has it off (ENOSYS: Linux 6.1's default, secretmem.enable
 * =0), the program is skipped with that reason. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NR_memfd_secret 447
#define CAP_V3 0x20080522u
#define CAP_IPC_LOCK 14

static long memfd_secret(unsigned int flags) { return syscall(NR_memfd_secret, flags); }

/* CAP_IPC_LOCK out of the effective set (capset, version 3). */
static bool drop_ipc_lock(void)
{
	struct {
		uint32_t version;
		int pid;
	} h = { CAP_V3, 0 };
	struct {
		uint32_t effective, permitted, inheritable;
	} d[2];
	if (syscall(SYS_capget, &h, d))
		return false;
	d[0].effective &= ~(1u << CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d) == 0;
}

static void file_calls(int fd, size_t page)
{
	struct stat st;
	char buf[64];
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	CHECK_ERRNO(read(fd, buf, sizeof(buf)), EINVAL);
	CHECK_ERRNO(write(fd, buf, sizeof(buf)), EINVAL);
	CHECK_ERRNO(pread(fd, buf, sizeof(buf), 0), ESPIPE);
	CHECK_ERRNO(pwrite(fd, buf, sizeof(buf), 0), ESPIPE);
	CHECK_ERRNO(lseek(fd, 0, SEEK_SET), ESPIPE);
	CHECK_ERRNO(fallocate(fd, 0, 0, (off_t)page), EOPNOTSUPP);
	CHECK(ftruncate(fd, (off_t)(4 * page)) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == (off_t)(4 * page));
	CHECK_ERRNO(ftruncate(fd, (off_t)(8 * page)), EINVAL);
	CHECK_ERRNO(ftruncate(fd, 0), EINVAL);
}

static void mappings(int fd, size_t page, bool *locked)
{
	CHECK_ERRNO(mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), EINVAL);
	CHECK_ERRNO(mmap(NULL, 4 * page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0), EPERM);
	long lck = status_kb("VmLck");
	char *p = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	/* Locked (mmlab, Linux 6.1's source): in VmLck. */
	*locked = status_kb("VmLck") == lck + (long)(8 * page / 1024);
	if (on_mmlab())
		CHECK(*locked);
	else if (!*locked)
		note("this kernel does not lock a secretmem mapping (VmLck did not grow): the locked parts are "
		     "skipped");
	/* Not faulted in by the mmap. */
	unsigned char vec[8];
	CHECK(mincore(p, 4 * page, vec) == 0 && !(vec[0] & 1) && !(vec[3] & 1));
	CHECK(munlock(p, 8 * page) == 0);
	if (*locked) /* and stays locked */
		CHECK_CMP(status_kb("VmLck"), ==, lck + (long)(8 * page / 1024));
	CHECK_ERRNO(mprotect(p, page, PROT_READ | PROT_EXEC), EACCES);
	memset(p, 0x55, 4 * page);
	CHECK(all_bytes(p, 4 * page, 0x55));
	CHECK(sigbus_catch());
	CHECK(sigbus_at(p + 4 * page));
	if (*locked) {
		CHECK_ERRNO(madvise(p, page, MADV_DONTNEED), EINVAL); /* a locked VMA's */
		CHECK(all_bytes(p, page, 0x55));
	} else {
		check_skip("MADV_DONTNEED's EINVAL: the mapping is not locked here");
	}
	/* The kernel refuses to reach it for anyone... */
	char buf[64];
	struct iovec local = { buf, sizeof(buf) }, remote = { p, sizeof(buf) };
	CHECK_ERRNO(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), EFAULT);
	int mem = open("/proc/self/mem", O_RDONLY);
	CHECK(mem >= 0);
	CHECK_ERRNO(pread(mem, buf, sizeof(buf), (off_t)(uintptr_t)p), EIO);
	close(mem);
	/* ...but the process's own write(2) copies through its mapping. */
	int out = (int)syscall(SYS_memfd_create, "out", 0);
	CHECK(out >= 0 && write(out, p, 16) == 16);
	CHECK(pread(out, buf, 16, 0) == 16 && all_bytes(buf, 16, 0x55));
	close(out);
	/* A child shares the pages. */
	pid_t pid = fork();
	if (pid == 0) {
		bool same = all_bytes(p, 4 * page, 0x55);
		p[0] = 0x66;
		_exit(same ? 0 : 1);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
	CHECK(p[0] == 0x66);
	CHECK(munmap(p, 8 * page) == 0);
	CHECK_CMP(status_kb("VmLck"), ==, lck);
}

/* In a child without CAP_IPC_LOCK: RLIMIT_MEMLOCK bounds the mappings. */
static void memlock_limit(size_t page)
{
	int fd = (int)memfd_secret(0);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)(8 * page)) == 0);
	/* Room for 4 more pages than are locked now. */
	struct rlimit lim;
	CHECK(getrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	lim.rlim_cur = 4 * page + (size_t)status_kb("VmLck") * 1024;
	if (lim.rlim_max != RLIM_INFINITY && lim.rlim_cur > lim.rlim_max)
		lim.rlim_max = lim.rlim_cur; /* raising it may be refused: then the next check says so */
	CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	CHECK(drop_ipc_lock());
	CHECK_ERRNO(mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EAGAIN);
	char *p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EAGAIN);
}

int main(void)
{
	test_begin("memfd_secret");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = (int)memfd_secret(0);
	if (fd < 0 && errno == ENOSYS)
		test_skip("memfd_secret: ENOSYS (secretmem is off: Linux 6.1's default, secretmem.enable=1 turns it on)");
	if (!CHECK(fd >= 0))
		return test_end();
	CHECK_ERRNO(memfd_secret(O_NONBLOCK), EINVAL);
	CHECK_ERRNO(memfd_secret(1), EINVAL);
	int cloexec = (int)memfd_secret(O_CLOEXEC);
	CHECK(cloexec >= 0 && (fcntl(cloexec, F_GETFD) & FD_CLOEXEC));
	close(cloexec);
	CHECK(!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	file_calls(fd, page);
	bool locked = false;
	mappings(fd, page, &locked);
	if (locked) {
		unsigned failed_before = checks_failed();
		pid_t pid = fork();
		if (pid == 0) {
			memlock_limit(page);
			_exit(checks_failed() > failed_before ? 1 : 0);
		}
		CHECKF(wait_status_of(pid) == 0, "RLIMIT_MEMLOCK without CAP_IPC_LOCK: the child's checks pass");
	} else {
		check_skip("RLIMIT_MEMLOCK at mmap: the mapping is not locked here");
	}
	close(fd);
	return test_end();
}
