/* Swap-out of an anonymous page (Linux 6.1's shrink_folio_list for a
 * swap-backed anonymous folio: add_to_swap, try_to_unmap, pageout,
 * __remove_mapping), called by mm/vmscan.c for a page it decided to
 * reclaim, isolated (its reference, PG_lru clear).
 *
 *   1. add_to_swap: a free slot (get_swap_page), the page into the swap
 *      cache at it. No slot: the page is activated, as Linux's.
 *   2. try_to_unmap through the reverse map, in every process that maps
 *      it: each PTE becomes the swap entry in one atomic exchange
 *      (ptep_get_and_set: never none in between, so the PTE table's count
 *      of non-none entries stays), the slot gains a reference
 *      (swap_duplicate), the mapping's RSS moves to MM_SWAPENTS, and that
 *      mm's TLB is flushed before the walk goes on, so no CPU can write
 *      the page once it is unmapped (Linux batches the flushes of a whole
 *      list, try_to_unmap_flush, before pageout; mmlab flushes per mm).
 *      A VM_LOCKED VMA stops it, and so does an mm whose mmap_lock is
 *      busy (tried, never waited for: mm/migrate_entry.c's hold_mm says
 *      why; MADV_PAGEOUT's own mm is held already, and not tried again); a page left mapped is activated, as Linux's, and stays in
 *      the swap cache with its slot (the entries already made name it).
 *   3. pageout: the write, with the other pages of the caller's batch
 *      (swap_writepages, synchronous: mm/swap_state.h), unless the page
 *      is clean (PG_dirty clear: its slot holds its data already, a page
 *      read back and unchanged, or read ahead) or no swap entry names the
 *      slot any more (every mapping went meanwhile), with a reference on
 *      the slot held across it (the page stays in the swap cache while it
 *      is written).
 *   4. __remove_mapping: out of the swap cache only if nothing but the
 *      isolation and the cache holds the page (a fault that found it in
 *      the cache meanwhile keeps it), a shadow left in its slot
 *      (mm/workingset.h); the caller's put then frees it.
 *
 * Not here: a THP (mm/vmscan.c splits it first, as Linux's
 * shrink_folio_list; one that reaches this is activated), a tmpfs page
 * (mm/shmem_swap.c), an mlocked page, and anything when the reclaim may
 * not do I/O (no __GFP_IO). */
#include "mm/vmscan_swap.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/swap_state.h"
#include "mm/swapops.h"

static inline void page_set_flag_atomic_dirty(struct page *page)
{
	__atomic_or_fetch(&page->flags, 1ul << PG_dirty, __ATOMIC_RELAXED);
}

struct unmap_arg {
	swp_entry_t entry;
	struct mm_struct *caller; /* its mmap_lock held already (madvise's) */
	bool failed;
};

/* Linux's try_to_unmap_one for a page going to swap. */
static bool try_to_unmap_one(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg)
{
	struct unmap_arg *ua = arg;
	struct mm_struct *mm = vma->vm_mm;
	if (vma->vm_flags & VM_LOCKED) {
		ua->failed = true;
		return false;
	}
	/* The caller's mm is held already: a nested trylock of it would
	 * fail whenever a writer waits (kernel/rwsem.c). */
	bool locked = mm != ua->caller;
	if (locked && !mmap_read_trylock(mm)) {
		ua->failed = true;
		return false;
	}
	pmd_t *pmd = mm_find_pmd(mm, address);
	if (pmd && !pmd_trans_huge(pmdp_get(pmd))) {
		spinlock_t *ptl;
		pte_t *pte = pte_tryget_map_lock(mm, pmd, address, &ptl);
		if (pte) {
			pte_t val = ptep_get(pte);
			if (pte_present(val) && pte_pfn(val) == page_to_pfn(page)) {
				if (swap_duplicate(ua->entry)) {
					ua->failed = true;
				} else {
					pte_t old = ptep_get_and_set(pte, swp_entry_to_pte(ua->entry));
					/* Linux's: a dirty PTE dirties the page. */
					if (pte_dirty(old))
						page_set_flag_atomic_dirty(page);
					flush_tlb_mm_range(mm, address, address + PAGE_SIZE);
					spin_lock(&swap_cache_lock);
					anon_page_unmapped(mm, page, 1);
					spin_unlock(&swap_cache_lock);
					add_mm_counter(mm, MM_SWAPENTS, 1);
					swap_mmlist_add(mm);
					put_page(page); /* the mapping's reference */
				}
			}
			pte_unmap_unlock(pte, ptl);
			pte_put(mm, pmd, address);
		}
	}
	if (locked)
		mmap_read_unlock(mm);
	return !ua->failed;
}

