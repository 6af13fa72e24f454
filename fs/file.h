/* Open files of a process: a small table of file descriptors, the serial
 * console behind fd 0, 1 and 2, the files of tmpfs (the root file system,
 * mm/shmem.c) and read-only files generated when opened (procfs, sysfs:
 * fs/proc/).
 *
 * Invariants: fd n is in use iff files->fd[n] is not NULL; a struct file is
 * in one descriptor or more (dup, fs/fcntl.c) and is reference-counted: close() takes it
 * out of the table, and it is freed when the last system call using it (in
 * another thread) is done. The console keeps a partial line per process
 * until its newline (or exit), so that output from processes on several
 * CPUs never interleaves inside a line, and each line gets the process's
 * console prefix (the test suite's "    # "; the line buffer is
 * drivers/tty/console_line.c); the threads of a process share the table and its
 * console line, and one write() of a thread is never broken up by another
 * thread's. Every function here may be called by threads sharing the table
 * at once, except files_alloc and files_release (see file.c, Concurrency).
 *
 * The system calls (read 0, write 1, open 2, close 3, fstat 5, lseek 8,
 * ioctl 16, pread64 17, readv 19, writev 20, readlink 89, openat 257,
 * newfstatat 262, readlinkat 267) are thin wrappers around the files_* functions
 * below, which act on an explicit table with kernel buffers, so that tests
 * can drive them; the wrappers add the user copies, and a bad user pointer
 * gives -EFAULT there, as in Linux. */
#ifndef FS_FILE_H
#define FS_FILE_H

#include "kernel/types.h"

#define NR_OPEN_DEFAULT 64
#define PATH_MAX 4096 /* with the terminating NUL, as Linux's */
#define NAME_MAX 255

/* st_mode's file types (Linux's uapi stat.h). */
#define S_IFMT 00170000
#define S_IFREG 0100000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_IFLNK 0120000
#define S_IFBLK 0060000
#define S_IFIFO 0010000
#define S_IFSOCK 0140000

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define SEEK_DATA 3
#define SEEK_HOLE 4

struct files_struct;

/* A process's table with fd 0 (reads as end of file), 1 and 2 (write to
 * the console, line-buffered) open; prefix is put before every line the
 * process writes (copied, at most 63 bytes; may be ""). NULL when memory
 * is short. */
struct files_struct *files_alloc(const char *console_prefix);
/* The last line the process wrote to the console ("" if none), valid
 * until files_release. */
const char *files_last_console_line(struct files_struct *files);
/* Closes every descriptor, writes out a partial console line, frees. */
void files_release(struct files_struct *files);
/* fork's copy of a table (Linux's dup_fd; NULL when memory is short), and
 * CLONE_FILES's sharing of one (files_release drops a sharer, the last
 * one frees it). */
struct files_struct *dup_fd(struct files_struct *old, const char *console_prefix);
void get_files_struct(struct files_struct *files);
/* fd n's close-on-exec flag (O_CLOEXEC), and execve's closing of every
 * descriptor that has it. */
void set_close_on_exec(struct files_struct *files, int fd, bool on);
void do_close_on_exec(struct files_struct *files);

/* open/openat on files, for a kernel path: returns the new fd (the lowest
 * free one) or a negative errno. dirfd is AT_FDCWD (the working
 * directory) or an open directory, used only for a relative path. "self"
 * in /proc is the current task. O_CREAT makes a regular file (mode less
 * the umask) on tmpfs, O_TMPFILE a nameless one. Errors as Linux's, for a
 * process running as root:
 *   -EINVAL        O_DIRECTORY together with O_CREAT; O_TMPFILE without
 *                  a write access mode
 *   -EOPNOTSUPP    O_TMPFILE in a directory of /proc or /sys
 *   -ENOENT        an empty path, or a missing file or directory (under
 *                  /proc even with O_CREAT: procfs answers the lookup
 *                  itself; below /proc and /sys a name longer than
 *                  NAME_MAX is just not found)
 *   -ENAMETOOLONG  a path of PATH_MAX bytes or more, or a component of more
 *                  than NAME_MAX in a tmpfs directory
 *   -ELOOP         more than 40 symlinks followed, or O_NOFOLLOW on one
 *   -EMFILE        no free descriptor (checked before the lookup, as Linux)
 *   -EBADF/-ENOTDIR  a relative path with a dirfd that is not open / not a
 *                  directory
 *   -ENOTDIR       a file used as a directory (O_DIRECTORY, "file/")
 *   -EISDIR        a directory opened for writing or with O_CREAT
 *   -EEXIST        O_CREAT|O_EXCL on an existing name
 *   -EACCES        O_CREAT of a missing name under /sys; opening a sysfs
 *                  file for reading and writing or writing (its mode is
 *                  0444 and kernfs refuses even root; access mode 3,
 *                  neither, opens)
 *   -ENXIO         a device node no driver registered (fs/char_dev.h)
 * A procfs file opened for writing opens (root passes the 0444 check), and
 * its writes fail unless it has a write method (/proc/sys, mode 0644: the
 * value goes to its handler): -EIO under /proc (proc_reg_write without proc_write),
 * -EINVAL under /proc/<pid> (no write method at all; comm has one, Linux's
 * comm_write: fs/proc/base.c). O_TRUNC truncates a
 * tmpfs file opened for writing (procfs ignores it); O_PATH opens as a
 * plain open (not supported). A directory's reads fail with -EISDIR; its
 * entries come from getdents64. */
