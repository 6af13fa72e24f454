/* Faults of a MAP_PRIVATE mapping of a tmpfs file, as Linux 6.1's
 * do_fault: a read maps the file's page-cache page itself, read-only
 * (do_read_fault), with the present cache pages around it (fault-around:
 * do_fault_around, filemap_map_pages); a write to a none PTE maps an
 * anonymous copy of the cache page (do_cow_fault); a write to a present
 * cache page copies it then (do_wp_page -> wp_page_copy, mm/memory.c).
 * So the process sees the file's later changes (write(2), a MAP_SHARED
 * mapper, a hole punched) at each page until its first write there.
 *
 * Invariants: a present PTE of a private file VMA maps either a page of
 * the file's cache (never writable; counted as a file page: _mapcount,
 * Mapped, MM_SHMEMPAGES, as Linux counts a tmpfs page, mm_counter_file)
 * or an anonymous page of the VMA's anon_vma (counted as anonymous);
 * PageAnon (mm/rmap.h) tells which. A truncate unmaps both past the new
 * end (even_cows), a hole punch the cache pages only (mm/truncate.h).
 * Locking: the fault's (mm/memory.c); a cache page found is installed only
 * if it is still the file's under the PTE lock (shmem_page_current). */
#include "mm/memory_internal.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/mempolicy.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/shmem.h"

/* Linux's fault_around_bytes (debugfs; 64 KiB by default): the window of
 * the page cache a read fault maps at once, a power of two in bytes; a
 * page's worth turns fault-around off. */
unsigned long fault_around_bytes = 65536;

/* The entry of a private mapping's cache page: read-only, so that a write
 * faults and copies (Linux's private vm_page_prot is PAGE_COPY). */
static pte_t private_file_pte(struct vm_area_struct *vma, struct page *page)
{
	return pte_wrprotect(pfn_pte(page_to_pfn(page), vma->vm_page_prot));
}

/* Linux's filemap_map_pages: the cache pages present at offsets
 * [start_pgoff, end_pgoff] (one PTE table's worth at most), below i_size,
 * are mapped where their PTE is none, without allocating anything.
 * VM_FAULT_NOPAGE when the faulting address's page was among them. */
static vm_fault_t filemap_map_pages(struct vm_fault *vmf, unsigned long start_pgoff, unsigned long end_pgoff)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	struct address_space *mapping = vma->vm_file->f_mapping;
	unsigned long index = start_pgoff;
	struct page *page = filemap_get_next_folio(mapping, &index, end_pgoff);
	if (!page)
		return 0;
	unsigned long addr0 = vma->vm_start + ((start_pgoff - vma->vm_pgoff) << PAGE_SHIFT);
	spinlock_t *ptl;
	pte_t *pte0 = pte_offset_map_lock(mm, vmf->pmd, addr0, &ptl);
	if (!pte0) { /* the table went meanwhile: the access faults again */
		put_page(page);
		return 0;
	}
	vm_fault_t ret = 0;
	unsigned int mapped = 0;
	do {
		unsigned long addr = addr0 + ((index - start_pgoff) << PAGE_SHIFT);
		pte_t *pte = pte0 + (index - start_pgoff);
		/* Linux's next_uptodate_page: still the file's, below i_size;
		 * and only a none entry is filled. */
		if (!pte_none(ptep_get(pte)) || READ_ONCE(page->mapping) != mapping || page->index != index ||
		    !filemap_index_in_size(mapping->host, index)) {
			put_page(page);
			continue;
		}
		if (addr == vmf->address)
			ret = VM_FAULT_NOPAGE;
		shmem_page_mapped(mm, page); /* the lookup's reference is the mapping's */
		set_pte_at(mm, addr, pte, private_file_pte(vma, page));
		mapped++;
	} while (++index <= end_pgoff && (page = filemap_get_next_folio(mapping, &index, end_pgoff)));
	/* The new entries' counts in refcount mode (mm/pte_ref.h), before the
	 * lock goes: the fault's own reference becomes the first one's. */
	if (mapped && pte_ref_enabled()) {
		if (vmf->flags & FAULT_FLAG_PTE_GET) {
			vmf->flags &= ~FAULT_FLAG_PTE_GET;
			mapped--;
		}
		if (mapped)
			pte_get_many(vmf->pmd, mapped);
	}
	pte_unmap_unlock(pte0, ptl);
	return ret;
}

/* Linux's do_fault_around: the fault_around_bytes-aligned window around
 * the address, cut to the VMA and to the PTE table. */
static vm_fault_t do_fault_around(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long nr_pages = READ_ONCE(fault_around_bytes) >> PAGE_SHIFT;
	unsigned long mask = ~(nr_pages * PAGE_SIZE - 1) & PAGE_MASK;
	unsigned long address = max(vmf->address & mask, vma->vm_start);
	unsigned long off = ((vmf->address - address) >> PAGE_SHIFT) & (PTRS_PER_TABLE - 1);
	unsigned long start_pgoff = linear_page_index(vma, vmf->address) - off;
	unsigned long end_pgoff = start_pgoff - ((address >> PAGE_SHIFT) & (PTRS_PER_TABLE - 1)) + PTRS_PER_TABLE - 1;
	end_pgoff = min(end_pgoff, vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1);
	end_pgoff = min(end_pgoff, start_pgoff + nr_pages - 1);
	return filemap_map_pages(vmf, start_pgoff, end_pgoff);
}

/* Linux's do_read_fault: fault-around first; if the faulting page was not
 * among the present ones, the file system's fault (shmem_fault: a hole
 * gets a zeroed page in the cache) and finish_fault, read-only. SIGBUS
 * past the file's end. */
static vm_fault_t do_read_fault(struct vm_fault *vmf)
{
	if (READ_ONCE(fault_around_bytes) >> PAGE_SHIFT > 1) {
		vm_fault_t ret = do_fault_around(vmf);
		if (ret)
			return ret == VM_FAULT_NOPAGE ? 0 : ret;
	}
	vm_fault_t ret = 0;
	struct page *page = shmem_get_page(vmf->vma, vmf->address, &ret);
	if (!page)
		return ret;
	vmf->page = page;
	finish_fault(vmf, page); /* its reference is the mapping's, or put */
	return 0;
}

/* Linux's do_cow_fault: a write to a none PTE maps a new anonymous page
 * (the VMA's anon_vma, its NUMA policy) holding a copy of the cache page,
 * made as the read fault would find it. */
static vm_fault_t do_cow_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	struct page *new = vma_alloc_page(GFP_USER, vma, vmf->address);
	if (!new)
		return VM_FAULT_OOM;
	vm_fault_t ret = 0;
	struct page *page = shmem_get_page(vma, vmf->address, &ret);
	if (!page) {
		__free_page(new);
		return ret;
	}
	memcpy(page_address(new), page_address(page), PAGE_SIZE); /* Linux's copy_user_highpage */
	vmf->page = page;
	finish_fault(vmf, new);
	put_page(page);
	return 0;
}

vm_fault_t do_private_file_fault(struct vm_fault *vmf)
{
	return vmf->flags & FAULT_FLAG_WRITE ? do_cow_fault(vmf) : do_read_fault(vmf);
}
