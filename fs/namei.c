/* Path lookup (Linux's fs/namei.c): the walk of a path one component at
 * a time from the root or a directory descriptor, "." and ".." included,
 * each step asking the namespace (fs/proc/generic.c), so that an error comes
 * from the first component that fails; the open of what it finds
 * (path_openat); and getname, the copy of a user path.
 *
 * A directory's path is kept normalised ("/a/b") in its open file, so an
 * openat relative to it resolves by joining. */
#include "fs/internal.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

/* The task /proc/self means: the process, i.e. its group leader (Linux's
 * proc_self_get_link gives the tgid), or a kernel thread itself. A file
 * opened under /proc/self keeps this pointer (proc_node.task): the
 * leader's task_struct outlives the table (process_wait releases it after
 * the last thread, which releases the table), whereas a thread that opened
 * the file may exit and be freed while another thread still reads it. */
struct task_struct *proc_self_task(void)
{
	return current->group_leader ? current->group_leader : current;
}

/* Walks path from base (a normalised directory path, "/" for the root),
 * building the normalised path in out (sized for base + path + 2) and
 * looking up each step, so that an error comes from the first component
 * that fails, as in Linux's walk. Returns 0 (found: *node), 1 (all but the
 * last component found: a name O_CREAT could create), or -ENOENT,
 * -ENOTDIR, -ENAMETOOLONG; *slash tells whether the last component was
 * followed by '/'. */
int path_walk(const char *base, const char *path, char *out, struct proc_node *node, bool *slash)
{
	size_t len = path[0] == '/' ? 0 : strlen(base);
	if (len == 1) /* base "/" */
		len = 0;
	memcpy(out, base, len);
	out[len] = 0;
	int err = procfs_lookup(len ? out : "/", proc_self_task(), node);
	*slash = false;
	for (const char *s = path; *s;) {
		if (*s == '/') {
			s++;
			continue;
		}
		const char *end = s;
		while (*end && *end != '/')
			end++;
		size_t n = (size_t)(end - s);
		if (err) /* below a missing name */
			return err;
		if (!proc_node_is_dir(node))
			return -ENOTDIR;
		/* A real file system (the root's) refuses a name longer than
		 * NAME_MAX; procfs and sysfs just do not find it (-ENOENT). */
		if (n > NAME_MAX && !len)
			return -ENAMETOOLONG;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (len && out[--len] != '/')
				;
			out[len] = 0;
		} else if (n != 1 || s[0] != '.') {
			out[len++] = '/';
			memcpy(out + len, s, n);
			len += n;
			out[len] = 0;
		}
		err = procfs_lookup(len ? out : "/", proc_self_task(), node);
		*slash = *end == '/';
		s = end;
	}
	if (!len)
		strlcpy(out, "/", 2);
	return err == -ENOENT ? 1 : err;
}

/* The directory a path starts from: "/" for an absolute path or AT_FDCWD,
 * else dirfd's (-EBADF: not open, -ENOTDIR: not a directory). *dirp is
 * then dirfd's file, with a reference that keeps *base alive until the
 * caller's fdput(*dirp) (NULL for "/"). */
int path_base(struct files_struct *files, int dirfd, const char *path, const char **base,
	      struct file **dirp)
{
	*base = "/";
	*dirp = NULL;
	if (path[0] != '/' && dirfd != AT_FDCWD) {
		struct file *dir = dirfd < 0 ? NULL : fget(files, (unsigned int)dirfd);
		if (!dir)
			return -EBADF;
		if (!dir->path) {
			fput(dir);
			return -ENOTDIR;
		}
		*base = dir->path;
		*dirp = dir;
	}
	return 0;
}

int path_lookupat(struct files_struct *files, int dirfd, const char *path, struct proc_node *node, char **normp,
		  bool *slash)
{
	const char *base;
	struct file *dirf;
	*normp = NULL;
	int err = path_base(files, dirfd, path, &base, &dirf);
	if (err)
		return err;
	char *norm = kmalloc(strlen(base) + strlen(path) + 2, GFP_KERNEL);
	if (!norm) {
		fdput(dirf);
		return -ENOMEM;
	}
	err = path_walk(base, path, norm, node, slash);
	fdput(dirf); /* base is not used after the walk */
	*normp = norm;
	return err;
}

int path_openat(struct files_struct *files, int dirfd, const char *path, int flags, struct file **fp)
{
	struct proc_node node;
	bool slash;
	int acc = flags & O_ACCMODE;
	char *norm;
	int err = path_lookupat(files, dirfd, path, &node, &norm, &slash);
	if (!norm)
		return err; /* no walk was made */
	/* The last name is missing; nothing here can create files. procfs
	 * answers the lookup itself (-ENOENT even with O_CREAT); sysfs and the
	 * root refuse the creation (-EACCES). */
	bool in_proc = !strncmp(norm, "/proc", 5) && (norm[5] == '/' || !norm[5]);
	if (err == 1)
		err = !(flags & O_CREAT) || in_proc ? -ENOENT : slash ? -EISDIR : -EACCES;
	if (err)
		goto out;
	bool dir = proc_node_is_dir(&node);
	if ((flags & O_CREAT) && (flags & O_EXCL))
		err = -EEXIST;
	else if ((flags & O_CREAT) && dir)
		err = -EISDIR;
	else if ((flags & O_DIRECTORY || slash) && !dir)
		err = -ENOTDIR;
	else if (dir && acc != O_RDONLY)
		err = -EISDIR;
	else if (node.fs == PROC_FS_SYS && !dir && (acc == O_WRONLY || acc == O_RDWR) &&
		 !procfs_node_writable(&node))
		err = -EACCES; /* kernfs: a write open of a file without a write method
				* (access mode 3 opens for neither, and succeeds) */
	if (err)
		goto out;

	struct file *f = alloc_file();
	err = -ENOMEM;
	if (!f)
		goto out;
	f->f_flags = (unsigned int)flags;
	/* OPEN_FMODE: O_RDONLY 0 -> read, 1 -> write, 2 -> both, 3 -> neither.
	 * do_dentry_open: regular files and directories share f_pos under
	 * f_pos_lock (FMODE_ATOMIC_POS). */
	f->f_mode = (((unsigned int)acc + 1) & 3) | FMODE_LSEEK | FMODE_PREAD | FMODE_CAN_READ |
		    FMODE_ATOMIC_POS;
	err = proc_file_open(f, &node, &norm);
	if (err) {
		fput(f);
		goto out;
	}
	*fp = f;
	err = 0;
out:
	kfree(norm);
	return err;
}

/* Linux's getname()/getname_maybe_null(): the user path into a PATH_MAX
 * kernel buffer; with empty_ok, NULL or "" give an empty name. 0 or
 * -EFAULT, -ENAMETOOLONG, -ENOENT (empty without empty_ok), -ENOMEM. */
long getname(const char __user *upath, bool empty_ok, char **out)
{
	char *name = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	long ret = 0;
	if (empty_ok && !upath) {
		name[0] = 0;
	} else {
		long len = strncpy_from_user(name, upath, PATH_MAX);
		ret = len < 0 ? -EFAULT : len >= PATH_MAX ? -ENAMETOOLONG : len == 0 && !empty_ok ? -ENOENT : 0;
	}
	if (ret) {
		kfree(name);
		return ret;
	}
	*out = name;
	return 0;
}
