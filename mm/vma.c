/* The VMA tree of an address space (Linux's mm/vma.c, in its shape from
 * before the maple tree): linking and unlinking VMAs, the augmented gaps,
 * splitting, merging and unmapping ranges. mm/mmap.c, mm/mprotect.c and
 * mm/madvise.c build the system calls on it (mm/vma.h).
 *
 * Invariants, true whenever nobody holds the mm's mmap_lock for writing
 * (every function here that changes the tree runs under it):
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
 *     different flags or anon_vmas Linux 6.12 will not merge (they are
 *     merged otherwise), so touching mmaps do not pile up VMAs;
 *   - a VMA is on the chain list of every anon_vma whose pages it may map
 *     (mm/rmap.h): a split piece is cloned onto the same ones
 *     (vm_area_dup), a VMA freed leaves them, a merge keeps the chains of
 *     the VMA that had an anon_vma (Linux's dup_anon_vma).
 * Locking (mm/mm_types.h): the tree, the list and every VMA field change
 * only under the mmap_lock held for writing (munmap_range and
 * vma_modify_flags assert it); anon_vma_prepare (mm/rmap.c) runs under
 * the read lock beside other faults and so sets vma->anon_vma under
 * page_table_lock.
 * Portable C: the host tests build it with stubs of mm/memory.c and of
 * the rwsem. */
#include "mm/vma.h"
#include "fs/fs.h"
#include "mm/memory.h"
#include "mm/mmap_lock.h"
#include "mm/hugetlb_vma.h"
#include "mm/huge_memory.h"
#include "mm/interval_tree.h"
#include "mm/mempolicy.h"
#include "mm/mmu_gather.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/slab.h"
#include "mm/util.h"

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
	vma_adjust_trans_huge(vma, start, end);
	/* vm_pgoff names the page at vm_start: it moves with the start, so
	 * every address keeps its offset (Linux's callers pass the pgoff). */
	unsigned long pgoff = start >= vma->vm_start ? vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT)
						     : vma->vm_pgoff - ((vma->vm_start - start) >> PAGE_SHIFT);
	/* A VMA in its file's i_mmap leaves it, changes and comes back under
	 * the tree's lock (mm/interval_tree.h). */
	vma_i_mmap_set_range(vma, start, end, pgoff);
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
	/* A VMA fresh from mmap or brk (vm_pgoff still 0) gets Linux's anonymous
	 * pgoff, addr >> PAGE_SHIFT (do_mmap, do_brk_flags). No anonymous VMA
	 * has pgoff 0 otherwise: mappings start at mmap_min_addr or above, and
	 * split or moved pieces keep offsets from such a start. A shared
	 * anonymous VMA's is an offset in its object (mm/shmem.h): 0 is
	 * its first page's. */
	if (!vma->vm_pgoff && !vma->vm_shm && !vma->vm_file)
		vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
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
	vma_link_file(vma);
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
	struct vm_area_struct *vma = kzalloc(sizeof(struct vm_area_struct), GFP_KERNEL);
	if (vma)
		INIT_LIST_HEAD(&vma->anon_vma_chain);
	return vma;
}

/* The VMA's file goes, and with it the VMA's count in the file's
 * i_mmap_writable if it maps it shared and may write (Linux's
 * __remove_shared_vm_struct). */
static void vma_put_file(struct vm_area_struct *vma)
{
	if (!vma->vm_file)
		return;
	if (vma_is_shared_maywrite(vma))
		mapping_unmap_writable(vma->vm_file->f_mapping);
	fput(vma->vm_file);
}

struct vm_area_struct *vm_area_copy(struct vm_area_struct *orig)
{
	struct vm_area_struct *new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	*new = *orig;
	INIT_LIST_HEAD(&new->anon_vma_chain);
	new->anon_vma = NULL;
	new->vm_rb = (struct rb_node){ 0 };
	new->vm_next = new->vm_prev = NULL;
	new->shared.linked = false; /* joins orig's i_mmap when linked */
	mpol_get(new->vm_policy);       /* vma_dup_policy */
	resv_map_get(new->vm_resv_map); /* hugetlb_vm_op_open */
	shmem_get(new->vm_shm);
	if (new->vm_file) {
		get_file(new->vm_file);
		if (vma_is_shared_maywrite(new)) /* Linux's __vma_link_file */
			mapping_allow_writable(new->vm_file->f_mapping);
	}
	return new;
}

struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *new = vm_area_copy(orig);
	if (new && anon_vma_clone(new, orig)) {
		vm_area_dup_abort(new);
		return NULL;
	}
	return new;
}

void vm_area_dup_abort(struct vm_area_struct *new)
{
	if (!new)
		return;
	unlink_anon_vmas(new);
	mpol_put(new->vm_policy);
	/* Its range is still orig's: the reservations are orig's to give
	 * back, only the map's reference is this copy's. */
	resv_map_put(new->vm_resv_map);
	shmem_put(new->vm_shm);
	vma_put_file(new);
	kfree(new);
}

/* ---- anon_vma -------------------------------------------------------------- */

/* Linux's dup_anon_vma, for the one case the merge rules leave: dst,
 * without an anon_vma, grows over all of src, which goes (a VMA with an
 * anon_vma merges into one without only then), so src's chains become
 * dst's with no allocation to fail. */
static void dup_anon_vma(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	if (src->anon_vma && !dst->anon_vma)
		anon_vma_move(dst, src);
}

/* Linux 6.12's is_mergeable_anon_vma: anon_vma1 is that of the range
 * being mapped or changed, anon_vma2 that of vma, the VMA it would merge
 * with (NULL when prev and next are held against each other). Linux
 * accepts a NULL on either side only when vma is NULL or its
 * anon_vma_chain has a single entry (it has an anon_vma and no ancestors
 * from a fork): so a range with an anon_vma does not merge into a
 * neighbour without one (what list_is_singular() says of an empty
 * chain), while a range without one merges into a neighbour with one
 * that was never forked. */
static bool is_mergeable_anon_vma(struct anon_vma *anon_vma1, struct anon_vma *anon_vma2,
				  struct vm_area_struct *vma)
{
	if ((!anon_vma1 || !anon_vma2) && (!vma || list_is_singular(&vma->anon_vma_chain)))
		return true;
	return anon_vma1 == anon_vma2;
}

/* Linux's anon_vma_compatible (no policies, vm_pgoff follows the
 * address): a and b touch, map the same file or none, and differ at most
 * in access rights. */
static bool anon_vma_compatible(const struct vm_area_struct *a, const struct vm_area_struct *b)
{
	return a->vm_end == b->vm_start && a->vm_file == b->vm_file &&
	       !((a->vm_flags ^ b->vm_flags) & ~VM_ACCESS_FLAGS);
}

/* Linux's reusable_anon_vma: only an anon_vma with no ancestors (a
 * chain of one) is lent; a forked one stays its VMA's. */
static bool reusable_anon_vma(const struct vm_area_struct *b)
{
	return b->anon_vma && list_is_singular(&b->anon_vma_chain);
}

/* Linux's find_mergeable_anon_vma: a touching neighbour that could merge
 * with vma after an mprotect lends its anon_vma (next first), so that
 * mprotect-then-fault sequences do not split memory into anon_vmas that
 * can never merge again. */
struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma)
{
	struct vm_area_struct *next = vma->vm_next, *prev = vma->vm_prev;
	if (next && reusable_anon_vma(next) && anon_vma_compatible(vma, next))
		return next->anon_vma;
	if (prev && reusable_anon_vma(prev) && anon_vma_compatible(prev, vma))
		return prev->anon_vma;
	return NULL;
}

