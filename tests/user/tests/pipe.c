/* pipe(2), pipe2(2) and FIFOs, the same binary on Linux and mmlab:
 * pipe2's flags (O_CLOEXEC, O_NONBLOCK, O_DIRECT packets) and EINVAL,
 * data across fork with end of file once the last writer closed, EPIPE
 * with SIGPIPE (caught, ignored, and the default that kills), O_NONBLOCK
 * (pipe2, F_SETFL, FIONBIO) with EAGAIN and PIPE_BUF atomicity (a small
 * write that does not fit writes nothing), F_GETPIPE_SZ and F_SETPIPE_SZ
 * (rounding, EBUSY, EPERM above /proc/sys/fs/pipe-max-size without
 * CAP_SYS_RESOURCE, EINVAL), FIONREAD, FIOCLEX/FIONCLEX, fstat's S_IFIFO,
 * /proc/self/fd's "pipe:[ino]", ESPIPE, poll and select on pipes
 * (POLLHUP for a reader with no writers, POLLERR for a writer with no
 * readers, a writer woken when a reader makes room), a named FIFO's open
 * rules (ENXIO, O_NONBLOCK readers, a blocking open that waits for the
 * other side), vmsplice in and out of a pipe and sendfile into one.
 * Expectations come from the kernel's own figures (F_GETPIPE_SZ,
 * pipe-max-size, CapEff). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032
#endif
#define CAP_SYS_RESOURCE 24

static volatile int pipes_seen;
static void on_sigpipe(int sig) { (void)sig, pipes_seen++; }

static long page_size(void) { return sysconf(_SC_PAGESIZE); }

static bool make_pipe(int fds[2], int flags) { return CHECK_CMP(pipe2(fds, flags), ==, 0); }

static void close_pair(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

/* pipe2's flags land where Linux puts them: close-on-exec on both, the
 * read end O_RDONLY (| O_NONBLOCK), the write end O_WRONLY (| O_NONBLOCK |
 * O_DIRECT). */
static void pipe2_flags(void)
{
	int fds[2];
	if (!make_pipe(fds, O_CLOEXEC | O_NONBLOCK))
		return;
	CHECK_CMP(fcntl(fds[0], F_GETFD), ==, FD_CLOEXEC);
	CHECK_CMP(fcntl(fds[1], F_GETFD), ==, FD_CLOEXEC);
	CHECK_CMP(fcntl(fds[0], F_GETFL), ==, O_RDONLY | O_NONBLOCK);
	CHECK_CMP(fcntl(fds[1], F_GETFL), ==, O_WRONLY | O_NONBLOCK);
	close_pair(fds);
	if (!CHECK_CMP(syscall(SYS_pipe, fds), ==, 0))
		return;
	CHECK_CMP(fcntl(fds[0], F_GETFD), ==, 0);
	CHECK_CMP(fcntl(fds[0], F_GETFL), ==, O_RDONLY);
	CHECK_CMP(fcntl(fds[1], F_GETFL), ==, O_WRONLY);
	close_pair(fds);
	CHECK_ERRNO(pipe2(fds, O_WRONLY), EINVAL);
	CHECK_ERRNO(pipe2(fds, O_APPEND), EINVAL);
	CHECK_ERRNO(syscall(SYS_pipe2, (void *)8, 0), EFAULT);
	CHECK_ERRNO(syscall(SYS_pipe, (void *)8), EFAULT);
}

/* O_DIRECT: each write is a packet; a read takes at most one, and what
 * does not fit in the reader's buffer is dropped. */
static void packet_mode(void)
{
	int fds[2];
	if (!make_pipe(fds, O_DIRECT | O_NONBLOCK))
		return;
	CHECK_CMP(fcntl(fds[1], F_GETFL), ==, O_WRONLY | O_NONBLOCK | O_DIRECT);
	CHECK_CMP(fcntl(fds[0], F_GETFL), ==, O_RDONLY | O_NONBLOCK);
	CHECK_CMP(write(fds[1], "abc", 3), ==, 3);
	CHECK_CMP(write(fds[1], "defg", 4), ==, 4);
	char buf[16];
	CHECK_CMP(read(fds[0], buf, sizeof(buf)), ==, 3);
	CHECK(!memcmp(buf, "abc", 3));
	CHECK_CMP(read(fds[0], buf, 2), ==, 2);
	CHECK(!memcmp(buf, "de", 2));
	CHECK_ERRNO(read(fds[0], buf, sizeof(buf)), EAGAIN); /* "fg" went with its packet */
	close_pair(fds);
}

