/* mlock(2), munlock(2), mlock2(2), mlockall(2), munlockall(2) (Linux's
 * mm/mlock.c): VM_LOCKED on the VMAs of a range (or of the whole mm, and
 * of the mappings to come through mm->def_flags), and the range faulted
 * in at once. That populate is the fourth source of the clearing series'
 * bulk hint (the series' FOLL_HINT_BULK from mlock, beside MAP_POPULATE,
 * MADV_POPULATE_WRITE and a hugetlb mapping's MAP_POPULATE): a range at
 * least clear_page_uncached_threshold() long has its huge pages cleared
 * uncached (mm/memory.c's populate_vma_range).
 *
 * mmlab has no swap, so a locked page is no more resident than any
 * other; what mlock changes is VM_LOCKED (VmLck, smaps' Locked and "lo",
 * MADV_DONTNEED's -EINVAL, mprotect's populate), the populate, and the
 * pages' place on the LRU: as Linux 6.1's, each page a VM_LOCKED VMA maps
 * is PG_mlocked and on its node's unevictable list, with an mlock_count
 * of the locked VMAs that mapped it (mlock_folio when a VMA is locked or
 * a locked VMA faults it, munlock_folio when a VMA is unlocked or a
 * locked VMA's PTE goes), and back on the inactive list when the count
 * reaches 0 (Meminfo's Mlocked and Unevictable, vmstat's
 * unevictable_pgs_*). A THP mapped by PTEs is left alone, as Linux 6.1's
 * mlock_pte_range leaves a large folio; a huge PMD's unmap does not
 * munlock (the page's free clears it: unevictable_pgs_cleared). RLIMIT_MEMLOCK limits what a process
 * without CAP_IPC_LOCK locks (can_do_mlock, mlock_future_ok); mmlab
 * keeps no locked_vm counter: the pages of the VM_LOCKED VMAs are counted
 * when asked (mm_locked_vm), which is what Linux's counter holds. Hugetlb
 * VMAs are left unlocked and uncounted (mlock_fixup skips them), and
 * populated; so are secretmem VMAs, which stay locked (mm/secretmem.c).
 *
 * Locking: the flags change under the mmap_lock held for writing; the
 * populate under it held for reading (downgraded, as mmlab's mmap does;
 * Linux drops it and takes the read lock afresh). */
#include "kernel/cred.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mm_inline.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/pagewalk.h"
#include "mm/swap.h"
#include "mm/vmstat.h"
#include "mm/secretmem.h"
#include "mm/vma.h"

/* --- the pages -------------------------------------------------------- */

