/* The slab allocator and kmalloc in correct use: size classes, zeroing,
 * node placement (memoryless nodes included), many objects without overlap,
 * large kmalloc through the page allocator, custom caches with constructors
 * and alignment, empty slabs given back. Misuse (bad frees, destroying a
 * cache with live objects) is tests/slab_misuse_test.c.
 *
 * Every case must leave slab_objects_in_use() and each node's free page
 * count (after kmem_cache_shrink_all) as it found them: the suite's exit
 * hook checks it, so a leak fails the case that made it. */
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "tests/kunit.h"

static const unsigned int size_classes[] = { 8,   16,  32,   64,   96,   128,  192,
					     256, 512, 1024, 2048, 4096, 8192 };

/* Whether the allocator can place memory on nid: pages it manages (a node
 * whose RAM is all kept, or holds no whole page, has none, and its
 * requests go to the nearest node that has). */
static bool node_has_ram(int nid)
{
	return nid >= 0 && (unsigned)nid < num_online_nodes() && node_data[nid] && node_data[nid]->managed_pages;
}

static u32 xorshift32(u32 *state)
{
	u32 x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* Bytes that depend on the object's seed and the offset: two objects that
 * overlapped would disagree about the shared bytes. Byte j is byte j % 4
 * of the (j / 4)th word of a xorshift sequence, so a whole word is stored
 * (x86 is little-endian) and compared at a time, the tail byte by byte. */
static void fill_pattern(u8 *p, size_t size, u32 seed)
{
	u32 x = seed * 2654435761u + 1;
	size_t j = 0;
	for (; j + 4 <= size; j += 4) {
		u32 word = xorshift32(&x);
		__builtin_memcpy(p + j, &word, 4);
	}
	for (u32 word = xorshift32(&x); j < size; j++)
		p[j] = (u8)(word >> (8 * (j % 4)));
}

static bool check_pattern(const u8 *p, size_t size, u32 seed)
{
	u32 x = seed * 2654435761u + 1, got;
	size_t j = 0;
	for (; j + 4 <= size; j += 4) {
		__builtin_memcpy(&got, p + j, 4);
		if (got != xorshift32(&x))
			return false;
	}
	for (u32 word = xorshift32(&x); j < size; j++)
		if (p[j] != (u8)(word >> (8 * (j % 4))))
			return false;
	return true;
}

static bool all_bytes(const void *p, int c, size_t size)
{
	const u8 *b = p;
	for (size_t i = 0; i < size; i++)
		if (b[i] != (u8)c)
			return false;
	return true;
}

/* ---- per-case leak check ---- */

static struct kunit_resources case_start;

static int slab_case_init(struct kunit *test)
{
	(void)test;
	kunit_resources_take(&case_start);
	return 0;
}

static void slab_case_exit(struct kunit *test)
{
	kunit_expect_resources_back(test, &case_start);
}

/* ---- cases ---- */

static void every_size_class_round_trips(struct kunit *test)
{
	for (unsigned i = 0; i < ARRAY_SIZE(size_classes); i++) {
		unsigned int c = size_classes[i];
		size_t requests[2] = { i ? size_classes[i - 1] + 1 : 1, c };
		for (int r = 0; r < 2; r++) {
			u8 *p = kmalloc(requests[r], GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_EXPECT_EQ(test, ksize(p), c);
			KUNIT_EXPECT_GE(test, ksize(p), requests[r]);
			KUNIT_EXPECT_TRUE(test, PageSlab(virt_to_page(p)));
			/* Power-of-two classes are naturally aligned, as in Linux. */
			unsigned int align = (c & (c - 1)) ? 8 : c;
			KUNIT_EXPECT_EQ(test, (uintptr_t)p % align, 0);
			memset(p, 0x5a ^ (int)i, ksize(p));
			KUNIT_EXPECT_TRUE(test, all_bytes(p, 0x5a ^ (int)i, c));
			kfree(p);
		}
	}

	/* kmalloc(0) is not a failure, and kfree(NULL) is nothing. */
	unsigned long reports = slab_bad_free_reports;
	void *z = kmalloc(0, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, z, ZERO_SIZE_PTR);
	KUNIT_EXPECT_EQ(test, ksize(z), 0);
	kfree(z);
	kfree(NULL);
	KUNIT_EXPECT_EQ(test, slab_bad_free_reports, reports);
}

#define ZERO_TEST_OBJECTS 32

static void kzalloc_zeroes_dirtied_memory(struct kunit *test)
{
	void *dirty[ZERO_TEST_OBJECTS];

	for (unsigned i = 0; i < ARRAY_SIZE(size_classes); i++) {
		unsigned int c = size_classes[i];
		unsigned reused = 0, nonzero = 0;
		for (int k = 0; k < ZERO_TEST_OBJECTS; k++) {
			dirty[k] = kmalloc(c, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, dirty[k]);
			memset(dirty[k], 0xff, c);
		}
		for (int k = 0; k < ZERO_TEST_OBJECTS; k++)
			kfree(dirty[k]);
		void *clean[ZERO_TEST_OBJECTS];
		for (int k = 0; k < ZERO_TEST_OBJECTS; k++) {
			clean[k] = k % 2 ? kzalloc(c, GFP_KERNEL) : kzalloc_node(c, GFP_KERNEL, NUMA_NO_NODE);
			KUNIT_ASSERT_NOT_NULL(test, clean[k]);
			if (!all_bytes(clean[k], 0, c))
				nonzero++;
			for (int d = 0; d < ZERO_TEST_OBJECTS; d++)
				if (clean[k] == dirty[d])
					reused++;
		}
		KUNIT_EXPECT_EQ(test, nonzero, 0);
		/* Otherwise the test proved nothing: the memory was never dirty. */
		KUNIT_EXPECT_GT(test, reused, 0);
		for (int k = 0; k < ZERO_TEST_OBJECTS; k++)
			kfree(clean[k]);
	}

	/* kcalloc zeroes, and refuses a product that overflows. */
	u32 *a = kmalloc(100 * sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	memset(a, 0xee, 100 * sizeof(u32));
	kfree(a);
	u32 *b = kcalloc(100, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_TRUE(test, all_bytes(b, 0, 100 * sizeof(u32)));
	kfree(b);
	KUNIT_EXPECT_NULL(test, kcalloc(~0ul / 2, 4, GFP_KERNEL));

	/* Large kzalloc: the page allocator's zeroing. */
	u8 *big = kmalloc(KiB(64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	memset(big, 0xab, KiB(64));
	kfree(big);
	big = kzalloc(KiB(64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_EXPECT_TRUE(test, all_bytes(big, 0, KiB(64)));
	kfree(big);
}

#define NODE_TEST_OBJECTS 200

static void kmalloc_node_places_objects_on_that_node(struct kunit *test)
{
	static void *objs[NODE_TEST_OBJECTS];
	unsigned tested = 0;

	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_ram(nid))
			continue;
		tested++;
		for (unsigned i = 0; i < ARRAY_SIZE(size_classes); i++) {
			void *p = kmalloc_node(size_classes[i], GFP_KERNEL, nid);
			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p)), nid);
			kfree(p);
		}
		void *big = kzalloc_node(KiB(64), GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, big);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(big)), nid);
		kfree(big);

		unsigned wrong = 0;
		for (int k = 0; k < NODE_TEST_OBJECTS; k++) {
			objs[k] = kmalloc_node(k % 2 ? 64 : 512, GFP_KERNEL, nid);
			KUNIT_ASSERT_NOT_NULL(test, objs[k]);
			if (page_to_nid(virt_to_page(objs[k])) != nid)
				wrong++;
		}
		KUNIT_EXPECT_EQ(test, wrong, 0);
		for (int k = 0; k < NODE_TEST_OBJECTS; k++)
			kfree(objs[k]);
	}
	KUNIT_EXPECT_GT(test, tested, 0);

	/* NUMA_NO_NODE: the node of the running CPU. */
	int here = numa_node_id();
	if (node_has_ram(here)) {
		void *p = kmalloc(128, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p)), here);
		kfree(p);
	}
}

