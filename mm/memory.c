/* User memory faults: anonymous demand paging (the zero page for reads, a
 * zeroed page for writes, copy-on-write of the zero page), the fault of a
 * huge PMD (mm/pgtable.h's rule), populating a range, and the accounting of
 * mapped anonymous pages. The boot-time zero page and kernel PGD entries
 * (memory_init) live here too.
 *
 * Invariants (see also mm/memory.h):
 *   - a PTE is none (0), present, or PROT_NONE (_PAGE_PROTNONE: a page is
 *     behind it but every access faults);
 *   - a present PTE maps an anonymous page counted in MM_ANONPAGES and
 *     nr_anon_pages(), or the zero page, never writable, or a file's or
 *     shared object's page (a shared VMA's; or a private file VMA's,
 *     never writable: mm/filemap_fault.c), counted in MM_SHMEMPAGES;
 *     PageAnon tells an anonymous page from a file's;
 *   - a huge PMD maps an order-9 anonymous page counted as HPAGE_PMD_NR
 *     pages the same way (anon_page_mapped with nr).
 * Locking: the caller holds mm->mmap_lock (for reading at least: faults
 * of several threads run at once), which keeps the VMA and the upper
 * page tables alive; a PTE table is kept by the fault's reference in
 * refcount mode (handle_mm_fault), by the mmap_lock in the others. A PTE goes from what the fault read to what it installs only
 * under the table's PTE lock, after checking that it still holds what was
 * read (pte_same); the page is allocated before the lock is taken, and
 * freed unused when another walker changed the PTE first. Table
 * installation is mm/pgtable.c's. */
#include "mm/memory_internal.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/huge_memory.h"
#include "mm/mempolicy.h"
#include "mm/migrate.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/vmstat.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "mm/swapfile.h"
#include "mm/swapops.h"
#include "mm/swap_state.h"

struct page *zero_page;
static unsigned long zero_pfn;
static long anon_pages;

void anon_pages_add(long nr) { __atomic_add_fetch(&anon_pages, nr, __ATOMIC_RELAXED); }
unsigned long nr_anon_pages(void) { return (unsigned long)__atomic_load_n(&anon_pages, __ATOMIC_RELAXED); }
bool is_zero_pfn(unsigned long pfn) { return pfn == zero_pfn; }

pgprot_t vm_get_page_prot(unsigned long vm_flags)
{
	if (!(vm_flags & VM_ACCESS_FLAGS))
		return _PAGE_PROTNONE | _PAGE_ACCESSED;
	/* x86 cannot map write-only or execute-only: both can be read. */
	pgprot_t prot = _PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED;
	if (vm_flags & VM_WRITE)
		prot |= _PAGE_RW;
	if (!(vm_flags & VM_EXEC) && boot_cpu_has(X86_FEATURE_NX))
		prot |= _PAGE_NX;
	return prot;
}

/* --- accounting ------------------------------------------------------------ */

/* The mm's side of a mapping: its RSS and peak (add_mm_rss_counter). */
void anon_page_mapped(struct vm_area_struct *vma, struct page *page, unsigned long address, unsigned long nr)
{
	bool compound = nr > 1;
	page_add_new_anon_rmap(page, vma, address, compound);
	folio_add_lru_vma(page, vma); /* Linux's do_anonymous_page: on the LRU once mapped */
	add_mm_rss_counter(vma->vm_mm, MM_ANONPAGES, (long)nr);
	__atomic_add_fetch(&anon_pages, (long)nr, __ATOMIC_RELAXED);
	if (compound)
		anon_thps_add(1);
}

void anon_page_dup(struct mm_struct *mm, struct page *page, unsigned long nr)
{
	get_page(page);
	page_dup_rmap(page, nr > 1);
	add_mm_rss_counter(mm, MM_ANONPAGES, (long)nr);
}

void anon_rmap_moved(struct page *page, bool add)
{
	bool unused;
	if (add) {
		if (__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == 0)
			__atomic_add_fetch(&anon_pages, 1, __ATOMIC_RELAXED);
		get_page(page);
	} else {
		__atomic_sub_fetch(&anon_pages, (long)page_remove_rmap(page, false, &unused), __ATOMIC_RELAXED);
	}
}

