/* Reclaim on the host, for the page allocator's slow path: the host has
 * no LRU lists and no kswapd thread, so direct reclaim is the shrinkers'
 * (mm/vmscan.c's try_to_free_pages calls them once per node too),
 * nothing else is reclaimable, and there is no kswapd to wake. Nor are
 * there processes: the OOM killer finds nothing to kill (out_of_memory's
 * false), so an allocation fails as it would on a kernel with no
 * killable process. */
#include "mm/kswapd.h"
#include "mm/oom.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

unsigned long try_to_free_pages(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask)
{
	(void)order;
	(void)nodemask;
	return shrink_slab(gfp, nid);
}

unsigned long node_reclaimable_pages(pg_data_t *pgdat)
{
	(void)pgdat;
	return 0;
}

void wakeup_kswapd(pg_data_t *pgdat, gfp_t gfp, unsigned int order)
{
	(void)pgdat;
	(void)gfp;
	(void)order;
}

bool out_of_memory(struct oom_control *oc)
{
	(void)oc;
	return false;
}

/* One thread: the lock is always free. */
bool oom_lock_trylock(void) { return true; }
void oom_lock_unlock(void) {}
bool oom_reserves_allowed(void) { return false; }
