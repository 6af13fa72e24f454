/* statfs, fstatfs (Linux's fs/statfs.c) and the sync family (fs/sync.c).
 * tmpfs has nothing to write back: fsync, fdatasync, sync and syncfs only
 * check their descriptor, as on Linux's tmpfs (noop_fsync). */
#include "fs/internal.h"
#include "arch/x86_64/uaccess.h"
#include "fs/dcache.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

/* struct statfs of x86_64 (asm-generic/statfs.h with 64-bit longs). */
struct statfs {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int f_fsid[2];
	long f_namelen, f_frsize, f_flags, f_spare[4];
};

static long statfs_to_user(const struct kstatfs *k, struct statfs __user *buf)
{
	struct statfs st;
	memset(&st, 0, sizeof(st));
	st.f_type = k->f_type;
	st.f_bsize = k->f_bsize;
	st.f_blocks = k->f_blocks;
	st.f_bfree = k->f_bfree;
	st.f_bavail = k->f_bavail;
	st.f_files = k->f_files;
	st.f_ffree = k->f_ffree;
	st.f_namelen = k->f_namelen;
	st.f_frsize = k->f_frsize;
	st.f_flags = k->f_flags;
	return copy_to_user(buf, &st, sizeof(st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(statfs, const char __user *, pathname, struct statfs __user *, buf)
{
	struct nameidata nd;
	long err = user_path_lookupat(&nd, AT_FDCWD, pathname, LOOKUP_FOLLOW);
	if (err)
		return err;
	struct kstatfs k;
	struct path p = nd.path;
	if (nd.generated) /* the generated file system's own */
		p = (struct path){ nd.generated_mnt, NULL };
	err = vfs_statfs(&p, &k);
	path_lookup_done(&nd);
	return err ? err : statfs_to_user(&k, buf);
}

SYSCALL_DEFINE2(fstatfs, unsigned int, fd, struct statfs __user *, buf)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	struct kstatfs k;
	long err = 0;
	if (f->f_path.dentry) {
		err = vfs_statfs(&f->f_path, &k);
	} else {
		struct vfsmount *m = f->node.entry ? file_generated_mount(f) : NULL;
		if (!m && f->node.entry)
			m = generated_mount(f->node.fs == PROC_FS_SYS ? "/sys" : "/proc");
		if (m) {
			struct path p = { m, NULL };
			err = vfs_statfs(&p, &k);
		} else { /* the console: Linux's devtmpfs is a tmpfs */
			memset(&k, 0, sizeof(k));
			k.f_type = TMPFS_MAGIC;
			k.f_bsize = k.f_frsize = PAGE_SIZE;
			k.f_namelen = NAME_MAX;
		}
	}
	fput(f);
	return err ? err : statfs_to_user(&k, buf);
}

static long do_fsync(unsigned int fd, bool datasync)
{
	struct file *f = fget(current->files, fd);
	if (!f)
		return -EBADF;
	long err = f->f_op->fsync ? f->f_op->fsync(f, datasync) : -EINVAL;
	fput(f);
	return err;
}

SYSCALL_DEFINE1(fsync, unsigned int, fd) { return do_fsync(fd, false); }

SYSCALL_DEFINE1(fdatasync, unsigned int, fd) { return do_fsync(fd, true); }

SYSCALL_DEFINE0(sync) { return 0; }

SYSCALL_DEFINE1(syncfs, int, fd)
{
	struct file *f = fd < 0 ? NULL : fget(current->files, (unsigned int)fd);
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}
