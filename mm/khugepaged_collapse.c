/* The collapse of one PTE table into a THP, for khugepaged and
 * MADV_COLLAPSE (Linux 6.1's mm/khugepaged.c: hpage_collapse_scan_pmd,
 * collapse_huge_page, __collapse_huge_page_isolate,
 * __collapse_huge_page_copy, alloc_charge_hpage, madvise_collapse).
 * mm/khugepaged.h has the rules.
 *
 * Where mmlab differs: it has no LRU and no page lock, so Linux's
 * isolation (isolate_lru_page, trylock_page) comes down to its refcount
 * check, done under the mmap write lock with the PMD cleared and the TLB
 * flushed, while the anon_vma lock keeps rmap walkers (migration) out
 * until the new PMD is in. A PTE-mapped THP's pages (a THP shared since
 * a fork and split on this side, mm/rmap.h) are copied like any other;
 * every mapping's reference is its head's. Linux deposits the emptied PTE
 * table for the new huge PMD; mmlab frees it after an RCU grace period
 * (the lockless get_user_pages may still be reading it: mm/gup.c) and
 * deposits a new one, allocated with the THP. */
#include "mm/khugepaged_internal.h"
#include "mm/swap_state.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/memory_internal.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "fs/fs.h"
#include "mm/slab.h"
#include "mm/vmstat.h"

enum scan_result find_pmd_or_thp_or_none(struct mm_struct *mm, unsigned long address, pmd_t **pmd)
{
	*pmd = mm_find_pmd(mm, address);
	if (!*pmd)
		return SCAN_PMD_NULL;
	pmd_t pmde = pmdp_get(*pmd);
	if (!pmd_present(pmde))
		return SCAN_PMD_NULL;
	if (pmd_trans_huge(pmde))
		return SCAN_PMD_MAPPED;
	return SCAN_SUCCEED;
}

/* Linux's hugepage_vma_revalidate, after the mmap lock was dropped. */
static enum scan_result hugepage_vma_revalidate(struct mm_struct *mm, unsigned long address, bool expect_anon,
						struct vm_area_struct **vmap, struct collapse_control *cc)
{
	if (hpage_collapse_test_exit(mm))
		return SCAN_ANY_PROCESS;
	struct vm_area_struct *vma = *vmap = find_vma(mm, address);
	if (!vma)
		return SCAN_VMA_NULL;
	if (address < vma->vm_start || address + PMD_SIZE > vma->vm_end)
		return SCAN_ADDRESS_RANGE;
	if (!hugepage_vma_check(vma, vma->vm_flags, false, cc->is_khugepaged))
		return SCAN_VMA_CHECK;
	/* Linux 6.1's expect_anon: the collapse of anonymous memory found a
	 * file VMA there (or one without its anon_vma). */
	if (expect_anon && (!vma->anon_vma || khugepaged_shmem_inode(vma)))
		return SCAN_PAGE_ANON;
	return SCAN_SUCCEED;
}

/* Linux's is_refcount_suitable: no reference beyond the mappings' (a
 * get_user_pages pin, a migration under way). head is a 4 KiB page or a
 * THP's head. */
static bool is_refcount_suitable(struct page *head)
{
	int expected = PageAnonThp(head) ? thp_total_mapcount(head) : page_mapcount(head);
	/* The swap cache holds one (a page read in and left there, mapped
	 * read-only: mm/swap_state.h). */
	if (PageSwapCache(head))
		expected++;
	return __atomic_load_n(&head->_refcount, __ATOMIC_ACQUIRE) == expected;
}

/* What both the scan and the isolation check of each entry (Linux's two
 * loops, hpage_collapse_scan_pmd and __collapse_huge_page_isolate, which
 * differ only in where they stop). Under the PTE lock, or with the table
 * unhooked. */
struct pte_census {
	int none_or_zero, shared, referenced;
	int unmapped; /* swap entries (the scan's) */
	bool writable;
	bool isolate; /* the isolation's pass: every entry must be present */
};

