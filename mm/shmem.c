/* Shared anonymous memory (Linux's mm/shmem.c for shmem_zero_setup's
 * unnamed file, reduced to its page cache): mm/shmem.h has the rules. */
#include "mm/shmem.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/memory.h"
#include "mm/mempolicy.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/util.h"

static long shmem_pages;

unsigned long nr_shmem_pages(void)
{
	long n = __atomic_load_n(&shmem_pages, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

struct shmem_object *shmem_object_alloc(struct mm_struct *mm, unsigned long len, bool noreserve, int *err)
{
	unsigned long size = len >> PAGE_SHIFT;
	*err = -ENOMEM;
	struct shmem_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return NULL;
	obj->pages = kvmalloc(size * sizeof(*obj->pages), GFP_KERNEL | __GFP_ZERO);
	/* Linux's shmem_acct_size: the whole size, unless MAP_NORESERVE. */
	if (!obj->pages || (!noreserve && security_vm_enough_memory_mm(mm, (long)size))) {
		kvfree(obj->pages);
		kfree(obj);
		return NULL;
	}
	obj->refcount = 1;
	obj->size = size;
	obj->accounted = !noreserve;
	spin_lock_init(&obj->lock);
	*err = 0;
	return obj;
}

void shmem_get(struct shmem_object *obj)
{
	if (obj)
		__atomic_add_fetch(&obj->refcount, 1, __ATOMIC_RELAXED);
}

void shmem_put(struct shmem_object *obj)
{
	if (!obj || __atomic_sub_fetch(&obj->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	/* No VMA is left, so no mapping: each page has the object's
	 * reference, and maybe a get_user_pages one that outlives it. */
	for (unsigned long i = 0; i < obj->size; i++)
		if (obj->pages[i])
			put_page(obj->pages[i]);
	__atomic_sub_fetch(&shmem_pages, (long)obj->nrpages, __ATOMIC_RELAXED);
	if (obj->accounted)
		vm_unacct_memory((long)obj->size);
	kvfree(obj->pages);
	kfree(obj);
}

struct page *shmem_get_page(struct vm_area_struct *vma, unsigned long address, unsigned int *ret)
{
	struct shmem_object *obj = vma->vm_shm;
	unsigned long index = linear_page_index(vma, address);
	if (index >= obj->size) {
		*ret = VM_FAULT_SIGBUS; /* past the end of the object (Linux's shmem_fault) */
		return NULL;
	}
	struct page *page = __atomic_load_n(&obj->pages[index], __ATOMIC_ACQUIRE), *new = NULL;
	if (!page) {
		/* Linux's shmem_alloc_folio: from the VMA's policy, zeroed. */
		new = vma_alloc_page(GFP_USER | __GFP_ZERO, vma, address);
		if (!new) {
			*ret = VM_FAULT_OOM;
			return NULL;
		}
	}
	spin_lock(&obj->lock);
	page = obj->pages[index];
	if (!page && new) {
		page = obj->pages[index] = new; /* the object's reference */
		obj->nrpages++;
		__atomic_add_fetch(&shmem_pages, 1, __ATOMIC_RELAXED);
		new = NULL;
	}
	get_page(page); /* the caller's mapping's */
	spin_unlock(&obj->lock);
	if (new)
		__free_page(new); /* another fault made it first */
	return page;
}

void shmem_page_mapped(struct mm_struct *mm, struct page *page)
{
	__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED);
	add_mm_counter(mm, MM_SHMEMPAGES, 1);
}

void shmem_page_unmapped(struct mm_struct *mm, struct page *page)
{
	__atomic_sub_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED);
	add_mm_counter(mm, MM_SHMEMPAGES, -1);
}
