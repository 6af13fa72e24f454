/* poll(2), ppoll(2), select(2) and pselect6(2), the same binary on Linux
 * and mmlab, on AF_UNIX socketpairs and on files that have no poll method
 * (always readable and writable): readiness as data comes and the peer
 * goes (POLLHUP, POLLRDHUP), a poller in another process woken by a write,
 * timeouts that expire (and select's, pselect6's and ppoll's write-back of
 * the time left), negative fds ignored, POLLNVAL and EBADF for a closed
 * fd, EINVAL for more fds than RLIMIT_NOFILE, a bad timespec or sigset
 * size, EFAULT, and signals: EINTR after a handler even with SA_RESTART,
 * ppoll's and pselect6's mask in force while they sleep and put back
 * afterwards, and a stop and SIGCONT (no handler) restarting the call.
 * The calls whose C-library wrappers differ (musl copies select's
 * timeval) are made with syscall(2). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile int usr1_seen;
static void on_usr1(int sig) { (void)sig, usr1_seen++; }

static bool pair(int type, int sv[2]) { return CHECK_CMP(socketpair(AF_UNIX, type, 0, sv), ==, 0); }

/* A stream pair: writable at once, readable once the peer wrote, and
 * hung up (POLLHUP, POLLIN and POLLRDHUP) once the peer closed. */
static void stream_readiness(void)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	struct pollfd p = { sv[0], POLLIN | POLLOUT | POLLRDHUP, 0 };
	CHECK_CMP(poll(&p, 1, 0), ==, 1);
	CHECK_CMP(p.revents, ==, POLLOUT);
	p.events = POLLIN;
	CHECK_CMP(poll(&p, 1, 0), ==, 0);
	CHECK_CMP(p.revents, ==, 0);
	CHECK_CMP(write(sv[1], "ab", 2), ==, 2);
	CHECK_CMP(poll(&p, 1, 0), ==, 1);
	CHECK_CMP(p.revents, ==, POLLIN);
	char buf[4];
	CHECK_CMP(read(sv[0], buf, sizeof(buf)), ==, 2);
	CHECK_CMP(shutdown(sv[1], SHUT_WR), ==, 0); /* our side: RCV_SHUTDOWN */
	p.events = POLLIN | POLLRDHUP;
	CHECK_CMP(poll(&p, 1, 0), ==, 1);
	CHECK_CMP(p.revents, ==, POLLIN | POLLRDHUP);
	close(sv[1]); /* both directions down: POLLHUP, reported unasked */
	p.events = POLLOUT;
	CHECK_CMP(poll(&p, 1, 0), ==, 1);
	CHECK(p.revents & POLLHUP);
	close(sv[0]);
}

/* Negative fds are skipped (revents 0, not counted), a closed one is
 * POLLNVAL (counted); a file with no poll method is ready both ways. */
static void fd_rules(void)
{
	int fd = open("/proc/self/status", O_RDONLY);
	CHECK_CMP(fd, >=, 0);
	int closed = dup(fd);
	CHECK_CMP(close(closed), ==, 0);
	struct pollfd p[3] = { { -1, POLLIN, 0x7 }, { fd, POLLIN | POLLOUT | POLLPRI, 0 }, { closed, POLLIN, 0 } };
	CHECK_CMP(poll(p, 3, 0), ==, 2);
	CHECK_CMP(p[0].revents, ==, 0);
	CHECK_CMP(p[1].revents, ==, POLLIN | POLLOUT);
	CHECK_CMP(p[2].revents, ==, POLLNVAL);
	close(fd);
	CHECK_CMP(poll(NULL, 0, 0), ==, 0);
}

static void bad_arguments(void)
{
	struct rlimit rl;
	CHECK_CMP(getrlimit(RLIMIT_NOFILE, &rl), ==, 0);
	/* More fds than RLIMIT_NOFILE: refused before the array is read. */
	CHECK_ERRNO(syscall(SYS_poll, NULL, (unsigned long)rl.rlim_cur + 1, 0), EINVAL);
	CHECK_ERRNO(syscall(SYS_poll, (void *)8, 1ul, 0), EFAULT);
	struct pollfd p = { 0, POLLIN, 0 };
	struct timespec bad = { 0, 1000000000 };
	CHECK_ERRNO(syscall(SYS_ppoll, &p, 1ul, &bad, NULL, 8ul), EINVAL);
	struct timespec zero = { 0, 0 };
	sigset_t set;
	sigemptyset(&set);
	CHECK_ERRNO(syscall(SYS_ppoll, &p, 1ul, &zero, &set, 4ul), EINVAL); /* sigsetsize must be 8 */
	CHECK_ERRNO(syscall(SYS_ppoll, &p, 1ul, (void *)8, NULL, 8ul), EFAULT);
	CHECK_ERRNO(syscall(SYS_select, -1, NULL, NULL, NULL, NULL), EINVAL);
	struct timeval tv = { 0, -1 };
	CHECK_ERRNO(syscall(SYS_select, 1, NULL, NULL, NULL, &tv), EINVAL);
	CHECK_ERRNO(syscall(SYS_select, 1, (void *)8, NULL, NULL, NULL), EFAULT);
	struct { const sigset_t *p; size_t size; } pack = { &set, 4 };
	CHECK_ERRNO(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &pack), EINVAL);
	CHECK_ERRNO(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, (void *)8), EFAULT);
}

