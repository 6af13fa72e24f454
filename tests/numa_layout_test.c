/* Memory lands on the node asked for, whatever the layout the SRAT gives
 * (interleaved ranges, node spans that overlap, boundaries off any page,
 * nodes of less than a page): the page allocator at every order a node can
 * serve (order 0 through the per-CPU lists), the free lists, hugetlb's
 * pools, kmalloc_node and vmalloc_node.
 *
 * The expectation comes from the SRAT as the firmware gave it, walked here
 * again (not from the kernel's model of it, nor from the hostile class that
 * built it): a block handed out for node n must lie wholly in RAM that the
 * SRAT's enabled Memory Affinity entries give n's proximity domain. Without
 * an accepted SRAT (one node), the memory map's RAM is node 0's. The
 * hostile layout classes (tools/hostile/) boot this suite alone; the
 * matrix runs it as any other, cheaply. */
#include "drivers/acpi/tables.h"
#include "drivers/firmware/memmap.h"
#include "lib/string.h"
#include "mm/hugetlb.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "mm/page_alloc_internal.h"
#include "mm/slab.h"
#include "mm/vmalloc.h"
#include "tests/kunit.h"

/* The SRAT's memory entries, as the firmware wrote them. */
#define MAX_SRAT_RANGES 512
static struct {
	u32 pxm;
	u64 start, end;
} srat_ranges[MAX_SRAT_RANGES];
static unsigned nr_srat_ranges;
static bool srat_overflow;

static int collect_memory_affinity(const struct acpi_subtable_header *header, void *arg,
				   const unsigned long end)
{
	const struct acpi_srat_mem_affinity *e = (const void *)header;
	(void)arg;
	(void)end;
	if (header->length < sizeof(*e) || !(e->flags & ACPI_SRAT_MEM_ENABLED) ||
	    (e->flags & ACPI_SRAT_MEM_HOT_PLUGGABLE) || !e->length ||
	    e->base_address + e->length < e->base_address)
		return 0;
	if (nr_srat_ranges == MAX_SRAT_RANGES) {
		srat_overflow = true;
		return 0;
	}
	srat_ranges[nr_srat_ranges++] = (typeof(srat_ranges[0])){ e->proximity_domain, e->base_address,
								  e->base_address + e->length };
	return 0;
}

/* Reads the SRAT again; false when the kernel runs without one (no SRAT,
 * or one it refused: one node holds all RAM). */
static bool read_srat(struct kunit *test)
{
	nr_srat_ranges = 0;
	srat_overflow = false;
	const struct acpi_table_header *srat = acpi_get_table(&acpi_tables, "SRAT");
	if (!srat || !numa_topology.have_srat)
		return false;
	struct acpi_subtable_proc proc[] = {
		{ .id = ACPI_SRAT_MEMORY_AFFINITY, .handler = collect_memory_affinity },
	};
	acpi_parse_entries_array("SRAT:", sizeof(struct acpi_table_srat), srat, proc, 1, 0);
	KUNIT_EXPECT_FALSE(test, srat_overflow);
	return true;
}

static bool have_srat;

/* Whether the SRAT (or, without one, the memory map) gives node nid RAM at
 * pa: the entry of nid's domain that holds pa, its end in *end. */
static bool srat_gives(int nid, u64 pa, u64 *end)
{
	if (!have_srat) {
		for (unsigned i = 0; i < boot_memmap.nr; i++) {
			const struct memmap_entry *m = &boot_memmap.entries[i];
			if (m->type == MEMMAP_RAM && m->start <= pa && pa < m->end) {
				*end = m->end;
				return nid == 0;
			}
		}
		return false;
	}
	for (unsigned i = 0; i < nr_srat_ranges; i++)
		if (srat_ranges[i].pxm == numa_topology.nodes[nid].pxm && srat_ranges[i].start <= pa &&
		    pa < srat_ranges[i].end) {
			*end = srat_ranges[i].end;
			return true;
		}
	return false;
}

/* [pa, pa + len) lies wholly in RAM of the memory map that the SRAT gives
 * nid (adjacent entries of one domain may share a block). */
static bool in_srat_node(int nid, u64 pa, u64 len)
{
	u64 cur = pa, end;
	while (cur < pa + len) {
		if (!srat_gives(nid, cur, &end))
			return false;
		cur = end;
	}
	return memmap_ram_within(&boot_memmap, pa, pa + len) == len;
}

static bool node_has_managed_pages(int nid) { return node_data[nid] && node_data[nid]->managed_pages; }

static void init_layout(struct kunit *test)
{
	have_srat = read_srat(test);
}

/* At most this many blocks of each order per node (order 0: more than a
 * per-CPU batch, so that a refill from the buddy lists is among them). */
#define BLOCKS_PER_ORDER 4
#define ORDER0_PAGES (PCP_BATCH + 9)

