/* Splitting an anonymous THP into 512 pages of their own (Linux 6.1's
 * split_huge_page_to_list, mm/huge_memory.c: unmap_folio,
 * folio_ref_freeze, __split_huge_page, remap_page), wherever it is
 * mapped: by PMDs, by PTEs after a fork and a partial split, in several
 * processes. Reclaim splits a THP it is about to swap out (no THP swap
 * here: mm/vmscan.c), MADV_COLD and MADV_PAGEOUT one their range does
 * not cover whole (mm/madvise_cold.c).
 *
 * The invariant the split keeps: nobody holds a reference to the THP or
 * a mapping of it while it changes shape. So, as Linux's:
 *   1. unmap: under the anon_vma's lock (written: no other reverse-map
 *      walk sees a half-split THP), every VMA of the anon_vma that may
 *      map some of its 512 offsets is visited; a huge PMD mapping it is
 *      split into PTEs first (split_huge_pmd: the THP stays whole, the
 *      caller's reference makes it shared), then each PTE that maps one
 *      of its pages becomes a migration entry (mm/migrate_entry.c: a
 *      fault there waits), losing its map count and reference. Each mm
 *      is held for reading (a trylock, hold_mm: the order here is
 *      anon_vma lock, then mmap_lock), so nobody forks, unmaps or
 *      mprotects it meanwhile;
 *   2. freeze: the reference count must then be the caller's one alone
 *      (Linux's can_split_folio and folio_ref_freeze): swapped to 0 in one
 *      atomic exchange, so that no LRU scan or lookup takes one during
 *      the split. A reference more (a get_user_pages pin) or an mm out of
 *      reach: given up (thp_split_page_failed), every entry maps the THP
 *      again as it was;
 *   3. split (__split_huge_page): the THP's marks go (thp_prep_free),
 *      split_page makes 512 order-0 pages, each in the anon_vma at its own
 *      index, with the head's LRU flags; the tails go to the caller's
 *      list, each with the reference of an isolated page (Linux's
 *      lru_add_page_tail with a list), the head keeps the caller's;
 *   4. remap: each migration entry maps its page again, now a page of
 *      its own: its map count, its reference, AnonPages.
 * Data never moves: the pages stay where they are. A PTE table's count
 * never changes either (a present entry to a migration entry and back,
 * never none between), in every pte_reclaim mode. */
#include "mm/huge_memory.h"
#include "kernel/rwsem.h"
#include "mm/memory.h"
#include "mm/memory_internal.h"
#include "mm/migrate_internal.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/vmstat.h"

struct thp_split {
	struct shared_migration sm; /* the mms held, busy */
	struct page *head;
	unsigned long pfn;          /* the head's */
	unsigned long index;        /* the head's offset in the anon_vma */
	struct anon_vma *anon_vma;
};

static bool pfn_in_thp(const struct thp_split *ts, unsigned long pfn)
{
	return pfn - ts->pfn < HPAGE_PMD_NR;
}

/* The part [*start, *end) of vma that holds offsets of the THP; false
 * when none does. */
static bool vma_thp_range(const struct thp_split *ts, const struct vm_area_struct *vma, unsigned long *start,
			  unsigned long *end)
{
	unsigned long first = ts->index, last = ts->index + HPAGE_PMD_NR; /* [first, last) */
	unsigned long vfirst = vma->vm_pgoff, vlast = vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT);
	if (first < vfirst)
		first = vfirst;
	if (last > vlast)
		last = vlast;
	if (first >= last)
		return false;
	*start = vma->vm_start + ((first - vma->vm_pgoff) << PAGE_SHIFT);
	*end = vma->vm_start + ((last - vma->vm_pgoff) << PAGE_SHIFT);
	return true;
}

/* Step 1 in one VMA (Linux's try_to_migrate_one with TTU_SPLIT_HUGE_PMD). */
static void unmap_thp_vma(struct thp_split *ts, struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	bool unmapped = false;
	for (unsigned long addr = start; addr < end; addr += PAGE_SIZE) {
		pmd_t *pmd = mm_find_pmd(mm, addr);
		if (!pmd)
			continue;
		pmd_t pmdval = pmdp_get(pmd);
		if (pmd_trans_huge(pmdval)) {
			if (!pfn_in_thp(ts, pmd_pfn(pmdval)))
				continue;
			split_huge_pmd(mm, pmd, addr); /* whole still: our reference */
		}
		spinlock_t *ptl;
		pte_t *pte = lock_pte_at(vma, addr, &pmd, &ptl);
		if (!pte)
			continue;
		pte_t entry = ptep_get(pte);
		if (pte_present(entry) && pfn_in_thp(ts, pte_pfn(entry))) {
			struct page *page = pfn_to_page(pte_pfn(entry));
			ptep_establish_migration_entry(pte);
			anon_rmap_moved(page, false);
			/* The mapping's reference is the head's: it goes now,
			 * before the flush, which is safe because the data
			 * never moves and the page cannot be freed (the caller
			 * holds the THP). */
			put_page(page);
			unmapped = true;
		}
		unlock_pte_at(vma, addr, pmd, pte, ptl);
	}
	if (unmapped)
		flush_tlb_mm_range(mm, start, end);
}

/* Step 4 in one VMA (Linux's remove_migration_pte): each migration entry
 * of the THP's pages maps its page again, split or not. */
