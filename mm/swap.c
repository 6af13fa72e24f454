/* The LRU lists' entry points (Linux's mm/swap.c): adding a user page to
 * its node's lists, taking it off when it is freed, and the moves that
 * use makes (mm/swap.h says when each is called; mm/mmzone.h has the
 * lists' invariant, mm/mm_inline.h the list operations).
 *
 * Which pages are on the lists: anonymous pages (4 KiB, and a THP as one
 * entry by its head) from their first mapping, tmpfs and shared
 * anonymous memory's pages from their entry into the page cache; never
 * hugetlb pages, page tables, slabs or the zero pages (Linux's rules).
 *
 * Locking: each node's lru_lock (interrupts off: put_page may run from
 * an RCU callback) protects its lists, their counts and the PG_lru,
 * PG_active, PG_unevictable and PG_mlocked bits of the pages on them;
 * every flag is changed with atomic operations, since other bits of the
 * word change under other locks (PG_referenced under none: a hint).
 * Reclaim takes pages off under the lock only when it can take a
 * reference (get_page_unless_zero), so a page whose last reference is
 * going is left to page_cache_release, which takes it off under the
 * same lock. */
#include "mm/swap.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/vmstat.h"
#include "mm/workingset.h"

static inline void set_flag_atomic(struct page *page, enum pageflags f)
{
	__atomic_or_fetch(&page->flags, 1ul << f, __ATOMIC_RELAXED);
}

static inline void clear_flag_atomic(struct page *page, enum pageflags f)
{
	__atomic_and_fetch(&page->flags, ~(1ul << f), __ATOMIC_RELAXED);
}

/* Linux's lru_add_fn: evictable pages go to the list their flags name
 * (a new page: inactive), mlocked ones to the unevictable list, counted
 * once (mlock_count 1). Called with lru_lock held. */
static void lru_add_locked(struct lruvec *lruvec, struct page *page)
{
	if (!page_test_flag(page, PG_mlocked)) {
		clear_flag_atomic(page, PG_unevictable);
	} else {
		clear_flag_atomic(page, PG_active);
		set_flag_atomic(page, PG_unevictable);
		*folio_mlock_count(page) = 1;
		count_vm_events(UNEVICTABLE_PGCULLED, folio_nr_pages(page));
	}
	set_flag_atomic(page, PG_lru);
	lruvec_add_folio(lruvec, page);
}