void anon_page_unmapped(struct mm_struct *mm, struct page *page, unsigned long nr)
{
	bool pmd_gone = false;
	add_mm_counter(mm, MM_ANONPAGES, -(long)nr);
	/* /proc/meminfo's AnonPages counts pages mapped at all (Linux's
	 * NR_ANON_MAPPED), AnonHugePages THPs a PMD maps (NR_ANON_THPS):
	 * only the last unmap takes them away. */
	unsigned long gone = page_remove_rmap(page, nr > 1, &pmd_gone);
	if (gone)
		__atomic_sub_fetch(&anon_pages, (long)gone, __ATOMIC_RELAXED);
	if (pmd_gone)
		anon_thps_add(-1);
}

/* The PTE-mapped page of either kind (Linux's page_remove_rmap and
 * dec_mm_counter(mm_counter(page))): a private file mapping holds the
 * file's pages and its own anonymous copies side by side. */
void pte_page_unmapped(struct mm_struct *mm, struct page *page)
{
	if (PageAnon(page))
		anon_page_unmapped(mm, page, 1);
	else
		shmem_page_unmapped(mm, page);
}

void pte_page_dup(struct mm_struct *mm, struct page *page)
{
	if (PageAnon(page)) {
		anon_page_dup(mm, page, 1);
		return;
	}
	get_page(page); /* Linux's page_dup_file_rmap */
	shmem_page_mapped(mm, page);
}

/* --- faults ------------------------------------------------------------- */

/* A new anonymous page for address of vma, from the node its NUMA policy
 * says (mm/mempolicy.c; Linux's vma_alloc_zeroed_movable_folio). */
static struct page *alloc_anon_page(struct vm_area_struct *vma, unsigned long address)
{
	return vma_alloc_page(GFP_HIGHUSER_MOVABLE | __GFP_ZERO, vma, address);
}

/* A file's page (or a private copy of one) is mapped only while the file
 * still has it there, checked under the PTE lock (mm/truncate.h): a
 * truncate or hole punch that raced the fault unmaps after taking the
 * page away, so the fault either installs first and is zapped, or sees
 * it gone here and faults again (SIGBUS past the end, a new page in a
 * hole). */
static bool fault_page_current(struct vm_fault *vmf, struct page *page)
{
	struct vm_area_struct *vma = vmf->vma;
	if (vma->vm_shm)
		return shmem_page_current(vma, vmf->address, page);
	/* A private file mapping: the cache page mapped, or the one copied
	 * (Linux holds it locked across the copy's finish_fault). */
	if (vmf->page)
		return shmem_page_current(vma, vmf->address, vmf->page);
	return true;
}

bool fault_install_pte(struct vm_fault *vmf, pte_t orig, pte_t entry, struct page *page)
{
	struct mm_struct *mm = vmf->vma->vm_mm;
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(mm, vmf->pmd, vmf->address, &ptl);
	if (!pte || !pte_same(ptep_get(pte), orig) || (page && !fault_page_current(vmf, page))) {
		/* Their result stands; the access faults again if it must. */
		if (pte)
			pte_unmap_unlock(pte, ptl);
		if (page)
			put_page(page);
		return false;
	}
	if (page && (vmf->vma->vm_shm || page == vmf->page)) {
		shmem_page_mapped(mm, page); /* a file's page: Linux's page_add_file_rmap */
		mlock_vma_folio(page, vmf->vma);
	} else if (page)
		anon_page_mapped(vmf->vma, page, vmf->address, 1);
	set_pte_at(mm, vmf->address, pte, entry);
	/* A none entry became non-none: the table counts one more entry. The
	 * fault's own reference (FAULT_FLAG_PTE_GET) becomes the entry's: one
	 * walker fewer, one entry more, the count already right, so neither a
	 * get now nor the fault's put later. It is handed over under the PTE
	 * lock, and the fault does not touch the table after this unlock (a
	 * zap may free it from then on). */
	if (pte_ref_enabled() && pte_none(orig)) {
		if (vmf->flags & FAULT_FLAG_PTE_GET)
			vmf->flags &= ~FAULT_FLAG_PTE_GET;
		else
			pte_get(vmf->pmd);
	}
	pte_unmap_unlock(pte, ptl);
	return true;
}

