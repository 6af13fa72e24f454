/* /proc/<pid>/mem, the same binary on Linux and mmlab: the file offset is
 * the address; reads and writes go through FOLL_FORCE, as a debugger's:
 *   - a read-only mapping reads, an untouched one as zeros;
 *   - a write to a read-only private mapping (anonymous or a file's) is
 *     seen by the process, but its PTE stays read-only: the process's own
 *     write still faults, and the file behind the mapping is unchanged
 *     (the write broke the copy-on-write into an anonymous page);
 *   - a write to a read-only shared mapping is refused (EIO): it would
 *     reach the file;
 *   - a read running into an unmapped page ends short, one starting there
 *     is EIO, as is a kernel address;
 *   - a child's memory is read through /proc/<child>/mem, and once the
 *     child is reaped the open file reads nothing (0).
 * On Linux the open of another process's file depends on ptrace rules
 * (Yama's ptrace_scope): that part is skipped when Linux refuses it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static sigjmp_buf fault_env;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(fault_env, 1);
}

/* Whether a plain store of v to p faults (and so leaves *p alone). */
static bool store_faults(volatile char *p, char v)
{
	struct sigaction sa = { .sa_handler = on_segv }, old;
	sigaction(SIGSEGV, &sa, &old);
	volatile bool faulted = true; /* kept in memory across the siglongjmp */
	if (!sigsetjmp(fault_env, 1)) {
		*p = v;
		faulted = false;
	}
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

static long mem_pread(int fd, void *buf, size_t n, const void *addr)
{
	return pread(fd, buf, n, (off_t)(uintptr_t)addr);
}

static long mem_pwrite(int fd, const void *buf, size_t n, const void *addr)
{
	return pwrite(fd, buf, n, (off_t)(uintptr_t)addr);
}

static void check_reads(int fd, size_t page)
{
	char buf[64];
	char *rw = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(rw != MAP_FAILED))
		return;
	strcpy(rw, "hello through mem");
	CHECK_CMP(mem_pread(fd, buf, 18, rw), ==, 18);
	CHECK(!strcmp(buf, "hello through mem"));
	/* lseek to the address, then read(2) there. */
	CHECK(lseek(fd, (off_t)(uintptr_t)rw, SEEK_SET) == (off_t)(uintptr_t)rw);
	memset(buf, 0, sizeof(buf));
	CHECK_CMP(read(fd, buf, 5), ==, 5);
	CHECK(!memcmp(buf, "hello", 5));
	CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(uintptr_t)rw + 5);
	/* A read-only mapping never touched reads as zeros. */
	CHECK_CMP(mprotect(rw + page, page, PROT_READ), ==, 0);
	memset(buf, 0x55, sizeof(buf));
	CHECK_CMP(mem_pread(fd, buf, sizeof(buf), rw + page), ==, (long)sizeof(buf));
	CHECK(all_bytes(buf, sizeof(buf), 0));
	/* A read running into an unmapped page ends there; one starting
	 * there is EIO, and so is a kernel address. */
	CHECK_CMP(munmap(rw + page, page), ==, 0);
	CHECK_CMP(mem_pread(fd, buf, 32, rw + page - 16), ==, 16);
	CHECK_ERRNO(mem_pread(fd, buf, 16, rw + page), EIO);
	CHECK_ERRNO(pread(fd, buf, 16, (off_t)0x7fffffff00000000ll), EIO);
	CHECK_ERRNO(mem_pwrite(fd, buf, 16, rw + page), EIO);
	CHECK_CMP(munmap(rw, page), ==, 0);
}

/* A forced write to a read-only private anonymous mapping: untouched
 * (FOLL_FORCE faults a page of its own in), and after a read mapped the
 * zero page (the write breaks its copy-on-write). */
static void check_private_anon(int fd, size_t page)
{
	char *ro = mmap(NULL, 2 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(ro != MAP_FAILED))
		return;
	CHECK_CMP(ro[page], ==, 0); /* the zero page, or a page of zeros */
	CHECK_CMP(mem_pwrite(fd, "AB", 2, ro + 10), ==, 2);
	CHECK_CMP(mem_pwrite(fd, "CD", 2, ro + page + 10), ==, 2);
	CHECK(ro[10] == 'A' && ro[11] == 'B');
	CHECK(ro[page + 10] == 'C' && ro[page + 11] == 'D');
	CHECK(ro[0] == 0 && ro[page + 12] == 0);
	/* The PTE stayed read-only: the process's own write faults. */
	CHECK(store_faults(ro + 10, 'x'));
	CHECK(store_faults(ro + page, 'x'));
	CHECK(ro[10] == 'A');
	/* A second forced write to the page that is now its own. */
	CHECK_CMP(mem_pwrite(fd, "E", 1, ro + 10), ==, 1);
	CHECK(ro[10] == 'E');
	CHECK(store_faults(ro + 10, 'x'));
	CHECK_CMP(munmap(ro, 2 * page), ==, 0);
}

/* A file's mappings: a private read-only one takes the forced write into
 * its own copy (the file is unchanged); a shared read-only one refuses it,
 * whether the file was opened for writing or not. */
