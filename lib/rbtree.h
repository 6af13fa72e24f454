/* Red-black trees, with Linux's interface (include/linux/rbtree.h): the
 * caller embeds a struct rb_node in its own structure, walks down from
 * rb_root itself to find the insertion point, links the node there with
 * rb_link_node() and rebalances with rb_insert_color(); rb_erase() removes.
 *
 * Augmented trees (each node caches a value computed from its subtree, as
 * the VMA tree's largest gap) pass callbacks that recompute the value along
 * the changed paths: rb_insert_augmented() / rb_erase_augmented().
 *
 * Invariants: every path from the root to a leaf has the same number of
 * black nodes and no red node has a red child, so the height is at most
 * 2 log2(n + 1). */
#ifndef LIB_RBTREE_H
#define LIB_RBTREE_H

#include "kernel/types.h"

struct rb_node {
	unsigned long __rb_parent_color; /* parent pointer | colour (bit 0: black) */
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __aligned(sizeof(long));

struct rb_root {
	struct rb_node *rb_node;
};

#define RB_ROOT ((struct rb_root){ NULL })
#define rb_parent(r) ((struct rb_node *)((r)->__rb_parent_color & ~3ul))
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member)                                            \
	({                                                                          \
		__typeof__(ptr) ____ptr = (ptr);                                    \
		____ptr ? rb_entry(____ptr, type, member) : NULL;                   \
	})
#define RB_EMPTY_ROOT(root) ((root)->rb_node == NULL)

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent, struct rb_node **rb_link)
{
	node->__rb_parent_color = (unsigned long)parent; /* red */
	node->rb_left = node->rb_right = NULL;
	*rb_link = node;
}

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);

struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

/* Augmented trees: propagate recomputes the cached value from node up to
 * (not including) stop; copy copies it from old to new (a node taking
 * another's place); rotate fixes both nodes of a rotation. */
struct rb_augment_callbacks {
	void (*propagate)(struct rb_node *node, struct rb_node *stop);
	void (*copy)(struct rb_node *old, struct rb_node *new);
	void (*rotate)(struct rb_node *old, struct rb_node *new);
};
/* The caller has linked node and updated the cached values on its path. */
void rb_insert_augmented(struct rb_node *node, struct rb_root *root,
			 const struct rb_augment_callbacks *augment);
void rb_erase_augmented(struct rb_node *node, struct rb_root *root,
			const struct rb_augment_callbacks *augment);

#endif