pte_t mk_fault_pte(struct vm_fault *vmf, struct page *page)
{
	struct vm_area_struct *vma = vmf->vma;
	pte_t entry = pfn_pte(page_to_pfn(page), vma->vm_page_prot);
	/* Linux's private VMAs have a read-only vm_page_prot (x86's
	 * PAGE_COPY); mmlab's keep the write bit for their anonymous pages,
	 * so the cache's page loses it here: its first write copies. */
	if (page == vmf->page && !(vma->vm_flags & VM_SHARED))
		entry = pte_wrprotect(entry);
	else if (vmf->flags & FAULT_FLAG_WRITE)
		entry = pte_mkdirty(entry);
	return entry;
}

bool finish_fault(struct vm_fault *vmf, struct page *page)
{
	return fault_install_pte(vmf, __pte(0), mk_fault_pte(vmf, page), page);
}

/* A fault on a none PTE: a read maps the zero page, a write a new zeroed
 * page. */
static vm_fault_t do_anonymous_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	if (!(vmf->flags & FAULT_FLAG_WRITE)) {
		fault_install_pte(vmf, __pte(0), pfn_pte(zero_pfn, vma->vm_page_prot & ~_PAGE_RW), NULL);
		return 0;
	}
	/* The first anonymous page of the VMA: it needs an anon_vma (the
	 * zero page above does not, as in Linux). */
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	struct page *page = alloc_anon_page(vma, vmf->address);
	if (!page)
		return VM_FAULT_OOM;
	fault_install_pte(vmf, __pte(0), pte_mkdirty(pfn_pte(page_to_pfn(page), vma->vm_page_prot)),
			  page);
	return 0;
}

/* Linux's wp_page_copy: old is shared (with another process since a
 * fork), or the zero page (old NULL); the faulting mm gets a page of its
 * own. The copy is made before the PTE lock and thrown away if the entry
 * changed meanwhile; the old page loses this mapping and, after the TLB
 * flush, this mapping's reference. */
static vm_fault_t wp_page_copy(struct vm_fault *vmf, pte_t orig, struct page *old)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	struct page *new = old ? vma_alloc_page(GFP_HIGHUSER_MOVABLE, vma, vmf->address) : alloc_anon_page(vma, vmf->address);
	if (!new)
		return VM_FAULT_OOM;
	if (old)
		memcpy(page_address(new), page_address(old), PAGE_SIZE); /* Linux's copy_user_highpage */
	pte_t entry = pte_mkdirty(pfn_pte(page_to_pfn(new), vma->vm_page_prot));
	if (!old) {
		if (fault_install_pte(vmf, orig, entry, new))
			flush_tlb_mm_range(mm, vmf->address, vmf->address + PAGE_SIZE);
		return 0;
	}
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(mm, vmf->pmd, vmf->address, &ptl);
	if (!pte || !pte_same(ptep_get(pte), orig)) {
		if (pte)
			pte_unmap_unlock(pte, ptl);
		__free_page(new);
		return 0; /* changed meanwhile: the access faults again if it must */
	}
	anon_page_mapped(vma, new, vmf->address, 1);
	munlock_vma_folio(old, vma);
	pte_page_unmapped(mm, old);
	/* A present entry stays present: the table's count is unchanged. */
	set_pte_at(mm, vmf->address, pte, entry);
	pte_unmap_unlock(pte, ptl);
	/* Other CPUs may still read the old page through the read-only
	 * translation until this flush; only then is the reference dropped. */
	flush_tlb_mm_range(mm, vmf->address, vmf->address + PAGE_SIZE);
	put_page(old);
	return 0;
}

/* A write to a present read-only PTE of a writable VMA (Linux's
 * do_wp_page): the zero page is replaced by a zeroed page of its own; an
 * anonymous page that no one else holds (one mapping, one reference:
 * Linux 5.9's reuse rule, which 6.1's PageAnonExclusive refines to allow
 * pins) just gets its write bit back; one shared with another process
 * since a fork is copied. */
bool anon_page_exclusive(struct page *page)
{
	if (!PageAnon(page)) /* a page-cache page in a private mapping */
		return false;
	/* A 4 KiB page of a THP that fork shared: its head holds the
	 * references of every mapping of the THP (mm/rmap.h). */
	if (PageAnonThp(compound_head(page)))
		return thp_subpage_exclusive(page);
	return page_mapcount(page) == 1 && page_ref_count(page) == 1;
}

