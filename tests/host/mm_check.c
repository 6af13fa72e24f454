/* Buddy allocator consistency checks for host tests (see mm_check.h). The
 * bitmaps are worked a 64-bit word at a time, so a check after every step
 * of a long random run stays cheap even under AddressSanitizer. */
#include "tests/host/mm_check.h"
#include "tests/host/shim.h"

#include <stdlib.h>
#include <string.h>

/* Sets bits [start, start + n); returns true if any was already set. */
static bool range_set(u64 *bm, unsigned long start, unsigned long n)
{
	bool overlap = false;
	while (n) {
		unsigned long w = start / 64, b = start % 64;
		unsigned long k = min(n, 64 - b);
		u64 mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b;
		overlap |= (bm[w] & mask) != 0;
		bm[w] |= mask;
		start += k;
		n -= k;
	}
	return overlap;
}

static void range_clear(u64 *bm, unsigned long start, unsigned long n)
{
	while (n) {
		unsigned long w = start / 64, b = start % 64;
		unsigned long k = min(n, 64 - b);
		u64 mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b;
		bm[w] &= ~mask;
		start += k;
		n -= k;
	}
}

static bool range_any(const u64 *bm, unsigned long start, unsigned long n)
{
	while (n) {
		unsigned long w = start / 64, b = start % 64;
		unsigned long k = min(n, 64 - b);
		u64 mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << b;
		if (bm[w] & mask)
			return true;
		start += k;
		n -= k;
	}
	return false;
}

void mm_shadow_init(struct mm_shadow *s)
{
	s->nr_pfns = host_vmemmap_pages;
	size_t words = (s->nr_pfns + 63) / 64;
	s->live = calloc(words, sizeof(u64));
	s->free = calloc(words, sizeof(u64));
	s->live_pages = 0;
}

void mm_shadow_destroy(struct mm_shadow *s)
{
	free(s->live);
	free(s->free);
	s->live = s->free = NULL;
}

bool mm_shadow_alloc(struct ktest *t, struct mm_shadow *s, struct page *page, unsigned order)
{
	unsigned long pfn = page_to_pfn(page), n = 1ul << order;
	if (pfn + n > s->nr_pfns) {
		ktest_fail(t, __FILE__, __LINE__, "allocation at pfn %#lx order %u is outside memory", pfn,
			   order);
		return false;
	}
	if (range_set(s->live, pfn, n)) {
		ktest_fail(t, __FILE__, __LINE__,
			   "allocation at pfn %#lx order %u overlaps a live allocation", pfn, order);
		return false;
	}
	s->live_pages += n;
	return true;
}

void mm_shadow_free(struct mm_shadow *s, struct page *page, unsigned order)
{
	range_clear(s->live, page_to_pfn(page), 1ul << order);
	s->live_pages -= 1ul << order;
}

unsigned long mm_total_managed(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			n += node_data[nid]->managed_pages;
	return n;
}

unsigned long mm_total_bad(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			n += node_data[nid]->nr_bad_pages;
	return n;
}

#define CHECK(cond, ...)                                                               \
	do {                                                                           \
		if (!(cond)) {                                                         \
			ktest_fail(t, __FILE__, __LINE__, __VA_ARGS__);                \
			return false;                                                  \
		}                                                                      \
	} while (0)

