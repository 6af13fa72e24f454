/* Red-black trees (see lib/rbtree.h), optionally augmented.
 *
 * The colour lives in bit 0 of __rb_parent_color (1: black, 0: red); a
 * missing child (NULL) counts as black. After every public operation:
 *   - the root is black, no red node has a red child, and every path from
 *     a node down to a missing child crosses the same number of black
 *     nodes (so the height stays below 2 log2(n + 1));
 *   - for augmented trees, every node's cached value has been recomputed
 *     from its children by the caller's callbacks wherever a subtree
 *     changed shape: rotations call rotate(), a node moved into another's
 *     place calls copy(), and the paths whose contents changed are
 *     recomputed with propagate().
 *
 * The algorithms are the textbook ones (insertion and deletion fix-ups as
 * in Cormen et al.), written for NULL leaves: the deletion fix-up carries
 * the parent of the doubly-black position because that position may be
 * empty. Portable C: also built for the host tests. */
#include "lib/rbtree.h"

#define RB_RED 0ul
#define RB_BLACK 1ul

static inline bool rb_is_black(const struct rb_node *n) { return !n || (n->__rb_parent_color & RB_BLACK); }
static inline bool rb_is_red(const struct rb_node *n) { return !rb_is_black(n); }
static inline unsigned long rb_color(const struct rb_node *n) { return n->__rb_parent_color & RB_BLACK; }
static inline void rb_set_black(struct rb_node *n) { n->__rb_parent_color |= RB_BLACK; }
static inline void rb_set_red(struct rb_node *n) { n->__rb_parent_color &= ~RB_BLACK; }
static inline void rb_set_color(struct rb_node *n, unsigned long color)
{
	n->__rb_parent_color = (n->__rb_parent_color & ~RB_BLACK) | color;
}
/* Keeps n's colour. */
static inline void rb_set_parent(struct rb_node *n, struct rb_node *parent)
{
	n->__rb_parent_color = (unsigned long)parent | rb_color(n);
}

/* Makes parent (or the root, if parent is NULL) point to new instead of old. */
static inline void change_child(struct rb_node *old, struct rb_node *new, struct rb_node *parent,
				struct rb_root *root)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->rb_left == old)
		parent->rb_left = new;
	else
		parent->rb_right = new;
}

/* x goes down to the left, its right child y takes its place. Colours stay
 * with their nodes. */
static void rotate_left(struct rb_node *x, struct rb_root *root, const struct rb_augment_callbacks *aug)
{
	struct rb_node *y = x->rb_right, *parent = rb_parent(x);
	x->rb_right = y->rb_left;
	if (y->rb_left)
		rb_set_parent(y->rb_left, x);
	y->rb_left = x;
	rb_set_parent(y, parent);
	change_child(x, y, parent, root);
	rb_set_parent(x, y);
	if (aug)
		aug->rotate(x, y);
}

/* x goes down to the right, its left child y takes its place. */
static void rotate_right(struct rb_node *x, struct rb_root *root, const struct rb_augment_callbacks *aug)
{
	struct rb_node *y = x->rb_left, *parent = rb_parent(x);
	x->rb_left = y->rb_right;
	if (y->rb_right)
		rb_set_parent(y->rb_right, x);
	y->rb_right = x;
	rb_set_parent(y, parent);
	change_child(x, y, parent, root);
	rb_set_parent(x, y);
	if (aug)
		aug->rotate(x, y);
}

/* node was just linked, red, as a leaf. */
static void insert_fixup(struct rb_node *node, struct rb_root *root, const struct rb_augment_callbacks *aug)
{
	for (;;) {
		struct rb_node *parent = rb_parent(node);
		if (!parent) {
			rb_set_black(node);
			return;
		}
		if (rb_is_black(parent))
			return;
		/* A red parent is never the root, so the grandparent exists. */
		struct rb_node *gparent = rb_parent(parent);
		bool left = parent == gparent->rb_left;
		struct rb_node *uncle = left ? gparent->rb_right : gparent->rb_left;
		if (rb_is_red(uncle)) {
			/* Recolour and move the problem two levels up. */
			rb_set_black(parent);
			rb_set_black(uncle);
			rb_set_red(gparent);
			node = gparent;
			continue;
		}
		if (left) {
			if (node == parent->rb_right) {
				rotate_left(parent, root, aug);
				parent = node;
			}
			rb_set_black(parent);
			rb_set_red(gparent);
			rotate_right(gparent, root, aug);
		} else {
			if (node == parent->rb_left) {
				rotate_right(parent, root, aug);
				parent = node;
			}
			rb_set_black(parent);
			rb_set_red(gparent);
			rotate_left(gparent, root, aug);
		}
		return;
	}
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	insert_fixup(node, root, NULL);
}

void rb_insert_augmented(struct rb_node *node, struct rb_root *root,
			 const struct rb_augment_callbacks *augment)
{
	insert_fixup(node, root, augment);
}

