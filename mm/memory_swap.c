/* Swap entries in a process's page tables (Linux 6.1's do_swap_page and
 * copy_nonpresent_pte, mm/memory.c): the fault that brings a page back,
 * and fork's copy of an entry. The zap's side is mm/teardown.c's
 * (free_swap_and_cache).
 *
 * A swap entry is a non-none PTE (arch/x86_64/pgtable.h): it holds its
 * PTE table's reference in refcount mode and keeps the table in scan
 * mode, like a present one, so turning one into the other never changes
 * the table's count. It holds one reference on its slot (swap_map), and
 * counts in its mm's MM_SWAPENTS (VmSwap) instead of MM_ANONPAGES.
 *
 * do_swap_page, under the fault's mmap_lock (read) and table reference:
 *   1. the page from the swap cache (swap_cache_get_page: a page read
 *      ahead counts a hit), else read by swapin_readahead
 *      (mm/swap_readahead.h) with the slots around it: new pages
 *      allocated under the VMA's NUMA policy and home node
 *      (vma_alloc_page), each slot's SWAP_HAS_CACHE taken
 *      (swapcache_prepare: another fault reading it meanwhile makes this
 *      one try again), read (one bio per run of slots, synchronous), put
 *      in the swap cache and on the LRU: a major fault (VM_FAULT_MAJOR:
 *      pgmajfault, the task's maj_flt);
 *   2. under the PTE lock, if the PTE still holds the entry: the PTE's
 *      slot reference goes and the page gains the mapping
 *      (swap_cache_map, mm/swap_state.h); exclusive (no other entry
 *      names the slot, nothing else maps the page), it is mapped as a new
 *      anonymous page would be, and on a write fault (or with swap half
 *      full, or in a locked VMA) it leaves the swap cache, writable; on a
 *      read it stays there, read-only and clean, as Linux's
 *      should_try_to_free_swap keeps it, until a write takes it out
 *      (do_wp_page); shared, it stays in the cache mapped read-only, and
 *      a write copies it (do_wp_page);
 *   3. RSS back from MM_SWAPENTS to MM_ANONPAGES; mlocked again in a
 *      VM_LOCKED VMA.
 * The pages read ahead stay in the swap cache unmapped until a fault
 * finds them there (minor), or reclaim frees them without a write (they
 * are clean: PG_dirty clear), or the entries naming them go. */
#include "mm/memory_internal.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/swap_readahead.h"
#include "mm/swap_state.h"
#include "mm/swapops.h"

/* The page at entry: the swap cache's (a minor fault, unless it was
 * read ahead: the readahead's hit), or read now with the pages around it
 * that the readahead policy chooses (*ret VM_FAULT_MAJOR). NULL with *ret
 * set: VM_FAULT_OOM, VM_FAULT_SIGBUS (the read failed), or 0 (the slot
 * changed hands meanwhile: the access faults again). */
static struct page *swapin_page(struct vm_fault *vmf, swp_entry_t entry, vm_fault_t *ret)
{
	struct page *page = swap_cache_get_page(entry, vmf->vma, vmf->address);
	if (page) {
		*ret = 0; /* a minor fault: no I/O */
		return page;
	}
	return swapin_readahead(entry, vmf, ret);
}

vm_fault_t do_swap_page(struct vm_fault *vmf, pte_t orig)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	swp_entry_t entry = pte_to_swp_entry(orig);
	if (!swp_swap_info(entry)) {
		pr_err("do_swap_page: bad swap entry %#llx at %#lx\n", (unsigned long long)pte_val(orig),
		       vmf->address);
		return VM_FAULT_SIGBUS;
	}
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	vm_fault_t ret;
	struct page *page = swapin_page(vmf, entry, &ret);
	if (!page)
		return ret;
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(mm, vmf->pmd, vmf->address, &ptl);
	if (!pte || !pte_same(ptep_get(pte), orig)) {
		if (pte)
			pte_unmap_unlock(pte, ptl);
		put_page(page);
		return ret;
	}
	bool first;
	/* Linux's should_try_to_free_swap: a page a read brought back stays
	 * in the cache (clean: reclaim frees it again without a write)
	 * unless swap is half full or the VMA is locked. */
	bool keep = !(vmf->flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_LOCKED) && !vm_swap_full();
	int exclusive = swap_cache_map(page, entry, vma, vmf->address, keep, &first);
	if (exclusive < 0) {
		pte_unmap_unlock(pte, ptl);
		put_page(page);
		return ret;
	}
	if (first)
		anon_pages_add(1);
	add_mm_counter(mm, MM_SWAPENTS, -1);
	add_mm_rss_counter(mm, MM_ANONPAGES, 1);
	pte_t entry_pte = mk_fault_pte(vmf, page);
	if (!exclusive || !(vmf->flags & FAULT_FLAG_WRITE))
		entry_pte = pte_wrprotect(entry_pte);
	/* Our reference is the mapping's now. Non-none to non-none: the
	 * table's count stays. */
	set_pte_at(mm, vmf->address, pte, entry_pte);
	mlock_vma_folio(page, vma);
	pte_unmap_unlock(pte, ptl);
	return ret;
}

int copy_swap_pte(struct mm_struct *dst_mm, pte_t pte)
{
	int err = swap_duplicate(pte_to_swp_entry(pte));
	if (err)
		return err;
	add_mm_counter(dst_mm, MM_SWAPENTS, 1);
	swap_mmlist_add(dst_mm);
	return 0;
}