static void add_lru(struct page *page, bool mlocked)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (!page_test_flag(page, PG_lru)) {
		/* Every page on these lists is swap-backed today: anonymous
		 * memory and tmpfs (Linux's __folio_set_swapbacked in the
		 * anonymous fault and in shmem_alloc_folio). */
		set_flag_atomic(page, PG_swapbacked);
		if (mlocked && !page_test_flag(page, PG_mlocked)) {
			/* Linux's mlock_new_folio. */
			set_flag_atomic(page, PG_mlocked);
			lruvec->nr_mlock += folio_nr_pages(page);
			count_vm_events(UNEVICTABLE_PGMLOCKED, folio_nr_pages(page));
		}
		lru_add_locked(lruvec, page);
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

void folio_add_lru(struct page *page)
{
	add_lru(page, false);
}

void folio_add_lru_vma(struct page *page, struct vm_area_struct *vma)
{
	add_lru(page, (vma->vm_flags & VM_LOCKED) != 0);
}

void page_cache_release(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long nr = folio_nr_pages(page), flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (page_test_flag(page, PG_lru)) {
		lruvec_del_folio(lruvec, page);
		clear_flag_atomic(page, PG_lru);
	}
	if (page_test_flag(page, PG_mlocked)) {
		/* Freed while mlocked: unmapped without a munlock (Linux's
		 * "mlocked page freed": unevictable_pgs_cleared). */
		lruvec->nr_mlock -= nr;
		count_vm_events(UNEVICTABLE_PGCLEARED, nr);
	}
	__atomic_and_fetch(&page->flags, ~((1ul << PG_active) | (1ul << PG_unevictable) | (1ul << PG_mlocked) |
			 (1ul << PG_referenced) | (1ul << PG_swapbacked) | (1ul << PG_readahead) |
			 (1ul << PG_workingset)), __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

void folio_activate(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	/* Linux's folio_activate_fn. */
	if (page_test_flag(page, PG_lru) && !page_test_flag(page, PG_active) &&
	    !page_test_flag(page, PG_unevictable)) {
		lruvec_del_folio(lruvec, page);
		set_flag_atomic(page, PG_active);
		lruvec_add_folio(lruvec, page);
		count_vm_events(PGACTIVATE, folio_nr_pages(page));
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

void folio_mark_accessed(struct page *page)
{
	page = compound_head(page);
	if (!page_test_flag(page, PG_referenced)) {
		set_flag_atomic(page, PG_referenced);
	} else if (!page_test_flag(page, PG_unevictable) && !page_test_flag(page, PG_active)) {
		/* The second reference: to the active list (Linux also marks
		 * a page still in a per-CPU add batch active there; mmlab
		 * has no batches). */
		folio_activate(page);
		clear_flag_atomic(page, PG_referenced);
		workingset_activation(page);
	}
}

void lru_split_folio(struct page *head, unsigned long nr)
{
	struct lruvec *lruvec = folio_lruvec(head);
	unsigned long flags;
	spin_lock_irqsave(&lruvec->lru_lock, flags);
	if (page_test_flag(head, PG_lru)) {
		/* The head counted nr pages as one entry: it becomes one of
		 * nr entries, each tail right after it (Linux's
		 * lru_add_page_tail keeps them together so). */
		enum lru_list lru = folio_lru_list(head);
		unsigned long keep = head->flags & ((1ul << PG_lru) | (1ul << PG_active) | (1ul << PG_unevictable) |
						    (1ul << PG_swapbacked) | (1ul << PG_referenced) |
						    (1ul << PG_mlocked));
		for (unsigned long i = nr - 1; i >= 1; i--) {
			__atomic_or_fetch(&head[i].flags, keep, __ATOMIC_RELAXED);
			if (lru == LRU_UNEVICTABLE)
				*folio_mlock_count(head + i) = *folio_mlock_count(head);
			else
				list_add(folio_lru(head + i), folio_lru(head));
		}
		/* nr_pages[lru] already counted all nr pages. */
	} else if (page_test_flag(head, PG_mlocked)) {
		for (unsigned long i = 1; i < nr; i++)
			set_flag_atomic(head + i, PG_mlocked);
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

void folio_migrate_lru(struct page *new, struct page *old)
{
	/* Linux's folio_migrate_flags: the flags that say where the page
	 * sits, then putback_lru_page of the new page. */
	if (PageHugetlb(old))
		return; /* a hugetlb page is never on the LRU */
	unsigned long nr = folio_nr_pages(old);
	bool mlocked = page_test_flag(old, PG_mlocked);
	if (page_test_flag(old, PG_referenced))
		set_flag_atomic(new, PG_referenced);
	if (page_test_flag(old, PG_active))
		set_flag_atomic(new, PG_active);
	if (page_test_flag(old, PG_workingset))
		set_flag_atomic(new, PG_workingset);
	if (mlocked) {
		/* The old page gives its mlock up as it goes: the node
		 * counts move with it. */
		struct lruvec *ol = folio_lruvec(old);
		unsigned long flags;
		spin_lock_irqsave(&ol->lru_lock, flags);
		if (page_test_flag(old, PG_mlocked)) {
			clear_flag_atomic(old, PG_mlocked);
			ol->nr_mlock -= nr;
		}
		spin_unlock_irqrestore(&ol->lru_lock, flags);
		struct lruvec *nl = folio_lruvec(new);
		spin_lock_irqsave(&nl->lru_lock, flags);
		set_flag_atomic(new, PG_mlocked);
		nl->nr_mlock += nr;
		spin_unlock_irqrestore(&nl->lru_lock, flags);
	}
	folio_add_lru(new);
}

unsigned long node_lru_pages(int nid, enum lru_list lru)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	return pgdat ? READ_ONCE(pgdat->__lruvec.nr_pages[lru]) : 0;
}

unsigned long global_lru_pages(enum lru_list lru)
{
	unsigned long sum = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		sum += node_lru_pages(nid, lru);
	return sum;
}

unsigned long global_mlocked_pages(void)
{
	unsigned long sum = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (NODE_DATA(nid))
			sum += READ_ONCE(NODE_DATA(nid)->__lruvec.nr_mlock);
	return sum;
}
