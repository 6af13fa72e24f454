/* The compaction suites' fragmented layouts: tests/compaction_layout.h
 * says what they are. */
#include "tests/compaction_layout.h"
#include "tests/test_pages.h"
#include "tests/test_proc.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/swap.h"
#include "mm/vmscan.h"
#include "mm/migrate.h"

/* The case's hold on the node's blocks: each order-9 block taken, linked
 * through its lru, freed at the end (those of the run are split and
 * become the layout's). */
static LIST_HEAD(blocks);
static struct held kept; /* order-0 pages the layout keeps (kernel pages) */

static void release_blocks(void *unused)
{
	(void)unused;
	while (!list_empty(&blocks)) {
		struct page *p = list_first_entry(&blocks, struct page, lru);
		list_del(&p->lru);
		__free_pages(p, pageblock_order);
	}
}

void hold_block(struct page *p)
{
	list_add(&p->lru, &blocks);
}

static int saved_proactiveness;
static void restore_proactiveness(void *unused)
{
	(void)unused;
	sysctl_compaction_proactiveness = saved_proactiveness;
}

void quiet_kcompactd(struct kunit *test)
{
	saved_proactiveness = sysctl_compaction_proactiveness;
	sysctl_compaction_proactiveness = 0;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_proactiveness, NULL), 0);
	kunit_wait_kcompactd_idle();
}

static void unpin(void *ctx)
{
	struct layout *L = ctx;
	if (L->pinned)
		put_page(L->pinned);
	L->pinned = NULL;
}

int nid_with_memory(void)
{
	int nid = numa_node_id();
	return node_data[nid]->managed_pages ? nid : node_data[nid]->fallback[0];
}

/* Every order-9 block of nid the allocator gives without reclaim. */
static void take_blocks(int nid)
{
	for (bool more = true; more;) {
		struct page *p;
		more = false;
		while ((p = alloc_pages_node(nid, TAKE_GFP, pageblock_order))) {
			hold_block(p);
			more = true;
		}
		drain_all_pages();
	}
}

/* The first of n blocks taken that are pfn-consecutive and movable, or 0. */
static unsigned long find_run(unsigned n)
{
	struct page *p;
	list_for_each_entry(p, &blocks, lru) {
		unsigned long start = page_to_pfn(p);
		unsigned found = 0;
		for (unsigned b = 0; b < n; b++) {
			struct page *q;
			list_for_each_entry(q, &blocks, lru)
				if (page_to_pfn(q) == start + b * pageblock_nr_pages &&
				    get_pageblock_migratetype(q) == MIGRATE_MOVABLE) {
					found++;
					break;
				}
		}
		if (found == n)
			return start;
	}
	return 0;
}

int move_page_into(struct page *old, struct page *new)
{
	get_page(old);
	int err = isolate_lru_page(old);
	put_page(old);
	if (err)
		return err;
	err = migrate_isolated_page(old, new);
	if (err)
		putback_lru_page(old);
	return err;
}

static int move_item_into(const struct layout *L, unsigned long i, struct page *new)
{
	struct page *old = L->page_of(L, i);
	return old ? move_page_into(old, new) : -ENOENT;
}

void layout_begin(struct kunit *test, struct layout *L, unsigned nblocks, int pin_block, int kernel_block)
{
	*L = (struct layout){ .nid = nid_with_memory(), .nblocks = nblocks, .pin_block = pin_block,
			      .kernel_block = kernel_block };
	KUNIT_ASSERT_LE(test, nblocks, (unsigned)MAX_RUN);
	quiet_kcompactd(test);
}

