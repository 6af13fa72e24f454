/* The XArray's tree (Linux's lib/xarray.c): nodes, loading, storing,
 * growing, shrinking and the marks. lib/xarray.h has the layout, the
 * entry encoding and the locking; lib/xarray_find.c walks the tree;
 * lib/xarray_api.c is the normal API on top of these.
 *
 * Invariants, kept by every store under xa_lock: a node's count is its
 * non-NULL slots and nr_values its value entries; no node but the root is
 * empty, and the root is a node only when the tree needs one (an entry at
 * an index other than 0, or more than one entry); a node's mark bit for a
 * slot is set exactly when the entry there, or some entry below it,
 * carries the mark, and xa_flags's mark bit when any entry does.
 *
 * RCU: a node is published (rcu_assign_pointer) only once initialised; a
 * node taken out of the tree is freed by call_rcu, so a reader that
 * reached it before it went still reads a node; the callback poisons it
 * (Linux zeroes it there), so a reader that reached it later than it may
 * is caught by what it reads. */
#include "lib/xarray_internal.h"
#include "kernel/panic.h"
#include "lib/string.h"
#include "mm/slab.h"

/* A freed node's array: what a reader that raced the free sees. */
#define XA_RCU_FREE ((struct xarray *)1)
/* Linux's POISON_FREE byte: a freed node reads as value entries and
 * nonsense shifts. */
#define XA_NODE_POISON 0x6b

static struct kmem_cache *radix_tree_node_cachep;
static long xa_nodes, xa_nodes_pending;

unsigned long xa_nodes_in_use(void)
{
	return (unsigned long)__atomic_load_n(&xa_nodes, __ATOMIC_RELAXED);
}

unsigned long xa_nodes_rcu_pending(void)
{
	return (unsigned long)__atomic_load_n(&xa_nodes_pending, __ATOMIC_RELAXED);
}

static void xa_nodes_add(long n)
{
	__atomic_add_fetch(&xa_nodes, n, __ATOMIC_RELAXED);
}

void radix_tree_init(void)
{
	/* Reclaimable, as Linux's radix_tree_init (SLAB_RECLAIM_ACCOUNT). */
	radix_tree_node_cachep =
		kmem_cache_create("radix_tree_node", sizeof(struct xa_node), 0, SLAB_RECLAIM_ACCOUNT, NULL);
	BUG_ON(!radix_tree_node_cachep);
}

static struct xa_node *xa_node_alloc(gfp_t gfp)
{
	struct xa_node *node = kmem_cache_alloc(radix_tree_node_cachep, gfp);
	if (node)
		xa_nodes_add(1);
	return node;
}

static void radix_tree_node_rcu_free(struct rcu_head *head)
{
	struct xa_node *node = container_of(head, struct xa_node, rcu_head);
	memset(node, XA_NODE_POISON, sizeof(*node));
	kmem_cache_free(radix_tree_node_cachep, node);
	xa_nodes_add(-1);
	__atomic_sub_fetch(&xa_nodes_pending, 1, __ATOMIC_RELAXED);
}

/* Out of the tree: freed once every reader that may hold it is done. */
static void xa_node_free(struct xa_node *node)
{
	node->array = XA_RCU_FREE;
	__atomic_add_fetch(&xa_nodes_pending, 1, __ATOMIC_RELAXED);
	call_rcu(&node->rcu_head, radix_tree_node_rcu_free);
}

void xas_destroy(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_alloc;
	while (node) {
		struct xa_node *next = node->parent;
		kmem_cache_free(radix_tree_node_cachep, node);
		xa_nodes_add(-1);
		node = next;
	}
	xas->xa_alloc = NULL;
}

/* The marks of one node, one 64-bit word per mark. */
static inline bool node_get_mark(const struct xa_node *node, unsigned int offset, xa_mark_t mark)
{
	return READ_ONCE(node->marks[mark][0]) & (1UL << offset);
}

/* Sets the bit: whether it was set already. */
static inline bool node_set_mark(struct xa_node *node, unsigned int offset, xa_mark_t mark)
{
	unsigned long old = node->marks[mark][0];
	WRITE_ONCE(node->marks[mark][0], old | (1UL << offset));
	return old & (1UL << offset);
}

/* Clears the bit: whether it was set. */
static inline bool node_clear_mark(struct xa_node *node, unsigned int offset, xa_mark_t mark)
{
	unsigned long old = node->marks[mark][0];
	WRITE_ONCE(node->marks[mark][0], old & ~(1UL << offset));
	return old & (1UL << offset);
}

