/* madvise(2) with Linux's checks in Linux's order (do_madvise,
 * madvise_walk_vmas, madvise_vma_behavior).
 *
 * The advice is applied to each mapped piece of the range in turn; holes
 * are skipped and make the call return -ENOMEM at the end, after the
 * mapped pieces got the advice (as Linux). An advice that fails on a
 * piece stops the walk with its error. Advice that changes flags splits
 * and merges VMAs like mprotect; a split that cannot get memory gives
 * -EAGAIN, as Linux says for "kernel resources temporarily unavailable".
 *
 * What each advice does here, for private anonymous memory without swap:
 *   MADV_DONTNEED (and _LOCKED): the pages go now (zap_page_range_dontneed),
 *     the next touch sees zeroes; -EINVAL on VM_LOCKED VMAs for DONTNEED. In
 *     pte_reclaim=scan mode the PTE tables the zap emptied whole go too,
 *     and then (the lock dropped) the empty PMD tables of the range
 *     (mm/pt_reclaim.c); not for MADV_FREE, as in Linux 6.14;
 *   MADV_FREE: the same as DONTNEED. Linux frees lazily, at reclaim, but is
 *     allowed to free at once: the contents after MADV_FREE are either the
 *     old ones or zeroes, and we always give zeroes;
 *   MADV_WILLNEED: nothing read ahead (Linux reads swapped pages in);
 *   MADV_COLD, MADV_PAGEOUT: mm/madvise_cold.h;
 *   MADV_REMOVE: a hole punched in the file or shared anonymous memory
 *     a shared writable mapping maps (madvise_remove), -EINVAL for
 *     private anonymous memory;
 *   MADV_NORMAL/RANDOM/SEQUENTIAL, DONTFORK/DOFORK, WIPEONFORK/KEEPONFORK,
 *     DONTDUMP/DODUMP, HUGEPAGE/NOHUGEPAGE: record VM_* flags;
 *   on a hugetlb VMA (mm/hugetlb_vma.h): DONTNEED from an aligned start
 *     to the end rounded down to the page size (-EINVAL otherwise), no
 *     MADV_FREE (-EINVAL), flags only on aligned ranges;
 *   MADV_POPULATE_READ/WRITE: fault the pages in, as reads (the zero page)
 *     or as writes (populate_vma_range); a hole or no memory gives
 *     -ENOMEM, a VMA without the access -EINVAL and a fault the page
 *     tables refuse -EFAULT, where the walk stops.
 *   MADV_COLLAPSE: each aligned 2 MiB becomes a THP now (mm/khugepaged.h),
 *     under the read lock, which the collapse drops and takes again.
 * Not accepted (-EINVAL, as unknown advice): KSM's MERGEABLE/UNMERGEABLE,
 * the memory-failure injections, MADV_GUARD_*. */
#include "mm/mmap.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "mm/memory.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/khugepaged.h"
#include "mm/mmap_lock.h"
#include "mm/pt_reclaim.h"
#include "mm/shmem.h"
#include "fs/fs.h"
#include "mm/teardown.h"
#include "mm/vma.h"
#include "mm/madvise_cold.h"

static bool madvise_behavior_valid(int behavior)
{
	switch (behavior) {
	case MADV_DOFORK:
	case MADV_DONTFORK:
	case MADV_NORMAL:
	case MADV_SEQUENTIAL:
	case MADV_RANDOM:
	case MADV_REMOVE:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_FREE:
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
	case MADV_WIPEONFORK:
	case MADV_KEEPONFORK:
	case MADV_COLLAPSE:
		return true;
	default:
		return false;
	}
}

/* Linux's madvise_need_mmap_write: whether the advice changes VMAs (the
 * write lock) or only reads them, zapping pages or faulting them in under
 * the PTE locks (the read lock). */
static bool madvise_need_mmap_write(int behavior)
{
	switch (behavior) {
	case MADV_REMOVE:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_FREE:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
	case MADV_COLLAPSE:
		return false;
	default:
		return true;
	}
}

/* Linux's madvise_update_vma: the flags change goes through the same
 * vma_modify as mprotect's. A split that cannot get memory is -EAGAIN. */
static int madvise_update_vma(struct mm_struct *mm, struct vm_area_struct *vma,
			      struct vm_area_struct **prev, unsigned long start,
			      unsigned long end, unsigned long new_flags)
{
	mmap_assert_write_locked(mm);
	/* A hugetlb VMA splits only at its page size (hugetlb_vm_op_split). */
	int err = hugetlb_vm_op_split(vma, start) ?: hugetlb_vm_op_split(vma, end);
	if (err)
		return err;
	struct vm_area_struct *v = vma_modify_flags(mm, vma, start, end, new_flags);
	if (!v)
		return -EAGAIN;
	*prev = v;
	return 0;
}

