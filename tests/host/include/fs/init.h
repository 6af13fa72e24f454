/* The host build's fs/init.h (a shadow on the host include path, ahead of
 * the kernel's): the boot-time file helpers the initramfs unpacker
 * (fs/initramfs.c) calls, declared without the kernel's VFS headers, so
 * that tests/host/initramfs_test.c can link the unpacker against a fake
 * of them (tests/host/fake_init_fs.c). The declarations and the device
 * numbers must stay those of the kernel's fs/init.h and fs/fs.h. */
#ifndef FS_INIT_H
#define FS_INIT_H

#include "kernel/types.h"
#include "lib/err.h"

struct file;
typedef unsigned short umode_t;

/* fs/fs.h's device numbers: Linux's MKDEV and new_encode_dev. */
#define MINORBITS 20
#define MINORMASK ((1u << MINORBITS) - 1)
#define MAJOR(dev) ((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev) ((unsigned int)((dev) & MINORMASK))
#define MKDEV(ma, mi) (((ma) << MINORBITS) | (mi))
static inline unsigned int new_encode_dev(unsigned int dev)
{
	unsigned int major = MAJOR(dev), minor = MINOR(dev);
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

int init_mkdir(const char *pathname, umode_t mode);
int init_mknod(const char *filename, umode_t mode, unsigned int dev);
int init_symlink(const char *oldname, const char *newname);
int init_link(const char *oldname, const char *newname);
int init_unlink(const char *pathname);
int init_rmdir(const char *pathname);
int init_chown(const char *filename, unsigned int user, unsigned int group, int flags);
int init_chmod(const char *filename, umode_t mode);
int init_utimes(const char *filename, long long mtime_seconds);
struct file *filp_open(const char *filename, int flags, umode_t mode);
long kernel_write(struct file *file, const void *buf, size_t count, long long *pos);
int filp_close(struct file *file);

#endif
