/* Host tests of lib/rbtree.c on its own (part of the host_vma suite):
 * random insertions and erasures checked against a sorted reference array,
 * with every red-black property, the parent pointers, the in-order walks
 * and (for the augmented variant) a cached subtree maximum verified after
 * every single operation. */
#include "lib/rbtree.h"
#include "tests/host/ktest.h"
#include "tests/host/vma_rbtree.h"

#include <stdlib.h>
#include <string.h>

struct item {
	struct rb_node rb;
	unsigned long key;
	unsigned long value;   /* augmented: any number */
	unsigned long sub_max; /* largest value in the subtree */
	bool in_tree;
};

#define NR_ITEMS 1500

static struct item items[NR_ITEMS];

static struct item *rb_item(struct rb_node *rb) { return rb_entry_safe(rb, struct item, rb); }

static unsigned long compute_max(struct item *it)
{
	unsigned long m = it->value;
	struct item *l = rb_item(it->rb.rb_left), *r = rb_item(it->rb.rb_right);
	if (l && l->sub_max > m)
		m = l->sub_max;
	if (r && r->sub_max > m)
		m = r->sub_max;
	return m;
}

static void aug_propagate(struct rb_node *rb, struct rb_node *stop)
{
	while (rb != stop) {
		struct item *it = rb_item(rb);
		unsigned long m = compute_max(it);
		if (m == it->sub_max)
			break;
		it->sub_max = m;
		rb = rb_parent(rb);
	}
}
static void aug_copy(struct rb_node *old, struct rb_node *new) { rb_item(new)->sub_max = rb_item(old)->sub_max; }
static void aug_rotate(struct rb_node *old, struct rb_node *new)
{
	rb_item(new)->sub_max = rb_item(old)->sub_max;
	rb_item(old)->sub_max = compute_max(rb_item(old));
}
static const struct rb_augment_callbacks aug = { aug_propagate, aug_copy, aug_rotate };

static u64 rng_state;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void insert(struct rb_root *root, struct item *it, bool augmented)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;
	while (*link) {
		parent = *link;
		struct item *p = rb_item(parent);
		/* The path down gains the new value (the caller's job for
		 * augmented trees). */
		if (augmented && it->value > p->sub_max)
			p->sub_max = it->value;
		link = it->key < p->key ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&it->rb, parent, link);
	it->sub_max = it->value;
	if (augmented)
		rb_insert_augmented(&it->rb, root, &aug);
	else
		rb_insert_color(&it->rb, root);
	it->in_tree = true;
}

struct check {
	struct ktest *t;
	bool augmented;
	int count;
	bool ok;
};

static int check_node(struct check *c, struct rb_node *rb, struct rb_node *parent,
		      unsigned long lo, unsigned long hi)
{
	if (!rb)
		return 1;
	struct item *it = rb_item(rb);
	bool black = rb->__rb_parent_color & 1;
	c->count++;
	if (rb_parent(rb) != parent || it->key < lo || it->key > hi)
		c->ok = false;
	if (!black && ((rb->rb_left && !(rb->rb_left->__rb_parent_color & 1)) ||
		       (rb->rb_right && !(rb->rb_right->__rb_parent_color & 1))))
		c->ok = false;
	int lh = check_node(c, rb->rb_left, rb, lo, it->key);
	int rh = check_node(c, rb->rb_right, rb, it->key, hi);
	if (lh != rh)
		c->ok = false;
	if (c->augmented && it->sub_max != compute_max(it))
		c->ok = false;
	return lh + black;
}

