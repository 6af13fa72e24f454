/* Host test of the portable policy code (mm/mempolicy_nodes.c) under
 * ASan/UBSan: reading a user's node mask with every maxnode edge Linux's
 * get_nodes has, writing one back, the relative-nodes mapping, the node
 * each mode starts an allocation from (the home node first for BIND and
 * PREFERRED_MANY), interleave and weighted interleave spreads, and
 * migrate_pages' node_remap, each against Linux's documented behaviour or
 * a brute-force model. The user copies are stubbed: a "user" pointer is a
 * host pointer, and pointers into the BAD page fault. */
#include "mm/mempolicy.h"
#include "arch/x86_64/uaccess.h"
#include "tests/host/ktest.h"

#include <string.h>

/* One readable word, then a page that faults. */
static struct {
	unsigned long good[1];
	char bad[4096];
} mem;
#define bad_page mem.bad
#define BAD ((void *)bad_page)

static bool faults(const void *p, unsigned long n)
{
	const char *a = p;
	return a < bad_page + sizeof(bad_page) && a + n > bad_page;
}

unsigned long copy_from_user(void *to, const void *from, unsigned long n)
{
	if (faults(from, n))
		return n;
	memcpy(to, from, n);
	return 0;
}

unsigned long copy_to_user(void *to, const void *from, unsigned long n)
{
	if (faults(to, n))
		return n;
	memcpy(to, from, n);
	return 0;
}

unsigned long clear_user(void *to, unsigned long n)
{
	if (faults(to, n))
		return n;
	memset(to, 0, n);
	return 0;
}

static nodemask_t mask_of(unsigned long bits)
{
	nodemask_t m = NODE_MASK_NONE;
	m.bits[0] = bits & NODE_MASK_ALL.bits[0];
	return m;
}

static void get_nodes_edges(struct ktest *t)
{
	unsigned long user[600] = { 0 };
	nodemask_t n;
	user[0] = 0x5; /* nodes 0 and 2 */
	/* maxnode counts one bit more than is read. */
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 1), 0);
	KTEST_EXPECT_EQ(t, n.bits[0], 0ul);
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 2), 0);
	KTEST_EXPECT_EQ(t, n.bits[0], 0x1ul);
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 4), 0);
	KTEST_EXPECT_EQ(t, n.bits[0], 0x5ul);
	/* No mask: empty, whatever maxnode. maxnode 0 with a mask wraps to a
	 * huge count: EINVAL (Linux's quirk). */
	KTEST_EXPECT_EQ(t, get_nodes(&n, NULL, 0), 0);
	KTEST_EXPECT_EQ(t, get_nodes(&n, NULL, 12345), 0);
	KTEST_EXPECT_EQ(t, n.bits[0], 0ul);
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 0), -EINVAL);
	/* More than a page of bits. */
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 4096 * 8 + 1), 0);
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 4096 * 8 + 2), -EINVAL);
	/* Bits at or above MAX_NUMNODES must be clear, in any word. */
	user[0] = 1ul << MAX_NUMNODES;
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, MAX_NUMNODES + 1), 0); /* not read */
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, MAX_NUMNODES + 2), -EINVAL);
	user[0] = 0x3;
	user[7] = 1ul << 63;
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 7 * 64 + 64 + 1), -EINVAL);
	/* Bit 511 lies beyond the 511 bits asked for, but the top word is read
	 * whole (Linux's quirk): EINVAL all the same. */
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 7 * 64 + 63 + 1), -EINVAL);
	user[7] = 0;
	KTEST_EXPECT_EQ(t, get_nodes(&n, user, 500 * 64 + 1), 0); /* 32,000 bits, all clear above 1 */
	KTEST_EXPECT_EQ(t, n.bits[0], 0x3ul);
	/* A mask it cannot read. */
	KTEST_EXPECT_EQ(t, get_nodes(&n, BAD, 65), -EFAULT);
	/* The high words are read first: a fault there is EFAULT too. */
	KTEST_EXPECT_EQ(t, get_nodes(&n, mem.good, 129), -EFAULT);
}