static enum scan_result census_pte(struct vm_area_struct *vma, pte_t pteval, struct collapse_control *cc,
				   struct pte_census *c, struct page **last_head)
{
	if (pte_none(pteval) || (pte_present(pteval) && is_zero_pfn(pte_pfn(pteval)))) {
		if (++c->none_or_zero > (int)READ_ONCE(khugepaged_max_ptes_none) && cc->is_khugepaged) {
			count_vm_event(THP_SCAN_EXCEED_NONE_PTE);
			return SCAN_EXCEED_NONE_PTE;
		}
		return SCAN_SUCCEED;
	}
	/* A swap entry: the scan counts it (up to max_ptes_swap for
	 * khugepaged, any number for MADV_COLLAPSE), and the collapse reads
	 * it in first (__collapse_huge_page_swapin). A migration entry (the
	 * page is on its way: try later; Linux counts it as a swap entry and
	 * waits for it in do_swap_page), or any entry once the isolation
	 * looks, stops the collapse. */
	if (is_swap_pte(pteval) && !c->isolate) {
		if (++c->unmapped > (int)READ_ONCE(khugepaged_max_ptes_swap) && cc->is_khugepaged) {
			count_vm_event(THP_SCAN_EXCEED_SWAP_PTE);
			return SCAN_EXCEED_SWAP_PTE;
		}
		return SCAN_SUCCEED;
	}
	if (!pte_present(pteval))
		return SCAN_PTE_NON_PRESENT;
	if (pte_write(pteval))
		c->writable = true;
	unsigned long pfn = pte_pfn(pteval);
	if (!pfn_valid(pfn))
		return SCAN_PAGE_NULL;
	struct page *page = pfn_to_page(pfn);
	if (!vma_page_anon(vma, page))
		return SCAN_PAGE_ANON;
	if (page_mapcount(page) > 1 && ++c->shared > (int)READ_ONCE(khugepaged_max_ptes_shared) &&
	    cc->is_khugepaged) {
		count_vm_event(THP_SCAN_EXCEED_SHARED_PTE);
		return SCAN_EXCEED_SHARED_PTE;
	}
	struct page *head = compound_head(page);
	int node = page_to_nid(head);
	cc->node_load[node]++;
	__node_set(node, &cc->alloc_nmask);
	/* A THP's pages come one after another: its count once for them. */
	if (head != *last_head && !is_refcount_suitable(head))
		return SCAN_PAGE_COUNT;
	*last_head = head;
	/* The young check (pte_young: the accessed bit, which x86 sets on
	 * every access; mmlab has no page_idle or PG_referenced). */
	if (cc->is_khugepaged && (pte_val(pteval) & _PAGE_ACCESSED))
		c->referenced++;
	return SCAN_SUCCEED;
}

/* Linux's closing verdict of both loops: with swap entries to read in,
 * khugepaged wants half the pages young (the swap-in is not worth it for
 * a cold range). */
static enum scan_result census_verdict(const struct pte_census *c, struct collapse_control *cc)
{
	if (!c->writable)
		return SCAN_PAGE_RO;
	if (cc->is_khugepaged && (!c->referenced || (c->unmapped && c->referenced < (int)HPAGE_PMD_NR / 2)))
		return SCAN_LACK_REFERENCED_PAGE;
	return SCAN_SUCCEED;
}

/* The census of a table: the scan's (isolate false: *unmapped gets its
 * swap entries) or the isolation's. */
static enum scan_result census_table(struct vm_area_struct *vma, pte_t *pte, struct collapse_control *cc,
				     bool isolate, int *unmapped)
{
	struct pte_census c = { .isolate = isolate };
	struct page *last_head = NULL;
	memset(cc->node_load, 0, sizeof(cc->node_load));
	cc->alloc_nmask = NODE_MASK_NONE;
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		enum scan_result r = census_pte(vma, ptep_get(pte + i), cc, &c, &last_head);
		if (r != SCAN_SUCCEED)
			return r;
	}
	if (unmapped)
		*unmapped = c.unmapped;
	return census_verdict(&c, cc);
}

/* Linux's __collapse_huge_page_swapin: every swap entry of the range read
 * in as a read fault would (do_swap_page), under the mmap read lock and,
 * in refcount mode, a reference on the table. SCAN_FAIL when one could
 * not be (no memory, a read error): the collapse would fail on it. */
