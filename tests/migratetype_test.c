/* Grouping pages by mobility (mm/page_alloc_fallback.c): the fallback order
 * between migrate types and when a fallback claims the whole pageblock,
 * checked on an arena (two pageblocks of a real node lent to a private
 * pg_data_t, whose free lists and pageblock flags the test sets up, so
 * that no other allocation disturbs the shape); isolation stopping merges
 * on a real node; and /proc/pagetypeinfo against the free lists. Every
 * case gives back what it took (free_pages_restored). */
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/util.h"
#include "mm/page_alloc.h"
#include "mm/page_alloc_internal.h"
#include "mm/slab.h"
#include "tests/kunit.h"

#define ARENA_ORDER (pageblock_order + 1)
#define ARENA_NID (MAX_NUMNODES - 1)
static pg_data_t arena;
static u8 arena_flags[2];
/* The node the arena's block came from, and goes back to: this CPU's, or
 * the nearest with memory (a CPU-only node has none). */
static int arena_home;

static void relabel(struct page *b, int nid)
{
	for (unsigned long i = 0; i < (1ul << ARENA_ORDER); i++)
		set_page_node(&b[i], nid);
}

/* An order-10 block of this CPU's node, its two pageblocks of types t0 and
 * t1 in the arena, every page in use (none free yet). */
static struct page *arena_setup(struct kunit *test, int t0, int t1)
{
	if (NODE_DATA(ARENA_NID))
		kunit_skip(test, "node %d exists: no id for the arena", ARENA_NID);
	struct page *b = alloc_pages_node(numa_node_id(), GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, ARENA_ORDER);
	if (!b)
		kunit_skip(test, "no free 4 MiB block");
	unsigned long pfn = page_to_pfn(b);
	arena_home = page_to_nid(b);
	arena.pageblock_flags = arena_flags;
	page_alloc_init_node(&arena, ARENA_NID, pfn, pfn + (1ul << ARENA_ORDER));
	node_data[ARENA_NID] = NULL; /* private: not a node the allocator knows */
	set_pfnblock_migratetype(&arena, pfn, t0);
	set_pfnblock_migratetype(&arena, pfn + pageblock_nr_pages, t1);
	relabel(b, ARENA_NID);
	b->flags &= ~PAGE_FLAGS_MASK;
	b->private = 0;
	for (unsigned long i = 0; i < (1ul << ARENA_ORDER); i++)
		b[i]._refcount = 0;
	return b;
}

/* Frees 2^order pages at p into the arena, to its pageblock's list. */
static void arena_free(struct page *p, unsigned int order)
{
	unsigned long flags;
	spin_lock_irqsave(&arena.lock, flags);
	free_one_page_pfnblock(p, page_to_pfn(p), &arena, order);
	spin_unlock_irqrestore(&arena.lock, flags);
}

static struct page *arena_rmqueue(unsigned int order, int migratetype)
{
	unsigned long flags;
	spin_lock_irqsave(&arena.lock, flags);
	struct page *p = __rmqueue(&arena, order, migratetype);
	spin_unlock_irqrestore(&arena.lock, flags);
	return p;
}

static unsigned long node_list_len(const struct list_head *head)
{
	unsigned long n = 0;
	for (const struct list_head *pos = head->next; pos != head; pos = pos->next)
		n++;
	return n;
}

static bool in_block(struct page *b, int block, struct page *p)
{
	return p >= b + block * pageblock_nr_pages && p < b + (block + 1) * pageblock_nr_pages;
}

/* Every page back in the arena: it must be one free order-10 block again
 * (every type here may merge), which goes back to the node it came from. */
static void arena_teardown(struct kunit *test, struct page *b)
{
	KUNIT_EXPECT_EQ(test, arena.free_area[ARENA_ORDER].nr_free, 1);
	KUNIT_EXPECT_EQ(test, arena.nr_free, 1ul << ARENA_ORDER);
	if (arena.free_area[ARENA_ORDER].nr_free != 1 || !PageBuddy(b))
		return; /* leaked rather than freed in pieces the checks would report */
	del_page_from_free_list(b, &arena, ARENA_ORDER);
	relabel(b, arena_home);
	for (unsigned long i = 0; i < (1ul << ARENA_ORDER); i++)
		b[i]._refcount = 0;
	b->_refcount = 1;
	b->flags |= BIT(PG_head);
	b->private = ARENA_ORDER;
	__free_pages(b, ARENA_ORDER);
}

/* After a request served in block 0: the two blocks' types and the
 * arena's fallback counters. */
