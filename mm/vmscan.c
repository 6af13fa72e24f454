/* Reclaim (Linux 6.1's mm/vmscan.c, mm/vmscan.h says what each entry
 * does): isolating pages from a node's LRU lists, aging the active lists
 * through the reverse map, the inactive lists' scan, the balance between
 * anon and file (get_scan_count) and a node's pass (shrink_node), which
 * direct reclaim (try_to_free_pages) and kswapd (mm/kswapd.c) run.
 *
 * What reclaim can free: the slab caches' shrinkers, and, with a swap
 * area on and a slot free in it (nr_swap_pages, mm/swapfile.c),
 * anonymous pages, which
 * shrink_folio_list hands to swap-out (mm/vmscan_swap.c). Without swap,
 * as in Linux, the anon lists (anonymous and tmpfs pages) are not
 * scanned for reclaim at all (get_scan_count's SCAN_FILE) nor even aged
 * (can_age_anon_pages), and a page shrink_inactive_list would reclaim is
 * activated, as Linux's add_to_swap failure does. With swap, tmpfs
 * pages go there too (mm/shmem_swap.c). The file lists are empty
 * (mmlab's only page cache is tmpfs's, whose pages are swap-backed).
 *
 * Locking: the node's lru_lock while pages are isolated or put back,
 * never across folio_referenced (which takes the rmap locks and the
 * page-table locks, and tries the mmap_lock). An isolated page holds a
 * reference of the isolator's and is PG_lru-clear: nobody else moves it,
 * and its last put (if its mappings go meanwhile) is the putback's. */
#include "mm/vmscan.h"
#include "kernel/sched_mm.h"
#include "kernel/sysctl.h"
#include "mm/huge_memory.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/shmem_swap.h"
#include "mm/swap_state.h"
#include "mm/swapfile.h"
#include "mm/vmscan_swap.h"
#include "mm/vmstat.h"
#include "mm/workingset.h"

int vm_swappiness = 60;
long total_swap_pages;

static const int two_hundred = 200;
SYSCTL_ENTRY(proc_sys_vm_dir, swappiness, .data = &vm_swappiness, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = &two_hundred);

static inline void lru_flag_set(struct page *page, enum pageflags f)
{
	__atomic_or_fetch(&page->flags, 1ul << f, __ATOMIC_RELAXED);
}

static inline void lru_flag_clear(struct page *page, enum pageflags f)
{
	__atomic_and_fetch(&page->flags, ~(1ul << f), __ATOMIC_RELAXED);
}

/* Linux's folio_test_clear_referenced. */
static inline bool lru_flag_test_clear(struct page *page, enum pageflags f)
{
	return __atomic_fetch_and(&page->flags, ~(1ul << f), __ATOMIC_RELAXED) & (1ul << f);
}

/* Linux's folio_evictable: not mlocked (mmlab has no unevictable
 * mapping on the LRU). */
static inline bool folio_evictable(const struct page *page)
{
	return !page_test_flag(page, PG_mlocked);
}

struct folio_referenced_arg {
	int referenced;
	unsigned long vm_flags;
	bool contended;
};

/* Linux's folio_referenced (mm/rmap.c there; here beside its one user,
 * so that the host's build of mm/rmap.c needs no page tables), and its
 * folio_referenced_one: the accessed bit of the entry that maps
 * page at address in vma, tested and cleared, and the TLB flushed where
 * it was set (ptep_clear_flush_young), so the next access sets it again.
 * The walk holds the anon_vma or i_mmap lock, which keeps the VMA; its
 * page tables are reached under the mm's mmap_lock, tried (the order
 * here is rmap lock then mmap_lock, everyone else's the reverse: see
 * mm/migrate_entry.c's hold_mm). */