/* Linux's maybe_mkwrite: a write fault makes the entry writable only in a
 * VMA that may be written. A FOLL_FORCE write (mm/gup.c) reaches the fault
 * on a private VMA without VM_WRITE: it gets its page of its own, dirty,
 * behind an entry that stays read-only (the Dirty COW rule). */
static pte_t maybe_mkwrite(pte_t pte, struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_WRITE ? pte_mkwrite(pte) : pte;
}

static vm_fault_t do_wp_page(struct vm_fault *vmf, pte_t orig)
{
	/* Shared memory is written in place (Linux's wp_page_shared): the
	 * entry was read-only because an mprotect took the write bit. */
	if (vmf->vma->vm_shm) {
		if (fault_install_pte(vmf, orig, pte_mkdirty(pte_mkwrite(orig)), NULL))
			flush_tlb_mm_range(vmf->vma->vm_mm, vmf->address, vmf->address + PAGE_SIZE);
		return 0;
	}
	if (is_zero_pfn(pte_pfn(orig)))
		return wp_page_copy(vmf, orig, NULL);
	struct page *page = pfn_to_page(pte_pfn(orig));
	/* A page a read brought back from swap and left in the swap cache:
	 * out of it first if no swap entry names its slot any more (Linux's
	 * wp_can_reuse_anon_folio: folio_free_swap), its reference with it. */
	if (PageAnon(page) && PageSwapCache(page) && page_mapcount(page) == 1)
		try_to_free_swap(page);
	/* A private file mapping's page-cache page is never written in
	 * place: the first write copies it (Linux's do_wp_page, !PageAnon),
	 * as does an anonymous page another mapping or reference holds. */
	if (!anon_page_exclusive(page))
		return wp_page_copy(vmf, orig, page);
	/* Reuse: no other mapping can appear while this mm's mmap_lock is
	 * held for reading (fork takes it for writing). */
	if (fault_install_pte(vmf, orig, pte_mkdirty(maybe_mkwrite(orig, vmf->vma)), NULL))
		/* The old read-only translation may be cached on any CPU of
		 * the mm. */
		flush_tlb_mm_range(vmf->vma->vm_mm, vmf->address, vmf->address + PAGE_SIZE);
	return 0;
}

/* The huge-PMD rule for faults (mm/pgtable.h): an access the PMD allows
 * is spurious (a stale TLB entry); a PROT_NONE one is refused as a PTE's
 * would be; a write to a read-only huge PMD of a writable VMA is Linux's
 * do_huge_pmd_wp_page (mm/huge_memory.c). */
static vm_fault_t huge_pmd_fault(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address,
				 unsigned int flags)
{
	pmd_t val = pmdp_get(pmd);
	if (!pmd_trans_huge(val))
		return 0; /* zapped meanwhile: the access faults again */
	if (!pmd_accessible(val))
		return VM_FAULT_SIGSEGV; /* PROT_NONE */
	if ((flags & FAULT_FLAG_WRITE) && !pmd_write(val)) {
		if (!(vma->vm_flags & VM_WRITE))
			return VM_FAULT_SIGSEGV;
		return do_huge_pmd_wp_page(vma, pmd, address, val);
	}
	invlpg(address);
	return 0;
}

/* Linux's handle_pte_fault: what the PTE holds decides. The caller holds
 * a reference on the table (refcount mode) or the mmap_lock alone keeps
 * it (the other modes: only free_pgtables frees a table, under the write
 * lock). */
