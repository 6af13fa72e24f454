/* The kernel's own file operations at boot (Linux's fs/init.c and the
 * kernel_read/kernel_write/filp_open of fs/read_write.c and fs/open.c):
 * what populates the root before any process runs (the boot programs in
 * /bin, an initramfs). Names are kernel strings, walked from the kernel's
 * root and working directory (init_fs: "/", umask 022, which init_mkdir,
 * init_mknod and filp_open's O_CREAT take off the mode, as Linux's);
 * every call returns 0 or Linux's negative errno.
 *
 * init_mknod's dev is in the user's encoding, as Linux's (and as
 * mknod(2)'s): new_encode_dev(MKDEV(major, minor)) (fs/fs.h), which it
 * decodes to the kernel's MKDEV, major << 20 | minor, that i_rdev and
 * register_chrdev_fops use. filp_open returns an ERR_PTR on failure, as
 * Linux's (lib/err.h: IS_ERR, PTR_ERR), never NULL. */
#ifndef FS_INIT_H
#define FS_INIT_H

#include "fs/fs.h"

int init_mkdir(const char *pathname, umode_t mode);
/* A device node, FIFO or socket (a regular file or directory: -EINVAL,
 * as Linux's; use filp_open and init_mkdir). */
int init_mknod(const char *filename, umode_t mode, unsigned int dev);
int init_symlink(const char *oldname, const char *newname);
int init_link(const char *oldname, const char *newname);
int init_unlink(const char *pathname);
int init_rmdir(const char *pathname);
/* flags: AT_SYMLINK_NOFOLLOW or 0 (fs/internal.h's value, 0x100). */
int init_chown(const char *filename, unsigned int user, unsigned int group, int flags);
int init_chmod(const char *filename, umode_t mode);
/* Both the access and the modification time, of a symlink itself (not
 * followed), as Linux's init_utimes. */
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
