/* Slab caches: objects of one size carved from slabs, per node (see slab.h
 * for the interface; kmalloc's size classes on top are in kmalloc.c).
 *
 * A slab is a run of 2^order pages from one node, carved from its start into
 * s->objects slots of s->size bytes. Its free map has one bit per slot, set
 * while the slot is free. Free slots are also chained through their own
 * memory (the pointer at s->offset) from page->freelist, so allocation is a
 * pop; the free map is what makes a double free, or a free list damaged by a
 * use after free, detectable without walking the list.
 *
 * The slab's bookkeeping is in its struct pages (mm/page.h): every page is
 * PG_slab with slab_cache set; the head page holds slab_list (its link in
 * its node's lists), freelist, inuse and objects; a tail page holds
 * objects == 0 and its distance from the head in slab_pad, so kfree() finds
 * the head from any object of a multi-page slab. The free map of a slab of
 * at most SLAB_INLINE_MAP_OBJECTS (32) slots is the head's slab_free_map,
 * so a slab of a few large slots (kmalloc-512 .. kmalloc-8k) is all slots;
 * a slab with more (and so smaller) slots keeps its map in its last bytes,
 * at s->free_map_offset, where it costs a bit per slot (in 32-bit words).
 *
 * Invariants, for every slab (under its node's list_lock):
 *  - inuse == objects - (bits set in the free map) == objects - (length of
 *    the free list), and the free list holds exactly the slots whose bits
 *    are set;
 *  - the slab is on exactly one list of s->node[page_to_nid(head)]: full
 *    when inuse == objects, empty when inuse == 0, partial otherwise (a
 *    one-object slab that is not full is on the empty list);
 *  - a node keeps at most SLAB_MAX_EMPTY empty slabs per cache; the rest go
 *    back to the page allocator at once, and kmem_cache_shrink() returns
 *    those too.
 *
 * This file is the slab core: a cache's layout, one slab (free map, free
 * list, which list it is on), getting objects in and out, and giving empty
 * slabs back. Creating, destroying and shrinking caches, the list of
 * caches, boot, bad-free reports and statistics are in slab_common.c.
 *
 * Locking: each cache node has a list_lock (taken with interrupts off, so
 * kfree may run in an interrupt). The page allocator is never called with a
 * list_lock held. slab_caches_lock (slab_common.c) protects the list of
 * caches and is taken before any list_lock. */
#include "mm/slab.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab_internal.h"

/* Slabs are at most 2^SLAB_MAX_ORDER pages (32 KiB). */
#define SLAB_MAX_ORDER PAGE_ALLOC_COSTLY_ORDER
/* Empty slabs a node keeps per cache for the next allocation. */
#define SLAB_MAX_EMPTY 1
#define SLAB_MIN_ALIGN sizeof(void *)
/* The free map is an array of words; page->slab_free_map is one of them. */
#define MAP_WORD_BITS (8 * sizeof(unsigned int))
#define SLAB_INLINE_MAP_OBJECTS MAP_WORD_BITS

/* nr_slab_pages(): the sum of 2^order over the slabs new_slab made and
 * discard_slab has not given back (atomic: neither holds a lock). */
unsigned long slab_pages;

/* ---- slab geometry ---- */

/* Bytes a slab of that many objects gives its free map. */
static unsigned int free_map_bytes(unsigned int objects)
{
	if (objects <= SLAB_INLINE_MAP_OBJECTS)
		return 0; /* in the head's struct page */
	return (objects + MAP_WORD_BITS - 1) / MAP_WORD_BITS * sizeof(unsigned int);
}

static unsigned int objects_per_slab(unsigned int size, unsigned int order)
{
	unsigned long bytes = PAGE_SIZE << order;
	unsigned long n = bytes / size;

	while (n && n * size + free_map_bytes(n) > bytes)
		n--;
	return n > 0xffff ? 0xffff : (unsigned int)n;
}