static void every_order_lands_in_the_nodes_srat_ranges(struct kunit *test)
{
	static struct page *held[ORDER0_PAGES];
	init_layout(test);
	unsigned tested = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_managed_pages(nid))
			continue;
		for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
			/* What it can serve: a free block that large. */
			if (order && !(node_data[nid]->free_mask >> order))
				continue;
			unsigned n = 0, want = order ? BLOCKS_PER_ORDER : ORDER0_PAGES;
			gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN | __GFP_NORETRY | __GFP_UNTOUCHED;
			while (n < want) {
				struct page *p = order ? alloc_pages_node(nid, gfp, order)
						       : alloc_pages_node(nid, gfp, 0);
				if (!p)
					break;
				held[n++] = p;
				KUNIT_EXPECT_EQ(test, page_to_nid(p), nid);
				bool in = in_srat_node(nid, page_to_phys(p), PAGE_SIZE << order);
				KUNIT_EXPECT_TRUE(test, in);
				if (!in)
					kunit_info(test, "node %d order %u: [%#llx-%#llx) is not its memory", nid,
						   order, (unsigned long long)page_to_phys(p),
						   (unsigned long long)(page_to_phys(p) + (PAGE_SIZE << order)));
				KUNIT_EXPECT_EQ(test, page_to_pfn(p) & ((1ul << order) - 1), 0);
			}
			KUNIT_EXPECT_GT(test, n, 0);
			while (n)
				__free_pages(held[--n], order);
			tested++;
		}
	}
	KUNIT_EXPECT_GT(test, tested, 0);
}

/* Every free block of a node is its memory, aligned to its order, and not
 * a missed merge (its buddy is no free block of the same order on the
 * node); the counts agree with the lists. */
/* Free buddies of pageblock size or more stay apart when their blocks'
 * types may not merge (a highatomic or isolated block beside another). */
static bool pageblocks_keep_apart(const pg_data_t *pgdat, unsigned long pfn, unsigned long buddy, unsigned order)
{
	if (order < pageblock_order)
		return false;
	int a = get_pfnblock_migratetype(pgdat, pfn), b = get_pfnblock_migratetype(pgdat, buddy);
	return a != b && (a >= MIGRATE_PCPTYPES || b >= MIGRATE_PCPTYPES);
}

static void free_lists_hold_only_the_nodes_memory(struct kunit *test)
{
	init_layout(test);
	drain_all_pages();
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		unsigned long flags, pages = 0, wrong = 0, unmerged = 0;
		spin_lock_irqsave(&pgdat->lock, flags);
		for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
			struct page *p;
			for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			list_for_each_entry(p, &pgdat->free_area[order].free_list[mt], lru) {
				unsigned long pfn = page_to_pfn(p);
				pages += 1ul << order;
				if (page_to_nid(p) != nid || (pfn & ((1ul << order) - 1)) ||
				    !in_srat_node(nid, (u64)pfn << PAGE_SHIFT, PAGE_SIZE << order))
					wrong++;
				unsigned long buddy = pfn ^ (1ul << order);
				if (order < MAX_PAGE_ORDER && pfn_valid(buddy) &&
				    PageBuddy(pfn_to_page(buddy)) && pfn_to_page(buddy)->private == order &&
				    page_to_nid(pfn_to_page(buddy)) == nid && !pageblocks_keep_apart(pgdat, pfn, buddy, order))
					unmerged++;
			}
		}
		unsigned long nr_free = pgdat->nr_free;
		spin_unlock_irqrestore(&pgdat->lock, flags);
		KUNIT_EXPECT_EQ(test, wrong, 0);
		KUNIT_EXPECT_EQ(test, unmerged, 0);
		KUNIT_EXPECT_EQ(test, pages, nr_free);
	}
}

/* A node's counts are its SRAT ranges': present pages are the whole pages
 * of RAM the SRAT gives it (a page split between two nodes is neither's,
 * as in Linux), managed ones no more. */
static void node_pages_agree_with_the_srat(struct kunit *test)
{
	init_layout(test);
	if (!have_srat)
		kunit_skip(test, "no SRAT: one node");
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		unsigned long whole = 0;
		for (unsigned i = 0; i < numa_topology.nr_memblks; i++) {
			const struct numa_memblk *b = &numa_topology.memblks[i];
			u64 s = ALIGN_UP(b->start, PAGE_SIZE), e = ALIGN_DOWN(b->end, PAGE_SIZE);
			if (b->nid != nid || s >= e)
				continue;
			KUNIT_EXPECT_TRUE(test, in_srat_node(nid, s, e - s));
			whole += (e - s) >> PAGE_SHIFT;
		}
		unsigned long present = node_data[nid] ? node_data[nid]->node_present_pages : 0;
		KUNIT_EXPECT_EQ(test, present, whole);
		KUNIT_EXPECT_LE(test, node_data[nid] ? node_data[nid]->managed_pages : 0, present);
		KUNIT_EXPECT_EQ(test, node_has_memory(nid), whole != 0);
	}
}

/* A huge page of a node's pool (a gigantic one too, where a free 1 GiB
 * block exists) is that node's memory, all of it. */
