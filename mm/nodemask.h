/* Sets of NUMA nodes, as Linux's <linux/nodemask.h>: nodemask_t and the
 * helpers memory policies and the page allocator's node filter use
 * (node_set, node_isset, nodes_weight, for_each_node_mask, ...).
 *
 * Invariant: only bits 0..MAX_NUMNODES-1 are ever set; every helper that
 * takes a node id ignores ids outside that range (a set never grows a bit
 * that no loop would visit), so a bad id from a caller cannot corrupt a
 * mask or index past it.
 *
 * Locking: none; a nodemask_t is a value, copied and compared like one. */
#ifndef MM_NODEMASK_H
#define MM_NODEMASK_H

#include "kernel/types.h"

#define MAX_NUMNODES 16
#ifndef NUMA_NO_NODE
#define NUMA_NO_NODE (-1)
#endif

/* One word holds MAX_NUMNODES bits; Linux uses an array of them. */
typedef struct {
	unsigned long bits[1];
} nodemask_t;

_Static_assert(MAX_NUMNODES <= 8 * sizeof(unsigned long), "nodemask_t is one word");

#define NODE_MASK_NONE ((nodemask_t){ { 0 } })
#define NODE_MASK_ALL ((nodemask_t){ { (1ul << MAX_NUMNODES) - 1 } })

static inline bool node_id_valid(int node) { return node >= 0 && node < MAX_NUMNODES; }

/* As Linux's, the helpers take the mask itself, not its address
 * (node_set(nid, mask), nodes_weight(mask)); the __ functions behind them
 * take pointers. */
static inline void __node_set(int node, nodemask_t *mask)
{
	if (node_id_valid(node))
		mask->bits[0] |= 1ul << node;
}
static inline void __node_clear(int node, nodemask_t *mask)
{
	if (node_id_valid(node))
		mask->bits[0] &= ~(1ul << node);
}
static inline bool __node_isset(int node, const nodemask_t *mask)
{
	return node_id_valid(node) && (mask->bits[0] >> node & 1);
}
static inline unsigned __nodes_weight(const nodemask_t *mask)
{
	/* No POPCNT assumed (and no libgcc): clear the lowest bit until none. */
	unsigned n = 0;
	for (unsigned long m = mask->bits[0]; m; m &= m - 1)
		n++;
	return n;
}
/* The first node in mask at or after node n, MAX_NUMNODES if none. */
static inline int __next_node(int n, const nodemask_t *mask)
{
	if (n < 0)
		n = 0;
	if (n >= MAX_NUMNODES)
		return MAX_NUMNODES;
	unsigned long m = mask->bits[0] >> n << n;
	return m ? __builtin_ctzl(m) : MAX_NUMNODES;
}
static inline nodemask_t nodemask_of_node(int node)
{
	nodemask_t m = NODE_MASK_NONE;
	__node_set(node, &m);
	return m;
}

#define node_set(node, dst) __node_set((node), &(dst))
#define node_clear(node, dst) __node_clear((node), &(dst))
#define node_isset(node, mask) __node_isset((node), &(mask))
#define nodes_clear(dst) ((dst).bits[0] = 0)
#define nodes_setall(dst) ((dst) = NODE_MASK_ALL)
#define nodes_empty(src) ((src).bits[0] == 0)
#define nodes_full(src) ((src).bits[0] == NODE_MASK_ALL.bits[0])
#define nodes_equal(a, b) ((a).bits[0] == (b).bits[0])
#define nodes_intersects(a, b) (((a).bits[0] & (b).bits[0]) != 0)
#define nodes_subset(a, b) (((a).bits[0] & ~(b).bits[0]) == 0) /* a within b */
#define nodes_and(dst, a, b) ((dst).bits[0] = (a).bits[0] & (b).bits[0])
#define nodes_or(dst, a, b) ((dst).bits[0] = (a).bits[0] | (b).bits[0])
#define nodes_andnot(dst, a, b) ((dst).bits[0] = (a).bits[0] & ~(b).bits[0])
#define nodes_weight(mask) __nodes_weight(&(mask))
#define first_node(mask) __next_node(0, &(mask))
#define next_node(n, mask) __next_node((n) + 1, &(mask)) /* after n, as Linux's */

#define for_each_node_mask(node, mask) \
	for ((node) = first_node(mask); (node) < MAX_NUMNODES; (node) = next_node((node), (mask)))

#endif
