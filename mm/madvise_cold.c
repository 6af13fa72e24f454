/* MADV_COLD and MADV_PAGEOUT (Linux 6.1's madvise_cold_or_pageout_pte_range,
 * madvise_cold, madvise_pageout; mm/madvise_cold.h says what each does).
 * A THP the range covers only in part, or one PTEs map, is split first
 * when this mapping is its only one (split_huge_page_to_list); one a PMD
 * maps and the range covers whole is taken whole (reclaim_pages splits
 * it to swap it out, MADV_COLD deactivates it whole).
 * The walk (mm/pagewalk.h) isolates the pages under their PTE locks; the
 * deactivation or the swap-out (mm/vmscan.c) runs after it, with no PTE
 * lock held: a swap-out takes the rmap and page-table locks itself. */
#include "mm/madvise_cold.h"
#include "kernel/unistd.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb_vma.h"
#include "mm/mmu_context.h"
#include "mm/swap.h"
#include "mm/shmem.h"
#include "fs/fs.h"
#include "kernel/cred.h"
#include "mm/memory.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/pagewalk.h"
#include "mm/rmap.h"
#include "mm/vmscan.h"

struct cold_walk {
	struct list_head pages;
	/* A THP to split before the walk goes on (Linux splits it where the
	 * walk found it, having let go of the PTE lock; here the walk stops
	 * and madvise_cold_or_pageout splits it): held by a reference, and
	 * where the walk starts again. */
	struct page *split;
	unsigned long resume;
	/* A PTE-mapped THP that could not be split ends its PMD's part of
	 * the range (Linux's break out of the PTE loop). */
	unsigned long skip_to;
	/* Its tmpfs pages are taken too (a shared mapping of a file or of
	 * shared anonymous memory the caller may page out). */
	bool shmem;
};

/* Linux 6.1's can_do_pageout for a mapping of a tmpfs file (shared
 * anonymous memory's and a System V segment's too): the caller owns the
 * file or may act as its owner (inode_owner_or_capable), or could open
 * it for writing (file_permission(MAY_WRITE): mmlab checks no permission
 * bits, so CAP_DAC_OVERRIDE, or the file open for writing), so that
 * MADV_PAGEOUT of a shared mapping is no side channel on another's file. */
static bool can_do_file_pageout(struct vm_area_struct *vma)
{
	struct file *file = vma->vm_shm ? vma->vm_shm->file : vma->vm_file;
	if (!file || !shmem_mapping(file->f_mapping))
		return false;
	return file->f_inode->i_uid == current_cred()->fsuid || capable(CAP_FOWNER) ||
	       capable(CAP_DAC_OVERRIDE) || (file->f_mode & FMODE_WRITE);
}

/* Linux's test before a split: "do not interfere with other mappings of
 * this folio" (page_mapcount of the page met, its THP's PMDs included). */
static int cold_thp_found(struct cold_walk *cw, struct page *head, unsigned long addr)
{
	get_page(head);
	cw->split = head;
	cw->resume = addr;
	return 1; /* stop: madvise_cold_or_pageout splits it */
}

static int cold_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	struct cold_walk *cw = walk->private;
	if (addr < cw->skip_to)
		return 0;
	if (!pte_present(pte) || is_zero_pfn(pte_pfn(pte)) || !pfn_valid(pte_pfn(pte)))
		return 0;
	struct page *page = pfn_to_page(pte_pfn(pte));
	if (!vma_page_anon(walk->vma, page) && !(cw->shmem && page_in_page_cache(page) &&
						 shmem_mapping(compound_head(page)->mapping)))
		return 0;
	/* A tmpfs huge page's 4 KiB page: left (Linux would split it). */
	if (page_test_flag(compound_head(page), PG_shmem_thp))
		return 0;
	/* A page of a THP mapped by PTEs: split if this is its only
	 * mapping, else the rest of this PMD's range is left (Linux 6.1's
	 * madvise_cold_or_pageout_pte_range: "split it only if we are only
	 * owner", break otherwise). */
	struct page *head = compound_head(page);
	if (PageAnonThp(head)) {
		if (page_mapcount(page) != 1) {
			cw->skip_to = (addr + PMD_SIZE) & PMD_MASK;
			return 0;
		}
		return cold_thp_found(cw, head, addr);
	}
	/* Linux: "do not interfere with other mappings of this folio". */
	if (page_mapcount(page) != 1)
		return 0;
	if (!isolate_lru_page(page)) /* a reference of the list's */
		list_add_tail(folio_lru(page), &cw->pages);
	return 0;
}

