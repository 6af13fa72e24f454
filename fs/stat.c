/* stat, lstat, fstat, newfstatat, statx and readlink (Linux's fs/stat.c):
 * what a file says about itself. A file of tmpfs reports its inode
 * (vfs_getattr); a generated file (procfs, sysfs) its entry's mode and
 * Linux's sizes (0 for /proc files, PAGE_SIZE for sysfs attributes); the
 * console is ttyS0 (4:64). The links /proc/self, /proc/<pid>/exe, cwd
 * and root read as Linux's. */
#include "fs/internal.h"
#include "arch/x86_64/uaccess.h"
#include "fs/dcache.h"
#include "fs/fdtable.h"
#include "fs/fs_struct.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/slab.h"

/* struct stat of x86_64 (arch/x86/include/uapi/asm/stat.h). */
struct stat {
	unsigned long st_dev, st_ino, st_nlink;
	unsigned int st_mode, st_uid, st_gid, __pad0;
	unsigned long st_rdev;
	long st_size, st_blksize, st_blocks;
	unsigned long st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	long __unused[3];
};

/* A generated file or directory: its entry's mode, Linux's sizes. */
static void generated_fillattr(const struct proc_node *node, struct vfsmount *mnt, struct kstat *st)
{
	memset(st, 0, sizeof(*st));
	bool dir = proc_node_is_dir(node);
	st->mode = node->entry->mode;
	st->nlink = dir ? 2 : 1;
	st->dev = mnt ? mnt->mnt_sb->s_dev : 0;
	bool sys_attr = node->fs == PROC_FS_SYS && !dir;
	st->size = sys_attr ? PAGE_SIZE : 0;
	st->blksize = sys_attr ? PAGE_SIZE : 1024;
}

/* A file with neither inode nor generated entry: the console. */
static void file_fillattr(const struct file *f, struct kstat *st)
{
	memset(st, 0, sizeof(*st));
	if (f->f_path.dentry) {
		vfs_getattr(&f->f_path, st);
		return;
	}
	if (f->node.entry) {
		generated_fillattr(&f->node, file_generated_mount(f), st);
		st->size = f->f_op->size;
		return;
	}
	if (f->f_inode) { /* a socket: an inode of the internal sockfs (net/socket.c) */
		generic_fillattr(f->f_inode, st);
		st->blksize = f->f_op->blksize;
		return;
	}
	st->nlink = 1;
	st->mode = f->f_op->mode;
	st->rdev = f->console ? MKDEV(4u, 64u) : 0;
	st->size = f->f_op->size;
	st->blksize = f->f_op->blksize;
}

static void cp_new_stat(const struct kstat *k, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = new_encode_dev(k->dev);
	st->st_ino = k->ino;
	st->st_nlink = k->nlink;
	st->st_mode = k->mode;
	st->st_uid = k->uid;
	st->st_gid = k->gid;
	st->st_rdev = new_encode_dev(k->rdev);
	st->st_size = k->size;
	st->st_blksize = k->blksize;
	st->st_blocks = (long)k->blocks;
	st->st_atime = (unsigned long)k->atime.tv_sec;
	st->st_atime_nsec = (unsigned long)k->atime.tv_nsec;
	st->st_mtime = (unsigned long)k->mtime.tv_sec;
	st->st_mtime_nsec = (unsigned long)k->mtime.tv_nsec;
	st->st_ctime = (unsigned long)k->ctime.tv_sec;
	st->st_ctime_nsec = (unsigned long)k->ctime.tv_nsec;
}

static int vfs_fstat(unsigned int fd, struct kstat *st)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	file_fillattr(f, st);
	fput(f);
	return 0;
}

#define STAT_FLAGS (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE)

