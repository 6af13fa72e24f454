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
 * Each CPU has a slab of each cache it allocates from, frozen for it
 * (SLUB's cpu slab, mm/slub.c; Christoph Lameter, "SLUB: The unqueued slab
 * allocator", https://lwn.net/Articles/229984/): the CPU moves the slab's
 * free list into its struct kmem_cache_cpu and then allocates and frees
 * objects of that slab with interrupts off and no lock, a pop and a push.
 * Other CPUs free objects into a frozen slab under the node's lock, onto
 * the slab's own free list, which its CPU takes over when its own runs
 * out. A CPU freezes only slabs of its own memory node as its CPU slab;
 * requests for other nodes' memory take objects one at a time under the
 * lock. A CPU may also freeze a slab of another node's memory as its free
 * slab, which takes only frees: the second free in a row into a slab no
 * CPU has (a process freeing at exit what it allocated together) freezes
 * that slab as the CPU slab or the free slab, whichever its node makes it.
 *
 * Invariants, for every slab (under its node's list_lock):
 *  - the free map's set bits are exactly the free slots: those on the
 *    slab's free list and, for a frozen slab, those on its CPU's;
 *  - a slab that is not frozen is on exactly one list of
 *    s->node[page_to_nid(head)]: full when inuse == objects, empty when
 *    inuse == 0, partial otherwise (a one-object slab that is not full is
 *    on the empty list), and inuse == objects - (length of its free list);
 *  - a frozen slab is on no list (slab_list.next is NULL) and is the page
 *    of exactly one struct frozen_slab, a CPU's slab or free slab; its
 *    inuse counts the objects not on its own free list, so those on the
 *    frozen_slab's count as in use, in inuse as in the node's nr_inuse,
 *    and the frozen_slab's nr_free says how many they are
 *    (slab_objects_in_use() takes them off);
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
 * caches and is taken before any list_lock. A kmem_cache_cpu is touched
 * only by its own CPU with interrupts off; since that CPU clears and sets
 * bits of its slabs' free maps without the lock while others free into
 * the slabs under it, the bit changes of the fast paths and of frees are
 * atomic. */
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
		s->objects_bytes = s->objects * s->size;
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
/* The bit changes a frozen slab may see from two CPUs at once (see the
 * locking note at the top): the bit as it was. */
static bool test_and_clear_free_bit(unsigned int *m, unsigned int i)
{
	return __atomic_fetch_and(&MAP_WORD(m, i), ~MAP_BIT(i), __ATOMIC_RELAXED) & MAP_BIT(i);
}
static bool test_and_set_free_bit(unsigned int *m, unsigned int i)
{
	return __atomic_fetch_or(&MAP_WORD(m, i), MAP_BIT(i), __ATOMIC_RELAXED) & MAP_BIT(i);
}

static void **free_pointer(const struct kmem_cache *s, void *obj)
{
	return (void **)((char *)obj + s->offset);
}

/* Rebuilds the free list from the free map, which is authoritative, in
 * address order; returns its length. */
static unsigned int rebuild_freelist(struct kmem_cache *s, struct page *head)
{
	const unsigned int *map = free_map(s, head);
	char *base = page_address(head);
	void *list = NULL;
	unsigned int free = 0;

	for (unsigned int i = s->objects; i-- > 0;) {
		if (free_bit(map, i)) {
			*free_pointer(s, base + (size_t)i * s->size) = list;
			list = base + (size_t)i * s->size;
			free++;
		}
	}
	head->freelist = list;
	return free;
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

/* Takes the slab off the list it is on (from, its fill's). */
static void slab_list_del(struct kmem_cache_node *n, struct page *head, struct list_head *from)
{
	list_del(&head->slab_list);
	(*count_for_list(n, from))--;
}

/* The list of node n a slab with a free object comes from: its partial
 * slabs first, then its empty ones; NULL if it has neither. */
static struct list_head *list_with_free(struct kmem_cache_node *n)
{
	return !list_empty(&n->partial) ? &n->partial : !list_empty(&n->empty) ? &n->empty : NULL;
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
	void *list = NULL;
	for (unsigned int i = s->objects; i-- > 0;) {
		void *obj = base + (size_t)i * s->size;
		set_free_bit(map, i);
		if (s->ctor)
			s->ctor(obj);
		*free_pointer(s, obj) = list;
		list = obj;
	}
	head->freelist = list; /* in address order, as rebuild_freelist makes it */
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

/* ---- a CPU's slab ---- */

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

/* The node whose memory this CPU's slabs hold: its own node's, or the
 * nearest memory's (slab_mem_node). Interrupts off, so the CPU stays. */
static int cpu_slab_node(void) { return slab_mem_node(numa_node_id()); }

static struct kmem_cache_cpu *this_cpu_slab(struct kmem_cache *s)
{
	return &s->cpu_slab[smp_processor_id()];
}

static bool slab_frozen(const struct page *head) { return !head->slab_list.next; }

/* Makes head (on no list, node n's, n->list_lock held) the frozen slab f
 * of this CPU, or takes the objects other CPUs freed into it when it
 * already is: its free list becomes f's, and those objects count as in
 * use in the slab and its node from now on, f's nr_free saying how many
 * they are. f has no free objects of its own. */
static void freeze_slab(struct kmem_cache_node *n, struct frozen_slab *f, struct page *head, int nid)
{
	unsigned int free = head->objects - head->inuse;

	head->slab_list.next = head->slab_list.prev = NULL;
	f->page = head;
	f->node = nid;
	f->freelist = head->freelist;
	f->nr_free = free;
	head->freelist = NULL;
	head->inuse = head->objects;
	n->nr_inuse += free;
}

/* Every free object of f's slab back on the slab's own free list, and
 * counted as free again; n is the slab's node, n->list_lock held (so no
 * other CPU frees into the slab meanwhile). The slab stays f's.
 *
 * f's list goes after the objects other CPUs freed into the slab (usually
 * none, so this is one store), unchecked: a damaged list is found when an
 * object is taken off it, as any slab's. With rebuild (f's list is known
 * to be damaged), the whole list is rebuilt from the free map instead. */
static void cpu_slab_fold(struct kmem_cache *s, struct kmem_cache_node *n, struct frozen_slab *f,
			  bool rebuild)
{
	struct page *head = f->page;
	unsigned int inuse = head->inuse - f->nr_free;
	void **tail = &head->freelist;

	/* A pointer out of the slab, or a cycle, means damage. */
	for (unsigned int steps = 0; !rebuild && *tail; steps++) {
		if (steps == head->objects || slot_index(s, head, *tail) < 0)
			rebuild = true;
		else
			tail = free_pointer(s, *tail);
	}
	if (rebuild)
		inuse = head->objects - rebuild_freelist(s, head);
	else
		*tail = f->freelist;
	n->nr_inuse -= head->inuse - inuse;
	head->inuse = (unsigned short)inuse;
	f->freelist = NULL;
	f->nr_free = 0;
}

/* Unfreezes f's slab (SLUB's deactivate_slab): its free objects back on
 * its own list, the slab on the node list its fill asks for. Returns the
 * slab when it is empty and its node keeps enough empty ones: the caller
 * gives it back to the page allocator once the lock is dropped. n is the
 * slab's node, n->list_lock held. */
static struct page *deactivate_slab(struct kmem_cache *s, struct kmem_cache_node *n,
				    struct frozen_slab *f)
{
	struct page *head = f->page;

	cpu_slab_fold(s, n, f, false);
	f->page = NULL;
	if (head->inuse == 0 && n->nr_empty >= SLAB_MAX_EMPTY)
		return head;
	slab_list_add(n, head);
	return NULL;
}

/* Unfreezes f's slab, if it has one, taking its node's lock. Interrupts
 * off. */
static void flush_frozen_slab(struct kmem_cache *s, struct frozen_slab *f)
{
	struct page *discard;

	if (!f->page)
		return;
	struct kmem_cache_node *n = &s->node[f->node];
	spin_lock(&n->list_lock);
	discard = deactivate_slab(s, n, f);
	spin_unlock(&n->list_lock);
	if (discard)
		discard_slab(s, discard);
}

/* The CPU slab's free list led to obj, which is not a free object of its
 * slab: every free object of the slab goes back on the slab's own list,
 * from the free map. Interrupts off. */
static __noinline void cpu_slab_damaged(struct kmem_cache *s, struct frozen_slab *f, void *obj)
{
	struct kmem_cache_node *n = &s->node[f->node];

	pr_err("BUG: slab %s: free list of the CPU slab at %p is corrupted (%p: a write after "
	       "free?), rebuilt from the free map\n",
	       s->name, page_address(f->page), obj);
	spin_lock(&n->list_lock);
	cpu_slab_fold(s, n, f, true);
	spin_unlock(&n->list_lock);
}

/* Takes obj, the first object of the CPU slab's free list, if it is a free
 * slot of the slab: NULL if the list is damaged (it leads elsewhere),
 * which is left as it is. Reports nothing and calls nothing, for
 * kmem_cache_alloc_node's fast path. Interrupts off. */
static __always_inline void *cpu_slab_take(struct kmem_cache *s, struct frozen_slab *f, void *obj)
{
	struct page *head = f->page;
	long i = slot_index(s, head, obj);

	if (unlikely(i < 0 || !test_and_clear_free_bit(free_map(s, head), (unsigned int)i)))
		return NULL;
	f->freelist = *free_pointer(s, obj);
	f->nr_free--;
	return obj;
}

/* An object off the CPU slab's free list (which has one), or NULL if the
 * list is damaged: it is reported and folded back into the slab's own
 * list, rebuilt from the free map, which cpu_slab_refill then freezes
 * again. Interrupts off. */
static inline void *cpu_slab_pop(struct kmem_cache *s, struct frozen_slab *f)
{
	void *obj = cpu_slab_take(s, f, f->freelist);
	if (unlikely(!obj))
		cpu_slab_damaged(s, f, f->freelist);
	return obj;
}

/* An object from this CPU's slab of node nid's memory, refilled when it
 * has none (SLUB's ___slab_alloc): the objects other CPUs freed into the
 * slab, else the node's first partial or empty slab, frozen in place of
 * the one the CPU had; else, with fresh (a new slab of nid's, on no list)
 * that one. NULL if nid has no slab with a free object. Interrupts off. */
static void *cpu_slab_refill(struct kmem_cache *s, int nid, struct page *fresh)
{
	struct frozen_slab *f = &this_cpu_slab(s)->slab;
	struct kmem_cache_node *n;
	struct page *discard = NULL, *head = fresh;

	if (f->freelist && f->node == nid && !fresh) {
		void *obj = cpu_slab_pop(s, f);
		if (obj)
			return obj;
		/* A damaged list, folded back into the slab's own: take that. */
	}
	if (f->page) {
		n = &s->node[f->node];
		spin_lock(&n->list_lock);
		if (f->node == nid && !fresh && f->page->freelist) {
			freeze_slab(n, f, f->page, nid);
			spin_unlock(&n->list_lock);
			return cpu_slab_pop(s, f);
		}
		discard = deactivate_slab(s, n, f);
		spin_unlock(&n->list_lock);
	}
	n = &s->node[nid];
	spin_lock(&n->list_lock);
	if (!head) {
		struct list_head *from = list_with_free(n);
		if (from) {
			head = list_entry(from->next, struct page, slab_list);
			slab_list_del(n, head, from);
		}
	}
	if (head)
		freeze_slab(n, f, head, nid);
	spin_unlock(&n->list_lock);
	if (discard)
		discard_slab(s, discard);
	return head ? cpu_slab_pop(s, f) : NULL;
}

void flush_cpu_slab(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);

	flush_frozen_slab(s, &c->slab);
	flush_frozen_slab(s, &c->free_slab);
}

/* An object from one of node n's partial or empty slabs, or NULL. */
static void *take_from_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned long flags;
	void *obj = NULL;
	spin_lock_irqsave(&n->list_lock, flags);
	struct list_head *from = list_with_free(n);
	if (from)
		obj = slab_take_object(s, n, list_entry(from->next, struct page, slab_list));
	spin_unlock_irqrestore(&n->list_lock, flags);
	return obj;
}

/* An object from a new slab; the page allocator may have fallen back to
 * another node: the slab belongs to the node its memory is on. A slab of
 * this CPU's memory becomes its CPU slab; another goes on its node's lists. */
static void *alloc_from_new_slab(struct kmem_cache *s, gfp_t gfp, int nid)
{
	unsigned long flags;
	void *obj;
	struct page *head = new_slab(s, gfp, nid);
	if (!head)
		return NULL;
	int slab_nid = page_to_nid(head);
	local_irq_save(flags);
	if (slab_nid == cpu_slab_node()) {
		obj = cpu_slab_refill(s, slab_nid, head);
	} else {
		struct kmem_cache_node *n = &s->node[slab_nid];
		spin_lock(&n->list_lock);
		slab_list_add(n, head);
		obj = slab_take_object(s, n, head);
		spin_unlock(&n->list_lock);
	}
	local_irq_restore(flags);
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

/* The slow path of kmem_cache_alloc_node: this CPU's slab has no object
 * for nid (or its free list is damaged: cpu_slab_refill's pop reports
 * and repairs it). Zeroes a __GFP_ZERO object itself. */
static __noinline void *__slab_alloc(struct kmem_cache *s, gfp_t gfp, int nid)
{
	unsigned long flags;
	void *obj;

	if (nid == NUMA_NO_NODE)
		nid = numa_node_id();
	if (nid < 0 || nid >= MAX_NUMNODES) {
		pr_err("kmem_cache_alloc_node: %s: no node %d\n", s->name, nid);
		return NULL;
	}

	/* __GFP_THISNODE: only nid's own slabs will do. Objects of this CPU's
	 * memory come through its CPU slab, others one by one. */
	int home = gfp & __GFP_THISNODE ? nid : slab_mem_node(nid);
	local_irq_save(flags);
	if (home == cpu_slab_node())
		obj = cpu_slab_refill(s, home, NULL);
	else
		obj = take_from_node(s, &s->node[home]);
	local_irq_restore(flags);
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
	if (obj && (gfp & __GFP_ZERO))
		memset(obj, 0, s->object_size);
	return obj;
}

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int nid)
{
	unsigned long flags;
	void *obj = NULL;

	if (unlikely(!s))
		return NULL;
	/* The fast path (SLUB's slab_alloc_node): a pop off this CPU's slab,
	 * whose memory is this CPU's node's, when that is what nid asks. It
	 * calls nothing except in tail position, so no call's registers are
	 * saved around it: a free list that leads to no free object of the
	 * slab is left as it is, and the slow path's pop (cpu_slab_pop)
	 * reports and repairs it. */
	local_irq_save(flags);
	struct frozen_slab *f = &this_cpu_slab(s)->slab;
	asm("" : "+r"(f)); /* one address for the CPU slab, not three */
	void *first = f->freelist;
	if (likely(first && (nid == f->node || (nid == NUMA_NO_NODE && !(gfp & __GFP_THISNODE)))))
		obj = cpu_slab_take(s, f, first);
	local_irq_restore(flags);
	if (unlikely(!obj))
		return __slab_alloc(s, gfp, nid);
	if (gfp & __GFP_ZERO)
		return memset(obj, 0, s->object_size);
	return obj;
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp)
{
	return kmem_cache_alloc_node(s, gfp, NUMA_NO_NODE);
}

/* The slow path of slab_free (SLUB's __slab_free): obj, slot i, is not
 * in a slab frozen for this CPU. Six arguments, all in registers, so
 * that slab_free's call is a jump. */
static __noinline void __slab_free(struct kmem_cache *s, struct page *head, const void *obj,
				   unsigned int i, const char *func, void *caller)
{
	unsigned long flags;
	local_irq_save(flags);
	int nid = page_to_nid(head);
	struct kmem_cache_node *n = &s->node[nid];
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	struct page *discard = NULL;

	/* The second free in a row into this slab (a process freeing, at
	 * exit, what it allocated together): unless another CPU has it, the
	 * slab becomes this CPU's, so that the next frees into it take the
	 * fast path. A slab of this CPU's memory becomes its CPU slab, which
	 * allocations reuse; another node's becomes its free slab, in place
	 * of the one it had, given back first under that slab's node lock. */
	struct frozen_slab *f = NULL;
	if (c->last_free == head) {
		f = nid == cpu_slab_node() ? &c->slab : &c->free_slab;
		if (f == &c->free_slab || (f->page && f->node != nid))
			flush_frozen_slab(s, f);
	}
	spin_lock(&n->list_lock);
	if (test_and_set_free_bit(free_map(s, head), i)) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		report_bad_free(func, obj, s->name, "double free", caller);
		return;
	}
	/* A slab on its node's lists, or another CPU's: onto the slab's own
	 * list, from which that CPU takes them back once its own runs out. */
	bool frozen = slab_frozen(head);
	struct list_head *from = frozen ? NULL : list_for_slab(n, head);
	*free_pointer(s, (void *)obj) = head->freelist;
	head->freelist = (void *)obj;
	head->inuse--;
	n->nr_inuse--;
	if (frozen) {
		/* it stays that CPU's slab, on no list */
	} else if (f) {
		slab_list_del(n, head, from);
		if (f->page) /* the CPU slab, of this node too */
			discard = deactivate_slab(s, n, f);
		freeze_slab(n, f, head, nid);
	} else if (head->inuse == 0 && n->nr_empty >= SLAB_MAX_EMPTY) {
		slab_list_del(n, head, from);
		discard = head;
	} else {
		slab_list_update(n, head, from);
	}
	c->last_free = head;
	spin_unlock_irqrestore(&n->list_lock, flags);

	if (discard)
		discard_slab(s, discard);
}

void slab_free(struct kmem_cache *s, struct page *head, const void *obj, const char *func,
	       void *caller)
{
	long i = slot_index(s, head, obj);
	unsigned long flags;

	if (unlikely(i < 0)) {
		report_bad_free(func, obj, s->name, "not the start of an object", caller);
		return;
	}
	local_irq_save(flags);
	/* The fast path (SLUB's do_slab_free): a push onto a slab frozen for
	 * this CPU, its CPU slab or its free slab. */
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	struct frozen_slab *f = c->slab.page == head ? &c->slab
				: c->free_slab.page == head ? &c->free_slab
							    : NULL;
	if (unlikely(!f)) {
		local_irq_restore(flags);
		__slab_free(s, head, obj, (unsigned int)i, func, caller);
		return;
	}
	if (unlikely(test_and_set_free_bit(free_map(s, head), (unsigned int)i))) {
		local_irq_restore(flags);
		report_bad_free(func, obj, s->name, "double free", caller);
		return;
	}
	*free_pointer(s, (void *)obj) = f->freelist;
	f->freelist = (void *)obj;
	f->nr_free++;
	local_irq_restore(flags);
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
