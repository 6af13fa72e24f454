/* Faults of file and shmem VMAs (Linux 6.1's do_fault): a MAP_SHARED
 * mapping of a tmpfs file or memfd, shared anonymous memory
 * (MAP_SHARED | MAP_ANONYMOUS, /dev/zero), a System V segment, and a
 * MAP_PRIVATE mapping of a tmpfs file.
 *
 * A read maps the page of the file (or object) itself (do_read_fault),
 * with the present pages around it (fault-around: do_fault_around,
 * filemap_map_pages), shared and private alike, as Linux does for every
 * VMA whose vm_ops has map_pages (shmem_vm_ops has; a System V segment's
 * shm_vm_ops has not: its reads map one page each). A write to a none PTE
 * of a shared mapping maps the page writable and dirty (do_shared_fault);
 * of a private one, an anonymous copy of the cache page (do_cow_fault); a
 * write to a present cache page of a private mapping copies it then
 * (do_wp_page -> wp_page_copy, mm/memory.c). So a private mapping sees
 * the file's later changes (write(2), a MAP_SHARED mapper, a hole
 * punched) at each page until its first write there.
 *
 * Invariants: a present PTE of a private file VMA maps either a page of
 * the file's cache (never writable; counted as a file page: _mapcount,
 * Mapped, MM_SHMEMPAGES, as Linux counts a tmpfs page, mm_counter_file)
 * or an anonymous page of the VMA's anon_vma (counted as anonymous);
 * PageAnon (mm/rmap.h) tells which. A shared VMA's present PTEs map its
 * object's pages only, with the VMA's protection (writable where the VMA
 * is: tmpfs needs no write notification, vma_wants_writenotify). A
 * truncate unmaps both kinds past the new end (even_cows), a hole punch
 * the cache pages only (mm/truncate.h).
 * Locking: the fault's (mm/memory.c); a page found is installed only if
 * it is still the file's (or the object's) under the PTE lock
 * (shmem_page_current), and fault-around never allocates. */
#include "mm/swap.h"
#include "mm/secretmem.h"
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

/* The entry fault-around maps a page with (Linux's do_set_pte for a read:
 * the VMA's vm_page_prot, clean). A private mapping's cache page is
 * read-only, so that a write faults and copies (Linux's private
 * vm_page_prot is PAGE_COPY; mmlab's keeps the write bit for the VMA's
 * anonymous pages). */
static pte_t fault_around_pte(struct vm_area_struct *vma, struct page *page)
{
	pte_t entry = pfn_pte(page_to_pfn(page), vma->vm_page_prot);
	return vma->vm_shm ? entry : pte_wrprotect(entry);
}

/* Linux's filemap_map_pages: the pages present at offsets [start_pgoff,
 * end_pgoff] (one PTE table's worth at most) of the file or object, below
 * its end, are mapped where their PTE is none, without allocating
 * anything. VM_FAULT_NOPAGE when the faulting address's page was among
 * them. A huge tmpfs page whose PMD this fault could map never gets here
 * (mm/memory.c tries shmem_huge_pmd_fault while the PMD is none, as
 * Linux's filemap_map_pmd does first): what this maps by PTEs of a huge
 * page is what Linux's would, a part no PMD could map. */
static vm_fault_t filemap_map_pages(struct vm_fault *vmf, unsigned long start_pgoff, unsigned long end_pgoff)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long index = start_pgoff;
	struct page *page = shmem_next_present_page(vma, &index, end_pgoff);
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
		/* Linux's next_uptodate_page: still the file's (not truncated,
		 * punched out or migrated meanwhile), below i_size; and only a
		 * none entry is filled. */
		if (!pte_none(ptep_get(pte)) || !shmem_page_current(vma, addr, page)) {
			put_page(page);
			continue;
		}
		if (addr == vmf->address)
			ret = VM_FAULT_NOPAGE;
		shmem_page_mapped(mm, page); /* the lookup's reference is the mapping's */
		mlock_vma_folio(page, vma);
		set_pte_at(mm, addr, pte, fault_around_pte(vma, page));
		mapped++;
	} while (++index <= end_pgoff && (page = shmem_next_present_page(vma, &index, end_pgoff)));
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

/* Linux's should_fault_around: the VMA's vm_ops has map_pages (every
 * shmem VMA but a System V segment's: ipc/shm.c's shm_vm_ops has none,
 * nor has secretmem_vm_ops; hugetlb VMAs never come here), and the
 * window is more than a page. mmlab has no userfaultfd, whose minor
 * faults turn it off in Linux. */
static bool should_fault_around(struct vm_fault *vmf)
{
	struct shmem_object *obj = vmf->vma->vm_shm;
	if ((obj && obj->attach_ops) || vma_is_secretmem(vmf->vma))
		return false;
	return READ_ONCE(fault_around_bytes) >> PAGE_SHIFT > 1;
}

/* Linux's do_read_fault: fault-around first; if the faulting page was not
 * among the present ones, the file system's fault (shmem_fault: a hole
 * gets a zeroed page in the cache) and finish_fault (read-only in a
 * private mapping). SIGBUS past the file's or object's end. */
static vm_fault_t do_read_fault(struct vm_fault *vmf)
{
	if (should_fault_around(vmf)) {
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
	struct page *new = vma_alloc_page(GFP_HIGHUSER_MOVABLE, vma, vmf->address);
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

/* Linux's do_shared_fault (mmlab's shmem has no page_mkwrite): the page
 * of the file or object at this offset, made if absent, mapped writable
 * and dirty where the VMA is writable. */
static vm_fault_t do_shared_fault(struct vm_fault *vmf)
{
	vm_fault_t ret = 0;
	struct page *page = shmem_get_page(vmf->vma, vmf->address, &ret);
	if (!page)
		return ret;
	finish_fault(vmf, page);
	return 0;
}

vm_fault_t do_fault(struct vm_fault *vmf)
{
	if (!(vmf->flags & FAULT_FLAG_WRITE))
		return do_read_fault(vmf);
	return vmf->vma->vm_shm ? do_shared_fault(vmf) : do_cow_fault(vmf);
}