/* A child writes more than the pipe holds, in odd pieces; the parent
 * reads it all back in order, then end of file. */
static void fork_and_eof(void)
{
	int fds[2];
	if (!make_pipe(fds, 0))
		return;
	const size_t total = 300000;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		unsigned char chunk[1237];
		size_t sent = 0;
		while (sent < total) {
			size_t n = total - sent < sizeof(chunk) ? total - sent : sizeof(chunk);
			for (size_t i = 0; i < n; i++)
				chunk[i] = (unsigned char)((sent + i) * 7 + 3);
			if (write(fds[1], chunk, n) != (ssize_t)n)
				_exit(2);
			sent += n;
		}
		_exit(0);
	}
	close(fds[1]);
	unsigned char buf[5000];
	size_t got = 0;
	bool same = true;
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			same = same && buf[i] == (unsigned char)((got + (size_t)i) * 7 + 3);
		got += (size_t)n;
	}
	CHECK_CMP(n, ==, 0);
	CHECK_CMP(got, ==, total);
	CHECK(same);
	CHECK_CMP(wait_status_of(pid), ==, 0);
	close(fds[0]);
}

/* No reader: EPIPE, and SIGPIPE caught, ignored, or (the default) fatal. */
static void epipe_and_sigpipe(void)
{
	int fds[2];
	if (!make_pipe(fds, 0))
		return;
	close(fds[0]);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	CHECK_CMP(sigaction(SIGPIPE, &sa, NULL), ==, 0);
	pipes_seen = 0;
	CHECK_ERRNO(write(fds[1], "x", 1), EPIPE);
	CHECK_CMP(pipes_seen, ==, 1);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERRNO(write(fds[1], "x", 1), EPIPE);
	CHECK_CMP(pipes_seen, ==, 1);
	signal(SIGPIPE, SIG_DFL);
	pid_t pid = fork();
	if (pid == 0) {
		(void)!write(fds[1], "x", 1);
		_exit(0);
	}
	CHECK_CMP(wait_status_of(pid), ==, 100 + SIGPIPE);
	close(fds[1]);
}

/* Nonblocking: an empty pipe's read is EAGAIN; writes fill exactly
 * F_GETPIPE_SZ bytes; a write of at most PIPE_BUF that does not fit
 * writes nothing (EAGAIN), a larger one writes what fits. F_SETFL and
 * FIONBIO switch O_NONBLOCK. */
static void nonblocking(void)
{
	int fds[2];
	if (!make_pipe(fds, O_NONBLOCK))
		return;
	long ps = page_size();
	long size = fcntl(fds[1], F_GETPIPE_SZ);
	CHECK_CMP(size, ==, 16 * ps); /* Linux's default: 16 pages */
	char buf[4096 * 2];
	memset(buf, 'p', sizeof(buf));
	CHECK_ERRNO(read(fds[0], buf, 1), EAGAIN);
	long filled = 0;
	for (long i = 0; i < size / ps - 1; i++)
		filled += write(fds[1], buf, (size_t)ps);
	CHECK_CMP(filled, ==, size - ps);
	CHECK_CMP(write(fds[1], buf, (size_t)ps - 100), ==, ps - 100); /* the last buffer */
	/* 200 bytes fit neither the last buffer (100 left) nor a new one. */
	CHECK_ERRNO(write(fds[1], buf, 200), EAGAIN);
	CHECK_CMP(write(fds[1], buf, 100), ==, 100); /* 100 fit where they are */
	CHECK_ERRNO(write(fds[1], buf, 1), EAGAIN);
	int avail = -1;
	CHECK_CMP(ioctl(fds[0], FIONREAD, &avail), ==, 0);
	CHECK_CMP(avail, ==, size);
	/* Drained, a write bigger than the pipe writes what fits. */
	while (read(fds[0], buf, sizeof(buf)) > 0)
		;
	char *big = malloc((size_t)size * 2);
	if (CHECK(big != NULL)) {
		memset(big, 'q', (size_t)size * 2);
		CHECK_CMP(write(fds[1], big, (size_t)size * 2), ==, size);
		free(big);
	}
	CHECK_CMP(ioctl(fds[0], FIONREAD, &avail), ==, 0);
	CHECK_CMP(avail, ==, size);
	while (read(fds[0], buf, sizeof(buf)) > 0)
		;
	/* F_SETFL and FIONBIO: blocking off and on again (an empty pipe
	 * with a writer: a blocking read would wait, so only EAGAIN is read). */
	CHECK_CMP(fcntl(fds[0], F_SETFL, 0), ==, 0);
	CHECK_CMP(fcntl(fds[0], F_GETFL), ==, O_RDONLY);
	int on = 1;
	CHECK_CMP(ioctl(fds[0], FIONBIO, &on), ==, 0);
	CHECK_CMP(fcntl(fds[0], F_GETFL), ==, O_RDONLY | O_NONBLOCK);
	CHECK_ERRNO(read(fds[0], buf, 1), EAGAIN);
	on = 0;
	CHECK_CMP(ioctl(fds[0], FIONBIO, &on), ==, 0);
	CHECK_CMP(fcntl(fds[0], F_GETFL), ==, O_RDONLY);
	CHECK_CMP(ioctl(fds[0], FIOCLEX), ==, 0);
	CHECK_CMP(fcntl(fds[0], F_GETFD), ==, FD_CLOEXEC);
	CHECK_CMP(ioctl(fds[0], FIONCLEX), ==, 0);
	CHECK_CMP(fcntl(fds[0], F_GETFD), ==, 0);
	close_pair(fds);
}

