/* socketpair(AF_UNIX, ...), the same binary on Linux and mmlab: a stream
 * echo across fork, EOF once the peer closed or shut its writing down,
 * EPIPE with SIGPIPE (none with MSG_NOSIGNAL), datagram and seqpacket
 * message boundaries and truncation (MSG_TRUNC), nonblocking EAGAIN
 * (SOCK_NONBLOCK, MSG_DONTWAIT), a blocking read interrupted by a signal
 * (EINTR without SA_RESTART, restarted with it), fstat's S_IFSOCK and
 * /proc/self/fd's "socket:[ino]", getsockopt, and Linux's errnos for bad
 * arguments. Where mmlab differs on purpose (it has no family but
 * AF_UNIX) the program asks which kernel it runs on. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile int pipes_seen, signals_seen;

static void on_sigpipe(int sig) { (void)sig, pipes_seen++; }
static void on_sigusr1(int sig) { (void)sig, signals_seen++; }

static bool pair(int type, int sv[2])
{
	return CHECK_CMP(socketpair(AF_UNIX, type, 0, sv), ==, 0);
}

/* The parent writes lines, the child sends each back; the parent's
 * SHUT_WR ends the child's loop (EOF), and the child's exit ends the
 * parent's reads (EOF). */
static void stream_echo(void)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		char buf[256];
		long n;
		while ((n = read(sv[1], buf, sizeof(buf))) > 0)
			if (write(sv[1], buf, (size_t)n) != n)
				_exit(2);
		_exit(n == 0 ? 0 : 3);
	}
	close(sv[1]);
	char line[32], back[32];
	bool all = true;
	for (int i = 0; i < 20; i++) {
		int len = snprintf(line, sizeof(line), "line %d", i);
		long got = 0;
		if (write(sv[0], line, (size_t)len) != len)
			all = false;
		while (got < len) { /* a stream may hand it back in pieces */
			long n = read(sv[0], back + got, (size_t)(len - got));
			if (n <= 0)
				break;
			got += n;
		}
		all = all && got == len && !memcmp(line, back, (size_t)len);
	}
	CHECK(all);
	CHECK_CMP(shutdown(sv[0], SHUT_WR), ==, 0);
	CHECK_ERRNO(write(sv[0], "x", 1), EPIPE); /* our own SHUT_WR */
	pipes_seen = 0;
	int status;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_CMP(read(sv[0], back, sizeof(back)), ==, 0); /* the child closed */
	close(sv[0]);
}

static void eof_and_epipe(void)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	CHECK_CMP(write(sv[1], "last", 4), ==, 4);
	close(sv[1]);
	char buf[8];
	CHECK_CMP(read(sv[0], buf, sizeof(buf)), ==, 4); /* what was sent is read first */
	CHECK_CMP(read(sv[0], buf, sizeof(buf)), ==, 0);
	pipes_seen = 0;
	CHECK_ERRNO(write(sv[0], "x", 1), EPIPE);
	CHECK_CMP(pipes_seen, ==, 1);
	CHECK_ERRNO(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	CHECK_CMP(pipes_seen, ==, 1);
	close(sv[0]);
}

