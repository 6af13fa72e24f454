/* The life of an open file (Linux's fs/file_table.c): a struct file is
 * reference-counted (f_count, atomic); the descriptor table holds one
 * reference per descriptor, and every system call that uses a descriptor
 * holds one while it does (fget/fput in fs/file.c), so a close racing a
 * read of the same fd frees the file only when the reader is done with
 * it. The last fput frees the file and what it owns (its place in the
 * tree, f_path: an unlinked file's inode goes with it; a generated file's
 * snapshot, a directory's path). */
#include "fs/fs.h"
#include "fs/mount.h"
#include "fs/dcache.h"
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "lib/err.h"
#include "mm/slab.h"
#include "mm/util.h"

/* A new struct file with one reference (the caller's), as alloc_empty_file. */
struct file *alloc_file(void)
{
	struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return NULL;
	f->f_count = 1;
	mutex_init(&f->f_pos_lock);
	mutex_init(&f->seq_lock);
	return f;
}

/* Linux's fput(): drops a reference; the last one frees the file (__fput). */
void fput(struct file *f)
{
	if (__atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL))
		return;
	if (f->f_op && f->f_op->release)
		f->f_op->release(f->f_inode, f);
	if (f->f_mode & FMODE_WRITER)
		mnt_put_write_access(f->f_path.mnt);
	if (f->f_path.dentry || f->f_path.mnt)
		path_put(&f->f_path); /* the last reference to an unlinked file's dentry frees it */
	kvfree(f->buf);
	kfree(f->path);
	kfree(f);
}

unsigned long file_copy_out(void *dst, const void *src, size_t n, bool user)
{
	if (user)
		return copy_to_user(dst, src, n);
	memcpy(dst, src, n);
	return 0;
}

unsigned long file_copy_in(void *dst, const void *src, size_t n, bool user)
{
	if (user)
		return copy_from_user(dst, src, n);
	memcpy(dst, src, n);
	return 0;
}

struct file *alloc_file_pseudo(struct inode *inode, struct vfsmount *mnt, const char *name, int flags)
{
	struct qstr q = { name, (unsigned int)strlen(name), 0 };
	mutex_lock(&dcache_lock);
	struct dentry *dentry = d_alloc(mnt->mnt_root, &q);
	if (dentry)
		dentry->d_inode = inode; /* bound, never hashed (mmlab's d_instantiate hashes) */
	mutex_unlock(&dcache_lock);
	if (!dentry) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	struct path path = { mnt, dentry };
	struct file *f = dentry_open(&path, flags);
	dput(dentry); /* the file holds its own */
	return f;
}
