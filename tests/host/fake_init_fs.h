/* A fake of fs/init.h's boot-time helpers for host tests: a tree of
 * directories, regular files, symlinks and device nodes in host memory,
 * with inodes shared by hard links, and the errors Linux's system calls
 * give (-ENOENT, -EEXIST, -EISDIR, -ENOTDIR, -ENOTEMPTY, ...). Paths are
 * absolute or relative to "/", walked component by component; symlinks
 * are never followed (the unpacker removes one before making a name).
 * A change inside a directory sets the directory's mtime to
 * FAKE_NOW, as a real filesystem would, so a test sees whether the
 * unpacker set directory times after filling them.
 *
 * Tests inspect the tree with fake_lookup and make the helpers fail with
 * fake_fail_next. */
#ifndef TESTS_HOST_FAKE_INIT_FS_H
#define TESTS_HOST_FAKE_INIT_FS_H

#include "fs/init.h"

#define FAKE_NOW 1999999999ll

struct fake_inode {
	unsigned int ino;
	unsigned int mode; /* type and permission bits */
	unsigned int uid, gid;
	unsigned int rdev; /* new_encode_dev's encoding, as init_mknod got it */
	long long mtime;
	unsigned int nlink;
	char *data; /* a regular file's bytes, a symlink's target (NUL-terminated) */
	size_t size;
};

/* Empties the tree: only "/" (mode 0755, root's), counters zeroed. */
void fake_reset(void);
/* The inode at path (no symlink followed), or NULL. */
const struct fake_inode *fake_lookup(const char *path);
/* Names in the tree, "/" included. */
unsigned int fake_count_names(void);
/* The next call of the named helper ("mkdir", "kernel_write", ...) fails
 * with err; later calls succeed again. */
void fake_fail_next(const char *helper, int err);

/* How the helpers were called. */
struct fake_stats {
	unsigned int writes;       /* kernel_write calls */
	size_t largest_write;      /* the largest count asked */
	unsigned int open_files;   /* filp_open'ed and not yet closed */
};
extern struct fake_stats fake_stats;

#endif
