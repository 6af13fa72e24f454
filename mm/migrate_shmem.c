/* Moving a shmem page between nodes: a page of a MAP_SHARED anonymous
 * object, a System V segment or a tmpfs file (memfd), which the page
 * cache of the file (the object's unnamed one for the first two) holds
 * and any number of shared mappings map. Linux's
 * migrate_pages for such a folio (mm/migrate.c): migrate_folio_unmap turns
 * every mapping into a migration entry through the file rmap (the i_mmap
 * interval tree: try_to_migrate_one), migrate_folio puts the new folio in
 * the old one's place in the mapping's xarray once the reference count is
 * what the mappings left (folio_migrate_mapping) and copies the data, and
 * remove_migration_ptes maps the new folio wherever the old one was (or
 * the old one again when the move was given up).
 *
 * The mms of the other mappings are held with a trylock of their
 * mmap_lock (mm/migrate_internal.h), as for anonymous pages that fork
 * shared; one out of reach makes the page busy. Where Linux keeps a
 * truncate from freeing the folio with the folio lock, mmlab has none:
 * a truncate or hole punch may take the page (old or new) out of the file
 * meanwhile, and an entry is then mapped again only if its page is still
 * the file's at that offset (shmem_page_current, the check a
 * fault makes under the PTE lock); otherwise it goes, as that truncate's
 * zap would have taken it. */
#include "mm/migrate_internal.h"
#include "kernel/rwsem.h"
#include "mm/filemap.h"
#include "mm/interval_tree.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/swap.h"

static unsigned long vma_address(const struct vm_area_struct *vma, unsigned long index)
{
	return vma->vm_start + ((index - vma->vm_pgoff) << PAGE_SHIFT);
}

int migrate_shmem_page(struct vm_area_struct *vma, unsigned long addr, struct page *old, struct page *new)
{
	struct shmem_object *obj = vma->vm_shm;
	unsigned long index = linear_page_index(vma, addr);
	struct shared_migration sm = { .old = old, .new = new, .caller = vma->vm_mm, .shmem = true };
	struct rw_semaphore *rwsem;
	struct rb_root *root = vma_i_mmap(vma, &rwsem);
	struct vm_area_struct *v;
	/* Held to the end: no VMA leaves the tree meanwhile (unlink_file_vma
	 * takes it for writing), so the second pass finds every VMA the
	 * first one changed. */
	down_read(rwsem);
	/* Only the shared mappings are looked at. A private mapping of the
	 * file may map the page too (read, not yet written: mm/filemap_fault.c),
	 * and its entries are not turned into migration entries (mm/teardown.c
	 * takes a private file VMA's for a copy's): while one maps the page,
	 * filemap_migrate_folio finds it mapped and the page stays (-EBUSY),
	 * where Linux's rmap walk would move it. */
	vma_interval_tree_foreach(v, root, index, index)
		if (v->vm_shm && !try_to_migrate_one(old, v, vma_address(v, index), &sm))
			break;
	/* Nothing but the object (or page cache) and the mover may hold old
	 * now; the mover's reference is the extra one. */
	int err = -EAGAIN;
	if (!sm.busy)
		err = filemap_migrate_folio(obj->mapping, new, old, 1, 0);
	if (err)
		sm.new = old; /* the entries map old again */
	vma_interval_tree_foreach(v, root, index, index)
		if (v->vm_shm)
			remove_migration_pte(old, v, vma_address(v, index), &sm);
	up_read(rwsem);
	migration_done(&sm);
	put_page(old); /* the mover's */
	if (err) {
		__free_page(new);
		return -EBUSY;
	}
	int nid = page_to_nid(new);
	put_page(new); /* its allocation's: the object and the mappings hold theirs */
	return nid;
}

/* Compaction's page-cache page (Linux's migrate_pages, MR_COMPACTION, for
 * a shmem folio): found by its frame, not through a mapping, so its
 * mapping comes from the page (page_mapping_get keeps it alive: no folio
 * lock here), every mm is taken with a trylock (there is no caller's),
 * and so is the i_mmap lock: a direct compaction may run in an
 * allocation made under some i_mmap_rwsem held for writing, where Linux's
 * folio_trylock keeps it from waiting. */
int migrate_isolated_shmem_page(struct page *old, struct page *new)
{
	struct address_space *mapping = page_mapping_get(old);
	if (!mapping)
		return -EBUSY; /* truncated meanwhile: the putback frees it */
	int err = -EAGAIN;
	if (mapping->a_ops && mapping->a_ops->migrate_folio) {
		/* The file system decides (secretmem refuses), before any
		 * mapping is touched. */
		err = -EBUSY;
		goto out;
	}
	if (!down_read_trylock(&mapping->i_mmap_rwsem))
		goto out;
	unsigned long index = READ_ONCE(old->index);
	struct shared_migration sm = { .old = old, .new = new, .shmem = true };
	struct vm_area_struct *v;
	/* The shared mappings only, as migrate_shmem_page: a private
	 * mapping's entry keeps the page mapped, and it stays. */
	vma_interval_tree_foreach(v, &mapping->i_mmap, index, index)
		if (v->vm_shm && !try_to_migrate_one(old, v, vma_address(v, index), &sm))
			break;
	/* Nothing but the page cache and the isolation may hold it now. */
	if (!sm.busy)
		err = filemap_migrate_folio(mapping, new, old, 1, 0);
	if (err) {
		err = -EAGAIN;
		sm.new = old; /* the entries map old again */
	}
	vma_interval_tree_foreach(v, &mapping->i_mmap, index, index)
		if (v->vm_shm)
			remove_migration_pte(old, v, vma_address(v, index), &sm);
	up_read(&mapping->i_mmap_rwsem);
	migration_done(&sm);
out:
	page_mapping_put();
	if (err)
		return err;
	put_page(old); /* the isolation's, its last: old is free */
	put_page(new); /* its allocation's: the page cache and the mappings hold theirs */
	return 0;
}