static bool folio_referenced_one(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg)
{
	struct folio_referenced_arg *pra = arg;
	struct mm_struct *mm = vma->vm_mm;
	if (vma->vm_flags & VM_LOCKED) {
		/* Linux: a locked VMA maps it: mlock it, stop the walk. */
		pra->vm_flags |= VM_LOCKED;
		return false;
	}
	if (!mmap_read_trylock(mm)) {
		pra->contended = true;
		return false;
	}
	pmd_t *pmd = mm_find_pmd(mm, address);
	if (pmd && pmd_trans_huge(pmdp_get(pmd))) {
		spinlock_t *ptl = pmd_lockptr(mm, pmd);
		spin_lock(ptl);
		pmd_t val = pmdp_get(pmd);
		if (pmd_trans_huge(val) && pmd_pfn(val) == page_to_pfn(page) && pmdp_test_and_clear_young(pmd)) {
			flush_tlb_mm_range(mm, address & PMD_MASK, (address & PMD_MASK) + PMD_SIZE);
			pra->referenced++;
		}
		spin_unlock(ptl);
	} else if (pmd) {
		spinlock_t *ptl;
		pte_t *pte = pte_tryget_map_lock(mm, pmd, address, &ptl);
		if (pte) {
			pte_t val = ptep_get(pte);
			/* A THP mapped by PTEs: any of its pages' entries (the
			 * walk comes once per page of it that the VMA covers:
			 * here the head's address; Linux walks each). */
			if (pte_present(val) && pte_pfn(val) == page_to_pfn(page) && ptep_test_and_clear_young(pte)) {
				flush_tlb_mm_range(mm, address, address + PAGE_SIZE);
				pra->referenced++;
			}
			pte_unmap_unlock(pte, ptl);
			pte_put(mm, pmd, address);
		}
	}
	mmap_read_unlock(mm);
	return true;
}

int folio_referenced(struct page *page, unsigned long *vm_flags)
{
	struct folio_referenced_arg pra = { 0 };
	struct rmap_walk_control rwc = { .arg = &pra, .rmap_one = folio_referenced_one, .try_lock = true };
	*vm_flags = 0;
	if (!page_mapcount(page))
		return 0;
	if (PageAnon(page))
		rmap_walk(page, &rwc);
	else
		rmap_walk_file(page, &rwc);
	*vm_flags = pra.vm_flags;
	return rwc.contended || pra.contended ? -1 : pra.referenced;
}

int isolate_lru_page(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long flags;
	int ret = -EBUSY;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (page_test_flag(page, PG_lru)) {
		get_page(page);
		lruvec_del_folio(lruvec, page);
		lru_flag_clear(page, PG_lru);
		ret = 0;
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
	return ret;
}

/* Back on its list (the flags say which; an mlocked page onto the
 * unevictable one, Linux's lru_add_fn), under the lock; the isolation's
 * reference then goes, which may be the last. */
static void putback_one(struct lruvec *lruvec, struct page *page)
{
	unsigned long flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (!folio_evictable(page)) {
		lru_flag_clear(page, PG_active);
		if (!page_test_flag(page, PG_unevictable)) {
			lru_flag_set(page, PG_unevictable);
			*folio_mlock_count(page) = 1;
			count_vm_events(UNEVICTABLE_PGCULLED, folio_nr_pages(page));
		}
	} else if (page_test_flag(page, PG_unevictable)) {
		lru_flag_clear(page, PG_unevictable);
	}
	lru_flag_set(page, PG_lru);
	lruvec_add_folio(lruvec, page);
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
	put_page(page);
}

void putback_lru_page(struct page *page)
{
	putback_one(folio_lruvec(page), page);
}

/* Linux's move_folios_to_lru: every page of list back; how many pages.
 * A page going back active ages the node's nonresident pages, as an
 * eviction does (mm/workingset.h: an activation takes room from the
 * inactive list too). */
static unsigned long move_folios_to_lru(struct lruvec *lruvec, struct list_head *list)
{
	unsigned long moved = 0;
	while (!list_empty(list)) {
		struct page *page = lru_to_folio(list->next);
		list_del(folio_lru(page));
		unsigned long nr = folio_nr_pages(page);
		moved += nr;
		if (page_test_flag(page, PG_active))
			workingset_age_nonresident(lruvec, nr);
		putback_one(lruvec, page);
	}
	return moved;
}

/* Linux's isolate_lru_folios: up to nr_to_scan pages from the tail of
 * list lru onto dst, each with a reference; a page whose count is 0
 * (being freed) is rotated to the head for its freer. */
static unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec, struct list_head *dst,
					unsigned long *nr_scanned, enum lru_list lru)
{
	struct list_head *src = &lruvec->lists[lru];
	unsigned long taken = 0, scanned = 0, flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	while (scanned < nr_to_scan && !list_empty(src)) {
		struct page *page = lru_to_folio(src->prev);
		scanned++;
		/* A page whose last reference is going is the freer's
		 * (page_cache_release takes it off the list). */
		if (!get_page_unless_zero(page)) {
			list_move(folio_lru(page), src);
			continue;
		}
		lruvec_del_folio(lruvec, page);
		lru_flag_clear(page, PG_lru);
		list_add(folio_lru(page), dst);
		taken += folio_nr_pages(page);
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
	*nr_scanned = scanned;
	return taken;
}

bool inactive_is_low(struct lruvec *lruvec, enum lru_list inactive_lru)
{
	unsigned long inactive = READ_ONCE(lruvec->nr_pages[inactive_lru]);
	unsigned long active = READ_ONCE(lruvec->nr_pages[inactive_lru + LRU_ACTIVE]);
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT), ratio = 1;
	if (gb) {
		/* int_sqrt(10 * gb) */
		unsigned long x = 10 * gb;
		ratio = 0;
		while ((ratio + 1) * (ratio + 1) <= x)
			ratio++;
	}
	return inactive * ratio < active;
}

