/* kmalloc: memory of any size, by size class (see slab.h for the interface).
 *
 * A request up to KMALLOC_MAX_CACHE_SIZE is rounded up to a size class
 * (8 bytes .. 8 KiB) and served by that class's cache (mm/slab.c); a larger
 * one comes straight from the page allocator: the head page is
 * PG_large_kmalloc and the page allocator's own record of the order
 * (PG_head, private) says how much to give back. kmalloc(0) is
 * ZERO_SIZE_PTR.
 *
 * Invariant: everything kfree() and ksize() need is in the struct page of
 * the pointer: a slab object (PG_slab, of any cache, so kfree also takes
 * kmem_cache_alloc'ed objects, as in Linux) or the start of a large kmalloc
 * (PG_large_kmalloc). Anything else is reported and ignored, never freed. */
#include "kernel/printk.h"
#include "lib/getorder.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slab_internal.h"

static const unsigned int kmalloc_sizes[] = { 8,   16,  32,   64,   96,   128,  192,
					      256, 512, 1024, 2048, 4096, 8192 };
#define NR_KMALLOC_CACHES ARRAY_SIZE(kmalloc_sizes)
static struct kmem_cache kmalloc_caches[NR_KMALLOC_CACHES];

static struct kmem_cache *kmalloc_slab(size_t size)
{
	for (unsigned int i = 0; i < NR_KMALLOC_CACHES; i++)
		if (size <= kmalloc_sizes[i])
			return &kmalloc_caches[i];
	return NULL;
}

static void *kmalloc_large_node(size_t size, gfp_t gfp, int nid)
{
	if (size > (PAGE_SIZE << MAX_PAGE_ORDER))
		return NULL;
	unsigned int order = get_order(size);
	/* An order > 0 block: the page allocator makes the head PG_head with
	 * private == order (and zeroes it for __GFP_ZERO); kfree reads the
	 * order back from there. */
	struct page *page = alloc_pages_node(nid, gfp, order);
	if (!page)
		return NULL;
	page_set_flag(page, PG_large_kmalloc);
	return page_address(page);
}

void *kmalloc_node(size_t size, gfp_t gfp, int nid)
{
	if (!size)
		return ZERO_SIZE_PTR;
	if (!slab_is_available()) {
		pr_err("kmalloc: called before kmem_cache_init\n");
		return NULL;
	}
	struct kmem_cache *s = kmalloc_slab(size);
	if (!s)
		return kmalloc_large_node(size, gfp, nid);
	return kmem_cache_alloc_node(s, gfp, nid);
}

void *kmalloc(size_t size, gfp_t gfp) { return kmalloc_node(size, gfp, NUMA_NO_NODE); }
void *kzalloc(size_t size, gfp_t gfp) { return kmalloc_node(size, gfp | __GFP_ZERO, NUMA_NO_NODE); }
void *kzalloc_node(size_t size, gfp_t gfp, int nid) { return kmalloc_node(size, gfp | __GFP_ZERO, nid); }

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kzalloc(bytes, gfp);
}

void kfree(const void *obj)
{
	void *caller = __builtin_return_address(0);
	struct page *page;

	if (ZERO_OR_NULL_PTR(obj))
		return;
	page = pointer_to_page(obj);
	if (page && PageSlab(page)) {
		struct page *head = slab_head(page);
		slab_free(head->slab_cache, head, obj, "kfree", caller);
		return;
	}
	if (page && page_test_flag(page, PG_large_kmalloc)) {
		if (obj != page_address(page)) {
			report_bad_free("kfree", obj, "large kmalloc", "not the start of the allocation",
					caller);
			return;
		}
		unsigned int order = PageHead(page) ? (unsigned int)page->private : 0;
		page_clear_flag(page, PG_large_kmalloc);
		__free_pages(page, order);
		return;
	}
	report_bad_free("kfree", obj, "none",
			page ? "not allocated by kmalloc (not a slab object or a large kmalloc)"
			     : "not a kernel address with a struct page",
			caller);
}

size_t ksize(const void *obj)
{
	struct page *page;

	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	page = pointer_to_page(obj);
	if (!page)
		return 0;
	if (PageSlab(page)) {
		struct page *head = slab_head(page);
		struct kmem_cache *s = head->slab_cache;
		return slot_index(s, head, obj) < 0 ? 0 : s->object_size;
	}
	if (page_test_flag(page, PG_large_kmalloc) && obj == page_address(page))
		return PAGE_SIZE << (PageHead(page) ? page->private : 0);
	return 0;
}

void create_kmalloc_caches(void)
{
	static const char *const names[] = {
		"kmalloc-8",   "kmalloc-16",  "kmalloc-32",  "kmalloc-64", "kmalloc-96",
		"kmalloc-128", "kmalloc-192", "kmalloc-256", "kmalloc-512", "kmalloc-1k",
		"kmalloc-2k",  "kmalloc-4k",  "kmalloc-8k",
	};
	_Static_assert(ARRAY_SIZE(kmalloc_sizes) == ARRAY_SIZE(names), "a name per size class");

	for (unsigned int i = 0; i < NR_KMALLOC_CACHES; i++)
		create_boot_cache(&kmalloc_caches[i], names[i], kmalloc_sizes[i]);
}
