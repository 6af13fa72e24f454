/* Reclaim on the host, for the page allocator's slow path: the host has
 * no LRU lists and no kswapd thread, so direct reclaim is the shrinkers'
 * (mm/vmscan.c's try_to_free_pages calls them once per node too),
 * nothing else is reclaimable, and there is no kswapd to wake. Nor are
 * there processes: the OOM killer finds nothing to kill (out_of_memory's
 * false), so an allocation fails as it would on a kernel with no
 * killable process. */
#include "kernel/psi.h"
#include "mm/compaction.h"
#include "mm/kswapd.h"
#include "mm/oom.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

unsigned long try_to_free_pages(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask)
{
	(void)order;
	(void)nodemask;
	return shrink_slab(gfp, nid);
}

/* No scheduler on the host, so no task states for PSI to count a memory
 * stall in. */
void psi_memstall_enter(unsigned long *flags) { *flags = 0; }
void psi_memstall_leave(unsigned long *flags) { (void)flags; }

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

/* Direct compaction on the host: nothing to move (no LRU, no migration),
 * so every request is skipped, as with too few free pages. */
enum compact_result try_to_compact_pages(gfp_t gfp, unsigned int order, int alloc_flags, int nid,
					 const nodemask_t *nodemask, enum compact_priority prio)
{
	(void)gfp, (void)order, (void)alloc_flags, (void)nid, (void)nodemask, (void)prio;
	return COMPACT_SKIPPED;
}

void compaction_defer_reset(pg_data_t *pgdat, int order, bool alloc_success)
{
	(void)pgdat, (void)order, (void)alloc_success;
}

bool should_compact_retry(gfp_t gfp, unsigned int order, int alloc_flags, int nid, const nodemask_t *nodemask,
			  enum compact_result compact_result, enum compact_priority *compact_priority,
			  int *compaction_retries)
{
	(void)gfp, (void)order, (void)alloc_flags, (void)nid, (void)nodemask, (void)compact_result;
	(void)compact_priority, (void)compaction_retries;
	return false;
}

void wakeup_kcompactd(pg_data_t *pgdat, int order)
{
	(void)pgdat, (void)order;
}

/* The event counters the slow path counts compaction in (mm/vmstat.c,
 * which has /proc, is not built on the host). */
struct vm_event_state vm_event_states[NR_CPUS];

bool out_of_memory(struct oom_control *oc)
{
	(void)oc;
	return false;
}

/* No process was ever killed: no victim's memory is on its way back. */
bool oom_victims_pending(void) { return false; }

/* One thread: the lock is always free. */
bool oom_lock_trylock(void) { return true; }
void oom_lock_unlock(void) {}
bool oom_reserves_allowed(void) { return false; }
