/* The XArray's walks (Linux's lib/xarray.c): from an index to the next
 * present or marked entry, and to the next index, in index order. They
 * read under rcu_read_lock or xa_lock alike: a walk under RCU meets
 * XA_RETRY_ENTRY where the tree changed shape under it and restarts
 * (xas_retry), and reads no freed node (lib/xarray.c frees by RCU). */
#include "lib/xarray_internal.h"

void xas_pause(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	if (xas_invalid(xas))
		return;
	xas->xa_node = XAS_RESTART;
	if (node) {
		unsigned long span = 1UL << node->shift;
		xas->xa_index = (xas->xa_index & ~(span - 1)) + span;
		if (xas->xa_index == 0)
			xas->xa_node = XAS_BOUNDS;
	} else {
		xas->xa_index++;
	}
}

/* xas's index moved to slot offset of its node (offset 64: the first
 * index past the node): the first index of that slot, every bit below
 * the node's digit cleared too (Linux's ~XA_CHUNK_MASK << shift). A walk
 * that a load left at an interior node (the slot of its index empty)
 * still holds the low bits of the index it started from. */
static void xas_move_index(struct xa_state *xas, unsigned long offset)
{
	unsigned int shift = xas->xa_node->shift;
	xas->xa_index &= ~XA_CHUNK_MASK << shift;
	xas->xa_index += offset << shift;
}

static void xas_next_offset(struct xa_state *xas)
{
	xas->xa_offset++;
	xas_move_index(xas, xas->xa_offset);
}

static bool xas_not_node(const struct xa_node *node)
{
	return ((unsigned long)node & 3) || !node;
}

void *xas_find(struct xa_state *xas, unsigned long max)
{
	void *entry;
	if (xas_error(xas) || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (xas->xa_index > max)
		return set_bounds(xas);
	if (!xas->xa_node) {
		/* The last one found was the head's: nothing follows it. */
		xas->xa_index = 1;
		return set_bounds(xas);
	} else if (xas->xa_node == XAS_RESTART) {
		entry = xas_load(xas);
		if (entry || xas_not_node(xas->xa_node))
			return entry;
	} else if (!xas->xa_node->shift && xas->xa_offset != (xas->xa_index & XA_CHUNK_MASK)) {
		xas->xa_offset = (unsigned char)(((xas->xa_index - 1) & XA_CHUNK_MASK) + 1);
	}
	xas_next_offset(xas);
	while (xas->xa_node && xas->xa_index <= max) {
		if (unlikely(xas->xa_offset == XA_CHUNK_SIZE)) {
			xas->xa_offset = (unsigned char)(xas->xa_node->offset + 1);
			xas->xa_node = rcu_dereference(xas->xa_node->parent);
			continue;
		}
		entry = rcu_dereference(xas->xa_node->slots[xas->xa_offset]);
		if (xa_is_node(entry)) {
			xas->xa_node = xa_to_node(entry);
			xas->xa_offset = 0;
			continue;
		}
		if (entry && !xa_is_sibling(entry))
			return entry;
		xas_next_offset(xas);
	}
	if (!xas->xa_node)
		xas->xa_node = XAS_BOUNDS;
	return NULL;
}

/* The first slot at or after xas's (after it, if advance) whose mark bit
 * is set; 64 if none. */
static unsigned int xas_find_chunk(const struct xa_state *xas, bool advance, xa_mark_t mark)
{
	unsigned int offset = xas->xa_offset + advance;
	if (offset < XA_CHUNK_SIZE) {
		unsigned long data = READ_ONCE(xas->xa_node->marks[mark][0]) & (~0UL << offset);
		if (data)
			return (unsigned int)__builtin_ctzl(data);
	}
	return XA_CHUNK_SIZE;
}

void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark)
{
	bool advance = true;
	void *entry;
	if (xas_error(xas))
		return NULL;
	if (xas->xa_index > max)
		goto max;
	if (!xas->xa_node) {
		xas->xa_index = 1;
		goto out;
	} else if (xas->xa_node <= XAS_RESTART) {
		advance = false;
		entry = rcu_dereference(xas->xa->xa_head);
		xas->xa_node = NULL;
		if (xas->xa_index > max_index(entry))
			goto out;
		if (!xa_is_node(entry)) {
			if (xa_marked(xas->xa, mark))
				return entry;
			xas->xa_index = 1;
			goto out;
		}
		xas->xa_node = xa_to_node(entry);
		xas->xa_offset = (unsigned char)(xas->xa_index >> xas->xa_node->shift);
	}
	while (xas->xa_index <= max) {
		if (unlikely(xas->xa_offset == XA_CHUNK_SIZE)) {
			xas->xa_offset = (unsigned char)(xas->xa_node->offset + 1);
			xas->xa_node = rcu_dereference(xas->xa_node->parent);
			if (!xas->xa_node)
				break;
			advance = false;
			continue;
		}
		/* An unmarked subtree is passed over whole: its bit in this
		 * node is clear. */
		unsigned int offset = xas_find_chunk(xas, advance, mark);
		if (offset > xas->xa_offset) {
			advance = false;
			xas_move_index(xas, offset);
			if ((xas->xa_index - 1) >= max) /* past max, or wrapped to 0 */
				goto max;
			xas->xa_offset = (unsigned char)offset;
			if (offset == XA_CHUNK_SIZE)
				continue;
		}
		entry = rcu_dereference(xas->xa_node->slots[xas->xa_offset]);
		if (!entry) {
			/* Marked but emptied meanwhile (an RCU reader's race). */
			advance = true;
			continue;
		}
		if (!xa_is_node(entry))
			return entry;
		xas->xa_node = xa_to_node(entry);
		xas->xa_offset = (unsigned char)get_offset(xas->xa_index, xas->xa_node);
	}
out:
	if (xas->xa_index > max)
		goto max;
	return set_bounds(xas);
max:
	xas->xa_node = XAS_RESTART;
	return NULL;
}

void *xas_next(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	void *entry;
	if (!xas_not_node(node) && !node->shift && xas->xa_offset != XA_CHUNK_MASK) {
		xas->xa_index++;
		xas->xa_offset++;
		return rcu_dereference(node->slots[xas->xa_offset]);
	}
	/* A walk not begun (XAS_RESTART) or stopped by an error stays at its
	 * index; one past the end moves on. */
	if (!((unsigned long)node & 2))
		xas->xa_index++;
	if (!node)
		return set_bounds(xas);
	if (xas_not_node(node))
		return xas_load(xas);
	if (xas->xa_offset != get_offset(xas->xa_index, node))
		xas->xa_offset++;
	while (xas->xa_offset == XA_CHUNK_SIZE) {
		xas->xa_offset = (unsigned char)(xas->xa_node->offset + 1);
		xas->xa_node = rcu_dereference(xas->xa_node->parent);
		if (!xas->xa_node)
			return set_bounds(xas);
	}
	for (;;) {
		entry = rcu_dereference(xas->xa_node->slots[xas->xa_offset]);
		if (!xa_is_node(entry))
			return entry;
		xas->xa_node = xa_to_node(entry);
		xas->xa_offset = (unsigned char)get_offset(xas->xa_index, xas->xa_node);
	}
}
