/* A process's root, working directory and umask (Linux's
 * include/linux/fs_struct.h): shared by the threads and processes made
 * with CLONE_FS, copied by fork otherwise.
 *
 * The working directory is a struct path, or, below /proc or /sys, a
 * path of the generated files (pwd_generated: they have no dentries; pwd
 * is then the mount point). Locking: lock (a spinlock) guards root, pwd,
 * pwd_generated and umask; a reader takes a reference to what it uses
 * under it (get_fs_pwd). users is atomic. */
#ifndef FS_FS_STRUCT_H
#define FS_FS_STRUCT_H

#include "fs/fs.h"
#include "kernel/spinlock.h"

struct fs_struct {
	int users;
	spinlock_t lock;
	int umask;
	struct path root, pwd;
	char *pwd_generated; /* kmalloc'd; NULL: pwd is the directory */
};

/* The kernel's own (kernel threads, tests, the boot): root "/", umask 022. */
extern struct fs_struct init_fs;

/* Boot: init_fs's root and cwd are the root mount's root. */
void init_fs_root(const struct path *root);
/* current's fs_struct (init_fs for a task without one). */
struct fs_struct *current_fs(void);
/* A copy for fork (NULL when memory is short), and the sharing of one
 * (CLONE_FS); free_fs_struct drops a user, the last frees it. */
struct fs_struct *copy_fs_struct(struct fs_struct *old);
void get_fs_struct(struct fs_struct *fs);
void put_fs_struct(struct fs_struct *fs);
/* References to the root and working directory; *gen a kmalloc'd copy of
 * pwd_generated (or NULL). */
void get_fs_root(struct fs_struct *fs, struct path *root);
void get_fs_pwd(struct fs_struct *fs, struct path *pwd, char **gen);
/* chdir/chroot: fs takes over the caller's reference (and gen). */
void set_fs_pwd(struct fs_struct *fs, const struct path *path, char *gen);
void set_fs_root(struct fs_struct *fs, const struct path *path);
int current_umask(void);

#endif
