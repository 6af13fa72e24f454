/* Job control with a terminal, held beside Linux's (drivers/tty/
 * tty_jobctrl.c): a session leader's first open of a terminal makes it
 * the session's controlling terminal (unless O_NOCTTY), with the leader's
 * group in the foreground; /dev/tty opens it, and fails with ENXIO in a
 * process without one (after setsid, after TIOCNOTTY); TIOCSPGRP takes a
 * group of the same session only (EPERM for another session's, ESRCH for
 * none, EINVAL below 0); a background group's read gets SIGTTIN (EIO when
 * SIGTTIN is ignored or the group is orphaned), its tcsetattr SIGTTOU
 * (allowed when SIGTTOU is ignored, as shells do it); the leader's exit
 * sends the foreground group SIGHUP; a new window size sends the
 * foreground group SIGWINCH; /proc/self/stat shows the terminal's number
 * (tty_nr) and foreground group (tpgid).
 *
 * The terminal: on mmlab /dev/ttyS0 (the serial port, which the kernel's
 * log shares: nothing here writes to it or reads from it but the
 * background reads that are stopped first), on Linux a pseudo-terminal's
 * slave (both run N_TTY; Linux's pty hangs up differently at the
 * leader's exit, but sends the foreground group SIGHUP too). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "check.h"

static char tty_path[64];

/* The terminal to use, opened by nobody yet: its path in tty_path; the
 * pty master (Linux) stays open in this process. */
static bool find_terminal(void)
{
	if (on_mmlab()) {
		strcpy(tty_path, "/dev/ttyS0");
		return access(tty_path, F_OK) == 0;
	}
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) || !ptsname(master))
		return false;
	snprintf(tty_path, sizeof(tty_path), "%s", ptsname(master));
	return true;
}

/* Forks a child that runs fn, in a group of its own when background;
 * returns its pid. */
static pid_t fork_run(void (*fn)(int fd), int fd, bool background)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (background)
			setpgid(0, 0);
		fn(fd);
		_exit(checks_failed() ? 1 : 0);
	}
	if (pid > 0 && background)
		setpgid(pid, pid); /* either of us may move it first */
	return pid;
}

static pid_t fork_background(void (*fn)(int fd), int fd)
{
	return fork_run(fn, fd, true);
}

/* Waits until pid stops; returns the stop signal (0: it ended instead). */
static int stop_signal_of(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, WUNTRACED) != pid)
		return -1;
	if (!WIFSTOPPED(status))
		return 0;
	int sig = WSTOPSIG(status);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return sig;
}

static void bg_read(int fd)
{
	char c;
	read(fd, &c, 1); /* stopped here; killed by the parent */
	CHECKF(0, "a background read went on");
}

