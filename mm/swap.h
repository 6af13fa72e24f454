/* The LRU lists' entry points (Linux's mm/swap.c and the LRU parts of
 * include/linux/swap.h): a user page joins its node's LRU when it is
 * first mapped or enters the page cache, leaves it when its last
 * reference goes, and moves between the lists as it is used and aged
 * (mm/vmscan.c). mm/mmzone.h has the lists and their invariant. */
#ifndef MM_SWAP_H
#define MM_SWAP_H

#include "mm/mmzone.h"
#include "mm/page.h"

struct vm_area_struct;

/* A page not on the LRU yet (just allocated, or a THP's head) goes on
 * its node's inactive list, or the unevictable one when mlocked
 * (Linux's folio_add_lru and its lru_add_fn). The caller holds a
 * reference. mmlab adds at once under the node's lru_lock: Linux batches
 * the adds per CPU (folio_batch, lru_add_drain), holding a reference on
 * each batched page, and mmlab's exact reference checks (copy-on-write
 * reuse, migration, memfd seals) would see those references. */
void folio_add_lru(struct page *page);
/* The same for a page mapped by vma: a VM_LOCKED VMA's page goes to the
 * unevictable list mlocked (Linux's folio_add_lru_vma, mlock_new_folio). */
void folio_add_lru_vma(struct page *page, struct vm_area_struct *vma);
/* The page's last reference is gone (put_page): it leaves the LRU and
 * loses reclaim's flags, as Linux's __page_cache_release. */
void page_cache_release(struct page *page);
#define LRU_PAGE_FLAGS                                                                         \
	((1ul << PG_lru) | (1ul << PG_active) | (1ul << PG_referenced) | (1ul << PG_unevictable) | \
	 (1ul << PG_swapbacked) | (1ul << PG_mlocked) | (1ul << PG_readahead) | (1ul << PG_workingset))
/* A reference to the page from a read or write of it (Linux's
 * folio_mark_accessed): inactive,unreferenced -> inactive,referenced ->
 * active,unreferenced. */
void folio_mark_accessed(struct page *page);
/* A page on an inactive list moves to the active one (pgactivate). */
void folio_activate(struct page *page);
/* A split of a THP that was one LRU entry: every page of it becomes an
 * entry of its own on the head's list, with the head's flags (Linux's
 * lru_add_page_tail). Called with the head's count frozen, after the
 * THP's own marks are gone (the tails' lru words held some). */
void lru_split_folio(struct page *head, unsigned long nr);
/* A page that takes another's place (migration) takes its place on the
 * LRU too: the same list, mlock state and referenced bit. old is
 * isolated (off the LRU) or not on it. */
void folio_migrate_lru(struct page *new, struct page *old);

/* A VM_LOCKED VMA maps page (mlock, or a fault there): PG_mlocked, on
 * the unevictable list with one more mlock_count (Linux 6.1's
 * mlock_folio). munlock_folio is its reverse: the last count gone, the
 * page goes back to the inactive list (mm/mlock.c). */
void mlock_folio(struct page *page);
void munlock_folio(struct page *page);
/* A page gains or loses a mapping by vma: mlock_folio or munlock_folio
 * when vma is VM_LOCKED (Linux's mlock_vma_folio, munlock_vma_folio). */
void mlock_vma_folio(struct page *page, struct vm_area_struct *vma);
void munlock_vma_folio(struct page *page, struct vm_area_struct *vma);

/* The pages on a list: of one node, or of all. */
unsigned long node_lru_pages(int nid, enum lru_list lru);
unsigned long global_lru_pages(enum lru_list lru);
/* The PG_mlocked pages (Linux's NR_MLOCK). */
unsigned long global_mlocked_pages(void);

#endif
