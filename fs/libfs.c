/* Directories of a file system in memory (Linux's fs/libfs.c):
 * fs/libfs.h. A directory's readdir offsets are its names' d_offset
 * (0 is ".", 1 is ".."), given in order as names are added and never
 * reused, so a listing resumed at an offset neither repeats nor skips a
 * name that stayed. */
#include "fs/libfs.h"
#include "lib/string.h"

int simple_lookup(struct inode *dir, struct dentry *dentry)
{
	(void)dir;
	if (dentry->d_name.len > NAME_MAX)
		return -ENAMETOOLONG;
	d_add(dentry, NULL); /* not in the dcache: it does not exist */
	return 0;
}

void d_make_persistent(struct dentry *dentry, struct inode *inode)
{
	d_instantiate(dentry, inode);
	dentry->d_flags |= DCACHE_PERSISTENT;
	dget_locked(dentry);
}

void d_make_discardable(struct dentry *dentry)
{
	d_delete(dentry);
	if (dentry->d_flags & DCACHE_PERSISTENT) {
		dentry->d_flags &= ~DCACHE_PERSISTENT;
		dput_locked(dentry); /* the caller holds another */
	}
}

/* Each call lists from ctx->pos on: ".", "..", then the names whose
 * offset is at least pos, in offset order. The names are copied out
 * under dcache_lock into the caller's kernel buffer (the actor), never
 * to user memory, so no fault happens under it. */
int dcache_readdir(struct file *f, struct dir_context *ctx)
{
	struct dentry *dir = f->f_path.dentry;
	mutex_lock(&dcache_lock);
	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, 0, dir->d_inode->i_ino, DT_DIR))
			goto out;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		struct dentry *parent = dir->d_parent;
		if (!ctx->actor(ctx, "..", 2, 1, parent->d_inode->i_ino, DT_DIR))
			goto out;
		ctx->pos = 2;
	}
	for (struct list_head *p = dir->d_subdirs.next; p != &dir->d_subdirs; p = p->next) {
		struct dentry *d = container_of(p, struct dentry, d_child);
		if ((long)d->d_offset < ctx->pos || !simple_positive(d))
			continue;
		if (!ctx->actor(ctx, d->d_name.name, (int)d->d_name.len, (long)d->d_offset, d->d_inode->i_ino,
				fs_umode_to_dtype(d->d_inode->i_mode)))
			break;
		ctx->pos = (long)d->d_offset + 1;
	}
out:
	mutex_unlock(&dcache_lock);
	return 0;
}

long generic_read_dir(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)f, (void)dst, (void)count, (void)pos, (void)user;
	return -EISDIR;
}

int noop_fsync(struct file *f, bool datasync)
{
	(void)f, (void)datasync;
	return 0;
}

static long dcache_dir_lseek(struct file *f, long offset, int whence)
{
	if (whence == SEEK_CUR)
		offset += f->f_pos;
	else if (whence != SEEK_SET)
		return -EINVAL;
	if (offset < 0)
		return -EINVAL;
	f->f_pos = offset;
	return offset;
}

const struct file_operations simple_dir_operations = {
	.read = generic_read_dir, .llseek = dcache_dir_lseek, .iterate_shared = dcache_readdir,
	.fsync = noop_fsync,
};

int simple_link(struct dentry *old, struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = old->d_inode;
	inode->i_ctime = dir->i_mtime = dir->i_ctime = current_time();
	inc_nlink(inode);
	ihold(inode);
	d_make_persistent(dentry, inode);
	return 0;
}

bool simple_empty(struct dentry *dentry)
{
	for (struct list_head *p = dentry->d_subdirs.next; p != &dentry->d_subdirs; p = p->next)
		if (simple_positive(container_of(p, struct dentry, d_child)))
			return false;
	return true;
}

int simple_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	inode->i_ctime = dir->i_mtime = dir->i_ctime = current_time();
	drop_nlink(inode);
	d_make_discardable(dentry);
	return 0;
}

int simple_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (!simple_empty(dentry))
		return -ENOTEMPTY;
	drop_nlink(dentry->d_inode);
	simple_unlink(dir, dentry);
	drop_nlink(dir);
	return 0;
}

/* RENAME_EXCHANGE swaps the two names; otherwise old takes new's name,
 * and what new named goes. A directory's ".." moves with it (the
 * parents' link counts). */
int simple_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir, struct dentry *new,
		  unsigned int flags)
{
	bool old_is_dir = d_is_dir(old);
	struct timespec64 now = current_time();
	if (flags & RENAME_EXCHANGE) {
		bool new_is_dir = d_is_dir(new);
		if (old_dir != new_dir && old_is_dir != new_is_dir) {
			if (old_is_dir) {
				drop_nlink(old_dir);
				inc_nlink(new_dir);
			} else {
				drop_nlink(new_dir);
				inc_nlink(old_dir);
			}
		}
		d_exchange(old, new);
	} else {
		if (new->d_inode) {
			int err = d_is_dir(new) ? simple_rmdir(new_dir, new) : simple_unlink(new_dir, new);
			if (err)
				return err;
		}
		if (old_is_dir && old_dir != new_dir) {
			drop_nlink(old_dir);
			inc_nlink(new_dir);
		}
		int err = d_move(old, new->d_parent, &new->d_name);
		if (err)
			return err;
	}
	old_dir->i_mtime = old_dir->i_ctime = new_dir->i_mtime = new_dir->i_ctime = now;
	old->d_inode->i_ctime = now;
	return 0;
}

void d_genocide(struct dentry *root)
{
	struct dentry *d = root;
	mutex_lock(&dcache_lock);
	for (;;) {
		if (!list_empty(&d->d_subdirs)) {
			d = container_of(d->d_subdirs.next, struct dentry, d_child);
			continue;
		}
		if (d == root)
			break;
		struct dentry *parent = d->d_parent;
		d_make_discardable(d); /* out of d_subdirs, whoever still holds it */
		d = parent;
	}
	mutex_unlock(&dcache_lock);
}
