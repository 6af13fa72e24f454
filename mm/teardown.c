/* Teardown of user memory: zap (unmap_page_range: the pages of a range,
 * huge PMDs included) and free_pgtables (free_pgd_range: the tables no VMA
 * needs any more), everything going through an mmu_gather so that nothing
 * is freed before the TLBs forget it.
 *
 * Invariants:
 *   - a page or table is unlinked from the page tables (and uncounted)
 *     before it is given to the gather, and the gather frees it only after
 *     its flush (mm/mmu_gather.h);
 *   - free_pgd_range frees a table only when every address it covers lies
 *     in [floor, ceiling) (Linux's rule), and never frees a huge PMD's page
 *     as a PTE table: a huge PMD is a mapping, zapped by zap_huge_pmd.
 * Locking: PTEs of a table are cleared under its PTE lock (pte_offset_map_
 * lock); a huge PMD under mm->page_table_lock. A full batch is flushed
 * after the lock is dropped (the flush waits for other CPUs). A zap runs
 * under the mmap_lock held for reading at least (MADV_DONTNEED beside
 * faults); tables are unlinked (free_pgd_range) only under it held for
 * writing (munmap, exit), so no walker is inside them (mm/mm_types.h),
 * with two exceptions, one per pte_reclaim mode:
 *   - refcount (mm/pte_ref.h): a PTE table goes when a zap drops its last
 *     reference, under either lock: the zap's put clears the PMD under the
 *     PMD lock, so free_pgtables, which comes after the zap under the
 *     write lock, finds the entry none and never frees it twice;
 *   - scan: MADV_DONTNEED's zap frees a PTE table it emptied whole, under
 *     its PMD and PTE locks (mm/pt_reclaim.c). */
#include "mm/swap_state.h"
#include "mm/swapops.h"
#include "mm/swap.h"
#include "mm/teardown.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb_vma.h"
#include "mm/memory.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/pt_reclaim.h"
#include "mm/shmem.h"

/* --- zap -------------------------------------------------------------------- */

bool zap_huge_pmd(struct mmu_gather *tlb, struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
		  unsigned long end)
{
	unsigned long haddr = addr & PMD_MASK;
	if (addr != haddr || end != haddr + PMD_SIZE) {
		static bool warned;
		if (!warned) {
			warned = true;
			pr_err("BUG: zap_huge_pmd of [%#lx, %#lx), part of a huge PMD: all 2 MiB at %#lx "
			       "unmapped (a part is split first: zap_huge_pmd_range)\n", addr, end, haddr);
		}
	}
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	/* Linux's pmd_trans_huge_lock: the walker saw a huge PMD without the
	 * lock, and another thread may have split it since (a MADV_DONTNEED
	 * of a part, under the read lock): then it holds a PTE table, which
	 * the caller zaps entry by entry. */
	if (!pmd_trans_huge(pmdp_get(pmd))) {
		spin_unlock(ptl);
		return false;
	}
	pmd_t old = pmdp_get_and_clear(mm, haddr, pmd);
	unsigned long pfn = pmd_pfn(old);
	struct page *page = pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
	if (page && page_test_flag(page, PG_shmem_thp)) {
		/* A tmpfs huge page (mm/shmem_huge.c): no table deposited; the
		 * page cache keeps the page, the PMD's reference goes after
		 * the flush. */
		spin_unlock(ptl);
		tlb_flush_range_add(tlb, haddr, PMD_SIZE);
		shmem_pmd_unmapped(mm, page);
		if (__tlb_remove_page_size(tlb, page, haddr, 0))
			tlb_flush_mmu(tlb);
		return true;
	}
	/* The PTE table deposited for its split goes with it (Linux's
	 * zap_deposited_table). */
	struct page *table = pgtable_trans_huge_withdraw(mm, pmd);
	spin_unlock(ptl);
	if (table) {
		mm_account_pgtable(mm, -1, true);
		pte_free(mm, table);
	}
	tlb_flush_range_add(tlb, haddr, PMD_SIZE);
	if (is_huge_zero_pmd(old))
		return true; /* not counted, never freed */
	/* Only an order-9 allocation can be handed back as one; anything else
	 * under a huge PMD is not ours to free. */
	if (!page || !PageHead(page) || page->private != HPAGE_PMD_ORDER) {
		pr_err("BUG: huge PMD at %#lx maps pfn %#lx, not an order-%lu page: unmapped, not freed\n",
		       haddr, pfn, (unsigned long)HPAGE_PMD_ORDER);
		return true;
	}
	anon_page_unmapped(mm, page, HPAGE_PMD_NR);
	if (__tlb_remove_page_size(tlb, page, haddr, HPAGE_PMD_ORDER))
		tlb_flush_mmu(tlb);
	return true;
}