/* The lowest order that wastes at most 1/16 of the slab, else the order
 * that wastes the smallest fraction. Returns false if no slot fits. */
bool calculate_order(struct kmem_cache *s)
{
	unsigned long best_waste = 0, best_bytes = 0;
	bool found = false;

	for (unsigned int order = 0; order <= SLAB_MAX_ORDER; order++) {
		unsigned long bytes = PAGE_SIZE << order;
		unsigned int n = objects_per_slab(s->size, order);
		if (!n)
			continue;
		unsigned long waste = bytes - (unsigned long)n * s->size;
		if (!found || waste * best_bytes < best_waste * bytes) {
			found = true;
			best_waste = waste;
			best_bytes = bytes;
			s->order = order;
			s->objects = n;
		}
		if (waste * 16 <= bytes)
			break;
	}
	if (found) {
		s->free_map_offset = (PAGE_SIZE << s->order) - free_map_bytes(s->objects);
		/* Exact in slot_index while size * objects < 2^32. */
		s->reciprocal_size = (u32)(((1ull << 32) + s->size - 1) / s->size);
	}
	return found;
}

void kmem_cache_setup(struct kmem_cache *s, const char *name, unsigned int size,
			     unsigned int align, unsigned long flags, void (*ctor)(void *))
{
	memset(s, 0, sizeof(*s));
	strlcpy(s->name, name, sizeof(s->name));
	s->object_size = size;
	s->flags = flags;
	s->ctor = ctor;
	if (flags & SLAB_HWCACHE_ALIGN)
		align = max(align, 64u);
	s->align = max(align, (unsigned int)SLAB_MIN_ALIGN);
	/* A constructed object must keep its contents while free, so the free
	 * pointer goes after it rather than over its first word. */
	s->offset = ctor ? ALIGN_UP(size, (unsigned int)sizeof(void *)) : 0;
	s->size = ALIGN_UP(max(size, s->offset + (unsigned int)sizeof(void *)), s->align);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = &s->node[nid];
		spin_lock_init(&n->list_lock);
		INIT_LIST_HEAD(&n->partial);
		INIT_LIST_HEAD(&n->full);
		INIT_LIST_HEAD(&n->empty);
	}
}

/* ---- one slab ---- */

/* The free map of the slab at head: in the head's struct page, or at the
 * end of the slab (see the top of this file). */
static unsigned int *free_map(const struct kmem_cache *s, struct page *head)
{
	if (s->objects <= SLAB_INLINE_MAP_OBJECTS)
		return &head->slab_free_map;
	return (unsigned int *)((char *)page_address(head) + s->free_map_offset);
}

#define MAP_WORD(m, i) ((m)[(i) / MAP_WORD_BITS])
#define MAP_BIT(i) (1u << ((i) % MAP_WORD_BITS))
static bool free_bit(const unsigned int *m, unsigned int i) { return MAP_WORD(m, i) & MAP_BIT(i); }
static void set_free_bit(unsigned int *m, unsigned int i) { MAP_WORD(m, i) |= MAP_BIT(i); }
static void clear_free_bit(unsigned int *m, unsigned int i) { MAP_WORD(m, i) &= ~MAP_BIT(i); }

static void **free_pointer(const struct kmem_cache *s, void *obj)
{
	return (void **)((char *)obj + s->offset);
}

/* Rebuilds the free list from the free map, which is authoritative. */
static void rebuild_freelist(struct kmem_cache *s, struct page *head)
{
	const unsigned int *map = free_map(s, head);
	char *base = page_address(head);
	void *list = NULL;

	for (unsigned int i = s->objects; i-- > 0;) {
		if (free_bit(map, i)) {
			*free_pointer(s, base + (size_t)i * s->size) = list;
			list = base + (size_t)i * s->size;
		}
	}
	head->freelist = list;
}

static struct list_head *list_for_slab(struct kmem_cache_node *n, struct page *head)
{
	if (head->inuse == 0)
		return &n->empty;
	return head->inuse == head->objects ? &n->full : &n->partial;
}

