/* Setting the page allocator up, from memblock and the NUMA topology: a
 * node's pg_data_t (free_area_init), the fallback lists built from the
 * SLIT distances, the boot memory given to the buddy lists
 * (memblock_free_all), and the watermarks (the order is in page_alloc.h).
 * Portable: the host tests boot through these same functions.
 *
 * Invariants it establishes: a node's fallback list holds every node with
 * memory exactly once, nearest first (ties by node id), so fallback[0] is
 * the node itself when it has memory; boot memory enters the buddy lists
 * as the largest aligned blocks, each counted in managed_pages; and for
 * every node min <= low <= high, min being the node's share of
 * min_free_kbytes in proportion to its managed pages.
 *
 * Present or managed pages, for each use (hostile firmware: a node of one page, or
 * of 640 KiB the firmware keeps, has present pages and no managed ones):
 *  - "the node has memory" for users (/proc, /sys, the SRAT report): present,
 *    as Linux's N_MEMORY;
 *  - the fallback lists: managed, once memblock_free_all() has counted them
 *    (before it, present: nothing is allocated from the buddy lists yet).
 *    Linux builds zonelists from populated (present) zones, because memory
 *    hotplug and balloons can give a zone managed pages later
 *    (build_zonerefs_node, commit e553f62f10d9); mmlab has neither, so a
 *    node with no managed page could never give one: listed, it would be
 *    the first choice of its own CPUs and of its neighbours, failing each
 *    time (a NUMA miss charged to it, and __GFP_THISNODE or a one-node mask
 *    retrying for nothing). Left out, its CPUs use the nearest node that
 *    has pages, as a memoryless node's do;
 *  - watermarks, /proc/meminfo's MemTotal and the tests' counts: managed, as
 *    Linux's __setup_per_zone_wmarks (zone_managed_pages). A small node gets
 *    a small share of min_free_kbytes: usable to its last pages, never
 *    kept out by a watermark sized for the whole machine. */
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "mm/memblock.h"
#include "mm/page_alloc_internal.h"

void page_alloc_init_node(pg_data_t *pgdat, int nid, unsigned long start_pfn, unsigned long end_pfn)
{
	/* The pageblock flags are the placer's (free_area_init, or a test's
	 * arena): a byte per pageblock of the span. */
	u8 *pageblock_flags = pgdat->pageblock_flags;
	memset(pgdat, 0, sizeof(*pgdat));
	pgdat->pageblock_flags = pageblock_flags;
	pgdat->node_id = nid;
	spin_lock_init(&pgdat->lock);
	for (int o = 0; o < NR_PAGE_ORDERS; o++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			INIT_LIST_HEAD(&pgdat->free_area[o].free_list[mt]);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		for (int i = 0; i < NR_PCP_LISTS; i++)
			INIT_LIST_HEAD(&pgdat->pcp[cpu].lists[i]);
		pgdat->pcp[cpu].batch = PCP_BATCH;
		pgdat->pcp[cpu].high = PCP_HIGH;
	}
	spin_lock_init(&pgdat->__lruvec.lru_lock);
	for (int lru = 0; lru < NR_LRU_LISTS; lru++)
		INIT_LIST_HEAD(&pgdat->__lruvec.lists[lru]);
	pgdat->node_start_pfn = start_pfn;
	pgdat->node_spanned_pages = end_pfn > start_pfn ? end_pfn - start_pfn : 0;
	node_data[nid] = pgdat;
}

void init_struct_pages(unsigned long start_pfn, unsigned long end_pfn, int nid)
{
	for (unsigned long pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *p = pfn_to_page(pfn);
		memset(p, 0, sizeof(*p));
		p->flags = 1ul << PG_reserved;
		set_page_node(p, nid);
		p->_refcount = 1;
		p->_mapcount = -1;
	}
}

/* Now the real node of every RAM pfn (a section may hold two nodes). */
void memmap_init(void)
{
	for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		unsigned long spfn = r->base >> PAGE_SHIFT, epfn = (r->base + r->size) >> PAGE_SHIFT;
		for (unsigned long pfn = spfn; pfn < epfn; pfn++)
			set_page_node(pfn_to_page(pfn), r->nid);
	}
}

unsigned long pageblock_flags_size(unsigned long start_pfn, unsigned long end_pfn)
{
	if (end_pfn <= start_pfn)
		return 1;
	return ((end_pfn - 1) >> pageblock_order) - (start_pfn >> pageblock_order) + 1;
}