/* Every property, and the walks against the sorted live keys. */
static bool check_tree(struct ktest *t, struct rb_root *root, bool augmented)
{
	struct check c = { t, augmented, 0, true };
	if (root->rb_node && !(root->rb_node->__rb_parent_color & 1))
		c.ok = false;
	check_node(&c, root->rb_node, NULL, 0, ~0ul);
	static unsigned long ref[NR_ITEMS];
	int n = 0;
	for (int i = 0; i < NR_ITEMS; i++)
		if (items[i].in_tree)
			ref[n++] = items[i].key;
	/* Keys are the index times 4, so sorting by index sorts by key. */
	if (c.count != n)
		c.ok = false;
	int i = 0;
	for (struct rb_node *rb = rb_first(root); rb; rb = rb_next(rb), i++)
		if (i >= n || rb_item(rb)->key != ref[i])
			c.ok = false;
	if (i != n)
		c.ok = false;
	i = n - 1;
	for (struct rb_node *rb = rb_last(root); rb; rb = rb_prev(rb), i--)
		if (i < 0 || rb_item(rb)->key != ref[i])
			c.ok = false;
	if (i != -1)
		c.ok = false;
	if (!c.ok)
		ktest_fail(t, __FILE__, __LINE__, "tree invariant broken (%d nodes, %d expected)",
			   c.count, n);
	return c.ok;
}

static void run_random(struct ktest *t, bool augmented, u64 seed)
{
	struct rb_root root = RB_ROOT;
	rng_state = seed;
	memset(items, 0, sizeof(items));
	for (int i = 0; i < NR_ITEMS; i++) {
		items[i].key = (unsigned long)i * 4;
		items[i].value = rng() % 100000;
	}
	unsigned long ops = 0, max_live = 0, live = 0;
	for (int step = 0; step < 12000; step++) {
		/* Fill up in the first half, drain in the second. */
		bool grow = step < 6000 ? rng() % 4 != 0 : rng() % 4 == 0;
		int i = (int)(rng() % NR_ITEMS);
		if (grow && !items[i].in_tree) {
			insert(&root, &items[i], augmented);
			live++;
		} else if (!grow && items[i].in_tree) {
			if (augmented)
				rb_erase_augmented(&items[i].rb, &root, &aug);
			else
				rb_erase(&items[i].rb, &root);
			items[i].in_tree = false;
			live--;
		} else {
			continue;
		}
		ops++;
		if (live > max_live)
			max_live = live;
		if (!check_tree(t, &root, augmented)) {
			ktest_diag(t, "after operation %lu (step %d)", ops, step);
			return;
		}
	}
	ktest_diag(t, "%lu operations, up to %lu nodes", ops, max_live);
}

static void rbtree_random_against_reference(struct ktest *t)
{
	run_random(t, false, 0x9e3779b97f4a7c15ull);
	run_random(t, false, 12345);
}

static void rbtree_augmented_random_against_reference(struct ktest *t)
{
	run_random(t, true, 0x2545f4914f6cdd1dull);
	run_random(t, true, 777);
}

/* Sorted insertions are the classic worst case of an unbalanced tree. */
static void rbtree_sorted_insertions_stay_balanced(struct ktest *t)
{
	struct rb_root root = RB_ROOT;
	memset(items, 0, sizeof(items));
	for (int i = 0; i < NR_ITEMS; i++) {
		items[i].key = (unsigned long)i * 4;
		insert(&root, &items[i], false);
	}
	KTEST_EXPECT_TRUE(t, check_tree(t, &root, false));
	int depth = 0;
	for (struct rb_node *rb = root.rb_node; rb; rb = rb->rb_left)
		depth++;
	int max_depth = 0;
	for (int i = 0; i < NR_ITEMS; i++) {
		int d = 0;
		for (struct rb_node *rb = &items[i].rb; rb; rb = rb_parent(rb))
			d++;
		if (d > max_depth)
			max_depth = d;
	}
	/* 2 log2(n + 1) is about 21.1 for 1500 nodes. */
	KTEST_EXPECT_LE(t, max_depth, 21);
	ktest_diag(t, "height %d for %d sorted insertions", max_depth, NR_ITEMS);
	for (int i = 0; i < NR_ITEMS; i++) {
		rb_erase(&items[i].rb, &root);
		items[i].in_tree = false;
	}
	KTEST_EXPECT_TRUE(t, RB_EMPTY_ROOT(&root));
}

const struct ktest_case vma_rbtree_cases[] = {
	KTEST_CASE(rbtree_random_against_reference),
	KTEST_CASE(rbtree_augmented_random_against_reference),
	KTEST_CASE(rbtree_sorted_insertions_stay_balanced),
};
const size_t nr_vma_rbtree_cases = ARRAY_SIZE(vma_rbtree_cases);