static void memoryless_node_allocations_fall_back(struct kunit *test)
{
	static void *objs[100];
	int nid = NUMA_NO_NODE;

	for (int n = 0; n < (int)num_online_nodes(); n++)
		if (!node_has_ram(n))
			nid = n;
	if (nid == NUMA_NO_NODE)
		kunit_skip(test, "every node has memory");

	static const size_t sizes[] = { 8, 64, 4096, 8192, KiB(64) };
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		void *p = kmalloc_node(sizes[i], GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_TRUE(test, node_has_ram(page_to_nid(virt_to_page(p))));
		memset(p, 0x11, sizes[i]);
		kfree(p);
	}

	/* The fallback slabs are reused: 100 objects of 64 bytes fit in two
	 * pages, not one slab per allocation. */
	unsigned distinct = 0;
	for (int k = 0; k < 100; k++) {
		objs[k] = kmalloc_node(64, GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, objs[k]);
		bool seen = false;
		for (int j = 0; j < k; j++)
			if (virt_to_page(objs[j]) == virt_to_page(objs[k]))
				seen = true;
		if (!seen)
			distinct++;
	}
	KUNIT_EXPECT_LE(test, distinct, 3);
	for (int k = 0; k < 100; k++)
		kfree(objs[k]);

	/* __GFP_THISNODE on a node without memory cannot be satisfied. */
	KUNIT_EXPECT_NULL(test, kmalloc_node(64, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, nid));
}

