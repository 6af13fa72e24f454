/* What lib/xarray.c and lib/xarray_find.c share: small steps of a walk. */
#ifndef LIB_XARRAY_INTERNAL_H
#define LIB_XARRAY_INTERNAL_H

#include "lib/xarray.h"

static inline unsigned int get_offset(unsigned long index, const struct xa_node *node)
{
	return (index >> node->shift) & XA_CHUNK_MASK;
}

/* The last index a head entry covers: 0 for an entry, the tree's span
 * for a node. */
static inline unsigned long max_index(const void *entry)
{
	if (!xa_is_node(entry))
		return 0;
	return (XA_CHUNK_SIZE << xa_to_node(entry)->shift) - 1;
}

static inline void *set_bounds(struct xa_state *xas)
{
	xas->xa_node = XAS_BOUNDS;
	return NULL;
}

#endif