/* A THP mapped by a PMD (Linux's pmd_trans_huge branch of
 * madvise_cold_or_pageout_pte_range): left alone when another mapping
 * maps it; split when the range covers only part of it; else taken whole
 * (its PMD made old, as Linux's pmd_mkold), to be split by reclaim_pages
 * (MADV_PAGEOUT) or put back on the inactive list (MADV_COLD). */
static int cold_huge_pmd_entry(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	struct cold_walk *cw = walk->private;
	if (is_huge_zero_pmd(pmd) || !pfn_valid(pmd_pfn(pmd)))
		return 0;
	struct page *head = pfn_to_page(pmd_pfn(pmd));
	if (!PageAnonThp(head) || !vma_page_anon(walk->vma, head) || page_mapcount(head) != 1)
		return 0;
	if (next - addr != PMD_SIZE)
		return cold_thp_found(cw, head, addr);
	pmd_t *pmdp = mm_find_pmd(walk->mm, addr);
	if (pmdp && pmdp_test_and_clear_young(pmdp))
		flush_tlb_mm_range(walk->mm, addr, next);
	if (!isolate_lru_page(head))
		list_add_tail(folio_lru(head), &cw->pages);
	return 0;
}

static int cold_hugetlb_entry(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			      struct mm_walk *walk)
{
	(void)pte, (void)hmask, (void)addr, (void)next, (void)walk;
	return 0; /* never reached: can_madv_lru_vma refuses hugetlb VMAs */
}

static const struct mm_walk_ops cold_walk_ops = {
	.pte_entry = cold_pte_entry,
	.huge_pmd_entry = cold_huge_pmd_entry,
	.hugetlb_entry = cold_hugetlb_entry,
};

int madvise_cold_or_pageout(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				   int behavior)
{
	if ((vma->vm_flags & VM_LOCKED) || is_vm_hugetlb_page(vma))
		return -EINVAL;
	/* Linux: MADV_COLD takes file pages too; MADV_PAGEOUT those of a
	 * file the caller may page out (pageout_anon_only_filter). */
	struct cold_walk cw = { .skip_to = 0 };
	cw.shmem = behavior == MADV_COLD ? (vma->vm_shm || vma->vm_file) : can_do_file_pageout(vma);
	INIT_LIST_HEAD(&cw.pages);
	unsigned long addr = start;
	for (;;) {
		cw.split = NULL;
		walk_page_range_vma(vma, addr, end, &cold_walk_ops, &cw);
		if (!cw.split)
			break;
		/* The split, with no page-table lock held (Linux's
		 * split_huge_page of the locked folio; here it is isolated,
		 * so that reclaim does not take it meanwhile). */
		struct page *head = cw.split;
		addr = cw.resume;
		int err = -EBUSY;
		if (PageAnonThp(head) && !isolate_lru_page(head)) {
			LIST_HEAD(tails);
			put_page(head); /* the walk's: the isolation holds it */
			err = split_huge_page_to_list(head, &tails, vma->vm_mm);
			while (!list_empty(&tails)) {
				struct page *tail = lru_to_folio(tails.next);
				list_del(folio_lru(tail));
				putback_lru_page(tail);
			}
			putback_lru_page(head);
		} else {
			put_page(head);
		}
		/* Split: the walk goes on from the same address, through the
		 * 4 KiB pages now. Not split: the rest of its PMD's range is
		 * left (Linux's break, or its return from the PMD branch). */
		if (err)
			addr = ((addr + PMD_SIZE) & PMD_MASK) < end ? (addr + PMD_SIZE) & PMD_MASK : end;
		if (addr >= end)
			break;
	}
	if (behavior == MADV_PAGEOUT)
		reclaim_pages(&cw.pages, vma->vm_mm); /* its mmap_lock is held */
	else
		deactivate_pages(&cw.pages);
	return 0;
}