/* A poll with nothing ready sleeps its whole timeout (never less) and
 * returns 0; select, pselect6 and ppoll then write back a time left of 0. */
static void timeouts_expire(void)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	struct pollfd p = { sv[0], POLLIN, 0 };
	long long t0 = now_ns();
	CHECK_CMP(poll(&p, 1, 30), ==, 0);
	CHECK_CMP(now_ns() - t0, >=, 30000000ll);
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(sv[0], &rd);
	struct timeval tv = { 0, 20000 };
	t0 = now_ns();
	CHECK_CMP(syscall(SYS_select, sv[0] + 1, &rd, NULL, NULL, &tv), ==, 0);
	CHECK_CMP(now_ns() - t0, >=, 20000000ll);
	CHECK(tv.tv_sec == 0 && tv.tv_usec == 0);
	CHECK(!FD_ISSET(sv[0], &rd)); /* the sets say what is ready: nothing */
	FD_SET(sv[0], &rd);
	struct timespec ts = { 0, 20000000 };
	CHECK_CMP(syscall(SYS_pselect6, sv[0] + 1, &rd, NULL, NULL, &ts, NULL), ==, 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0);
	ts.tv_nsec = 20000000;
	CHECK_CMP(syscall(SYS_ppoll, &p, 1ul, &ts, NULL, 8ul), ==, 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0);
	/* Ready at once: the time left is written back, no more than given. */
	CHECK_CMP(write(sv[1], "x", 1), ==, 1);
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	FD_SET(sv[0], &rd);
	CHECK_CMP(syscall(SYS_select, sv[0] + 1, &rd, NULL, NULL, &tv), ==, 1);
	CHECK(FD_ISSET(sv[0], &rd));
	CHECK(tv.tv_sec * 1000000ll + tv.tv_usec <= 5000000ll);
	close(sv[0]);
	close(sv[1]);
}

/* select's sets: readable, writable, and EBADF for a closed fd named in
 * any set. */
static void select_sets(void)
{
	int sv[2];
	if (!pair(SOCK_DGRAM, sv))
		return;
	CHECK_CMP(send(sv[1], "m", 1, 0), ==, 1);
	fd_set rd, wr;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(sv[0], &rd);
	FD_SET(sv[1], &rd);
	FD_SET(sv[1], &wr);
	struct timeval tv = { 0, 0 };
	CHECK_CMP(select(sv[1] + 1, &rd, &wr, NULL, &tv), ==, 2);
	CHECK(FD_ISSET(sv[0], &rd) && !FD_ISSET(sv[1], &rd) && FD_ISSET(sv[1], &wr));
	int closed = dup(sv[0]);
	close(closed);
	FD_ZERO(&wr);
	FD_SET(closed, &wr);
	CHECK_ERRNO(select(closed + 1, NULL, &wr, NULL, &tv), EBADF);
	close(sv[0]);
	close(sv[1]);
}

/* A poller with no timeout sleeps until another process writes. */
static void woken_by_writer(void)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec d = { 0, 50000000 };
		nanosleep(&d, NULL);
		_exit(write(sv[1], "w", 1) == 1 ? 0 : 1);
	}
	struct pollfd p[2] = { { sv[0], POLLIN, 0 }, { sv[0], POLLPRI, 0 } };
	CHECK_CMP(poll(p, 2, -1), ==, 1);
	CHECK_CMP(p[0].revents, ==, POLLIN);
	CHECK_CMP(p[1].revents, ==, 0);
	int status;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(sv[0]);
	close(sv[1]);
}

/* A child sends SIGUSR1 every 10 ms until killed: whichever one comes
 * while the parent polls ends the poll (one before it only runs the
 * handler). */
static pid_t start_pester(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		for (;;) {
			struct timespec d = { 0, 10000000 };
			nanosleep(&d, NULL);
			kill(parent, SIGUSR1);
		}
	}
	return pid;
}

static void stop_pester(pid_t pid)
{
	kill(pid, SIGKILL);
	int status;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
}