static long read_long(const char *path)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	long v = -1;
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};

/* F_SETPIPE_SZ: sizes round up to a power-of-two number of pages; a
 * size the buffers in use do not fit in is EBUSY; above pipe-max-size
 * needs CAP_SYS_RESOURCE (a child without it gets EPERM). */
static void set_pipe_size(void)
{
	int fds[2];
	if (!make_pipe(fds, O_NONBLOCK))
		return;
	long ps = page_size();
	long max = read_long("/proc/sys/fs/pipe-max-size");
	CHECK_CMP(max, >=, ps);
	CHECK_CMP(fcntl(fds[0], F_SETPIPE_SZ, ps + 1), ==, 2 * ps);
	CHECK_CMP(fcntl(fds[1], F_GETPIPE_SZ), ==, 2 * ps);
	CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, 1), ==, ps);
	CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, 3 * ps), ==, 4 * ps);
	CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, 0), ==, ps); /* rounded up to one page */
	CHECK_ERRNO(fcntl(fds[1], F_SETPIPE_SZ, 0x80000001u), EINVAL);
	CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, 4 * ps), ==, 4 * ps);
	char buf[4096];
	memset(buf, 'z', sizeof(buf));
	for (int i = 0; i < 3; i++) /* three buffers in use */
		CHECK_CMP(write(fds[1], buf, (size_t)ps), ==, ps);
	CHECK_ERRNO(fcntl(fds[1], F_SETPIPE_SZ, 2 * ps), EBUSY);
	CHECK_CMP(fcntl(fds[1], F_GETPIPE_SZ), ==, 4 * ps);
	CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, 3 * ps), ==, 4 * ps); /* still four pages */
	CHECK_CMP(read(fds[0], buf, sizeof(buf)), ==, ps); /* the data survived the moves */
	CHECK_CMP(buf[0], ==, 'z');
	CHECK_ERRNO(fcntl(0, F_GETPIPE_SZ), EBADF);
	pid_t pid = fork();
	if (pid == 0) {
		struct cap_header h = { 0x20080522, 0 };
		struct cap_data d[2];
		if (syscall(SYS_capget, &h, d) == 0) {
			d[0].effective &= ~(1u << CAP_SYS_RESOURCE);
			CHECK_CMP(syscall(SYS_capset, &h, d), ==, 0);
		}
		CHECK_ERRNO(fcntl(fds[1], F_SETPIPE_SZ, max * 2), EPERM);
		/* Shrinking and sizes up to the limit need no privilege. */
		CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, 4 * ps), ==, 4 * ps);
		_exit(checks_failed() ? 1 : 0);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
	close_pair(fds);
}

/* fstat: a FIFO of the pipe file system, 0600, one inode for both ends,
 * which /proc/self/fd names "pipe:[ino]"; no offset (ESPIPE). */