static void datagrams(int type)
{
	int sv[2];
	if (!pair(type, sv))
		return;
	char buf[64];
	CHECK_CMP(send(sv[0], "abc", 3, 0), ==, 3);
	CHECK_CMP(send(sv[0], "defgh", 5, 0), ==, 5);
	CHECK_CMP(send(sv[0], "", 0, 0), ==, 0);
	CHECK_CMP(recv(sv[1], buf, sizeof(buf), 0), ==, 3);
	CHECK_CMP(recv(sv[1], buf, sizeof(buf), MSG_PEEK), ==, 5);
	CHECK_CMP(recv(sv[1], buf, sizeof(buf), 0), ==, 5);
	CHECK(!memcmp(buf, "defgh", 5));
	CHECK_CMP(recv(sv[1], buf, sizeof(buf), 0), ==, 0); /* the empty one */
	/* A message longer than the buffer: cut, the rest lost. */
	CHECK_CMP(write(sv[1], "0123456789", 10), ==, 10);
	struct iovec iov = { buf, 4 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	CHECK_CMP(recvmsg(sv[0], &msg, 0), ==, 4);
	CHECK(msg.msg_flags & MSG_TRUNC);
	CHECK(!memcmp(buf, "0123", 4));
	CHECK_ERRNO(recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	CHECK_CMP(write(sv[1], "0123456789", 10), ==, 10);
	CHECK_CMP(recv(sv[0], buf, 4, MSG_TRUNC), ==, 10); /* the whole length */
	/* Gathered from several buffers: one message. */
	struct iovec two[2] = { { "ab", 2 }, { "cd", 2 } };
	struct msghdr out = { .msg_iov = two, .msg_iovlen = 2 };
	CHECK_CMP(sendmsg(sv[0], &out, 0), ==, 4);
	CHECK_CMP(recv(sv[1], buf, sizeof(buf), 0), ==, 4);
	CHECK(!memcmp(buf, "abcd", 4));
	close(sv[1]);
	if (type == SOCK_SEQPACKET) {
		CHECK_CMP(recv(sv[0], buf, sizeof(buf), 0), ==, 0); /* a connection's EOF */
		CHECK_ERRNO(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	} else {
		CHECK_ERRNO(recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN); /* no EOF */
		CHECK_ERRNO(send(sv[0], "x", 1, 0), ECONNREFUSED);
		CHECK_ERRNO(send(sv[0], "x", 1, 0), ENOTCONN);
	}
	close(sv[0]);
}

static void nonblocking(void)
{
	int sv[2];
	if (!CHECK_CMP(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), ==, 0))
		return;
	CHECK(fcntl(sv[0], F_GETFL) & O_NONBLOCK);
	CHECK(fcntl(sv[0], F_GETFD) & FD_CLOEXEC);
	char buf[4096];
	CHECK_ERRNO(read(sv[0], buf, sizeof(buf)), EAGAIN);
	memset(buf, 'z', sizeof(buf));
	/* Fill the buffer: writes end in EAGAIN, after some bytes and before
	 * many (Linux's default is about 200 KiB of send buffer). */
	long total = 0, n;
	while ((n = write(sv[0], buf, sizeof(buf))) > 0 && total < (64l << 20))
		total += n;
	CHECK(n < 0 && errno == EAGAIN);
	CHECKF(total > 0 && total < (8l << 20), "a full stream holds %ld bytes", total);
	int sndbuf = 0;
	socklen_t len = sizeof(sndbuf);
	CHECK_CMP(getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, &len), ==, 0);
	CHECK(sndbuf > 0 && len == sizeof(int));
	/* Read it all back: every byte arrives, in order. */
	long back = 0;
	bool right = true;
	while ((n = read(sv[1], buf, sizeof(buf))) > 0) {
		right = right && all_bytes(buf, (size_t)n, 'z');
		back += n;
	}
	CHECK_CMP(back, ==, total);
	CHECK(right);
	/* MSG_DONTWAIT on a blocking socket. */
	int fl = fcntl(sv[1], F_GETFL);
	CHECK_CMP(fcntl(sv[1], F_SETFL, fl & ~O_NONBLOCK), ==, 0);
	CHECK_ERRNO(recv(sv[1], buf, 1, MSG_DONTWAIT), EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

/* A read blocked on an empty socket, and a child that keeps sending
 * SIGUSR1 until the read has returned. Without SA_RESTART it ends in
 * EINTR; with it the read goes on until the child's byte comes. */
static void interrupted(bool restart)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	volatile int *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(done != MAP_FAILED))
		return;
	struct sigaction sa = { .sa_handler = on_sigusr1, .sa_flags = restart ? SA_RESTART : 0 }, old;
	sigaction(SIGUSR1, &sa, &old);
	signals_seen = 0;
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		int sent = 0;
		while (!__atomic_load_n(done, __ATOMIC_ACQUIRE)) {
			kill(parent, SIGUSR1);
			if (restart && ++sent == 20 && write(sv[1], "r", 1) != 1)
				_exit(2);
			sched_yield();
		}
		_exit(0);
	}
	char c = 0;
	long n = read(sv[0], &c, 1);
	int err = errno;
	__atomic_store_n(done, 1, __ATOMIC_RELEASE);
	waitpid(pid, NULL, 0);
	if (restart) {
		CHECK_CMP(n, ==, 1);
		CHECK(c == 'r');
	} else {
		CHECK(n == -1 && err == EINTR);
	}
	CHECK(signals_seen > 0);
	sigaction(SIGUSR1, &old, NULL);
	munmap((void *)done, 4096);
	close(sv[0]);
	close(sv[1]);
}

