/* /proc/<pid>/fd (Linux's fs/proc/fd.c): a link per open descriptor,
 * named by its number, whose target is the file's path (proc_fd_link):
 * d_path from the reader's root, so an unlinked file reads
 * "/name (deleted)" and a memfd "/memfd:<name> (deleted)", a socket
 * "socket:[<inode>]". The console
 * (descriptors 0-2 from boot) reads "/dev/console", as Linux's console is
 * opened; a procfs or sysfs file, which has no dentry here, has no target
 * (readlink: -EINVAL), where Linux gives its /proc path.
 *
 * Any process of the caller's tree (fs/proc/base.c): its table is taken
 * with a reference (get_task_files) and read under its file_lock (fget),
 * so a descriptor closed meanwhile is simply gone, and a zombie's table
 * (released at exit) is empty. */
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "fs/fs_struct.h"
#include "fs/mount.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/vsprintf.h"

static const struct proc_dir_entry pid_fd_dir __proc_entry = {
	.parent = &pid_dir, .name = "fd", .mode = S_IFDIR | 0500,
};

static bool fd_open(struct task_struct *task, unsigned int fd)
{
	struct files_struct *files = fd < NR_OPEN_DEFAULT ? get_task_files(task) : NULL;
	if (!files) /* a zombie has none */
		return false;
	struct file *f = fget(files, fd);
	fdput(f);
	files_release(files);
	return f != NULL;
}

static bool fd_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	int fd;
	if (!proc_parse_id(s, len, &fd) || !fd_open(task, (unsigned int)fd))
		return false;
	node->fd = fd;
	return true;
}

/* The i-th open descriptor, in increasing order. */
static bool fd_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	for (unsigned int fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		if (!fd_open(task, fd) || i--)
			continue;
		snprintf(name, size, "%u", fd);
		return true;
	}
	return false;
}

static const struct proc_dir_entry pid_fd_link __proc_entry = {
	.parent = &pid_fd_dir, .match = fd_match, .list = fd_list, .mode = S_IFLNK | 0700,
};

const char *proc_fd_link(const struct proc_node *node, char *buf, size_t size)
{
	struct proc_node pinned;
	if (node->entry != &pid_fd_link || proc_pin_task(node, proc_self_task(), &pinned))
		return NULL;
	struct files_struct *files = get_task_files(pinned.task);
	proc_unpin_task(&pinned);
	struct file *f = files ? fget(files, (unsigned int)node->fd) : NULL;
	if (files)
		files_release(files);
	if (!f)
		return NULL;
	const char *t = NULL;
	if (f->f_path.dentry) {
		struct path root;
		get_fs_root(current_fs(), &root);
		t = d_path(&f->f_path, &root, buf, (int)size);
		path_put(&root);
		if (IS_ERR(t))
			t = NULL;
	} else if (f->f_inode && S_ISSOCK(f->f_inode->i_mode)) {
		/* Linux's sockfs_dname: a socket has no path. */
		snprintf(buf, size, "socket:[%lu]", f->f_inode->i_ino);
		t = buf;
	} else if (f->f_inode && S_ISFIFO(f->f_inode->i_mode)) {
		/* Linux's pipefs_dname: nor has a pipe. */
		snprintf(buf, size, "pipe:[%lu]", f->f_inode->i_ino);
		t = buf;
	} else if (f->console) {
		snprintf(buf, size, "/dev/console");
		t = buf;
	}
	fdput(f);
	return t;
}

/* ---- /proc/<pid>/fdinfo/<n> (Linux's seq_show in fs/proc/fd.c) ---- */

static const struct proc_dir_entry pid_fdinfo_dir __proc_entry = {
	.parent = &pid_dir, .name = "fdinfo", .mode = S_IFDIR | 0555,
};

/* The mount a file was opened in: its own, or for a generated file the
 * procfs or sysfs mount (no reference: read at once, as statfs does). */
static int file_mnt_id(const struct file *f)
{
	struct vfsmount *m = file_generated_mount(f);
	if (!m && f->node.entry)
		m = generated_mount(f->node.fs == PROC_FS_SYS ? "/sys" : "/proc");
	return m ? m->mnt_id : 0;
}

/* "pos", "flags" (octal, with O_CLOEXEC when the descriptor has it),
 * "mnt_id" and "ino", as Linux 6.1 prints them; none of mmlab's files
 * adds lines of its own (Linux's show_fdinfo: eventfd, inotify...). The
 * console has no mount nor inode here (mnt_id 0, ino 0), where Linux's
 * is /dev/console's; a generated file has no inode number (0). A
 * descriptor closed since the open reads nothing (Linux: -ENOENT). */
static void fdinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	struct files_struct *files = get_task_files(node->task);
	struct file *f = files ? fget(files, (unsigned int)node->fd) : NULL;
	if (f) {
		spin_lock(&files->file_lock);
		bool cloexec = files->close_on_exec >> node->fd & 1;
		spin_unlock(&files->file_lock);
		unsigned int flags = READ_ONCE(f->f_flags) | (cloexec ? O_CLOEXEC : 0);
		seq_buf_printf(m, "pos:\t%li\nflags:\t0%o\nmnt_id:\t%d\nino:\t%lu\n", READ_ONCE(f->f_pos), flags,
			       file_mnt_id(f), f->f_inode ? f->f_inode->i_ino : 0ul);
		fdput(f);
	}
	if (files)
		files_release(files);
}

static const struct proc_dir_entry pid_fdinfo_file __proc_entry = {
	.parent = &pid_fdinfo_dir, .match = fd_match, .list = fd_list, .mode = S_IFREG | 0444,
	.show = fdinfo_show,
};