static inline bool node_any_mark(const struct xa_node *node, xa_mark_t mark)
{
	return READ_ONCE(node->marks[mark][0]) != 0;
}

static inline void xa_mark_set(struct xarray *xa, xa_mark_t mark)
{
	WRITE_ONCE(xa->xa_flags, xa->xa_flags | XA_FLAGS_MARK(mark));
}

static inline void xa_mark_clear(struct xarray *xa, xa_mark_t mark)
{
	WRITE_ONCE(xa->xa_flags, xa->xa_flags & ~XA_FLAGS_MARK(mark));
}

/* Where a walk begins: the head, or XAS_BOUNDS when the index lies past
 * what the tree covers. */
static void *xas_start(struct xa_state *xas)
{
	if (xas_valid(xas))
		return xas_reload(xas);
	if (xas_error(xas))
		return NULL;
	void *entry = rcu_dereference(xas->xa->xa_head);
	if (!xa_is_node(entry)) {
		if (xas->xa_index)
			return set_bounds(xas);
	} else if ((xas->xa_index >> xa_to_node(entry)->shift) > XA_CHUNK_MASK) {
		return set_bounds(xas);
	}
	xas->xa_node = NULL;
	return entry;
}

/* One level down: the slot of node that covers xas's index. */
static void *xas_descend(struct xa_state *xas, struct xa_node *node)
{
	unsigned int offset = get_offset(xas->xa_index, node);
	xas->xa_node = node;
	xas->xa_offset = (unsigned char)offset;
	return rcu_dereference(node->slots[offset]);
}

void *xas_load(struct xa_state *xas)
{
	void *entry = xas_start(xas);
	while (xa_is_node(entry)) {
		struct xa_node *node = xa_to_node(entry);
		if (xas->xa_shift > node->shift)
			break;
		entry = xas_descend(xas, node);
		if (node->shift == 0)
			break;
	}
	return entry;
}

bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark)
{
	if (xas_invalid(xas))
		return false;
	if (!xas->xa_node)
		return xa_marked(xas->xa, mark);
	return node_get_mark(xas->xa_node, xas->xa_offset, mark);
}

void xas_set_mark(const struct xa_state *xas, xa_mark_t mark)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;
	if (xas_invalid(xas))
		return;
	/* Up the path until a node already had it: above that, all have. */
	while (node) {
		if (node_set_mark(node, offset, mark))
			return;
		offset = node->offset;
		node = node->parent;
	}
	if (!xa_marked(xas->xa, mark))
		xa_mark_set(xas->xa, mark);
}

void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;
	if (xas_invalid(xas))
		return;
	/* Up the path while the node is left with the mark on no slot. */
	while (node) {
		if (!node_clear_mark(node, offset, mark))
			return;
		if (node_any_mark(node, mark))
			return;
		offset = node->offset;
		node = node->parent;
	}
	if (xa_marked(xas->xa, mark))
		xa_mark_clear(xas->xa, mark);
}

void xas_init_marks(const struct xa_state *xas)
{
	/* A mark no entry carries (xa_flags) has no bit to clear: the page
	 * cache's removals, which mark nothing yet, skip the walk. */
	for (xa_mark_t mark = XA_MARK_0; mark <= XA_MARK_MAX; mark++)
		if (xa_marked(xas->xa, mark))
			xas_clear_mark(xas, mark);
}

/* A node for the store xas is doing, at shift, in the slot xas is at
 * (xas->xa_node its parent, NULL for a new root): one xas_nomem kept, or
 * one allocated here without sleeping (the lock is held); -ENOMEM in xas
 * when neither. */
static struct xa_node *xas_alloc(struct xa_state *xas, unsigned int shift)
{
	struct xa_node *parent = xas->xa_node;
	struct xa_node *node = xas->xa_alloc;
	if (xas_invalid(xas))
		return NULL;
	if (node) {
		xas->xa_alloc = node->parent;
	} else {
		node = xa_node_alloc(GFP_NOWAIT | __GFP_NOWARN);
		if (!node) {
			xas_set_err(xas, -ENOMEM);
			return NULL;
		}
	}
	memset(node, 0, sizeof(*node));
	if (parent) {
		node->offset = xas->xa_offset;
		parent->count++;
	}
	node->shift = (unsigned char)shift;
	node->parent = parent;
	node->array = xas->xa;
	return node;
}