static void pipe_identity(void)
{
	int fds[2];
	if (!make_pipe(fds, 0))
		return;
	struct stat r, w;
	CHECK_CMP(fstat(fds[0], &r), ==, 0);
	CHECK_CMP(fstat(fds[1], &w), ==, 0);
	CHECK(S_ISFIFO(r.st_mode));
	CHECK_CMP(r.st_mode & 07777, ==, 0600);
	CHECK_CMP(r.st_ino, ==, w.st_ino);
	CHECK_CMP(r.st_dev, ==, w.st_dev);
	CHECK_CMP(r.st_nlink, ==, 1);
	CHECK_CMP(r.st_blksize, ==, page_size());
	char path[64], link[64], want[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	CHECK_CMP(n, >, 0);
	link[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)r.st_ino);
	CHECKF(!strcmp(link, want), "readlink %s = %s, want %s", path, link, want);
	CHECK_ERRNO(lseek(fds[0], 0, SEEK_SET), ESPIPE);
	char c;
	CHECK_ERRNO(pread(fds[0], &c, 1, 0), ESPIPE);
	CHECK_ERRNO(pwrite(fds[1], &c, 1, 0), ESPIPE);
	CHECK_ERRNO(write(fds[0], "x", 1), EBADF); /* the read end */
	CHECK_ERRNO(read(fds[1], &c, 1), EBADF);
	close_pair(fds);
}

/* poll and select on pipes, as Linux: the reader sees POLLIN, then
 * POLLHUP once no writer is left; the writer POLLOUT until full, and
 * POLLERR once no reader is left (select counts it writable). */
static void poll_pipes(void)
{
	int fds[2];
	if (!make_pipe(fds, O_NONBLOCK))
		return;
	struct pollfd p[2] = { { fds[0], POLLIN | POLLOUT, 0 }, { fds[1], POLLIN | POLLOUT, 0 } };
	CHECK_CMP(poll(p, 2, 0), ==, 1);
	CHECK_CMP(p[0].revents, ==, 0);
	CHECK_CMP(p[1].revents, ==, POLLOUT);
	CHECK_CMP(write(fds[1], "data", 4), ==, 4);
	CHECK_CMP(poll(p, 2, 0), ==, 2);
	CHECK_CMP(p[0].revents, ==, POLLIN);
	char buf[4096];
	memset(buf, 0, sizeof(buf));
	while (write(fds[1], buf, sizeof(buf)) > 0)
		;
	CHECK_CMP(poll(&p[1], 1, 0), ==, 0); /* full */
	close(fds[1]);
	p[0].events = POLLIN;
	CHECK_CMP(poll(p, 1, 0), ==, 1);
	CHECK_CMP(p[0].revents, ==, POLLIN | POLLHUP);
	while (read(fds[0], buf, sizeof(buf)) > 0)
		;
	CHECK_CMP(poll(p, 1, 0), ==, 1);
	CHECK_CMP(p[0].revents, ==, POLLHUP);
	close(fds[0]);

	if (!make_pipe(fds, 0))
		return;
	close(fds[0]);
	p[1].fd = fds[1];
	p[1].events = POLLOUT;
	CHECK_CMP(poll(&p[1], 1, 0), ==, 1);
	CHECK_CMP(p[1].revents, ==, POLLOUT | POLLERR);
	fd_set wr;
	FD_ZERO(&wr);
	FD_SET(fds[1], &wr);
	struct timeval tv = { 0, 0 };
	CHECK_CMP(select(fds[1] + 1, NULL, &wr, NULL, &tv), ==, 1);
	close(fds[1]);
}

/* A writer polling a full pipe sleeps until a reader in another process
 * makes room; a reader polling an empty one until a writer writes. */