struct zap_details {
	struct mmu_gather *tlb;
	struct vm_area_struct *vma;
	bool reclaim_pt; /* MADV_DONTNEED: free the PTE tables emptied (scan mode) */
	/* unmap_mapping_range without even_cows: a private file mapping's
	 * anonymous copies stay (Linux's should_zap_page: !even_cows zaps
	 * only !PageAnon pages). */
	bool keep_cows;
};

/* Linux's should_zap_page for a present, migration or swap entry (a
 * swap entry is an anonymous page's). */
static bool should_zap_entry(const struct zap_details *details, pte_t entry)
{
	if (!details->keep_cows)
		return true;
	if (is_migration_entry(entry) || is_swap_pte(entry))
		return false; /* only anonymous pages move (mm/migrate.c) */
	return is_zero_pfn(pte_pfn(entry)) || !PageAnon(pfn_to_page(pte_pfn(entry)));
}

/* Linux's zap_pte_range with the series' references (patches 11 and 15):
 * in refcount mode the zap holds a walker reference on the table from
 * before it looks at an entry to the end (the series' zap_pmd_range
 * pte_try_get), counts the entries it clears, and drops both at the end
 * with one put through the gather, outside the PTE lock: the last put
 * unhooks the table and queues it in the gather's RCU table batch. A
 * table whose count is zero already is being freed by another zap: its
 * entries are all none, nothing to do. */
static void zap_pte_range(struct pmd_walk *walk, pmd_t *pmd, unsigned long addr, unsigned long end)
{
	struct zap_details *details = walk->private;
	struct mmu_gather *tlb = details->tlb;
	struct mm_struct *mm = walk->mm;
	unsigned long start = addr;
	unsigned int nr_put = 0;
	bool force_flush;
	if (pte_ref_enabled()) {
		if (pte_try_get(pmd) != TRYGET_SUCCESSED)
			return; /* none, huge (the walk saw it otherwise) or going */
		nr_put = 1;
	}
	do {
		force_flush = false;
		spinlock_t *ptl;
		pte_t *start_pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
		if (!start_pte)
			break; /* the table went meanwhile: nothing left to zap */
		pte_t *pte = start_pte;
		for (; addr != end; addr += PAGE_SIZE, pte++) {
			if (pte_skip_none_run(&pte, &addr, end))
				continue;
			pte_t entry = ptep_get(pte);
			if (pte_none(entry) || !should_zap_entry(details, entry))
				continue;
			pte_clear(mm, addr, pte);
			nr_put++;
			/* A swap entry: its slot reference goes, and the slot
			 * with a swap-cache page nobody else needs (Linux's
			 * free_swap_and_cache). */
			if (is_swap_pte(entry)) {
				free_swap_and_cache(pte_to_swp_entry(entry));
				add_mm_counter(mm, MM_SWAPENTS, -1);
				continue;
			}
			/* A migration entry holds no mapping or reference of
			 * its page (mm/migrate.c): the mover finds it gone. */
			if (is_migration_entry(entry))
				add_mm_counter(mm, details->vma->vm_shm ? MM_SHMEMPAGES : MM_ANONPAGES, -1);
			if (is_zero_pfn(pte_pfn(entry)) || is_migration_entry(entry)) {
				tlb_flush_range_add(tlb, addr, PAGE_SIZE);
				continue;
			}
			struct page *page = pfn_to_page(pte_pfn(entry));
			munlock_vma_folio(page, details->vma); /* Linux's page_remove_rmap */
			if (details->vma->vm_shm) {
				shmem_page_unmapped(mm, page);
			} else if (PageSwapCache(page)) {
				/* Against a swap-in's first mapping (mm/swap_state.h);
				 * the last mapping gone, the cache lets go of it if no
				 * entry needs its slot (Linux's free_swap_cache). */
				spin_lock(&swap_cache_lock);
				pte_page_unmapped(mm, page);
				spin_unlock(&swap_cache_lock);
				try_to_free_swap(page);
			} else {
				pte_page_unmapped(mm, page);
			}
			if (__tlb_remove_page_size(tlb, page, addr, 0)) {
				/* Full: flush outside the lock, then go on. */
				force_flush = true;
				addr += PAGE_SIZE;
				break;
			}
		}
		pte_unmap_unlock(start_pte, ptl);
		if (force_flush)
			tlb_flush_mmu(tlb);
	} while (addr != end);
	if (pte_ref_enabled())
		__pte_put_many(tlb, mm, pmd, start, nr_put);
	/* Linux 6.14's CONFIG_PT_RECLAIM: a table this zap emptied whole goes
	 * (mm/pt_reclaim.c; mmlab always takes mainline's slow path). Only in
	 * scan mode (reclaim_pt_is_enabled says so). */
	else if (reclaim_pt_is_enabled(start, end, details->reclaim_pt))
		try_to_free_pte(mm, pmd, start, tlb);
}