static void copy_nodes_back(struct ktest *t)
{
	unsigned long out[4];
	nodemask_t n = mask_of(0xa);
	memset(out, 0xff, sizeof(out));
	/* Four nodes: one long is the machine's; more is cleared. */
	KTEST_EXPECT_EQ(t, copy_nodes_to_user(out, 4 * 64 + 1, &n, 4), 0);
	KTEST_EXPECT_EQ(t, out[0], 0xaul);
	KTEST_EXPECT_EQ(t, out[1], 0ul);
	KTEST_EXPECT_EQ(t, out[3], 0ul);
	memset(out, 0xff, sizeof(out));
	KTEST_EXPECT_EQ(t, copy_nodes_to_user(out, 65, &n, 4), 0);
	KTEST_EXPECT_EQ(t, out[0], 0xaul);
	KTEST_EXPECT_EQ(t, out[1], ~0ul); /* untouched */
	KTEST_EXPECT_EQ(t, copy_nodes_to_user(out, 4096 * 8 + 66, &n, 4), -EINVAL);
	KTEST_EXPECT_EQ(t, copy_nodes_to_user(BAD, 65, &n, 4), -EFAULT);
}

static void relative_nodes(struct ktest *t)
{
	nodemask_t allowed = mask_of(0xe); /* nodes 1, 2, 3 */
	nodemask_t user = mask_of(0x1);
	KTEST_EXPECT_EQ(t, mpol_relative_nodemask(&user, &allowed).bits[0], 0x2ul); /* 0th -> 1 */
	user = mask_of(0x6);
	KTEST_EXPECT_EQ(t, mpol_relative_nodemask(&user, &allowed).bits[0], 0xcul); /* 1st, 2nd -> 2, 3 */
	user = mask_of(0x8); /* bit 3 wraps to the 0th */
	KTEST_EXPECT_EQ(t, mpol_relative_nodemask(&user, &allowed).bits[0], 0x2ul);
	nodemask_t none = NODE_MASK_NONE;
	KTEST_EXPECT_EQ(t, mpol_relative_nodemask(&user, &none).bits[0], 0ul);
}

static struct mempolicy pol_of(unsigned short mode, unsigned long nodes, int home)
{
	struct mempolicy p = { .refcnt = 1, .mode = mode, .nodes = mask_of(nodes), .home_node = home };
	return p;
}

/* Where each mode starts and what it allows, from a CPU on node 0. */
static void first_node_per_mode(struct ktest *t)
{
	struct mempolicy p;
	int nid;
	p = pol_of(MPOL_BIND, 0xe, NUMA_NO_NODE);
	nid = 0;
	KTEST_EXPECT_TRUE(t, policy_nodemask(&p, 0, NULL, &nid) == &p.nodes);
	KTEST_EXPECT_EQ(t, nid, 0); /* the allocator then picks the mask's nearest */
	p = pol_of(MPOL_BIND, 0xe, 2);
	nid = 0;
	KTEST_EXPECT_TRUE(t, policy_nodemask(&p, 0, NULL, &nid) == &p.nodes);
	KTEST_EXPECT_EQ(t, nid, 2); /* set_mempolicy_home_node: the home node first */
	p = pol_of(MPOL_PREFERRED_MANY, 0x6, 3);
	nid = 0;
	KTEST_EXPECT_TRUE(t, policy_nodemask(&p, 0, NULL, &nid) == &p.nodes);
	KTEST_EXPECT_EQ(t, nid, 3);
	p = pol_of(MPOL_PREFERRED, 0x4, NUMA_NO_NODE);
	nid = 0;
	KTEST_EXPECT_TRUE(t, policy_nodemask(&p, 0, NULL, &nid) == NULL);
	KTEST_EXPECT_EQ(t, nid, 2);
	p = pol_of(MPOL_LOCAL, 0, NUMA_NO_NODE);
	nid = 1;
	KTEST_EXPECT_TRUE(t, policy_nodemask(&p, 0, NULL, &nid) == NULL);
	KTEST_EXPECT_EQ(t, nid, 1);
	p = pol_of(MPOL_INTERLEAVE, 0xa, NUMA_NO_NODE);
	nid = 0;
	KTEST_EXPECT_TRUE(t, policy_nodemask(&p, 5, NULL, &nid) == NULL);
	KTEST_EXPECT_EQ(t, nid, 3); /* offset 5 of {1, 3} */
}