void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec, struct scan_control *sc,
			enum lru_list lru)
{
	LIST_HEAD(l_hold);
	LIST_HEAD(l_active);
	LIST_HEAD(l_inactive);
	unsigned long nr_scanned;
	isolate_lru_folios(nr_to_scan, lruvec, &l_hold, &nr_scanned, lru);
	sc->nr_scanned += nr_scanned;
	count_vm_events(PGREFILL, nr_scanned);
	while (!list_empty(&l_hold)) {
		struct page *page = lru_to_folio(l_hold.next);
		list_del(folio_lru(page));
		if (!folio_evictable(page)) {
			putback_lru_page(page);
			continue;
		}
		unsigned long vm_flags;
		if (folio_referenced(page, &vm_flags)) {
			/* Linux keeps only referenced executable file pages
			 * active: anything else in use goes inactive anyway,
			 * to prove itself there. */
			if ((vm_flags & VM_EXEC) && folio_is_file_lru(page)) {
				list_add(folio_lru(page), &l_active);
				continue;
			}
		}
		lru_flag_clear(page, PG_active); /* we are de-activating */
		lru_flag_set(page, PG_workingset);
		list_add(folio_lru(page), &l_inactive);
	}
	move_folios_to_lru(lruvec, &l_active);
	count_vm_events(PGDEACTIVATE, move_folios_to_lru(lruvec, &l_inactive));
}

enum folio_references { FOLIOREF_RECLAIM, FOLIOREF_KEEP, FOLIOREF_ACTIVATE };

/* The one decision point of page replacement: what the inactive scan does
 * with the page at the tail of its list (shrink_folio_list acts on it).
 * FOLIOREF_RECLAIM: the victim (to swap); FOLIOREF_KEEP: back on the
 * inactive list at its head, so the scan meets it again only after every
 * page behind it (a rotation); FOLIOREF_ACTIVATE: to the active list. New
 * pages enter at the head of the inactive list under every policy
 * (mm/swap.c's folio_add_lru), and the tail is where the scan starts, so
 * the list's order is the order pages entered it, but for rotations.
 *
 * lru (Linux 6.1's folio_check_references): the accessed bits of every
 * mapping through the reverse map (folio_referenced, which clears them)
 * and PG_referenced, the mark of an earlier look. Referenced and marked
 * (or mapped referenced twice): activate; referenced once: keep and mark;
 * not referenced: reclaim. Pages on the active list age back to the
 * inactive one (shrink_active_list) when inactive_is_low.
 *
 * fifo: the tail is the oldest page, and it goes. The accessed bits are
 * not even read, nothing is activated or rotated.
 *
 * clock (second chance, the clock Corbato described for Multics): the
 * inactive list is the clock's face read from its tail, the hand. A page whose accessed bit is set (any
 * mapping's, through the reverse map: folio_referenced clears them as it
 * looks) or whose PG_referenced is set has its bits cleared and is kept,
 * moving behind the hand; the first page found unreferenced goes. No
 * page is activated for its references: the active list stays empty but
 * for what reclaim could not free (a page still mapped, no swap space),
 * which Linux's activate_locked puts there under every policy.
 *
 * Under every policy an mlocked page found mapped by a VM_LOCKED VMA goes
 * to the unevictable list (ACTIVATE: putback sees PG_mlocked), and a
 * reverse-map walk that met a busy lock keeps the page (referenced is -1):
 * an unknown is not a victim. */
