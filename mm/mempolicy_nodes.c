/* The portable half of NUMA memory policies (mm/mempolicy.c): reading a
 * user's node mask (Linux's get_nodes and its quirks), writing one back,
 * the relative-nodes mapping, the node an allocation starts from for each
 * mode (policy_nodemask, interleave_nid, weighted_interleave_nid) and
 * migrate_pages' node_remap. No locks and no kernel state beyond what the
 * caller passes in, so tests/host/mempolicy_test.c checks it on the host
 * under ASan/UBSan, with copy_from_user/copy_to_user/clear_user stubbed. */
#include "mm/mempolicy.h"
#include "arch/x86_64/page_types.h"
#include "arch/x86_64/uaccess.h"

#define BITS_PER_LONG 64

/* A node's weight: 0 in the table (never written) reads as 1. */
static u8 il_weight(const u8 *weights, int nid)
{
	u8 w = weights && nid >= 0 && nid < MAX_NUMNODES ? __atomic_load_n(&weights[nid], __ATOMIC_RELAXED) : 0;
	return w ? w : 1;
}

/* Linux's get_bitmap: BITS_TO_LONGS(nbits) words, the bits above nbits of
 * the last one cleared. */
static int get_bitmap(unsigned long *mask, const unsigned long *nmask, unsigned long nbits)
{
	unsigned long nlongs = (nbits + BITS_PER_LONG - 1) / BITS_PER_LONG;
	if (copy_from_user(mask, nmask, nlongs * sizeof(unsigned long)))
		return -EFAULT;
	if (nbits % BITS_PER_LONG)
		mask[nlongs - 1] &= (1ul << (nbits % BITS_PER_LONG)) - 1;
	return 0;
}

/* Linux's get_nodes: maxnode counts one more bit than it reads (the
 * "--maxnode" every caller of these calls lives with); bits at and above
 * MAX_NUMNODES must be clear; more than a page of bits is EINVAL. */
int get_nodes(nodemask_t *nodes, const unsigned long *nmask, unsigned long maxnode)
{
	--maxnode;
	nodes_clear(*nodes);
	if (maxnode == 0 || !nmask)
		return 0;
	if (maxnode > PAGE_SIZE * 8)
		return -EINVAL;
	/* The part beyond what mmlab supports, one word at a time from the
	 * end: it must be zero. */
	while (maxnode > MAX_NUMNODES) {
		unsigned long bits = maxnode < BITS_PER_LONG ? maxnode : BITS_PER_LONG, t;
		if (get_bitmap(&t, &nmask[(maxnode - 1) / BITS_PER_LONG], bits))
			return -EFAULT;
		if (maxnode - bits >= MAX_NUMNODES) {
			maxnode -= bits;
		} else {
			maxnode = MAX_NUMNODES;
			t &= ~((1ul << (MAX_NUMNODES % BITS_PER_LONG)) - 1);
		}
		if (t)
			return -EINVAL;
	}
	return get_bitmap(nodes->bits, nmask, maxnode);
}

/* Linux's copy_nodes_to_user: maxnode - 1 bits rounded up to longs; what
 * lies beyond nr_node_ids' longs is cleared. */
int copy_nodes_to_user(unsigned long *mask, unsigned long maxnode, const nodemask_t *nodes,
		       unsigned long nr_node_ids)
{
	unsigned long copy = ((maxnode - 1 + 63) & ~63ul) / 8;
	unsigned long nbytes = (nr_node_ids + BITS_PER_LONG - 1) / BITS_PER_LONG * sizeof(long);
	if (copy > nbytes) {
		if (copy > PAGE_SIZE)
			return -EINVAL;
		if (clear_user((char *)mask + nbytes, copy - nbytes))
			return -EFAULT;
		copy = nbytes;
	}
	return copy_to_user(mask, nodes->bits, copy) ? -EFAULT : 0;
}

/* Linux's mpol_relative_nodemask: bit n of the user's mask means the n-th
 * node of rel (modulo rel's weight). */
nodemask_t mpol_relative_nodemask(const nodemask_t *orig, const nodemask_t *rel)
{
	nodemask_t ret = NODE_MASK_NONE;
	unsigned w = nodes_weight(*rel);
	if (!w)
		return ret;
	int n;
	for_each_node_mask(n, *orig) {
		unsigned k = (unsigned)n % w, i = 0;
		int m;
		for_each_node_mask(m, *rel) {
			if (i++ == k) {
				node_set(m, ret);
				break;
			}
		}
	}
	return ret;
}

/* Linux's next_node_in: the node after n in mask, wrapping. */
int next_node_in(int n, const nodemask_t *mask)
{
	int next = __next_node(n + 1, mask);
	if (next >= MAX_NUMNODES)
		next = __next_node(0, mask);
	return next;
}

/* Linux's interleave_nid: the ilx-th node of the mask, cyclically. */
int interleave_nid(const struct mempolicy *pol, unsigned long ilx, int local)
{
	unsigned n = nodes_weight(pol->nodes);
	if (!n)
		return local;
	unsigned long target = ilx % n;
	int nid = first_node(pol->nodes);
	for (unsigned long i = 0; i < target; i++)
		nid = next_node(nid, pol->nodes);
	return nid;
}

/* Linux's weighted_interleave_nid: ilx modulo the sum of the mask's
 * weights, then the node whose share it falls in. */
int weighted_interleave_nid(const struct mempolicy *pol, unsigned long ilx, const u8 *weights, int local)
{
	unsigned long total = 0;
	int nid;
	for_each_node_mask(nid, pol->nodes)
		total += il_weight(weights, nid);
	if (!total)
		return local;
	unsigned long target = ilx % total;
	for_each_node_mask(nid, pol->nodes) {
		u8 w = il_weight(weights, nid);
		if (target < w)
			return nid;
		target -= w;
	}
	return first_node(pol->nodes);
}

/* Linux's policy_nodemask: the node to start from (*nid, the local node
 * unless the policy says) and the nodes allowed (NULL: any). */
const nodemask_t *policy_nodemask(const struct mempolicy *pol, unsigned long ilx, const u8 *weights, int *nid)
{
	switch (pol->mode) {
	case MPOL_PREFERRED:
		*nid = first_node(pol->nodes);
		return NULL;
	case MPOL_PREFERRED_MANY:
		if (pol->home_node != NUMA_NO_NODE)
			*nid = pol->home_node;
		return &pol->nodes;
	case MPOL_BIND:
		if (pol->home_node != NUMA_NO_NODE)
			*nid = pol->home_node;
		return &pol->nodes;
	case MPOL_INTERLEAVE:
		*nid = interleave_nid(pol, ilx, *nid);
		return NULL;
	case MPOL_WEIGHTED_INTERLEAVE:
		*nid = weighted_interleave_nid(pol, ilx, weights, *nid);
		return NULL;
	default: /* MPOL_LOCAL */
		return NULL;
	}
}

/* Linux's node_remap (bitmap_bitremap): the n-th node of from maps to the
 * (n mod |to|)-th node of to; a node outside from maps to itself. */
int node_remap(int oldbit, const nodemask_t *from, const nodemask_t *to)
{
	unsigned w = nodes_weight(*to);
	if (!node_isset(oldbit, *from) || !w)
		return oldbit;
	unsigned n = 0;
	int b;
	for_each_node_mask(b, *from) {
		if (b == oldbit)
			break;
		n++;
	}
	n %= w;
	for_each_node_mask(b, *to) {
		if (!n--)
			return b;
	}
	return oldbit;
}