/* As Linux's memmap_init_range: every pageblock that starts on a RAM pfn
 * of the node is MIGRATE_MOVABLE at boot (the others stay 0,
 * MIGRATE_UNMOVABLE); the first allocations of the other types take
 * blocks from it (__rmqueue_fallback). */
static void init_pageblock_migratetypes(pg_data_t *pgdat)
{
	for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		if (r->nid != pgdat->node_id)
			continue;
		unsigned long spfn = r->base >> PAGE_SHIFT, epfn = (r->base + r->size) >> PAGE_SHIFT;
		for (unsigned long pfn = ALIGN_UP(spfn, pageblock_nr_pages); pfn < epfn; pfn += pageblock_nr_pages)
			*pfnblock_flags(pgdat, pfn) = MIGRATE_MOVABLE;
	}
}

/* As Linux's free_area_init: every node of the topology gets its
 * pg_data_t, spanning its memblock RAM; then the fallback lists. */
void free_area_init(void)
{
	for (unsigned nid = 0; nid < numa_topology.nr_nodes; nid++) {
		unsigned long start = ~0ul, end = 0, present = 0;
		for (unsigned i = 0; i < memblock.memory.cnt; i++) {
			const struct memblock_region *r = &memblock.memory.regions[i];
			if (r->nid != (int)nid)
				continue;
			start = min(start, r->base >> PAGE_SHIFT);
			end = max(end, (r->base + r->size) >> PAGE_SHIFT);
			present += r->size >> PAGE_SHIFT;
		}
		if (!present)
			start = end = 0;
		/* On its own node when it has memory; a memoryless node's data
		 * lives on whatever memblock finds (the nearest would be better,
		 * but any node works). One placed beforehand (as Linux's arch
		 * code places NODE_DATA; the host tests put it outside the
		 * nodes) is used where it is. */
		pg_data_t *pgdat = node_data[nid];
		unsigned long flags_size = pageblock_flags_size(start, end);
		if (!pgdat) {
			/* With its pageblock flags behind it (Linux's usemap,
			 * setup_usemap): one allocation, so that a node too
			 * small for its pg_data_t loses no page to the flags. */
			pgdat = memblock_alloc_node(sizeof(pg_data_t) + flags_size, 64,
						    present ? (int)nid : NUMA_NO_NODE);
			if (!pgdat)
				panic("mm: no memory for node %u's pg_data_t", nid);
			pgdat->pageblock_flags = (u8 *)(pgdat + 1);
		} else if (!pgdat->pageblock_flags) {
			pgdat->pageblock_flags = memblock_alloc_node(flags_size, 8, NUMA_NO_NODE);
			if (!pgdat->pageblock_flags)
				panic("mm: no memory for node %u's pageblock flags", nid);
		}
		memset(pgdat->pageblock_flags, 0, flags_size);
		page_alloc_init_node(pgdat, (int)nid, start, end);
		pgdat->node_present_pages = present;
		init_pageblock_migratetypes(pgdat);
	}
	build_all_fallback_lists();
}

static void free_range_to_buddy(phys_addr_t start, phys_addr_t end, int nid, void *arg)
{
	(void)nid;
	(void)arg;
	unsigned long spfn = (start + PAGE_SIZE - 1) >> PAGE_SHIFT, epfn = end >> PAGE_SHIFT;
	if (spfn < epfn)
		free_boot_range(spfn, epfn);
}

/* Whether the fallback lists count managed pages (see the top of the
 * file): from memblock_free_all() on. */
static bool fallback_by_managed;

/* As Linux's memblock_free_all: what memblock did not reserve goes to the
 * buddy allocator, and memblock is frozen (what it reserved stays
 * reserved, as the struct pages say). Then the fallback lists again, now
 * that each node's managed pages are known. */
void memblock_free_all(void)
{
	memblock_for_each_free_range(free_range_to_buddy, NULL);
	memblock.frozen = true;
	fallback_by_managed = true;
	build_all_fallback_lists();
}

static bool node_can_give_pages(const pg_data_t *pgdat)
{
	return fallback_by_managed ? pgdat->managed_pages != 0 : pgdat->node_present_pages != 0;
}

