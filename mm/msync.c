/* msync(2) (Linux's mm/msync.c). mmlab has shared file mappings (of tmpfs
 * files and memfds, and shared anonymous memory and System V segments,
 * whose pages are files of the internal tmpfs: mm/shmem.h), but every file
 * it can map lives in memory (tmpfs, hugetlbfs), whose fsync is Linux's
 * noop_fsync: the MS_SYNC writeback Linux starts for a shared file
 * mapping (vfs_fsync_range) has nothing to do and cannot fail. What is
 * left is Linux's checks, in Linux's order, which a program sees:
 *   - flags other than MS_ASYNC, MS_INVALIDATE and MS_SYNC, an unaligned
 *     start, or MS_ASYNC with MS_SYNC: -EINVAL;
 *   - a range that wraps: -ENOMEM; an empty one: 0, mapped or not;
 *   - MS_INVALIDATE over a VM_LOCKED VMA: -EBUSY;
 *   - a hole in the range: -ENOMEM, at once for a plain MS_ASYNC, else at
 *     the end, after the VMAs beyond it were looked at (an -EBUSY there
 *     wins). */
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"

SYSCALL_DEFINE3(msync, unsigned long, start, size_t, len, int, flags)
{
	struct mm_struct *mm = current->mm;
	int unmapped_error = 0;
	int error = -EINVAL;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return error;
	if (start & ~PAGE_MASK)
		return error;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return error;
	len = PAGE_ALIGN(len);
	unsigned long end = start + len;
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;
	mmap_read_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, start);
	for (;;) {
		/* Here start < end. */
		error = -ENOMEM;
		if (!vma)
			break;
		/* Here start < vma->vm_end. */
		if (start < vma->vm_start) {
			if (flags == MS_ASYNC)
				break;
			start = vma->vm_start;
			if (start >= end)
				break;
			unmapped_error = -ENOMEM;
		}
		/* Here vma->vm_start <= start < vma->vm_end. */
		if ((flags & MS_INVALIDATE) && (vma->vm_flags & VM_LOCKED)) {
			error = -EBUSY;
			break;
		}
		/* Linux writes back a shared file mapping's range here for
		 * MS_SYNC (vfs_fsync_range): a tmpfs or hugetlbfs file's
		 * noop_fsync, nothing to do; an anonymous or private mapping
		 * has nothing to write. */
		start = vma->vm_end;
		if (start >= end) {
			error = 0;
			break;
		}
		vma = find_vma(mm, vma->vm_end);
	}
	mmap_read_unlock(mm);
	return error ? error : unmapped_error;
}
