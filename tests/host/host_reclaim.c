/* Reclaim on the host, for the page allocator's slow path: the host has
 * no LRU lists and no kswapd thread, so direct reclaim is the shrinkers'
 * (mm/vmscan.c's try_to_free_pages calls them once per node too),
 * nothing else is reclaimable, and there is no kswapd to wake. */
#include "mm/kswapd.h"
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