/* Linux's zap_pmd_range for a huge PMD: the whole of it goes as one; a
 * part of it is split first (mm/huge_memory.c), then zapped entry by entry
 * like any PTE table. */
static void zap_huge_pmd_range(struct pmd_walk *walk, pmd_t *pmd, unsigned long addr,
			       unsigned long end)
{
	struct zap_details *details = walk->private;
	if (!(addr & ~PMD_MASK) && end - addr == PMD_SIZE) {
		if (zap_huge_pmd(details->tlb, walk->mm, pmd, addr, end))
			return;
		/* Split by another thread since the walk read it: a table. */
	} else {
		split_huge_pmd(walk->mm, pmd, addr);
	}
	pmd_t val = pmdp_get(pmd);
	if (!pmd_none(val) && !pmd_trans_huge(val))
		zap_pte_range(walk, pmd, addr, end);
}

static void zap_range_details(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      unsigned long addr, unsigned long end, bool reclaim_pt, bool keep_cows)
{
	/* Linux's unmap_single_vma: a hugetlb VMA has no PTE tables. */
	if (is_vm_hugetlb_page(vma)) {
		__unmap_hugepage_range(tlb, vma, addr, end);
		return;
	}
	struct zap_details details = { tlb, vma, reclaim_pt, keep_cows };
	struct pmd_walk walk = {
		.mm = vma->vm_mm,
		.pte_table = zap_pte_range,
		.huge_pmd = zap_huge_pmd_range,
		.private = &details,
	};
	walk_pmd_range(&walk, addr, end);
}

void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end)
{
	zap_range_details(tlb, vma, addr, end, false, false);
}

/* Linux's zap_page_range_single with details->reclaim_pt as given. */
static void zap_page_range_single(struct vm_area_struct *vma, unsigned long start,
				  unsigned long size, bool reclaim_pt, bool keep_cows)
{
	/* MADV_DONTNEED runs under the read lock, beside faults: the PTE
	 * locks order the two. free_pgtables needs the write lock, so a
	 * table goes here only by a pte_reclaim mode: in refcount mode one
	 * the zap empties (its last put), after an RCU grace period, a fault
	 * racing it taking a new one (pte_alloc); in scan mode, with
	 * reclaim_pt, one the zap emptied whole, under its PMD and PTE locks
	 * (try_to_free_pte). */
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, vma->vm_mm);
	zap_range_details(&tlb, vma, start, start + size, reclaim_pt, keep_cows);
	tlb_finish_mmu(&tlb);
}

void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long size)
{
	mmap_assert_locked(vma->vm_mm);
	zap_page_range_single(vma, start, size, false, false);
}

void zap_page_range_dontneed(struct vm_area_struct *vma, unsigned long start, unsigned long size)
{
	mmap_assert_locked(vma->vm_mm);
	zap_page_range_single(vma, start, size, true, false);
}

/* Under the i_mmap_rwsem alone, from any mm: vma stays in the tree, so
 * its mm, its upper tables (free_pgtables unlinks it first; the PMD
 * extension of mm/pt_reclaim.c skips a file VMA's) and its VMA fields
 * (vma_set_range changes them under the tree's write lock) hold still;
 * PTE tables are entered as MADV_DONTNEED's zap enters them beside other
 * zaps (a reference in refcount mode, the PTE lock's recheck in scan
 * mode). */
void unmap_mapping_range_vma(struct vm_area_struct *vma, unsigned long start, unsigned long end, bool even_cows)
{
	zap_page_range_single(vma, start, end - start, false, !even_cows);
}

/* --- free_pgtables ------------------------------------------------------------- */

/* Linux's pte_free_tlb/pmd_free_tlb/pud_free_tlb: a table already
 * unlinked from its parent entry goes to tlb, uncounted; it covered
 * [addr, addr + span). */
static void pgtable_free_tlb(struct mmu_gather *tlb, struct mm_struct *mm, void *table,
			     unsigned long addr, unsigned long span, bool pte_level)
{
	pagetable_check_empty(virt_to_page(table), addr);
	mm_account_pgtable(mm, -1, pte_level);
	tlb_remove_table(tlb, virt_to_page(table), addr, span);
}

