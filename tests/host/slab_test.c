/* Host tests of mm/slab.c (kmem caches and kmalloc) on top of the buddy
 * allocator, booted as the kernel boots them (host_mm_boot, then
 * kmem_cache_init): size classes, placement on nodes, large kmalloc, bad
 * frees, and that every case gives all its memory back (no object in use,
 * the page allocator's free lists back in their boot shape). */
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "tests/host/ktest.h"
#include "tests/host/mm_check.h"
#include "tests/host/slab_harness.h"
#include "tests/host/shim.h"

#include <stdlib.h>
#include <string.h>

static char log[4096];
static struct printk_capture cap;

static unsigned long offset_of(const void *p) { return (unsigned long)((const u8 *)p - host_phys_base); }

static void size_classes(struct ktest *t)
{
	static const size_t classes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192 };
	size_t c = 0;
	for (size_t n = 1; n <= KMALLOC_MAX_CACHE_SIZE; n++) {
		while (classes[c] < n)
			c++;
		void *p = kmalloc(n, GFP_KERNEL);
		if (!KTEST_EXPECT_NOT_NULL(t, p))
			break;
		if (!KTEST_EXPECT_EQ(t, ksize(p), classes[c]))
			ktest_diag(t, "kmalloc(%zu)", n);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED(offset_of(p), 8));
		/* Power-of-two sizes are naturally aligned, as in Linux. */
		if ((classes[c] & (classes[c] - 1)) == 0 && !IS_ALIGNED(offset_of(p), classes[c])) {
			ktest_fail(t, __FILE__, __LINE__, "kmalloc(%zu) at offset %#lx not aligned to %zu",
				   n, offset_of(p), classes[c]);
			kfree(p);
			break;
		}
		memset(p, 0xa5, n);
		kfree(p);
	}
	slab_harness_expect_all_returned(t);
}

static void zero_size_and_null(struct ktest *t)
{
	void *p = kmalloc(0, GFP_KERNEL);
	KTEST_EXPECT_TRUE(t, p == ZERO_SIZE_PTR);
	KTEST_EXPECT_EQ(t, ksize(p), 0);
	unsigned long bad = slab_bad_free_reports;
	kfree(p);
	kfree(NULL);
	KTEST_EXPECT_EQ(t, slab_bad_free_reports, bad);
	KTEST_EXPECT_NULL(t, kcalloc(~(size_t)0 / 2, 4, GFP_KERNEL));
	slab_harness_expect_all_returned(t);
}

