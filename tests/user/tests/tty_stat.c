/* fstat(2), newfstatat(2) and ioctl(2) as a static program's start-up uses
 * them (stdio asks whether stdout is a terminal): stdout on mmlab is the
 * serial console, a character device 4:64 (ttyS0) answering TCGETS with
 * Linux's termios for a console and TIOCGWINSZ with 0x0; a /proc file is a
 * regular file and not a tty (ENOTTY). Linux's errors: EBADF, ENOENT,
 * EFAULT, EINVAL (unknown AT_ flags), in Linux's order. On Linux the same
 * program checks whatever stdout is against itself (the runner may give a
 * pipe). Raw system calls with the kernel's own structures: the C
 * libraries' struct termios is not the kernel's. */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_fstat
#define SYS_fstat 5
#endif
#ifndef SYS_ioctl
#define SYS_ioctl 16
#endif
#ifndef SYS_newfstatat
#define SYS_newfstatat 262
#endif
#define AT_FDCWD_ (-100)
#define AT_SYMLINK_NOFOLLOW_ 0x100
#define AT_EMPTY_PATH_ 0x1000
#define TCGETS_ 0x5401
#define TIOCGWINSZ_ 0x5413
#define S_IFMT_ 0170000
#define S_IFCHR_ 0020000
#define S_IFDIR_ 0040000
#define S_IFREG_ 0100000

/* x86_64's struct stat (arch/x86/include/uapi/asm/stat.h). */
struct kstat {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned int st_mode, st_uid, st_gid, __pad0;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	unsigned long st_atime_, st_atime_nsec, st_mtime_, st_mtime_nsec, st_ctime_, st_ctime_nsec;
	long __unused[3];
};

/* The kernel's struct termios (asm-generic/termbits.h). */
struct ktermios {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line;
	unsigned char c_cc[19];
};

