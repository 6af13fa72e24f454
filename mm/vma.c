/* The VMA tree of an address space (Linux's mm/vma.c, in its shape from
 * before the maple tree): linking and unlinking VMAs, the augmented gaps,
 * splitting, merging and unmapping ranges. mm/mmap.c, mm/mprotect.c and
 * mm/madvise.c build the system calls on it (mm/vma.h).
 *
 * Invariants, true whenever an mm's owner is not inside one of these
 * functions:
 *   - the VMAs are in mm->mm_rb ordered by address, and on the vm_next /
 *     vm_prev list in the same order; they never overlap, are page aligned,
 *     non-empty and below TASK_SIZE; map_count is their number, total_vm
 *     the pages they cover, hiwater_vm the largest total_vm ever,
 *     highest_vm_end the end of the last one (0 when there is none);
 *   - a VMA's gap is the free space just below it, vm_start minus its
 *     predecessor's vm_end (or minus 0 for the first); its rb_subtree_gap
 *     is the largest gap in its subtree, so gap searches skip whole
 *     subtrees and cost O(log n). Every change of a vm_start, a vm_end or a
 *     neighbour link is followed by vma_gap_update() of the VMAs whose gap
 *     it changed (vma_set_range() does both); a gap computed while two
 *     VMAs briefly overlap is wrong, and is recomputed before returning;
 *   - after a mapping or a flags change, touching neighbours have
 *     different flags (they are merged otherwise), so touching mmaps do not
 *     pile up VMAs. (Linux also refuses merges across anon_vmas; there are
 *     none here.)
 * Concurrency: see mm/mm_types.h (the mm's own task only). Portable C: the
 * host tests build it with stubs of mm/memory.c. */
#include "mm/vma.h"
#include "mm/memory.h"
#include "mm/mmu_gather.h"
#include "mm/slab.h"

int sysctl_max_map_count = DEFAULT_MAX_MAP_COUNT;

/* ---- the tree and the list ----------------------------------------------- */

static unsigned long vma_compute_gap(const struct vm_area_struct *vma)
{
	return vma->vm_start - (vma->vm_prev ? vma->vm_prev->vm_end : 0);
}

static unsigned long vma_compute_subtree_gap(struct vm_area_struct *vma)
{
	unsigned long max = vma_compute_gap(vma);
	struct vm_area_struct *l = rb_vma(vma->vm_rb.rb_left), *r = rb_vma(vma->vm_rb.rb_right);
	if (l && l->rb_subtree_gap > max)
		max = l->rb_subtree_gap;
	if (r && r->rb_subtree_gap > max)
		max = r->rb_subtree_gap;
	return max;
}

static void vma_gap_propagate(struct rb_node *rb, struct rb_node *stop)
{
	while (rb != stop) {
		struct vm_area_struct *vma = rb_vma(rb);
		unsigned long gap = vma_compute_subtree_gap(vma);
		if (vma->rb_subtree_gap == gap)
			break;
		vma->rb_subtree_gap = gap;
		rb = rb_parent(rb);
	}
}

static void vma_gap_copy(struct rb_node *old, struct rb_node *new)
{
	rb_vma(new)->rb_subtree_gap = rb_vma(old)->rb_subtree_gap;
}

static void vma_gap_rotate(struct rb_node *old, struct rb_node *new)
{
	rb_vma(new)->rb_subtree_gap = rb_vma(old)->rb_subtree_gap;
	rb_vma(old)->rb_subtree_gap = vma_compute_subtree_gap(rb_vma(old));
}

static const struct rb_augment_callbacks vma_gap_callbacks = {
	.propagate = vma_gap_propagate,
	.copy = vma_gap_copy,
	.rotate = vma_gap_rotate,
};

/* vma's own gap changed: recompute it and its ancestors'. */
static void vma_gap_update(struct vm_area_struct *vma)
{
	vma_gap_propagate(&vma->vm_rb, NULL);
}

void vma_set_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	vma->vm_start = start;
	vma->vm_end = end;
	vma_gap_update(vma);
	if (vma->vm_next)
		vma_gap_update(vma->vm_next);
	else
		vma->vm_mm->highest_vm_end = end;
}

void vma_set_flags(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags = flags;
	vma->vm_page_prot = vm_get_page_prot(flags);
}