/* Linux's madvise_remove, its checks in its order: a hole punched in the
 * file (or shmem object) a shared writable mapping maps, through
 * vfs_fallocate(PUNCH_HOLE | KEEP_SIZE) with the mmap_lock dropped
 * (i_rwsem comes before it, fs/fs.h); *prev NULL: the walk looks the next
 * VMA up again. A shared anonymous mapping's hole is punched in its
 * object's unnamed tmpfs file (Linux's vm_file). A shared hugetlb VMA maps a
 * hugetlbfs file (its hole is punched there); a private one has no file
 * in mmlab, where Linux's has one: -EACCES as Linux's. */
static int madvise_remove(struct mm_struct *mm, struct vm_area_struct *vma, struct vm_area_struct **prev,
			  unsigned long start, unsigned long end)
{
	*prev = NULL;
	if (vma->vm_flags & VM_LOCKED)
		return -EINVAL;
	/* Shared anonymous memory: its object's file (Linux's vm_file). */
	struct file *f = vma->vm_file ? vma->vm_file : vma->vm_shm ? vma->vm_shm->file : NULL;
	if (!f && !is_vm_hugetlb_page(vma))
		return -EINVAL;
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) != (VM_SHARED | VM_WRITE))
		return -EACCES;
	unsigned long pgoff = vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT);
	get_file(f);
	mmap_read_unlock(mm);
	long err = vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (long)(pgoff << PAGE_SHIFT),
				 (long)(end - start));
	fput(f);
	mmap_read_lock(mm);
	return (int)err;
}

/* Advice on [start, end), inside vma. *prev is the VMA that holds the
 * range afterwards (the walk goes on after it), NULL when the lock was
 * dropped meanwhile. */
static int madvise_vma_behavior(struct mm_struct *mm, struct vm_area_struct *vma,
				struct vm_area_struct **prev, unsigned long start,
				unsigned long end, int behavior)
{
	unsigned long new_flags = vma->vm_flags;
	*prev = vma;
	switch (behavior) {
	case MADV_REMOVE:
		return madvise_remove(mm, vma, prev, start, end);
	case MADV_WILLNEED:
		return 0; /* no swap, no page cache: nothing to bring in */
	case MADV_COLLAPSE:
		return madvise_collapse(vma, prev, start, end);
	case MADV_COLD:
	case MADV_PAGEOUT:
		return madvise_cold_or_pageout(vma, start, end, behavior);
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_DONTNEED_LOCKED:
		if (behavior != MADV_DONTNEED_LOCKED && (vma->vm_flags & VM_LOCKED))
			return -EINVAL;
		if (is_vm_hugetlb_page(vma)) {
			/* Linux's madvise_dontneed_free_valid_vma: no MADV_FREE;
			 * an aligned start; the end rounded down (not to free
			 * more than was asked), unless it is the VMA's. */
			unsigned long mask = huge_page_mask(hstate_vma(vma));
			if (behavior == MADV_FREE || (start & ~mask))
				return -EINVAL;
			if (end != vma->vm_end)
				end &= mask;
			if (end <= start)
				return 0;
		}
		if (behavior == MADV_FREE)
			zap_page_range(vma, start, end - start);
		else /* Linux's madvise_dontneed_single_vma: reclaim_pt */
			zap_page_range_dontneed(vma, start, end - start);
		return 0;
	case MADV_NORMAL:
		new_flags &= ~(VM_RAND_READ | VM_SEQ_READ);
		break;
	case MADV_SEQUENTIAL:
		new_flags = (new_flags & ~VM_RAND_READ) | VM_SEQ_READ;
		break;
	case MADV_RANDOM:
		new_flags = (new_flags & ~VM_SEQ_READ) | VM_RAND_READ;
		break;
	case MADV_DONTFORK:
		new_flags |= VM_DONTCOPY;
		break;
	case MADV_DOFORK:
		new_flags &= ~VM_DONTCOPY;
		break;
	case MADV_WIPEONFORK:
		if (vma->vm_flags & VM_SHARED)
			return -EINVAL;
		new_flags |= VM_WIPEONFORK;
		break;
	case MADV_KEEPONFORK:
		new_flags &= ~VM_WIPEONFORK;
		break;
	case MADV_DONTDUMP:
		new_flags |= VM_DONTDUMP;
		break;
	case MADV_DODUMP:
		new_flags &= ~VM_DONTDUMP;
		break;
	case MADV_HUGEPAGE: {
		/* Linux's hugepage_madvise: eligible now, registered now, not
		 * at a fault that may never come. */
		new_flags = (new_flags & ~VM_NOHUGEPAGE) | VM_HUGEPAGE;
		int err = madvise_update_vma(mm, vma, prev, start, end, new_flags);
		if (!err)
			khugepaged_enter_vma(*prev, new_flags);
		return err;
	}
	case MADV_NOHUGEPAGE:
		new_flags = (new_flags & ~VM_HUGEPAGE) | VM_NOHUGEPAGE;
		break;
	}
	return madvise_update_vma(mm, vma, prev, start, end, new_flags);
}

