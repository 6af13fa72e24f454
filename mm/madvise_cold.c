/* MADV_COLD and MADV_PAGEOUT (Linux 6.1's madvise_cold_or_pageout_pte_range,
 * madvise_cold, madvise_pageout; mm/madvise_cold.h says what each does).
 * The walk (mm/pagewalk.h) isolates the pages under their PTE locks; the
 * deactivation or the swap-out (mm/vmscan.c) runs after it, with no PTE
 * lock held: a swap-out takes the rmap and page-table locks itself. */
#include "mm/madvise_cold.h"
#include "kernel/unistd.h"
#include "mm/hugetlb_vma.h"
#include "mm/memory.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/pagewalk.h"
#include "mm/rmap.h"
#include "mm/vmscan.h"

struct cold_walk {
	struct list_head pages;
};

static int cold_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	(void)addr;
	struct cold_walk *cw = walk->private;
	if (!pte_present(pte) || is_zero_pfn(pte_pfn(pte)) || !pfn_valid(pte_pfn(pte)))
		return 0;
	struct page *page = pfn_to_page(pte_pfn(pte));
	/* Linux: not a THP's page (it would split it first), and "do not
	 * interfere with other mappings of this folio". */
	if (!vma_page_anon(walk->vma, page) || PageAnonThp(compound_head(page)) ||
	    page_mapcount(page) != 1)
		return 0;
	if (!isolate_lru_page(page)) /* a reference of the list's */
		list_add_tail(folio_lru(page), &cw->pages);
	return 0;
}

static int cold_huge_pmd_entry(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	(void)pmd, (void)addr, (void)next, (void)walk;
	return 0; /* a THP: left alone (Linux splits it unless the range covers it all) */
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
	struct cold_walk cw;
	INIT_LIST_HEAD(&cw.pages);
	walk_page_range_vma(vma, start, end, &cold_walk_ops, &cw);
	if (behavior == MADV_PAGEOUT)
		reclaim_pages(&cw.pages);
	else
		deactivate_pages(&cw.pages);
	return 0;
}

