/* process_vm_readv(2)/process_vm_writev(2) on the calling process itself,
 * the same binary on Linux and mmlab: scatter/gather in the order of the
 * vectors, pages never touched (read as zeros; a write faults them in),
 * partial transfers (a remote range running into an unmapped page, a local
 * buffer running into an inaccessible one: the bytes done are returned),
 * and Linux's errnos in Linux's order: flags (EINVAL) before the local
 * vector (EINVAL for too many or a negative length, EFAULT for an unreadable
 * array or a buffer beyond user space) before the remote vector (the same,
 * minus access_ok) before the pid (ESRCH); an empty transfer returns 0
 * before the pid is looked at.
 *
 * Where mmlab differs on purpose: another process's pid is EPERM on mmlab
 * (only the caller's own memory is reachable); Linux allows it when the
 * caller may ptrace the target. Not checked here, since on Linux the answer
 * depends on who runs the program. mmlab takes the remote pages with the
 * lockless get_user_pages_fast (Linux the locked walk): the results are
 * the same. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_process_vm_readv
#define SYS_process_vm_readv 310
#endif
#ifndef SYS_process_vm_writev
#define SYS_process_vm_writev 311
#endif
#define UIO_MAXIOV 1024

struct kiovec {
	void *iov_base;
	size_t iov_len;
};

static long pvm_read(long pid, struct kiovec *l, unsigned long nl, struct kiovec *r, unsigned long nr,
		     unsigned long flags)
{
	return syscall(SYS_process_vm_readv, pid, l, nl, r, nr, flags);
}

static long pvm_write(long pid, struct kiovec *l, unsigned long nl, struct kiovec *r,
		      unsigned long nr, unsigned long flags)
{
	return syscall(SYS_process_vm_writev, pid, l, nl, r, nr, flags);
}

static unsigned char *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static unsigned char pattern(size_t i) { return (unsigned char)(i * 7 + i / 4096 + 1); }

/* Scatter/gather: two remote pieces read into three local ones, in order,
 * across page boundaries. */
static void read_self(long pid)
{
	size_t len = 3 * PAGE_4K;
	unsigned char *src = map(len, PROT_READ | PROT_WRITE);
	unsigned char dst[3 * 4096 + 64];
	CHECK(src != NULL);
	if (!src)
		return;
	for (size_t i = 0; i < len; i++)
		src[i] = pattern(i);
	memset(dst, 0, sizeof(dst));
	struct kiovec r[2] = { { src + 100, 5000 }, { src + 6000, 4000 } };
	struct kiovec l[3] = { { dst, 10 }, { dst + 10, 7000 }, { dst + 7010, 1990 } };
	long n = pvm_read(pid, l, 3, r, 2, 0);
	CHECK_CMP(n, ==, 9000);
	CHECKF(!memcmp(dst, src + 100, 5000) && !memcmp(dst + 5000, src + 6000, 4000),
	       "the bytes arrive in the order of the vectors");
	CHECKF(dst[9000] == 0, "nothing past the transfer");
	/* Remote pieces of zero length are skipped. */
	struct kiovec rz[3] = { { src, 0 }, { src + 1, 3 }, { NULL, 0 } };
	struct kiovec l1[1] = { { dst, 3 } };
	CHECK_CMP(pvm_read(pid, l1, 1, rz, 3, 0), ==, 3);
	CHECK(dst[0] == src[1] && dst[2] == src[3]);
	munmap(src, len);
}

/* More pages than the kernel's on-stack array holds (16 in Linux): the
 * transfer goes round by round. */
static void read_many_pages(long pid)
{
	size_t len = 64 * PAGE_4K;
	unsigned char *src = map(len, PROT_READ | PROT_WRITE), *dst = map(len, PROT_READ | PROT_WRITE);
	CHECK(src && dst);
	if (!src || !dst)
		return;
	for (size_t i = 0; i < len; i++)
		src[i] = pattern(i);
	struct kiovec r[1] = { { src + 1, len - 1 } }, l[1] = { { dst, len - 1 } };
	CHECK_CMP(pvm_read(pid, l, 1, r, 1, 0), ==, (long)(len - 1));
	CHECKF(!memcmp(dst, src + 1, len - 1), "64 pages read");
	munmap(src, len);
	munmap(dst, len);
}

/* A write goes to pages never touched (faulted in as writes) and to pages
 * only read so far (the zero page is copied first); memory never written
 * reads as zeros. */