static enum scan_result collapse_huge_page_swapin(struct mm_struct *mm, struct vm_area_struct *vma,
						  unsigned long haddr, pmd_t *pmd)
{
	for (unsigned long address = haddr; address < haddr + PMD_SIZE; address += PAGE_SIZE) {
		spinlock_t *ptl;
		pte_t *pte = pte_tryget_map_lock(mm, pmd, address, &ptl);
		if (!pte)
			return SCAN_PMD_NULL;
		pte_t orig = ptep_get(pte);
		pte_unmap_unlock(pte, ptl);
		vm_fault_t ret = 0;
		if (is_swap_pte(orig)) {
			struct vm_fault vmf = { .vma = vma, .address = address, .flags = 0, .pmd = pmd };
			ret = do_swap_page(&vmf, orig);
		}
		pte_put(mm, pmd, address);
		if (ret & VM_FAULT_ERROR)
			return SCAN_FAIL;
	}
	return SCAN_SUCCEED;
}

/* Linux's alloc_charge_hpage with hpage_collapse_find_target_node: the
 * first node holding the most of the pages scanned, falling back to the
 * others that hold some (alloc_nmask). Linux's khugepaged defrag knob
 * picks GFP_TRANSHUGE or _LIGHT; MADV_COLLAPSE always may reclaim. With
 * it, mmlab allocates the PTE table the huge PMD deposits. */
static enum scan_result alloc_charge_hpage(struct page **hpage, struct page **table, struct mm_struct *mm,
					   struct collapse_control *cc)
{
	gfp_t gfp = (!cc->is_khugepaged || READ_ONCE(khugepaged_defrag)) ? GFP_TRANSHUGE : GFP_TRANSHUGE_LIGHT;
	int target = 0;
	unsigned int max = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (cc->node_load[nid] > max) {
			max = cc->node_load[nid];
			target = nid;
		}
	*hpage = __alloc_pages(gfp, HPAGE_PMD_ORDER, target,
			       __nodes_weight(&cc->alloc_nmask) ? &cc->alloc_nmask : NULL);
	if (!*hpage) {
		count_vm_event(THP_COLLAPSE_ALLOC_FAILED);
		return SCAN_ALLOC_HUGE_PAGE_FAIL;
	}
	count_vm_event(THP_COLLAPSE_ALLOC);
	*table = pte_alloc_one(mm);
	if (!*table) {
		__free_pages(*hpage, HPAGE_PMD_ORDER);
		*hpage = NULL;
		return SCAN_ALLOC_HUGE_PAGE_FAIL;
	}
	return SCAN_SUCCEED;
}

/* Linux's __collapse_huge_page_copy, with the table unhooked: each page
 * copied into the THP (a none or zero-page entry as zeroes), its entry
 * cleared, its mapping and RSS gone (the THP's come back whole when it is
 * mapped) and its reference put: the TLB was flushed when the PMD went. */
static void collapse_huge_page_copy(struct mm_struct *mm, pte_t *pte, struct page *hpage)
{
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		pte_t pteval = ptep_get(pte + i);
		void *dst = page_address(hpage + i);
		if (pte_none(pteval) || is_zero_pfn(pte_pfn(pteval))) {
			memset(dst, 0, PAGE_SIZE);
			pte_clear(mm, 0, pte + i);
			continue;
		}
		struct page *src = pfn_to_page(pte_pfn(pteval));
		memcpy(dst, page_address(src), PAGE_SIZE);
		pte_clear(mm, 0, pte + i);
		if (PageSwapCache(src)) {
			/* Against a swap-in's first mapping (mm/swap_state.h);
			 * then out of the cache, its slot freed, if nothing else
			 * needs it (Linux's free_page_and_swap_cache). */
			spin_lock(&swap_cache_lock);
			anon_page_unmapped(mm, src, 1);
			spin_unlock(&swap_cache_lock);
			try_to_free_swap(src);
		} else {
			anon_page_unmapped(mm, src, 1);
		}
		put_page(src);
	}
}

/* Linux's collapse_huge_page: entered with the mmap read lock, which it
 * drops, and returns without it. unmapped: the swap entries the scan
 * found, read in first. */
