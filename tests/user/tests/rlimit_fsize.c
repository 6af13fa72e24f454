/* RLIMIT_FSIZE, held beside Linux's (generic_write_check_limits and
 * inode_newsize_ok): setrlimit and prlimit64 keep it; a write, pwrite,
 * writev or sendfile that would pass it writes what fits; one that starts
 * at or past it writes nothing, fails with EFBIG and sends SIGXFSZ to the
 * writer; a writev whose later segment starts at the limit just stops
 * (no signal), but a sendfile cut short goes on writing at the limit
 * (SIGXFSZ with its count); ftruncate and fallocate (even FALLOC_FL_KEEP_SIZE) past it
 * are EFBIG with SIGXFSZ, shrinking is not limited. With SIGXFSZ at its
 * default action the writer dies of it (the child is made non-dumpable,
 * so no core on either kernel: wait_status checks the core bit).
 *
 * The files are memfd_create's (tmpfs on both kernels: fallocate's rule
 * is tmpfs's). The limited work runs in forked children, so the limit
 * never applies to the program's own output. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define LIMIT 10000

/* What a child saw, for the parent to check: a call's result and errno,
 * and SIGXFSZ deliveries after it. */
struct outcome {
	long ret;
	int err;
	int signals;
};

enum { WRITE_FITS, WRITE_SHORT, WRITE_AT, PWRITE_PAST, PWRITE_SHORT, WRITEV_STOPS, WRITEV_AT, SENDFILE_SHORT,
       SENDFILE_AT, TRUNC_GROW, TRUNC_AT_LIMIT, TRUNC_SHRINK, FALLOC, FALLOC_KEEP, FALLOC_IN, SIZE_AFTER, TRUNCATE_PATH, NR };
static const char *const names[NR] = { "write that fits", "write cut at the limit", "write at the limit",
				       "pwrite past the limit", "pwrite cut", "writev stops at the limit",
				       "writev at the limit", "sendfile cut", "sendfile at the limit",
				       "ftruncate past the limit", "ftruncate to the limit", "ftruncate shrinking",
				       "fallocate past the limit", "fallocate KEEP_SIZE past the limit",
				       "fallocate within the limit", "size at the end",
				       "truncate (by path) past the limit" };

static struct outcome *shared;
static volatile int xfsz_count;

static void on_xfsz(int sig)
{
	(void)sig;
	xfsz_count++;
}

static int memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, 0u); }

static void record(int i, long ret)
{
	shared[i] = (struct outcome){ ret, ret < 0 ? errno : 0, xfsz_count };
	xfsz_count = 0;
}

/* The child's work, with SIGXFSZ caught (counted). */
static void limited_calls(void)
{
	static char buf[8192];
	memset(buf, 'x', sizeof(buf));
	int fd = memfd("limited"), in = memfd("in");
	if (fd < 0 || in < 0 || write(in, buf, sizeof(buf)) != sizeof(buf))
		_exit(3);
	struct rlimit rl = { LIMIT, RLIM_INFINITY };
	if (setrlimit(RLIMIT_FSIZE, &rl))
		_exit(4);
	record(WRITE_FITS, write(fd, buf, 8000));
	record(WRITE_SHORT, write(fd, buf, 4000)); /* 2000 fit */
	record(WRITE_AT, write(fd, buf, 1));
	record(PWRITE_PAST, pwrite(fd, buf, 10, 20000));
	record(PWRITE_SHORT, pwrite(fd, buf, 10, LIMIT - 1));
	/* writev: the first segment reaches the limit, the second stops. */
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		_exit(5);
	struct iovec iov[2] = { { buf, 6000 }, { buf, 4000 } };
	record(WRITEV_STOPS, writev(fd, iov, 2)); /* 10000, no signal */
	record(WRITEV_AT, writev(fd, iov, 2));
	if (ftruncate(fd, 0) || lseek(fd, 6000, SEEK_SET) != 6000 || lseek(in, 0, SEEK_SET))
		_exit(6);
	/* 4000 fit; the splice writes on from the limit (Linux's
	 * iter_file_splice_write drains its pipe): SIGXFSZ too. */
	record(SENDFILE_SHORT, syscall(SYS_sendfile, fd, in, NULL, 8192));
	record(SENDFILE_AT, syscall(SYS_sendfile, fd, in, NULL, 8192));
	record(TRUNC_GROW, ftruncate(fd, LIMIT + 1));
	record(TRUNC_AT_LIMIT, ftruncate(fd, LIMIT));
	record(TRUNC_SHRINK, ftruncate(fd, 100));
	record(FALLOC, fallocate(fd, 0, 9000, 2000));
	record(FALLOC_KEEP, fallocate(fd, FALLOC_FL_KEEP_SIZE, 9000, 2000));
	record(FALLOC_IN, fallocate(fd, 0, 0, LIMIT));
	record(SIZE_AFTER, lseek(fd, 0, SEEK_END));
	/* truncate(2) by path: the same check (setattr_prepare). */
	char path[64];
	snprintf(path, sizeof(path), "/tmp/rlimit_fsize.%d", (int)getpid());
	int pf = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
	if (pf < 0)
		_exit(7);
	close(pf);
	record(TRUNCATE_PATH, truncate(path, LIMIT + 1));
	unlink(path);
	_exit(0);
}