static void write_self(long pid)
{
	size_t len = 4 * PAGE_4K;
	unsigned char *dst = map(len, PROT_READ | PROT_WRITE);
	CHECK(dst != NULL);
	if (!dst)
		return;
	unsigned char zeros[4096], msg[3 * 4096];
	memset(zeros, 0xff, sizeof(zeros));
	struct kiovec r0[1] = { { dst + 3 * PAGE_4K, PAGE_4K } }, l0[1] = { { zeros, PAGE_4K } };
	CHECK_CMP(pvm_read(pid, l0, 1, r0, 1, 0), ==, (long)PAGE_4K);
	CHECKF(all_bytes(zeros, PAGE_4K, 0), "a page never written reads as zeros");
	volatile unsigned char sink = dst[PAGE_4K]; /* the second page: read (zero page) */
	(void)sink;
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = pattern(i + 3);
	struct kiovec l[2] = { { msg, 5000 }, { msg + 5000, 3 * 4096 - 5000 } };
	struct kiovec r[1] = { { dst + 10, 3 * 4096 } };
	CHECK_CMP(pvm_write(pid, l, 2, r, 1, 0), ==, 3 * 4096);
	CHECKF(!memcmp(dst + 10, msg, sizeof(msg)), "written through, the read-only zero page too");
	CHECKF(all_bytes(dst, 10, 0), "nothing before the transfer");
	munmap(dst, len);
}

/* Partial transfers return the bytes done; an error with nothing done is
 * the errno. */
static void partial(long pid)
{
	unsigned char *p = map(2 * PAGE_4K, PROT_READ | PROT_WRITE);
	unsigned char buf[2 * 4096];
	CHECK(p != NULL);
	if (!p)
		return;
	memset(p, 0x5a, 2 * PAGE_4K);
	CHECK_CMP(munmap(p + PAGE_4K, PAGE_4K), ==, 0);
	/* Remote: 100 bytes before the hole, then the hole. */
	struct kiovec r[2] = { { p + PAGE_4K - 100, 200 }, { p, 10 } }, l[1] = { { buf, sizeof(buf) } };
	memset(buf, 0, sizeof(buf));
	CHECK_CMP(pvm_read(pid, l, 1, r, 2, 0), ==, 100);
	CHECKF(all_bytes(buf, 100, 0x5a) && buf[100] == 0,
	       "the bytes before the hole, and the call ends at the hole");
	struct kiovec rh[1] = { { p + PAGE_4K, 10 } };
	CHECK_ERRNO(pvm_read(pid, l, 1, rh, 1, 0), EFAULT);
	CHECK_ERRNO(pvm_write(pid, l, 1, rh, 1, 0), EFAULT);
	/* The same for a write. */
	struct kiovec rw[1] = { { p + PAGE_4K - 30, 60 } };
	memset(buf, 0x11, sizeof(buf));
	CHECK_CMP(pvm_write(pid, l, 1, rw, 1, 0), ==, 30);
	CHECKF(all_bytes(p + PAGE_4K - 30, 30, 0x11), "written up to the hole");

	/* Local: a buffer that runs into a PROT_NONE page. */
	CHECK_CMP(mprotect(p, PAGE_4K, PROT_READ | PROT_WRITE), ==, 0);
	unsigned char *q = map(2 * PAGE_4K, PROT_READ | PROT_WRITE);
	CHECK(q != NULL);
	if (q) {
		CHECK_CMP(mprotect(q + PAGE_4K, PAGE_4K, PROT_NONE), ==, 0);
		struct kiovec lq[1] = { { q + PAGE_4K - 50, 100 } }, rq[1] = { { p, 100 } };
		CHECK_CMP(pvm_read(pid, lq, 1, rq, 1, 0), ==, 50);
		struct kiovec lz[1] = { { q + PAGE_4K, 100 } };
		CHECK_ERRNO(pvm_read(pid, lz, 1, rq, 1, 0), EFAULT);
		munmap(q, 2 * PAGE_4K);
	}
	/* Remote protections: nothing to read in PROT_NONE, nothing to write
	 * in PROT_READ (no FOLL_FORCE here). */
	unsigned char *ro = map(PAGE_4K, PROT_READ), *none = map(PAGE_4K, PROT_NONE);
	CHECK(ro && none);
	if (ro && none) {
		struct kiovec rr[1] = { { ro, 10 } }, rn[1] = { { none, 10 } };
		CHECK_CMP(pvm_read(pid, l, 1, rr, 1, 0), ==, 10);
		CHECK_ERRNO(pvm_write(pid, l, 1, rr, 1, 0), EFAULT);
		CHECK_ERRNO(pvm_read(pid, l, 1, rn, 1, 0), EFAULT);
	}
	if (ro)
		munmap(ro, PAGE_4K);
	if (none)
		munmap(none, PAGE_4K);
	munmap(p, PAGE_4K);
}

