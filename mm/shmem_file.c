/* tmpfs files the kernel makes for itself (Linux's shmem_kernel_file_setup
 * side of mm/shmem.c): the internal tmpfs instance shm_mnt, the unlinked
 * files made on it (shmem_file_setup: memfd_create's, mm/memfd.c), and
 * shmem_zero_setup, which makes a MAP_SHARED mapping of /dev/zero shared
 * anonymous memory.
 *
 * shm_mnt is Linux's kern_mount of tmpfs: a mount in no namespace (not in
 * the mount table, so /proc/mounts does not show it and no path reaches
 * it), made once at boot and never unmounted. A file on it has a dentry
 * under its root that is never hashed (Linux's alloc_file_pseudo), so
 * d_path gives "/<name> (deleted)" from any root, as Linux's does, and the
 * dentry and inode go with the file's last reference.
 *
 * Locking: shm_mnt is set once by an initcall, before anything runs that
 * could ask for it; the dentry is bound under dcache_lock. */
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/fs_context.h"
#include "fs/mount.h"
#include "kernel/init.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/mm_types.h"
#include "mm/slab.h"

static struct vfsmount *shm_mnt;

/* Linux's shmem_init -> kern_mount(&shmem_fs_type): SB_KERNMOUNT, so
 * the instance has no size= or nr_inodes= limit (mm/shmem_super.c). */
static int shmem_init(void)
{
	struct vfsmount *m = vfs_kern_mount(get_fs_type("tmpfs"), SB_KERNMOUNT, 0, "tmpfs", NULL);
	if (IS_ERR(m))
		return (int)PTR_ERR(m);
	shm_mnt = m;
	return 0;
}
late_initcall(shmem_init);

struct super_block *shmem_internal_sb(void) { return shm_mnt ? shm_mnt->mnt_sb : NULL; }

struct file *shmem_file_setup(const char *name, long size)
{
	if (!shm_mnt)
		return ERR_PTR(-ENOMEM); /* shmem_init failed at boot */
	/* Linux's __shmem_file_setup: S_IFREG | S_IRWXUGO, unlinked. */
	struct inode *inode = shmem_get_inode(shm_mnt->mnt_sb, NULL, S_IFREG | 0777, 0);
	if (!inode)
		return ERR_PTR(-ENOSPC);
	inode->i_size = size;
	clear_nlink(inode);
	return alloc_file_pseudo(inode, shm_mnt, name, O_RDWR | O_LARGEFILE);
}

int shmem_zero_setup(struct vm_area_struct *vma)
{
	int err;
	struct shmem_object *obj = shmem_object_alloc(vma->vm_mm, "dev/zero", vma->vm_end - vma->vm_start,
						      vma->vm_flags & VM_NORESERVE, &err);
	if (!obj)
		return err;
	/* Linux replaces vm_file with a shmem file "dev/zero" of the
	 * mapping's size ("/dev/zero (deleted)" in /proc/<pid>/maps); mmlab's
	 * object holds that file, maps shows it, and the VMA has none
	 * (mm/shmem.h). vm_pgoff stays
	 * the device offset, as in Linux, where a fault at an offset past the
	 * file's size is SIGBUS. */
	struct file *file = vma->vm_file;
	vma->vm_file = NULL;
	fput(file);
	vma->vm_shm = obj;
	return 0;
}