/* While the root holds one entry in slot 0 and could be the head itself,
 * the tree loses a level. A reader still in the old root finds either
 * the node below (alive: it was not freed) or XA_RETRY_ENTRY, and
 * starts again from the head. */
static void xas_shrink(struct xa_state *xas)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;
	for (;;) {
		if (node->count != 1)
			break;
		void *entry = node->slots[0];
		if (!entry)
			break;
		if (!xa_is_node(entry) && node->shift)
			break;
		xas->xa_node = XAS_BOUNDS;
		rcu_assign_pointer(xa->xa_head, entry);
		node->count = 0;
		node->nr_values = 0;
		if (!xa_is_node(entry))
			rcu_assign_pointer(node->slots[0], XA_RETRY_ENTRY);
		xa_node_free(node);
		if (!xa_is_node(entry))
			break;
		node = xa_to_node(entry);
		node->parent = NULL;
	}
}

/* xas->xa_node was left empty: it goes, and so does every ancestor that
 * it leaves empty; then the tree shrinks if it can. */
static void xas_delete_node(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	for (;;) {
		if (node->count)
			break;
		struct xa_node *parent = node->parent;
		xas->xa_node = parent;
		xas->xa_offset = node->offset;
		xa_node_free(node);
		if (!parent) {
			rcu_assign_pointer(xas->xa->xa_head, NULL);
			xas->xa_node = XAS_BOUNDS;
			return;
		}
		rcu_assign_pointer(parent->slots[xas->xa_offset], NULL);
		parent->count--;
		node = parent;
	}
	if (!node->parent)
		xas_shrink(xas);
}

/* A subtree taken out of the tree: every node goes, leaving
 * XA_RETRY_ENTRY in each slot for a reader still inside. */
static void xas_free_nodes(struct xa_node *top)
{
	unsigned int offset = 0;
	struct xa_node *node = top;
	for (;;) {
		void *entry = node->slots[offset];
		if (node->shift && xa_is_node(entry)) {
			node = xa_to_node(entry);
			offset = 0;
			continue;
		}
		if (entry)
			rcu_assign_pointer(node->slots[offset], XA_RETRY_ENTRY);
		offset++;
		while (offset == XA_CHUNK_SIZE) {
			struct xa_node *parent = node->parent;
			offset = node->offset + 1u;
			node->count = 0;
			node->nr_values = 0;
			xa_node_free(node);
			if (node == top)
				return;
			node = parent;
		}
	}
}

/* Adds levels on top until the tree covers xas's index: the shift of the
 * (new) root plus one level, or 0 when an entry at the head will do. The
 * marks of the old head go with it to slot 0 of each new root. */
static int xas_expand(struct xa_state *xas, void *head)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = NULL;
	unsigned int shift = 0;
	unsigned long max = xas->xa_index;
	if (!head) {
		if (max == 0)
			return 0;
		while ((max >> shift) >= XA_CHUNK_SIZE)
			shift += XA_CHUNK_SHIFT;
		return (int)(shift + XA_CHUNK_SHIFT);
	} else if (xa_is_node(head)) {
		node = xa_to_node(head);
		shift = node->shift + XA_CHUNK_SHIFT;
	}
	xas->xa_node = NULL;
	while (max > max_index(head)) {
		node = xas_alloc(xas, shift);
		if (!node)
			return -ENOMEM;
		node->count = 1;
		if (xa_is_value(head))
			node->nr_values = 1;
		node->slots[0] = head;
		for (xa_mark_t mark = XA_MARK_0; mark <= XA_MARK_MAX; mark++)
			if (xa_marked(xa, mark))
				node_set_mark(node, 0, mark);
		/* Initialised: now the tree may lead to it. */
		if (xa_is_node(head)) {
			xa_to_node(head)->offset = 0;
			rcu_assign_pointer(xa_to_node(head)->parent, node);
		}
		head = xa_mk_node(node);
		rcu_assign_pointer(xa->xa_head, head);
		shift += XA_CHUNK_SHIFT;
	}
	xas->xa_node = node;
	return (int)shift;
}

/* Makes the path to xas's index, down to the slot where its entry goes:
 * what that slot holds. allow_root: an entry at index 0 may sit at the
 * head with no node. On -ENOMEM the nodes made so far stay (for the
 * retry after xas_nomem). */