#define MANY 10000

static size_t many_size(u32 *rng)
{
	u32 r = xorshift32(rng);
	if (r % 256 == 0)
		return KMALLOC_MAX_CACHE_SIZE + 1 + r / 256 % KiB(24); /* a large kmalloc now and then */
	if (r % 16 == 0)
		return 1 + r / 16 % KMALLOC_MAX_CACHE_SIZE;
	return 1 + r / 16 % 512;
}

static void many_mixed_allocations_do_not_overlap(struct kunit *test)
{
	u8 **ptr = kmalloc(MANY * sizeof(*ptr), GFP_KERNEL);
	u32 *size = kmalloc(MANY * sizeof(*size), GFP_KERNEL);
	u32 *seed = kmalloc(MANY * sizeof(*seed), GFP_KERNEL);
	u32 *order = kmalloc(MANY * sizeof(*order), GFP_KERNEL);
	u32 rng = 0x12345678;
	unsigned failed = 0, bad = 0, small_ksize = 0;

	KUNIT_ASSERT_TRUE(test, ptr && size && seed && order);
	for (u32 i = 0; i < MANY; i++) {
		size[i] = (u32)many_size(&rng);
		seed[i] = i;
		ptr[i] = kmalloc(size[i], GFP_KERNEL);
		if (!ptr[i]) {
			failed++;
			continue;
		}
		if (ksize(ptr[i]) < size[i])
			small_ksize++;
		fill_pattern(ptr[i], size[i], seed[i]);
		order[i] = i;
	}
	/* A scrambled order (Fisher-Yates). */
	for (u32 i = MANY - 1; i > 0; i--) {
		u32 j = xorshift32(&rng) % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}

	/* Free half, allocate new objects in their place, then check and free
	 * everything: a reused slot must not overlap a live object. */
	for (u32 k = 0; k < MANY / 2; k++) {
		u32 i = order[k];
		if (!ptr[i])
			continue;
		if (!check_pattern(ptr[i], size[i], seed[i]))
			bad++;
		kfree(ptr[i]);
		size[i] = (u32)many_size(&rng);
		seed[i] = MANY + i;
		ptr[i] = kmalloc(size[i], GFP_KERNEL);
		if (!ptr[i]) {
			failed++;
			continue;
		}
		fill_pattern(ptr[i], size[i], seed[i]);
	}
	for (u32 k = 0; k < MANY; k++) {
		u32 i = order[(k * 7919u) % MANY]; /* 7919 is prime: a permutation */
		if (!ptr[i])
			continue;
		if (!check_pattern(ptr[i], size[i], seed[i]))
			bad++;
		kfree(ptr[i]);
	}
	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, small_ksize, 0);
	kfree(ptr);
	kfree(size);
	kfree(seed);
	kfree(order);
}

