/* Putting pages on their node's LRU lists and taking them off (Linux's
 * include/linux/mm_inline.h): which list a page belongs on follows from
 * its flags, and the lists' counts follow the pages. The caller holds the
 * lruvec's lru_lock (mm/mmzone.h says what it protects). */
#ifndef MM_MM_INLINE_H
#define MM_MM_INLINE_H

#include "mm/page_alloc.h"

/* An LRU entry is a 4 KiB page or the head of a THP (an anonymous one or
 * a tmpfs file's): Linux's folio_nr_pages. */
static inline unsigned long folio_nr_pages(const struct page *page)
{
	return page->flags & ((1ul << PG_anon_thp) | (1ul << PG_shmem_thp)) ? 1ul << pageblock_order : 1;
}

static inline struct lruvec *folio_lruvec(const struct page *page)
{
	return node_lruvec(NODE_DATA(page_to_nid(page)));
}

/* Linux's folio_is_file_lru: swap-backed pages (anonymous, tmpfs) are on
 * the anon lists. */
static inline bool folio_is_file_lru(const struct page *page)
{
	return !page_test_flag(page, PG_swapbacked);
}

/* Linux's folio_lru_list. */
static inline enum lru_list folio_lru_list(const struct page *page)
{
	if (page_test_flag(page, PG_unevictable))
		return LRU_UNEVICTABLE;
	enum lru_list lru = folio_is_file_lru(page) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;
	if (page_test_flag(page, PG_active))
		lru += LRU_ACTIVE;
	return lru;
}

/* As Linux 6.1's: an unevictable page is counted, not linked; its lru's
 * second word is its mlock_count. */
static inline unsigned long *folio_mlock_count(struct page *page) { return &page->_user_lru[1]; }
static inline struct list_head *folio_lru(struct page *page) { return (struct list_head *)page->_user_lru; }

static inline void lruvec_add_folio(struct lruvec *lruvec, struct page *page)
{
	enum lru_list lru = folio_lru_list(page);
	lruvec->nr_pages[lru] += folio_nr_pages(page);
	if (lru != LRU_UNEVICTABLE)
		list_add(folio_lru(page), &lruvec->lists[lru]);
}

static inline void lruvec_add_folio_tail(struct lruvec *lruvec, struct page *page)
{
	enum lru_list lru = folio_lru_list(page);
	lruvec->nr_pages[lru] += folio_nr_pages(page);
	if (lru != LRU_UNEVICTABLE)
		list_add_tail(folio_lru(page), &lruvec->lists[lru]);
}

static inline void lruvec_del_folio(struct lruvec *lruvec, struct page *page)
{
	enum lru_list lru = folio_lru_list(page);
	lruvec->nr_pages[lru] -= folio_nr_pages(page);
	if (lru != LRU_UNEVICTABLE)
		list_del(folio_lru(page));
}

/* The page whose lru links are at entry. */
static inline struct page *lru_to_folio(struct list_head *entry)
{
	return (struct page *)((char *)entry - __builtin_offsetof(struct page, _user_lru));
}

#endif
