/* Setting the page allocator up: a node's pg_data_t, the fallback lists
 * built from the SLIT distances, the boot memory given to the buddy lists,
 * and the watermarks (the order is in page_alloc.h).
 *
 * Invariants it establishes: a node's fallback list holds every node with
 * memory exactly once, nearest first (ties by node id), so fallback[0] is
 * the node itself when it has memory; boot memory enters the buddy lists
 * as the largest aligned blocks, each counted in managed_pages; and for
 * every node min <= low <= high, min being the node's share of
 * min_free_kbytes in proportion to its managed pages. */
#include "mm/page_alloc_internal.h"

void page_alloc_init_node(pg_data_t *pgdat, int nid, unsigned long start_pfn, unsigned long end_pfn)
{
	memset(pgdat, 0, sizeof(*pgdat));
	pgdat->node_id = nid;
	spin_lock_init(&pgdat->lock);
	for (int o = 0; o < NR_PAGE_ORDERS; o++)
		INIT_LIST_HEAD(&pgdat->free_area[o].free_list);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		INIT_LIST_HEAD(&pgdat->pcp[cpu].list);
		pgdat->pcp[cpu].batch = PCP_BATCH;
		pgdat->pcp[cpu].high = PCP_HIGH;
	}
	pgdat->node_start_pfn = start_pfn;
	pgdat->node_spanned_pages = end_pfn > start_pfn ? end_pfn - start_pfn : 0;
	node_data[nid] = pgdat;
}

/* Nodes with memory, by distance from nid, then by node id. */
static void build_fallback_list(pg_data_t *pgdat)
{
	int nid = pgdat->node_id, n = 0;
	for (int other = 0; other < MAX_NUMNODES; other++)
		if (node_data[other] && node_data[other]->node_present_pages)
			pgdat->fallback[n++] = other;
	for (int i = 1; i < n; i++) {
		int x = pgdat->fallback[i], j = i;
		while (j > 0 && node_distance(nid, pgdat->fallback[j - 1]) > node_distance(nid, x)) {
			pgdat->fallback[j] = pgdat->fallback[j - 1];
			j--;
		}
		pgdat->fallback[j] = x;
	}
	pgdat->nr_fallback = n;
}

void build_all_fallback_lists(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			build_fallback_list(node_data[nid]);
}

void free_boot_range(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long pfn = start_pfn;
	while (pfn < end_pfn) {
		unsigned int order = pfn ? (unsigned int)__builtin_ctzl(pfn) : MAX_PAGE_ORDER;
		if (order > MAX_PAGE_ORDER)
			order = MAX_PAGE_ORDER;
		while ((1ul << order) > end_pfn - pfn)
			order--;
		struct page *page = pfn_to_page(pfn);
		pg_data_t *pgdat = node_data[page_to_nid(page)];
		for (unsigned long i = 0; i < (1ul << order); i++) {
			page[i].flags &= ~PAGE_FLAGS_MASK;
			page[i]._refcount = 0;
		}
		/* As every later free does: the first allocation checks it. */
		if (unlikely(page_poisoning))
			memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
		spin_lock(&pgdat->lock);
		free_one_page(page, pfn, pgdat, order);
		pgdat->managed_pages += 1ul << order;
		spin_unlock(&pgdat->lock);
		pfn += 1ul << order;
	}
}

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0;
	for (unsigned long bit = 1ul << 62; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/* As Linux: min_free_kbytes = sqrt(16 * lowmem_kbytes), clamped to
 * [128 KiB, 256 MiB], shared between nodes by size; low and high sit a
 * quarter and a half of min above it. */
void setup_watermarks(void)
{
	unsigned long managed = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			managed += node_data[nid]->managed_pages;
	unsigned long min_kbytes = int_sqrt(managed * (PAGE_SIZE / 1024) * 16);
	min_kbytes = min_kbytes < 128 ? 128 : min_kbytes > 262144 ? 262144 : min_kbytes;
	unsigned long min_pages = min_kbytes / (PAGE_SIZE / 1024);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		unsigned long m = managed ? min_pages * pgdat->managed_pages / managed : 0;
		pgdat->watermark[WMARK_MIN] = m;
		pgdat->watermark[WMARK_LOW] = m + m / 4;
		pgdat->watermark[WMARK_HIGH] = m + m / 2;
	}
}
