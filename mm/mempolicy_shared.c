/* Shared policies (mm/shared_policy.h): Linux 6.1's sp_lookup, sp_insert,
 * shared_policy_replace, mpol_shared_policy_lookup, mpol_set_shared_policy,
 * mpol_shared_policy_init and mpol_free_shared_policy (mm/mempolicy.c).
 *
 * As in Linux, ranges are not merged: a policy set over part of a range
 * cuts it (the part before keeps its node, the part after gets a new one),
 * and a policy set over whole ranges deletes them; two neighbours with
 * equal policies stay two nodes. Where Linux copies a policy into a node
 * (sp_alloc's mpol_dup, the split's copy), mmlab takes a reference:
 * policies are immutable once made (mm/mempolicy.h), so sharing one is the
 * same as copying it (Linux marks its copies MPOL_F_SHARED for their
 * conditional reference counting, which mmlab does not need). */
#include "mm/shared_policy.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/slab.h"

/* Linux's sp_lookup: the first range that intersects [start, end), or
 * NULL (sp->lock held). */
static struct sp_node *sp_lookup(struct shared_policy *sp, unsigned long start, unsigned long end)
{
	struct rb_node *n = sp->root.rb_node;
	while (n) {
		struct sp_node *p = rb_entry(n, struct sp_node, nd);
		if (start >= p->end)
			n = n->rb_right;
		else if (end <= p->start)
			n = n->rb_left;
		else
			break;
	}
	if (!n)
		return NULL;
	/* Any intersecting range: go left while the one before still
	 * intersects. */
	for (struct rb_node *prev = rb_prev(n); prev; prev = rb_prev(n)) {
		if (rb_entry(prev, struct sp_node, nd)->end <= start)
			break;
		n = prev;
	}
	return rb_entry(n, struct sp_node, nd);
}

/* Linux's sp_insert (sp->lock held): the ranges never overlap. */
static void sp_insert(struct shared_policy *sp, struct sp_node *new)
{
	struct rb_node **p = &sp->root.rb_node, *parent = NULL;
	while (*p) {
		parent = *p;
		struct sp_node *nd = rb_entry(parent, struct sp_node, nd);
		if (new->start < nd->start)
			p = &(*p)->rb_left;
		else
			p = &(*p)->rb_right;
	}
	rb_link_node(&new->nd, parent, p);
	rb_insert_color(&new->nd, &sp->root);
}

static struct sp_node *sp_alloc(unsigned long start, unsigned long end, struct mempolicy *pol)
{
	struct sp_node *n = kmalloc(sizeof(*n), GFP_KERNEL);
	if (n) {
		n->start = start;
		n->end = end;
		n->policy = mpol_get(pol);
	}
	return n;
}

static void sp_free(struct sp_node *n)
{
	mpol_put(n->policy);
	kfree(n);
}

/* Linux's sp_delete (sp->lock held). */
static void sp_delete(struct shared_policy *sp, struct sp_node *n)
{
	rb_erase(&n->nd, &sp->root);
	sp_free(n);
}

struct mempolicy *mpol_shared_policy_lookup(struct shared_policy *sp, unsigned long idx)
{
	struct mempolicy *pol = NULL;
	if (!__atomic_load_n(&sp->root.rb_node, __ATOMIC_ACQUIRE))
		return NULL;
	spin_lock(&sp->lock);
	struct sp_node *sn = sp_lookup(sp, idx, idx + 1);
	if (sn)
		pol = mpol_get(sn->policy);
	spin_unlock(&sp->lock);
	return pol;
}

/* Linux's shared_policy_replace: the ranges inside [start, end) go, those
 * that reach into it are cut at its ends, then new (if any) goes in. A
 * range spanning the whole of [start, end) becomes two: the node for the
 * part after is allocated before the lock is taken (Linux allocates it
 * when it finds it needs one and starts again). 0 or -ENOMEM. */
static int shared_policy_replace(struct shared_policy *sp, unsigned long start, unsigned long end,
				 struct sp_node *new)
{
	struct sp_node *n_new = kmalloc(sizeof(*n_new), GFP_KERNEL);
	if (!n_new)
		return -ENOMEM;
	spin_lock(&sp->lock);
	struct sp_node *n = sp_lookup(sp, start, end);
	while (n && n->start < end) {
		struct rb_node *next = rb_next(&n->nd);
		if (n->start >= start) {
			if (n->end <= end)
				sp_delete(sp, n);
			else
				n->start = end;
		} else if (n->end > end) {
			/* The old range spans the whole new one: its tail
			 * keeps its policy in a node of its own. */
			n_new->start = end;
			n_new->end = n->end;
			n_new->policy = mpol_get(n->policy);
			n->end = start;
			sp_insert(sp, n_new);
			n_new = NULL;
			break;
		} else {
			n->end = start;
		}
		if (!next)
			break;
		n = rb_entry(next, struct sp_node, nd);
	}
	if (new)
		sp_insert(sp, new);
	spin_unlock(&sp->lock);
	kfree(n_new);
	return 0;
}

int mpol_set_shared_policy(struct shared_policy *sp, unsigned long start, unsigned long end,
			   struct mempolicy *npol)
{
	struct sp_node *new = NULL;
	if (npol) {
		new = sp_alloc(start, end, npol);
		if (!new)
			return -ENOMEM;
	}
	int err = shared_policy_replace(sp, start, end, new);
	if (err && new)
		sp_free(new);
	return err;
}

void mpol_shared_policy_init(struct shared_policy *sp, struct mempolicy *mpol)
{
	sp->root = RB_ROOT; /* empty: the default policy */
	spin_lock_init(&sp->lock);
	if (!mpol)
		return;
	/* Linux's "contextualize the tmpfs mount point mempolicy": made again
	 * from the nodes mpol= named, intersected with the nodes that have
	 * memory now; none left is no policy. It covers the whole file (a
	 * pseudo-VMA of TASK_SIZE in Linux: offsets [0, TASK_SIZE >>
	 * PAGE_SHIFT)). */
	int err;
	struct mempolicy *new = mpol_new(mpol->mode, mpol->flags, &mpol->user_nodemask, &err);
	if (new && !mpol_set_nodemask(new, &mpol->user_nodemask))
		mpol_set_shared_policy(sp, 0, TASK_SIZE >> PAGE_SHIFT, new);
	mpol_put(new);
	mpol_put(mpol); /* the caller's reference on the instance's policy */
}

void mpol_free_shared_policy(struct shared_policy *sp)
{
	if (!sp->root.rb_node)
		return;
	spin_lock(&sp->lock);
	struct rb_node *next = rb_first(&sp->root);
	while (next) {
		struct sp_node *n = rb_entry(next, struct sp_node, nd);
		next = rb_next(&n->nd);
		sp_delete(sp, n);
	}
	spin_unlock(&sp->lock);
}