static enum scan_result collapse_huge_page(struct mm_struct *mm, unsigned long address, int unmapped,
					   struct collapse_control *cc)
{
	struct page *hpage = NULL, *table = NULL;
	struct vm_area_struct *vma;
	pmd_t *pmd;
	/* No lock across the allocation, which may reclaim. */
	mmap_read_unlock(mm);
	enum scan_result result = alloc_charge_hpage(&hpage, &table, mm, cc);
	if (result != SCAN_SUCCEED)
		goto out_nolock;
	if (unmapped) {
		/* Linux: the swap-in under the read lock, the VMA and the
		 * table looked up again. */
		mmap_read_lock(mm);
		result = hugepage_vma_revalidate(mm, address, true, &vma, cc);
		if (result == SCAN_SUCCEED)
			result = find_pmd_or_thp_or_none(mm, address, &pmd);
		if (result == SCAN_SUCCEED)
			result = collapse_huge_page_swapin(mm, vma, address, pmd);
		mmap_read_unlock(mm);
		if (result != SCAN_SUCCEED)
			goto out_nolock;
	}
	/* Everything that walks this PTE table under the read lock is kept
	 * out from here on; the lockless get_user_pages backs off when it
	 * sees the PMD change. */
	mmap_write_lock(mm);
	result = hugepage_vma_revalidate(mm, address, true, &vma, cc);
	if (result != SCAN_SUCCEED)
		goto out_up_write;
	result = find_pmd_or_thp_or_none(mm, address, &pmd);
	if (result != SCAN_SUCCEED)
		goto out_up_write;
	struct anon_vma *root = vma->anon_vma->root;
	down_write(&root->rwsem); /* Linux's anon_vma_lock_write: no rmap walk meanwhile */
	spinlock_t *pmd_ptl = pmd_lockptr(mm, pmd);
	spin_lock(pmd_ptl);
	/* Linux's pmdp_collapse_flush: x86 must not hold 2 MiB and 4 KiB
	 * translations of one address, and the isolation below must see
	 * every reference a lockless walker took. */
	pmd_t _pmd = pmdp_get_and_clear(mm, address, pmd);
	spin_unlock(pmd_ptl);
	flush_tlb_mm_range(mm, address, address + PMD_SIZE);
	struct page *old_table = pfn_to_page(pmd_pfn(_pmd));
	pte_t *pte = pmd_page_vaddr(_pmd);
	/* Linux's __collapse_huge_page_isolate: the same checks again, now
	 * that no one can map or pin more of these pages. */
	spinlock_t *pte_ptl = ptlock_ptr(old_table);
	spin_lock(pte_ptl);
	result = census_table(vma, pte, cc, true, NULL);
	spin_unlock(pte_ptl);
	if (result != SCAN_SUCCEED) {
		spin_lock(pmd_ptl);
		set_pmd(pmd, _pmd); /* Linux's pmd_populate of the table it took */
		spin_unlock(pmd_ptl);
		up_write(&root->rwsem);
		goto out_up_write;
	}
	collapse_huge_page_copy(mm, pte, hpage);
	/* The emptied table: out of VmPTE, freed after a grace period. */
	mm_account_pgtable(mm, -1, true);
	pagetable_free_deferred(old_table);
	/* Linux's set_pmd_at of mk_huge_pmd + maybe_pmd_mkwrite(pmd_mkdirty()):
	 * the VMA's protection, dirty (and accessed, as mmlab's THP fault). */
	pmd_t entry = __pmd(page_to_phys(hpage) | vma->vm_page_prot | _PAGE_PSE | _PAGE_DIRTY | _PAGE_ACCESSED);
	spin_lock(pmd_ptl);
	pgtable_trans_huge_deposit(mm, pmd, table);
	anon_page_mapped(vma, hpage, address, HPAGE_PMD_NR);
	set_pmd_at(mm, address, pmd, entry);
	spin_unlock(pmd_ptl);
	up_write(&root->rwsem);
	hpage = table = NULL;
	result = SCAN_SUCCEED;
out_up_write:
	mmap_write_unlock(mm);
out_nolock:
	if (hpage)
		__free_pages(hpage, HPAGE_PMD_ORDER);
	if (table)
		pte_free(mm, table);
	return result;
}

enum scan_result hpage_collapse_scan_pmd(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long address,
					 bool *mmap_locked, struct collapse_control *cc)
{
	pmd_t *pmd;
	enum scan_result result = find_pmd_or_thp_or_none(mm, address, &pmd);
	if (result != SCAN_SUCCEED)
		return result;
	/* A walker under the read lock (mm/pte_ref.h): in refcount mode a
	 * reference keeps the table while it is read. */
	spinlock_t *ptl;
	pte_t *pte = pte_tryget_map_lock(mm, pmd, address, &ptl);
	if (!pte)
		return SCAN_PMD_NULL; /* none, huge or going since it was read */
	int unmapped = 0;
	result = census_table(vma, pte, cc, false, &unmapped);
	pte_unmap_unlock(pte, ptl);
	pte_put(mm, pmd, address);
	if (result == SCAN_SUCCEED) {
		result = collapse_huge_page(mm, address, unmapped, cc);
		*mmap_locked = false;
	}
	return result;
}