static void bg_read_ignored(int fd)
{
	char c;
	signal(SIGTTIN, SIG_IGN);
	CHECK_ERRNO(read(fd, &c, 1), EIO);
	signal(SIGTTIN, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTTIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	CHECK_ERRNO(read(fd, &c, 1), EIO);
}

static void bg_tcsetattr(int fd)
{
	struct termios t;
	tcgetattr(fd, &t); /* reading the modes is allowed */
	tcsetattr(fd, TCSANOW, &t);
	CHECKF(0, "a background tcsetattr went on");
}

static void bg_tcsetattr_ignored(int fd)
{
	struct termios t;
	signal(SIGTTOU, SIG_IGN);
	CHECK_CMP(tcgetattr(fd, &t), ==, 0);
	CHECK_CMP(tcsetattr(fd, TCSANOW, &t), ==, 0);
	/* A shell's move to the foreground: its own group. */
	CHECK_CMP(tcsetpgrp(fd, getpgrp()), ==, 0);
	CHECK_CMP(tcgetpgrp(fd), ==, getpgrp());
}

static void no_ctty_after_setsid(int fd)
{
	(void)fd;
	CHECK_CMP(setsid(), ==, getpid());
	CHECK_ERRNO(open("/dev/tty", O_RDWR), ENXIO);
}

static void no_ctty_after_notty(int fd)
{
	CHECK_CMP(ioctl(fd, TIOCNOTTY), ==, 0);
	CHECK_ERRNO(open("/dev/tty", O_RDWR), ENXIO);
	CHECK_ERRNO(tcgetpgrp(fd), ENOTTY);
	CHECK_ERRNO(ioctl(fd, TIOCNOTTY), ENOTTY);
}

/* /proc/self/stat's tty_nr and tpgid (fields 7 and 8). */
static bool stat_tty(unsigned *tty_nr, int *tpgid)
{
	char buf[1024];
	long n = read_file("/proc/self/stat", buf, sizeof(buf));
	char *p = n > 0 ? strrchr(buf, ')') : NULL;
	int ppid, pgrp, sid;
	char state;
	return p && sscanf(p + 1, " %c %d %d %d %u %d", &state, &ppid, &pgrp, &sid, tty_nr, tpgid) == 6;
}

static volatile int winch_count;
static void on_winch(int sig)
{
	(void)sig;
	winch_count++;
}

static void foreground_pause(int fd)
{
	(void)fd;
	pause();
}

/* The session leader: everything but the hangup. */
static void leader(void)
{
	CHECK_CMP(setsid(), ==, getpid());
	CHECK_ERRNO(open("/dev/tty", O_RDWR), ENXIO);
	unsigned tty_nr = 1;
	int tpgid = 0;
	CHECK(stat_tty(&tty_nr, &tpgid));
	CHECK_CMP(tty_nr, ==, 0); /* no terminal */
	CHECK_CMP(tpgid, ==, -1);
	int nc = open(tty_path, O_RDWR | O_NOCTTY);
	CHECK_CMP(nc, >=, 0);
	CHECK_ERRNO(open("/dev/tty", O_RDWR), ENXIO);
	CHECK_ERRNO(tcgetpgrp(nc), ENOTTY);
	close(nc);
	int fd = open(tty_path, O_RDWR);
	CHECK_CMP(fd, >=, 0);
	if (fd < 0)
		return;
	CHECK_CMP(tcgetsid(fd), ==, getpid());
	CHECK_CMP(tcgetpgrp(fd), ==, getpgrp());
	struct stat st;
	CHECK_CMP(fstat(fd, &st), ==, 0);
	unsigned ma = major(st.st_rdev), mi = minor(st.st_rdev);
	CHECK(stat_tty(&tty_nr, &tpgid));
	CHECK_CMP(tty_nr, ==, (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12));
	CHECK_CMP(tpgid, ==, getpgrp());
	int dev_tty = open("/dev/tty", O_RDWR);
	CHECK_CMP(dev_tty, >=, 0);
	close(dev_tty);
	CHECK_CMP(ioctl(fd, TIOCSCTTY, 0), ==, 0); /* already its own */

	/* A new size: SIGWINCH to the foreground group (this one); the same
	 * size again: none. */
	signal(SIGWINCH, on_winch);
	struct winsize ws = { .ws_row = 24, .ws_col = 80 }, got;
	CHECK_CMP(ioctl(fd, TIOCSWINSZ, &ws), ==, 0);
	CHECK_CMP(winch_count, ==, 1);
	CHECK_CMP(ioctl(fd, TIOCSWINSZ, &ws), ==, 0);
	CHECK_CMP(winch_count, ==, 1);
	CHECK_CMP(ioctl(fd, TIOCGWINSZ, &got), ==, 0);
	CHECK(got.ws_row == 24 && got.ws_col == 80);
	int inq = -1;
	CHECK_CMP(ioctl(fd, FIONREAD, &inq), ==, 0);
	CHECK_CMP(inq, ==, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	CHECK_CMP(poll(&pfd, 1, 0), ==, 1);
	CHECK_CMP(pfd.revents, ==, POLLOUT); /* nothing typed */
	CHECK_ERRNO(ioctl(fd, TCFLSH, 7), EINVAL);
	CHECK_CMP(ioctl(fd, TCFLSH, TCIFLUSH), ==, 0);

	CHECK_ERRNO(tcsetpgrp(fd, -1), EINVAL);
	CHECK_ERRNO(tcsetpgrp(fd, 0x3ffffff0), ESRCH);
	pid_t other = getpgid(getppid()); /* another session's group */
	CHECK_ERRNO(tcsetpgrp(fd, other), EPERM);

	CHECK_CMP(stop_signal_of(fork_background(bg_read, fd)), ==, SIGTTIN);
	CHECK_CMP(wait_status_of(fork_background(bg_read_ignored, fd)), ==, 0);
	CHECK_CMP(stop_signal_of(fork_background(bg_tcsetattr, fd)), ==, SIGTTOU);
	CHECK_CMP(wait_status_of(fork_background(bg_tcsetattr_ignored, fd)), ==, 0);
	/* The last one took the foreground: back, with SIGTTOU blocked as a
	 * shell does. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGTTOU);
	sigprocmask(SIG_BLOCK, &set, &old);
	CHECK(tcgetpgrp(fd) != getpgrp());
	CHECK_CMP(tcsetpgrp(fd, getpgrp()), ==, 0);
	CHECK_CMP(wait_status_of(fork_run(no_ctty_after_setsid, fd, false)), ==, 0);
	CHECK_CMP(wait_status_of(fork_background(no_ctty_after_notty, fd)), ==, 0);

	/* This group, orphaned (its leader's parent is in another session),
	 * in the background: a read is EIO, no SIGTTIN. */
	pid_t fg = fork_background(foreground_pause, fd);
	CHECK_CMP(tcsetpgrp(fd, fg), ==, 0);
	char c;
	CHECK_ERRNO(read(fd, &c, 1), EIO);
	CHECK_CMP(tcsetpgrp(fd, getpgrp()), ==, 0);
	kill(fg, SIGKILL);
	waitpid(fg, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(void)
{
	test_begin("tty_jobctl");
	if (!find_terminal())
		test_skip("no terminal to control (no /dev/ttyS0 on mmlab, no pty on Linux)");
	pid_t pid = fork();
	if (pid == 0) {
		leader();
		_exit(checks_failed() ? 1 : 0);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);

	/* The leader's exit: its foreground group gets SIGHUP. The child
	 * stays in the leader's group, and comes to this process (a
	 * subreaper) once the leader is gone. */
	CHECK_CMP(prctl(PR_SET_CHILD_SUBREAPER, 1), ==, 0);
	pid = fork();
	if (pid == 0) {
		setsid();
		int fd = open(tty_path, O_RDWR);
		if (fd < 0 || tcgetpgrp(fd) != getpid())
			_exit(2);
		if (fork() == 0) {
			pause();
			_exit(3);
		}
		_exit(0);
	}
	CHECK_CMP(wait_status_of(pid), ==, 0);
	/* The grandchild, reparented here: killed by SIGHUP. */
	int status;
	pid_t gone = wait(&status);
	CHECK(gone > 0);
	CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP, "status %#x", status);
	return test_end();
}