static void poll_wakeups(void)
{
	int fds[2];
	if (!make_pipe(fds, O_NONBLOCK))
		return;
	char buf[4096];
	memset(buf, 0, sizeof(buf));
	while (write(fds[1], buf, sizeof(buf)) > 0)
		;
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec d = { 0, 30000000 };
		nanosleep(&d, NULL);
		_exit(read(fds[0], buf, sizeof(buf)) == (ssize_t)sizeof(buf) ? 0 : 1);
	}
	struct pollfd p = { fds[1], POLLOUT, 0 };
	CHECK_CMP(poll(&p, 1, -1), ==, 1);
	CHECK_CMP(p.revents, ==, POLLOUT);
	CHECK_CMP(wait_status_of(pid), ==, 0);
	while (read(fds[0], buf, sizeof(buf)) > 0)
		;
	pid = fork();
	if (pid == 0) {
		struct timespec d = { 0, 30000000 };
		nanosleep(&d, NULL);
		_exit(write(fds[1], "w", 1) == 1 ? 0 : 1);
	}
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(fds[0], &rd);
	CHECK_CMP(select(fds[0] + 1, &rd, NULL, NULL, NULL), ==, 1);
	CHECK(FD_ISSET(fds[0], &rd));
	CHECK_CMP(wait_status_of(pid), ==, 0);
	close_pair(fds);
}

/* A named FIFO: O_WRONLY|O_NONBLOCK with no reader is ENXIO; an
 * O_RDONLY|O_NONBLOCK reader opens at once and is not told POLLHUP before
 * a writer came; a blocking O_WRONLY open waits for the reader a child
 * opens. */
static void named_fifo(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/pipe_fifo.%d", (int)getpid());
	if (!CHECK_CMP(mkfifo(path, 0600), ==, 0))
		return;
	struct stat st;
	CHECK_CMP(stat(path, &st), ==, 0);
	CHECK(S_ISFIFO(st.st_mode));
	CHECK_ERRNO(open(path, O_WRONLY | O_NONBLOCK), ENXIO);
	int rd = open(path, O_RDONLY | O_NONBLOCK);
	CHECK_CMP(rd, >=, 0);
	struct pollfd p = { rd, POLLIN, 0 };
	CHECK_CMP(poll(&p, 1, 0), ==, 0); /* no writer yet: no POLLHUP */
	char c;
	CHECK_CMP(read(rd, &c, 1), ==, 0); /* no writer: end of file */
	int wr = open(path, O_WRONLY | O_NONBLOCK);
	CHECK_CMP(wr, >=, 0);
	CHECK_CMP(write(wr, "f", 1), ==, 1);
	CHECK_CMP(read(rd, &c, 1), ==, 1);
	CHECK_CMP(c, ==, 'f');
	CHECK_CMP(fcntl(wr, F_GETPIPE_SZ), ==, 16 * page_size());
	close(wr);
	CHECK_CMP(poll(&p, 1, 0), ==, 1); /* a writer came and went */
	CHECK_CMP(p.revents, ==, POLLHUP);
	close(rd);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDONLY); /* waits for the parent's writer */
		char got[8] = { 0 };
		bool ok = fd >= 0 && read(fd, got, sizeof(got)) == 5 && !memcmp(got, "hello", 5);
		_exit(ok ? 0 : 1);
	}
	wr = open(path, O_WRONLY); /* waits for the child's reader */
	CHECK_CMP(wr, >=, 0);
	CHECK_CMP(write(wr, "hello", 5), ==, 5);
	close(wr);
	CHECK_CMP(wait_status_of(pid), ==, 0);
	int rw = open(path, O_RDWR); /* never waits */
	CHECK_CMP(rw, >=, 0);
	close(rw);
	CHECK_CMP(unlink(path), ==, 0);
}

/* vmsplice: user pages into the pipe (read back as written, a buffer
 * per page piece), SPLICE_F_NONBLOCK on a full pipe, the pipe's bytes
 * out into an iovec, EPIPE without a reader, EINVAL and EBADF. */