static enum folio_references folio_check_references(struct page *page, const struct scan_control *sc)
{
	if (sc->policy == RECLAIM_POLICY_FIFO)
		return FOLIOREF_RECLAIM;
	unsigned long vm_flags;
	int referenced_ptes = folio_referenced(page, &vm_flags);
	bool referenced_folio = lru_flag_test_clear(page, PG_referenced);
	if (vm_flags & VM_LOCKED)
		return FOLIOREF_ACTIVATE; /* mlocked meanwhile: to the unevictable list */
	if (referenced_ptes == -1)
		return FOLIOREF_KEEP; /* rmap lock contended */
	if (sc->policy == RECLAIM_POLICY_CLOCK)
		return referenced_ptes || referenced_folio ? FOLIOREF_KEEP : FOLIOREF_RECLAIM;
	if (referenced_ptes) {
		/* Every mapped page starts referenced by the fault that
		 * mapped it: a second look decides. */
		lru_flag_set(page, PG_referenced);
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		if ((vm_flags & VM_EXEC) && folio_is_file_lru(page))
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	return FOLIOREF_RECLAIM;
}

/* A tmpfs page (shared anonymous memory and System V segments' too):
 * in a page cache, swap-backed (Linux's shmem_writepage is its
 * pageout). */
static bool page_is_shmem(struct page *page)
{
	return page_in_page_cache(page) && page_test_flag(page, PG_swapbacked);
}

/* The swap-out of an isolated page: an anonymous one or an unmapped
 * swap-cache page (mm/vmscan_swap.c), or a tmpfs page (mm/shmem_swap.c).
 * caller: the mm whose mmap_lock is held (MADV_PAGEOUT's), or NULL. */
static enum swap_out_result swap_out_any(struct page *page, struct mm_struct *caller, struct swap_out_batch *b)
{
	return page_is_shmem(page) ? shmem_swap_out(page) : swap_out_folio_queue(page, caller, b);
}

/* A tmpfs huge page, split before its pages go to swap one by one
 * (Linux 6.1's shrink_folio_list: "Split shmem folio"), the tails right
 * after it on list; false when it could not be (kept for later). */
static bool split_shmem_thp_for_swap(struct page *page, struct list_head *after)
{
	LIST_HEAD(tails);
	if (shmem_split_for_swap(page, &tails))
		return false;
	list_splice_init(&tails, after);
	return true;
}

/* An anonymous THP reclaim is about to swap out, split first (Linux
 * 6.1's shrink_folio_list: no THP swap on a disk without swap clusters,
 * so add_to_swap of a large folio fails and the folio is split to go
 * page by page): one only PTEs map is split at once (its tails may go
 * without I/O), one a PMD maps after add_to_swap's failure
 * (thp_swpout_fallback). The tails join list right after page (they are
 * reclaimed in the same pass, as Linux's on folio_list). Whether page is
 * now a 4 KiB page to swap out; false: activate it (a reference beyond
 * the mappings', Linux's can_split_folio, or a split given up). caller:
 * the mm whose mmap_lock the caller holds for reading (MADV_PAGEOUT's),
 * or NULL (reclaim). */
static bool split_thp_for_swap(struct page *page, struct list_head *after, struct mm_struct *caller)
{
	if (thp_total_mapcount(page) != page_ref_count(page) - 1)
		return false; /* can_split_folio */
	bool pmd_mapped = thp_entire_mapcount(page) > 0;
	LIST_HEAD(tails);
	if (split_huge_page_to_list(page, &tails, caller))
		return false;
	if (pmd_mapped)
		count_vm_event(THP_SWPOUT_FALLBACK);
	list_splice_init(&tails, after);
	return true;
}

/* Linux's activate_locked: the page goes back to its active list. */
static void activate_locked(struct page *page)
{
	if (folio_evictable(page) && !page_test_flag(page, PG_active)) {
		lru_flag_set(page, PG_active);
		count_vm_events(PGACTIVATE, folio_nr_pages(page));
	}
}

/* shrink_folio_list's part once a page's swap-out has an outcome: a page
 * freed leaves list, a page to activate is marked, a kept or queued one
 * stays on list. */
static void shrink_swap_out_done(struct page *page, enum swap_out_result r, unsigned long *reclaimed)
{
	if (r == SWAP_OUT_FREED) {
		list_del(folio_lru(page));
		(*reclaimed)++;
		put_page(page);
	} else if (r == SWAP_OUT_ACTIVATE) {
		activate_locked(page);
	}
}

/* The batch's writes, then each page's outcome: the pages freed. */
static unsigned long shrink_batch_flush(struct swap_out_batch *b)
{
	unsigned long reclaimed = 0;
	swap_out_batch_flush(b);
	for (unsigned int i = 0; i < b->nr; i++)
		shrink_swap_out_done(b->pages[i], b->results[i], &reclaimed);
	b->nr = 0;
	return reclaimed;
}

/* Linux's shrink_folio_list, for the pages mmlab has: anonymous pages
 * (and unmapped ones left in the swap cache) go to swap
 * (mm/vmscan_swap.c), tmpfs pages too (shmem_writepage:
 * mm/shmem_swap.c); a tmpfs huge page is activated (Linux splits it). A page freed leaves list with its isolation's
 * reference dropped (the last: it goes back to the buddy allocator);
 * pages to activate get PG_active (pgactivate); the rest stay on list for
 * the caller to put back. Returns the pages freed. */
static unsigned long shrink_folio_list(struct list_head *list, struct scan_control *sc)
{
	unsigned long reclaimed = 0;
	struct swap_out_batch batch = { .nr = 0 };
	struct list_head *e, *next;
	list_for_each_safe(e, next, list) {
		struct page *page = lru_to_folio(e);
		enum folio_references ref =
			folio_evictable(page) ? folio_check_references(page, sc) : FOLIOREF_ACTIVATE;
		if (ref == FOLIOREF_KEEP)
			continue;
		if (ref == FOLIOREF_RECLAIM) {
			/* No __GFP_IO (GFP_NOIO, memalloc_noio): no swap-out,
			 * kept (Linux's check before add_to_swap). */
			if (!(sc->gfp_mask & __GFP_IO) || !sc->may_swap)
				continue;
			if (PageAnonThp(page) && !split_thp_for_swap(page, e, NULL)) {
				/* Linux's activate_locked: below. */
			} else if (page_is_shmem(page) && page_test_flag(page, PG_shmem_thp) &&
				   !split_shmem_thp_for_swap(page, e)) {
				continue; /* Linux's keep_locked */
			} else if (PageAnon(page) || PageSwapCache(page) || page_is_shmem(page)) {
				next = e->next; /* the tails of a split come next */
				/* A full batch goes out first: its pages are all
				 * behind e on list, so next stays. */
				if (swap_out_batch_full(&batch))
					reclaimed += shrink_batch_flush(&batch);
				shrink_swap_out_done(page, swap_out_any(page, NULL, &batch), &reclaimed);
				continue;
			}
		}
		activate_locked(page);
	}
	if (batch.nr)
		reclaimed += shrink_batch_flush(&batch);
	return reclaimed;
}

/* drain_madvised's part once a page's swap-out has an outcome: a page
 * freed counts (1), any other goes back on its list (0). */
static unsigned long madvised_swap_out_done(struct page *page, enum swap_out_result r)
{
	if (r == SWAP_OUT_FREED) {
		put_page(page);
		return 1;
	}
	putback_lru_page(page);
	return 0;
}

/* MADV_PAGEOUT's batch written: its pages freed, or put back. */
static unsigned long madvised_batch_flush(struct swap_out_batch *b)
{
	unsigned long done = 0;
	swap_out_batch_flush(b);
	for (unsigned int i = 0; i < b->nr; i++)
		done += madvised_swap_out_done(b->pages[i], b->results[i]);
	b->nr = 0;
	return done;
}

/* Every page of list (isolated by madvise) swapped out whatever its
 * references (pageout), or put back on its inactive list, unreferenced;
 * the pages freed, or moved off an active list. caller: the mm whose
 * mmap_lock madvise holds for reading (a THP's split walks it without a
 * second, nested lock: a trylock of it fails whenever a writer waits),
 * and so does each page's unmapping. */
static unsigned long drain_madvised(struct list_head *list, bool pageout, struct mm_struct *caller)
{
	unsigned long done = 0;
	struct swap_out_batch batch = { .nr = 0 };
	while (!list_empty(list)) {
		struct page *page = lru_to_folio(list->next);
		list_del(folio_lru(page));
		lru_flag_clear(page, PG_referenced);
		/* A THP the range covered whole (MADV_PAGEOUT isolated it
		 * whole): split as reclaim splits it, its tails put at the
		 * front of list. */
		if (pageout && PageAnonThp(page) && folio_evictable(page) && !split_thp_for_swap(page, list, caller)) {
			putback_lru_page(page);
			continue;
		}
		if (pageout && folio_evictable(page) && (PageAnon(page) || PageSwapCache(page) || page_is_shmem(page))) {
			if (swap_out_batch_full(&batch))
				done += madvised_batch_flush(&batch);
			enum swap_out_result r = swap_out_any(page, caller, &batch);
			if (r != SWAP_OUT_QUEUED)
				done += madvised_swap_out_done(page, r);
			continue;
		}
		if (!pageout && lru_flag_test_clear(page, PG_active))
			done += folio_nr_pages(page);
		putback_lru_page(page);
	}
	if (batch.nr)
		done += madvised_batch_flush(&batch);
	return done;
}

unsigned long reclaim_pages(struct list_head *list, struct mm_struct *caller)
{
	unsigned long reclaimed = drain_madvised(list, true, caller);
	count_vm_events(PGSTEAL_DIRECT, reclaimed);
	return reclaimed;
}

void deactivate_pages(struct list_head *list)
{
	count_vm_events(PGDEACTIVATE, drain_madvised(list, false, NULL));
}

unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec, struct scan_control *sc,
				   enum lru_list lru)
{
	LIST_HEAD(folio_list);
	unsigned long nr_scanned;
	isolate_lru_folios(nr_to_scan, lruvec, &folio_list, &nr_scanned, lru);
	sc->nr_scanned += nr_scanned;
	count_vm_events(sc->kswapd ? PGSCAN_KSWAPD : PGSCAN_DIRECT, nr_scanned);
	if (!nr_scanned)
		return 0;
	unsigned long reclaimed = shrink_folio_list(&folio_list, sc);
	move_folios_to_lru(lruvec, &folio_list);
	count_vm_events(sc->kswapd ? PGSTEAL_KSWAPD : PGSTEAL_DIRECT, reclaimed);
	return reclaimed;
}

