/* The page walk of the readers (mincore, pagemap, smaps): Linux's
 * mm/pagewalk.c (walk_page_range, walk_pgd_range ... walk_pte_range), cut
 * down to what they need, and with the 2021 series' references: a PTE
 * table is entered with pte_tryget_map_lock() and left with
 * pte_unmap_unlock() + pte_put() (Qi Zheng's "Free user PTE page table
 * pages" v3, patch 09 converts Linux's walk_pte_range the same way).
 *
 * Invariant: a walk leaves every PTE table's count as it found it (one
 * get, one put, per table entered), and calls exactly one callback for
 * every page of the range: pte_entry for a page under a PTE table,
 * huge_pmd_entry for pages under a huge PMD, hugetlb_entry for the pages
 * of a hugetlb VMA (whose entries are PMDs or PUDs, never tables to
 * enter), pte_hole for the rest.
 *
 * Locking: the caller holds mmap_lock for reading, so no upper-level table
 * (PUD, PMD) goes away under the walk (the PMD extension frees PMD tables
 * under the write lock); a PTE table may: in refcount mode when its count
 * drops to zero, which is what the reference is for; in scan mode when a
 * MADV_DONTNEED beside us empties it, which its PTE lock and the RCU-deferred
 * free cover (mm/pagewalk.h). The PMD lock is taken
 * for a huge PMD (Linux's pmd_trans_huge_lock), the PTE lock for a table's
 * entries; never both at once. */
#include "mm/pagewalk.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"

static int walk_hole(unsigned long addr, unsigned long next, int depth, struct mm_walk *walk)
{
	return walk->ops->pte_hole ? walk->ops->pte_hole(addr, next, depth, walk) : 0;
}

/* A huge PMD, under its lock (Linux's pmd_trans_huge_lock): false when
 * *pmd no longer holds one (the caller looks again), else true with the
 * callback's result in *err. */
static bool walk_huge_pmd(pmd_t *pmd, unsigned long addr, unsigned long next, struct mm_walk *walk,
			  int *err)
{
	spinlock_t *ptl = pmd_lockptr(walk->mm, pmd);
	spin_lock(ptl);
	pmd_t val = pmdp_get(pmd);
	bool huge = pmd_trans_huge(val);
	if (huge)
		*err = walk->ops->huge_pmd_entry(val, addr, next, walk);
	spin_unlock(ptl);
	return huge;
}

/* Linux's walk_pte_range with the series' reference: the table is held
 * from pte_tryget_map_lock() to pte_put(), and its entries are read under
 * its lock. */
static int walk_pte_range(pmd_t *pmd, unsigned long addr, unsigned long end, struct mm_walk *walk)
{
	for (;;) {
		spinlock_t *ptl;
		pte_t *start = pte_tryget_map_lock(walk->mm, pmd, addr, &ptl);
		if (start) {
			int err = 0;
			pte_t *pte = start;
			for (unsigned long a = addr; a < end; a += PAGE_SIZE, pte++) {
				err = walk->ops->pte_entry(ptep_get(pte), a, walk);
				if (err)
					break;
			}
			pte_unmap_unlock(start, ptl);
			pte_put(walk->mm, pmd, addr); /* no PTE lock held: it may free the table */
			return err;
		}
		/* No table we could hold: none, a huge PMD, or a table whose
		 * count reached zero (its entries are all none, and it is on
		 * its way out: a hole, as pte_tryget_map's contract says). */
		int err = 0;
		if (!pmd_trans_huge(pmdp_get(pmd)))
			return walk_hole(addr, end, 3, walk);
		if (walk_huge_pmd(pmd, addr, end, walk, &err))
			return err;
		/* The huge PMD went between the two reads: look again. */
	}
}

static int walk_pmd_level(pud_t *pud, unsigned long addr, unsigned long end, struct mm_walk *walk)
{
	unsigned long next;
	pmd_t *pmd = pmd_offset(pud, addr);
	int err = 0;
	for (; addr < end && !err; pmd++, addr = next) {
		next = pmd_addr_end(addr, end);
		pmd_t val = pmdp_get(pmd);
		if (pmd_none(val))
			err = walk_hole(addr, next, 3, walk);
		else if (!pmd_trans_huge(val) || !walk_huge_pmd(pmd, addr, next, walk, &err))
			err = walk_pte_range(pmd, addr, next, walk);
		cond_resched();
	}
	return err;
}

