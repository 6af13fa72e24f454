/* swapoff's half that brings pages back (Linux 6.1's try_to_unuse,
 * unuse_mm, unuse_pte_range, mm/swapfile.c), and the list of mms it
 * visits (Linux's mmlist).
 *
 * try_to_unuse(type) runs with the area off (SWP_WRITEOK clear: reclaim
 * takes no slot of it any more), and repeats, up to UNUSE_PASSES times:
 *   - every tmpfs file with pages out on the area gets them back in its
 *     page cache (shmem_unuse, mm/shmem_swap.c);
 *   - for each mm on swap_mmlist (a reference taken under mmlist_lock,
 *     the lock dropped for the work), under its mmap_lock for reading,
 *     each VMA with anonymous memory is walked (mm/pagewalk.h) for PTEs
 *     holding entries of the area, a batch at a time, and each is
 *     faulted in (swapin_fault: do_swap_page, without counting the fault
 *     to the caller of swapoff, as Linux's unuse_pte counts none);
 *   - every slot left with only SWAP_HAS_CACHE (its page in the swap
 *     cache, no entry naming it any more) lets its page go
 *     (try_to_free_swap).
 * until no slot is in use. A fault that finds no memory fails it with
 * -ENOMEM (and a signal with -EINTR): the caller puts the area back on,
 * with whatever was brought in staying in memory. Slots still in use
 * after the passes (entries a fork was copying meanwhile) give -EBUSY,
 * where Linux would go on trying. */
#include "mm/swapfile.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "mm/hugetlb_vma.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pagewalk.h"
#include "mm/shmem_swap.h"
#include "mm/slab.h"
#include "mm/swap_state.h"
#include "mm/swapops.h"
#include "mm/util.h"

#define UNUSE_PASSES 8
#define UNUSE_BATCH 64

static DEFINE_SPINLOCK(mmlist_lock);
static LIST_HEAD(swap_mmlist);

void swap_mmlist_add(struct mm_struct *mm)
{
	if (!list_empty(&mm->mmlist))
		return;
	spin_lock(&mmlist_lock);
	if (list_empty(&mm->mmlist))
		list_add_tail(&mm->mmlist, &swap_mmlist);
	spin_unlock(&mmlist_lock);
}

void swap_mmlist_del(struct mm_struct *mm)
{
	if (list_empty(&mm->mmlist))
		return;
	spin_lock(&mmlist_lock);
	list_del(&mm->mmlist);
	INIT_LIST_HEAD(&mm->mmlist);
	spin_unlock(&mmlist_lock);
}

/* The mms of the list, each with a user reference (mmput them), in a
 * kvmalloc'd array: how many (0 with *out NULL when memory is short). */
static int collect_mms(struct mm_struct ***out)
{
	for (int size = 16;; size *= 2) {
		struct mm_struct **mms = kvmalloc_array((size_t)size, sizeof(*mms), GFP_KERNEL);
		*out = NULL;
		if (!mms)
			return -ENOMEM;
		int n = 0;
		bool fits = true;
		spin_lock(&mmlist_lock);
		struct mm_struct *mm;
		list_for_each_entry(mm, &swap_mmlist, mmlist) {
			if (n == size) {
				fits = false;
				break;
			}
			if (mmget_not_zero(mm))
				mms[n++] = mm;
		}
		spin_unlock(&mmlist_lock);
		if (fits) {
			*out = mms;
			return n;
		}
		for (int i = 0; i < n; i++)
			mmput(mms[i]);
		kvfree(mms);
	}
}

struct unuse_walk {
	unsigned int type;
	int n;
	unsigned long addr[UNUSE_BATCH];
};

static int unuse_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	struct unuse_walk *uw = walk->private;
	if (!is_swap_pte(pte) || swp_type(pte_to_swp_entry(pte)) != uw->type)
		return 0;
	uw->addr[uw->n++] = addr;
	return uw->n == UNUSE_BATCH; /* full: the caller faults these, then walks on */
}

static int unuse_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	(void)pmd, (void)addr, (void)next, (void)walk;
	return 0; /* a THP: present, never swapped */
}

static int unuse_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	(void)pte, (void)hmask, (void)addr, (void)next, (void)walk;
	return 0; /* hugetlb pages are never swapped */
}

static const struct mm_walk_ops unuse_walk_ops = {
	.pte_entry = unuse_pte_entry,
	.huge_pmd_entry = unuse_huge_pmd,
	.hugetlb_entry = unuse_hugetlb,
};

/* Linux's unuse_mm: every entry of type in mm faulted in. */
static int unuse_mm(struct mm_struct *mm, unsigned int type)
{
	struct unuse_walk *uw = kmalloc(sizeof(*uw), GFP_KERNEL);
	if (!uw)
		return -ENOMEM;
	uw->type = type;
	int err = 0;
	mmap_read_lock(mm);
	struct vm_area_struct *vma;
	for_each_vma(mm, vma) {
		if (!vma->anon_vma || is_vm_hugetlb_page(vma))
			continue;
		unsigned long start = vma->vm_start;
		while (!err && start < vma->vm_end) {
			uw->n = 0;
			walk_page_range_vma(vma, start, vma->vm_end, &unuse_walk_ops, uw);
			for (int i = 0; i < uw->n && !err; i++) {
				vm_fault_t ret = swapin_fault(vma, uw->addr[i]);
				if (ret & VM_FAULT_OOM)
					err = -ENOMEM;
				else if (ret & VM_FAULT_ERROR)
					err = -EIO;
			}
			if (uw->n < UNUSE_BATCH)
				break;
			start = uw->addr[UNUSE_BATCH - 1] + PAGE_SIZE;
		}
		if (err)
			break;
		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
	}
	mmap_read_unlock(mm);
	kfree(uw);
	return err;
}

/* Swap-cache pages whose slots nothing names any more let go. */
static void free_unused_cache(struct swap_info_struct *si)
{
	for (unsigned long offset = 1; offset < si->max; offset++) {
		if (READ_ONCE(si->swap_map[offset]) != SWAP_HAS_CACHE)
			continue;
		struct page *page = lookup_swap_cache(swp_entry((unsigned long)si->type, offset));
		if (page) {
			try_to_free_swap(page);
			put_page(page);
		}
		cond_resched();
	}
}

int try_to_unuse(unsigned int type)
{
	struct swap_info_struct *si = swap_info[type];
	for (int pass = 0; pass < UNUSE_PASSES && READ_ONCE(si->inuse_pages); pass++) {
		/* tmpfs files first (Linux's shmem_unuse): their pages back
		 * in their page caches, not in any mm. */
		int err = shmem_unuse(type);
		if (err)
			return err;
		struct mm_struct **mms;
		int n = collect_mms(&mms);
		err = n < 0 ? n : 0;
		for (int i = 0; i < n; i++) {
			if (!err)
				err = unuse_mm(mms[i], type);
			mmput(mms[i]);
		}
		kvfree(mms);
		if (err)
			return err;
		free_unused_cache(si);
		if (signal_pending(current))
			return -EINTR;
	}
	return READ_ONCE(si->inuse_pages) ? -EBUSY : 0;
}
