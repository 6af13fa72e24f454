/* Pages a test case holds: tests/test_pages.h. */
#include "tests/test_pages.h"
#include "tests/kunit.h"
#include "mm/page_alloc.h"
#include "mm/page_alloc_internal.h"

void held_init(struct held *h)
{
	INIT_LIST_HEAD(&h->list);
	h->pages = 0;
}

void held_add(struct held *h, struct page *p, unsigned order)
{
	list_add(&p->lru, &h->list);
	h->pages += 1ul << order;
}

void held_release(struct held *h)
{
	while (!list_empty(&h->list)) {
		struct page *p = list_first_entry(&h->list, struct page, lru);
		list_del(&p->lru);
		__free_pages(p, PageHead(p) ? (unsigned)p->private : 0);
	}
	h->pages = 0;
}

static void held_release_action(void *h) { held_release(h); }

void held_init_released_at_end(struct kunit *test, struct held *h)
{
	held_init(h);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, held_release_action, h), 0);
}

void exhaust_node(struct held *h, int nid, gfp_t gfp)
{
	for (int order = MAX_PAGE_ORDER; order >= 0; order--) {
		struct page *p;
		while ((p = alloc_pages_node(nid, gfp | __GFP_THISNODE | __GFP_NOWARN | __GFP_UNTOUCHED,
						 (unsigned)order)))
			held_add(h, p, (unsigned)order);
	}
}

unsigned long held_give_back(struct held *h, unsigned long pages)
{
	unsigned long freed = 0;
	while (freed < pages && !list_empty(&h->list)) {
		struct page *p = list_first_entry(&h->list, struct page, lru);
		unsigned order = PageHead(p) ? (unsigned)p->private : 0;
		list_del(&p->lru);
		__free_pages(p, order);
		freed += 1ul << order;
	}
	h->pages -= freed;
	return freed;
}

void drop_highatomic_reserve(int nid)
{
	while (READ_ONCE(NODE_DATA(nid)->nr_reserved_highatomic) &&
	       unreserve_highatomic_pageblock(GFP_KERNEL | __GFP_THISNODE, nid, NULL, true))
		;
}