static void *xas_create(struct xa_state *xas, bool allow_root)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;
	void **slot;
	void *entry;
	int shift;
	if (node <= XAS_RESTART) { /* NULL, XAS_BOUNDS or XAS_RESTART */
		entry = xa->xa_head;
		xas->xa_node = NULL;
		shift = xas_expand(xas, entry);
		if (shift < 0)
			return NULL;
		if (!shift && !allow_root)
			shift = XA_CHUNK_SHIFT;
		entry = xa->xa_head;
		slot = &xa->xa_head;
	} else if (xas_error(xas)) {
		return NULL;
	} else {
		shift = node->shift;
		entry = node->slots[xas->xa_offset];
		slot = &node->slots[xas->xa_offset];
	}
	while (shift > xas->xa_shift) {
		shift -= XA_CHUNK_SHIFT;
		if (!entry) {
			node = xas_alloc(xas, (unsigned int)shift);
			if (!node)
				break;
			rcu_assign_pointer(*slot, xa_mk_node(node));
		} else if (xa_is_node(entry)) {
			node = xa_to_node(entry);
		} else {
			break;
		}
		entry = xas_descend(xas, node);
		slot = &node->slots[xas->xa_offset];
	}
	return entry;
}

static void update_node(struct xa_state *xas, struct xa_node *node, int count, int values)
{
	if (!node || (!count && !values))
		return;
	node->count = (unsigned char)(node->count + count);
	node->nr_values = (unsigned char)(node->nr_values + values);
	if (count < 0)
		xas_delete_node(xas);
}

void *xas_store(struct xa_state *xas, void *entry)
{
	void **slot = &xas->xa->xa_head;
	bool value = xa_is_value(entry);
	void *first;
	if (entry)
		first = xas_create(xas, !xa_is_node(entry) && !xa_is_zero(entry));
	else
		first = xas_load(xas);
	if (xas_invalid(xas))
		return first;
	struct xa_node *node = xas->xa_node;
	if (first == entry)
		return first;
	if (node)
		slot = &node->slots[xas->xa_offset];
	/* The marks go first: a marked walk under RCU never meets a marked
	 * NULL (the store below is a release). */
	if (!entry)
		xas_init_marks(xas);
	rcu_assign_pointer(*slot, entry);
	if (xa_is_node(first) && (!node || node->shift))
		xas_free_nodes(xa_to_node(first));
	if (!node)
		return first;
	update_node(xas, node, !first - !entry, !xa_is_value(first) - !value);
	return first;
}

/* After a store into an empty slot gave up for want of memory: the nodes
 * it made for the path go, and a tree it grew shrinks back. Linux leaves
 * them to be used by a later store or freed with the array; here an
 * xarray that failed a store is as it was (xa_empty stays true). */
static void xas_trim(struct xa_state *xas)
{
	xas_set(xas, xas->xa_index);
	if (!xas_load(xas) && xas_is_node(xas) && !xas->xa_node->count)
		xas_delete_node(xas);
	void *head = xas->xa->xa_head;
	if (xa_is_node(head)) {
		xas->xa_node = xa_to_node(head);
		xas_shrink(xas);
	}
	xas_set_err(xas, -ENOMEM);
}

/* Allocation for a retry: one node more on xas's spare chain. */
static bool xas_nomem_alloc(struct xa_state *xas, gfp_t gfp, bool locked)
{
	if (xas->xa_node != XA_ERROR(-ENOMEM)) {
		xas_destroy(xas);
		return false;
	}
	bool drop = locked && gfpflags_allow_blocking(gfp);
	if (drop)
		xas_unlock(xas);
	struct xa_node *node = xa_node_alloc(gfp);
	if (node) {
		node->parent = xas->xa_alloc;
		xas->xa_alloc = node;
	}
	if (drop)
		xas_lock(xas);
	if (!node) {
		xas_destroy(xas);
		if (!locked)
			xas_lock(xas);
		xas_trim(xas);
		if (!locked)
			xas_unlock(xas);
		return false;
	}
	xas->xa_node = XAS_RESTART;
	return true;
}

bool xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	return xas_nomem_alloc(xas, gfp, false);
}

bool __xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	return xas_nomem_alloc(xas, gfp, true);
}

void xa_destroy(struct xarray *xa)
{
	XA_STATE(xas, xa, 0);
	xas.xa_node = NULL;
	xa_lock(xa);
	void *entry = xa->xa_head;
	rcu_assign_pointer(xa->xa_head, NULL);
	xas_init_marks(&xas);
	if (xa_is_node(entry))
		xas_free_nodes(xa_to_node(entry));
	xa_unlock(xa);
}