static unsigned long *count_for_list(struct kmem_cache_node *n, struct list_head *l)
{
	return l == &n->empty ? &n->nr_empty : l == &n->full ? &n->nr_full : &n->nr_partial;
}

static void slab_list_add(struct kmem_cache_node *n, struct page *head)
{
	struct list_head *l = list_for_slab(n, head);
	list_add(&head->slab_list, l);
	(*count_for_list(n, l))++;
}

/* After inuse changed: the slab moves from the list it was on to the one
 * its fill now asks for, if they differ (a partial slab that stays
 * partial keeps its place). */
static void slab_list_update(struct kmem_cache_node *n, struct page *head, struct list_head *from)
{
	struct list_head *to = list_for_slab(n, head);
	if (to == from)
		return;
	list_move(&head->slab_list, to);
	(*count_for_list(n, from))--;
	(*count_for_list(n, to))++;
}

/* Takes a free object from a slab that has one; n->list_lock held. Moves
 * the slab between lists as its fill changes. */
static void *slab_take_object(struct kmem_cache *s, struct kmem_cache_node *n, struct page *head)
{
	unsigned int *map = free_map(s, head);
	void *obj = head->freelist;
	long i = slot_index(s, head, obj);

	if (i < 0 || !free_bit(map, (unsigned int)i)) {
		pr_err("BUG: slab %s: free list of the slab at %p is corrupted (%p: a write after "
		       "free?), rebuilt from the free map\n",
		       s->name, page_address(head), obj);
		rebuild_freelist(s, head);
		obj = head->freelist;
		i = slot_index(s, head, obj);
		if (i < 0) /* the free map itself is gone: nothing left to trust */
			panic("slab %s: the slab at %p lost its free map", s->name,
			      page_address(head));
	}
	struct list_head *from = list_for_slab(n, head);
	head->freelist = *free_pointer(s, obj);
	clear_free_bit(map, (unsigned int)i);
	head->inuse++;
	n->nr_inuse++;
	slab_list_update(n, head, from);
	return obj;
}

/* A new slab from the page allocator, every slot free and constructed.
 * Not on any list yet. */
static struct page *new_slab(struct kmem_cache *s, gfp_t gfp, int nid)
{
	if (s->flags & SLAB_RECLAIM_ACCOUNT)
		gfp |= __GFP_RECLAIMABLE;
	struct page *head = alloc_pages_node(nid, gfp & ~__GFP_ZERO, s->order);
	if (!head)
		return NULL;
	__atomic_add_fetch(&slab_pages, 1ul << s->order, __ATOMIC_RELAXED);

	for (unsigned int i = 0; i < 1u << s->order; i++) {
		struct page *p = head + i;
		page_set_flag(p, PG_slab);
		p->slab_cache = s;
		p->slab_list.next = p->slab_list.prev = NULL;
		p->freelist = NULL;
		p->inuse = 0;
		p->objects = i ? 0 : (unsigned short)s->objects;
		p->slab_pad = i; /* tails: the way back to the head */
	}

	/* An inline map takes over the head's slab_pad (a head is known by
	 * objects != 0, not by slab_pad == 0). */
	unsigned int *map = free_map(s, head);
	if (s->objects <= SLAB_INLINE_MAP_OBJECTS)
		*map = 0;
	else
		memset(map, 0, free_map_bytes(s->objects));
	char *base = page_address(head);
	for (unsigned int i = 0; i < s->objects; i++) {
		set_free_bit(map, i);
		if (s->ctor)
			s->ctor(base + (size_t)i * s->size);
	}
	rebuild_freelist(s, head);
	return head;
}

/* Gives a slab that is on no list back to the page allocator, leaving its
 * struct pages as the page allocator handed them out: no slab field set,
 * lru and private clear, the head's private the order. */