int find_vma_links(struct mm_struct *mm, unsigned long start, unsigned long end,
			  struct vm_area_struct **pprev, struct rb_node ***plink,
			  struct rb_node **pparent)
{
	struct rb_node **link = &mm->mm_rb.rb_node, *parent = NULL, *prev = NULL;
	*pprev = NULL;
	*plink = NULL;
	*pparent = NULL;
	while (*link) {
		struct vm_area_struct *v = rb_vma(*link);
		parent = *link;
		if (v->vm_end > start) {
			if (v->vm_start < end)
				return -ENOMEM;
			link = &parent->rb_left;
		} else {
			prev = parent;
			link = &parent->rb_right;
		}
	}
	*pprev = rb_vma(prev);
	*plink = link;
	*pparent = parent;
	return 0;
}

void vma_link(struct mm_struct *mm, struct vm_area_struct *vma, struct vm_area_struct *prev,
		     struct rb_node **link, struct rb_node *parent)
{
	struct vm_area_struct *next = prev ? prev->vm_next : rb_vma(rb_first(&mm->mm_rb));
	vma->vm_mm = mm;
	vma->vm_prev = prev;
	vma->vm_next = next;
	if (prev)
		prev->vm_next = vma;
	if (next) {
		next->vm_prev = vma;
		vma_gap_update(next);
	} else {
		mm->highest_vm_end = vma->vm_end;
	}
	/* Linked with a zero subtree gap, as the path down did not count it,
	 * then given its real gap, then rebalanced. */
	rb_link_node(&vma->vm_rb, parent, link);
	vma->rb_subtree_gap = 0;
	vma_gap_update(vma);
	rb_insert_augmented(&vma->vm_rb, &mm->mm_rb, &vma_gap_callbacks);
	mm->map_count++;
}

/* Links a VMA that overlaps nothing. */
static void insert_vma(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vm_area_struct *prev;
	struct rb_node **link, *parent;
	int err = find_vma_links(mm, vma->vm_start, vma->vm_end, &prev, &link, &parent);
	(void)err; /* callers made room: cannot fail */
	vma_link(mm, vma, prev, link, parent);
}

void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct vm_area_struct *prev = vma->vm_prev, *next = vma->vm_next;
	rb_erase_augmented(&vma->vm_rb, &mm->mm_rb, &vma_gap_callbacks);
	if (prev)
		prev->vm_next = next;
	if (next) {
		next->vm_prev = prev;
		vma_gap_update(next);
	} else {
		mm->highest_vm_end = prev ? prev->vm_end : 0;
	}
	mm->map_count--;
}

struct vm_area_struct *vm_area_alloc(void)
{
	return kzalloc(sizeof(struct vm_area_struct), GFP_KERNEL);
}

void vm_area_free(struct vm_area_struct *vma)
{
	kfree(vma);
}

void vm_stat_account(struct mm_struct *mm, long npages)
{
	mm->total_vm += npages;
	if (mm->total_vm > mm->hiwater_vm)
		mm->hiwater_vm = mm->total_vm;
}

/* ---- lookup ---------------------------------------------------------------- */

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct rb_node *rb = mm->mm_rb.rb_node;
	struct vm_area_struct *found = NULL;
	while (rb) {
		struct vm_area_struct *v = rb_vma(rb);
		if (v->vm_end > addr) {
			found = v;
			if (v->vm_start <= addr)
				break;
			rb = rb->rb_left;
		} else {
			rb = rb->rb_right;
		}
	}
	return found;
}

struct vm_area_struct *find_vma_intersection(struct mm_struct *mm, unsigned long start,
					     unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start);
	return vma && vma->vm_start < end ? vma : NULL;
}

struct vm_area_struct *vma_next(struct vm_area_struct *vma) { return vma->vm_next; }
struct vm_area_struct *vma_prev(struct vm_area_struct *vma) { return vma->vm_prev; }

/* ---- splitting and merging ------------------------------------------------- */

/* Cuts vma at addr into two VMAs; new (preallocated) becomes the lower
 * part if new_below, else the upper. */
void split_vma_at(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			 bool new_below, struct vm_area_struct *new)
{
	*new = *vma;
	if (new_below) {
		new->vm_end = addr;
		vma_set_range(vma, addr, vma->vm_end);
	} else {
		new->vm_start = addr;
		vma_set_range(vma, vma->vm_start, addr);
	}
	insert_vma(mm, new);
}

struct vm_area_struct *vma_merge_new(struct mm_struct *mm, struct vm_area_struct *prev,
					    struct vm_area_struct *next, unsigned long start,
					    unsigned long end, unsigned long flags)
{
	bool merge_prev = prev && prev->vm_end == start && prev->vm_flags == flags;
	bool merge_next = next && next->vm_start == end && next->vm_flags == flags;
	if (merge_prev && merge_next) {
		unsigned long next_end = next->vm_end;
		vma_unlink(mm, next);
		vm_area_free(next);
		vma_set_range(prev, prev->vm_start, next_end);
		return prev;
	}
	if (merge_prev) {
		vma_set_range(prev, prev->vm_start, end);
		return prev;
	}
	if (merge_next) {
		vma_set_range(next, start, next->vm_end);
		return next;
	}
	return NULL;
}

