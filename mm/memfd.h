/* memfd_create(2) and file sealing (Linux 6.1's mm/memfd.c and the seal
 * checks of mm/shmem.c): a memfd is an unlinked tmpfs file; seals, set
 * with fcntl(F_ADD_SEALS) and never removed, restrict what anyone holding
 * the file may do to it:
 *   F_SEAL_SEAL         no more seals (-EPERM)
 *   F_SEAL_SHRINK       no truncate to a smaller size (-EPERM)
 *   F_SEAL_GROW         no truncate to a larger size, no write or
 *                       fallocate past the end (-EPERM)
 *   F_SEAL_WRITE        no write, no hole punched (-EPERM), no new shared
 *                       writable mapping (-EPERM), and a shared read-only
 *                       one cannot be made writable (-EACCES from
 *                       mprotect: VM_MAYWRITE cleared); refused (-EBUSY)
 *                       while a shared writable mapping exists or a page
 *                       is pinned
 *   F_SEAL_FUTURE_WRITE as F_SEAL_WRITE for what comes after it, while
 *                       the shared writable mappings made before stay
 * A regular tmpfs file starts with F_SEAL_SEAL (it takes no seals), a
 * memfd too unless made with MFD_ALLOW_SEALING. Seals change under the
 * inode's i_rwsem, which write, truncate and fallocate hold while they
 * check them; the mappings are counted in the address_space's
 * i_mmap_writable (fs/fs.h). */
#ifndef MM_MEMFD_H
#define MM_MEMFD_H

#include "kernel/types.h"
#include "mm/mm_types.h"

/* fcntl commands and seals (Linux's uapi fcntl.h). */
#define F_LINUX_SPECIFIC_BASE 1024
#define F_ADD_SEALS (F_LINUX_SPECIFIC_BASE + 9)
#define F_GET_SEALS (F_LINUX_SPECIFIC_BASE + 10)
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#define F_SEAL_FUTURE_WRITE 0x0010
/* Linux 6.1's set: F_SEAL_EXEC (0x20) came in 6.3. */
#define F_ALL_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

/* memfd_create's flags (Linux 6.1's uapi memfd.h; MFD_NOEXEC_SEAL and
 * MFD_EXEC came in 6.3). The hugetlb size bits are MAP_HUGETLB's. */
#define MFD_CLOEXEC 0x0001u
#define MFD_ALLOW_SEALING 0x0002u
#define MFD_HUGETLB 0x0004u
#define MFD_HUGE_SHIFT 26
#define MFD_HUGE_MASK 0x3fu

struct file;

/* fcntl's F_ADD_SEALS and F_GET_SEALS (Linux's memfd_fcntl): the seals
 * (F_GET_SEALS), 0, or -EPERM (a descriptor not open for writing, or
 * F_SEAL_SEAL set), -EINVAL (unknown seals, or a file that takes none:
 * not tmpfs), -EBUSY (F_SEAL_WRITE while a shared writable mapping
 * exists or a page is pinned). */
long memfd_fcntl(struct file *file, unsigned int cmd, unsigned long arg);

/* Linux's seal_check_write (6.7; 6.1's seal_check_future_write did this
 * for F_SEAL_FUTURE_WRITE only, F_SEAL_WRITE refusing every VM_SHARED
 * mapping through i_mmap_writable): a new mapping of a write-sealed file
 * may not be shared and writable (-EPERM), and a shared one is made so
 * that mprotect can never make it writable. A private mapping stays
 * copy-on-write writable. */
static inline int seal_check_write(unsigned int seals, struct vm_area_struct *vma)
{
	if (!(seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))
		return 0;
	if ((vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_WRITE))
		return -EPERM;
	if (vma->vm_flags & VM_SHARED)
		vma->vm_flags &= ~VM_MAYWRITE;
	return 0;
}

#endif