static void remap_thp_vma(struct thp_split *ts, struct vm_area_struct *vma, unsigned long start, unsigned long end,
			  bool split)
{
	for (unsigned long addr = start; addr < end; addr += PAGE_SIZE) {
		pmd_t *pmd;
		spinlock_t *ptl;
		pte_t *pte = lock_pte_at(vma, addr, &pmd, &ptl);
		if (!pte)
			continue;
		pte_t entry = ptep_get(pte);
		if (is_migration_entry(entry) && pfn_in_thp(ts, pte_pfn(entry))) {
			struct page *page = pfn_to_page(pte_pfn(entry));
			if (split) {
				anon_rmap_moved(page, true);
			} else {
				/* Still a THP's page: the head counts the pages
				 * mapped by PTEs and holds every mapping's
				 * reference (mm/rmap.h). */
				if (__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == 0) {
					__atomic_add_fetch(nr_pages_mapped_ptr(ts->head), 1, __ATOMIC_RELAXED);
					anon_pages_add(1);
				}
				get_page(ts->head);
			}
			set_pte(pte, migration_entry_to_pte(entry, pte_pfn(entry)));
		}
		unlock_pte_at(vma, addr, pmd, pte, ptl);
	}
}

typedef void (*thp_vma_fn)(struct thp_split *ts, struct vm_area_struct *vma, unsigned long start,
			   unsigned long end, bool split);

static void unmap_step(struct thp_split *ts, struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool split)
{
	(void)split;
	if (!hold_mm(&ts->sm, vma->vm_mm)) {
		ts->sm.busy = true;
		return;
	}
	unmap_thp_vma(ts, vma, start, end);
}

static void remap_step(struct thp_split *ts, struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool split)
{
	if (mm_held(&ts->sm, vma->vm_mm)) /* else: no entry of ours there */
		remap_thp_vma(ts, vma, start, end, split);
}

/* Every VMA of the anon_vma that may map some of the THP (Linux's
 * rmap_walk_anon over the folio's range of offsets); the anon_vma's lock
 * is held by the caller. */
static void for_each_thp_vma(struct thp_split *ts, thp_vma_fn fn, bool split)
{
	struct anon_vma_chain *avc;
	list_for_each_entry(avc, &ts->anon_vma->head, same_anon_vma) {
		unsigned long start, end;
		if (ts->sm.busy)
			return;
		if (vma_thp_range(ts, avc->vma, &start, &end))
			fn(ts, avc->vma, start, end, split);
	}
}

/* Step 3, with the count frozen at 0 and no mapping left (Linux's
 * __split_huge_page and lru_add_page_tail with a list). */
static void split_frozen_thp(struct thp_split *ts, struct list_head *list)
{
	struct page *head = ts->head;
	unsigned long keep = head->flags & ((1ul << PG_active) | (1ul << PG_referenced) | (1ul << PG_swapbacked));
	thp_prep_free(head); /* its marks gone: the second page's words are free for LRU links */
	split_page(head, HPAGE_PMD_ORDER);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		struct page *page = head + i;
		page->mapping = (void *)((unsigned long)ts->anon_vma | PAGE_MAPPING_ANON);
		page->index = ts->index + i;
		if (!i)
			continue;
		__atomic_or_fetch(&page->flags, keep, __ATOMIC_RELAXED);
		/* split_page gave it one reference: the isolation's, as the
		 * head's is the caller's. */
		list_add_tail(folio_lru(page), list);
	}
	__atomic_store_n(&head->_refcount, 1, __ATOMIC_RELEASE);
}

int split_huge_page_to_list(struct page *head, struct list_head *list, struct mm_struct *caller)
{
	if (!PageAnonThp(head) || page_test_flag(head, PG_lru) || page_test_flag(head, PG_mlocked))
		return -EINVAL;
	struct thp_split ts = {
		.sm = { .old = head, .caller = caller },
		.head = head,
		.pfn = page_to_pfn(head),
		.index = head->index,
		.anon_vma = page_anon_vma(head),
	};
	/* Linux's can_split_folio: no reference beyond the mappings' and
	 * the caller's (checked again, exactly, once every mapping is a
	 * migration entry). Not mapped at all: its anon_vma may be gone. */
	if (!ts.anon_vma || thp_total_mapcount(head) != page_ref_count(head) - 1) {
		count_vm_event(THP_SPLIT_PAGE_FAILED);
		return -EBUSY;
	}
	struct anon_vma *root = ts.anon_vma->root;
	down_write(&root->rwsem);
	for_each_thp_vma(&ts, unmap_step, false);
	/* The head's mapping went with its last mapping (page_remove_rmap):
	 * the THP keeps its place in the anon_vma while it is split. */
	head->mapping = (void *)((unsigned long)ts.anon_vma | PAGE_MAPPING_ANON);
	head->index = ts.index;
	bool split = !ts.sm.busy && thp_total_mapcount(head) == 0 &&
		     __atomic_compare_exchange_n(&head->_refcount, &(int){ 1 }, 0, false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED);
	if (split)
		split_frozen_thp(&ts, list);
	ts.sm.busy = false;
	for_each_thp_vma(&ts, remap_step, split);
	/* A page whose every entry went meanwhile (a MADV_DONTNEED beside
	 * the split) is in no one's reverse map (mmlab clears an anonymous
	 * page's mapping with its last mapping: mm/rmap.h). */
	if (split) {
		for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
			if (!page_mapcount(head + i)) {
				head[i].mapping = NULL;
				head[i].index = 0;
			}
	} else if (!thp_total_mapcount(head)) {
		head->mapping = NULL;
		head->index = 0;
	}
	up_write(&root->rwsem);
	migration_done(&ts.sm);
	count_vm_event(split ? THP_SPLIT_PAGE : THP_SPLIT_PAGE_FAILED);
	return split ? 0 : -EBUSY;
}
