/* Reclaim (Linux's mm/vmscan.c): aging the LRU lists, shrinking them and
 * the slab caches for the page allocator's direct reclaim and for each
 * node's kswapd. docs/reclaim.md says what frees pages (the shrinkers;
 * with a swap area on, anonymous pages too: docs/swap.md). */
#ifndef MM_VMSCAN_H
#define MM_VMSCAN_H

#include "lib/list.h"
#include "mm/gfp.h"
#include "mm/mmzone.h"
#include "mm/numa.h"
#include "mm/reclaim_policy.h"

struct page;
struct mm_struct;
typedef struct pglist_data pg_data_t;

/* Linux's: pages a reclaim pass aims to free, and the priorities a pass
 * scans with (a list is scanned by its size >> priority). */
#define SWAP_CLUSTER_MAX 32ul
#define DEF_PRIORITY 12

/* Linux's struct scan_control, what mmlab's reclaim uses of it. */
struct scan_control {
	unsigned long nr_to_reclaim;
	gfp_t gfp_mask;
	int order;
	int priority;
	bool may_swap;      /* anonymous pages may be reclaimed (to swap) */
	bool kswapd;        /* kswapd's pass (the pgscan/pgsteal counters say which) */
	/* The replacement policy this reclaim follows: reclaim_policy,
	 * copied at its start (mmlab's, not Linux's: docs/reclaim.md). A
	 * scan_control built without it follows Linux's (LRU, 0). */
	enum reclaim_policy policy;
	unsigned long nr_scanned;
	unsigned long nr_reclaimed;
	nodemask_t slab_shrunk; /* nodes whose slabs this reclaim shrank */
};

/* /proc/sys/vm/swappiness (0..200, default 60): the relative cost of
 * reclaiming anonymous pages against file pages. */
extern int vm_swappiness;
/* Usable slots of the swap areas that are on (Linux's total_swap_pages;
 * mm/swapfile.c changes it under swap_lock): 0 without swap. */
extern long total_swap_pages;

/* Linux 6.1's isolate_lru_page: page leaves the LRU for its caller (a
 * migration, reclaim), who holds a reference and gets one more; 0, or
 * -EBUSY when it was not on the LRU. putback_lru_page puts it back (the
 * list its flags name, unevictable if mlocked meanwhile) and drops that
 * reference. */
int isolate_lru_page(struct page *page);
void putback_lru_page(struct page *page);

/* MADV_PAGEOUT's (Linux's reclaim_pages): every page of list (isolated
 * by the caller) to swap whatever its references say, the rest put back;
 * the pages freed; caller: the mm whose mmap_lock the caller holds for
 * reading (a THP of list is split under it), or NULL. MADV_COLD's (Linux's deactivate_page): every page of
 * list back on its inactive list, unreferenced (pgdeactivate). */
unsigned long reclaim_pages(struct list_head *list, struct mm_struct *caller);
void deactivate_pages(struct list_head *list);

/* Linux 6.1's inactive_is_low: the inactive list is short against the
 * active one by the ratio sqrt(10 * GiB of both) (1 under 1 GiB). */
bool inactive_is_low(struct lruvec *lruvec, enum lru_list inactive_lru);
/* Ages nr_to_scan pages from the tail of an active list: referenced ones
 * (folio_referenced) stay (executable file pages) or go to the inactive
 * list with the rest, their accessed bits cleared. */
void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec, struct scan_control *sc,
			enum lru_list lru);
/* Scans nr_to_scan pages from the tail of an inactive list and reclaims
 * what it can (folio_check_references decides); the pages reclaimed. */
unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec, struct scan_control *sc,
				   enum lru_list lru);
/* One pass over a node: its lists by get_scan_count, then its slabs
 * (shrink_slab). */
void shrink_node(pg_data_t *pgdat, struct scan_control *sc);
/* Direct reclaim for an allocation (Linux's try_to_free_pages): the
 * allowed nodes at falling priority until SWAP_CLUSTER_MAX pages are
 * reclaimed; counts allocstall. Returns the progress made. */
unsigned long try_to_free_pages(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask);
/* Pages reclaim could free on the node (Linux's zone_reclaimable_pages):
 * the file lists, and the anon lists when there is swap. */
unsigned long node_reclaimable_pages(pg_data_t *pgdat);

#endif
