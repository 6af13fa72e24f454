/* Slab caches (mm/slab.c) and kmalloc (mm/kmalloc.c).
 *
 * A cache hands out objects of one size from slabs: runs of pages from the
 * page allocator, each on one node, carved into objects. Free objects of a
 * slab form a list threaded through the objects themselves. Each cache keeps
 * per-node lists of partial and full slabs, so an object from
 * kmem_cache_alloc_node(c, gfp, nid) lives on nid when nid has memory.
 *
 * kmalloc rounds a request up to a size class (8 bytes .. 8 KiB) and uses
 * that class's cache; larger requests are served by the page allocator
 * directly (PG_large_kmalloc). kfree() finds what owns a pointer from its
 * struct page; a double free, or a pointer kmalloc never returned, is
 * reported (and ignored), never silently accepted. */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "mm/gfp.h"
#include "mm/numa.h"

#define KMALLOC_MIN_SIZE 8
#define KMALLOC_MAX_CACHE_SIZE 8192

/* kmalloc(0) returns ZERO_SIZE_PTR, as in Linux: not NULL (not a failure),
 * but any access faults; kfree and ksize accept it. */
#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

/* kmem_cache_create flags (Linux's value); others are accepted and ignored. */
#define SLAB_HWCACHE_ALIGN 0x00002000ul /* align objects to a 64-byte cache line */
/* Objects a shrinker can free: the slabs come from MIGRATE_RECLAIMABLE
 * pageblocks (__GFP_RECLAIMABLE, Linux's s->allocflags). */
#define SLAB_RECLAIM_ACCOUNT 0x00020000ul

struct kmem_cache;

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp);
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int nid);
void kmem_cache_free(struct kmem_cache *s, void *obj);
/* Gives the cache's empty slabs back to the page allocator. */
void kmem_cache_shrink(struct kmem_cache *s);
void kmem_cache_shrink_all(void);

void *kmalloc(size_t size, gfp_t gfp);
void *kmalloc_node(size_t size, gfp_t gfp, int nid);
void *kzalloc(size_t size, gfp_t gfp);
void *kzalloc_node(size_t size, gfp_t gfp, int nid);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
void kfree(const void *obj);
/* The usable size of a kmalloc'ed object (its size class or page run). */
size_t ksize(const void *obj);

void kmem_cache_init(void);
/* Objects allocated and not freed, over all caches (tests check leaks). */
unsigned long slab_objects_in_use(void);
/* Pages the caches hold in slabs, all caches and nodes: full, partial and
 * empty slabs alike, and those a cache destroyed with live objects keeps.
 * /proc/meminfo's Slab and SUnreclaim. Large kmallocs (above
 * KMALLOC_MAX_CACHE_SIZE, straight from the page allocator) are not slabs
 * and are not counted; Linux adds them to its Slab figure. */
unsigned long nr_slab_pages(void);
/* Reports of bad frees (tests look at the difference). */
extern unsigned long slab_bad_free_reports;
void show_slabinfo(void);

#endif