static int walk_pgd_level(unsigned long addr, unsigned long end, struct mm_walk *walk)
{
	unsigned long next;
	int err = 0;
	for (; addr < end && !err; addr = next) {
		pgd_t *pgd = pgd_offset(walk->mm, addr);
		if (pgd_none(pgdp_get(pgd))) {
			next = pgd_addr_end(addr, end);
			err = walk_hole(addr, next, 0, walk);
			continue;
		}
		pud_t *pud = pud_offset(pgd, addr);
		next = pud_addr_end(addr, end);
		if (pud_none(pudp_get(pud)))
			err = walk_hole(addr, next, 2, walk);
		else
			err = walk_pmd_level(pud, addr, next, walk);
	}
	return err;
}

/* Linux's walk_hugetlb_range: one hugetlb_entry per huge page of a
 * hugetlb VMA (none ones included, as 0), each read under the mm's
 * huge_pte_lockptr, which its entries are written under. */
static int walk_hugetlb_range(unsigned long addr, unsigned long end, struct mm_walk *walk)
{
	struct hstate *h = hstate_vma(walk->vma);
	unsigned long hmask = huge_page_mask(h);
	int err = 0;
	for (unsigned long next; addr < end && !err; addr = next) {
		next = (addr & hmask) + huge_page_size(h);
		if (next > end)
			next = end;
		spin_lock(huge_pte_lockptr(walk->mm));
		pte_t entry = __pte(huge_ptep_get_locked(walk->vma, addr));
		err = walk->ops->hugetlb_entry(entry, hmask, addr, next, walk);
		spin_unlock(huge_pte_lockptr(walk->mm));
		cond_resched();
	}
	return err;
}

/* A range inside one VMA. */
static int walk_vma_range(unsigned long start, unsigned long end, struct mm_walk *walk)
{
	if (is_vm_hugetlb_page(walk->vma))
		return walk_hugetlb_range(start, end, walk);
	return walk_pgd_level(start, end, walk);
}

static bool walk_args_ok(struct mm_struct *mm, unsigned long start, unsigned long end,
			 const struct mm_walk_ops *ops)
{
	if (!ops->pte_entry || !ops->huge_pmd_entry || !ops->hugetlb_entry) {
		pr_err("BUG: page walk without a %s callback: nothing walked\n",
		       !ops->pte_entry ? "pte_entry" : !ops->huge_pmd_entry ? "huge_pmd_entry" : "hugetlb_entry");
		return false;
	}
	mmap_assert_locked(mm);
	return start < end && !((start | end) & ~PAGE_MASK);
}

int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private)
{
	struct mm_walk walk = { .ops = ops, .mm = mm, .private = private };
	if (!walk_args_ok(mm, start, end, ops))
		return start < end ? -EINVAL : 0;
	struct vm_area_struct *vma = find_vma(mm, start);
	int err = 0;
	while (start < end && !err) {
		unsigned long next;
		if (!vma || vma->vm_start >= end) { /* nothing mapped up to end */
			walk.vma = NULL;
			next = end;
			err = walk_hole(start, next, -1, &walk);
		} else if (start < vma->vm_start) { /* the gap below vma */
			walk.vma = NULL;
			next = vma->vm_start;
			err = walk_hole(start, next, -1, &walk);
		} else {
			walk.vma = vma;
			next = min(end, vma->vm_end);
			vma = vma_next(vma);
			err = walk_vma_range(start, next, &walk);
		}
		start = next;
	}
	return err;
}

int walk_page_range_vma(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			const struct mm_walk_ops *ops, void *private)
{
	struct mm_walk walk = { .ops = ops, .mm = vma->vm_mm, .vma = vma, .private = private };
	if (start < vma->vm_start || end > vma->vm_end)
		return -EINVAL;
	if (!walk_args_ok(vma->vm_mm, start, end, ops))
		return start < end ? -EINVAL : 0;
	return walk_vma_range(start, end, &walk);
}

int walk_page_vma(struct vm_area_struct *vma, const struct mm_walk_ops *ops, void *private)
{
	return walk_page_range_vma(vma, vma->vm_start, vma->vm_end, ops, private);
}
