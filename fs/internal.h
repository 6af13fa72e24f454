/* What the files of fs/ share and nobody else needs (Linux's
 * fs/internal.h): the descriptor table's reservation steps (fs/file.c),
 * the path walk (fs/namei.c), and the opening of a procfs or sysfs file
 * (fs/proc/inode.c). */
#ifndef FS_INTERNAL_H
#define FS_INTERNAL_H

#include "fs/fs.h"

struct task_struct;

/* fs/file.c: Linux's alloc_fd() reserves the lowest free fd (-EMFILE),
 * put_unused_fd() gives it back, fd_install() puts a file there (the
 * table takes over the caller's reference). */
int alloc_fd(struct files_struct *files);
void put_unused_fd(struct files_struct *files, int fd);
void fd_install(struct files_struct *files, int fd, struct file *f);

/* fs/namei.c. The task /proc/self means: the process's group leader (a
 * kernel thread: itself), which outlives the descriptor table. */
struct task_struct *proc_self_task(void);
/* Walks path from base (a normalised directory path, "/" for the root),
 * building the normalised path in out (sized for base + path + 2):
 * 0 (found: *node), 1 (all but the last component found), or -ENOENT,
 * -ENOTDIR, -ENAMETOOLONG; *slash: the last component had a '/' after it. */
int path_walk(const char *base, const char *path, char *out, struct proc_node *node, bool *slash);
/* The directory a path starts from ("/" or dirfd's), with a reference on
 * dirfd's file in *dirp (NULL for "/") to drop with fdput once *base is
 * no longer used: 0, -EBADF, -ENOTDIR. */
int path_base(struct files_struct *files, int dirfd, const char *path, const char **base,
	      struct file **dirp);
/* Opens path from dirfd as open(2) with flags: 0 and a file with one
 * reference in *fp, or files_open's errors (fs/file.h). */
int path_openat(struct files_struct *files, int dirfd, const char *path, int flags, struct file **fp);
/* Linux's path_lookupat: path walked from dirfd (AT_FDCWD: the root) to
 * *node, with *normp its normalised path (kmalloc'd, the caller frees it;
 * NULL when no walk was made: dirfd's error, or no memory). path_walk's
 * results. */
int path_lookupat(struct files_struct *files, int dirfd, const char *path, struct proc_node *node, char **normp,
		  bool *slash);
/* The *at system calls' flags (Linux's fcntl.h values). */
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000

/* Linux's getname()/getname_maybe_null(): the user path into a PATH_MAX
 * kernel buffer (*out, kfree it); with empty_ok, NULL or "" give "".
 * 0 or -EFAULT, -ENAMETOOLONG, -ENOENT (empty without empty_ok), -ENOMEM. */
long getname(const char __user *upath, bool empty_ok, char **out);

/* fs/proc/inode.c: gives f (allocated, node not yet set) the looked-up
 * procfs/sysfs node: its methods, its mode bits, and for a regular file
 * its first snapshot. A directory takes over *norm (its normalised path;
 * *norm set to NULL). 0 or -ENOMEM (f is the caller's to fput then). */
int proc_file_open(struct file *f, const struct proc_node *node, char **norm);

#endif
