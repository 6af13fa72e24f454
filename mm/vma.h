/* The VMA tree's internals (mm/vma.c), for mm/mmap.c, mm/mprotect.c,
 * mm/madvise.c and mm/mremap.c, and mm/mmap.c's gap search and mapping for
 * mm/hugetlb_vma.c; everyone else uses mm/mmap.h. */
#ifndef MM_VMA_H
#define MM_VMA_H

#include "mm/mmap.h"


static inline struct vm_area_struct *rb_vma(struct rb_node *rb)
{
	return rb_entry_safe(rb, struct vm_area_struct, vm_rb);
}

/* The lowest VMA, or NULL. */
static inline struct vm_area_struct *vma_first(struct mm_struct *mm)
{
	return rb_vma(rb_first(&mm->mm_rb));
}

struct vm_area_struct *vm_area_alloc(void); /* zeroed; NULL when memory is short */
/* A copy of orig (Linux's vm_area_dup) on the same anon_vmas, with
 * references on its policy and hugetlb reservation map, not linked into
 * any mm; NULL when memory is short. vm_area_dup_abort frees one that was
 * never used (orig keeps its reservations). */
struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig);
/* The same on no anon_vma (for fork, whose anon_vma_fork links it). */
struct vm_area_struct *vm_area_copy(struct vm_area_struct *orig);
void vm_area_dup_abort(struct vm_area_struct *new);
/* A neighbour's anon_vma vma may share (Linux's find_mergeable_anon_vma),
 * for anon_vma_prepare (mm/rmap.c); NULL if none. */
struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma);
/* Frees vma (NULL: nothing): it leaves its anon_vmas (unlink_anon_vmas),
 * gives back its hugetlb reservations and drops its policy. */
void vm_area_free(struct vm_area_struct *vma);

/* Where [start, end) goes in the tree: the link to fill, its parent and the
 * VMA before the range. -ENOMEM if a VMA overlaps the range. */
int find_vma_links(struct mm_struct *mm, unsigned long start, unsigned long end,
		   struct vm_area_struct **pprev, struct rb_node ***plink, struct rb_node **pparent);
/* Links vma (bounds set) at the place find_vma_links found; map_count++. */
void vma_link(struct mm_struct *mm, struct vm_area_struct *vma, struct vm_area_struct *prev,
	      struct rb_node **link, struct rb_node *parent);
/* Takes vma out of the tree and the list; map_count--. Pages, page tables
 * and total_vm are the caller's business. */
void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma);
/* Moves vma's bounds (its order among the VMAs must not change). */
void vma_set_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);
/* vm_flags and the vm_page_prot that goes with them. */
void vma_set_flags(struct vm_area_struct *vma, unsigned long flags);
/* total_vm += npages, and hiwater_vm follows. */
void vm_stat_account(struct mm_struct *mm, long npages);

/* A new range [start, end) with flags, free, between prev and next (either
 * may be NULL): grows a neighbour over it if one touches it with the same
 * flags (both, if both do and their anon_vmas may merge). Returns the VMA
 * that covers it, or NULL when no neighbour fits. total_vm is the caller's. */
struct vm_area_struct *vma_merge_new(struct mm_struct *mm, struct vm_area_struct *prev,
				     struct vm_area_struct *next, unsigned long start,
				     unsigned long end, unsigned long flags);

/* mremap's in-place growth (Linux 6.12's vma_merge_extend): vma grows by
 * delta bytes over the free range after it, and takes in the next VMA too
 * if it then touches one it may merge with. Returns the VMA that covers
 * the range (vma itself, grown). total_vm is the caller's. */
struct vm_area_struct *vma_merge_extend(struct mm_struct *mm, struct vm_area_struct *vma,
					unsigned long delta);
/* mremap's new VMA (Linux's copy_vma): [addr, addr + len), free, with
 * *vmap's flags, anon_vma and page offset pgoff (the old address's, or
 * addr's if the VMA was never faulted), merged into a neighbour where the
 * merge rules allow, else a VMA of its own. If the source itself was
 * merged into the result, *vmap is updated to it. NULL when memory is
 * short (nothing changed). total_vm is the caller's. */
struct vm_area_struct *copy_vma(struct vm_area_struct **vmap, unsigned long addr,
				unsigned long len, unsigned long pgoff);

/* Gives [start, end) (inside vma) the flags newflags (Linux 6.12's
 * vma_modify_flags, for mprotect and madvise; mbind's vma_modify_policy
 * will share the same vma_modify): merges the range into a neighbour that
 * touches it with those flags and an anon_vma it may merge with
 * (is_mergeable_vma, vma_merge_existing_range), or else splits vma where
 * the range ends inside it. Returns the VMA that now holds the range (it
 * may be larger than the range), or NULL when a split could not get
 * memory or would pass sysctl_max_map_count (-ENOMEM); on failure nothing
 * changed. */
struct vm_area_struct *vma_modify_flags(struct mm_struct *mm, struct vm_area_struct *vma,
					unsigned long start, unsigned long end,
					unsigned long newflags);
struct mempolicy;
/* The same for mbind (Linux 6.12's vma_modify_policy): [start, end) gets
 * new_pol (a reference of its own; NULL is the default policy). */
struct vm_area_struct *vma_modify_policy(struct mm_struct *mm, struct vm_area_struct *vma,
					 unsigned long start, unsigned long end,
					 struct mempolicy *new_pol);

/* Unmaps [start, end) (page aligned, below TASK_SIZE): splits the VMAs its
 * ends cut, unmaps their pages and frees the page tables only they used
 * (one mmu_gather: unmap_page_range per VMA, then free_pgd_range between
 * the surviving neighbours), then frees the VMAs. 0 when nothing was
 * mapped; -ENOMEM (nothing changed) when a split cannot be made. */
int munmap_range(struct mm_struct *mm, unsigned long start, unsigned long end);

/* For hugetlb_vma.c's hugetlb_get_unmapped_area (mm/mmap.c's own gap
 * search):
 * the lowest (unmapped_area) or highest (unmapped_area_topdown) a where
 * [a, a + length) is free and inside [low_limit, high_limit), or -ENOMEM; */
unsigned long unmapped_area(struct mm_struct *mm, unsigned long length, unsigned long low_limit,
			    unsigned long high_limit);
unsigned long unmapped_area_topdown(struct mm_struct *mm, unsigned long length, unsigned long low_limit,
				    unsigned long high_limit);
/* whether the hint [addr, addr + len) is free and below limit; */
bool hint_fits(struct mm_struct *mm, unsigned long addr, unsigned long len, unsigned long limit);
/* and a new VMA [addr, addr + len) with vm_flags, replacing what is there,
 * charged to the commit count if VM_ACCOUNT: addr or a negative errno. A
 * file mapping's VMA holds a reference to file and starts at page pgoff
 * of it (file NULL: anonymous memory). */
struct file;
unsigned long mmap_region(struct mm_struct *mm, unsigned long addr, unsigned long len,
			  unsigned long vm_flags, bool brk, struct file *file, unsigned long pgoff);

#endif
