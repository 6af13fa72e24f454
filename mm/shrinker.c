/* Shrinkers: callbacks that free memory (slab caches, for instance) when the
 * page allocator's slow path asks, through shrink_slab().
 *
 * A shrinker is called only from a context that has the flags it declares
 * (gfp_needs): a GFP_NOFS allocation, or any inside memalloc_nofs_save
 * (the page allocator applies current_gfp_context before it gets here),
 * never enters a file system's shrinker; GFP_NOIO enters neither that nor
 * a block device's.
 *
 * Invariant: the list of shrinkers does not change while shrinkers run
 * ((un)registering waits for shrinker_lock), and a CPU never enters
 * shrink_slab() again from inside a shrinker: no reclaim recursion. */
#include "kernel/smp.h"
#include "mm/page_alloc.h"

static DEFINE_SPINLOCK(shrinker_lock);
static LIST_HEAD(shrinker_list);

int register_shrinker(struct shrinker *s)
{
	spin_lock(&shrinker_lock);
	list_add_tail(&s->list, &shrinker_list);
	spin_unlock(&shrinker_lock);
	return 0;
}

void unregister_shrinker(struct shrinker *s)
{
	spin_lock(&shrinker_lock);
	list_del(&s->list);
	spin_unlock(&shrinker_lock);
}

/* A CPU already inside shrink_slab (a shrinker that allocates under
 * pressure) does not enter it again: no reclaim recursion. */
static bool in_shrink_slab[NR_CPUS];

unsigned long shrink_slab(gfp_t gfp, int nid)
{
	unsigned long freed = 0;
	struct shrinker *s;
	unsigned cpu = smp_processor_id();

	if (in_shrink_slab[cpu])
		return 0;
	in_shrink_slab[cpu] = true;
	/* The list does not change while shrinkers run: (un)registering waits
	 * for the lock. Shrinkers may allocate and free, not sleep. */
	spin_lock(&shrinker_lock);
	list_for_each_entry(s, &shrinker_list, list) {
		if (s->gfp_needs & ~gfp) {
			s->nr_skipped++;
			continue;
		}
		struct shrink_control sc = { .gfp_mask = gfp, .nid = nid };
		unsigned long count = s->count_objects(s, &sc);
		if (!count || count == SHRINK_STOP)
			continue;
		sc.nr_to_scan = count;
		unsigned long r = s->scan_objects(s, &sc);
		if (r != SHRINK_STOP)
			freed += r;
	}
	spin_unlock(&shrinker_lock);
	in_shrink_slab[cpu] = false;
	return freed;
}