static void caught(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGXFSZ, on_xfsz);
		limited_calls();
	}
	CHECK(pid > 0);
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	static const struct outcome want[NR] = {
		[WRITE_FITS] = { 8000, 0, 0 },       [WRITE_SHORT] = { 2000, 0, 0 },
		[WRITE_AT] = { -1, EFBIG, 1 },       [PWRITE_PAST] = { -1, EFBIG, 1 },
		[PWRITE_SHORT] = { 1, 0, 0 },        [WRITEV_STOPS] = { LIMIT, 0, 0 },
		[WRITEV_AT] = { -1, EFBIG, 1 },      [SENDFILE_SHORT] = { 4000, 0, 1 },
		[SENDFILE_AT] = { -1, EFBIG, 1 },    [TRUNC_GROW] = { -1, EFBIG, 1 },
		[TRUNC_AT_LIMIT] = { 0, 0, 0 },      [TRUNC_SHRINK] = { 0, 0, 0 },
		[FALLOC] = { -1, EFBIG, 1 },         [FALLOC_KEEP] = { -1, EFBIG, 1 },
		[FALLOC_IN] = { 0, 0, 0 },           [SIZE_AFTER] = { LIMIT, 0, 0 },
		[TRUNCATE_PATH] = { -1, EFBIG, 1 },
	};
	for (int i = 0; i < NR; i++)
		CHECKF(shared[i].ret == want[i].ret && shared[i].err == want[i].err &&
			       shared[i].signals == want[i].signals,
		       "%s: %ld (%s), %d SIGXFSZ; expected %ld (%s), %d", names[i], shared[i].ret,
		       errno_name(shared[i].err), shared[i].signals, want[i].ret, errno_name(want[i].err),
		       want[i].signals);
}

/* SIGXFSZ ignored: EFBIG alone. */
static void ignored(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		int fd = memfd("ignored");
		struct rlimit rl = { 100, RLIM_INFINITY };
		if (fd < 0 || setrlimit(RLIMIT_FSIZE, &rl))
			_exit(3);
		errno = 0;
		long a = write(fd, "0123456789", 10);
		long b = pwrite(fd, "x", 1, 100);
		_exit(a == 10 && b == -1 && errno == EFBIG ? 0 : 1);
	}
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "SIGXFSZ ignored: child status %#x", status);
}

/* SIGXFSZ at its default action: the writer is killed by it. */
static void killed(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		int fd = memfd("killed");
		struct rlimit rl = { 100, RLIM_INFINITY };
		if (fd < 0 || setrlimit(RLIMIT_FSIZE, &rl))
			_exit(3);
		(void)pwrite(fd, "x", 1, 200);
		_exit(1); /* only if the signal did not end it */
	}
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ && !WCOREDUMP(status),
	       "default SIGXFSZ: child status %#x", status);
}

/* setrlimit and prlimit64 keep the limit. */
static void kept(void)
{
	struct rlimit old, got;
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	struct rlimit rl = { 12345, old.rlim_max }; /* the hard limit kept: no privilege needed */
	CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
	CHECK(getrlimit(RLIMIT_FSIZE, &got) == 0 && got.rlim_cur == 12345 && got.rlim_max == old.rlim_max);
	struct rlimit next = { 20000, old.rlim_max };
	CHECK(syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, &next, &got) == 0 && got.rlim_cur == 12345);
	CHECK(getrlimit(RLIMIT_FSIZE, &got) == 0 && got.rlim_cur == 20000);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
}

int main(void)
{
	test_begin("rlimit_fsize");
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shared != MAP_FAILED);
	caught();
	ignored();
	killed();
	kept();
	return test_end();
}
