/* The VMA interval tree (Linux's mm/interval_tree.c, built by hand where
 * Linux instantiates include/linux/interval_tree_generic.h) and the i_mmap
 * membership of VMAs (Linux's vma_link_file and unlink_file_vma, in
 * mm/mmap.c there): mm/interval_tree.h has the rules.
 *
 * The tree is an rbtree ordered by vm_pgoff (ties go right, so a VMA
 * inserted later comes later in iteration: fork's copy after its parent,
 * which a walker racing the copy relies on); each node caches the largest
 * last offset in its subtree (shared.rb_subtree_last), so a search skips
 * every subtree that ends before the range it asks about. */
#include "mm/interval_tree.h"
#include "fs/fs.h"
#include "mm/shmem.h"

static unsigned long vma_start_pgoff(const struct vm_area_struct *v) { return v->vm_pgoff; }

static unsigned long vma_last_pgoff(const struct vm_area_struct *v)
{
	return v->vm_pgoff + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
}

static struct vm_area_struct *itree_entry(struct rb_node *rb)
{
	return rb ? rb_entry(rb, struct vm_area_struct, shared.rb) : NULL;
}

static unsigned long itree_compute_last(struct vm_area_struct *v)
{
	unsigned long max = vma_last_pgoff(v);
	struct vm_area_struct *l = itree_entry(v->shared.rb.rb_left), *r = itree_entry(v->shared.rb.rb_right);
	if (l && l->shared.rb_subtree_last > max)
		max = l->shared.rb_subtree_last;
	if (r && r->shared.rb_subtree_last > max)
		max = r->shared.rb_subtree_last;
	return max;
}

static void itree_propagate(struct rb_node *rb, struct rb_node *stop)
{
	while (rb != stop) {
		struct vm_area_struct *v = itree_entry(rb);
		unsigned long last = itree_compute_last(v);
		if (v->shared.rb_subtree_last == last)
			break;
		v->shared.rb_subtree_last = last;
		rb = rb_parent(rb);
	}
}

static void itree_copy(struct rb_node *old, struct rb_node *new)
{
	itree_entry(new)->shared.rb_subtree_last = itree_entry(old)->shared.rb_subtree_last;
}

static void itree_rotate(struct rb_node *old, struct rb_node *new)
{
	itree_entry(new)->shared.rb_subtree_last = itree_entry(old)->shared.rb_subtree_last;
	itree_entry(old)->shared.rb_subtree_last = itree_compute_last(itree_entry(old));
}

static const struct rb_augment_callbacks itree_callbacks = {
	.propagate = itree_propagate, .copy = itree_copy, .rotate = itree_rotate,
};

void vma_interval_tree_insert(struct vm_area_struct *node, struct rb_root *root)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;
	unsigned long start = vma_start_pgoff(node), last = vma_last_pgoff(node);
	/* The path down covers the new node: each ancestor's cache grows. */
	while (*link) {
		struct vm_area_struct *p = itree_entry(*link);
		parent = *link;
		if (p->shared.rb_subtree_last < last)
			p->shared.rb_subtree_last = last;
		link = start < vma_start_pgoff(p) ? &parent->rb_left : &parent->rb_right;
	}
	node->shared.rb_subtree_last = last;
	rb_link_node(&node->shared.rb, parent, link);
	rb_insert_augmented(&node->shared.rb, root, &itree_callbacks);
}

void vma_interval_tree_remove(struct vm_area_struct *node, struct rb_root *root)
{
	rb_erase_augmented(&node->shared.rb, root, &itree_callbacks);
}

/* The leftmost node of node's subtree that meets [start, last], or NULL;
 * node's subtree reaches start (its cache says so). */
static struct vm_area_struct *itree_subtree_search(struct vm_area_struct *node, unsigned long start,
						   unsigned long last)
{
	for (;;) {
		struct vm_area_struct *left = itree_entry(node->shared.rb.rb_left);
		if (left && left->shared.rb_subtree_last >= start) {
			node = left; /* something on the left may meet it, and comes first */
			continue;
		}
		if (vma_start_pgoff(node) > last)
			return NULL; /* this node and everything right of it start after the range */
		if (vma_last_pgoff(node) >= start)
			return node;
		node = itree_entry(node->shared.rb.rb_right);
		if (!node || node->shared.rb_subtree_last < start)
			return NULL;
	}
}

struct vm_area_struct *vma_interval_tree_iter_first(struct rb_root *root, unsigned long start,
						    unsigned long last)
{
	struct vm_area_struct *node = itree_entry(root->rb_node);
	if (!node || node->shared.rb_subtree_last < start)
		return NULL;
	return itree_subtree_search(node, start, last);
}

struct vm_area_struct *vma_interval_tree_iter_next(struct vm_area_struct *node, unsigned long start,
						   unsigned long last)
{
	struct rb_node *rb = node->shared.rb.rb_right, *prev;
	for (;;) {
		/* The right subtree comes next in order, when it reaches start. */
		struct vm_area_struct *right = itree_entry(rb);
		if (right && right->shared.rb_subtree_last >= start)
			return itree_subtree_search(right, start, last);
		/* Else up to the first ancestor we reach from its left. */
		do {
			rb = rb_parent(&node->shared.rb);
			if (!rb)
				return NULL;
			prev = &node->shared.rb;
			node = itree_entry(rb);
			rb = node->shared.rb.rb_right;
		} while (prev == rb);
		if (vma_start_pgoff(node) > last)
			return NULL;
		if (vma_last_pgoff(node) >= start)
			return node;
	}
}

/* ---- i_mmap: the VMAs of a file ---------------------------------------------- */

struct rb_root *vma_i_mmap(struct vm_area_struct *vma, struct rw_semaphore **rwsem)
{
	if (vma->vm_file) {
		/* A file without pages (procfs's, whose mmap method refuses
		 * after mmap_region made the VMA) has no tree. */
		struct address_space *mapping = vma->vm_file->f_mapping;
		if (!mapping)
			return NULL;
		*rwsem = &mapping->i_mmap_rwsem;
		return &mapping->i_mmap;
	}
	if (vma->vm_shm) { /* shared anonymous memory: its object's file's */
		*rwsem = &vma->vm_shm->mapping->i_mmap_rwsem;
		return &vma->vm_shm->mapping->i_mmap;
	}
	return NULL;
}

void vma_link_file(struct vm_area_struct *vma)
{
	struct rw_semaphore *rwsem = NULL;
	struct rb_root *root = vma_i_mmap(vma, &rwsem);
	if (!root || vma->shared.linked)
		return;
	down_write(rwsem);
	vma_interval_tree_insert(vma, root);
	vma->shared.linked = true;
	up_write(rwsem);
}

void unlink_file_vma(struct vm_area_struct *vma)
{
	struct rw_semaphore *rwsem = NULL;
	if (!vma->shared.linked)
		return;
	struct rb_root *root = vma_i_mmap(vma, &rwsem);
	down_write(rwsem);
	vma_interval_tree_remove(vma, root);
	vma->shared.linked = false;
	up_write(rwsem);
}

void vma_i_mmap_set_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			  unsigned long pgoff)
{
	struct rw_semaphore *rwsem = NULL;
	struct rb_root *root = vma->shared.linked ? vma_i_mmap(vma, &rwsem) : NULL;
	if (root) {
		down_write(rwsem);
		vma_interval_tree_remove(vma, root);
	}
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_pgoff = pgoff;
	if (root) {
		vma_interval_tree_insert(vma, root);
		up_write(rwsem);
	}
}