void vm_area_free(struct vm_area_struct *vma)
{
	if (vma) {
		/* Linux's remove_vma -> vma_close: a hugetlb VMA's unused
		 * reservations go back to the pool. */
		hugetlb_vm_op_close(vma);
		unlink_anon_vmas(vma);
		/* A VMA merged away leaves its i_mmap here; one unmapped
		 * left it in free_pgtables already. */
		unlink_file_vma(vma);
		shmem_put(vma->vm_shm);
		vma_put_file(vma); /* Linux's remove_vma */
		mpol_put(vma->vm_policy);
	}
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

/* Cuts vma at addr into two VMAs; new (vm_area_dup(vma), made
 * beforehand) becomes the lower part if new_below, else the upper (Linux's
 * __split_vma, with the allocation left to the caller so that it can fail
 * before any change). The halves share the anon_vmas, the policy and a
 * hugetlb reservation map. */
static void split_vma_at(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			 bool new_below, struct vm_area_struct *new)
{
	/* new was copied from vma before an earlier split may have moved
	 * vma's bounds: it starts as vma is now. */
	new->vm_start = vma->vm_start;
	new->vm_end = vma->vm_end;
	new->vm_pgoff = vma->vm_pgoff;
	/* new joins the i_mmap before vma shrinks, so that a walker of the
	 * tree finds every offset at every moment (once twice, harmlessly). */
	if (new_below) {
		new->vm_end = addr;
		vma_link_file(new);
		vma_set_range(vma, addr, vma->vm_end);
	} else {
		new->vm_pgoff += (addr - new->vm_start) >> PAGE_SHIFT;
		new->vm_start = addr;
		vma_link_file(new);
		vma_set_range(vma, vma->vm_start, addr);
	}
	insert_vma(mm, new);
}

/* Linux 6.12's struct vma_merge_struct: a range [start, end) between prev
 * and next (either may be NULL) that is to have the attributes below: a new
 * range (vma NULL, no anon_vma), or a part of vma that keeps vma's
 * anon_vma. The attributes are what merging compares: the flags and the
 * NUMA policy (vma_modify_flags, vma_modify_policy). */
struct vma_merge_struct {
	struct mm_struct *mm;
	struct vm_area_struct *prev, *next, *vma;
	unsigned long start, end;
	unsigned long pgoff; /* of start: vm_pgoff the range would have */
	unsigned long flags;
	struct file *file;   /* what it maps (NULL: anonymous memory) */
	struct mempolicy *policy;
	struct anon_vma *anon_vma;
};

/* Linux 6.12's is_mergeable_vma: may the range and the neighbour (next if
 * merge_next, else prev) be one VMA, as far as their attributes go? No
 * userfaultfd here; VM_SOFTDIRTY does not exist. Two pieces of one
 * private file mapping merge when their offsets follow on, as Linux's. */
static bool is_mergeable_vma(const struct vma_merge_struct *vmg, bool merge_next)
{
	const struct vm_area_struct *vma = merge_next ? vmg->next : vmg->prev;
	/* A hugetlb VMA has its own reservation map and a close that
	 * returns its reservations: never merged (Linux refuses a merge with
	 * a VMA whose vm_ops has close). Nor is a shared anonymous one here
	 * (each has its shmem object, which the merge rules do not compare,
	 * and a System V attach counts its VMAs: Linux's shm_vm_ops has a
	 * close). A shared mapping of a file merges as a private one does:
	 * the same file at offsets that follow on (the callers check those),
	 * so mremap grows it in place as Linux's. */
	bool shared_ok = !(vmg->flags & VM_SHARED) || vmg->file;
	return vma->vm_flags == vmg->flags && !(vmg->flags & VM_HUGETLB) && shared_ok &&
	       vma->vm_file == vmg->file && mpol_equal(vma->vm_policy, vmg->policy);
}

static unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

/* Linux's can_vma_merge_left: prev ends where the range starts and may
 * take it over (can_vma_merge_after: the offsets must follow on too, which
 * they do unless mremap moved one of the two). */
static bool can_vma_merge_left(const struct vma_merge_struct *vmg)
{
	return vmg->prev && vmg->prev->vm_end == vmg->start && is_mergeable_vma(vmg, false) &&
	       is_mergeable_anon_vma(vmg->anon_vma, vmg->prev->anon_vma, vmg->prev) &&
	       vmg->prev->vm_pgoff + vma_pages(vmg->prev) == vmg->pgoff;
}

/* Linux's can_vma_merge_right: next starts where the range ends and may
 * take it over (can_vma_merge_before); when prev merges too, prev's and
 * next's anon_vmas must also go together. */
static bool can_vma_merge_right(const struct vma_merge_struct *vmg, bool can_merge_left)
{
	struct vm_area_struct *prev = vmg->prev, *next = vmg->next;
	if (!next || next->vm_start != vmg->end || !is_mergeable_vma(vmg, true) ||
	    !is_mergeable_anon_vma(vmg->anon_vma, next->anon_vma, next) ||
	    next->vm_pgoff != vmg->pgoff + ((vmg->end - vmg->start) >> PAGE_SHIFT))
		return false;
	return !can_merge_left || is_mergeable_anon_vma(prev->anon_vma, next->anon_vma, NULL);
}

/* The VMA that grew over a range with anon_vma must be on it already: a
 * range with an anon_vma merges only into a VMA with the same one (the
 * merge rules: an empty chain is not singular). */
static void take_anon_vma(struct vm_area_struct *dst, struct anon_vma *anon_vma)
{
	if (anon_vma && dst->anon_vma != anon_vma)
		pr_err("BUG: a range with an anon_vma merged into a VMA with another\n");
}

/* Linux 6.12's vma_merge_new_range: a free range joins prev, next or both. */
static struct vm_area_struct *vma_merge_new_range(struct vma_merge_struct *vmg)
{
	struct vm_area_struct *prev = vmg->prev, *next = vmg->next;
	bool merge_prev = can_vma_merge_left(vmg);
	bool merge_next = can_vma_merge_right(vmg, merge_prev);
	if (merge_prev && merge_next) {
		unsigned long next_end = next->vm_end;
		dup_anon_vma(prev, next);
		take_anon_vma(prev, vmg->anon_vma);
		vma_unlink(vmg->mm, next);
		/* prev grows before next goes, so that the range stays in
		 * the i_mmap (mm/interval_tree.h). */
		vma_set_range(prev, prev->vm_start, next_end);
		vm_area_free(next);
		return prev;
	}
	if (merge_prev) {
		take_anon_vma(prev, vmg->anon_vma);
		vma_set_range(prev, prev->vm_start, vmg->end);
		return prev;
	}
	if (merge_next) {
		take_anon_vma(next, vmg->anon_vma);
		vma_set_range(next, vmg->start, next->vm_end);
		return next;
	}
	return NULL;
}

struct vm_area_struct *vma_merge_new(struct mm_struct *mm, struct vm_area_struct *prev,
				     struct vm_area_struct *next, unsigned long start,
				     unsigned long end, unsigned long flags)
{
	/* A new anonymous range: pgoff start >> PAGE_SHIFT (do_mmap). */
	struct vma_merge_struct vmg = { .mm = mm, .prev = prev, .next = next,
					.start = start, .end = end,
					.pgoff = start >> PAGE_SHIFT, .flags = flags };
	return vma_merge_new_range(&vmg);
}

struct vm_area_struct *vma_merge_extend(struct mm_struct *mm, struct vm_area_struct *vma,
					unsigned long delta)
{
	mmap_assert_write_locked(mm);
	struct vma_merge_struct vmg = { .mm = mm, .prev = vma, .next = vma->vm_next,
					.start = vma->vm_end, .end = vma->vm_end + delta,
					.pgoff = vma->vm_pgoff + vma_pages(vma),
					.flags = vma->vm_flags, .file = vma->vm_file, .policy = vma->vm_policy,
					.anon_vma = vma->anon_vma };
	return vma_merge_new_range(&vmg);
}

struct vm_area_struct *copy_vma(struct vm_area_struct **vmap, unsigned long addr,
				unsigned long len, unsigned long pgoff)
{
	struct vm_area_struct *vma = *vmap;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long vma_start = vma->vm_start;
	mmap_assert_write_locked(mm);
	/* Never faulted: nothing ties it to its old offsets, so it takes the
	 * new address's and may merge there like a fresh mapping. */
	if (!vma->anon_vma && !vma->vm_file && !vma->vm_shm)
		pgoff = addr >> PAGE_SHIFT; /* (a file's or object's offset stays) */
	struct vm_area_struct *prev;
	struct rb_node **link, *parent;
	if (find_vma_links(mm, addr, addr + len, &prev, &link, &parent))
		return NULL; /* the caller made room: should never happen */
	struct vma_merge_struct vmg = { .mm = mm, .prev = prev,
					.next = prev ? prev->vm_next : vma_first(mm),
					.start = addr, .end = addr + len, .pgoff = pgoff,
					.flags = vma->vm_flags, .file = vma->vm_file, .policy = vma->vm_policy,
					.anon_vma = vma->anon_vma };
	struct vm_area_struct *new_vma = vma_merge_new_range(&vmg);
	if (new_vma) {
		/* The source, never faulted (its pgoff was reset above to
		 * allow this), was merged into the new range's VMA. */
		if (vma_start >= new_vma->vm_start && vma_start < new_vma->vm_end)
			*vmap = new_vma;
		return new_vma;
	}
	new_vma = vm_area_dup(vma);
	if (!new_vma)
		return NULL;
	new_vma->vm_start = addr;
	new_vma->vm_end = addr + len;
	new_vma->vm_pgoff = pgoff;
	vma_link(mm, new_vma, prev, link, parent);
	return new_vma;
}

/* Linux 6.12's vma_merge_existing_range: [start, end) of vma, with its
 * anon_vma, joins a neighbour it touches (only a piece at vma's start can
 * join prev, only one at its end next). Returns the VMA that holds the
 * range, or NULL when no neighbour takes it (nothing changed). */
static struct vm_area_struct *vma_merge_existing_range(struct vma_merge_struct *vmg)
{
	struct mm_struct *mm = vmg->mm;
	struct vm_area_struct *vma = vmg->vma, *prev = vmg->prev, *next = vmg->next;
	unsigned long start = vmg->start, end = vmg->end;
	bool at_start = start == vma->vm_start, at_end = end == vma->vm_end;
	bool merge_prev = at_start && can_vma_merge_left(vmg);
	bool merge_next = at_end && can_vma_merge_right(vmg, merge_prev);

	if (!merge_prev && !merge_next)
		return NULL;
	if (at_start && at_end) {
		/* The whole VMA joins a neighbour (or both) and goes; the one
		 * that grows takes an anon_vma if it has none. */
		vma_unlink(mm, vma);
		if (merge_prev && merge_next) {
			unsigned long next_end = next->vm_end;
			dup_anon_vma(prev, next->anon_vma ? next : vma);
			vma_unlink(mm, next);
			vma_set_range(prev, prev->vm_start, next_end);
			vm_area_free(next);
			vm_area_free(vma);
			return prev;
		}
		/* The neighbour grows before vma goes, so that the range
		 * stays in the i_mmap (mm/interval_tree.h). */
		if (merge_prev) {
			dup_anon_vma(prev, vma);
			vma_set_range(prev, prev->vm_start, end);
			vm_area_free(vma);
			return prev;
		}
		dup_anon_vma(next, vma);
		vma_set_range(next, start, next->vm_end);
		vm_area_free(vma);
		return next;
	}
	/* A head or tail piece moves into the neighbour: the neighbour grows
	 * first, so that the piece stays in the i_mmap throughout
	 * (mm/interval_tree.h); the gaps the brief overlap miscomputes are
	 * recomputed when vma shrinks (vma_set_range updates vma's and its
	 * successor's). */
	if (merge_prev) {
		dup_anon_vma(prev, vma);
		vma_set_range(prev, prev->vm_start, end);
		vma_set_range(vma, end, vma->vm_end);
		return prev;
	}
	dup_anon_vma(next, vma);
	vma_set_range(next, start, next->vm_end);
	vma_set_range(vma, vma->vm_start, start);
	return next;
}

/* Linux 6.12's vma_modify: merge the range into a neighbour if the new
 * attributes allow it, else split off the parts of vma outside it. Returns
 * the VMA that holds exactly the range (after a merge it may hold more);
 * the caller gives it the new attributes. NULL (-ENOMEM) when a split
 * cannot get memory or would pass sysctl_max_map_count; then nothing
 * changed (both VMAs are allocated before the first split, where Linux
 * may leave the first split done). */
static struct vm_area_struct *vma_modify(struct vma_merge_struct *vmg)
{
	struct mm_struct *mm = vmg->mm;
	struct vm_area_struct *vma = vmg->vma;
	struct vm_area_struct *merged = vma_merge_existing_range(vmg);
	if (merged)
		return merged;

	bool at_start = vmg->start == vma->vm_start, at_end = vmg->end == vma->vm_end;
	int splits = !at_start + !at_end;
	if (!splits)
		return vma;
	/* Each split needs map_count below the limit. */
	if (mm->map_count + splits - 1 >= sysctl_max_map_count)
		return NULL;
	struct vm_area_struct *a = vm_area_dup(vma), *b = splits == 2 ? vm_area_dup(vma) : NULL;
	if (!a || (splits == 2 && !b)) {
		vm_area_dup_abort(a);
		vm_area_dup_abort(b);
		return NULL;
	}
	if (!at_start) {
		split_vma_at(mm, vma, vmg->start, false, a);
		vma = a;
		a = b;
	}
	if (!at_end) {
		split_vma_at(mm, vma, vmg->end, true, a);
		vma = a;
	}
	return vma;
}

struct vm_area_struct *vma_modify_flags(struct mm_struct *mm, struct vm_area_struct *vma,
					unsigned long start, unsigned long end,
					unsigned long newflags)
{
	mmap_assert_write_locked(mm);
	if (vma->vm_flags == newflags)
		return vma;
	struct vma_merge_struct vmg = { .mm = mm, .prev = vma->vm_prev, .next = vma->vm_next,
					.vma = vma, .start = start, .end = end,
					.pgoff = vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT),
					.flags = newflags, .file = vma->vm_file, .policy = vma->vm_policy,
					.anon_vma = vma->anon_vma };
	vma = vma_modify(&vmg);
	if (vma)
		vma_set_flags(vma, newflags); /* a merged neighbour has them already */
	return vma;
}

