/* Host tests of where mm/slab.c takes objects from when their node has no
 * memory left (four nodes of 64 MiB in a ring, booted as the kernel boots
 * them, then kmem_cache_init): a new slab on the home node first; failing
 * that, free objects in other nodes' slabs, nearest first, before a new slab
 * elsewhere (as SLUB's get_any_partial), so a full node costs one remote
 * slab per slab's worth of objects, not one per object; __GFP_THISNODE
 * takes the home node's slabs only. Every case gives back all it took. */
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slab_internal.h"
#include "tests/host/ktest.h"
#include "tests/host/mm_check.h"
#include "tests/host/slab_harness.h"
#include "tests/host/shim.h"

/* Everything node nid gives to ordinary requests, largest blocks first. */
static struct { struct page *p; unsigned order; } held[4096];
static int nr_held;

static void exhaust_node(struct ktest *t, int nid)
{
	for (int order = MAX_PAGE_ORDER; order >= 0; order--) {
		struct page *p;
		while ((p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, (unsigned)order))) {
			KTEST_ASSERT_LT(t, nr_held, (int)ARRAY_SIZE(held));
			mm_shadow_alloc(t, &slab_shadow, p, (unsigned)order);
			held[nr_held].p = p;
			held[nr_held++].order = (unsigned)order;
		}
	}
	drain_all_pages();
}

static void release_node(void)
{
	while (nr_held > 0) {
		nr_held--;
		mm_shadow_free(&slab_shadow, held[nr_held].p, held[nr_held].order);
		__free_pages(held[nr_held].p, held[nr_held].order);
	}
}

static int nid_of(const void *obj) { return page_to_nid(virt_to_page(obj)); }

static void a_full_node_fills_remote_slabs_before_making_new_ones(struct ktest *t)
{
	enum { N = 100 };
	static void *objs[N];
	struct kmem_cache *c = kmem_cache_create("test_remote", 256, 0, 0, NULL);
	KTEST_ASSERT_NOT_NULL(t, c);
	unsigned long slab_bytes = PAGE_SIZE << c->order;
	KTEST_ASSERT_LT(t, c->objects, N / 2); /* several slabs' worth */
	exhaust_node(t, 0);

	unsigned long pages = nr_slab_pages();
	for (int i = 0; i < N; i++) {
		objs[i] = kmem_cache_alloc_node(c, GFP_KERNEL, 0);
		KTEST_ASSERT_NOT_NULL(t, objs[i]);
		/* Node 0's nearest are 1 and 3 (distance 20): the lower id. */
		KTEST_EXPECT_EQ(t, nid_of(objs[i]), 1);
	}
	unsigned long slabs = (nr_slab_pages() - pages) / (slab_bytes / PAGE_SIZE);
	ktest_diag(t, "%d objects, %u per slab: %lu new slabs", N, c->objects, slabs);
	KTEST_EXPECT_EQ(t, slabs, (N + c->objects - 1) / c->objects);
	KTEST_EXPECT_EQ(t, c->node[1].nr_partial, N % c->objects ? 1 : 0);
	KTEST_EXPECT_EQ(t, c->node[0].nr_inuse, 0);
	KTEST_EXPECT_EQ(t, c->node[1].nr_inuse, N);

	/* __GFP_THISNODE: node 0's own slabs only, and it has none. */
	KTEST_EXPECT_NULL(t, kmem_cache_alloc_node(c, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0));

	/* With memory on node 0 again, a new slab there comes before the
	 * free objects of node 1's partial slab. */
	release_node();
	void *home = kmem_cache_alloc_node(c, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, home);
	KTEST_EXPECT_EQ(t, nid_of(home), 0);
	kmem_cache_free(c, home);
	for (int i = 0; i < N; i++)
		kmem_cache_free(c, objs[i]);
	kmem_cache_destroy(c);
	slab_harness_expect_all_returned(t);
}

/* kmalloc is built on the same caches: a burst of small kmallocs for a full
 * node costs a few remote slabs, not one each. */
static void kmalloc_on_a_full_node_shares_remote_slabs(struct ktest *t)
{
	enum { N = 512 };
	static void *objs[N];
	exhaust_node(t, 2);
	unsigned long pages = nr_slab_pages();
	for (int i = 0; i < N; i++) {
		objs[i] = kmalloc_node(64, GFP_KERNEL, 2);
		KTEST_ASSERT_NOT_NULL(t, objs[i]);
		KTEST_EXPECT_NE(t, nid_of(objs[i]), 2);
	}
	/* 512 objects of 64 bytes are 8 pages' worth. */
	KTEST_EXPECT_LE(t, nr_slab_pages() - pages, 16);
	for (int i = 0; i < N; i++)
		kfree(objs[i]);
	release_node();
	slab_harness_expect_all_returned(t);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(a_full_node_fills_remote_slabs_before_making_new_ones),
	KTEST_CASE(kmalloc_on_a_full_node_shares_remote_slabs),
};

int main(void)
{
	host_mem_init(NODE_BYTES * NR_NODES);
	int rc = ktest_run_suite("host_slab_node_fallback", cases, ARRAY_SIZE(cases), slab_harness_init_case);
	slab_harness_destroy();
	host_mem_free();
	return rc;
}