static vm_fault_t handle_pte_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	pte_t *pte = pte_offset_map(vmf->pmd, vmf->address);
	if (!pte)
		return 0; /* the PMD changed since pte_alloc: the access faults again */
	pte_t entry = ptep_get(pte);
	pte_unmap(pte);
	if (pte_none(entry))
		return vma->vm_shm || vma->vm_file ? do_fault(vmf) : do_anonymous_page(vmf);
	if (is_migration_entry(entry)) {
		/* The page is being moved (mm/migrate_entry.c): sleep until
		 * the mover has put a page back, and the access faults again. */
		migration_entry_wait(vmf->pmd, vmf->address, entry);
		return 0;
	}
	if (is_swap_pte(entry))
		return do_swap_page(vmf, entry);
	if (!pte_accessible(entry))
		return VM_FAULT_SIGSEGV; /* PROT_NONE: the VMA check let it through wrongly */
	if ((vmf->flags & FAULT_FLAG_WRITE) && !pte_write(entry)) {
		/* A user's write without VM_WRITE was refused by access_error
		 * (mm/fault.c), get_user_pages' by check_vma_flags: what comes
		 * here without it is a FOLL_FORCE write to a private mapping,
		 * which breaks the copy-on-write without making the entry
		 * writable. Anything else is refused as before. */
		if (!(vma->vm_flags & VM_WRITE) && !is_cow_mapping(vma->vm_flags))
			return VM_FAULT_SIGSEGV;
		return do_wp_page(vmf, entry);
	}
	/* Spurious: the PTE already allows it (a stale TLB entry from before a
	 * protection upgrade on this CPU). */
	invlpg(vmf->address);
	return 0;
}

/* In refcount mode the fault holds a reference on its PTE table from
 * pte_alloc() to the end (the series' FAULT_FLAG_PTE_GET and pte_put_vmf,
 * patches 09-13): a MADV_DONTNEED of another thread that empties the table
 * meanwhile cannot free it under us, and our put frees it if the fault
 * installed nothing and nobody else holds it. A fault that fills a none
 * entry hands its reference to the entry instead (fault_install_pte), so
 * the common fault takes one reference and drops none. A table found at count zero
 * (being freed) is waited out and replaced by pte_alloc()
 * (TRYGET_FAILED_ZERO: the retry). */
static vm_fault_t __handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	address &= PAGE_MASK;
	/* Linux's handle_mm_fault: hugetlb VMAs have their own (no PTE
	 * tables, a PMD or PUD entry per page). */
	if (is_vm_hugetlb_page(vma))
		return hugetlb_fault(vma, address, flags);
	pud_t *pud = pud_alloc(mm, pgd_offset(mm, address), address);
	if (!pud)
		return VM_FAULT_OOM;
	pmd_t *pmd = pmd_alloc(mm, pud, address);
	if (!pmd)
		return VM_FAULT_OOM;
	/* Linux's __handle_mm_fault: a none PMD over 2 MiB that may be huge
	 * tries a THP first (mm/huge_memory.c), before pte_alloc puts a table
	 * there. */
	if (pmd_none(pmdp_get(pmd)) && thp_vma_allowable(vma, address & PMD_MASK)) {
		vm_fault_t ret = do_huge_pmd_anonymous_page(vma, pmd, address, flags);
		if (!(ret & VM_FAULT_FALLBACK)) {
			__atomic_add_fetch(&mm->page_faults, 1, __ATOMIC_RELAXED);
			return ret;
		}
	}
	/* A tmpfs huge page is mapped with a PMD where the VMA allows: any
	 * fault of a shared mapping, a read of a private one (Linux's
	 * finish_fault and filemap_map_pmd -> do_set_pmd, mm/shmem_huge.c). */
	if (pmd_none(pmdp_get(pmd)) && shmem_huge_vma_suitable(vma, address & PMD_MASK, flags)) {
		vm_fault_t ret = shmem_huge_pmd_fault(vma, pmd, address, flags);
		if (!(ret & VM_FAULT_FALLBACK)) {
			__atomic_add_fetch(&mm->page_faults, 1, __ATOMIC_RELAXED);
			return ret;
		}
	}
	/* A write to a private mapping's PMD of a tmpfs huge page splits it
	 * (it just goes) and copies one page by PTE (Linux's wp_huge_pmd:
	 * "COW or write-notify handled on pte level: split pmd"). */
	if (flags & FAULT_FLAG_WRITE)
		shmem_huge_pmd_cow_split(vma, pmd, address);
	/* Three answers, each its own outcome (the 2021 series' point): no
	 * memory, a huge PMD, a PTE table. */
	int installed = pte_alloc(mm, pmd);
	if (installed < 0)
		return VM_FAULT_OOM;
	__atomic_add_fetch(&mm->page_faults, 1, __ATOMIC_RELAXED);
	if (installed == INSTALLED_HUGE_PMD)
		return huge_pmd_fault(vma, pmd, address, flags);
	struct vm_fault vmf = { .vma = vma, .address = address, .flags = flags, .pmd = pmd };
	if (pte_ref_enabled())
		vmf.flags |= FAULT_FLAG_PTE_GET;
	vm_fault_t ret = handle_pte_fault(&vmf);
	if (vmf.flags & FAULT_FLAG_PTE_GET)
		pte_put_vmf(&vmf);
	return ret;
}