/* Linux 6.1's can_reclaim_anon_pages: an anonymous page can be reclaimed
 * only while a swap slot is free somewhere (get_nr_swap_pages; mmlab has
 * no demotion targets). Once every area is full, reclaim scans the file
 * lists alone and counts anon as unreclaimable, so the allocator's slow
 * path soon sees that no retry can help and the OOM killer comes, rather
 * than every allocation scanning lists whose pages have nowhere to go. */
static bool can_reclaim_anon_pages(void)
{
	return READ_ONCE(nr_swap_pages) > 0;
}

/* Linux 6.1's can_age_anon_pages: the anon lists are aged while any area
 * is on, full or not (its slots come free again). */
static bool can_age_anon_pages(void)
{
	return READ_ONCE(total_swap_pages) > 0;
}

unsigned long node_reclaimable_pages(pg_data_t *pgdat)
{
	struct lruvec *lruvec = node_lruvec(pgdat);
	unsigned long nr = READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_FILE]) + READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_FILE]);
	if (can_reclaim_anon_pages())
		nr += READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_ANON]) + READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_ANON]);
	return nr;
}

/* Linux 6.1's get_scan_count, the cases mmlab can reach: no swap (or
 * !may_swap) scans the file lists only (SCAN_FILE); swappiness 0 with
 * file pages left scans file only too; otherwise anon and file in the
 * ratio swappiness : 200 - swappiness (Linux weighs that further by the
 * recent cost of each, which mmlab does not track yet). */
