/* NUMA policy of shmem mappings (mm/shmem.h): Linux's shmem_vm_ops
 * set_policy and get_policy (mm/shmem.c: shmem_set_policy,
 * shmem_get_policy) and the page allocation that follows the shared
 * policy (shmem_alloc_folio with its pseudo-VMA). mbind on one mapping of
 * a shmem object sets the policy of the object's offsets that mapping
 * covers (mm/mempolicy.c's mbind_range calls shmem_set_policy, as Linux's
 * vma_replace_policy calls vm_ops->set_policy); every mapping of the
 * object, in any process, now or later, reads it back with
 * get_mempolicy(MPOL_F_ADDR) and /proc/<pid>/numa_maps, and every new
 * page of those offsets comes from it, whoever faults or writes it. */
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/page_alloc.h"

struct shared_policy *vma_shared_policy(struct vm_area_struct *vma)
{
	/* Linux's hugetlb_vm_ops has no set_policy or get_policy: a hugetlb
	 * mapping (a SHM_HUGETLB attach has an object too) keeps its VMA's
	 * policy. */
	if (is_vm_hugetlb_page(vma))
		return NULL;
	struct shmem_object *obj = vma->vm_shm;
	if (obj)
		return &obj->mapping->host->i_policy;
	/* Linux gives a MAP_PRIVATE mapping of a tmpfs file shmem_vm_ops as
	 * well: mbind there sets the file's policy, and the mapping's
	 * copied-on-write pages follow it. */
	if (vma->vm_file && shmem_file(vma->vm_file))
		return &vma->vm_file->f_inode->i_policy;
	return NULL;
}

int shmem_set_policy(struct vm_area_struct *vma, struct mempolicy *mpol)
{
	unsigned long sz = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	return mpol_set_shared_policy(vma_shared_policy(vma), vma->vm_pgoff, vma->vm_pgoff + sz, mpol);
}

struct mempolicy *shmem_get_policy(struct vm_area_struct *vma, unsigned long addr)
{
	unsigned long index = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	return mpol_shared_policy_lookup(vma_shared_policy(vma), index);
}

struct page *shmem_alloc_policy_folio(struct shared_policy *sp, unsigned long index, unsigned long ilx, gfp_t gfp,
				      unsigned int order)
{
	/* Linux's shmem_pseudo_vma_init: a VMA holding only the shared
	 * policy, so get_vma_policy falls back to the task's without it. */
	struct mempolicy *pol = mpol_shared_policy_lookup(sp, index);
	struct page *page = alloc_pages_mpol(gfp, order, pol ? pol : current->mempolicy, ilx);
	mpol_put(pol);
	return page;
}

struct page *shmem_alloc_policy_page(struct shared_policy *sp, unsigned long index, unsigned long ilx)
{
	return shmem_alloc_policy_folio(sp, index, ilx, GFP_HIGHUSER_MOVABLE | __GFP_ZERO, 0);
}