bool mm_check(struct ktest *t, const struct mm_shadow *s, bool deep)
{
	memset(s->free, 0, (s->nr_pfns + 63) / 64 * sizeof(u64));
	unsigned long free_total = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		CHECK(pgdat->node_id == nid, "node_data[%d]->node_id is %d", nid, pgdat->node_id);
		unsigned long start = pgdat->node_start_pfn, end = start + pgdat->node_spanned_pages;
		unsigned long node_pages = 0;
		for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
			const struct free_area *area = &pgdat->free_area[o];
			unsigned long count = 0;
			struct page *p;
			for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			list_for_each_entry(p, &area->free_list[mt], lru) {
				unsigned long pfn = page_to_pfn(p), n = 1ul << o;
				CHECK(count < s->nr_pfns, "node %d order %u: free list loops", nid, o);
				CHECK(pfn < s->nr_pfns, "node %d order %u: block at pfn %#lx outside memory",
				      nid, o, pfn);
				CHECK(PageBuddy(p), "node %d order %u: block at pfn %#lx is not PG_buddy "
				      "(flags %#lx)", nid, o, pfn, p->flags);
				CHECK(p->private == o, "node %d order %u: block at pfn %#lx has private %lu",
				      nid, o, pfn, p->private);
				CHECK((p->flags & PAGE_FLAGS_MASK) == 1ul << PG_buddy,
				      "node %d order %u: block at pfn %#lx has flags %#lx besides PG_buddy",
				      nid, o, pfn, p->flags & PAGE_FLAGS_MASK);
				CHECK(IS_ALIGNED(pfn, n), "node %d order %u: block at pfn %#lx misaligned",
				      nid, o, pfn);
				CHECK(page_to_nid(p) == nid, "node %d order %u: block at pfn %#lx is on node %d",
				      nid, o, pfn, page_to_nid(p));
				CHECK(pfn >= start && pfn + n <= end,
				      "node %d order %u: block [%#lx, %#lx) outside the node [%#lx, %#lx)",
				      nid, o, pfn, pfn + n, start, end);
				CHECK(!range_any(s->live, pfn, n),
				      "node %d order %u: free block at pfn %#lx holds live pages", nid, o, pfn);
				CHECK(!range_set(s->free, pfn, n),
				      "node %d order %u: free block at pfn %#lx overlaps another free block",
				      nid, o, pfn);
				if (deep)
					for (unsigned long i = 1; i < n; i++)
						CHECK((p[i].flags & PAGE_FLAGS_MASK) == 0 && page_to_nid(&p[i]) == nid,
						      "node %d: tail pfn %#lx of free block %#lx order %u has "
						      "flags %#lx", nid, pfn + i, pfn, o, p[i].flags);
				count++;
				node_pages += n;
			}
			CHECK(count == area->nr_free, "node %d order %u: %lu blocks listed, nr_free %lu", nid,
			      o, count, area->nr_free);
			CHECK(!(pgdat->free_mask >> o & 1) == !count,
			      "node %d order %u: %lu blocks listed, free_mask bit %lu", nid, o, count,
			      pgdat->free_mask >> o & 1);
		}
		CHECK(node_pages == pgdat->nr_free, "node %d: %lu pages on free lists, nr_free %lu", nid,
		      node_pages, pgdat->nr_free);
		unsigned long unmergeable = 0;
		if (pgdat->node_spanned_pages)
			for (unsigned long b = start >> pageblock_order; b <= (end - 1) >> pageblock_order; b++)
				/* highatomic or isolate */
				unmergeable += get_pfnblock_migratetype(pgdat, b << pageblock_order) >= MIGRATE_PCPTYPES;
		CHECK(unmergeable == pgdat->nr_unmergeable_pageblocks,
		      "node %d: %lu pageblocks of an unmergeable type, nr_unmergeable_pageblocks %lu", nid,
		      unmergeable, pgdat->nr_unmergeable_pageblocks);
		for (int cpu = 0; cpu < NR_CPUS; cpu++) {
			const struct per_cpu_pages *pcp = &pgdat->pcp[cpu];
			int count = 0;
			struct page *p;
			for (int i = 0; i < NR_LOWORDER_PCP_LISTS; i++)
			list_for_each_entry(p, &pcp->lists[i], lru) {
				unsigned long pfn = page_to_pfn(p);
				CHECK(count <= pcp->high + pcp->batch, "node %d cpu %d: pcp list too long", nid,
				      cpu);
				CHECK((p->flags & PAGE_FLAGS_MASK) == 1ul << PG_pcp,
				      "node %d cpu %d: pcp page %#lx has flags %#lx", nid, cpu, pfn, p->flags);
				CHECK(page_to_nid(p) == nid, "node %d cpu %d: pcp page %#lx is on node %d", nid,
				      cpu, pfn, page_to_nid(p));
				CHECK(!range_any(s->live, pfn, 1), "node %d cpu %d: pcp page %#lx is live", nid,
				      cpu, pfn);
				CHECK(!range_set(s->free, pfn, 1),
				      "node %d cpu %d: pcp page %#lx is also in a free block", nid, cpu, pfn);
				count++;
			}
			CHECK(count == pcp->count, "node %d cpu %d: %d pages listed, count %d", nid, cpu, count,
			      pcp->count);
			node_pages += (unsigned long)count;
			/* The THP-order list: whole blocks, PG_pcp on the head
			 * with private == the order, plain tails. */
			count = 0;
			list_for_each_entry(p, &pcp->lists[PCP_THP_INDEX], lru) {
				unsigned long pfn = page_to_pfn(p), n = 1ul << pageblock_order;
				CHECK((unsigned long)count < s->nr_pfns, "node %d cpu %d: THP-order list loops", nid, cpu);
				CHECK((p->flags & PAGE_FLAGS_MASK) == 1ul << PG_pcp && p->private == pageblock_order,
				      "node %d cpu %d: pcp block %#lx has flags %#lx private %lu", nid, cpu, pfn,
				      p->flags, p->private);
				CHECK(IS_ALIGNED(pfn, n) && page_to_nid(p) == nid && pfn >= start && pfn + n <= end,
				      "node %d cpu %d: pcp block %#lx misaligned or off the node", nid, cpu, pfn);
				CHECK(!range_any(s->live, pfn, n), "node %d cpu %d: pcp block %#lx holds live pages",
				      nid, cpu, pfn);
				CHECK(!range_set(s->free, pfn, n),
				      "node %d cpu %d: pcp block %#lx overlaps another free block", nid, cpu, pfn);
				if (deep)
					for (unsigned long i = 1; i < n; i++)
						CHECK((p[i].flags & PAGE_FLAGS_MASK) == 0,
						      "node %d cpu %d: tail pfn %#lx of pcp block %#lx has flags %#lx",
						      nid, cpu, pfn + i, pfn, p[i].flags);
				count++;
			}
			CHECK(count == pcp->thp_count, "node %d cpu %d: %d THP-order blocks listed, thp_count %d",
			      nid, cpu, count, pcp->thp_count);
			node_pages += (unsigned long)count << pageblock_order;
		}
		CHECK(node_pages == node_free_pages(nid), "node %d: %lu free pages found, node_free_pages %lu",
		      nid, node_pages, node_free_pages(nid));
		CHECK(node_pages + pgdat->nr_bad_pages <= pgdat->managed_pages,
		      "node %d: %lu free + %lu bad > %lu managed", nid, node_pages, pgdat->nr_bad_pages,
		      pgdat->managed_pages);
		free_total += node_pages;
	}
	unsigned long managed = mm_total_managed(), bad = mm_total_bad();
	CHECK(free_total + bad + s->live_pages == managed,
	      "free %lu + bad %lu + live %lu != managed %lu", free_total, bad, s->live_pages, managed);
	CHECK(nr_free_pages() == free_total, "nr_free_pages %lu, found %lu", nr_free_pages(), free_total);
	return true;
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