static void kzalloc_and_kcalloc_zero(struct ktest *t)
{
	/* Dirty an object, free it, and get the same slot back zeroed. */
	u8 *p = kmalloc(200, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	memset(p, 0xff, 200);
	kfree(p);
	u8 *q = kzalloc(200, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, q);
	unsigned nonzero = 0;
	for (int i = 0; i < 200; i++)
		nonzero += q[i] != 0;
	KTEST_EXPECT_EQ(t, nonzero, 0);
	u32 *a = kcalloc(100, sizeof(u32), GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, a);
	for (int i = 0; i < 100; i++)
		nonzero += a[i] != 0;
	KTEST_EXPECT_EQ(t, nonzero, 0);
	kfree(q);
	kfree(a);
	slab_harness_expect_all_returned(t);
}

static void kmalloc_node_places_on_the_node(struct ktest *t)
{
	enum { PER_NODE = 300 };
	static void *objs[NR_NODES][PER_NODE];
	for (int nid = 0; nid < NR_NODES; nid++)
		for (int i = 0; i < PER_NODE; i++) {
			objs[nid][i] = kmalloc_node(64 + (size_t)i % 500, GFP_KERNEL, nid);
			KTEST_ASSERT_NOT_NULL(t, objs[nid][i]);
			KTEST_EXPECT_EQ(t, page_to_nid(virt_to_page(objs[nid][i])), nid);
		}
	struct kmem_cache *c = kmem_cache_create("test_node", 100, 0, 0, NULL);
	KTEST_ASSERT_NOT_NULL(t, c);
	void *o = kmem_cache_alloc_node(c, GFP_KERNEL, 2);
	KTEST_ASSERT_NOT_NULL(t, o);
	KTEST_EXPECT_EQ(t, page_to_nid(virt_to_page(o)), 2);
	kmem_cache_free(c, o);
	kmem_cache_destroy(c);
	for (int nid = 0; nid < NR_NODES; nid++)
		for (int i = 0; i < PER_NODE; i++)
			kfree(objs[nid][i]);
	slab_harness_expect_all_returned(t);
}

static void large_kmalloc_uses_the_page_allocator(struct ktest *t)
{
	unsigned long before = nr_free_pages();
	void *p = kmalloc(KMALLOC_MAX_CACHE_SIZE + 1, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	struct page *page = virt_to_page(p);
	KTEST_EXPECT_TRUE(t, page_test_flag(page, PG_large_kmalloc));
	KTEST_EXPECT_EQ(t, ksize(p), PAGE_SIZE << 2); /* 8 KiB + 1 -> 16 KiB */
	KTEST_EXPECT_EQ(t, offset_of(p) % (PAGE_SIZE << 2), 0);
	void *big = kmalloc_node(MiB(3), GFP_KERNEL, 1);
	KTEST_ASSERT_NOT_NULL(t, big);
	KTEST_EXPECT_EQ(t, ksize(big), MiB(4));
	KTEST_EXPECT_EQ(t, page_to_nid(virt_to_page(big)), 1);
	KTEST_EXPECT_EQ(t, before - nr_free_pages(), 4 + 1024);
	/* A pointer inside a large kmalloc is not one kfree accepts. */
	unsigned long bad = slab_bad_free_reports;
	printk_capture_begin(&cap, log, sizeof(log));
	kfree((u8 *)big + PAGE_SIZE);
	printk_capture_end(&cap);
	KTEST_EXPECT_EQ(t, slab_bad_free_reports, bad + 1);
	kfree(p);
	kfree(big);
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
	slab_harness_expect_all_returned(t);
}

static int ctor_calls;
static void ctor(void *obj)
{
	ctor_calls++;
	memset(obj, 0x3c, 48);
}

static void caches_align_construct_and_never_overlap(struct ktest *t)
{
	enum { N = 2000 };
	static u8 *objs[N];
	struct kmem_cache *c = kmem_cache_create("test_ctor", 48, 0, SLAB_HWCACHE_ALIGN, ctor);
	KTEST_ASSERT_NOT_NULL(t, c);
	struct kmem_cache *a = kmem_cache_create("test_align", 40, 256, 0, NULL);
	KTEST_ASSERT_NOT_NULL(t, a);
	ctor_calls = 0;
	for (int i = 0; i < N; i++) {
		objs[i] = kmem_cache_alloc(i % 2 ? a : c, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, objs[i]);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED(offset_of(objs[i]), i % 2 ? 256 : 64));
		if (i % 2 == 0)
			KTEST_EXPECT_EQ(t, objs[i][47], 0x3c);
		/* Fill with the index: overlapping objects would overwrite each other. */
		memset(objs[i], i & 0xff, 40);
	}
	KTEST_EXPECT_GE(t, ctor_calls, N / 2);
	for (int i = 0; i < N; i++) {
		unsigned wrong = 0;
		for (int b = 0; b < 40; b++)
			wrong += objs[i][b] != (i & 0xff);
		if (!KTEST_EXPECT_EQ(t, wrong, 0))
			break;
	}
	for (int i = 0; i < N; i++)
		kmem_cache_free(i % 2 ? a : c, objs[i]);
	kmem_cache_destroy(c);
	kmem_cache_destroy(a);
	slab_harness_expect_all_returned(t);
}

static void bad_frees_are_reported_and_ignored(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_bad", 64, 0, 0, NULL);
	struct kmem_cache *d = kmem_cache_create("test_other", 64, 0, 0, NULL);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, d);
	u8 *p = kmem_cache_alloc(c, GFP_KERNEL);
	u8 *q = kmalloc(100, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_ASSERT_NOT_NULL(t, q);
	struct page *page = alloc_pages_node(0, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, page);
	unsigned long before = slab_bad_free_reports;
	printk_capture_begin(&cap, log, sizeof(log));
	kmem_cache_free(d, p);            /* the wrong cache */
	kfree(q + 8);                     /* inside an object */
	kfree(page_address(page));        /* a page kmalloc never returned */
	kmem_cache_free(c, p);
	kmem_cache_free(c, p);            /* double free */
	kfree(q);
	kfree(q);                         /* double kfree */
	printk_capture_end(&cap);
	KTEST_EXPECT_EQ(t, slab_bad_free_reports, before + 5);
	KTEST_EXPECT_NOT_NULL(t, strstr(log, "BUG:"));
	/* The caches are still sound: two allocations never share a slot. */
	u8 *x = kmem_cache_alloc(c, GFP_KERNEL), *y = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_EXPECT_TRUE(t, x && y && x != y);
	kmem_cache_free(c, x);
	kmem_cache_free(c, y);
	__free_pages(page, 0);
	kmem_cache_destroy(c);
	kmem_cache_destroy(d);
	slab_harness_expect_all_returned(t);
}

static u64 rng_state;
static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void random_kmalloc_kfree_keeps_objects_intact(struct ktest *t)
{
	enum { STEPS = 20000, CAP = 4096 };
	static struct { u8 *p; size_t size; u8 tag; } live[CAP];
	const u64 seed = 0x736c6162ull;
	int n = 0;
	unsigned long allocs = 0;
	rng_state = seed;
	ktest_diag(t, "seed %#llx, %d steps", (unsigned long long)seed, STEPS);
	for (int step = 0; step < STEPS; step++) {
		u64 r = rnd();
		if (r % 100 < 55 && n < CAP) {
			size_t size = (r >> 8) % 100 < 90 ? 1 + (r >> 16) % 1024 : 1 + (r >> 16) % 20000;
			int nid = (int)((r >> 40) % (NR_NODES + 1)) - 1;
			u8 *p = kmalloc_node(size, GFP_KERNEL, nid);
			if (!KTEST_EXPECT_NOT_NULL(t, p))
				break;
			u8 tag = (u8)(step * 7 + 1);
			memset(p, tag, size);
			live[n].p = p;
			live[n].size = size;
			live[n++].tag = tag;
			allocs++;
		} else if (n) {
			int i = (int)((r >> 8) % (u64)n);
			size_t wrong = 0;
			for (size_t b = 0; b < live[i].size; b++)
				wrong += live[i].p[b] != live[i].tag;
			if (!KTEST_EXPECT_EQ(t, wrong, 0)) {
				ktest_diag(t, "object of %zu bytes corrupted at step %d", live[i].size, step);
				break;
			}
			kfree(live[i].p);
			live[i] = live[--n];
		}
	}
	ktest_diag(t, "%lu allocations, %d live at the end", allocs, n);
	while (n--)
		kfree(live[n].p);
	slab_harness_expect_all_returned(t);
}

static const struct ktest_case cases[] = {
	KTEST_CASE(size_classes),
	KTEST_CASE(zero_size_and_null),
	KTEST_CASE(kzalloc_and_kcalloc_zero),
	KTEST_CASE(kmalloc_node_places_on_the_node),
	KTEST_CASE(large_kmalloc_uses_the_page_allocator),
	KTEST_CASE(caches_align_construct_and_never_overlap),
	KTEST_CASE(bad_frees_are_reported_and_ignored),
	KTEST_CASE(random_kmalloc_kfree_keeps_objects_intact),
};

int main(void)
{
	host_mem_init(NODE_BYTES * NR_NODES);
	int rc = ktest_run_suite("host_slab", cases, ARRAY_SIZE(cases), slab_harness_init_case);
	slab_harness_destroy();
	host_mem_free();
	return rc;
}