static void expect_arena(struct kunit *test, struct page *b, struct page *p, int t0, int t1,
			 unsigned long fallbacks, unsigned long claims)
{
	KUNIT_EXPECT_TRUE(test, in_block(b, 0, p));
	KUNIT_EXPECT_EQ(test, get_pfnblock_migratetype(&arena, page_to_pfn(b)), t0);
	KUNIT_EXPECT_EQ(test, get_pfnblock_migratetype(&arena, page_to_pfn(b) + pageblock_nr_pages), t1);
	KUNIT_EXPECT_EQ(test, arena.nr_extfrag_fallback, fallbacks);
	KUNIT_EXPECT_EQ(test, arena.nr_extfrag_change_ownership, claims);
}

/* fallbacks[MIGRATE_UNMOVABLE] is reclaimable, then movable: with half a
 * block free of each, an unmovable page comes from the reclaimable block,
 * which it claims (half of it free). */
static void unmovable_falls_back_to_reclaimable_first(struct kunit *test)
{
	struct page *b = arena_setup(test, MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE);
	arena_free(b + pageblock_nr_pages / 2, pageblock_order - 1);
	arena_free(b + pageblock_nr_pages + pageblock_nr_pages / 2, pageblock_order - 1);
	struct page *p = arena_rmqueue(0, MIGRATE_UNMOVABLE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_arena(test, b, p, MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, 1, 1);
	/* Its free pages went with it: none of block 0 is left on the
	 * reclaimable lists. */
	for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++)
		KUNIT_EXPECT_TRUE(test, list_empty(&arena.free_area[o].free_list[MIGRATE_RECLAIMABLE]));
	arena_free(p, 0);
	arena_free(b, pageblock_order - 1);
	arena_free(b + pageblock_nr_pages, pageblock_order - 1);
	arena_teardown(test, b);
}

/* can_steal_fallback looks at the free block found (Linux passes its
 * order, current_order): a movable page taken from a free block below
 * pageblock_order / 2 leaves the unmovable block unclaimed; taken when a
 * larger one is free, it claims the block (more than half of it free). */