struct kwinsize {
	unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

static void stdout_is_console(bool mmlab)
{
	struct kstat st, st2;
	memset(&st, 0xff, sizeof(st));
	CHECK(syscall(SYS_fstat, 1, &st) == 0);
	note("stdout: mode %#o rdev %#lx blksize %ld", st.st_mode, st.st_rdev, st.st_blksize);
	bool tty = (st.st_mode & S_IFMT_) == S_IFCHR_;
	if (mmlab) {
		CHECK_CMP(st.st_mode, ==, S_IFCHR_ | 0620);
		CHECK_CMP(st.st_rdev, ==, (4 << 8) | 64); /* makedev(4, 64): ttyS0 */
		CHECK_CMP(st.st_blksize, ==, 1024);
		CHECK_CMP(st.st_size, ==, 0);
		CHECK(tty);
	}
	/* AT_EMPTY_PATH on a descriptor is fstat. */
	memset(&st2, 0xff, sizeof(st2));
	CHECK(syscall(SYS_newfstatat, 1, "", &st2, AT_EMPTY_PATH_) == 0);
	CHECK_CMP(st2.st_mode, ==, st.st_mode);
	CHECK_CMP(st2.st_rdev, ==, st.st_rdev);

	struct ktermios t;
	struct kwinsize ws;
	memset(&t, 0xee, sizeof(t));
	memset(&ws, 0xee, sizeof(ws));
	long r = syscall(SYS_ioctl, 1, TCGETS_, &t);
	if (!mmlab && r != 0) {
		/* Linux with stdout not a terminal (a pipe, a file). */
		CHECK_ERRNO(syscall(SYS_ioctl, 1, TCGETS_, &t), ENOTTY);
		note("stdout is not a terminal here: TCGETS gives ENOTTY");
		return;
	}
	CHECK_CMP(r, ==, 0);
	note("TCGETS: iflag %#o oflag %#o cflag %#o lflag %#o", t.c_iflag, t.c_oflag, t.c_cflag,
	     t.c_lflag);
	CHECK(t.c_lflag & 0000002); /* ICANON: cooked mode */
	CHECK(t.c_lflag & 0000001); /* ISIG */
	CHECK(t.c_oflag & 0000001); /* OPOST */
	CHECK(t.c_oflag & 0000004); /* ONLCR */
	CHECK((t.c_cflag & 0000060) == 0000060); /* CS8 */
	CHECK_CMP(t.c_cc[0], ==, 3);  /* VINTR ^C */
	CHECK_CMP(t.c_cc[4], ==, 4);  /* VEOF ^D */
	CHECK_CMP(t.c_cc[2], ==, 0177); /* VERASE DEL */
	CHECK_CMP(t.c_cc[6], ==, 1);  /* VMIN */
	if (mmlab) {
		CHECK_CMP(t.c_iflag, ==, 0000400 | 0002000); /* ICRNL | IXON */
		CHECK_CMP(t.c_cflag & 0010017, ==, 0010002); /* B115200 */
		CHECK_CMP(t.c_lflag, ==, 0105073);
	}
	CHECK_CMP(syscall(SYS_ioctl, 1, TIOCGWINSZ_, &ws), ==, 0);
	note("TIOCGWINSZ: %u rows, %u columns", ws.ws_row, ws.ws_col);
	if (mmlab) {
		CHECK_CMP(ws.ws_row, ==, 0); /* a serial line has no size */
		CHECK_CMP(ws.ws_col, ==, 0);
	}
	CHECK_ERRNO(syscall(SYS_ioctl, 1, TCGETS_, (void *)8), EFAULT);
	CHECK_ERRNO(syscall(SYS_ioctl, 1, TIOCGWINSZ_, (void *)8), EFAULT);
	CHECK_ERRNO(syscall(SYS_ioctl, 1, 0x5499, &t), ENOTTY); /* unknown to a tty */
}

static void proc_file(void)
{
	int fd = open("/proc/self/status", O_RDONLY);
	CHECK_CMP(fd, >=, 0);
	if (fd < 0)
		return;
	struct kstat st, st2;
	CHECK(syscall(SYS_fstat, fd, &st) == 0);
	CHECK_CMP(st.st_mode & S_IFMT_, ==, S_IFREG_);
	CHECK_CMP(st.st_rdev, ==, 0);
	CHECK_CMP(st.st_size, ==, 0);
	CHECK(syscall(SYS_newfstatat, AT_FDCWD_, "/proc/self/status", &st2, 0) == 0);
	CHECK_CMP(st2.st_mode, ==, st.st_mode);
	CHECK(syscall(SYS_newfstatat, AT_FDCWD_, "/proc/self/status", &st2, AT_SYMLINK_NOFOLLOW_) == 0);
	CHECK_CMP(st2.st_mode & S_IFMT_, ==, S_IFREG_);
	CHECK(syscall(SYS_newfstatat, AT_FDCWD_, "/proc", &st2, 0) == 0);
	CHECK_CMP(st2.st_mode & S_IFMT_, ==, S_IFDIR_);
	/* A relative path from a directory descriptor. */
	int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
	CHECK_CMP(dir, >=, 0);
	CHECK(syscall(SYS_newfstatat, dir, "status", &st2, 0) == 0);
	CHECK_CMP(st2.st_mode & S_IFMT_, ==, S_IFREG_);
	CHECK_ERRNO(syscall(SYS_newfstatat, fd, "status", &st2, 0), ENOTDIR);
	close(dir);

	struct ktermios t;
	CHECK_ERRNO(syscall(SYS_ioctl, fd, TCGETS_, &t), ENOTTY);
	CHECK_ERRNO(syscall(SYS_ioctl, fd, TIOCGWINSZ_, &t), ENOTTY);
	close(fd);
}

static void errors(void)
{
	struct kstat st;
	CHECK_ERRNO(syscall(SYS_fstat, 999, &st), EBADF);
	CHECK_ERRNO(syscall(SYS_fstat, -1, &st), EBADF);
	CHECK_ERRNO(syscall(SYS_fstat, 1, (void *)8), EFAULT);
	CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD_, "/no/such/file", &st, 0), ENOENT);
	CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD_, "", &st, 0), ENOENT);
	CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD_, (void *)8, &st, 0), EFAULT);
	CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD_, "/proc/self/status", (void *)8, 0), EFAULT);
	CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD_, "/proc/self/status", &st, 0x1), EINVAL);
	/* The flags are checked before the name is read (Linux 6.18). */
	CHECK_ERRNO(syscall(SYS_newfstatat, AT_FDCWD_, (void *)8, &st, 0x1), EINVAL);
	CHECK_ERRNO(syscall(SYS_newfstatat, 999, "", &st, AT_EMPTY_PATH_), EBADF);
	CHECK_ERRNO(syscall(SYS_newfstatat, 999, "status", &st, 0), EBADF);
	/* An absolute path ignores dirfd, even a bad one. */
	CHECK(syscall(SYS_newfstatat, 999, "/proc/self/status", &st, 0) == 0);
	CHECK_ERRNO(syscall(SYS_ioctl, 999, TCGETS_, &st), EBADF);
	CHECK_ERRNO(syscall(SYS_ioctl, -1, TIOCGWINSZ_, &st), EBADF);
}

int main(void)
{
	test_begin("tty_stat");
	bool mmlab = on_mmlab();
	stdout_is_console(mmlab);
	proc_file();
	errors();
	return test_end();
}
