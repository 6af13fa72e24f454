/* Names in directories (Linux's include/linux/dcache.h): a dentry is one
 * name in one directory, bound to an inode (positive) or to nothing
 * (negative: the name was looked up and is missing). Every dentry of a
 * mounted file system sits in a tree from its super_block's s_root, and
 * the linked ones are found by (parent, name) in a hash table, the
 * dentry cache.
 *
 * Invariants: a dentry holds a reference to its parent and (when
 * positive) one to its inode; a hashed dentry is in its parent's
 * d_subdirs, in the order of d_offset (its readdir position, given when
 * it got the name and never reused in that directory); tmpfs keeps each
 * of its linked names alive by one reference of its own
 * (DCACHE_PERSISTENT, Linux's d_make_persistent), dropped when the name
 * goes, so an unlinked file lives on while a file or cwd holds its
 * dentry. The last dput frees a dentry (then its inode reference and its
 * parent reference go).
 *
 * Locking: one mutex, dcache_lock, guards the tree, the hash, every
 * d_count, d_name and d_parent, and the directory-changing inode methods
 * (create, unlink, rename...), which the VFS calls with it held: one
 * change to the namespace at a time (Linux takes each directory's i_rwsem
 * and a rename lock instead). A lookup takes it for each step. */
#ifndef FS_DCACHE_H
#define FS_DCACHE_H

#include "fs/fs.h"
#include "kernel/mutex.h"
#include "lib/list.h"

struct qstr {
	const char *name; /* not NUL-terminated in a walk; d_name's is */
	unsigned int len;
	unsigned int hash;
};

#define DCACHE_MOUNTED 0x1u    /* something is mounted here (fs/namespace.c) */
#define DCACHE_PERSISTENT 0x2u /* the file system holds a reference: the name is linked */

struct dentry {
	long d_count;
	unsigned int d_flags;
	struct dentry *d_parent; /* itself for a file system's root */
	struct qstr d_name;      /* kmalloc'd, NUL-terminated */
	struct inode *d_inode;   /* NULL: negative */
	struct super_block *d_sb;
	unsigned long d_offset;  /* readdir position in d_parent (>= 2) */
	struct list_head d_child;   /* in d_parent->d_subdirs, while hashed */
	struct list_head d_subdirs; /* the names in this directory */
	struct list_head d_hash;    /* in the dentry cache; self: unhashed */
};

extern struct mutex dcache_lock;

/* Linux's full_name_hash. */
unsigned int full_name_hash(const char *name, unsigned int len);
/* A new unhashed negative dentry for name in parent (NULL parent: a
 * root), with one reference; NULL when memory is short. */
struct dentry *d_alloc(struct dentry *parent, const struct qstr *name);
struct dentry *d_make_root(struct inode *root);
/* The hashed dentry of name in parent with a reference, or NULL
 * (dcache_lock held). */
struct dentry *d_lookup_locked(const struct dentry *parent, const struct qstr *name);
/* Binds dentry to inode (taking over the caller's inode reference) and,
 * for a positive one, hashes it in its parent (dcache_lock held). */
void d_add(struct dentry *dentry, struct inode *inode);
void d_instantiate(struct dentry *dentry, struct inode *inode);
/* O_TMPFILE's dentry (never hashed) gets inode and the name "#<ino>",
 * as Linux's d_tmpfile, which d_path shows with " (deleted)". */
void d_tmpfile(struct dentry *dentry, struct inode *inode);
/* The name goes from its directory (unlink, rmdir): unhashed; the dentry
 * stays bound to its inode for those who still hold it. */
void d_delete(struct dentry *dentry);
/* rename: dentry moves to new_parent as name (dcache_lock held). 0 or -ENOMEM. */
int d_move(struct dentry *dentry, struct dentry *new_parent, const struct qstr *name);
/* RENAME_EXCHANGE: the two swap places and names (dcache_lock held). */
void d_exchange(struct dentry *a, struct dentry *b);
static inline bool d_unhashed(const struct dentry *d) { return list_empty(&d->d_hash); }

struct dentry *dget(struct dentry *d);
struct dentry *dget_locked(struct dentry *d);
void dput(struct dentry *d);
void dput_locked(struct dentry *d);

static inline bool d_is_dir(const struct dentry *d)
{
	return d->d_inode && S_ISDIR(d->d_inode->i_mode);
}
static inline bool d_is_symlink(const struct dentry *d)
{
	return d->d_inode && S_ISLNK(d->d_inode->i_mode);
}
/* A name with a file behind it, in its directory (Linux's simple_positive). */
static inline bool simple_positive(const struct dentry *d) { return d->d_inode && !d_unhashed(d); }

/* Linux's d_path: the path of path from root into buf (of buflen bytes),
 * as a pointer into buf; " (deleted)" after an unlinked name; an
 * ERR_PTR(-ENAMETOOLONG) when it does not fit. */
char *d_path(const struct path *path, const struct path *root, char *buf, int buflen);

/* Dentries alive (tests: every one comes back). */
long nr_dentries(void);

/* struct path's references (fs/namespace.c has mntget/mntput). */
void path_get(const struct path *path);
void path_put(const struct path *path);
static inline bool path_equal(const struct path *a, const struct path *b)
{
	return a->mnt == b->mnt && a->dentry == b->dentry;
}

#endif