void mlock_folio(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long nr = folio_nr_pages(page), flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (!page_test_flag(page, PG_mlocked)) {
		__atomic_or_fetch(&page->flags, 1ul << PG_mlocked, __ATOMIC_RELAXED);
		lruvec->nr_mlock += nr;
		count_vm_events(UNEVICTABLE_PGMLOCKED, nr);
	}
	/* Off the LRU (isolated), it goes to the unevictable list when it
	 * is put back, with a count of 1 (mm/swap.c lru_add_locked). */
	if (page_test_flag(page, PG_lru)) {
		if (page_test_flag(page, PG_unevictable)) {
			(*folio_mlock_count(page))++;
		} else {
			lruvec_del_folio(lruvec, page);
			__atomic_and_fetch(&page->flags, ~(1ul << PG_active), __ATOMIC_RELAXED);
			__atomic_or_fetch(&page->flags, 1ul << PG_unevictable, __ATOMIC_RELAXED);
			*folio_mlock_count(page) = 1;
			lruvec_add_folio(lruvec, page);
			count_vm_events(UNEVICTABLE_PGCULLED, nr);
		}
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

void munlock_folio(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long nr = folio_nr_pages(page), flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	bool on_list = page_test_flag(page, PG_lru) && page_test_flag(page, PG_unevictable);
	if (on_list && *folio_mlock_count(page) && --*folio_mlock_count(page))
		goto out; /* another locked VMA maps it still */
	if (page_test_flag(page, PG_mlocked)) {
		__atomic_and_fetch(&page->flags, ~(1ul << PG_mlocked), __ATOMIC_RELAXED);
		lruvec->nr_mlock -= nr;
		count_vm_events(UNEVICTABLE_PGMUNLOCKED, nr);
	}
	if (on_list) {
		/* Evictable again: to the inactive list (Linux's
		 * unevictable_pgs_rescued). */
		lruvec_del_folio(lruvec, page);
		__atomic_and_fetch(&page->flags, ~(1ul << PG_unevictable), __ATOMIC_RELAXED);
		lruvec_add_folio(lruvec, page);
		count_vm_events(UNEVICTABLE_PGRESCUED, nr);
	}
out:
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

/* The page an entry maps, if it is one the LRU holds as a whole: not the
 * zero page, not a 4 KiB piece of a THP (Linux 6.1's mlock_pte_range
 * skips large folios mapped by PTEs). */
static struct page *lru_page_of_pte(pte_t pte)
{
	if (!pte_present(pte) || is_zero_pfn(pte_pfn(pte)) || !pfn_valid(pte_pfn(pte)))
		return NULL;
	struct page *page = pfn_to_page(pte_pfn(pte));
	if (compound_head(page) != page || folio_nr_pages(page) != 1)
		return NULL;
	return page;
}

static int mlock_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	(void)addr;
	struct page *page = lru_page_of_pte(pte);
	if (page && page_test_flag(page, PG_lru)) {
		if (walk->vma->vm_flags & VM_LOCKED)
			mlock_folio(page);
		else
			munlock_folio(page);
	}
	return 0;
}

static int mlock_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	(void)addr;
	(void)next;
	if (is_huge_zero_pmd(pmd))
		return 0;
	struct page *page = pfn_to_page(pmd_pfn(pmd));
	if (walk->vma->vm_flags & VM_LOCKED)
		mlock_folio(page);
	else
		munlock_folio(page);
	return 0;
}

static int mlock_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	/* Never reached: mlock_fixup leaves hugetlb VMAs alone, and their
	 * pages are never on the LRU. */
	(void)pte, (void)hmask, (void)addr, (void)next, (void)walk;
	return 0;
}

static const struct mm_walk_ops mlock_walk_ops = {
	.pte_entry = mlock_pte_entry,
	.huge_pmd_entry = mlock_huge_pmd,
	.hugetlb_entry = mlock_hugetlb,
};

/* Linux 6.1's mlock_vma_pages_range: the pages vma maps in [start, end)
 * are mlocked or munlocked as its new flags say. A huge PMD that covers
 * only part of the range is mlocked as a whole, as Linux's. */
static void mlock_vma_pages_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	walk_page_range_vma(vma, start, end, &mlock_walk_ops, NULL);
}

void mlock_vma_folio(struct page *page, struct vm_area_struct *vma)
{
	if ((vma->vm_flags & VM_LOCKED) && compound_head(page) == page && page_test_flag(page, PG_lru))
		mlock_folio(page);
}

void munlock_vma_folio(struct page *page, struct vm_area_struct *vma)
{
	if ((vma->vm_flags & VM_LOCKED) && compound_head(page) == page && folio_nr_pages(page) == 1)
		munlock_folio(page);
}

/* Linux's mlock_fixup: the range's VMA gets newflags (split or merged as
 * mprotect's would), unless it is a hugetlb VMA or nothing changes. */
static int mlock_fixup(struct mm_struct *mm, struct vm_area_struct *vma, struct vm_area_struct **out,
		       unsigned long start, unsigned long end, unsigned long newflags)
{
	*out = vma;
	if (newflags == vma->vm_flags || is_vm_hugetlb_page(vma) || vma_is_secretmem(vma))
		return 0;
	bool was_locked = vma->vm_flags & VM_LOCKED;
	struct vm_area_struct *v = vma_modify_flags(mm, vma, start, end, newflags);
	if (!v)
		return -ENOMEM;
	*out = v;
	/* Only a change of VM_LOCKED changes the pages (a change between
	 * VM_LOCKED and VM_LOCKED|VM_LOCKONFAULT does not). */
	if (was_locked != ((newflags & VM_LOCKED) != 0))
		mlock_vma_pages_range(v, max(start, v->vm_start), min(end, v->vm_end));
	return 0;
}

