/* A node's LRU lists (Linux's struct lruvec and enum lru_list,
 * include/linux/mmzone.h): the user pages of the node in five lists, by
 * kind and by recent use, which reclaim scans from the tail (the oldest).
 *
 * Kinds as Linux's: anonymous memory and tmpfs/shmem pages are
 * swap-backed (PG_swapbacked) and sit on the anon lists; a file's
 * page-cache pages would sit on the file lists (mmlab's only page cache is
 * tmpfs's, so they stay empty until a file system with a backing store
 * comes). A page that cannot be reclaimed at all (mlocked) is on the
 * unevictable list, which, as in Linux 6.1, is a count only: the page is
 * not linked, and its lru's second word holds its mlock_count.
 *
 * Invariant: under lru_lock, a page is PG_lru exactly when it is on one
 * of the lists (or counted on the unevictable one), on the list
 * folio_lru_list names from its flags, and nr_pages[lru] is the pages
 * (a THP counts 512) the list holds. */
#ifndef MM_MMZONE_H
#define MM_MMZONE_H

#include "kernel/spinlock.h"
#include "lib/list.h"

#define LRU_BASE 0
#define LRU_ACTIVE 1
#define LRU_FILE 2

enum lru_list {
	LRU_INACTIVE_ANON = LRU_BASE,
	LRU_ACTIVE_ANON = LRU_BASE + LRU_ACTIVE,
	LRU_INACTIVE_FILE = LRU_BASE + LRU_FILE,
	LRU_ACTIVE_FILE = LRU_BASE + LRU_FILE + LRU_ACTIVE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};

#define NR_EVICTABLE_LRU_LISTS LRU_UNEVICTABLE
#define for_each_evictable_lru(lru) for (lru = 0; lru < NR_EVICTABLE_LRU_LISTS; lru++)

static inline bool is_file_lru(enum lru_list lru) { return lru == LRU_INACTIVE_FILE || lru == LRU_ACTIVE_FILE; }
static inline bool is_active_lru(enum lru_list lru) { return lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE; }

struct lruvec {
	spinlock_t lru_lock; /* the lists, nr_pages, and PG_lru/PG_active/PG_unevictable of their pages */
	struct list_head lists[NR_LRU_LISTS]; /* [LRU_UNEVICTABLE] stays empty: a count only */
	unsigned long nr_pages[NR_LRU_LISTS];
	unsigned long nr_mlock;   /* pages PG_mlocked (Linux's NR_MLOCK), under lru_lock */
	/* Pages evicted or activated on this node so far (Linux's
	 * nonresident_age, atomic: mm/workingset.h). */
	unsigned long nonresident_age;
};

#endif