/* A black node was removed above position x (possibly empty) under parent:
 * paths through x are one black node short. */
static void erase_fixup(struct rb_node *x, struct rb_node *parent, struct rb_root *root,
			const struct rb_augment_callbacks *aug)
{
	while (x != root->rb_node && rb_is_black(x)) {
		/* An empty x on the right has a non-empty sibling on the left
		 * (that side has black height >= 1), so this test is exact. */
		if (x == parent->rb_left) {
			struct rb_node *sibling = parent->rb_right;
			if (rb_is_red(sibling)) {
				rb_set_black(sibling);
				rb_set_red(parent);
				rotate_left(parent, root, aug);
				sibling = parent->rb_right;
			}
			if (rb_is_black(sibling->rb_left) && rb_is_black(sibling->rb_right)) {
				rb_set_red(sibling);
				x = parent;
				parent = rb_parent(x);
				continue;
			}
			if (rb_is_black(sibling->rb_right)) {
				rb_set_black(sibling->rb_left);
				rb_set_red(sibling);
				rotate_right(sibling, root, aug);
				sibling = parent->rb_right;
			}
			rb_set_color(sibling, rb_color(parent));
			rb_set_black(parent);
			rb_set_black(sibling->rb_right);
			rotate_left(parent, root, aug);
		} else {
			struct rb_node *sibling = parent->rb_left;
			if (rb_is_red(sibling)) {
				rb_set_black(sibling);
				rb_set_red(parent);
				rotate_right(parent, root, aug);
				sibling = parent->rb_left;
			}
			if (rb_is_black(sibling->rb_left) && rb_is_black(sibling->rb_right)) {
				rb_set_red(sibling);
				x = parent;
				parent = rb_parent(x);
				continue;
			}
			if (rb_is_black(sibling->rb_left)) {
				rb_set_black(sibling->rb_right);
				rb_set_red(sibling);
				rotate_left(sibling, root, aug);
				sibling = parent->rb_left;
			}
			rb_set_color(sibling, rb_color(parent));
			rb_set_black(parent);
			rb_set_black(sibling->rb_left);
			rotate_right(parent, root, aug);
		}
		x = root->rb_node;
		break;
	}
	if (x)
		rb_set_black(x);
}

static void erase(struct rb_node *node, struct rb_root *root, const struct rb_augment_callbacks *aug)
{
	struct rb_node *x, *xparent, *parent = rb_parent(node);
	bool removed_black;

	if (!node->rb_left || !node->rb_right) {
		/* At most one child: it takes node's place. */
		x = node->rb_left ? node->rb_left : node->rb_right;
		xparent = parent;
		removed_black = rb_is_black(node);
		change_child(node, x, parent, root);
		if (x)
			rb_set_parent(x, parent);
		if (aug && parent)
			aug->propagate(parent, NULL);
	} else {
		/* Two children: the successor (leftmost of the right subtree)
		 * takes node's place and colour; its own old position, which
		 * has no left child, is what disappears. */
		struct rb_node *succ = node->rb_right;
		while (succ->rb_left)
			succ = succ->rb_left;
		removed_black = rb_is_black(succ);
		x = succ->rb_right;
		if (succ == node->rb_right) {
			xparent = succ;
		} else {
			xparent = rb_parent(succ);
			xparent->rb_left = x;
			if (x)
				rb_set_parent(x, xparent);
			succ->rb_right = node->rb_right;
			rb_set_parent(node->rb_right, succ);
		}
		succ->rb_left = node->rb_left;
		rb_set_parent(node->rb_left, succ);
		succ->__rb_parent_color = node->__rb_parent_color;
		change_child(node, succ, parent, root);
		if (aug) {
			aug->copy(node, succ);
			/* The path below succ lost succ; then succ's own subtree
			 * lost node. Two passes, so that stopping early on an
			 * unchanged value in the first never skips succ. */
			if (xparent != succ)
				aug->propagate(xparent, succ);
			aug->propagate(succ, NULL);
		}
	}
	if (removed_black)
		erase_fixup(x, xparent, root, aug);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	erase(node, root, NULL);
}

void rb_erase_augmented(struct rb_node *node, struct rb_root *root,
			const struct rb_augment_callbacks *augment)
{
	erase(node, root, augment);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;
	if (!n)
		return NULL;
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;
	if (!n)
		return NULL;
	while (n->rb_right)
		n = n->rb_right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	struct rb_node *parent;
	while ((parent = rb_parent(node)) && node == parent->rb_right)
		node = parent;
	return parent;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	if (node->rb_left) {
		node = node->rb_left;
		while (node->rb_right)
			node = node->rb_right;
		return (struct rb_node *)node;
	}
	struct rb_node *parent;
	while ((parent = rb_parent(node)) && node == parent->rb_left)
		node = parent;
	return parent;
}