static void hugetlb_pages_are_one_nodes_memory(struct kunit *test)
{
	init_layout(test);
	unsigned tested = 0;
	for (int i = 0; i < HUGE_MAX_HSTATE; i++) {
		struct hstate *h = &hstates[i];
		if (!h->supported)
			continue;
		for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
			if (!node_has_managed_pages(nid) || !(node_data[nid]->free_mask >> h->order) ||
			    h->nr_huge_pages_node[nid])
				continue;
			KUNIT_EXPECT_GE(test, set_max_huge_pages(h, 1, nid), 0l);
			if (h->nr_huge_pages_node[nid] == 1) {
				struct page *p = list_first_entry(&h->hugepage_freelists[nid], struct page, lru);
				KUNIT_EXPECT_EQ(test, page_to_nid(p), nid);
				KUNIT_EXPECT_TRUE(test, in_srat_node(nid, page_to_phys(p), PAGE_SIZE << h->order));
				tested++;
			} else {
				kunit_info(test, "node %d gave no page of order %u (watermarks)", nid, h->order);
			}
			KUNIT_EXPECT_GE(test, set_max_huge_pages(h, 0, nid), 0l);
			KUNIT_EXPECT_EQ(test, h->nr_huge_pages_node[nid], 0ul);
		}
	}
	if (!tested)
		kunit_info(test, "no node had a free huge-page block");
}

#define SLAB_OBJECTS 64

/* kmalloc_node's objects (slab sizes and a large kmalloc) and
 * vmalloc_node's pages come from the node asked for. */
static void kmalloc_and_vmalloc_place_on_the_node(struct kunit *test)
{
	static void *objs[SLAB_OBJECTS];
	static const size_t sizes[] = { 8, 64, 192, 512, 4096, KiB(64) };
	init_layout(test);
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_managed_pages(nid))
			continue;
		/* A node of a few MiB in pieces may have no block of a slab's
		 * order, nor room for 64 objects of 64 KiB: then, as in
		 * Linux, the slab comes from another node. What never
		 * changes: an object is the memory of the node its page says. */
		bool roomy = node_free_pages(nid) >= 4096 && (node_data[nid]->free_mask >> 4);
		for (unsigned s = 0; s < ARRAY_SIZE(sizes); s++) {
			unsigned wrong = 0;
			for (int k = 0; k < SLAB_OBJECTS; k++) {
				objs[k] = kmalloc_node(sizes[s], GFP_KERNEL, nid);
				KUNIT_ASSERT_NOT_NULL(test, objs[k]);
				int on = page_to_nid(virt_to_page(objs[k]));
				if ((roomy && on != nid) || !in_srat_node(on, __pa(objs[k]), sizes[s]))
					wrong++;
			}
			KUNIT_EXPECT_EQ(test, wrong, 0);
			for (int k = 0; k < SLAB_OBJECTS; k++)
				kfree(objs[k]);
		}
		if (node_free_pages(nid) < 64)
			continue;
		void *v = vmalloc_node(16 * PAGE_SIZE, nid);
		KUNIT_ASSERT_NOT_NULL(test, v);
		unsigned wrong = 0;
		for (unsigned i = 0; i < 16; i++)
			if (!in_srat_node(nid, page_to_phys(vmalloc_to_page((u8 *)v + i * PAGE_SIZE)), PAGE_SIZE))
				wrong++;
		KUNIT_EXPECT_EQ(test, wrong, 0);
		vfree(v);
		vm_unmap_aliases(); /* the lazily freed area too, for free_pages_restored */
	}
}

/* A node the allocator has no page of (less than a page of RAM, or all of
 * it kept) is in no fallback list; its own requests go to the nearest node
 * that has pages, by SLIT distance. */
static void a_node_without_pages_falls_back_by_distance(struct kunit *test)
{
	unsigned tested = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_data[nid] || node_has_managed_pages(nid))
			continue;
		int best = -1;
		for (int n = 0; n < (int)num_online_nodes(); n++)
			if (node_has_managed_pages(n) &&
			    (best < 0 || node_distance(nid, n) < node_distance(nid, best)))
				best = n;
		if (best < 0)
			continue;
		struct page *p = alloc_pages_node(nid, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, node_distance(nid, page_to_nid(p)), node_distance(nid, best));
		__free_pages(p, 0);
		KUNIT_EXPECT_NULL(test, alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0));
		tested++;
	}
	if (!tested)
		kunit_skip(test, "every node has pages");
}

static struct kunit_case numa_layout_cases[] = {
	KUNIT_CASE(every_order_lands_in_the_nodes_srat_ranges),
	KUNIT_CASE(free_lists_hold_only_the_nodes_memory),
	KUNIT_CASE(node_pages_agree_with_the_srat),
	KUNIT_CASE(hugetlb_pages_are_one_nodes_memory),
	KUNIT_CASE(kmalloc_and_vmalloc_place_on_the_node),
	KUNIT_CASE(a_node_without_pages_falls_back_by_distance),
	{}
};
static struct kunit_suite numa_layout_suite = { .name = "numa_layout", .test_cases = numa_layout_cases };
kunit_test_suite(numa_layout_suite);
