/* What the files of fs/ share and nobody else needs (Linux's
 * fs/internal.h): the descriptor table's reservation steps (fs/file.c),
 * the open of a path (fs/namei_open.c), and the opening of a procfs or
 * sysfs file (fs/proc/inode.c). */
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
/* fs/namei_open.c: opens name from dfd as open(2) with flags (mode for a
 * new file, before the umask): 0 and a file with one reference in *fp,
 * or files_open's errors (fs/file.h). */
int do_filp_open(struct files_struct *files, int dfd, const char *name, int flags, umode_t mode,
		 struct file **fp);
/* The *at system calls' flags (Linux's fcntl.h values). */
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS 0x200
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400
#define AT_NO_AUTOMOUNT 0x800
#define AT_EMPTY_PATH 0x1000
#define AT_STATX_SYNC_TYPE 0x6000

/* Linux's getname()/getname_maybe_null(): the user path into a PATH_MAX
 * kernel buffer (*out, kfree it); with empty_ok, NULL or "" give "".
 * 0 or -EFAULT, -ENAMETOOLONG, -ENOENT (empty without empty_ok), -ENOMEM. */
long getname(const char __user *upath, bool empty_ok, char **out);
/* Linux's user_path_at, keeping the walk's state: the user's name
 * (getname; "" only with LOOKUP_EMPTY) looked up from dfd in the calling
 * process. On 0, nd is path_lookup_done's to end. */
struct nameidata;
int user_path_lookupat(struct nameidata *nd, int dfd, const char __user *upath, unsigned int flags);

/* fs/proc/inode.c: gives f (allocated, node not yet set) the looked-up
 * procfs/sysfs node: its methods, its mode bits, and for a regular file
 * its first snapshot. A directory takes over *norm (its normalised path;
 * *norm set to NULL). 0 or -ENOMEM (f is the caller's to fput then). */
int proc_file_open(struct file *f, const struct proc_node *node, char **norm);

/* fs/read_write.c: the user's iovec (readv, writev, vmsplice) and Linux's
 * import_iovec: vlen of them copied into *iovp (kcalloc'd, the caller
 * kfrees it; NULL for none), each in user space (access_ok) and the total
 * cut to MAX_RW_COUNT by shortening the entries past it; the total, or
 * -EINVAL (more than UIO_MAXIOV, a length negative as ssize_t), -EFAULT,
 * -ENOMEM. */
#define UIO_MAXIOV 1024
struct iovec {
	void __user *iov_base;
	size_t iov_len;
};
long import_iovec(const struct iovec __user *uvec, unsigned long vlen, struct iovec **iovp);

#endif