/* Interleave: node ilx mod n of the mask, so any n consecutive offsets
 * cover every node once; weighted: each node's share is its weight. */
static void interleave_spreads(struct ktest *t)
{
	for (unsigned long bits = 1; bits < (1ul << 6); bits++) {
		struct mempolicy p = pol_of(MPOL_INTERLEAVE, bits, NUMA_NO_NODE);
		unsigned n = nodes_weight(p.nodes), count[MAX_NUMNODES] = { 0 };
		for (unsigned long ilx = 100; ilx < 100 + 12 * n; ilx++) {
			int nid = interleave_nid(&p, ilx, 9);
			KTEST_ASSERT_TRUE(t, node_isset(nid, p.nodes));
			count[nid]++;
		}
		int nid;
		for_each_node_mask(nid, p.nodes)
			KTEST_EXPECT_EQ(t, count[nid], 12u);
	}
	struct mempolicy none = pol_of(MPOL_INTERLEAVE, 0, NUMA_NO_NODE);
	KTEST_EXPECT_EQ(t, interleave_nid(&none, 7, 9), 9);

	u8 w[MAX_NUMNODES] = { 0 };
	w[0] = 1;
	w[1] = 3;
	w[4] = 0; /* never written: 1 */
	struct mempolicy p = pol_of(MPOL_WEIGHTED_INTERLEAVE, 0x13, NUMA_NO_NODE); /* 0, 1, 4 */
	unsigned count[MAX_NUMNODES] = { 0 };
	for (unsigned long ilx = 0; ilx < 5 * 100; ilx++)
		count[weighted_interleave_nid(&p, ilx, w, 9)]++;
	KTEST_EXPECT_EQ(t, count[0], 100u);
	KTEST_EXPECT_EQ(t, count[1], 300u);
	KTEST_EXPECT_EQ(t, count[4], 100u);
	/* Consecutive offsets stay on a node for its weight. */
	KTEST_EXPECT_EQ(t, weighted_interleave_nid(&p, 1, w, 9), 1);
	KTEST_EXPECT_EQ(t, weighted_interleave_nid(&p, 3, w, 9), 1);
	KTEST_EXPECT_EQ(t, weighted_interleave_nid(&p, 4, w, 9), 4);
	KTEST_EXPECT_EQ(t, weighted_interleave_nid(&p, 5, w, 9), 0);
}

static void next_node_wraps(struct ktest *t)
{
	nodemask_t m = mask_of(0x12); /* 1, 4 */
	KTEST_EXPECT_EQ(t, next_node_in(MAX_NUMNODES - 1, &m), 1);
	KTEST_EXPECT_EQ(t, next_node_in(1, &m), 4);
	KTEST_EXPECT_EQ(t, next_node_in(4, &m), 1);
	nodemask_t none = NODE_MASK_NONE;
	KTEST_EXPECT_EQ(t, next_node_in(0, &none), MAX_NUMNODES);
}

/* bitmap_bitremap against its definition. */
static void node_remap_model(struct ktest *t)
{
	for (unsigned long from = 0; from < (1ul << 5); from++)
		for (unsigned long to = 0; to < (1ul << 5); to++) {
			nodemask_t f = mask_of(from), tt = mask_of(to);
			unsigned w = nodes_weight(tt);
			for (int bit = 0; bit < 5; bit++) {
				int want = bit;
				if ((from >> bit & 1) && w) {
					unsigned ord = (unsigned)__builtin_popcountl(from & ((1ul << bit) - 1)) % w;
					for (int b = 0; b < 5; b++)
						if ((to >> b & 1) && !ord--) {
							want = b;
							break;
						}
				}
				KTEST_EXPECT_EQ(t, node_remap(bit, &f, &tt), want);
			}
		}
}

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(get_nodes_edges),      KTEST_CASE(copy_nodes_back),  KTEST_CASE(relative_nodes),
		KTEST_CASE(first_node_per_mode),  KTEST_CASE(interleave_spreads), KTEST_CASE(next_node_wraps),
		KTEST_CASE(node_remap_model),
	};
	return ktest_run_suite("host_mempolicy", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