/* --- MADV_COLLAPSE --------------------------------------------------------------- */

/* Linux's madvise_collapse_errno: actionable for the caller. */
static int madvise_collapse_errno(enum scan_result r)
{
	switch (r) {
	case SCAN_ALLOC_HUGE_PAGE_FAIL:
		return -ENOMEM;
	case SCAN_CGROUP_CHARGE_FAIL:
		return -EBUSY;
	case SCAN_PAGE_LOCK:
	case SCAN_PAGE_LRU:
	case SCAN_DEL_PAGE_LRU:
		return -EAGAIN; /* transient: trying again may succeed */
	default:
		return -EINVAL;
	}
}

int madvise_collapse(struct vm_area_struct *vma, struct vm_area_struct **prev, unsigned long start,
		     unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	*prev = vma;
	if (!hugepage_vma_check(vma, vma->vm_flags, false, false))
		return -EINVAL;
	struct collapse_control *cc = kmalloc(sizeof(*cc), GFP_KERNEL);
	if (!cc)
		return -ENOMEM;
	cc->is_khugepaged = false;
	mmgrab(mm);
	unsigned long hstart = (start + PMD_SIZE - 1) & PMD_MASK, hend = end & PMD_MASK;
	unsigned long thps = 0;
	enum scan_result last_fail = SCAN_FAIL;
	bool mmap_locked = true;
	for (unsigned long addr = hstart; addr < hend; addr += PMD_SIZE) {
		enum scan_result result;
		if (!mmap_locked) {
			cond_resched();
			mmap_read_lock(mm);
			mmap_locked = true;
			result = hugepage_vma_revalidate(mm, addr, false, &vma, cc);
			if (result != SCAN_SUCCEED) {
				last_fail = result;
				goto out_nolock;
			}
			hend = min(hend, vma->vm_end & PMD_MASK);
		}
		struct file *file = khugepaged_vma_file(vma);
		if (file) {
			/* shmem: the page cache's range, without the mmap lock. */
			unsigned long pgoff = linear_page_index(vma, addr);
			mmap_read_unlock(mm);
			mmap_locked = false;
			result = hpage_collapse_scan_file(mm, addr, file, pgoff, cc);
			fput(file);
		} else {
			result = hpage_collapse_scan_pmd(mm, vma, addr, &mmap_locked, cc);
		}
		if (!mmap_locked)
			*prev = NULL; /* the caller's walk looks its VMA up again */
handle_result:
		switch (result) {
		case SCAN_SUCCEED:
		case SCAN_PMD_MAPPED:
			++thps;
			break;
		case SCAN_PTE_MAPPED_HUGEPAGE:
			/* The range is a huge page of the cache already: this
			 * mapping's table goes and a PMD maps it. */
			mmap_write_lock(mm);
			result = collapse_pte_mapped_thp(mm, addr, true);
			mmap_write_unlock(mm);
			goto handle_result;
		/* Linux's whitelist: the next 2 MiB may still work. */
		case SCAN_PMD_NULL:
		case SCAN_PTE_NON_PRESENT:
		case SCAN_PTE_UFFD_WP:
		case SCAN_PAGE_RO:
		case SCAN_LACK_REFERENCED_PAGE:
		case SCAN_PAGE_NULL:
		case SCAN_PAGE_COUNT:
		case SCAN_PAGE_LOCK:
		case SCAN_PAGE_COMPOUND:
		case SCAN_PAGE_LRU:
		case SCAN_DEL_PAGE_LRU:
			last_fail = result;
			break;
		default:
			last_fail = result;
			goto out_maybelock;
		}
	}
out_maybelock:
	if (!mmap_locked)
		mmap_read_lock(mm); /* the caller expects it held */
out_nolock:
	mmdrop(mm);
	kfree(cc);
	/* As Linux, in unsigned arithmetic: a range that ends before its
	 * first aligned 2 MiB starts (hend < hstart) wants "many" THPs and
	 * fails with EINVAL; one that ends just there wants none. */
	return thps == (hend - hstart) >> PMD_SHIFT ? 0 : madvise_collapse_errno(last_fail);
}