/* Nodes with memory, by distance from nid, then by node id. */
static void build_fallback_list(pg_data_t *pgdat)
{
	int nid = pgdat->node_id, n = 0;
	for (int other = 0; other < MAX_NUMNODES; other++)
		if (node_data[other] && node_can_give_pages(node_data[other]))
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
		free_one_page_pfnblock(page, pfn, pgdat, order);
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

/* A node whose managed pages cannot even hold its own struct pages (the
 * firmware or the kernel keeps the rest) is named, with what the
 * allocator makes of it (the top of the file). */
static void report_tiny_node(const pg_data_t *pgdat)
{
	unsigned long present = pgdat->node_present_pages, managed = pgdat->managed_pages;
	if (!present || managed * PAGE_SIZE >= present * sizeof(struct page))
		return;
	pr_warn("NUMA: node %d has %lu KiB of RAM, %lu KiB managed: too small for its own struct "
		"pages (%lu bytes); %s\n",
		pgdat->node_id, present * (PAGE_SIZE / 1024), managed * (PAGE_SIZE / 1024),
		present * (unsigned long)sizeof(struct page),
		managed ? "in the fallback lists for its managed pages, watermarks in proportion"
			: "left out of the fallback lists (its CPUs allocate from the nearest node)");
}

/* Linux 6.1's watermarks (mm/page_alloc.c): min_free_kbytes, from
 * calculate_min_free_kbytes (4 * sqrt(lowmem_kbytes), clamped to
 * [128 KiB, 256 MiB]) unless written through /proc/sys/vm/min_free_kbytes,
 * is shared between the nodes by managed pages: a node's min. Low and high
 * sit one step above min and above each other, the step the larger of a
 * quarter of min and watermark_scale_factor / 10000 of the node's managed
 * pages (__setup_per_zone_wmarks). Linux 6.1 has a fourth, WMARK_PROMO,
 * for memory tiering, which mmlab does not have. */
int min_free_kbytes = 1024;
static int user_min_free_kbytes = -1;
int watermark_scale_factor = 10;

static unsigned long total_managed_pages(void)
{
	unsigned long managed = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			managed += node_data[nid]->managed_pages;
	return managed;
}

/* Linux's calculate_min_free_kbytes: lowmem_kbytes is nr_free_buffer_pages
 * (managed pages less the high watermarks: at boot, with none set yet,
 * the managed pages; mmlab has no highmem). A value the user wrote that
 * is larger stays. */
static void calculate_min_free_kbytes(void)
{
	unsigned long lowmem_kbytes = total_managed_pages() * (PAGE_SIZE / 1024);
	unsigned long new_min = int_sqrt(lowmem_kbytes * 16);
	if (user_min_free_kbytes >= 0 && new_min <= (unsigned long)user_min_free_kbytes)
		return;
	if (user_min_free_kbytes >= 0)
		pr_warn("min_free_kbytes is not updated to %lu because user defined value %d is preferred\n",
			new_min, user_min_free_kbytes);
	min_free_kbytes = (int)(new_min < 128 ? 128 : new_min > 262144 ? 262144 : new_min);
}

/* Linux's __setup_per_zone_wmarks. */
static void setup_per_zone_wmarks(void)
{
	unsigned long pages_min = (unsigned long)min_free_kbytes >> (PAGE_SHIFT - 10);
	unsigned long lowmem_pages = total_managed_pages();
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		unsigned long managed = pgdat->managed_pages;
		unsigned long min = lowmem_pages ? pages_min * managed / lowmem_pages : 0;
		unsigned long scaled = managed * (unsigned long)watermark_scale_factor / 10000;
		unsigned long step = min >> 2 > scaled ? min >> 2 : scaled;
		spin_lock(&pgdat->lock);
		pgdat->watermark[WMARK_MIN] = min;
		pgdat->watermark[WMARK_LOW] = min + step;
		pgdat->watermark[WMARK_HIGH] = min + 2 * step;
		spin_unlock(&pgdat->lock);
	}
}

void setup_watermarks(void)
{
	calculate_min_free_kbytes();
	setup_per_zone_wmarks();
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			report_tiny_node(node_data[nid]);
}

/* The writes of /proc/sys/vm/min_free_kbytes and watermark_scale_factor
 * (Linux's min_free_kbytes_sysctl_handler and
 * watermark_scale_factor_sysctl_handler): the value, then the
 * watermarks again. */
int min_free_kbytes_write(int kbytes)
{
	if (kbytes < 0)
		return -EINVAL;
	min_free_kbytes = user_min_free_kbytes = kbytes;
	setup_per_zone_wmarks();
	return 0;
}

int watermark_scale_factor_write(int factor)
{
	if (factor < 1 || factor > 3000)
		return -EINVAL;
	watermark_scale_factor = factor;
	setup_per_zone_wmarks();
	return 0;
}