static void large_kmalloc_comes_from_the_page_allocator(struct kunit *test)
{
	static const struct { size_t size; unsigned int order; } cases[] = {
		{ KMALLOC_MAX_CACHE_SIZE + 1, 2 }, { KiB(64), 4 }, { MiB(1), 8 },
	};

	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_ram(nid))
			continue;
		for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
			unsigned long before = node_free_pages(nid);
			u8 *p = kmalloc_node(cases[i].size, GFP_KERNEL, nid);
			KUNIT_ASSERT_NOT_NULL(test, p);
			struct page *page = virt_to_page(p);
			KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_large_kmalloc));
			KUNIT_EXPECT_FALSE(test, PageSlab(page));
			KUNIT_EXPECT_EQ(test, page_to_nid(page), nid);
			KUNIT_EXPECT_EQ(test, ksize(p), PAGE_SIZE << cases[i].order);
			KUNIT_EXPECT_EQ(test, before - node_free_pages(nid), 1ul << cases[i].order);
			memset(p, 0xc3, ksize(p));
			KUNIT_EXPECT_TRUE(test, all_bytes(p, 0xc3, ksize(p)));
			kfree(p);
			KUNIT_EXPECT_EQ(test, node_free_pages(nid), before);
			KUNIT_EXPECT_FALSE(test, page_test_flag(page, PG_large_kmalloc));
		}
	}
	/* More than the page allocator's largest block: a clean failure. */
	KUNIT_EXPECT_NULL(test, kmalloc(GiB(64), GFP_KERNEL | __GFP_NOWARN));
}

#define CAPTURE(log, stmt)                                                         \
	do {                                                                       \
		struct printk_capture __cap;                                       \
		printk_capture_begin(&__cap, log, sizeof(log));                    \
		stmt;                                                              \
		printk_capture_end(&__cap);                                        \
	} while (0)

struct test_obj {
	u32 magic;
	u32 serial;
	u8 payload[56];
};
#define TEST_OBJ_MAGIC 0xc0ffee42u
static unsigned long ctor_calls;

static void test_obj_ctor(void *p)
{
	struct test_obj *o = p;
	o->magic = TEST_OBJ_MAGIC;
	o->serial = (u32)ctor_calls++;
	memset(o->payload, 0x3c, sizeof(o->payload));
}

#define CTOR_OBJECTS 300

static void custom_cache_runs_its_constructor(struct kunit *test)
{
	static struct test_obj *objs[CTOR_OBJECTS];
	static char log[4096];

	ctor_calls = 0;
	struct kmem_cache *s = kmem_cache_create("slab_test_obj", sizeof(struct test_obj), 0, 0,
						 test_obj_ctor);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, ctor_calls, 0); /* no slab yet */

	unsigned unconstructed = 0;
	for (int k = 0; k < CTOR_OBJECTS; k++) {
		objs[k] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[k]);
		if (objs[k]->magic != TEST_OBJ_MAGIC || !all_bytes(objs[k]->payload, 0x3c, 56))
			unconstructed++;
	}
	KUNIT_EXPECT_EQ(test, unconstructed, 0);
	KUNIT_EXPECT_GE(test, ctor_calls, CTOR_OBJECTS);
	KUNIT_EXPECT_EQ(test, ksize(objs[0]), sizeof(struct test_obj));

	/* Objects come back constructed; the constructor runs per slab, not
	 * per allocation. */
	unsigned long calls = ctor_calls;
	for (int k = 0; k < 10; k++)
		kmem_cache_free(s, objs[k]);
	for (int k = 0; k < 10; k++) {
		objs[k] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[k]);
		KUNIT_EXPECT_EQ(test, objs[k]->magic, TEST_OBJ_MAGIC);
	}
	KUNIT_EXPECT_EQ(test, ctor_calls, calls);

	CAPTURE(log, show_slabinfo());
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "slab_test_obj"));

	for (int k = 0; k < CTOR_OBJECTS; k++)
		kfree(objs[k]); /* kfree takes cache objects too */

	/* Per node, with a cache of our own. */
	for (int nid = 0; nid < (int)num_online_nodes(); nid++) {
		if (!node_has_ram(nid))
			continue;
		struct test_obj *o = kmem_cache_alloc_node(s, GFP_KERNEL, nid);
		KUNIT_ASSERT_NOT_NULL(test, o);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(o)), nid);
		KUNIT_EXPECT_EQ(test, o->magic, TEST_OBJ_MAGIC);
		kmem_cache_free(s, o);
	}

	CAPTURE(log, kmem_cache_destroy(s));
	KUNIT_EXPECT_NULL(test, strstr(log, "BUG"));
	CAPTURE(log, show_slabinfo());
	KUNIT_EXPECT_NULL(test, strstr(log, "slab_test_obj"));
}