/* Linux's apply_vma_lock_flags: every VMA of [start, end) gets flags
 * (VM_LOCKED, VM_LOCKONFAULT or neither) in place of its lock flags; a
 * hole is -ENOMEM (the VMAs before it keep the change, as Linux's). */
static int apply_vma_lock_flags(struct mm_struct *mm, unsigned long start, unsigned long end,
				unsigned long flags)
{
	mmap_assert_write_locked(mm);
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	struct vm_area_struct *vma = find_vma(mm, start);
	if (!vma || vma->vm_start > start)
		return -ENOMEM;
	unsigned long nstart = start, tmp = vma->vm_start;
	while (vma && vma->vm_start < end) {
		if (vma->vm_start != tmp)
			return -ENOMEM; /* a hole */
		unsigned long newflags = (vma->vm_flags & ~VM_LOCKED_MASK) | flags;
		tmp = min(vma->vm_end, end);
		struct vm_area_struct *done;
		int err = mlock_fixup(mm, vma, &done, nstart, tmp, newflags);
		if (err)
			return err;
		tmp = done->vm_end; /* it may have merged with what follows */
		nstart = tmp;
		vma = done->vm_next;
	}
	return tmp < end ? -ENOMEM : 0;
}

/* Linux's __mlock_posix_error_return: a populate that could not fault a
 * page in is -ENOMEM for mlock (POSIX), and no memory is -EAGAIN. */
static int mlock_posix_error(int err)
{
	return err == -EFAULT ? -ENOMEM : err == -ENOMEM ? -EAGAIN : err;
}

bool can_do_mlock(void)
{
	return rlimit(RLIMIT_MEMLOCK) != 0 || capable(CAP_IPC_LOCK);
}

unsigned long mm_locked_vm(struct mm_struct *mm)
{
	return count_mm_mlocked_page_nr(mm, 0, TASK_SIZE);
}

/* Linux's count_mm_mlocked_page_nr: the locked pages of [start, start +
 * len). */
unsigned long count_mm_mlocked_page_nr(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	unsigned long end = start + len, count = 0;
	struct vm_area_struct *vma;
	for (vma = find_vma(mm, start); vma && vma->vm_start < end; vma = vma_next(vma))
		if (vma->vm_flags & VM_LOCKED)
			count += min(vma->vm_end, end) - max(vma->vm_start, start);
	return count >> PAGE_SHIFT;
}

bool mlock_future_ok(struct mm_struct *mm, unsigned long flags, unsigned long bytes)
{
	if (!(flags & VM_LOCKED) || capable(CAP_IPC_LOCK))
		return true;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK);
	if (limit == RLIM_INFINITY)
		return true;
	return (bytes >> PAGE_SHIFT) + mm_locked_vm(mm) <= limit >> PAGE_SHIFT;
}

/* Linux's do_mlock: -EPERM without RLIMIT_MEMLOCK or CAP_IPC_LOCK, and
 * -ENOMEM when the range's pages not locked yet would take the mm past
 * the limit. */
static int do_mlock(struct mm_struct *mm, unsigned long start, size_t len, unsigned long flags)
{
	if (!can_do_mlock())
		return -EPERM;
	len = PAGE_ALIGN(len + (start & ~PAGE_MASK));
	start &= PAGE_MASK;
	unsigned long lock_limit = rlimit(RLIMIT_MEMLOCK);
	mmap_write_lock(mm);
	int err = -ENOMEM;
	if (capable(CAP_IPC_LOCK) || lock_limit == RLIM_INFINITY ||
	    (len >> PAGE_SHIFT) + mm_locked_vm(mm) - count_mm_mlocked_page_nr(mm, start, len) <=
		    lock_limit >> PAGE_SHIFT)
		err = apply_vma_lock_flags(mm, start, start + len, flags);
	if (err) {
		mmap_write_unlock(mm);
		return err;
	}
	mmap_write_downgrade(mm);
	err = __mm_populate(mm, start, len, false);
	mmap_read_unlock(mm);
	return err ? mlock_posix_error(err) : 0;
}

