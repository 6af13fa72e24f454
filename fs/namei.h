/* The path walk (Linux's fs/namei.c and include/linux/namei.h): a path
 * resolved one component at a time from the root, the working directory
 * or a directory descriptor, following symbolic links (at most
 * MAXSYMLINKS in one lookup: -ELOOP), "." and ".." (which stays at the
 * root), across mounts, and into the generated files of /proc and /sys,
 * whose names fs/proc/generic.c looks up.
 *
 * A lookup ends in a struct nameidata: for a file of a real file system,
 * nd.path (references held); for a generated one, nd.generated (its
 * normalised path) and nd.node. Release it with path_lookup_done. */
#ifndef FS_NAMEI_H
#define FS_NAMEI_H

#include "fs/dcache.h"
#include "fs/proc/proc_fs.h"

#define MAXSYMLINKS 40

/* Lookup flags (Linux's values). */
#define LOOKUP_FOLLOW 0x0001    /* follow a symlink in the last component */
#define LOOKUP_DIRECTORY 0x0002 /* the last component must be a directory */
#define LOOKUP_EMPTY 0x4000     /* "" is dirfd itself (AT_EMPTY_PATH) */

enum { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

struct files_struct;

struct nameidata {
	struct files_struct *files; /* where dirfd is looked up */
	struct path path;           /* where the walk is (references held) */
	struct path root;           /* the process's root (references held) */
	unsigned int flags;
	int total_link_count;
	int depth;                         /* links being walked mid-path */
	const char *stack[MAXSYMLINKS];    /* what follows each of them */
	int held;                          /* links whose bodies are in use */
	struct path held_links[MAXSYMLINKS + 1];
	struct qstr last;                  /* the last component (path_parentat) */
	int last_type;
	bool trailing_slash;               /* last was followed by '/' */
	char *generated;                   /* below /proc or /sys: the normalised path */
	struct proc_node node;             /* and what it names */
	struct vfsmount *generated_mnt;    /* the mount it is in */
};

/* Linux's filename_lookup: the file at name from dfd. 0 (release nd with
 * path_lookup_done) or a negative errno (nothing to release). */
int path_lookupat(struct nameidata *nd, struct files_struct *files, int dfd, const char *name,
		  unsigned int flags);
/* Linux's filename_parentat: the directory of the last component, which
 * stays unresolved in nd->last (LAST_NORM), or LAST_ROOT/DOT/DOTDOT. */
int path_parentat(struct nameidata *nd, struct files_struct *files, int dfd, const char *name,
		  unsigned int flags);
void path_lookup_done(struct nameidata *nd);
/* The inode and dentry a finished lookup stands on. */
static inline bool nd_is_generated(const struct nameidata *nd) { return nd->generated != NULL; }

/* A kernel path's file (fs/init.c's helpers): 0 and a path with
 * references, or an errno; a generated file is -EXDEV. */
int kern_path(const char *name, unsigned int flags, struct path *path);

/* Linux's lookup_one_len under dcache_lock: the dentry of name in dir
 * (a reference; negative when missing), or an ERR_PTR. */
struct dentry *lookup_one_locked(struct dentry *dir, const struct qstr *name);



/* fs/namei_dir.c: the calls that change directories, on kernel names
 * (the system calls and fs/init.c's boot helpers share them): 0 or
 * Linux's errno, in Linux's order. */
int do_mkdirat(int dfd, const char *name, umode_t mode);
int do_mknodat(int dfd, const char *name, umode_t mode, dev_t dev);
int do_rmdir(int dfd, const char *name);
int do_unlinkat(int dfd, const char *name);
int do_symlinkat(const char *target, int newdfd, const char *newname);
int do_linkat(int olddfd, const char *oldname, int newdfd, const char *newname, int flags);
int do_renameat2(int olddfd, const char *oldname, int newdfd, const char *newname, unsigned int flags);

#endif