static void discard_slab(struct kmem_cache *s, struct page *head)
{
	unsigned int order = s->order;

	for (unsigned int i = 0; i < 1u << order; i++) {
		struct page *p = head + i;
		page_clear_flag(p, PG_slab);
		p->slab_cache = NULL;
		p->slab_list.next = p->slab_list.prev = NULL;
		p->freelist = NULL;
		p->inuse = p->objects = 0;
		p->slab_pad = 0;
		p->lru.next = p->lru.prev = NULL;
		p->private = 0;
	}
	if (order)
		head->private = order; /* the page allocator's record of a PG_head block */
	__atomic_sub_fetch(&slab_pages, 1ul << order, __ATOMIC_RELAXED);
	__free_pages(head, order);
}

/* The node whose slabs serve allocations for nid: nid itself, or for a node
 * without memory the nearest node with memory (where the page allocator
 * would put a new slab anyway). */
static int slab_mem_node(int nid)
{
	if (NODE_DATA(nid) && NODE_DATA(nid)->managed_pages)
		return nid;
	pg_data_t *pgdat = NODE_DATA(nid);
	if (pgdat && pgdat->nr_fallback > 0)
		return pgdat->fallback[0];
	return nid;
}

/* An object from one of node n's partial or empty slabs, or NULL. */
static void *take_from_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned long flags;
	void *obj = NULL;
	spin_lock_irqsave(&n->list_lock, flags);
	struct list_head *from = !list_empty(&n->partial) ? &n->partial
				 : !list_empty(&n->empty) ? &n->empty
							  : NULL;
	if (from)
		obj = slab_take_object(s, n, list_entry(from->next, struct page, slab_list));
	spin_unlock_irqrestore(&n->list_lock, flags);
	return obj;
}

/* An object from a new slab; the page allocator may have fallen back to
 * another node: the slab belongs to the node its memory is on. */
static void *alloc_from_new_slab(struct kmem_cache *s, gfp_t gfp, int nid)
{
	unsigned long flags;
	struct page *head = new_slab(s, gfp, nid);
	if (!head)
		return NULL;
	struct kmem_cache_node *n = &s->node[page_to_nid(head)];
	spin_lock_irqsave(&n->list_lock, flags);
	slab_list_add(n, head);
	void *obj = slab_take_object(s, n, head);
	spin_unlock_irqrestore(&n->list_lock, flags);
	return obj;
}

/* ---- the cache interface ---- */

/* A request for a node's own memory or nothing, which gives up rather than
 * reclaim (Linux's mm/slab.c gfp_exact_node). */
static inline gfp_t gfp_exact_node(gfp_t gfp)
{
	return (gfp | __GFP_THISNODE | __GFP_NOWARN | __GFP_NORETRY) & ~(__GFP_RECLAIM | __GFP_NOFAIL);
}

/* The probe of the home node for a new slab is worth making only while the
 * node is above its min watermark, the test the page allocator would make
 * (Linux's slow path gives up there too, for a request that may not
 * reclaim): on a full node, every allocation of every cache would
 * otherwise go through the allocator's slow path to fail (4 million times
 * in the user suite of a 16-node machine with 64 MiB nodes). */
