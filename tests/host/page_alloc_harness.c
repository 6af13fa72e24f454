/* The host page allocator tests' machine and helpers (page_alloc_harness.h). */
#include "tests/host/page_alloc_harness.h"
#include "lib/ratelimit.h"
#include "mm/page_alloc_internal.h"

const struct host_mm_config ring = {
	.nr_nodes = NR_NODES,
	.node_bytes = { NODE_BYTES, NODE_BYTES, NODE_BYTES, NODE_BYTES },
};

const struct host_mm_config ring_node3_memoryless = {
	.nr_nodes = NR_NODES,
	.node_bytes = { NODE_BYTES, NODE_BYTES, NODE_BYTES * 2, 0 },
};

struct mm_shadow shadow;
char printed[8192];
static struct mm_snapshot boot_shape;
static struct printk_capture cap;

void boot(const struct host_mm_config *cfg)
{
	mm_shadow_destroy(&shadow);
	mm_snapshot_free(&boot_shape);
	host_mm_boot(cfg);
	mm_shadow_init(&shadow);
	mm_snapshot_take(&boot_shape);
}

void init_case(struct ktest *t)
{
	(void)t;
	boot(&ring);
}

/* Every capture sees warn_alloc's report: its rate limit (lib/ratelimit.c)
 * starts afresh, since the host's jiffies never move on. */
void capture_begin(void)
{
	ratelimit_state_reset_interval(&nopage_rs, DEFAULT_RATELIMIT_INTERVAL);
	printk_capture_begin(&cap, printed, sizeof(printed));
}
void capture_end(void) { printk_capture_end(&cap); }

struct page *get(struct ktest *t, int nid, gfp_t gfp, unsigned order)
{
	return get_nodemask(t, nid, gfp, order, NULL);
}

struct page *get_nodemask(struct ktest *t, int nid, gfp_t gfp, unsigned order, const nodemask_t *mask)
{
	struct page *p = mask ? __alloc_pages(gfp, order, nid, mask) : alloc_pages_node(nid, gfp, order);
	if (!p)
		return NULL;
	unsigned long pfn = page_to_pfn(p);
	KTEST_EXPECT_TRUE(t, IS_ALIGNED(pfn, 1ul << order));
	KTEST_EXPECT_EQ(t, page_ref_count(p), 1);
	KTEST_EXPECT_EQ(t, p->_mapcount, -1);
	KTEST_EXPECT_FALSE(t, PageBuddy(p));
	KTEST_EXPECT_EQ(t, PageHead(p), order > 0);
	if (order)
		KTEST_EXPECT_EQ(t, p->private, order);
	if ((gfp & __GFP_THISNODE) && nid >= 0)
		KTEST_EXPECT_EQ(t, page_to_nid(p), nid);
	if (mask && !KTEST_EXPECT_TRUE(t, node_isset(page_to_nid(p), *mask)))
		ktest_diag(t, "order %u preferring node %d came from node %d, outside the mask %#lx",
			   order, nid, page_to_nid(p), mask->bits[0]);
	mm_shadow_alloc(t, &shadow, p, order);
	return p;
}

void put(struct page *p, unsigned order)
{
	mm_shadow_free(&shadow, p, order);
	__free_pages(p, order);
}

void expect_boot_shape(struct ktest *t)
{
	struct mm_snapshot now;
	mm_snapshot_take(&now);
	mm_snapshot_equal(t, &boot_shape, &now);
	mm_snapshot_free(&now);
	mm_check(t, &shadow, true);
}

void exhaust_node(struct ktest *t, struct held_blocks *h, int nid, gfp_t gfp)
{
	for (int order = MAX_PAGE_ORDER; order >= 0; order--) {
		struct page *p;
		while ((p = get(t, nid, gfp | __GFP_THISNODE | __GFP_NOWARN, (unsigned)order))) {
			KTEST_ASSERT_LT(t, h->n, (int)ARRAY_SIZE(h->b));
			h->b[h->n].p = p;
			h->b[h->n++].order = (unsigned)order;
		}
	}
	drain_all_pages();
}

void release_blocks(struct held_blocks *h)
{
	while (h->n > 0) {
		h->n--;
		put(h->b[h->n].p, h->b[h->n].order);
	}
}

int page_alloc_test_main(const char *suite, const struct ktest_case *cases, size_t n)
{
	host_mem_init(MEM);
	int rc = ktest_run_suite(suite, cases, n, init_case);
	mm_shadow_destroy(&shadow);
	mm_snapshot_free(&boot_shape);
	host_mem_free();
	return rc;
}
