/* The boot-time file helpers (Linux's fs/init.c and include/linux/init_syscalls.h):
 * what the initramfs unpacker (fs/initramfs.c) asks of the VFS, by path,
 * as root, from the root directory.
 *
 * THIS FILE IS A STAND-IN. The VFS and its tmpfs root provide fs/init.c
 * and their own fs/init.h with these declarations; when they land, their
 * header replaces this one whole. Until then nothing in the kernel defines
 * these functions: fs/initramfs.c is compiled but not linked into the
 * kernel (fs/objects.mk), and the host test (tests/host/initramfs_test.c)
 * links it against a fake of them (tests/host/fake_init_fs.c).
 *
 * Every int-returning helper gives 0 or a negative errno, as the system
 * call of the same name would (unlink of a directory: -EISDIR, rmdir of
 * a non-directory: -ENOTDIR, mkdir of an existing name: -EEXIST: the
 * unpacker's clean_path counts on these). Paths are absolute. */
#ifndef FS_INIT_H
#define FS_INIT_H

#include "kernel/types.h"

struct file;
typedef unsigned short umode_t; /* as fs/fs.h's */

int init_mkdir(const char *pathname, umode_t mode);
/* dev: Linux's new_encode_dev(MKDEV(major, minor)). */
int init_mknod(const char *filename, umode_t mode, unsigned int dev);
int init_symlink(const char *oldname, const char *newname);
int init_link(const char *oldname, const char *newname);
int init_unlink(const char *pathname);
int init_rmdir(const char *pathname);
/* flags: 0 or AT_SYMLINK_NOFOLLOW (0x100: a symlink's own owner). */
int init_chown(const char *filename, unsigned int user, unsigned int group, int flags);
int init_chmod(const char *filename, umode_t mode);
/* Sets atime and mtime; a symlink's own (Linux's init_utimes passes
 * AT_SYMLINK_NOFOLLOW), which the unpacker relies on for symlinks. */
int init_utimes(const char *filename, long long mtime_seconds);
/* As Linux's: an ERR_PTR on failure. */
struct file *filp_open(const char *filename, int flags, umode_t mode);
long kernel_write(struct file *file, const void *buf, size_t count, long long *pos);
int filp_close(struct file *file);

/* Linux's include/linux/err.h, for filp_open's result, until the VFS
 * gives the kernel its own. */
#ifndef IS_ERR
#define MAX_ERRNO 4095
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO; }
#define IS_ERR IS_ERR
#endif

#endif