static void check_file_mappings(int fd, size_t page)
{
	char path[64], buf[8];
	snprintf(path, sizeof(path), "/tmp/proc_self_mem.%d", (int)getpid());
	int file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!CHECK(file >= 0))
		return;
	char content[4096];
	memset(content, 'f', sizeof(content));
	CHECK_CMP(write(file, content, sizeof(content)), ==, (long)sizeof(content));
	int rdonly = open(path, O_RDONLY);
	CHECK(rdonly >= 0);
	unlink(path);

	char *priv = mmap(NULL, page, PROT_READ, MAP_PRIVATE, rdonly, 0);
	if (CHECK(priv != MAP_FAILED)) {
		CHECK_CMP(priv[100], ==, 'f');
		CHECK_CMP(mem_pwrite(fd, "zz", 2, priv + 100), ==, 2);
		CHECK(priv[100] == 'z' && priv[101] == 'z' && priv[102] == 'f');
		CHECK(store_faults(priv + 100, 'x'));
		CHECK_CMP(pread(file, buf, 3, 100), ==, 3);
		CHECK(!memcmp(buf, "fff", 3)); /* the file never saw it */
		CHECK_CMP(munmap(priv, page), ==, 0);
	}
	char *shared_ro = mmap(NULL, page, PROT_READ, MAP_SHARED, rdonly, 0);
	if (CHECK(shared_ro != MAP_FAILED)) {
		CHECK_ERRNO(mem_pwrite(fd, "zz", 2, shared_ro + 100), EIO);
		CHECK_CMP(mem_pread(fd, buf, 3, shared_ro + 100), ==, 3); /* reading is fine */
		CHECK(!memcmp(buf, "fff", 3));
		CHECK_CMP(munmap(shared_ro, page), ==, 0);
	}
	/* Opened for writing (VM_MAYWRITE), mapped read-only: still refused. */
	char *shared_may = mmap(NULL, page, PROT_READ, MAP_SHARED, file, 0);
	if (CHECK(shared_may != MAP_FAILED)) {
		CHECK_ERRNO(mem_pwrite(fd, "zz", 2, shared_may + 100), EIO);
		CHECK_CMP(shared_may[100], ==, 'f');
		CHECK_CMP(munmap(shared_may, page), ==, 0);
	}
	/* A writable shared mapping is written through, as a store would. */
	char *shared_rw = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
	if (CHECK(shared_rw != MAP_FAILED)) {
		CHECK_CMP(mem_pwrite(fd, "ww", 2, shared_rw + 200), ==, 2);
		CHECK_CMP(pread(file, buf, 2, 200), ==, 2);
		CHECK(!memcmp(buf, "ww", 2));
		CHECK_CMP(munmap(shared_rw, page), ==, 0);
	}
	/* Shared anonymous memory, read-only: refused too. */
	char *shm = mmap(NULL, page, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (CHECK(shm != MAP_FAILED)) {
		CHECK_ERRNO(mem_pwrite(fd, "zz", 2, shm), EIO);
		CHECK_CMP(munmap(shm, page), ==, 0);
	}
	close(rdonly);
	close(file);
}

/* Waits (yielding) until *flag reaches value: the two processes step
 * through a word of shared memory (mmlab has no pipes). */
static void wait_flag(volatile int *flag, int value)
{
	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < value)
		sched_yield();
}

/* A child's memory through /proc/<child>/mem; after the child is reaped,
 * the open file reads nothing. */
static void check_child(size_t page)
{
	volatile int *step = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *own = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(step != MAP_FAILED) || !CHECK(own != MAP_FAILED))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		strcpy(own, "child's own");
		__atomic_store_n(step, 1, __ATOMIC_RELEASE);
		wait_flag(step, 2);
		_exit(strcmp(own, "poked") ? 3 : 0);
	}
	if (!CHECK(pid > 0))
		return;
	char buf[16] = { 0 };
	wait_flag(step, 1);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDWR);
	if (fd < 0 && !on_mmlab() && (errno == EACCES || errno == EPERM)) {
		check_skip("Linux refuses /proc/<child>/mem here (ptrace rules): %s", errno_name(errno));
	} else if (CHECK(fd >= 0)) {
		CHECK_CMP(mem_pread(fd, buf, 12, own), ==, 12);
		CHECK(!strcmp(buf, "child's own"));
		CHECK(!strcmp(own, "")); /* ours was never written */
		CHECK_CMP(mem_pwrite(fd, "poked", 6, own), ==, 6);
	}
	__atomic_store_n(step, 2, __ATOMIC_RELEASE);
	int status;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	if (fd >= 0) {
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		CHECK_CMP(mem_pread(fd, buf, 12, own), ==, 0); /* its memory is gone */
		close(fd);
	} else {
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	}
	munmap(own, page);
	munmap((void *)step, page);
}

int main(void)
{
	test_begin("proc_self_mem");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/mem", O_RDWR);
	if (!CHECK(fd >= 0))
		return test_end();
	check_reads(fd, page);
	check_private_anon(fd, page);
	check_file_mappings(fd, page);
	close(fd);
	check_child(page);
	return test_end();
}
