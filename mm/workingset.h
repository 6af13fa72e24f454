/* Workingset detection for anonymous pages (Linux 6.1's mm/workingset.c,
 * its parts without memory cgroups and without the file lists, which
 * mmlab's reclaim never frees): what reclaim leaves behind when it frees
 * a swap-cache page, and what a swap-in makes of it.
 *
 * Each node's lruvec counts its nonresident_age: it grows by a page for
 * every page reclaim evicts and every page that is activated. Evicting a
 * page stores that age (and the node, and whether the page was part of
 * the workingset, PG_workingset) as a shadow entry in the page's swap
 * cache slot. When the slot is read back (a refault), the distance
 * between the age now and then is how many pages were evicted or
 * activated meanwhile: the memory the page would have needed, beyond the
 * inactive list, to stay resident. A distance no larger than the node's
 * workingset (Linux: the active file list, the inactive file list for an
 * anon refault, and the active anon list while swap has room) means the
 * page was thrashing: it comes back active (workingset_activate_anon),
 * and if it was a workingset page before, that is a restore
 * (workingset_restore_anon). workingset_refault_anon counts every refault
 * of a page that left a shadow. */
#ifndef MM_WORKINGSET_H
#define MM_WORKINGSET_H

#include "mm/page.h"

struct lruvec;

/* Linux's workingset_age_nonresident: nr pages evicted or activated. */
void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr_pages);
/* Linux's workingset_eviction: the shadow to leave in the slot of page,
 * which reclaim is freeing now (an xarray value: bit 0 set). */
void *workingset_eviction(struct page *page);
/* Linux's workingset_refault: page (not on the LRU yet) was read back
 * into a slot that held shadow: counted, and made active (PG_active, and
 * PG_workingset when it was one) if its refault distance says so, before
 * the caller adds it to the LRU. */
void workingset_refault(struct page *page, void *shadow);
/* Linux's workingset_activation: page (on the LRU) was activated by use
 * (folio_mark_accessed). */
void workingset_activation(struct page *page);

/* The shadow's parts (Linux's unpack_shadow), for tests: the node, the
 * eviction age and whether the page was a workingset page. */
void unpack_shadow(void *shadow, int *nid, unsigned long *eviction, bool *workingset);
/* The refault distance of shadow now, in pages (for tests). */
unsigned long workingset_refault_distance(void *shadow);

#endif