static void movable_claims_a_block_only_from_a_large_free_block(struct kunit *test)
{
	struct page *b = arena_setup(test, MIGRATE_UNMOVABLE, MIGRATE_UNMOVABLE);
	unsigned int small = pageblock_order / 2 - 1;
	arena_free(b + (1ul << small), small);
	struct page *p = arena_rmqueue(0, MIGRATE_MOVABLE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_arena(test, b, p, MIGRATE_UNMOVABLE, MIGRATE_UNMOVABLE, 1, 0);
	arena_free(p, 0);

	arena_free(b + pageblock_nr_pages / 2, pageblock_order - 1);
	p = arena_rmqueue(0, MIGRATE_MOVABLE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_arena(test, b, p, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE, 2, 1);
	arena_free(p, 0);
	arena_free(b, small);
	for (unsigned int o = small + 1; o < pageblock_order - 1; o++)
		arena_free(b + (1ul << o), o);
	arena_free(b + pageblock_nr_pages, pageblock_order);
	arena_teardown(test, b);
}

/* On blocks all movable and free, one unmovable page claims one whole
 * pageblock: the largest free block is split to a pageblock first, the
 * other stays movable. */
static void unmovable_page_claims_one_movable_pageblock(struct kunit *test)
{
	struct page *b = arena_setup(test, MIGRATE_MOVABLE, MIGRATE_MOVABLE);
	arena_free(b, ARENA_ORDER);
	struct page *p = arena_rmqueue(0, MIGRATE_UNMOVABLE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	int claimed = in_block(b, 0, p) ? 0 : 1;
	KUNIT_EXPECT_EQ(test, get_pfnblock_migratetype(&arena, page_to_pfn(b) + claimed * pageblock_nr_pages),
			MIGRATE_UNMOVABLE);
	KUNIT_EXPECT_EQ(test, get_pfnblock_migratetype(&arena, page_to_pfn(b) + (1 - claimed) * pageblock_nr_pages),
			MIGRATE_MOVABLE);
	/* The other pageblock is whole on the movable list. */
	KUNIT_EXPECT_EQ(test, node_list_len(&arena.free_area[pageblock_order].free_list[MIGRATE_MOVABLE]), 1);
	KUNIT_EXPECT_EQ(test, arena.nr_free, (1ul << ARENA_ORDER) - 1);
	arena_free(p, 0);
	arena_teardown(test, b);
}

/* A pageblock isolated: its free pages go straight to its buddy lists,
 * leave the free count and never merge with the free buddy beside it;
 * given back, they merge. */
static void merging_stops_at_an_isolated_pageblock(struct kunit *test)
{
	struct page *b = alloc_pages_node(numa_node_id(), GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, ARENA_ORDER);
	if (!b)
		kunit_skip(test, "no free 4 MiB block");
	pg_data_t *pgdat = NODE_DATA(page_to_nid(b));
	struct page *other = b + pageblock_nr_pages;
	int mt = get_pageblock_migratetype(other);
	split_page(b, ARENA_ORDER);
	KUNIT_ASSERT_EQ(test, set_migratetype_isolate(other), 0);
	KUNIT_EXPECT_EQ(test, set_migratetype_isolate(other), -EBUSY);
	KUNIT_EXPECT_EQ(test, get_pageblock_migratetype(other), MIGRATE_ISOLATE);
	unsigned long free_before = READ_ONCE(pgdat->nr_free);
	/* A page of the isolated block goes to its buddy list at once, not
	 * onto this CPU's list (where the next allocation would take it). */
	unsigned long flags;
	__free_pages(other, 0);
	spin_lock_irqsave(&pgdat->lock, flags);
	bool on_buddy_list = PageBuddy(other) && !page_test_flag(other, PG_pcp);
	spin_unlock_irqrestore(&pgdat->lock, flags);
	KUNIT_EXPECT_TRUE(test, on_buddy_list);
	for (unsigned long i = 0; i < (1ul << ARENA_ORDER); i++)
		if (b + i != other)
			__free_pages(b + i, 0);
	drain_all_pages();
	spin_lock_irqsave(&pgdat->lock, flags);
	bool both_order9 = PageBuddy(b) && b->private == pageblock_order && PageBuddy(other) &&
			   other->private == pageblock_order;
	spin_unlock_irqrestore(&pgdat->lock, flags);
	KUNIT_EXPECT_TRUE(test, both_order9);
	/* The isolated half is not counted free (other CPUs may have moved
	 * the count meanwhile: at most by what they hold). */
	KUNIT_EXPECT_LE(test, READ_ONCE(pgdat->nr_free), free_before + pageblock_nr_pages + 64);
	unset_migratetype_isolate(other, mt);
	KUNIT_EXPECT_EQ(test, get_pageblock_migratetype(other), mt);
	spin_lock_irqsave(&pgdat->lock, flags);
	bool merged = !PageBuddy(other) && !(PageBuddy(b) && b->private == pageblock_order);
	spin_unlock_irqrestore(&pgdat->lock, flags);
	KUNIT_EXPECT_TRUE(test, merged);
}

/* "Node N, zone Normal, type T " rows: each count is the list's length
 * (walked under the lock), retried while the lists move. */
static void pagetypeinfo_counts_the_free_lists(struct kunit *test)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!node_has_memory(nid))
			continue;
		bool matched = false;
		for (int tries = 0; tries < 20 && !matched; tries++) {
			char *text;
			size_t len;
			KUNIT_ASSERT_EQ(test, procfs_generate("/proc/pagetypeinfo", current, &text, &len), 0);
			KUNIT_EXPECT_NOT_NULL(test, strstr(text, "Page block order: 9\nPages per block:  512\n"));
			matched = true;
			for (int mt = 0; mt < MIGRATE_TYPES && matched; mt++) {
				char label[64];
				snprintf(label, sizeof(label), "Node %4d, zone   Normal, type %12s ", nid,
					 migratetype_names[mt]);
				const char *l = strstr(text, label);
				KUNIT_ASSERT_NOT_NULL(test, l);
				l += strlen(label);
				for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++) {
					while (*l == ' ')
						l++;
					unsigned long v = 0;
					while (*l >= '0' && *l <= '9')
						v = v * 10 + (unsigned long)(*l++ - '0');
					if (v != node_free_blocks_type(nid, o, mt))
						matched = false;
				}
			}
			kvfree(text);
		}
		KUNIT_EXPECT_TRUE(test, matched);
	}
}

static struct kunit_case migratetype_cases[] = {
	KUNIT_CASE(unmovable_falls_back_to_reclaimable_first),
	KUNIT_CASE(movable_claims_a_block_only_from_a_large_free_block),
	KUNIT_CASE(unmovable_page_claims_one_movable_pageblock),
	KUNIT_CASE(merging_stops_at_an_isolated_pageblock),
	KUNIT_CASE(pagetypeinfo_counts_the_free_lists),
	{}
};
static struct kunit_suite migratetype_suite = { .name = "migratetype", .test_cases = migratetype_cases };
kunit_test_suite(migratetype_suite);