void layout_place(struct kunit *test, struct layout *L)
{
	KUNIT_ASSERT_EQ(test, L->npages, (unsigned long)L->nblocks * PER_BLOCK + (L->pin_block != NO_BLOCK));
	held_init_released_at_end(test, &kept);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, release_blocks, NULL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, unpin, L), 0);
	take_blocks(L->nid);
	L->lo = find_run(L->nblocks);
	/* A small node (sixteen-node's are 64 MiB, node 0 with the kernel's
	 * own pages in it) may have no such run to lay out, or not at this
	 * moment: then the nearest node that has one. */
	const pg_data_t *home = node_data[L->nid];
	for (int i = 0; !L->lo && i < home->nr_fallback; i++) {
		int nid = home->fallback[i];
		if (nid == L->nid || !node_data[nid]->managed_pages)
			continue;
		release_blocks(NULL);
		take_blocks(nid);
		L->lo = find_run(L->nblocks);
		if (L->lo)
			L->nid = nid;
	}
	if (!L->lo)
		kunit_skip(test, "no %u consecutive movable pageblocks free on any node", L->nblocks);
	for (unsigned b = 0; b < L->nblocks; b++) {
		struct page *head = pfn_to_page(L->lo + b * pageblock_nr_pages);
		list_del(&head->lru);
		split_page(head, pageblock_order);
		for (unsigned k = 0; k < PER_BLOCK; k++) {
			unsigned long i = (unsigned long)b * PER_BLOCK + k;
			struct page *slot = head + 4 * k;
			int err = move_item_into(L, i, slot);
			if (err)
				__free_page(slot);
			KUNIT_ASSERT_EQ(test, err, 0);
			for (unsigned j = 1; j < 4; j++) {
				/* The page after the last one placed: a pinned
				 * page of the case's, or a kernel page (not on
				 * the LRU), in the blocks the case names. */
				if (k == PER_BLOCK - 1 && j == 1 && (int)b == L->pin_block) {
					err = move_item_into(L, L->npages - 1, slot + 1);
					if (err)
						__free_page(slot + 1);
					KUNIT_ASSERT_EQ(test, err, 0);
					get_page(slot + 1); /* as get_user_pages */
					L->pinned = slot + 1;
				} else if (k == PER_BLOCK - 1 && j == 1 && (int)b == L->kernel_block) {
					held_add(&kept, slot + 1, 0);
				} else {
					__free_page(slot + j);
				}
			}
		}
	}
	drain_all_pages();
	/* The pages the case made first were freed by the moves: any
	 * order-9 block they made whole is taken too. */
	take_blocks(L->nid);
}

void report_blocks(struct kunit *test, const struct layout *L)
{
	unsigned long count[MAX_RUN] = { 0 };
	for (unsigned long i = 0; i < L->npages; i++) {
		struct page *p = L->page_of(L, i);
		unsigned long pfn = p ? page_to_pfn(p) : 0;
		if (pfn >= L->lo && pfn < L->lo + L->nblocks * pageblock_nr_pages)
			count[(pfn - L->lo) >> pageblock_order]++;
	}
	for (unsigned b = 0; b < L->nblocks; b++)
		kunit_info(test, "block %u: %lu of the case's pages", b, count[b]);
}

unsigned long layout_model(const struct layout *L, unsigned long *free_mask)
{
	long movable[MAX_RUN], room[MAX_RUN];
	for (unsigned b = 0; b < L->nblocks; b++) {
		bool stuck = (int)b == L->pin_block || (int)b == L->kernel_block;
		movable[b] = PER_BLOCK;
		room[b] = (long)pageblock_nr_pages - PER_BLOCK - stuck;
	}
	unsigned long moved = 0;
	unsigned i = 0, j = L->nblocks - 1;
	for (; i < j; i++) {
		while (movable[i] && i < j) {
			long t = movable[i] < room[j] ? movable[i] : room[j];
			movable[i] -= t;
			room[j] -= t;
			moved += (unsigned long)t;
			if (!room[j])
				j--;
		}
	}
	*free_mask = 0;
	for (unsigned b = 0; b < i && b < L->nblocks; b++)
		if (!movable[b] && (int)b != L->pin_block && (int)b != L->kernel_block)
			*free_mask |= 1ul << b;
	return moved;
}

unsigned long take_run_blocks(const struct layout *L)
{
	unsigned long mask = 0;
	struct page *p;
	drain_all_pages();
	while ((p = alloc_pages_node(L->nid, TAKE_GFP, pageblock_order))) {
		unsigned long pfn = page_to_pfn(p);
		hold_block(p);
		if (pfn >= L->lo && pfn < L->lo + L->nblocks * pageblock_nr_pages)
			mask |= 1ul << ((pfn - L->lo) >> pageblock_order);
	}
	return mask;
}

void report_node_lines(struct kunit *test, const char *path, int nid, const char *when)
{
	char *s = test_proc_read(test, path);
	for (char *line = s; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(line, "Node", 4)) {
			const char *q = line + 4;
			while (*q == ' ')
				q++;
			int n = 0;
			while (*q >= '0' && *q <= '9')
				n = n * 10 + (*q++ - '0');
			if (*q == ',' && n == nid)
				kunit_info(test, "%s %s: %s", path, when, line);
		}
		line = nl ? nl + 1 : NULL;
	}
	test_proc_free(test, s);
}

unsigned long compact_beside_crew(struct kunit *test, const struct layout *L, struct test_crew *crew, int rounds)
{
	unsigned long migrated = 0, end = L->lo + L->nblocks * pageblock_nr_pages;
	for (int k = 0; k < rounds; k++) {
		unsigned long p = crew->progress;
		KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(crew->progress >= p + 256, &crew->progress));
		struct compact_range_result r;
		compact_range(L->nid, L->lo, end, -1, 0, &r);
		migrated += r.migrated;
	}
	test_crew_stop(crew);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, crew), 0ul);
	kunit_info(test, "%lu accesses and zaps by %u workers beside %d compactions: %lu pages moved", crew->progress,
		   crew->n, rounds, migrated);
	return migrated;
}
