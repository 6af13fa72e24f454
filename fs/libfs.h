/* The pieces a file system in memory shares (Linux's fs/libfs.c): its
 * directories are its dentries, so lookup finds nothing that the dcache
 * did not already have, readdir lists the children, and link, unlink,
 * rmdir and rename only move names (dcache_lock held by the VFS). */
#ifndef FS_LIBFS_H
#define FS_LIBFS_H

#include "fs/dcache.h"

int simple_lookup(struct inode *dir, struct dentry *dentry);
int dcache_readdir(struct file *f, struct dir_context *ctx);
long generic_read_dir(struct file *f, char *dst, size_t count, long *pos, bool user);
int simple_link(struct dentry *old, struct inode *dir, struct dentry *dentry);
int simple_unlink(struct inode *dir, struct dentry *dentry);
int simple_rmdir(struct inode *dir, struct dentry *dentry);
int simple_rename(struct inode *old_dir, struct dentry *old, struct inode *new_dir, struct dentry *new,
		  unsigned int flags);
/* Whether a directory has no names in it (dcache_lock held). */
bool simple_empty(struct dentry *dentry);
int noop_fsync(struct file *f, bool datasync);
/* Makes dentry's name the file system's own (DCACHE_PERSISTENT): the
 * reference that keeps a linked name alive. */
void d_make_persistent(struct dentry *dentry, struct inode *inode);
/* The name goes: its persistent reference is dropped. */
void d_make_discardable(struct dentry *dentry);

/* Linux's d_genocide, as kill_litter_super uses it: every name under root
 * loses its persistent reference, deepest first (the root keeps its own),
 * so that each file's last reference evicts it. */
void d_genocide(struct dentry *root);
extern const struct file_operations simple_dir_operations;

#define RENAME_NOREPLACE (1u << 0)
#define RENAME_EXCHANGE (1u << 1)
#define RENAME_WHITEOUT (1u << 2)

#endif