static void get_scan_count(struct lruvec *lruvec, struct scan_control *sc, unsigned long *nr)
{
	unsigned long ap = vm_swappiness, fp = 200 - (unsigned long)vm_swappiness;
	if (!sc->may_swap || !can_reclaim_anon_pages())
		ap = 0, fp = 1; /* SCAN_FILE */
	else if (!vm_swappiness)
		ap = 0, fp = 1;
	enum lru_list lru;
	for_each_evictable_lru(lru) {
		unsigned long size = READ_ONCE(lruvec->nr_pages[lru]), scan = size >> sc->priority;
		/* A small list is scanned whole at the last priority. */
		if (!scan && !sc->priority)
			scan = size;
		unsigned long num = is_file_lru(lru) ? fp : ap;
		nr[lru] = num ? scan * num / (ap + fp) : 0;
	}
}

/* Linux's shrink_list. */
static unsigned long shrink_list(enum lru_list lru, unsigned long nr_to_scan, struct lruvec *lruvec,
				 struct scan_control *sc)
{
	if (is_active_lru(lru)) {
		if (inactive_is_low(lruvec, lru - LRU_ACTIVE))
			shrink_active_list(nr_to_scan, lruvec, sc, lru);
		return 0;
	}
	return shrink_inactive_list(nr_to_scan, lruvec, sc, lru);
}

