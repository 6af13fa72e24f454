/* The kernel's own file operations at boot (Linux's fs/init.c and the
 * kernel_read/kernel_write/filp_open of fs/read_write.c and fs/open.c):
 * what populates the root before any process runs (the boot programs in
 * /bin, an initramfs). Names are kernel strings, walked from the kernel's
 * root and working directory (init_fs: "/", umask 022, which init_mkdir,
 * init_mknod and filp_open's O_CREAT take off the mode, as Linux's);
 * every call returns 0 or Linux's negative errno.
 *
 * Device numbers (init_mknod's dev) are the kernel's encoding,
 * MKDEV(major, minor) = major << 20 | minor (fs/fs.h), not the user's
 * new_encode_dev. filp_open returns an ERR_PTR on failure, as Linux's
 * (lib/err.h: IS_ERR, PTR_ERR), never NULL. */
#ifndef FS_INIT_H
#define FS_INIT_H

#include "fs/fs.h"

int init_mkdir(const char *pathname, umode_t mode);
int init_mknod(const char *filename, umode_t mode, unsigned int dev);
int init_symlink(const char *oldname, const char *newname);
int init_link(const char *oldname, const char *newname);
int init_unlink(const char *pathname);
int init_rmdir(const char *pathname);
/* flags: AT_SYMLINK_NOFOLLOW or 0 (fs/internal.h's value, 0x100). */
int init_chown(const char *filename, unsigned int user, unsigned int group, int flags);
int init_chmod(const char *filename, umode_t mode);
/* Both the access and the modification time. */
int init_utimes(const char *filename, long long mtime_seconds);

/* An open file (one reference, no descriptor) or an ERR_PTR. */
struct file *filp_open(const char *filename, int flags, umode_t mode);
/* Bytes written or read at *pos (moved past them), or a negative errno;
 * buf is kernel memory. */
long kernel_write(struct file *file, const void *buf, size_t count, long long *pos);
long kernel_read(struct file *file, void *buf, size_t count, long long *pos);
/* Drops filp_open's reference: 0. */
int filp_close(struct file *file);

#endif