vm_fault_t swapin_fault(struct vm_area_struct *vma, unsigned long address)
{
	return __handle_mm_fault(vma, address, 0);
}

/* Linux's mm_account_fault: every fault counts in /proc/vmstat's pgfault,
 * failed ones included; one that succeeded also in the faulting task's
 * min_flt (getrusage), get_user_pages' and populate's included, as Linux's
 * (which counts those per task but not for perf), or maj_flt and
 * pgmajfault when it waited for I/O (a swap-in's read: VM_FAULT_MAJOR). */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	vm_fault_t ret = __handle_mm_fault(vma, address, flags);
	count_vm_event(PGFAULT);
	if (ret & VM_FAULT_ERROR)
		return ret;
	if (ret & VM_FAULT_MAJOR) {
		current->maj_flt++;
		count_vm_event(PGMAJFAULT);
	} else {
		current->min_flt++;
	}
	return ret;
}

/* --- fork: copy_page_range ------------------------------------------------- */


/* Linux's copy_pte_range + copy_present_pte: each non-none entry of the
 * parent's table [addr, end) is copied into the child's; an anonymous page
 * or a file's page-cache page (a private file mapping's, never writable
 * there) gains a mapping and a reference (the zero page is shared as it
 * is), and
 * in a private writable mapping both entries lose their write bit, so the
 * first write on either side faults into do_wp_page. The child's table is
 * new and not yet visible to anyone; the parent's TLB is flushed once by
 * dup_mmap, not here. In refcount mode the child's table counts its
 * entries (mm/pte_ref.h): pte_alloc's walker reference is traded for
 * them, and a table with nothing copied into it goes at once. */
static int copy_pte_range_locked(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma, pmd_t *dst_pmd,
				 pmd_t *src_pmd, unsigned long *addrp, unsigned long end, swp_entry_t *cont)
{
	unsigned long addr = *addrp;
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	bool cow = is_cow_mapping(src_vma->vm_flags);
	unsigned long start = addr;
	/* In refcount mode the parent's table is held by a reference: the
	 * parent's mmap_lock keeps out its own zaps, but not truncate's
	 * (mm/truncate.h), which takes none and frees a table it empties. A
	 * table going (or gone) has nothing to copy. */
	if (pte_ref_enabled() && pte_try_get(src_pmd) != TRYGET_SUCCESSED)
		return 0;
	int installed = pte_alloc(dst_mm, dst_pmd);
	if (installed != INSTALLED_PTE) {
		if (pte_ref_enabled())
			pte_put(src_mm, src_pmd, start);
		if (installed < 0)
			return -ENOMEM;
		pr_err("BUG: fork: the child's PMD at %#lx is huge before its copy\n", addr);
		return -EFAULT;
	}
	spinlock_t *dst_ptl, *src_ptl = pte_lockptr(src_mm, src_pmd);
	pte_t *dst_pte = pte_offset_map_lock(dst_mm, dst_pmd, addr, &dst_ptl);
	pte_t *src_pte = pte_offset_map(src_pmd, addr);
	spin_lock(src_ptl);
	unsigned int copied = 0;
	int ret = 0;
	for (; addr != end; addr += PAGE_SIZE, src_pte++, dst_pte++) {
		pte_t pte = ptep_get(src_pte);
		if (pte_none(pte))
			continue;
		if (is_swap_pte(pte)) {
			int err = copy_swap_pte(dst_mm, pte);
			if (err) {
				/* A count continuation page is needed: the
				 * caller adds it, no lock held. */
				if (err == -ENOMEM)
					*cont = pte_to_swp_entry(pte);
				ret = -ENOMEM;
				break;
			}
			set_pte_at(dst_mm, addr, dst_pte, pte);
			copied++;
			continue;
		}
		if (!is_zero_pfn(pte_pfn(pte)))
			pte_page_dup(dst_mm, pfn_to_page(pte_pfn(pte)));
		if (cow && pte_write(pte)) {
			ptep_set_wrprotect(src_pte);
			pte = pte_wrprotect(pte);
		}
		set_pte_at(dst_mm, addr, dst_pte, pte);
		copied++;
	}
	/* The entries' counts before the child's PTE lock goes: the child's
	 * VMA of a file is in the file's i_mmap already (mm/interval_tree.h),
	 * and truncate's zap, which takes no mmap_lock, may clear these
	 * entries (and drop their counts) as soon as the lock is free. */
	if (copied)
		pte_get_many(dst_pmd, copied);
	spin_unlock(src_ptl);
	pte_unmap_unlock(dst_pte, dst_ptl);
	pte_put(dst_mm, dst_pmd, start);
	if (pte_ref_enabled())
		pte_put(src_mm, src_pmd, start);
	*addrp = addr;
	return ret;
}