static void custom_cache_alignment_and_bad_arguments(struct kunit *test)
{
	char log[512];
	static void *objs[50];

	struct kmem_cache *s = kmem_cache_create("slab_test_align", 40, 128, 0, NULL);
	struct kmem_cache *h = kmem_cache_create("slab_test_hw", 24, 0, SLAB_HWCACHE_ALIGN, NULL);
	KUNIT_ASSERT_TRUE(test, s && h);
	unsigned misaligned = 0;
	for (int k = 0; k < 50; k++) {
		objs[k] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[k]);
		if ((uintptr_t)objs[k] % 128)
			misaligned++;
		void *o = kmem_cache_alloc(h, __GFP_ZERO | GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		if ((uintptr_t)o % 64)
			misaligned++;
		KUNIT_EXPECT_TRUE(test, all_bytes(o, 0, 24));
		kmem_cache_free(h, o);
	}
	KUNIT_EXPECT_EQ(test, misaligned, 0);
	for (int k = 0; k < 50; k++)
		kmem_cache_free(s, objs[k]);
	kmem_cache_destroy(s);
	kmem_cache_destroy(h);

	struct kmem_cache *bad;
	CAPTURE(log, bad = kmem_cache_create("slab_test_bad", 0, 0, 0, NULL));
	KUNIT_EXPECT_NULL(test, bad);
	CAPTURE(log, bad = kmem_cache_create("slab_test_bad", 64, 24, 0, NULL));
	KUNIT_EXPECT_NULL(test, bad);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "slab_test_bad"));
}

#define SHRINK_OBJECTS 2000

static void empty_slabs_go_back_to_the_page_allocator(struct kunit *test)
{
	void **objs = kmalloc(SHRINK_OBJECTS * sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);

	kmem_cache_shrink_all();
	unsigned long before = nr_free_pages();
	for (int k = 0; k < SHRINK_OBJECTS; k++) {
		objs[k] = kmalloc(64, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[k]);
	}
	/* 2000 objects of 64 bytes need at least 32 pages. */
	KUNIT_EXPECT_GE(test, before - nr_free_pages(), SHRINK_OBJECTS * 64 / PAGE_SIZE);
	for (int k = 0; k < SHRINK_OBJECTS; k++)
		kfree(objs[(k * 7919u) % SHRINK_OBJECTS]);
	/* At most one empty slab stays cached per node, and each CPU's slab
	 * (which may be empty too) stays that CPU's. */
	KUNIT_EXPECT_LE(test, before - nr_free_pages(), num_online_nodes() + num_online_cpus());
	kmem_cache_shrink_all();
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);

	/* The same for one cache with kmem_cache_shrink. */
	struct kmem_cache *s = kmem_cache_create("slab_test_shrink", 200, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	before = nr_free_pages();
	for (int k = 0; k < SHRINK_OBJECTS; k++) {
		objs[k] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[k]);
	}
	KUNIT_EXPECT_GE(test, before - nr_free_pages(), SHRINK_OBJECTS * 200 / PAGE_SIZE);
	for (int k = 0; k < SHRINK_OBJECTS; k++)
		kmem_cache_free(s, objs[k]);
	KUNIT_EXPECT_LT(test, before - nr_free_pages(), 8 * num_online_nodes() + 1);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
	kmem_cache_destroy(s);
	kfree(objs);
}

static struct kunit_case slab_cases[] = {
	KUNIT_CASE(every_size_class_round_trips),
	KUNIT_CASE(kzalloc_zeroes_dirtied_memory),
	KUNIT_CASE(kmalloc_node_places_objects_on_that_node),
	KUNIT_CASE(memoryless_node_allocations_fall_back),
	KUNIT_CASE(many_mixed_allocations_do_not_overlap),
	KUNIT_CASE(large_kmalloc_comes_from_the_page_allocator),
	KUNIT_CASE(custom_cache_runs_its_constructor),
	KUNIT_CASE(custom_cache_alignment_and_bad_arguments),
	KUNIT_CASE(empty_slabs_go_back_to_the_page_allocator),
	{}
};

static struct kunit_suite slab_suite = {
	.name = "slab",
	.init = slab_case_init,
	.exit = slab_case_exit,
	.test_cases = slab_cases,
};
kunit_test_suite(slab_suite);