int files_open(struct files_struct *files, int dirfd, const char *path, int flags,
	       unsigned int mode);
/* Whether fd is an open descriptor (what Linux's fget() tells a caller
 * such as mmap, which gives -EBADF otherwise). */
bool files_fd_is_open(struct files_struct *files, unsigned int fd);
/* close(2): 0 or -EBADF. */
int files_close(struct files_struct *files, unsigned int fd);
/* Linux's dup: the lowest free fd names fd's file too; it, or -EBADF,
 * -EMFILE. */
int files_dup(struct files_struct *files, unsigned int fd);
/* read(2) and pread64(2) into a kernel buffer: bytes read (0 at end of
 * file), or -EBADF (not open, or not open for reading), -EISDIR (a
 * directory), -EINVAL (pread at a negative offset), -ESPIPE (pread on the
 * console). A generated file is regenerated by a read that starts at
 * offset 0, as seq_file does; other reads continue in the snapshot taken
 * by the last one (or by open). */
long files_read(struct files_struct *files, unsigned int fd, void *buf, size_t count);
long files_pread(struct files_struct *files, unsigned int fd, void *buf, size_t count, long pos);
/* write(2) from a kernel buffer: count, or -EBADF (not open for writing),
 * -EIO/-EINVAL (a procfs file, see files_open). */
long files_write(struct files_struct *files, unsigned int fd, const void *buf, size_t count);
/* pwrite64(2) from a kernel buffer: count, or -EBADF, -EINVAL, -ESPIPE. */
long files_pwrite(struct files_struct *files, unsigned int fd, const void *buf, size_t count, long pos);
/* lseek(2): the new offset, or -EBADF, -ESPIPE (the console), -EINVAL (a
 * bad whence, or a negative result). /proc files seek as seq_lseek
 * (SEEK_SET and SEEK_CUR only: SEEK_END is -EINVAL); sysfs files and
 * directories as generic_file_llseek, with Linux's sizes (a sysfs
 * attribute is PAGE_SIZE long, a directory 0); /proc/<pid>/pagemap, read
 * at an offset and never generated whole, as Linux's mem_lseek (SEEK_SET
 * and SEEK_CUR to any offset; SEEK_END -EINVAL). */
long files_lseek(struct files_struct *files, unsigned int fd, long offset, int whence);
/* The running program's file name, for readlink("/proc/self/exe") (Linux
 * keeps it as mm->exe_file; here the table of the process holds it, set
 * by create_elf_tables; at most 63 bytes kept). */
void files_set_exe_path(struct files_struct *files, const char *path);
/* readlinkat(2) on a kernel path: the link's target copied into buf
 * (user or kernel memory) without a NUL, cut at bufsiz; its length as
 * copied, or -EINVAL (bufsiz <= 0, or not a link), -ENOENT (missing, or
 * ""), -EBADF/-ENOTDIR (dirfd), -EFAULT. The links: /proc/self (the pid)
 * and /proc/self/exe = /proc/<pid>/exe (files_set_exe_path's name). */
long files_readlinkat(struct files_struct *files, int dfd, const char *path, char *buf, int bufsiz,
		      bool user);
/* Descriptors in use (tests). */
unsigned int files_count(const struct files_struct *files);

#endif