static bool node_may_grow(const pg_data_t *pgdat, unsigned int order)
{
	return pgdat && (long)READ_ONCE(pgdat->nr_free) - (1l << order) >= (long)pgdat->watermark[WMARK_MIN];
}

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int nid)
{
	void *obj = NULL;

	if (!s)
		return NULL;
	if (nid == NUMA_NO_NODE)
		nid = numa_node_id();
	if (nid < 0 || nid >= MAX_NUMNODES) {
		pr_err("kmem_cache_alloc_node: %s: no node %d\n", s->name, nid);
		return NULL;
	}

	/* __GFP_THISNODE: only nid's own slabs will do. */
	int home = gfp & __GFP_THISNODE ? nid : slab_mem_node(nid);
	obj = take_from_node(s, &s->node[home]);
	if (!obj && !(gfp & __GFP_THISNODE)) {
		/* A new slab on the home node first; when it has no memory
		 * left, objects from other nodes' slabs, nearest first, rather
		 * than a new slab elsewhere for every allocation (as SLUB's
		 * get_any_partial). The probe of the home node never reclaims
		 * (SLAB's gfp_exact_node): once that node is at its watermark,
		 * direct reclaim would drain every CPU's lists by IPI for each
		 * new slab, only to fail, while the nodes nearby have memory
		 * (1,000 forks on 64 MiB nodes spent 9 in 10 of their time so). */
		pg_data_t *pgdat = NODE_DATA(home);
		if (node_may_grow(pgdat, s->order))
			obj = alloc_from_new_slab(s, gfp_exact_node(gfp), home);
		for (int i = 0; !obj && pgdat && i < pgdat->nr_fallback; i++)
			if (pgdat->fallback[i] != home)
				obj = take_from_node(s, &s->node[pgdat->fallback[i]]);
	}
	if (!obj)
		obj = alloc_from_new_slab(s, gfp, nid);
	if (!obj)
		return NULL;
	if (gfp & __GFP_ZERO)
		memset(obj, 0, s->object_size);
	return obj;
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp)
{
	return kmem_cache_alloc_node(s, gfp, NUMA_NO_NODE);
}

void slab_free(struct kmem_cache *s, struct page *head, const void *obj, const char *func,
	       void *caller)
{
	long i = slot_index(s, head, obj);
	unsigned long flags;
	bool discard = false;

	if (i < 0) {
		report_bad_free(func, obj, s->name, "not the start of an object", caller);
		return;
	}

	struct kmem_cache_node *n = &s->node[page_to_nid(head)];
	unsigned int *map = free_map(s, head);
	spin_lock_irqsave(&n->list_lock, flags);
	if (free_bit(map, (unsigned int)i)) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		report_bad_free(func, obj, s->name, "double free", caller);
		return;
	}
	struct list_head *from = list_for_slab(n, head);
	*free_pointer(s, (void *)obj) = head->freelist;
	head->freelist = (void *)obj;
	set_free_bit(map, (unsigned int)i);
	head->inuse--;
	n->nr_inuse--;
	if (head->inuse == 0 && n->nr_empty >= SLAB_MAX_EMPTY) {
		list_del(&head->slab_list);
		(*count_for_list(n, from))--;
		discard = true;
	} else {
		slab_list_update(n, head, from);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);

	if (discard)
		discard_slab(s, head);
}

void kmem_cache_free(struct kmem_cache *s, void *obj)
{
	void *caller = __builtin_return_address(0);
	struct page *page;

	if (!obj)
		return;
	page = pointer_to_page(obj);
	if (!page || !PageSlab(page)) {
		report_bad_free("kmem_cache_free", obj, s ? s->name : "?", "not a slab object",
				caller);
		return;
	}
	if (page->slab_cache != s) {
		report_bad_free("kmem_cache_free", obj, s ? s->name : "?",
				"object of another cache", caller);
		return;
	}
	slab_free(s, slab_head(page), obj, "kmem_cache_free", caller);
}

/* Every empty slab of s goes back to the page allocator (for
 * kmem_cache_shrink and the destroy paths in slab_common.c). */
void __kmem_cache_shrink(struct kmem_cache *s)
{
	unsigned long flags;

	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = &s->node[nid];
		LIST_HEAD(discard);

		spin_lock_irqsave(&n->list_lock, flags);
		while (!list_empty(&n->empty)) {
			struct list_head *e = n->empty.next;
			list_move(e, &discard);
			n->nr_empty--;
		}
		spin_unlock_irqrestore(&n->list_lock, flags);

		while (!list_empty(&discard)) {
			struct page *head = list_first_entry(&discard, struct page, slab_list);
			list_del(&head->slab_list);
			discard_slab(s, head);
		}
	}
}
