/* The reverse map of file pages (Linux's i_mmap): each address_space
 * (fs/fs.h), and each anonymous shmem object (mm/shmem.h), keeps the VMAs
 * that map it in an interval tree keyed by page offset (Linux's
 * vma_interval_tree, mm/interval_tree.c): a VMA covers the offsets
 * [vm_pgoff, vm_pgoff + its pages - 1], and "which VMAs map offsets
 * [first, last]" costs O(log n + the answers), not a visit of every VMA
 * of every process.
 *
 * Which tree a VMA is in (vma_i_mmap): its file's address_space when it
 * has a file (MAP_SHARED and MAP_PRIVATE alike, as Linux's), else that of
 * its shmem object's unnamed file (MAP_SHARED | MAP_ANONYMOUS, /dev/zero,
 * a System V segment: Linux's vm_file); no tree for anonymous private
 * memory.
 *
 * Invariants: a VMA with a tree is in it from the moment it is linked
 * into its mm (vma_link, a split's new piece before the old piece
 * shrinks, fork's copy after its parent in iteration order) until its
 * page tables are freed (free_pgtables, or vm_area_free for a VMA merged
 * away, whose tables stay with the VMA that grew over it); its offsets
 * and length change only while it is out of the tree, under the tree's
 * lock held for writing (vma_set_range).
 * Locking: i_mmap_rwsem, held for writing to insert or remove (under the
 * VMA's mm's mmap_lock held for writing: mmap_lock -> i_mmap_rwsem, as
 * Linux), for reading by walkers (unmap_mapping_range), which take no
 * mmap_lock: the tree keeps each VMA found, its mm and its upper page
 * tables alive while the read lock is held. */
#ifndef MM_INTERVAL_TREE_H
#define MM_INTERVAL_TREE_H

#include "kernel/rwsem.h"
#include "lib/rbtree.h"

struct vm_area_struct;

void vma_interval_tree_insert(struct vm_area_struct *node, struct rb_root *root);
void vma_interval_tree_remove(struct vm_area_struct *node, struct rb_root *root);
/* The VMAs whose offsets meet [start, last], in order of vm_pgoff (equal
 * ones in order of insertion). */
struct vm_area_struct *vma_interval_tree_iter_first(struct rb_root *root, unsigned long start,
						    unsigned long last);
struct vm_area_struct *vma_interval_tree_iter_next(struct vm_area_struct *node, unsigned long start,
						   unsigned long last);
#define vma_interval_tree_foreach(vma, root, start, last)                              \
	for (vma = vma_interval_tree_iter_first(root, start, last); vma;                \
	     vma = vma_interval_tree_iter_next(vma, start, last))

/* The tree vma belongs in and its lock, or NULL (anonymous private
 * memory). */
struct rb_root *vma_i_mmap(struct vm_area_struct *vma, struct rw_semaphore **rwsem);
/* Linux's vma_link_file: vma joins its tree (nothing if it has none or is
 * in it already). */
void vma_link_file(struct vm_area_struct *vma);
/* Linux's unlink_file_vma: vma leaves its tree (nothing if it is not in
 * one). */
void unlink_file_vma(struct vm_area_struct *vma);
/* Whether vma is in a tree. */
static inline bool vma_in_i_mmap(const struct vm_area_struct *vma);
/* vma's bounds and offset become start, end, pgoff, as one step for the
 * walkers of its tree (out of it, changed, back in, under its lock). */
void vma_i_mmap_set_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			  unsigned long pgoff);

#include "mm/mm_types.h"

static inline bool vma_in_i_mmap(const struct vm_area_struct *vma) { return vma->shared.linked; }

#endif
