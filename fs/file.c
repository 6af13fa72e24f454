/* A process's descriptor table (Linux's fs/file.c): fd n is files->fd[n],
 * the console behind fd 0-2 (drivers/tty/tty_io.c), and close(2).
 *
 * Invariants: files->fd[n] is NULL or the one struct file of fd n, and
 * bit n of files->open_fds is set when fd[n] is not NULL (or an open has
 * reserved n); the table holds one reference to each of its files.
 *
 * Concurrency (Linux's rules): the threads of a process share one table
 * (CLONE_FILES) and run on several CPUs at once. files->file_lock (a
 * spinlock: nothing sleeps or allocates under it) guards fd[], open_fds
 * and exe_path. An open reserves its fd in open_fds under the lock
 * (alloc_fd), does the lookup without it, and installs the file under it
 * (fd_install) or gives the fd back (put_unused_fd); a reserved fd whose
 * file is not in yet reads as not open (-EBADF), as in Linux. Every
 * system call that uses a descriptor takes a reference to its file under
 * file_lock (fget) and drops it when done (fput); close removes the fd
 * under the lock and drops the table's reference. f_pos_lock (fdget_pos),
 * seq_lock and the console's atomic_write_lock are struct mutex, never
 * taken with file_lock held. files_alloc and files_release run with no
 * other user of the table (before the first clone, after the last
 * thread's exit). */
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/slab.h"

/* Linux's fget(): the file of fd with a reference of the caller's, taken
 * under file_lock so that a close cannot free it in between; NULL if fd is
 * not open (or reserved by an open not finished). Drop it with fput. */
struct file *fget(struct files_struct *files, unsigned int fd)
{
	if (!files || fd >= NR_OPEN_DEFAULT)
		return NULL;
	spin_lock(&files->file_lock);
	struct file *f = files->fd[fd];
	if (f)
		__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
	spin_unlock(&files->file_lock);
	return f;
}

/* Linux's fdget_pos()/fdput_pos(): fget, and f_pos_lock for a file whose
 * position is shared (FMODE_ATOMIC_POS), so that read, write and lseek on
 * one file by several threads each move f_pos whole. (Linux skips the lock
 * when nobody else holds the file; taking it always is the same, slower.) */
struct file *fdget_pos(struct files_struct *files, unsigned int fd)
{
	struct file *f = fget(files, fd);
	if (f && (f->f_mode & FMODE_ATOMIC_POS))
		mutex_lock(&f->f_pos_lock);
	return f;
}

void fdput_pos(struct file *f)
{
	if (!f)
		return;
	if (f->f_mode & FMODE_ATOMIC_POS)
		mutex_unlock(&f->f_pos_lock);
	fput(f);
}

void fdput(struct file *f)
{
	if (f)
		fput(f);
}

const char *files_last_console_line(struct files_struct *files)
{
	return files->console.line.last;
}

bool files_fd_is_open(struct files_struct *files, unsigned int fd)
{
	struct file *f = fget(files, fd);
	fdput(f);
	return f != NULL;
}

/* Linux's alloc_fd(): reserves the lowest free fd under file_lock, below
 * RLIMIT_NOFILE and the table's size; the caller installs a file there
 * (fd_install) or gives it back. */
int alloc_fd(struct files_struct *files)
{
	int ret = -EMFILE;
	struct signal_struct *sig = current->signal;
	unsigned long limit = sig ? READ_ONCE(sig->rlim[RLIMIT_NOFILE].rlim_cur) : NR_OPEN_DEFAULT;
	spin_lock(&files->file_lock);
	if (~files->open_fds) {
		ret = __builtin_ctzl(~files->open_fds);
		if (ret >= NR_OPEN_DEFAULT || (unsigned long)ret >= limit)
			ret = -EMFILE;
		else
			files->open_fds |= 1ul << ret;
	}
	spin_unlock(&files->file_lock);
	return ret;
}

void put_unused_fd(struct files_struct *files, int fd)
{
	spin_lock(&files->file_lock);
	files->open_fds &= ~(1ul << fd);
	spin_unlock(&files->file_lock);
}

/* Linux's __set_close_on_exec / __clear_close_on_exec. */
void set_close_on_exec(struct files_struct *files, int fd, bool on)
{
	spin_lock(&files->file_lock);
	if (on)
		files->close_on_exec |= 1ul << fd;
	else
		files->close_on_exec &= ~(1ul << fd);
	spin_unlock(&files->file_lock);
}

/* Linux's do_close_on_exec: at execve, every O_CLOEXEC descriptor goes. */
void do_close_on_exec(struct files_struct *files)
{
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (READ_ONCE(files->close_on_exec) & (1ul << fd))
			files_close(files, (unsigned int)fd);
}

