/* change_protection: rewriting the protection of the entries of a range
 * (mprotect's page-table half; Linux keeps it in mm/mprotect.c, mmlab
 * beside it, because the host test of mm/mprotect.c replaces it with a
 * stub that checks mprotect's calls).
 *
 * Invariants: a present or PROT_NONE PTE keeps its page and dirty bit and
 * takes the new protection (pte_modify), except that the zero page, and
 * in a private mapping any page but an exclusive anonymous one
 * (anon_page_exclusive, do_wp_page's reuse test: not one a fork shares or
 * a pipe or pin holds, nor a file's page-cache page, mm/filemap_fault.c),
 * are never made writable (Linux's can_change_pte_writable: the write faults and copies
 * or reuses; a shared mapping's pages are written in place); the TLB is flushed over the range before the call
 * returns if any entry changed. A huge PMD follows mm/pgtable.h's rule.
 * Locking: the caller (mprotect) holds the mmap_lock for writing, so no
 * fault changes a VMA's protection under it; each PTE table's entries
 * change under its own PTE lock (faults of other tables go on); a huge
 * PMD under pmd_lockptr (mm->page_table_lock). */
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmu_context.h"
#include "mm/mmu_gather.h"
#include "mm/hugetlb_vma.h"

struct change_details {
	pgprot_t newprot;
	unsigned long changed;
	bool shared; /* a MAP_SHARED VMA: its pages are written in place */
};

static void change_pte_range(struct pmd_walk *walk, pmd_t *pmd, unsigned long addr,
			     unsigned long end)
{
	struct change_details *details = walk->private;
	spinlock_t *ptl;
	pte_t *start_pte = pte_offset_map_lock(walk->mm, pmd, addr, &ptl);
	if (!start_pte)
		return;
	pte_t *pte = start_pte;
	for (; addr != end; addr += PAGE_SIZE, pte++) {
		pte_t old = ptep_get(pte);
		if (!pte_present(old))
			continue;
		pte_t new = pte_modify(old, details->newprot);
		if (pte_write(new) && !pte_write(old) &&
		    (is_zero_pfn(pte_pfn(old)) ||
		     (!details->shared && !anon_page_exclusive(pfn_to_page(pte_pfn(old))))))
			/* Linux's can_change_pte_writable: only a page this
			 * mapping holds alone, by do_wp_page's own test (not
			 * one a fork shares, nor one a pipe holds by vmsplice
			 * after the child that spliced it unmapped it). */
			new = pte_wrprotect(new);
		if (!pte_same(new, old)) {
			set_pte(pte, new);
			details->changed++;
		}
	}
	pte_unmap_unlock(start_pte, ptl);
}

/* The huge-PMD rule for change_protection: the whole PMD takes the new
 * protection; a range that covers only part of it splits it first
 * (mm/huge_memory.c), and the part changes entry by entry (Linux's
 * change_pmd_range). */
static void change_huge_pmd(struct pmd_walk *walk, pmd_t *pmd, unsigned long addr,
			    unsigned long end)
{
	struct change_details *details = walk->private;
	struct mm_struct *mm = walk->mm;
	if ((addr & ~PMD_MASK) || end - addr != PMD_SIZE) {
		split_huge_pmd(mm, pmd, addr);
		pmd_t val = pmdp_get(pmd);
		if (!pmd_none(val) && !pmd_trans_huge(val))
			change_pte_range(walk, pmd, addr, end);
		return;
	}
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	pmd_t old = pmdp_get(pmd);
	pmd_t new = pmd_modify(old, details->newprot);
	if (is_huge_zero_pmd(old)) /* never writable: a write splits it (Linux's change_huge_pmd) */
		new = __pmd(pmd_val(new) & ~_PAGE_RW);
	/* A private mapping's PMD of a tmpfs huge page maps the file's own
	 * pages: never writable, as its PTEs of cache pages (a write splits
	 * it and copies one page: mm/shmem_huge.c). */
	else if (!details->shared && pmd_trans_huge(old) && page_test_flag(pfn_to_page(pmd_pfn(old)), PG_shmem_thp))
		new = __pmd(pmd_val(new) & ~_PAGE_RW);
	/* A private anonymous THP becomes writable only if this PMD holds its
	 * one reference (do_huge_pmd_wp_page's reuse rule): not one a fork
	 * shares or a pipe or pin holds (Linux's can_change_pmd_writable). */
	else if (!details->shared && pmd_trans_huge(old) && !(pmd_val(old) & _PAGE_RW) &&
		 (pmd_val(new) & _PAGE_RW) && page_ref_count(pfn_to_page(pmd_pfn(old))) != 1)
		new = __pmd(pmd_val(new) & ~_PAGE_RW);
	if (pmd_trans_huge(old) && pmd_val(new) != pmd_val(old)) {
		set_pmd(pmd, new);
		details->changed += HPAGE_PMD_NR;
	}
	spin_unlock(ptl);
}

unsigned long change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				pgprot_t newprot)
{
	if (is_vm_hugetlb_page(vma))
		return hugetlb_change_protection(vma, start, end, newprot);
	struct change_details details = { newprot, 0, vma->vm_flags & VM_SHARED };
	struct pmd_walk walk = {
		.mm = vma->vm_mm,
		.pte_table = change_pte_range,
		.huge_pmd = change_huge_pmd,
		.private = &details,
	};
	walk_pmd_range(&walk, start, end);
	if (details.changed)
		flush_tlb_mm_range(vma->vm_mm, start, end);
	return details.changed;
}
