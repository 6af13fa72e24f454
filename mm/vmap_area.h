/* The vmalloc area's range allocator, portable (built in the kernel and on
 * the host under ASan/UBSan: tests/host/vmalloc_tree_test.c).
 *
 * Free space is kept as Linux has kept it since 5.2 (commit 68ad4a330433
 * "mm/vmalloc.c: keep track of free blocks for vmap allocation"): one struct
 * vmap_area per free range in a red-black tree sorted by address and
 * augmented with subtree_max_size, the largest free range in the node's
 * subtree, plus a list of the same ranges in address order. The lowest
 * address that fits a request is found in O(log n) (find_vmap_lowest_match).
 *
 * Invariants (vmap_free_tree_check verifies them all): free ranges do not
 * overlap, are not empty, and never touch (adjacent ranges are merged when a
 * range is given back); the list is the in-order walk of the tree; every
 * node's subtree_max_size is the largest size in its subtree.
 *
 * Locking: none here; the kernel holds its vmap_area_lock around every call.
 * Memory: these functions allocate nothing. A split that needs a second node
 * takes it from *spare (the caller preallocates it with its own gfp, Linux's
 * ne_fit_preload), and merged-away nodes are handed to tree->free_node. */
#ifndef MM_VMAP_AREA_H
#define MM_VMAP_AREA_H

#include "lib/list.h"
#include "lib/rbtree.h"
#include "kernel/types.h"

struct vm_struct;

struct vmap_area {
	unsigned long va_start;
	unsigned long va_end; /* exclusive */
	struct rb_node rb_node; /* in the free or the busy tree */
	struct list_head list;  /* in address order, beside the tree */
	union {
		unsigned long subtree_max_size; /* in the free tree */
		struct vm_struct *vm;           /* in the busy tree (NULL: vm_map_ram) */
	};
	struct list_head purge_list; /* lazily freed, waiting for the flush */
	unsigned long flags;         /* VMAP_RAM ... (mm/vmalloc.c) */
	struct vmap_block *vb;       /* a vmap block's area: its block (mm/vmalloc.c) */
};

struct vmap_free_tree {
	struct rb_root root;
	struct list_head head;
	void (*free_node)(struct vmap_area *va);
	unsigned long nr_nodes;
	/* Set by vmap_free_alloc when the range took a whole free node (an
	 * exact fit): that node, out of the tree. The caller takes it (and
	 * sets this back to NULL): the kernel makes it the busy area's node,
	 * so that the free range's node is the same object when the area
	 * comes back, and slab pages end as they began. */
	struct vmap_area *taken;
};

static inline unsigned long va_size(const struct vmap_area *va) { return va->va_end - va->va_start; }

void vmap_free_tree_init(struct vmap_free_tree *t, void (*free_node)(struct vmap_area *va));

/* Gives [va->va_start, va->va_end) back to the free tree, merged with the
 * free ranges it touches (Linux's merge_or_add_vmap_area_augment): va is
 * either linked into the tree or handed to free_node. The range must not
 * overlap a free one (returns false and changes nothing if it does: a
 * double free). */
bool vmap_free_insert(struct vmap_free_tree *t, struct vmap_area *va);

/* The lowest address a in [vstart, vend) with a % align == 0 such that
 * [a, a + size) is free (Linux's __alloc_vmap_area), removed from the tree;
 * VMAP_NO_SPACE when none. align is a power of two >= PAGE_SIZE and size a
 * multiple of PAGE_SIZE (the caller checks). When the range lies inside a
 * free range, the left part needs a new node: *spare is used and set to
 * NULL (it must be non-NULL; if it is NULL, VMAP_NEED_SPARE is returned and
 * nothing changed).
 *
 * For align > PAGE_SIZE the search, as Linux's, descends only into subtrees
 * holding a range of size + align - 1 (which surely fits): O(log n), and
 * possibly not the lowest fit of a tighter range. */
#define VMAP_NO_SPACE (~0ul)
#define VMAP_NEED_SPARE (~1ul)
unsigned long vmap_free_alloc(struct vmap_free_tree *t, unsigned long size, unsigned long align,
			      unsigned long vstart, unsigned long vend, struct vmap_area **spare);

/* Checks every invariant above; returns 0 or a negative line number of the
 * first that fails (for the host test). */
int vmap_free_tree_check(const struct vmap_free_tree *t);

#endif