static void errors(long pid)
{
	unsigned char a[64], b[64];
	memset(b, 3, sizeof(b));
	struct kiovec l[1] = { { a, sizeof(a) } }, r[1] = { { b, sizeof(b) } };
	long nopid = 0x3ffffff0; /* above Linux's largest pid_max (2^22) */

	CHECK_ERRNO(pvm_read(pid, l, 1, r, 1, 1), EINVAL);
	CHECK_ERRNO(pvm_write(pid, l, 1, r, 1, 1), EINVAL);
	/* flags first: before a bad vector or pid. */
	CHECK_ERRNO(pvm_read(nopid, (void *)8, 1, r, 1, 1), EINVAL);
	/* The local vector. */
	CHECK_ERRNO(pvm_read(pid, l, UIO_MAXIOV + 1, r, 1, 0), EINVAL);
	CHECK_ERRNO(pvm_read(pid, (void *)8, 1, r, 1, 0), EFAULT);
	struct kiovec lneg[1] = { { a, (size_t)-1 } };
	CHECK_ERRNO(pvm_read(pid, lneg, 1, r, 1, 0), EINVAL);
	struct kiovec lkern[1] = { { (void *)0xffff800000000000ul, 8 } };
	CHECK_ERRNO(pvm_read(pid, lkern, 1, r, 1, 0), EFAULT);
	/* The local vector before the remote one and the pid. */
	CHECK_ERRNO(pvm_read(nopid, (void *)8, 1, (void *)8, 1, 0), EFAULT);
	/* The remote vector. */
	CHECK_ERRNO(pvm_read(pid, l, 1, r, UIO_MAXIOV + 1, 0), EINVAL);
	CHECK_ERRNO(pvm_read(pid, l, 1, (void *)8, 1, 0), EFAULT);
	struct kiovec rneg[1] = { { b, (size_t)-1 } };
	CHECK_ERRNO(pvm_read(pid, l, 1, rneg, 1, 0), EINVAL);
	/* No access_ok on the remote side: an address beyond user space is
	 * found missing when its page is looked up. */
	struct kiovec rkern[1] = { { (void *)0xffff800000000000ul, 8 } };
	CHECK_ERRNO(pvm_read(pid, l, 1, rkern, 1, 0), EFAULT);
	/* The remote vector before the pid. */
	CHECK_ERRNO(pvm_read(nopid, l, 1, (void *)8, 1, 0), EFAULT);
	CHECK_ERRNO(pvm_read(nopid, l, 1, r, UIO_MAXIOV + 1, 0), EINVAL);
	/* The pid. */
	CHECK_ERRNO(pvm_read(nopid, l, 1, r, 1, 0), ESRCH);
	CHECK_ERRNO(pvm_write(nopid, l, 1, r, 1, 0), ESRCH);
	CHECK_ERRNO(pvm_read(-1, l, 1, r, 1, 0), ESRCH);
	/* Nothing to move: 0, before the pid is looked at. */
	CHECK_CMP(pvm_read(nopid, l, 0, r, 1, 0), ==, 0);
	struct kiovec l0[1] = { { a, 0 } }, r0[1] = { { b, 0 } };
	CHECK_CMP(pvm_read(nopid, l0, 1, r, 1, 0), ==, 0);
	CHECK_CMP(pvm_read(nopid, l, 1, r0, 1, 0), ==, 0);
	CHECK_CMP(pvm_read(nopid, l, 1, r, 0, 0), ==, 0);
	/* An empty local total skips the remote vector's checks too. */
	CHECK_CMP(pvm_read(pid, l0, 1, (void *)8, 1, 0), ==, 0);
	/* And a correct call after all that. */
	CHECK_CMP(pvm_read(pid, l, 1, r, 1, 0), ==, (long)sizeof(a));
	CHECK(all_bytes(a, sizeof(a), 3));
}

int main(void)
{
	test_begin("process_vm");
	long pid = getpid();
	read_self(pid);
	read_many_pages(pid);
	write_self(pid);
	partial(pid);
	errors(pid);
	return test_end();
}
