/* What the page allocator tells about itself: free page counts (the ones
 * tests and /proc/meminfo read), the buddyinfo, numastat and free-area
 * tables, the page allocation failure report, and GFP flags by name.
 *
 * Invariant: a node's free pages are its buddy pages plus the pages on its
 * per-CPU lists, and its NUMA counters the sums of its per-CPU ones, so node_free_pages() is what a caller could still get
 * from the node; these readers take no lock and are exact only when the
 * allocator is quiet (as the tests' leak checks make it). */
#include "kernel/printk.h"
#include "lib/ratelimit.h"
#include "mm/page_alloc_internal.h"

/* CPUs whose per-CPU lists may hold pages. */
static inline unsigned possible_cpus(void)
{
	unsigned n = num_possible_cpus();
	return n ? (n < NR_CPUS ? n : NR_CPUS) : 1;
}

unsigned long node_free_pages(int nid)
{
	pg_data_t *pgdat = nid >= 0 && nid < MAX_NUMNODES ? node_data[nid] : NULL;
	if (!pgdat)
		return 0;
	unsigned long n = pgdat->nr_free;
	for (unsigned cpu = 0; cpu < possible_cpus(); cpu++)
		n += (unsigned long)pgdat->pcp[cpu].count +
		     ((unsigned long)pgdat->pcp[cpu].thp_count << pageblock_order);
	return n;
}

unsigned long node_numa_event_state(int nid, enum numa_stat_item item)
{
	pg_data_t *pgdat = nid >= 0 && nid < MAX_NUMNODES ? node_data[nid] : NULL;
	if (!pgdat || (unsigned)item >= NR_NUMA_STAT_ITEMS)
		return 0;
	unsigned long n = 0;
	/* Every CPU slot, not just the possible ones: one that never ran
	 * holds zeros, and a test may count on any CPU number. */
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++) {
		const unsigned long *ev = pgdat->per_cpu_nodestats[cpu].numa_events;
		if (item != NUMA_LOCAL && item != NUMA_OTHER) {
			n += READ_ONCE(ev[item]);
			continue;
		}
		/* Each hit or miss in this slot was local or other by where
		 * the CPU sits, as numa_node_id() on it says (the CPU map is
		 * published before the first allocation and never changes):
		 * the allocator counts only the hits and misses. */
		int cpu_nid = cpu_to_node(cpu) < 0 ? 0 : cpu_to_node(cpu);
		if ((cpu_nid == nid) == (item == NUMA_LOCAL))
			n += READ_ONCE(ev[NUMA_HIT]) + READ_ONCE(ev[NUMA_MISS]);
	}
	return n;
}

unsigned long nr_free_pages(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		n += node_free_pages(nid);
	return n;
}

unsigned long totalram_pages(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			n += node_data[nid]->managed_pages;
	return n;
}

unsigned long node_free_blocks(int nid, unsigned int order)
{
	if (nid < 0 || nid >= MAX_NUMNODES || !node_data[nid] || order > MAX_PAGE_ORDER)
		return 0;
	return node_data[nid]->free_area[order].nr_free;
}

/* Walks the list under the node's lock, as pagetypeinfo does. */
unsigned long node_free_blocks_type(int nid, unsigned int order, int migratetype)
{
	if (nid < 0 || nid >= MAX_NUMNODES || !node_data[nid] || order > MAX_PAGE_ORDER ||
	    migratetype < 0 || migratetype >= MIGRATE_TYPES)
		return 0;
	pg_data_t *pgdat = node_data[nid];
	unsigned long n = 0, flags;
	struct list_head *pos;
	spin_lock_irqsave(&pgdat->lock, flags);
	list_for_each(pos, &pgdat->free_area[order].free_list[migratetype])
		n++;
	spin_unlock_irqrestore(&pgdat->lock, flags);
	return n;
}

void show_buddyinfo(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat || !pgdat->managed_pages)
			continue;
		char line[NR_PAGE_ORDERS * 8 + 8];
		size_t len = 0;
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			len += snprintf(line + len, sizeof(line) - len, " %6lu", pgdat->free_area[o].nr_free);
		pr_info("Node %d, zone   Normal%s\n", nid, line);
	}
}

void show_numastat(void)
{
	static const char *const names[NR_NUMA_STAT_ITEMS] = {
		"numa_hit", "numa_miss", "numa_foreign", "local_node", "other_node", "interleave_hit" };
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		char line[160];
		size_t len = 0;
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			len += snprintf(line + len, sizeof(line) - len, " %s %lu", names[i],
					node_numa_event_state(nid, (enum numa_stat_item)i));
		pr_info("node%d numastat:%s\n", nid, line);
	}
}

