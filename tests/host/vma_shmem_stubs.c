/* mm/shmem.c's shared anonymous objects for the host's VMA tests
 * (tests/host/vma_random.c): apart from tests/host/vma_stubs.c because
 * fs/fs.h's types clash with the C library's there. */
#include "fs/fs.h"
#include "mm/shmem.h"
#include "mm/mmap.h"
#include "mm/slab.h"

/* mm/shmem.c: a shared anonymous mapping's object, counted as a live
 * object (the leak checks) and never faulted here; its unnamed file is
 * reduced to the address_space whose i_mmap the VMAs join (no struct
 * file: nothing here reads it). */
struct shmem_object *shmem_object_alloc(struct mm_struct *mm, const char *name, unsigned long len, bool noreserve,
					int *err)
{
	(void)mm, (void)name, (void)noreserve;
	struct shmem_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	struct address_space *mapping = obj ? kzalloc(sizeof(*mapping), GFP_KERNEL) : NULL;
	*err = mapping ? 0 : -ENOMEM;
	if (!mapping) {
		kfree(obj);
		return NULL;
	}
	obj->refcount = 1;
	obj->size = len >> PAGE_SHIFT;
	obj->mapping = mapping;
	mapping->i_mmap = RB_ROOT;
	init_rwsem(&mapping->i_mmap_rwsem);
	return obj;
}
void shmem_get(struct shmem_object *obj)
{
	if (obj)
		obj->refcount++;
}
void shmem_put(struct shmem_object *obj)
{
	if (obj && !--obj->refcount) {
		kfree(obj->mapping);
		kfree(obj);
	}
}
/* mm/shmem_huge.c: no tmpfs instance here, so none with huge pages (as
 * shmem_enabled "never"): Linux's shmem_get_unmapped_area then gives the
 * mm's own search's address. */
unsigned long shmem_get_unmapped_area(struct mm_struct *mm, struct file *file, unsigned long addr,
				      unsigned long len, unsigned long pgoff, unsigned long flags)
{
	(void)file, (void)pgoff;
	return arch_get_unmapped_area(mm, addr, len, flags);
}