void mm_snapshot_take(struct mm_snapshot *snap)
{
	drain_all_pages();
	memset(snap, 0, sizeof(*snap));
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
				n += node_data[nid]->free_area[o].nr_free;
	snap->blocks = malloc((n ? n : 1) * sizeof(*snap->blocks));
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		snap->node_free[nid] = node_free_pages(nid);
		for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
			snap->nr_free[nid][o] = pgdat->free_area[o].nr_free;
			struct page *p;
			for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			list_for_each_entry(p, &pgdat->free_area[o].free_list[mt], lru)
				if (snap->nr_blocks < n)
					snap->blocks[snap->nr_blocks++] = page_to_pfn(p) << 5 | o;
		}
	}
	qsort(snap->blocks, snap->nr_blocks, sizeof(*snap->blocks), cmp_ul);
}

void mm_snapshot_free(struct mm_snapshot *snap)
{
	free(snap->blocks);
	snap->blocks = NULL;
}

bool mm_snapshot_equal(struct ktest *t, const struct mm_snapshot *a, const struct mm_snapshot *b)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		CHECK(a->node_free[nid] == b->node_free[nid], "node %d: %lu free pages, was %lu", nid,
		      b->node_free[nid], a->node_free[nid]);
		for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
			CHECK(a->nr_free[nid][o] == b->nr_free[nid][o],
			      "node %d order %u: %lu free blocks, was %lu", nid, o, b->nr_free[nid][o],
			      a->nr_free[nid][o]);
	}
	CHECK(a->nr_blocks == b->nr_blocks, "%lu free blocks, was %lu", b->nr_blocks, a->nr_blocks);
	for (unsigned long i = 0; i < a->nr_blocks; i++)
		CHECK(a->blocks[i] == b->blocks[i], "free block %lu: pfn %#lx order %lu, was pfn %#lx order %lu",
		      i, b->blocks[i] >> 5, b->blocks[i] & 31, a->blocks[i] >> 5, a->blocks[i] & 31);
	return true;
}
