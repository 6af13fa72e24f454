/* Workingset detection (mm/workingset.h says what it does and why).
 *
 * Linux 6.1's mm/workingset.c, reduced: no memory cgroups (the shadow
 * carries no cgroup id), no file refaults (mmlab's file pages are tmpfs's,
 * which reclaim never frees), no shadow-node shrinker (shadows live in
 * the swap cache's array, one word per slot, freed with the slot, so they
 * cost nothing to keep: Linux's xarray nodes holding only shadows are
 * what its workingset_nodes counts and its shrinker frees), no
 * lru_note_cost_refault (mmlab's anon/file balance has no costs).
 *
 * The shadow (Linux's pack_shadow, without the memcg id), from bit 0:
 *   bit 0        1: an xarray value, never a struct page pointer
 *   bit 1        PG_workingset of the evicted page
 *   bits 2..5    the node (NODES_SHIFT 4: MAX_NUMNODES 16)
 *   bits 6..63   the lruvec's nonresident_age at eviction (EVICTION_MASK:
 *                58 bits, where Linux's bucket_order stays 0 on 64-bit)
 *
 * Locking: nonresident_age is an atomic counter; the rest reads list
 * sizes racily, as Linux's lruvec_page_state does. */
#include "mm/workingset.h"
#include "mm/mm_inline.h"
#include "mm/page_alloc.h"
#include "mm/swapfile.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

#define WORKINGSET_SHIFT 1
#define NODES_SHIFT 4
#define XA_VALUE_SHIFT 1
#define EVICTION_SHIFT (XA_VALUE_SHIFT + WORKINGSET_SHIFT + NODES_SHIFT)
#define EVICTION_MASK (~0ul >> EVICTION_SHIFT)

_Static_assert(MAX_NUMNODES <= (1 << NODES_SHIFT), "a shadow's node field holds every node id");

void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr_pages)
{
	__atomic_add_fetch(&lruvec->nonresident_age, nr_pages, __ATOMIC_RELAXED);
}

static void *pack_shadow(int nid, unsigned long eviction, bool workingset)
{
	eviction &= EVICTION_MASK;
	eviction = (eviction << NODES_SHIFT) | (unsigned long)nid;
	eviction = (eviction << WORKINGSET_SHIFT) | workingset;
	return (void *)((eviction << XA_VALUE_SHIFT) | 1); /* xa_mk_value */
}

void unpack_shadow(void *shadow, int *nid, unsigned long *eviction, bool *workingset)
{
	unsigned long entry = (unsigned long)shadow >> XA_VALUE_SHIFT; /* xa_to_value */
	*workingset = entry & ((1ul << WORKINGSET_SHIFT) - 1);
	entry >>= WORKINGSET_SHIFT;
	*nid = (int)(entry & ((1ul << NODES_SHIFT) - 1));
	entry >>= NODES_SHIFT;
	*eviction = entry;
}

void *workingset_eviction(struct page *page)
{
	struct lruvec *lruvec = folio_lruvec(page);
	unsigned long eviction = __atomic_load_n(&lruvec->nonresident_age, __ATOMIC_RELAXED);
	workingset_age_nonresident(lruvec, folio_nr_pages(page));
	return pack_shadow(page_to_nid(page), eviction, page_test_flag(page, PG_workingset));
}

static struct lruvec *shadow_lruvec(void *shadow, unsigned long *eviction, bool *workingset)
{
	int nid;
	unpack_shadow(shadow, &nid, eviction, workingset);
	pg_data_t *pgdat = NODE_DATA(nid);
	return pgdat ? node_lruvec(pgdat) : NULL;
}

unsigned long workingset_refault_distance(void *shadow)
{
	unsigned long eviction;
	bool workingset;
	struct lruvec *lruvec = shadow_lruvec(shadow, &eviction, &workingset);
	if (!lruvec)
		return ~0ul;
	unsigned long refault = __atomic_load_n(&lruvec->nonresident_age, __ATOMIC_RELAXED);
	/* Linux: the counter may have wrapped since (EVICTION_MASK bits). */
	return (refault - eviction) & EVICTION_MASK;
}

void workingset_refault(struct page *page, void *shadow)
{
	unsigned long nr = folio_nr_pages(page), eviction;
	bool workingset;
	struct lruvec *eviction_lruvec = shadow_lruvec(shadow, &eviction, &workingset);
	if (!eviction_lruvec)
		return;
	unsigned long refault_distance = workingset_refault_distance(shadow);
	struct lruvec *lruvec = folio_lruvec(page);
	count_vm_events(WORKINGSET_REFAULT_ANON, nr);
	/* Linux's comparison for an anon refault: the pages that could have
	 * held it had all memory been given to the workingset. Whether anon
	 * competes depends on swap having room. */
	unsigned long workingset_size = READ_ONCE(eviction_lruvec->nr_pages[LRU_ACTIVE_FILE]) +
					READ_ONCE(eviction_lruvec->nr_pages[LRU_INACTIVE_FILE]);
	if (READ_ONCE(nr_swap_pages) > 0)
		workingset_size += READ_ONCE(eviction_lruvec->nr_pages[LRU_ACTIVE_ANON]);
	if (refault_distance > workingset_size)
		return;
	__atomic_or_fetch(&page->flags, 1ul << PG_active, __ATOMIC_RELAXED);
	workingset_age_nonresident(lruvec, nr);
	count_vm_events(WORKINGSET_ACTIVATE_ANON, nr);
	if (workingset) {
		/* Active before its eviction. */
		__atomic_or_fetch(&page->flags, 1ul << PG_workingset, __ATOMIC_RELAXED);
		count_vm_events(WORKINGSET_RESTORE_ANON, nr);
	}
}

void workingset_activation(struct page *page)
{
	workingset_age_nonresident(folio_lruvec(page), folio_nr_pages(page));
}
