/* What the slab core (mm/slab.c), the cache list and lifecycle
 * (mm/slab_common.c) and kmalloc (mm/kmalloc.c) share: the layout of a
 * cache, and the few slab operations the other two are built on. Only
 * those three files include it; everyone else uses mm/slab.h. */
#ifndef MM_SLAB_INTERNAL_H
#define MM_SLAB_INTERNAL_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "kernel/topology.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/slab.h"

struct kmem_cache_node {
	spinlock_t list_lock;
	struct list_head partial, full, empty; /* of head pages, by slab_list */
	unsigned long nr_partial, nr_full, nr_empty;
	unsigned long nr_inuse; /* objects allocated from this node's slabs */
};

/* A slab frozen for one CPU: taken off its node's lists, its free objects
 * on the CPU's own list, which the CPU pops and pushes without a lock.
 * Touched only by its own CPU, with interrupts off (see mm/slab.c). */
struct frozen_slab {
	void *freelist;       /* free objects only this CPU takes and gives */
	struct page *page;    /* the frozen slab, or NULL */
	unsigned int nr_free; /* length of freelist */
	int node;             /* page's node */
};

/* A CPU's slabs of a cache (SLUB's struct kmem_cache_cpu). */
struct kmem_cache_cpu {
	struct frozen_slab slab;      /* of this CPU's memory: allocations and frees */
	struct frozen_slab free_slab; /* of another node's memory: frees only */
	struct page *last_free; /* the slab of this CPU's last free into a slab not its own */
};

struct kmem_cache {
	char name[32];
	unsigned int object_size; /* what the user asked for: ksize() */
	unsigned int size;        /* slot size: object (+ free pointer), aligned */
	unsigned int align;
	unsigned int offset;      /* of the free pointer inside a free slot */
	unsigned int order;       /* of each slab */
	unsigned int objects;     /* slots per slab */
	unsigned int free_map_offset; /* of the free map inside a slab, when it is there */
	unsigned int reciprocal_size; /* ceil(2^32 / size): slot_index without a division */
	unsigned int objects_bytes; /* objects * size: the bytes of a slab its slots cover */
	unsigned long flags;
	void (*ctor)(void *);
	bool boot; /* its struct is static (kmem_cache, kmalloc-*): never destroyed */
	bool dead; /* destroyed while objects were live: freed once they are */
	struct list_head list; /* slab_caches */
	struct kmem_cache_cpu cpu_slab[NR_CPUS];
	struct kmem_cache_node node[MAX_NUMNODES];
};

/* Sets up a cache's layout and node lists from the request (mm/slab.c);
 * calculate_order then picks the slab order, false if no slot fits. */
void kmem_cache_setup(struct kmem_cache *s, const char *name, unsigned int size,
		      unsigned int align, unsigned long flags, void (*ctor)(void *));
bool calculate_order(struct kmem_cache *s);
/* Gives the cache's empty slabs back to the page allocator (mm/slab.c);
 * the callers hold slab_caches_lock. */
void __kmem_cache_shrink(struct kmem_cache *s);
/* Pages in slabs, for nr_slab_pages() (mm/slab.c keeps it: atomic, as
 * new_slab and discard_slab hold no lock). */
extern unsigned long slab_pages;

/* kmem_cache_init() has run: caches can be created, kmalloc works. */
bool slab_is_available(void);
/* During kmem_cache_init(): sets up a cache in static storage. */
void create_boot_cache(struct kmem_cache *s, const char *name, unsigned int size);
/* The kmalloc size classes (mm/kmalloc.c), made by kmem_cache_init(). */
void create_kmalloc_caches(void);

/* The struct page of a kernel pointer, or NULL if there is none for it
 * (kfree and kmem_cache_free take any pointer, virt_to_page only good ones). */
static inline struct page *pointer_to_page(const void *obj)
{
	uintptr_t a = (uintptr_t)obj;
	/* Only the direct map and the kernel image have struct pages. */
	if (a < PAGE_OFFSET || (a >= PAGE_OFFSET + (1ul << MAX_PHYSMEM_BITS) && a < KERNEL_VMA))
		return NULL;
	unsigned long pfn = __pa(obj) >> PAGE_SHIFT;
	return pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
}

/* The head page of the slab that page (PG_slab) belongs to. */
static inline struct page *slab_head(struct page *page)
{
	return page->objects ? page : page - page->slab_pad;
}

/* The slot index of obj in the slab at head, or -1 if obj is not the start
 * of a slot. The quotient comes from a multiplication by the size's
 * reciprocal (Linux's obj_to_index), exact for every offset in a slab,
 * and a pointer inside a slot is one whose quotient does not multiply
 * back to its offset. */
static inline long slot_index(const struct kmem_cache *s, struct page *head, const void *obj)
{
	/* Below the slab, off wraps around: one test for both ends. */
	uintptr_t off = (uintptr_t)obj - (uintptr_t)page_address(head);
	if (off >= s->objects_bytes)
		return -1;
	u32 i = (u32)(((u64)off * s->reciprocal_size) >> 32);
	return i * s->size == (u32)off ? (long)i : -1;
}

/* Returns obj's slot to the slab at head; reports (and ignores) a pointer
 * that is not an allocated object of that slab. func names the interface
 * called (kfree, kmem_cache_free) and caller its caller, for the report. */
void slab_free(struct kmem_cache *s, struct page *head, const void *obj, const char *func,
	       void *caller);
/* Gives this CPU's slab of s back to its node's lists (SLUB's
 * flush_slab); interrupts off. */
void flush_cpu_slab(struct kmem_cache *s);
/* Objects of s allocated and not freed: the nodes' counts, less what the
 * CPUs' free lists hold. Exact when no CPU is allocating from s. */
unsigned long cache_objects_in_use(struct kmem_cache *s);
/* Counts and prints a refused free ("BUG: func: reason: ..."). */
void report_bad_free(const char *func, const void *obj, const char *cache, const char *reason,
		     void *caller);

#endif