/* Linux 6.1's copy_pte_range around its locked loop: a swap entry whose
 * count needs a continuation page that swap_duplicate's GFP_ATOMIC could
 * not have gets one with GFP_KERNEL, with no page-table lock held
 * (add_swap_count_continuation), and the copy goes on from that entry. */
static int copy_pte_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma, pmd_t *dst_pmd,
			  pmd_t *src_pmd, unsigned long addr, unsigned long end)
{
	for (;;) {
		swp_entry_t cont = { 0 };
		int ret = copy_pte_range_locked(dst_vma, src_vma, dst_pmd, src_pmd, &addr, end, &cont);
		if (!ret || !cont.val)
			return ret;
		if (add_swap_count_continuation(cont, GFP_KERNEL) < 0)
			return -ENOMEM;
	}
}

static int copy_pmd_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma, pud_t *dst_pud,
			  pud_t *src_pud, unsigned long addr, unsigned long end)
{
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	pmd_t *dst_pmd = pmd_alloc(dst_mm, dst_pud, addr);
	if (!dst_pmd)
		return -ENOMEM;
	pmd_t *src_pmd = pmd_offset(src_pud, addr);
	for (unsigned long next; addr != end; addr = next, src_pmd++, dst_pmd++) {
		next = pmd_addr_end(addr, end);
		pmd_t val = pmdp_get(src_pmd);
		if (pmd_none(val))
			continue;
		/* Linux's copy_huge_pmd: "Skip if can be re-fill on fault": a
		 * private file mapping's PMD of a tmpfs huge page (the cache's
		 * pages; its copied pages are PTE-mapped) is left to the
		 * child's faults. */
		if (pmd_trans_huge(val) && (src_vma->vm_file || src_vma->vm_shm))
			continue;
		if (pmd_trans_huge(val)) {
			int err = copy_huge_pmd(dst_mm, src_mm, dst_pmd, src_pmd, addr);
			if (err != -EAGAIN) {
				if (err)
					return err;
				continue;
			}
			if (pmd_none(pmdp_get(src_pmd)))
				continue;
		}
		int err = copy_pte_range(dst_vma, src_vma, dst_pmd, src_pmd, addr, next);
		if (err)
			return err;
		cond_resched();
	}
	return 0;
}