/* Whether the table covering [start rounded down to size, + size) may go
 * once its entries are gone: all it covers lies in [floor, ceiling) as far
 * as this range can tell (Linux's test, the same at the PMD-table and
 * PUD-table levels). */
static bool upper_table_freeable(unsigned long start, unsigned long end, unsigned long floor,
				 unsigned long ceiling, unsigned long size)
{
	unsigned long mask = ~(size - 1);
	start &= mask;
	if (start < floor)
		return false;
	if (ceiling) {
		ceiling &= mask;
		if (!ceiling)
			return false;
	}
	return end - 1 <= ceiling - 1;
}

static void free_pmd_range(struct mmu_gather *tlb, struct mm_struct *mm, pud_t *pud,
			   unsigned long addr, unsigned long end, unsigned long floor,
			   unsigned long ceiling)
{
	unsigned long start = addr, next;
	pmd_t *pmd = pmd_offset(pud, addr);
	for (; addr < end; addr = next, pmd++) {
		if (pmd_skip_none_run(&pmd, addr, end, &next))
			continue;
		next = pmd_addr_end(addr, end);
		pmd_t val = pmdp_get(pmd);
		if (pmd_none(val)) /* emptied since the look above */
			continue;
		if (pmd_trans_huge(val)) {
			/* The huge-PMD rule: a mapping left behind, not a table. */
			pr_err("BUG: huge PMD at %#lx still mapped when its tables are freed: zapped now\n",
			       addr & PMD_MASK);
			zap_huge_pmd(tlb, mm, pmd, addr & PMD_MASK, (addr & PMD_MASK) + PMD_SIZE);
			continue;
		}
		/* In refcount mode the zap before us freed every PTE table
		 * it emptied (its last put); one still here below an
		 * unmapped range kept a count without entries: a leak of
		 * the count, reported, and the table freed all the same. */
		if (pte_ref_enabled() && pte_ref_debug)
			pr_err("BUG: pte_ref: PTE table at %#lx left for free_pgtables with count %d\n",
			       addr & PMD_MASK, pte_ref_count(pmd));
		pmd_clear(pmd);
		pgtable_free_tlb(tlb, mm, pmd_page_vaddr(val), addr & PMD_MASK, PMD_SIZE, true);
	}
	if (!upper_table_freeable(start, end, floor, ceiling, PUD_SIZE))
		return;
	pmd_t *table = pud_pgtable(pudp_get(pud));
	pud_clear(pud);
	pgtable_free_tlb(tlb, mm, table, start & PUD_MASK, PUD_SIZE, false);
}

static void free_pud_range(struct mmu_gather *tlb, struct mm_struct *mm, pgd_t *pgd,
			   unsigned long addr, unsigned long end, unsigned long floor,
			   unsigned long ceiling)
{
	unsigned long start = addr, next;
	pud_t *pud = pud_offset(pgd, addr);
	for (; addr < end; addr = next, pud++) {
		next = pud_addr_end(addr, end);
		if (!pud_none(pudp_get(pud)))
			free_pmd_range(tlb, mm, pud, addr, next, floor, ceiling);
	}
	if (!upper_table_freeable(start, end, floor, ceiling, PGDIR_SIZE))
		return;
	pud_t *table = pgd_pgtable(pgdp_get(pgd));
	pgd_clear(pgd);
	pgtable_free_tlb(tlb, mm, table, start & PGDIR_MASK, PGDIR_SIZE, false);
}

void free_pgd_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end,
		    unsigned long floor, unsigned long ceiling)
{
	struct mm_struct *mm = tlb->mm;
	/* Only PTE tables wholly inside [floor, ceiling) may go: round the
	 * range inwards to PMD boundaries where a neighbour shares them. */
	addr &= PMD_MASK;
	if (addr < floor) {
		addr += PMD_SIZE;
		if (!addr)
			return;
	}
	if (ceiling) {
		ceiling &= PMD_MASK;
		if (!ceiling)
			return;
	}
	if (end - 1 > ceiling - 1)
		end -= PMD_SIZE;
	if (addr > end - 1)
		return;
	unsigned long next;
	for (; addr < end; addr = next) {
		next = pgd_addr_end(addr, end);
		pgd_t *pgd = pgd_offset(mm, addr);
		if (!pgd_none(pgdp_get(pgd)))
			free_pud_range(tlb, mm, pgd, addr, next, floor, ceiling);
	}
}