/* A handler ends a poll with EINTR, SA_RESTART or not (Linux's
 * -ERESTARTNOHAND); ppoll's mask unblocks a signal blocked before it,
 * which is then delivered in it and the caller's mask is back after. */
static void signals_interrupt(void)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	CHECK_CMP(sigaction(SIGUSR1, &sa, NULL), ==, 0);
	struct pollfd p = { sv[0], POLLIN, 0 };
	pid_t pester = start_pester();
	CHECK_ERRNO(poll(&p, 1, -1), EINTR);
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(sv[0], &rd);
	CHECK_ERRNO(select(sv[0] + 1, &rd, NULL, NULL, NULL), EINTR);
	stop_pester(pester);
	CHECK_CMP(usr1_seen, >, 0);

	sigset_t block, old, in_call;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	CHECK_CMP(sigprocmask(SIG_BLOCK, &block, &old), ==, 0);
	usr1_seen = 0;
	CHECK_CMP(kill(getpid(), SIGUSR1), ==, 0); /* pending, blocked */
	CHECK_CMP(usr1_seen, ==, 0);
	sigemptyset(&in_call);
	CHECK_ERRNO(syscall(SYS_ppoll, &p, 1ul, NULL, &in_call, 8ul), EINTR);
	CHECK_CMP(usr1_seen, ==, 1);
	sigset_t now;
	CHECK_CMP(sigprocmask(SIG_SETMASK, NULL, &now), ==, 0);
	CHECK(sigismember(&now, SIGUSR1)); /* the caller's mask is back */
	CHECK_CMP(kill(getpid(), SIGUSR1), ==, 0);
	FD_ZERO(&rd);
	FD_SET(sv[0], &rd);
	struct { const sigset_t *p; size_t size; } pack = { &in_call, 8 };
	CHECK_ERRNO(syscall(SYS_pselect6, sv[0] + 1, &rd, NULL, NULL, NULL, &pack), EINTR);
	CHECK_CMP(usr1_seen, ==, 2);
	CHECK_CMP(sigprocmask(SIG_SETMASK, NULL, &now), ==, 0);
	CHECK(sigismember(&now, SIGUSR1));
	/* Ready at once: the mask is put back with no signal delivered. */
	CHECK_CMP(kill(getpid(), SIGUSR1), ==, 0);
	CHECK_CMP(write(sv[1], "r", 1), ==, 1);
	sigset_t all_but;
	sigfillset(&all_but);
	CHECK_CMP(syscall(SYS_ppoll, &p, 1ul, NULL, &all_but, 8ul), ==, 1);
	CHECK_CMP(usr1_seen, ==, 2);
	CHECK_CMP(sigprocmask(SIG_SETMASK, &old, NULL), ==, 0); /* delivered now */
	CHECK_CMP(usr1_seen, ==, 3);
	signal(SIGUSR1, SIG_DFL);
	close(sv[0]);
	close(sv[1]);
}

/* The state letter of pid in /proc/<pid>/stat ('S': asleep), 0 if it
 * cannot be read. */
static char task_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* A signal with no handler (a stop and SIGCONT) does not end a poll: it
 * is restarted (poll through restart_syscall, ppoll and select by their
 * -ERESTARTNOHAND) and returns once the data comes. The child is seen
 * asleep in its call before it is stopped. */
static void restarted_without_handler(int which)
{
	int sv[2];
	if (!pair(SOCK_STREAM, sv))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		struct pollfd p = { sv[0], POLLIN, 0 };
		struct timespec ts = { 100, 0 };
		fd_set rd;
		FD_ZERO(&rd);
		FD_SET(sv[0], &rd);
		long r = which == 0   ? poll(&p, 1, -1)
			 : which == 1 ? syscall(SYS_ppoll, &p, 1ul, &ts, NULL, 8ul)
				      : syscall(SYS_select, sv[0] + 1, &rd, NULL, NULL, NULL);
		_exit(r == 1 ? 0 : 1);
	}
	int tries = 0;
	while (task_state(pid) != 'S' && tries++ < 100000)
		sched_yield();
	CHECK_CMP(task_state(pid), ==, 'S');
	CHECK_CMP(kill(pid, SIGSTOP), ==, 0);
	int status;
	CHECK_CMP(waitpid(pid, &status, WUNTRACED), ==, pid);
	CHECK(WIFSTOPPED(status));
	CHECK_CMP(kill(pid, SIGCONT), ==, 0);
	CHECK_CMP(write(sv[1], "c", 1), ==, 1);
	CHECK_CMP(wait_status_of(pid), ==, 0);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	test_begin("poll");
	stream_readiness();
	fd_rules();
	bad_arguments();
	timeouts_expire();
	select_sets();
	woken_by_writer();
	signals_interrupt();
	for (int which = 0; which < 3; which++)
		restarted_without_handler(which);
	return test_end();
}