static void file_side(void)
{
	int sv[2];
	if (!pair(SOCK_DGRAM, sv))
		return;
	struct stat st;
	CHECK_CMP(fstat(sv[0], &st), ==, 0);
	CHECK(S_ISSOCK(st.st_mode));
	char path[64], link[64], want[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sv[0]);
	long n = readlink(path, link, sizeof(link) - 1);
	CHECK(n > 0);
	link[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)st.st_ino);
	CHECKF(!strcmp(link, want), "%s is %s", path, link);
	int type = 0;
	socklen_t len = sizeof(type);
	CHECK_CMP(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len), ==, 0);
	CHECK_CMP(type, ==, SOCK_DGRAM);
	CHECK_CMP(getsockopt(sv[0], SOL_SOCKET, SO_ERROR, &type, &len), ==, 0);
	CHECK_CMP(type, ==, 0);
	CHECK_ERRNO(lseek(sv[0], 0, SEEK_SET), ESPIPE);
	CHECK_ERRNO(pread(sv[0], link, 1, 0), ESPIPE);
	CHECK_ERRNO(shutdown(sv[0], 7), EINVAL);
	close(sv[0]);
	close(sv[1]);
}

static void bad_arguments(void)
{
	int sv[2];
	CHECK_ERRNO(socketpair(4242, SOCK_STREAM, 0, sv), EAFNOSUPPORT);
	CHECK_ERRNO(socketpair(AF_UNIX, 99, 0, sv), EINVAL);
	CHECK_ERRNO(socketpair(AF_UNIX, SOCK_STREAM | 0x100000, 0, sv), EINVAL);
	CHECK_ERRNO(socketpair(AF_UNIX, SOCK_STREAM, 7, sv), EPROTONOSUPPORT);
	CHECK_ERRNO(socketpair(AF_UNIX, SOCK_RDM, 0, sv), ESOCKTNOSUPPORT);
	/* Linux has AF_INET sockets, which cannot be made in pairs; mmlab
	 * has no family but AF_UNIX. */
	CHECK_ERRNO(socketpair(AF_INET, SOCK_STREAM, 0, sv), on_mmlab() ? EAFNOSUPPORT : EOPNOTSUPP);
	CHECK_ERRNO(send(-1, "x", 1, 0), EBADF);
	int fd = open("/proc/self/status", O_RDONLY);
	CHECK_ERRNO(send(fd, "x", 1, 0), ENOTSOCK);
	CHECK_ERRNO(shutdown(fd, SHUT_RD), ENOTSOCK);
	close(fd);
	int one = socket(AF_UNIX, SOCK_STREAM, 0);
	if (CHECK(one >= 0)) {
		CHECK_ERRNO(send(one, "x", 1, MSG_NOSIGNAL), ENOTCONN);
		char c;
		CHECK_ERRNO(recv(one, &c, 1, 0), EINVAL); /* a stream never connected */
		close(one);
	}
}

int main(void)
{
	test_begin("socketpair");
	signal(SIGPIPE, on_sigpipe);
	stream_echo();
	eof_and_epipe();
	datagrams(SOCK_DGRAM);
	datagrams(SOCK_SEQPACKET);
	nonblocking();
	interrupted(false);
	interrupted(true);
	file_side();
	bad_arguments();
	return test_end();
}