void show_free_areas(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		pr_info("Node %d: MemTotal %lu kB, MemFree %lu kB, managed %lu kB, "
			"watermarks min %lu low %lu high %lu pages, spans pfn %#lx-%#lx%s\n",
			nid, pgdat->node_present_pages * (PAGE_SIZE / 1024),
			node_free_pages(nid) * (PAGE_SIZE / 1024), pgdat->managed_pages * (PAGE_SIZE / 1024),
			pgdat->watermark[WMARK_MIN], pgdat->watermark[WMARK_LOW], pgdat->watermark[WMARK_HIGH],
			pgdat->node_start_pfn, pgdat->node_start_pfn + pgdat->node_spanned_pages,
			pgdat->node_present_pages ? "" : " (memoryless)");
	}
}

/* Linux's nodemask=%*pbl: "(null)" for no mask, else the nodes, "0,2". */
void nodemask_string(const nodemask_t *nodemask, char *buf, size_t size)
{
	size_t len = 0;
	int nid;
	if (!nodemask) {
		snprintf(buf, size, "(null)");
		return;
	}
	buf[0] = 0;
	for_each_node_mask(nid, *nodemask)
		len += snprintf(buf + len, len < size ? size - len : 0, "%s%d", len ? "," : "", nid);
}

/* Linux's warn_alloc() is rate-limited by nopage_rs (DEFAULT_RATELIMIT_
 * INTERVAL, DEFAULT_RATELIMIT_BURST): a process that exhausts memory made
 * 24,418 such lines in one boot (a hostile-firmware case). The refused ones are reported
 * as "warn_alloc: N callbacks suppressed" when the next interval begins. */
DEFINE_RATELIMIT_STATE(nopage_rs, DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);

void warn_alloc(gfp_t gfp, unsigned int order, int nid, const nodemask_t *nodemask)
{
	char mode[160], line[300], nodes[3 * MAX_NUMNODES + 8];
	size_t len = 0;

	if ((gfp & __GFP_NOWARN) || !__ratelimit(&nopage_rs))
		return;

	gfp_flags_string(gfp, mode, sizeof(mode));
	nodemask_string(nodemask, nodes, sizeof(nodes));
	line[0] = 0;
	for (int n = 0; n < MAX_NUMNODES; n++)
		if (node_data[n] && node_data[n]->managed_pages)
			len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					" node%d:%lu", n, node_free_pages(n));
	pr_warn("page allocation failure: order:%u, mode:%#x(%s), nid:%d, nodemask=%s, free pages:%s\n",
		order, gfp, mode, nid, nodes, line);
}

const char *gfp_flags_string(gfp_t gfp, char *buf, size_t size)
{
	static const struct { gfp_t mask; const char *name; } combos[] = {
		{ GFP_HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE" }, { GFP_USER, "GFP_USER" },
		{ GFP_KERNEL, "GFP_KERNEL" }, { GFP_ATOMIC, "GFP_ATOMIC" }, { GFP_NOFS, "GFP_NOFS" },
		{ GFP_NOIO, "GFP_NOIO" }, { GFP_NOWAIT, "GFP_NOWAIT" },
	};
	static const struct { gfp_t bit; const char *name; } bits[] = {
		{ __GFP_HIGHMEM, "__GFP_HIGHMEM" }, { __GFP_MOVABLE, "__GFP_MOVABLE" }, { __GFP_RECLAIMABLE, "__GFP_RECLAIMABLE" },
		{ __GFP_HIGH, "__GFP_HIGH" }, { __GFP_IO, "__GFP_IO" }, { __GFP_FS, "__GFP_FS" },
		{ __GFP_ZERO, "__GFP_ZERO" }, { __GFP_ATOMIC, "__GFP_ATOMIC" },
		{ __GFP_DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM" },
		{ __GFP_KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM" }, { __GFP_NOWARN, "__GFP_NOWARN" },
		{ __GFP_RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL" }, { __GFP_NOFAIL, "__GFP_NOFAIL" },
		{ __GFP_NORETRY, "__GFP_NORETRY" }, { __GFP_COMP, "__GFP_COMP" },
		{ __GFP_NOMEMALLOC, "__GFP_NOMEMALLOC" }, { __GFP_HARDWALL, "__GFP_HARDWALL" },
		{ __GFP_THISNODE, "__GFP_THISNODE" }, { __GFP_ACCOUNT, "__GFP_ACCOUNT" },
		{ __GFP_UNTOUCHED, "__GFP_UNTOUCHED" },
	};
	size_t len = 0;
	gfp_t rest = gfp;
	buf[0] = 0;
	/* The first (largest) composite that is fully present names the base. */
	for (size_t i = 0; i < ARRAY_SIZE(combos); i++) {
		if ((gfp & combos[i].mask) == combos[i].mask) {
			len += snprintf(buf + len, len < size ? size - len : 0, "%s", combos[i].name);
			rest &= ~combos[i].mask;
			break;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		if (rest & bits[i].bit)
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? "|" : "",
					bits[i].name);
	if (!len)
		snprintf(buf, size, "none");
	return buf;
}