struct vm_area_struct *vma_modify_policy(struct mm_struct *mm, struct vm_area_struct *vma,
					 unsigned long start, unsigned long end,
					 struct mempolicy *new_pol)
{
	mmap_assert_write_locked(mm);
	if (mpol_equal(vma->vm_policy, new_pol))
		return vma;
	struct vma_merge_struct vmg = { .mm = mm, .prev = vma->vm_prev, .next = vma->vm_next,
					.vma = vma, .start = start, .end = end,
					.pgoff = vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT),
					.flags = vma->vm_flags, .file = vma->vm_file, .policy = new_pol,
					.anon_vma = vma->anon_vma };
	vma = vma_modify(&vmg);
	if (vma && !mpol_equal(vma->vm_policy, new_pol)) {
		/* vma_replace_policy; a merged neighbour has an equal one. */
		struct mempolicy *old = vma->vm_policy;
		vma->vm_policy = mpol_get(new_pol);
		mpol_put(old);
	}
	return vma;
}

/* ---- munmap ---------------------------------------------------------------- */

int munmap_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	mmap_assert_write_locked(mm);
	struct vm_area_struct *vma = find_vma(mm, start);
	if (!vma || vma->vm_start >= end)
		return 0;
	struct vm_area_struct *tail = find_vma(mm, end);
	bool split_head = vma->vm_start < start, split_tail = tail && tail->vm_start < end;
	/* A hugetlb VMA is cut only at a multiple of its page size
	 * (hugetlb_vm_op_split), before anything changes. */
	if ((split_head && hugetlb_vm_op_split(vma, start)) || (split_tail && hugetlb_vm_op_split(tail, end)))
		return -EINVAL;
	/* One VMA cut in three: Linux lets map_count pass the limit only
	 * while it frees. */
	if (split_head && split_tail && tail == vma && mm->map_count >= sysctl_max_map_count)
		return -ENOMEM;
	struct vm_area_struct *a = split_head ? vm_area_dup(vma) : NULL;
	struct vm_area_struct *b = split_tail ? vm_area_dup(tail) : NULL;
	if ((split_head && !a) || (split_tail && !b)) {
		vm_area_dup_abort(a);
		vm_area_dup_abort(b);
		return -ENOMEM;
	}
	if (split_head)
		split_vma_at(mm, vma, start, true, a);
	if (split_tail)
		split_vma_at(mm, find_vma(mm, end), end, true, b);

	/* Detach the VMAs first (as Linux), so that nothing finds them while
	 * their pages and tables go; their own vm_next links still chain them. */
	struct vm_area_struct *first = find_vma(mm, start), *prev = first->vm_prev, *next = first;
	unsigned long nr_accounted = 0;
	while (next && next->vm_start < end) {
		struct vm_area_struct *n = next->vm_next;
		vm_stat_account(mm, -(long)((next->vm_end - next->vm_start) >> PAGE_SHIFT));
		if (next->vm_flags & VM_ACCOUNT)
			nr_accounted += (next->vm_end - next->vm_start) >> PAGE_SHIFT;
		vma_unlink(mm, next);
		next = n;
	}
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, mm);
	for (vma = first; vma != next; vma = vma->vm_next)
		unmap_page_range(&tlb, vma, vma->vm_start, vma->vm_end);
	free_pgtables(&tlb, first, next, prev ? prev->vm_end : 0, next ? next->vm_start : 0);
	tlb_finish_mmu(&tlb);
	/* Linux's vms_complete_munmap_vmas: the commit charge goes with them
	 * (mm/util.h; exhaust, the hostile user-space tests). */
	vm_unacct_memory((long)nr_accounted);
	for (vma = first; vma != next;) {
		struct vm_area_struct *n = vma->vm_next;
		vm_area_free(vma);
		vma = n;
	}
	return 0;
}