static int madvise_walk_vmas(struct mm_struct *mm, unsigned long start, unsigned long end,
			     int behavior)
{
	struct vm_area_struct *vma = find_vma(mm, start), *prev;
	int unmapped_error = 0;
	for (;;) {
		if (!vma)
			return -ENOMEM; /* nothing mapped from start on */
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
			if (start >= end)
				break;
		}
		unsigned long tmp = min(vma->vm_end, end);
		int error = madvise_vma_behavior(mm, vma, &prev, start, tmp, behavior);
		if (error)
			return error;
		start = tmp;
		if (prev && start < prev->vm_end)
			start = prev->vm_end;
		if (start >= end)
			break;
		/* madvise_remove dropped the lock: the VMAs may have changed. */
		vma = prev ? prev->vm_next : find_vma(mm, start);
	}
	return unmapped_error;
}

/* MADV_POPULATE_*: fault in every page, or fail at the first hole
 * (-ENOMEM) or VMA without the access (-EINVAL), as get_user_pages with
 * FOLL_MADV_POPULATE. */
static int madvise_populate(struct mm_struct *mm, unsigned long start, unsigned long end,
			    int behavior)
{
	unsigned long need = behavior == MADV_POPULATE_WRITE ? VM_WRITE : VM_READ;
	while (start < end) {
		struct vm_area_struct *vma = find_vma(mm, start);
		if (!vma || vma->vm_start > start)
			return -ENOMEM;
		if (!(vma->vm_flags & need))
			return -EINVAL;
		unsigned long tmp = min(vma->vm_end, end);
		/* -ENOMEM, or -EFAULT for a fault refused (Linux's
		 * madvise_populate passes both on). */
		int err = populate_vma_range(vma, start, tmp, behavior == MADV_POPULATE_WRITE);
		if (err)
			return err;
		start = tmp;
	}
	return 0;
}

int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len_in, int behavior)
{
	if (!madvise_behavior_valid(behavior))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	unsigned long len = PAGE_ALIGN(len_in);
	/* len_in rounded up from just below the top of the address space to 0 */
	if (len_in && !len)
		return -EINVAL;
	unsigned long end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	/* Linux's madvise_lock: the read lock for what neither changes a VMA
	 * nor frees a page table, so faults of other threads go on beside
	 * it; the write lock for the rest. */
	bool write = madvise_need_mmap_write(behavior);
	bool dontneed = behavior == MADV_DONTNEED || behavior == MADV_DONTNEED_LOCKED;
	/* The PMD extension's trigger: a PTE table went. */
	unsigned long reclaimed = __atomic_load_n(&mm->pte_tables_reclaimed, __ATOMIC_RELAXED);
	int ret;
	if (write)
		mmap_write_lock(mm);
	else
		mmap_read_lock(mm);
	if (behavior == MADV_POPULATE_READ || behavior == MADV_POPULATE_WRITE)
		ret = madvise_populate(mm, start, end, behavior);
	else
		ret = madvise_walk_vmas(mm, start, end, behavior);
	if (write)
		mmap_write_unlock(mm);
	else
		mmap_read_unlock(mm);
	/* The PMD extension (mm/pt_reclaim.c): empty PMD tables of the range
	 * go under a write trylock after a DONTNEED during which an emptied
	 * PTE table was freed (by this call, or by another thread's beside
	 * it: then the trylock and the scan are spent for nothing, which is
	 * harmless; a count of the mm's tables could go up meanwhile and
	 * hide a free, this one cannot), or when an earlier call had to leave
	 * its range (pmd_reclaim_end: the trylock failed). */
	if (dontneed && (__atomic_load_n(&mm->pte_tables_reclaimed, __ATOMIC_RELAXED) != reclaimed ||
			 READ_ONCE(mm->pmd_reclaim_end)))
		try_to_free_pmd_tables(mm, start, end);
	return ret;
}

SYSCALL_DEFINE3(madvise, unsigned long, start, unsigned long, len_in, int, behavior)
{
	return do_madvise(current->mm, start, len_in, behavior);
}