static void vmsplice_pipes(void)
{
	int fds[2];
	if (!make_pipe(fds, 0))
		return;
	long ps = page_size();
	unsigned char *mem = mmap(NULL, (size_t)ps * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(mem != MAP_FAILED))
		return;
	for (long i = 0; i < ps * 4; i++)
		mem[i] = (unsigned char)(i * 13 + 1);
	struct iovec iov = { mem + 100, (size_t)ps * 2 + 50 }; /* three page pieces */
	CHECK_CMP(vmsplice(fds[1], &iov, 1, 0), ==, ps * 2 + 50);
	int avail = -1;
	CHECK_CMP(ioctl(fds[0], FIONREAD, &avail), ==, 0);
	CHECK_CMP(avail, ==, ps * 2 + 50);
	unsigned char *back = malloc((size_t)ps * 3);
	if (CHECK(back != NULL)) {
		CHECK_CMP(read(fds[0], back, (size_t)ps * 3), ==, ps * 2 + 50);
		CHECK(!memcmp(back, mem + 100, (size_t)ps * 2 + 50));
		free(back);
	}
	/* Out of the pipe into two segments. */
	CHECK_CMP(write(fds[1], "hello world", 11), ==, 11);
	char a[5], b[16];
	struct iovec out[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	CHECK_CMP(vmsplice(fds[0], out, 2, 0), ==, 11);
	CHECK(!memcmp(a, "hello", 5) && !memcmp(b, " world", 6));
	CHECK_ERRNO(vmsplice(fds[0], out, 2, SPLICE_F_NONBLOCK), EAGAIN); /* empty */
	/* Full: SPLICE_F_NONBLOCK is EAGAIN. */
	CHECK_CMP(fcntl(fds[1], F_SETPIPE_SZ, ps), ==, ps);
	struct iovec one = { mem, (size_t)ps };
	CHECK_CMP(vmsplice(fds[1], &one, 1, SPLICE_F_NONBLOCK), ==, ps);
	CHECK_ERRNO(vmsplice(fds[1], &one, 1, SPLICE_F_NONBLOCK), EAGAIN);
	CHECK_ERRNO(vmsplice(fds[1], &one, 1, 0x100), EINVAL);
	int fd = open("/proc/self/status", O_RDONLY);
	CHECK_ERRNO(vmsplice(fd, &one, 1, 0), EBADF);
	close(fd);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERRNO(vmsplice(fds[1], &one, 1, 0), EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
	munmap(mem, (size_t)ps * 4);
}

/* sendfile into a pipe: it fills the free buffers, each from the input's
 * offset in its page to the page's end, and returns (Linux's
 * splice_file_to_pipe); O_NONBLOCK on a full pipe is EAGAIN, no reader
 * EPIPE; a pipe as the input is EINVAL. */
static void sendfile_to_pipe(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/pipe_sendfile.%d", (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!CHECK_CMP(fd, >=, 0))
		return;
	unlink(path);
	long ps = page_size();
	size_t size = 100000;
	unsigned char *data = malloc(size), *back = malloc(size);
	int fds[2];
	if (!CHECK(data && back) || !make_pipe(fds, 0)) {
		free(data);
		free(back);
		close(fd);
		return;
	}
	for (size_t i = 0; i < size; i++)
		data[i] = (unsigned char)(i * 31 + 7);
	CHECK_CMP(write(fd, data, size), ==, (ssize_t)size);
	long slots = fcntl(fds[1], F_GETPIPE_SZ) / ps;
	off_t off = 100;
	long want = (ps - 100) + (slots - 1) * ps; /* the first buffer is the rest of page 0 */
	CHECK_CMP(sendfile(fds[1], fd, &off, size), ==, want);
	CHECK_CMP(off, ==, 100 + want);
	CHECK_CMP(read(fds[0], back, size), ==, want);
	CHECK(!memcmp(back, data + 100, (size_t)want));
	/* With no offset given, from the file's own, which it moves. */
	CHECK_CMP(lseek(fd, 0, SEEK_SET), ==, 0);
	CHECK_CMP(sendfile(fds[1], fd, NULL, 5000), ==, 5000);
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, 5000);
	CHECK_CMP(read(fds[0], back, size), ==, 5000);
	CHECK(!memcmp(back, data, 5000));
	CHECK_ERRNO(sendfile(fds[1], fds[0], NULL, 10), EINVAL); /* a pipe is no input */
	CHECK_CMP(fcntl(fds[1], F_SETFL, O_NONBLOCK), ==, 0);
	while (write(fds[1], data, (size_t)ps) > 0)
		;
	CHECK_ERRNO(sendfile(fds[1], fd, NULL, 10), EAGAIN);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERRNO(sendfile(fds[1], fd, NULL, 10), EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
	close(fd);
	free(data);
	free(back);
}

int main(void)
{
	test_begin("pipe");
	pipe2_flags();
	packet_mode();
	fork_and_eof();
	epipe_and_sigpipe();
	nonblocking();
	set_pipe_size();
	pipe_identity();
	poll_pipes();
	poll_wakeups();
	named_fifo();
	vmsplice_pipes();
	sendfile_to_pipe();
	return test_end();
}