/* Every mapping of page replaced by entry; true when none is left. */
static bool try_to_unmap(struct page *page, swp_entry_t entry, struct mm_struct *caller)
{
	struct unmap_arg ua = { .entry = entry, .caller = caller };
	struct rmap_walk_control rwc = { .arg = &ua, .rmap_one = try_to_unmap_one, .try_lock = true };
	if (page_mapcount(page))
		rmap_walk(page, &rwc);
	return !page_mapcount(page);
}

/* Steps 1 and 2, and whether step 3 writes: false to activate the page,
 * else true, *write set when the page needs its write, a reference of
 * the write's own then held on the slot. */
static bool swap_out_unmap(struct page *page, struct mm_struct *caller, bool *write)
{
	*write = false;
	if (PageAnonThp(page))
		return false;
	if (!PageSwapCache(page)) {
		swp_entry_t entry = get_swap_page();
		if (!entry.val)
			return false; /* no swap space */
		add_to_swap_cache(page, entry, NULL);
		/* Linux's add_to_swap: the slot has no copy yet. */
		page_set_flag_atomic_dirty(page);
	}
	swp_entry_t entry = page_swap_entry(page);
	if (!try_to_unmap(page, entry, caller))
		return false; /* Linux's activate_locked: still mapped */
	/* Written only when the slot lacks the data (PG_dirty: a page read
	 * back, ahead or not, and unchanged since is clean, Linux's
	 * folio_test_dirty before pageout), and only when some entry names
	 * the slot (nobody does: the data is nobody's, Linux's
	 * folio_free_swap of an unmapped swap-cache page). The write holds a
	 * reference of its own on the slot: a swap-in fault meanwhile then
	 * finds the page shared and leaves it in the swap cache (Linux holds
	 * the folio lock), since the write reads the slot from the page,
	 * which out of the cache would name slot 0, the area's header. A slot
	 * freed meanwhile (-ENOENT) took the page out of the cache: nothing to
	 * write. */
	if (page_test_flag(page, PG_dirty) && (swap_count_of(entry) & ~SWAP_HAS_CACHE)) {
		if (swap_duplicate(entry))
			return false;
		*write = true;
	}
	return true;
}

/* Step 4, after the write if there was one (err its result). The
 * write's reference on the slot kept the page in the swap cache, so the
 * page still names the slot whose reference goes here. */
static enum swap_out_result swap_out_finish(struct page *page, bool written, int err)
{
	if (written) {
		swap_free(page_swap_entry(page));
		if (err)
			return SWAP_OUT_ACTIVATE;
	}
	return remove_mapping_swapcache(page) ? SWAP_OUT_FREED : SWAP_OUT_KEEP;
}

enum swap_out_result swap_out_folio_queue(struct page *page, struct mm_struct *caller, struct swap_out_batch *b)
{
	bool write;
	if (!swap_out_unmap(page, caller, &write))
		return SWAP_OUT_ACTIVATE;
	if (!write)
		return swap_out_finish(page, false, 0);
	b->pages[b->nr++] = page;
	return SWAP_OUT_QUEUED;
}

void swap_out_batch_flush(struct swap_out_batch *b)
{
	int err[SWAP_WRITE_BATCH_MAX];
	swap_writepages(b->pages, b->nr, err);
	for (unsigned int i = 0; i < b->nr; i++)
		b->results[i] = swap_out_finish(b->pages[i], true, err[i]);
}
