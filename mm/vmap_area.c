/* The vmalloc area's free-range tree (see mm/vmap_area.h): Linux's
 * mm/vmalloc.c since 5.2 (Uladzislau Rezki's augmented free tree), the
 * search as Linux 5.13's find_vmap_lowest_match, the split as
 * adjust_va_to_fit_type (FL/LE/RE/NE fit types), the merge as
 * merge_or_add_vmap_area. Portable: no locks, no allocation. */
#include "mm/vmap_area.h"

#define VA_PAGE_SIZE 4096ul

static struct vmap_area *va_of(const struct rb_node *n) { return n ? rb_entry(n, struct vmap_area, rb_node) : NULL; }

static unsigned long subtree_max(const struct rb_node *n) { return n ? va_of(n)->subtree_max_size : 0; }

static unsigned long compute_subtree_max_size(const struct vmap_area *va)
{
	unsigned long m = va_size(va), l = subtree_max(va->rb_node.rb_left), r = subtree_max(va->rb_node.rb_right);
	if (l > m)
		m = l;
	if (r > m)
		m = r;
	return m;
}

static void va_cb_propagate(struct rb_node *rb, struct rb_node *stop)
{
	while (rb != stop) {
		struct vmap_area *va = va_of(rb);
		unsigned long m = compute_subtree_max_size(va);
		if (va->subtree_max_size == m)
			break;
		va->subtree_max_size = m;
		rb = rb_parent(rb);
	}
}

static void va_cb_copy(struct rb_node *old, struct rb_node *new)
{
	va_of(new)->subtree_max_size = va_of(old)->subtree_max_size;
}

static void va_cb_rotate(struct rb_node *old, struct rb_node *new)
{
	va_of(new)->subtree_max_size = va_of(old)->subtree_max_size;
	va_of(old)->subtree_max_size = compute_subtree_max_size(va_of(old));
}

static const struct rb_augment_callbacks free_va_callbacks = {
	.propagate = va_cb_propagate,
	.copy = va_cb_copy,
	.rotate = va_cb_rotate,
};

/* A node's own size changed (or it is new): every ancestor's cached
 * maximum is recomputed (Linux's augment_tree_propagate_from). The early
 * stop of va_cb_propagate is not safe when a size shrank below a child's, so
 * this walks to the root: O(log n). */
static void propagate_from(struct vmap_area *va)
{
	for (struct rb_node *n = &va->rb_node; n; n = rb_parent(n))
		va_of(n)->subtree_max_size = compute_subtree_max_size(va_of(n));
}

void vmap_free_tree_init(struct vmap_free_tree *t, void (*free_node)(struct vmap_area *va))
{
	t->root = RB_ROOT;
	INIT_LIST_HEAD(&t->head);
	t->free_node = free_node;
	t->nr_nodes = 0;
	t->taken = NULL;
}

static void unlink_va(struct vmap_free_tree *t, struct vmap_area *va)
{
	rb_erase_augmented(&va->rb_node, &t->root, &free_va_callbacks);
	list_del(&va->list);
	t->nr_nodes--;
}

bool vmap_free_insert(struct vmap_free_tree *t, struct vmap_area *va)
{
	struct rb_node **link = &t->root.rb_node, *parent = NULL;
	struct vmap_area *prev = NULL, *next = NULL; /* the free ranges around va */

	if (va->va_start >= va->va_end)
		return false;
	while (*link) {
		struct vmap_area *tmp = va_of(*link);
		parent = *link;
		if (va->va_end <= tmp->va_start) {
			next = tmp;
			link = &(*link)->rb_left;
		} else if (va->va_start >= tmp->va_end) {
			prev = tmp;
			link = &(*link)->rb_right;
		} else {
			return false; /* overlaps a free range: freed twice */
		}
	}
	/* Merging keeps the node already in the tree that lies highest (next
	 * before prev) and frees the others: the node that holds the top of
	 * the range (the kernel's static first node) is never given away, so
	 * a tree whose areas have all come back is the one it started as. */
	bool mnext = next && next->va_start == va->va_end, mprev = prev && prev->va_end == va->va_start;
	if (mnext || mprev) {
		struct vmap_area *keep = mnext ? next : prev;
		unsigned long start = mprev ? prev->va_start : va->va_start;
		unsigned long end = mnext ? next->va_end : va->va_end;
		if (mnext && mprev) {
			unlink_va(t, prev);
			t->free_node(prev);
		}
		t->free_node(va);
		keep->va_start = start;
		keep->va_end = end;
		propagate_from(keep);
		return true;
	}
	va->subtree_max_size = va_size(va);
	rb_link_node(&va->rb_node, parent, link);
	/* Cached maxima on the path down to the new leaf include it before the
	 * rebalancing rotations recompute what they move. */
	for (struct rb_node *n = parent; n; n = rb_parent(n))
		if (va_of(n)->subtree_max_size < va->subtree_max_size)
			va_of(n)->subtree_max_size = va->subtree_max_size;
	rb_insert_augmented(&va->rb_node, &t->root, &free_va_callbacks);
	propagate_from(va);
	/* Keep the address-ordered list: after prev, else before next. */
	if (prev)
		list_add(&va->list, &prev->list);
	else if (next)
		list_add_tail(&va->list, &next->list);
	else
		list_add(&va->list, &t->head);
	t->nr_nodes++;
	return true;
}