/* Linux's fd_install(): the table takes over the caller's reference. */
void fd_install(struct files_struct *files, int fd, struct file *f)
{
	spin_lock(&files->file_lock);
	files->fd[fd] = f;
	spin_unlock(&files->file_lock);
}

int files_dup(struct files_struct *files, unsigned int fd)
{
	struct file *f = fget(files, fd);
	if (!f)
		return -EBADF;
	int nfd = alloc_fd(files);
	if (nfd < 0)
		fput(f);
	else
		fd_install(files, nfd, f);
	return nfd;
}

struct files_struct *files_alloc(const char *console_prefix)
{
	struct files_struct *files = kzalloc(sizeof(*files), GFP_KERNEL);
	if (!files)
		return NULL;
	files->count = 1;
	spin_lock_init(&files->file_lock);
	mutex_init(&files->console.atomic_write_lock);
	console_line_init(&files->console.line, console_prefix);
	for (int fd = 0; fd < 3; fd++) {
		if (!(files->fd[fd] = tty_console_file(&files->console, fd > 0))) {
			files_release(files);
			return NULL;
		}
		files->open_fds |= 1ul << fd;
	}
	return files;
}

/* Linux's dup_fd, for fork: a table with the same descriptors, each
 * sharing its open file with old's (one more reference), except the
 * console's: a process has its own line on the console (its output comes
 * out in whole lines, beside the others'), so a console descriptor gets a
 * new console file of the same direction on the new table's line. */
struct files_struct *dup_fd(struct files_struct *old, const char *console_prefix)
{
	struct files_struct *files = kzalloc(sizeof(*files), GFP_KERNEL);
	if (!files)
		return NULL;
	files->count = 1;
	spin_lock_init(&files->file_lock);
	mutex_init(&files->console.atomic_write_lock);
	console_line_init(&files->console.line, console_prefix);
	/* References first, under the lock (nothing allocates there); the
	 * console files are made after it. */
	spin_lock(&old->file_lock);
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *f = old->fd[fd];
		if (!f)
			continue;
		__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
		files->fd[fd] = f;
		files->open_fds |= 1ul << fd;
	}
	files->close_on_exec = old->close_on_exec & files->open_fds;
	strlcpy(files->exe_path, old->exe_path, sizeof(files->exe_path));
	spin_unlock(&old->file_lock);
	bool failed = false;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *f = files->fd[fd];
		if (!f || f->console != &old->console)
			continue;
		files->fd[fd] = failed ? NULL : tty_console_file(&files->console, f->f_mode & FMODE_WRITE);
		if (!files->fd[fd]) {
			failed = true;
			files->open_fds &= ~(1ul << fd);
		}
		fput(f);
	}
	if (failed) {
		files_release(files);
		return NULL;
	}
	return files;
}

/* CLONE_FILES for a new process: one more process shares the table. */
void get_files_struct(struct files_struct *files)
{
	__atomic_add_fetch(&files->count, 1, __ATOMIC_RELAXED);
}

/* After the last thread of the last process sharing the table: nobody
 * else can hold a reference to a file here (system calls end before
 * their thread exits), so each fput frees. */
void files_release(struct files_struct *files)
{
	if (!files || __atomic_sub_fetch(&files->count, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (files->fd[fd])
			fput(files->fd[fd]);
	console_line_end(&files->console.line);
	kfree(files);
}

void files_set_exe_path(struct files_struct *files, const char *path)
{
	if (!files)
		return;
	spin_lock(&files->file_lock);
	strlcpy(files->exe_path, path, sizeof(files->exe_path));
	spin_unlock(&files->file_lock);
}

/* Descriptors in use, reserved ones included (a racy count while other
 * threads open and close). */
unsigned int files_count(const struct files_struct *files)
{
	unsigned long fds = __atomic_load_n(&files->open_fds, __ATOMIC_RELAXED);
	unsigned int n = 0;
	for (; fds; fds &= fds - 1)
		n++;
	return n;
}

/* Linux's close_fd(): the fd leaves the table under file_lock; the file
 * goes when its last user (a read in another thread) drops it. */
int files_close(struct files_struct *files, unsigned int fd)
{
	if (!files || fd >= NR_OPEN_DEFAULT)
		return -EBADF;
	spin_lock(&files->file_lock);
	struct file *f = files->fd[fd];
	if (f) {
		files->fd[fd] = NULL;
		files->open_fds &= ~(1ul << fd);
		files->close_on_exec &= ~(1ul << fd);
	}
	spin_unlock(&files->file_lock);
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}

SYSCALL_DEFINE1(close, unsigned int, fd)
{
	return files_close(current->files, fd);
}