int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	/* Linux's vma_needs_copy: a VMA with no anonymous page (no anon_vma)
	 * has at most zero-page entries, or a private file mapping's
	 * read-only page-cache pages, which the child's faults find again
	 * as cheaply. One with an anon_vma has both its copies (shared
	 * copy-on-write) and the cache's pages (shared as they are, still
	 * read-only) copied. */
	if (!is_vm_hugetlb_page(src_vma) && !src_vma->anon_vma)
		return 0;
	if (is_vm_hugetlb_page(src_vma))
		return copy_hugetlb_page_range(dst_vma, src_vma);
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	unsigned long addr = src_vma->vm_start, end = src_vma->vm_end;
	for (unsigned long next; addr != end; addr = next) {
		next = pgd_addr_end(addr, end);
		pgd_t *src_pgd = pgd_offset(src_mm, addr);
		if (pgd_none(pgdp_get(src_pgd)))
			continue;
		pud_t *dst_pud = pud_alloc(dst_mm, pgd_offset(dst_mm, addr), addr);
		if (!dst_pud)
			return -ENOMEM;
		pud_t *src_pud = pud_offset(src_pgd, addr);
		for (unsigned long pnext; addr != next; addr = pnext, src_pud++, dst_pud++) {
			pnext = pud_addr_end(addr, next);
			if (pud_none(pudp_get(src_pud)))
				continue;
			int err = copy_pmd_range(dst_vma, src_vma, dst_pud, src_pud, addr, pnext);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Whether the page at addr is mapped already as populate wants it. */
static bool populated(struct mm_struct *mm, unsigned long addr, bool write)
{
	/* Under the read lock a MADV_DONTNEED may free the table meanwhile:
	 * enter it with a reference (mm/pte_ref.h's contract). */
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (pmd) {
		pmd_t val = pmdp_get(pmd);
		if (pmd_trans_huge(val))
			return pmd_accessible(val) && (!write || pmd_write(val));
	}
	pte_t *pte = pmd ? pte_tryget_map(mm, pmd, addr) : NULL;
	if (!pte)
		return false; /* none, or going: handle_mm_fault decides */
	pte_t entry = ptep_get(pte);
	pte_unmap(pte);
	pte_put(mm, pmd, addr);
	return pte_present(entry) && (!write || pte_write(entry));
}

int populate_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool write)
{
	unsigned n = 0;
	mmap_assert_locked(vma->vm_mm);
	if (!(vma->vm_flags & VM_ACCESS_FLAGS))
		return 0; /* PROT_NONE: nothing to fault in */
	unsigned int flags = write ? FAULT_FLAG_WRITE : 0;
	/* The bulk hint (the series' FOLL_HINT_BULK -> FAULT_FLAG_UNCACHED): a
	 * range populated at once that reaches the clearing threshold has its
	 * huge pages cleared as one large extent would be. */
	if (end - start >= clear_page_uncached_threshold())
		flags |= FAULT_FLAG_UNCACHED;
	/* A hugetlb VMA goes by its own pages, the whole of each page the
	 * range touches (Linux's follow_hugetlb_page); the fault handles it
	 * (handle_mm_fault sends it to hugetlb_fault). */
	bool hugetlb = is_vm_hugetlb_page(vma);
	unsigned long mask = hugetlb ? huge_page_mask(hstate_vma(vma)) : PAGE_MASK;
	for (unsigned long a = start & mask; a < end; a += ~mask + 1) {
		/* A fault may end without mapping the page: another thread
		 * mapped something first, or a huge PMD was split for a write
		 * (the huge zero page): fault again, as Linux's __get_user_pages
		 * loops until the page is there. */
		vm_fault_t ret = 0;
		for (unsigned tries = 0;
		     tries < 4 && !(hugetlb ? hugetlb_populated(vma, a, write) : populated(vma->vm_mm, a, write));
		     tries++) {
			ret = handle_mm_fault(vma, a, flags);
			if (ret & VM_FAULT_ERROR)
				break;
		}
		/* Linux's vm_fault_to_errno: only a fault that found memory
		 * short is -ENOMEM; one the page tables refused (a PROT_NONE
		 * huge PMD's SIGSEGV) or the pool could not answer (a hugetlb
		 * page's SIGBUS) is -EFAULT, as get_user_pages says. */
		if (ret & VM_FAULT_OOM)
			return -ENOMEM;
		if (ret & VM_FAULT_ERROR)
			return -EFAULT;
		if (hugetlb || ++n % 512 == 0)
			cond_resched();
	}
	return 0;
}

/* --- boot ----------------------------------------------------------------- */

void memory_init(void)
{
	/* Every kernel-half PGD entry gets its PUD table now, so the entries
	 * that process PGDs copy never change afterwards. */
	unsigned made = 0;
	for (int i = PTRS_PER_TABLE / 2; i < PTRS_PER_TABLE; i++) {
		if (!pgd_none(swapper_pg_dir[i]))
			continue;
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
		if (!p)
			panic("memory_init: no page for the kernel PGD's entry %d", i);
		set_pgd(&swapper_pg_dir[i], __pgd(page_to_phys(p) | _PAGE_PRESENT | _PAGE_RW));
		made++;
	}
	struct page *z = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!z)
		panic("memory_init: no zero page");
	zero_page = z;
	zero_pfn = page_to_pfn(z);
	pr_info("memory: zero page at pfn %#lx; %u kernel PGD entries preallocated\n", zero_pfn, made);
}