static unsigned long align_up(unsigned long x, unsigned long a) { return (x + a - 1) & ~(a - 1); }

/* Linux's is_within_this_va: whether [aligned start, + size) fits in va
 * and does not start below vstart. */
static bool fits_in(const struct vmap_area *va, unsigned long size, unsigned long align,
		    unsigned long vstart, unsigned long *at)
{
	unsigned long start = align_up(va->va_start > vstart ? va->va_start : vstart, align);
	if (start < vstart || start + size < start) /* wrapped */
		return false;
	*at = start;
	return start + size <= va->va_end;
}

/* Linux 5.13's find_vmap_lowest_match: go left while the left subtree can
 * hold length and lies above vstart; else take this node if it fits; else
 * go right if that subtree can hold length; else climb back up to the
 * first ancestor reached from its left side whose own range fits or whose
 * right subtree can hold length. */
static struct vmap_area *find_lowest_match(struct vmap_free_tree *t, unsigned long size, unsigned long align,
					   unsigned long vstart, unsigned long *at)
{
	unsigned long length = align > VA_PAGE_SIZE ? size + align - 1 : size;
	struct rb_node *node = t->root.rb_node;
	if (length < size)
		return NULL;
	while (node) {
		struct vmap_area *va = va_of(node);
		if (subtree_max(node->rb_left) >= length && vstart < va->va_start) {
			node = node->rb_left;
			continue;
		}
		if (fits_in(va, size, align, vstart, at))
			return va;
		if (subtree_max(node->rb_right) >= length) {
			node = node->rb_right;
			continue;
		}
		/* Nothing fits below: climb until a node we left by its left
		 * side offers its own range or its right subtree. */
		for (;;) {
			struct rb_node *child = node;
			node = rb_parent(node);
			if (!node)
				return NULL;
			if (node->rb_left != child)
				continue; /* came up from the right: all of it seen */
			va = va_of(node);
			if (fits_in(va, size, align, vstart, at))
				return va;
			if (subtree_max(node->rb_right) >= length) {
				/* Everything to the left is done; do not walk it again. */
				if (vstart < va->va_start + 1)
					vstart = va->va_start + 1;
				node = node->rb_right;
				break;
			}
		}
	}
	return NULL;
}

unsigned long vmap_free_alloc(struct vmap_free_tree *t, unsigned long size, unsigned long align,
			      unsigned long vstart, unsigned long vend, struct vmap_area **spare)
{
	unsigned long start;
	if (!size || vend <= vstart)
		return VMAP_NO_SPACE;
	struct vmap_area *va = find_lowest_match(t, size, align, vstart, &start);
	if (!va || start + size > vend || start + size < start)
		return VMAP_NO_SPACE;
	unsigned long end = start + size;
	/* Linux's classify_va_fit_type / adjust_va_to_fit_type. */
	if (va->va_start == start && va->va_end == end) {        /* FL: all of it */
		unlink_va(t, va);
		t->taken = va; /* the caller's to use as the busy node, or free */
	} else if (va->va_start == start) {                     /* LE: its left edge */
		va->va_start = end;
		propagate_from(va);
	} else if (va->va_end == end) {                         /* RE: its right edge */
		va->va_end = start;
		propagate_from(va);
	} else {                                                /* NE: its middle */
		struct vmap_area *lva = *spare;
		if (!lva)
			return VMAP_NEED_SPARE;
		*spare = NULL;
		lva->va_start = va->va_start;
		lva->va_end = start;
		va->va_start = end;
		propagate_from(va);
		if (!vmap_free_insert(t, lva)) /* cannot overlap: it was va's */
			return VMAP_NO_SPACE;
	}
	return start;
}

/* ---- checking -------------------------------------------------------- */

static int check_subtree(const struct rb_node *n, unsigned long *count)
{
	if (!n)
		return 0;
	const struct vmap_area *va = va_of(n);
	int e = check_subtree(n->rb_left, count);
	if (e)
		return e;
	e = check_subtree(n->rb_right, count);
	if (e)
		return e;
	(*count)++;
	if (va->subtree_max_size != compute_subtree_max_size(va))
		return -__LINE__;
	return 0;
}

int vmap_free_tree_check(const struct vmap_free_tree *t)
{
	unsigned long count = 0;
	int e = check_subtree(t->root.rb_node, &count);
	if (e)
		return e;
	if (count != t->nr_nodes)
		return -__LINE__;
	/* In-order walk == list, ranges non-empty, sorted, never touching. */
	const struct rb_node *n = rb_first(&t->root);
	const struct vmap_area *prev = NULL, *va;
	unsigned long listed = 0;
	list_for_each_entry(va, &t->head, list) {
		if (!n || va_of(n) != va)
			return -__LINE__;
		if (va->va_start >= va->va_end)
			return -__LINE__;
		if (prev && prev->va_end >= va->va_start)
			return -__LINE__;
		prev = va;
		n = rb_next(n);
		listed++;
	}
	if (n || listed != count)
		return -__LINE__;
	return 0;
}