struct vm_area_struct *vma_modify_flags(struct mm_struct *mm, struct vm_area_struct *vma,
					unsigned long start, unsigned long end,
					unsigned long newflags)
{
	struct vm_area_struct *prev = vma->vm_prev, *next = vma->vm_next;
	if (vma->vm_flags == newflags)
		return vma;
	bool at_start = start == vma->vm_start, at_end = end == vma->vm_end;
	bool merge_prev = at_start && prev && prev->vm_end == start && prev->vm_flags == newflags;
	bool merge_next = at_end && next && next->vm_start == end && next->vm_flags == newflags;

	if (at_start && at_end) {
		if (!merge_prev && !merge_next) {
			vma_set_flags(vma, newflags);
			return vma;
		}
		/* The whole VMA joins a neighbour (or both): it goes, and its
		 * range merges as a new mapping's would. */
		vma_unlink(mm, vma);
		vm_area_free(vma);
		return vma_merge_new(mm, prev, next, start, end, newflags);
	}
	/* A head or tail piece moves into the neighbour: shrink first, so the
	 * two never overlap. */
	if (merge_prev) {
		vma_set_range(vma, end, vma->vm_end);
		vma_set_range(prev, prev->vm_start, end);
		return prev;
	}
	if (merge_next) {
		vma_set_range(vma, vma->vm_start, start);
		vma_set_range(next, start, next->vm_end);
		return next;
	}
	/* Split off what stays as it is; both VMAs are allocated before
	 * anything changes. Each split needs map_count below the limit. */
	int splits = !at_start + !at_end;
	if (mm->map_count + splits - 1 >= sysctl_max_map_count)
		return NULL;
	struct vm_area_struct *a = vm_area_alloc(), *b = splits == 2 ? vm_area_alloc() : NULL;
	if (!a || (splits == 2 && !b)) {
		vm_area_free(a);
		vm_area_free(b);
		return NULL;
	}
	if (!at_start) {
		split_vma_at(mm, vma, start, false, a);
		vma = a;
		a = b;
	}
	if (!at_end) {
		split_vma_at(mm, vma, end, true, a);
		vma = a;
	}
	vma_set_flags(vma, newflags);
	return vma;
}

/* ---- munmap ---------------------------------------------------------------- */

int munmap_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start);
	if (!vma || vma->vm_start >= end)
		return 0;
	struct vm_area_struct *tail = find_vma(mm, end);
	bool split_head = vma->vm_start < start, split_tail = tail && tail->vm_start < end;
	/* One VMA cut in three: Linux lets map_count pass the limit only
	 * while it frees. */
	if (split_head && split_tail && tail == vma && mm->map_count >= sysctl_max_map_count)
		return -ENOMEM;
	struct vm_area_struct *a = split_head ? vm_area_alloc() : NULL;
	struct vm_area_struct *b = split_tail ? vm_area_alloc() : NULL;
	if ((split_head && !a) || (split_tail && !b)) {
		vm_area_free(a);
		vm_area_free(b);
		return -ENOMEM;
	}
	if (split_head)
		split_vma_at(mm, vma, start, true, a);
	if (split_tail)
		split_vma_at(mm, find_vma(mm, end), end, true, b);

	/* Detach the VMAs first (as Linux), so that nothing finds them while
	 * their pages and tables go; their own vm_next links still chain them. */
	struct vm_area_struct *first = find_vma(mm, start), *prev = first->vm_prev, *next = first;
	while (next && next->vm_start < end) {
		struct vm_area_struct *n = next->vm_next;
		vm_stat_account(mm, -(long)((next->vm_end - next->vm_start) >> PAGE_SHIFT));
		vma_unlink(mm, next);
		next = n;
	}
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, mm);
	for (vma = first; vma != next; vma = vma->vm_next)
		unmap_page_range(&tlb, vma, vma->vm_start, vma->vm_end);
	free_pgtables(&tlb, first, next, prev ? prev->vm_end : 0, next ? next->vm_start : 0);
	tlb_finish_mmu(&tlb);
	for (vma = first; vma != next;) {
		struct vm_area_struct *n = vma->vm_next;
		vm_area_free(vma);
		vma = n;
	}
	return 0;
}