/* Linux's shrink_lruvec, without its proportional scaling of the lists
 * left once enough is reclaimed: it stops there. */
static void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr[NR_LRU_LISTS];
	get_scan_count(lruvec, sc, nr);
	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		enum lru_list lru;
		for_each_evictable_lru(lru) {
			if (!nr[lru])
				continue;
			unsigned long n = nr[lru] < SWAP_CLUSTER_MAX ? nr[lru] : SWAP_CLUSTER_MAX;
			nr[lru] -= n;
			sc->nr_reclaimed += shrink_list(lru, n, lruvec, sc);
		}
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
	}
	/* Even when anon was not scanned, its active/inactive balance is
	 * kept, where anon can be aged at all (with swap). */
	if (can_age_anon_pages() && inactive_is_low(lruvec, LRU_INACTIVE_ANON))
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
}

void shrink_node(pg_data_t *pgdat, struct scan_control *sc)
{
	unsigned long before = sc->nr_reclaimed;
	shrink_lruvec(node_lruvec(pgdat), sc);
	/* Linux's shrink_slab scans freeable >> priority objects of each
	 * cache at every priority; mmlab's scans all it counts at once, so
	 * a reclaim calls it once per node. Linux counts the slab pages the
	 * shrinkers freed (reclaim_state); mmlab's shrink_slab reports what
	 * they freed, which the slow path counts as progress. */
	if (!node_isset(pgdat->node_id, sc->slab_shrunk)) {
		node_set(pgdat->node_id, sc->slab_shrunk);
		sc->nr_reclaimed += shrink_slab(sc->gfp_mask, pgdat->node_id);
	}
	/* Progress: kswapd may try this node again (Linux's). */
	if (sc->nr_reclaimed > before)
		WRITE_ONCE(pgdat->kswapd_failures, 0);
}

unsigned long try_to_free_pages(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask)
{
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX,
		.gfp_mask = gfp,
		.order = (int)order,
		.priority = DEF_PRIORITY,
		.may_swap = true,
		.policy = reclaim_policy,
	};
	count_vm_event(ALLOCSTALL);
	/* The reclaimer's own allocations must not reclaim again
	 * (Linux's __perform_reclaim: PF_MEMALLOC). */
	unsigned int noreclaim = memalloc_noreclaim_save();
	pg_data_t *pref = NODE_DATA(nid);
	do {
		for (int i = 0; i < pref->nr_fallback; i++) {
			int n = pref->fallback[i];
			if ((gfp & __GFP_THISNODE) && n != nid)
				continue;
			if (nodemask && !node_isset(n, *nodemask))
				continue;
			shrink_node(NODE_DATA(n), &sc);
		}
		if (sc.nr_reclaimed >= sc.nr_to_reclaim)
			break;
	} while (--sc.priority >= 0);
	memalloc_noreclaim_restore(noreclaim);
	return sc.nr_reclaimed;
}