/* Linux's apply_mlockall_flags: the future mappings' flags (MCL_FUTURE),
 * then every VMA's (MCL_CURRENT); none of MCL_FUTURE and MCL_CURRENT is
 * munlockall. */
static void apply_mlockall_flags(struct mm_struct *mm, int flags)
{
	mmap_assert_write_locked(mm);
	unsigned long to_add = 0;
	mm->def_flags &= ~VM_LOCKED_MASK;
	if (flags & MCL_FUTURE) {
		mm->def_flags |= VM_LOCKED;
		if (flags & MCL_ONFAULT)
			mm->def_flags |= VM_LOCKONFAULT;
		if (!(flags & MCL_CURRENT))
			return;
	}
	if (flags & MCL_CURRENT) {
		to_add |= VM_LOCKED;
		if (flags & MCL_ONFAULT)
			to_add |= VM_LOCKONFAULT;
	}
	for (struct vm_area_struct *vma = find_vma(mm, 0), *done; vma; vma = done->vm_next) {
		/* Linux ignores a failed fixup here, and so does mmlab. */
		if (mlock_fixup(mm, vma, &done, vma->vm_start, vma->vm_end,
				(vma->vm_flags & ~VM_LOCKED_MASK) | to_add))
			done = vma;
	}
}

SYSCALL_DEFINE2(mlock, unsigned long, start, size_t, len)
{
	return do_mlock(current->mm, start, len, VM_LOCKED);
}

SYSCALL_DEFINE3(mlock2, unsigned long, start, size_t, len, int, flags)
{
	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	return do_mlock(current->mm, start, len, VM_LOCKED | (flags & MLOCK_ONFAULT ? VM_LOCKONFAULT : 0));
}

SYSCALL_DEFINE2(munlock, unsigned long, start, size_t, len)
{
	struct mm_struct *mm = current->mm;
	len = PAGE_ALIGN(len + (start & ~PAGE_MASK));
	start &= PAGE_MASK;
	mmap_write_lock(mm);
	int err = apply_vma_lock_flags(mm, start, start + len, 0);
	mmap_write_unlock(mm);
	return err;
}

SYSCALL_DEFINE1(mlockall, int, flags)
{
	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	if (!can_do_mlock())
		return -EPERM;
	struct mm_struct *mm = current->mm;
	unsigned long lock_limit = rlimit(RLIMIT_MEMLOCK);
	mmap_write_lock(mm);
	/* Linux's: with MCL_CURRENT the whole mm (total_vm) must fit under
	 * the limit, unless CAP_IPC_LOCK. */
	if ((flags & MCL_CURRENT) && lock_limit != RLIM_INFINITY && mm->total_vm > lock_limit >> PAGE_SHIFT &&
	    !capable(CAP_IPC_LOCK)) {
		mmap_write_unlock(mm);
		return -ENOMEM;
	}
	apply_mlockall_flags(mm, flags);
	if (!(flags & MCL_CURRENT)) {
		mmap_write_unlock(mm);
		return 0;
	}
	/* Linux's mm_populate(0, TASK_SIZE): errors ignored. */
	mmap_write_downgrade(mm);
	__mm_populate(mm, 0, TASK_SIZE, true);
	mmap_read_unlock(mm);
	return 0;
}

SYSCALL_DEFINE0(munlockall)
{
	struct mm_struct *mm = current->mm;
	mmap_write_lock(mm);
	apply_mlockall_flags(mm, 0);
	mmap_write_unlock(mm);
	return 0;
}