/* Linux's vfs_statx: "" with AT_EMPTY_PATH is dfd itself (fstat). */
static int vfs_statx(int dfd, const char *name, int flags, struct kstat *st)
{
	if (flags & ~STAT_FLAGS)
		return -EINVAL;
	if (!name[0] && (flags & AT_EMPTY_PATH) && dfd != AT_FDCWD)
		return dfd < 0 ? -EBADF : vfs_fstat((unsigned int)dfd, st);
	struct nameidata nd;
	unsigned int lf = (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) | (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	int err = path_lookupat(&nd, current->files, dfd, name, lf);
	if (err)
		return err;
	if (nd.generated)
		generated_fillattr(&nd.node, nd.generated_mnt, st);
	else
		err = vfs_getattr(&nd.path, st);
	path_lookup_done(&nd);
	return err;
}

/* vfs_statx of a user path (copied in by getname, "" only with
 * AT_EMPTY_PATH): stat's and statx's common start. */
static long user_statx(int dfd, const char __user *filename, int flags, struct kstat *k)
{
	char *name;
	long ret = getname(filename, flags & AT_EMPTY_PATH, &name);
	if (ret)
		return ret;
	ret = vfs_statx(dfd, name, flags, k);
	kfree(name);
	return ret;
}

static long stat_to_user(int dfd, const char __user *filename, struct stat __user *statbuf, int flags)
{
	if (flags & ~STAT_FLAGS)
		return -EINVAL;
	struct kstat k;
	long ret = user_statx(dfd, filename, flags, &k);
	if (ret)
		return ret;
	struct stat st;
	cp_new_stat(&k, &st);
	return copy_to_user(statbuf, &st, sizeof(st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(fstat, unsigned int, fd, struct stat __user *, statbuf)
{
	struct kstat k;
	int err = vfs_fstat(fd, &k);
	if (err)
		return err;
	struct stat st;
	cp_new_stat(&k, &st);
	return copy_to_user(statbuf, &st, sizeof(st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(stat, const char __user *, filename, struct stat __user *, statbuf)
{
	return stat_to_user(AT_FDCWD, filename, statbuf, 0);
}

SYSCALL_DEFINE2(lstat, const char __user *, filename, struct stat __user *, statbuf)
{
	return stat_to_user(AT_FDCWD, filename, statbuf, AT_SYMLINK_NOFOLLOW);
}

/* Linux's vfs_fstatat (as Linux 6.18 behaves: unknown flags are -EINVAL
 * before the name is read). */
SYSCALL_DEFINE4(newfstatat, int, dfd, const char __user *, filename, struct stat __user *, statbuf,
		int, flag)
{
	return stat_to_user(dfd, filename, statbuf, flag);
}

/* struct statx (include/uapi/linux/stat.h). */
struct statx_timestamp {
	long long tv_sec;
	unsigned int tv_nsec;
	int __reserved;
};
struct statx {
	unsigned int stx_mask, stx_blksize;
	unsigned long stx_attributes;
	unsigned int stx_nlink, stx_uid, stx_gid;
	unsigned short stx_mode, __spare0;
	unsigned long stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	unsigned int stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	unsigned long stx_mnt_id;
	unsigned int stx_dio_mem_align, stx_dio_offset_align;
	unsigned long __spare3[12];
};
_Static_assert(sizeof(struct statx) == 256, "struct statx is Linux's");

#define STATX_BASIC_STATS 0x7ffu
#define STATX__RESERVED 0x80000000u

static struct statx_timestamp statx_time(struct timespec64 t)
{
	return (struct statx_timestamp){ t.tv_sec, (unsigned int)t.tv_nsec, 0 };
}

SYSCALL_DEFINE5(statx, int, dfd, const char __user *, filename, unsigned int, flags, unsigned int, mask,
		struct statx __user *, buffer)
{
	if ((flags & ~STAT_FLAGS) || (flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	if (mask & STATX__RESERVED)
		return -EINVAL;
	struct kstat k;
	long ret = user_statx(dfd, filename, (int)flags, &k);
	if (ret)
		return ret;
	struct statx sx;
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = STATX_BASIC_STATS;
	sx.stx_blksize = (unsigned int)k.blksize;
	sx.stx_nlink = k.nlink;
	sx.stx_uid = k.uid;
	sx.stx_gid = k.gid;
	sx.stx_mode = (unsigned short)k.mode;
	sx.stx_ino = k.ino;
	sx.stx_size = (unsigned long)k.size;
	sx.stx_blocks = k.blocks;
	sx.stx_atime = statx_time(k.atime);
	sx.stx_ctime = statx_time(k.ctime);
	sx.stx_mtime = statx_time(k.mtime);
	sx.stx_rdev_major = MAJOR(k.rdev);
	sx.stx_rdev_minor = MINOR(k.rdev);
	sx.stx_dev_major = MAJOR(k.dev);
	sx.stx_dev_minor = MINOR(k.dev);
	return copy_to_user(buffer, &sx, sizeof(sx)) ? -EFAULT : 0;
}

/* ---- readlink ---- */

/* The target of a generated link, into buf; NULL if it is not one (or,
 * for fd/<n>, if its file has no path), an ERR_PTR when the process's
 * link has no target (-ENOENT: it has ended) or d_path fails.
 * /proc/self is the pid (the tgid, in every thread); /proc/<pid>/exe the
 * program (files_set_exe_path's name); cwd and root the process's. */
static const char *proc_link_target(struct files_struct *files, const struct nameidata *nd, char *buf,
				    size_t size)
{
	const char *g = nd->generated;
	int pid = proc_self_task()->pid;
	if (!strcmp(g, "/proc/self")) {
		snprintf(buf, size, "%d", pid);
		return buf;
	}
	if (!strcmp(g, "/proc/thread-self")) { /* Linux's proc_thread_self_get_link */
		snprintf(buf, size, "%d/task/%d", pid, current->group_leader ? current->pid : pid);
		return buf;
	}
	const char *base = g;
	for (const char *c = g; *c; c++)
		if (*c == '/')
			base = c + 1;
	if (!nd->node.per_task || !nd->node.entry || (nd->node.entry->mode & S_IFMT) != S_IFLNK)
		return NULL;
	const char *fd_target = proc_fd_link(&nd->node, buf, size);
	if (fd_target)
		return fd_target;
	/* The process's own program, root and cwd, each with a reference
	 * (kernel/pid.h); a zombie has none, and a process reaped since the
	 * lookup is gone: -ENOENT, as Linux's proc_exe_link and
	 * proc_cwd_link give. */
	struct proc_node pinned;
	if (proc_pin_task(&nd->node, proc_self_task(), &pinned))
		return ERR_PTR(-ENOENT);
	bool self = pinned.task == proc_self_task();
	struct files_struct *tfiles = self && files ? (get_files_struct(files), files) : get_task_files(pinned.task);
	bool kthread = !pinned.task->signal; /* init_fs, which is never freed */
	struct fs_struct *fs = kthread ? &init_fs : get_task_fs(pinned.task);
	proc_unpin_task(&pinned);
	const char *t = ERR_PTR(-ENOENT);
	if (!strcmp(base, "exe")) {
		if (tfiles) {
			/* Another thread may be setting it (files_set_exe_path). */
			spin_lock(&tfiles->file_lock);
			strlcpy(buf, tfiles->exe_path, size);
			spin_unlock(&tfiles->file_lock);
			t = buf[0] ? buf : ERR_PTR(-ENOENT);
		}
	} else if (fs) {
		struct path root, pwd, reader_root;
		char *gen = NULL;
		get_fs_root(fs, &root);
		get_fs_root(current_fs(), &reader_root);
		bool cwd = !strcmp(base, "cwd");
		if (cwd)
			get_fs_pwd(fs, &pwd, &gen);
		else
			pwd = root, path_get(&pwd);
		/* d_path from the reader's root, as Linux's proc_pid_readlink. */
		t = gen ? (strlcpy(buf, gen, size), buf) : d_path(&pwd, &reader_root, buf, (int)size);
		kfree(gen);
		path_put(&pwd);
		path_put(&root);
		path_put(&reader_root);
	}
	if (tfiles)
		files_release(tfiles);
	if (fs && !kthread)
		put_fs_struct(fs);
	return t;
}

/* Linux's do_readlinkat: bufsiz first (-EINVAL), then the name (getname
 * with LOOKUP_EMPTY: "" is allowed and gives -ENOENT), then the lookup
 * (-EBADF, -ENOTDIR, -ENOENT), then -EINVAL if it is not a link. The
 * target is copied without a NUL and cut at bufsiz; returns its length as
 * copied. */
long files_readlinkat(struct files_struct *files, int dfd, const char *path, char *buf, int bufsiz,
		      bool user)
{
	if (bufsiz <= 0)
		return -EINVAL;
	if (!path[0])
		return -ENOENT;
	struct nameidata nd;
	long err = path_lookupat(&nd, files, dfd, path, 0);
	if (err)
		return err;
	char *target = kmalloc(PATH_MAX, GFP_KERNEL);
	const char *t = NULL;
	err = -ENOMEM;
	if (target) {
		if (nd.generated) {
			t = proc_link_target(files, &nd, target, PATH_MAX);
		} else if (d_is_symlink(nd.path.dentry)) {
			struct inode *inode = nd.path.dentry->d_inode;
			t = inode->i_link;
			inode->i_atime = current_time();
		}
		err = -EINVAL;
	}
	if (IS_ERR(t)) { /* a process's link without a target */
		err = PTR_ERR(t);
		t = NULL;
	}
	if (t) {
		long len = min((long)strlen(t), (long)bufsiz);
		err = file_copy_out(buf, t, (size_t)len, user) ? -EFAULT : len;
	}
	kfree(target);
	path_lookup_done(&nd);
	return err;
}

SYSCALL_DEFINE4(readlinkat, int, dfd, const char __user *, pathname, char __user *, buf, int, bufsiz)
{
	if (bufsiz <= 0)
		return -EINVAL;
	char *name;
	long ret = getname(pathname, true, &name);
	if (ret)
		return ret;
	ret = files_readlinkat(current->files, dfd, name, buf, bufsiz, true);
	kfree(name);
	return ret;
}

SYSCALL_DEFINE3(readlink, const char __user *, path, char __user *, buf, int, bufsiz)
{
	return __do_sys_readlinkat(AT_FDCWD, path, buf, bufsiz);
}
