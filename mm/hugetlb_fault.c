/* The fault of a hugetlb VMA (Linux's hugetlb_fault, hugetlb_no_page,
 * hugetlb_wp and unmap_ref_private): mm/hugetlb_vma.h has the rules. A
 * missing page comes from the pool (a private mapping's) or from its
 * file's page cache (fs/hugetlbfs/hugetlbfs.h); a write to a page shared
 * since fork, or to a file's page in a private mapping, copies it. */
#include "mm/hugetlb_vma.h"
#include "mm/hugetlb_internal.h"
#include "arch/x86_64/cpu.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/clear_page.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/mempolicy.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"

/* Linux's hugetlb_fault_mutex_table: the faults of one huge page of one
 * mm, and its zap, one at a time. Without it two threads touching a new
 * page together would both allocate, and the second, finding the page's
 * reservation taken by the first, could get SIGBUS from a pool sized
 * exactly for the mapping; and a MADV_DONTNEED beside a fault could give
 * a reservation back twice. A sleeping lock: the fault clears the page
 * (up to 1 GiB, with cond_resched) under it. */
#define HUGETLB_FAULT_MUTEXES 64
static struct mutex hugetlb_fault_mutex_table[HUGETLB_FAULT_MUTEXES];

struct mutex *hugetlb_fault_mutex(struct mm_struct *mm, unsigned long haddr)
{
	u64 key = (u64)(unsigned long)mm ^ (haddr >> PMD_SHIFT) * 0x9e3779b97f4a7c15ull;
	return &hugetlb_fault_mutex_table[(key ^ key >> 29) % HUGETLB_FAULT_MUTEXES];
}

static int hugetlb_fault_mutex_init(void)
{
	for (unsigned i = 0; i < HUGETLB_FAULT_MUTEXES; i++)
		mutex_init(&hugetlb_fault_mutex_table[i]);
	return 0;
}
late_initcall(hugetlb_fault_mutex_init);

/* A page of a hugetlbfs file's page cache (a private mapping's own
 * pages are anonymous: they have no mapping). */
bool page_in_file(const struct page *page)
{
	return page->mapping && !((unsigned long)page->mapping & PAGE_MAPPING_ANON);
}

/* Linux's hugetlb_no_page for a mapping of a hugetlbfs file, under the
 * file's mutex (fs/hugetlbfs/inode.c): SIGBUS past the end of the file;
 * the file's page if it has one, mapped read-only in a private mapping
 * (its first write copies it, hugetlb_wp); else a shared mapping makes
 * it (cleared, in the page cache, consuming the file's reservation). A
 * private mapping of a hole gets a page of its own: *anon true, and the
 * caller goes on as for MAP_HUGETLB. */
static vm_fault_t hugetlb_no_page_file(struct vm_area_struct *vma, u64 *ptep, unsigned long address,
				       unsigned long haddr, unsigned int flags, bool *anon)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	struct inode *inode = vma->vm_file->f_inode;
	unsigned long idx = linear_page_index(vma, haddr) >> h->order;
	vm_fault_t ret = 0;
	*anon = false;
	hugetlbfs_fault_lock(inode);
	/* Linux's: whole huge pages below i_size (a fallocate may leave it
	 * mid-page; the page it ends in is past the end for a fault). */
	unsigned long size = (unsigned long)READ_ONCE(inode->i_size) >> (PAGE_SHIFT + h->order);
	if (idx >= size) {
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	struct page *page = filemap_get_folio(vma->vm_file->f_mapping, idx);
	if (!page && !(vma->vm_flags & VM_SHARED)) {
		*anon = true;
		goto out;
	}
	if (!page) {
		int err;
		page = hugetlbfs_alloc_file_page(inode, idx, vma, address, flags, &err);
		if (!page) {
			ret = err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
			goto out;
		}
	}
	u64 entry = page_to_phys(page) | vma->vm_page_prot | _PAGE_PSE | _PAGE_ACCESSED;
	if (!(vma->vm_flags & VM_SHARED))
		entry &= ~(u64)_PAGE_RW;
	else if (flags & FAULT_FLAG_WRITE)
		entry |= _PAGE_DIRTY;
	spinlock_t *ptl = huge_pte_lockptr(mm);
	spin_lock(ptl);
	if (READ_ONCE(*ptep)) { /* cannot happen under the fault mutex */
		spin_unlock(ptl);
		put_page(page);
		goto out;
	}
	__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED);
	set_huge_pte_at(haddr, ptep, entry);
	__atomic_add_fetch(&mm->hugetlb_usage, (long)pages_per_huge_page(h), __ATOMIC_RELAXED);
	spin_unlock(ptl);
out:
	hugetlbfs_fault_unlock(inode);
	return ret;
}

/* Linux's hugetlb_no_page for a private mapping: a page from the pool (the
 * reservation of this page first), cleared by the clearing policy and
 * fenced before the entry that maps it, for a read as for a write (there
 * is no huge zero page for hugetlb). */
static vm_fault_t hugetlb_no_page(struct vm_area_struct *vma, u64 *ptep, unsigned long address,
				  unsigned long haddr, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	if (vma->vm_file) {
		bool anon;
		vm_fault_t ret = hugetlb_no_page_file(vma, ptep, address, haddr, flags, &anon);
		if (!anon)
			return ret;
	}
	/* A child whose page the mapping's owner took back (hugetlb_wp) is
	 * refused every new page of the mapping, as Linux's: it would
	 * otherwise see zeroes where its data was. */
	if (vma->vm_resv_map && READ_ONCE(vma->vm_resv_map->unmapped)) {
		pr_warn("PID %d killed due to inadequate hugepage pool\n", current->tgid);
		return VM_FAULT_SIGBUS;
	}
	/* The reverse map of a private mapping's pages (Linux's
	 * hugepage_add_new_anon_rmap): an anon_vma, which fork links the
	 * children's copies of the VMA to, for hugetlb_wp's take-back. */
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	nodemask_t mask;
	bool have_mask, many;
	int nid = huge_node(vma, haddr, h->order, &mask, &have_mask, &many);
	bool had = resv_take(vma, haddr), consumed = had;
	struct page *page = alloc_hugetlb_folio(h, nid, have_mask ? &mask : NULL, many, &consumed);
	if (had && !consumed)
		resv_give(vma, haddr); /* a surplus page came instead: the reservation stays */
	if (!page)
		return VM_FAULT_SIGBUS; /* Linux: -ENOSPC from alloc_hugetlb_folio */
	/* Cleared here, never by __GFP_ZERO (mm/clear_page.h). The bulk
	 * hint of a populate covers a page of any size; a 1 GiB page is past
	 * the threshold on its own. */
	struct incoherent_page cleared =
		clear_huge_page(page, h->order, address, flags & FAULT_FLAG_UNCACHED ? CLEAR_HUGE_BULK : 0,
				clear_page_uncached_threshold());
	page = clear_page_uncached_make_coherent(cleared);
	u64 entry = page_to_phys(page) | vma->vm_page_prot | _PAGE_PSE | _PAGE_ACCESSED |
		    (flags & FAULT_FLAG_WRITE ? _PAGE_DIRTY : 0);
	spinlock_t *ptl = huge_pte_lockptr(mm);
	spin_lock(ptl);
	if (READ_ONCE(*ptep)) {
		/* Mapped meanwhile (cannot happen under the fault mutex, but
		 * is answered): this page goes back, with the reservation it
		 * took (Linux's restore_reserve_on_error), once. */
		spin_unlock(ptl);
		free_huge_folio(page, consumed && resv_give(vma, haddr));
		return 0;
	}
	page->_mapcount = 0;
	set_huge_pte_at(haddr, ptep, entry);
	__atomic_add_fetch(&mm->hugetlb_usage, (long)pages_per_huge_page(h), __ATOMIC_RELAXED);
	spin_unlock(ptl);
	return 0;
}

/* Linux's unmap_ref_private: the owner of a private mapping's reservations
 * (its creator: the VMA whose map holds reservation bits) could not copy
 * page at haddr for lack of pool pages, because children hold it since
 * fork; it takes the page back, unmapping it from every child's copy of
 * the mapping (the VMAs fork linked to its anon_vma), whose later faults
 * in that mapping get SIGBUS (resv_map->unmapped). The owner's fault
 * mutex is not held (the children's are taken). A child whose mmap_lock
 * is busy keeps its mapping (mmlab does not walk another mm's tables
 * without it); the owner's write then gets SIGBUS as it would have. The
 * number of mappings taken. */
static unsigned long unmap_ref_private(struct vm_area_struct *owner, struct page *page, unsigned long haddr)
{
	struct anon_vma *anon_vma = owner->anon_vma;
	struct hstate *h = hstate_vma(owner);
	unsigned long taken = 0;
	if (!anon_vma)
		return 0;
	unsigned long pgoff = owner->vm_pgoff + ((haddr - owner->vm_start) >> PAGE_SHIFT);
	down_read(&anon_vma->root->rwsem);
	struct anon_vma_chain *avc;
	list_for_each_entry(avc, &anon_vma->head, same_anon_vma) {
		struct vm_area_struct *vma = avc->vma;
		unsigned long pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
		if (vma == owner || !is_vm_hugetlb_page(vma) || !vma->vm_resv_map || vma->vm_resv_map->reserved ||
		    pgoff < vma->vm_pgoff || pgoff - vma->vm_pgoff >= pages)
			continue; /* Linux skips HPAGE_RESV_OWNER mappings too */
		unsigned long address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		struct mm_struct *mm = vma->vm_mm;
		if (!mmap_read_trylock(mm))
			continue;
		WRITE_ONCE(vma->vm_resv_map->unmapped, true);
		int before = __atomic_load_n(&page->_mapcount, __ATOMIC_RELAXED);
		struct mmu_gather tlb;
		tlb_gather_mmu(&tlb, mm);
		unmap_hugepage_range_ref(&tlb, vma, address, address + huge_page_size(h), page);
		tlb_finish_mmu(&tlb);
		taken += before != __atomic_load_n(&page->_mapcount, __ATOMIC_RELAXED);
		mmap_read_unlock(mm);
	}
	up_read(&anon_vma->root->rwsem);
	return taken;
}

/* Linux's hugetlb_wp, under the fault mutex: a write to a read-only
 * entry of a writable private mapping. A page only this entry maps and
 * holds is made writable in place; one shared with another process since
 * a fork is copied into a page of the pool taken without a reservation.
 * When the pool has none, a child's write gets SIGBUS; the owner's takes
 * the page back from the children (unmap_ref_private) and faults again,
 * to find it its own. */
static vm_fault_t hugetlb_wp(struct vm_area_struct *vma, u64 *ptep, unsigned long haddr, u64 entry,
			     struct mutex *fault_mutex)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	spinlock_t *ptl = huge_pte_lockptr(mm);
	struct page *old = pfn_to_page((entry & PTE_PFN_MASK) >> PAGE_SHIFT);
	/* A shared mapping's page is written in place (its entries are made
	 * writable with the VMA: this is a stale read-only one). */
	if ((vma->vm_flags & VM_SHARED) ||
	    (__atomic_load_n(&old->_mapcount, __ATOMIC_RELAXED) == 0 &&
	     __atomic_load_n(&old->_refcount, __ATOMIC_ACQUIRE) == 1 && !page_in_file(old))) {
		spin_lock(ptl);
		if (READ_ONCE(*ptep) == entry)
			WRITE_ONCE(*ptep, entry | _PAGE_RW | _PAGE_DIRTY);
		spin_unlock(ptl);
		flush_tlb_mm_range(mm, haddr, haddr + huge_page_size(h));
		return 0;
	}
	nodemask_t mask;
	bool have_mask, many;
	/* The first write to a file's page in a private mapping uses the
	 * reservation mmap took for it (its read fault took none). */
	bool had = resv_take(vma, haddr), consumed = had;
	int nid = huge_node(vma, haddr, h->order, &mask, &have_mask, &many);
	struct page *new = alloc_hugetlb_folio(h, nid, have_mask ? &mask : NULL, many, &consumed);
	if (had && !consumed)
		resv_give(vma, haddr);
	if (!new && vma->vm_resv_map && vma->vm_resv_map->reserved && !page_in_file(old)) {
		/* Linux drops the fault mutex first too: a child's may hash
		 * to the same one. The old page stays: this entry holds it. */
		mutex_unlock(fault_mutex);
		unsigned long taken = unmap_ref_private(vma, old, haddr);
		mutex_lock(fault_mutex);
		return taken ? 0 : VM_FAULT_SIGBUS; /* 0: the write faults again */
	}
	if (!new)
		return VM_FAULT_SIGBUS;
	/* Linux's copy_user_large_folio, a 4 KiB page at a time. */
	for (unsigned long i = 0; i < pages_per_huge_page(h); i++) {
		memcpy(page_address(new + i), page_address(old + i), PAGE_SIZE);
		if (i % 512 == 511)
			cond_resched();
	}
	spin_lock(ptl);
	if (READ_ONCE(*ptep) != entry) {
		spin_unlock(ptl);
		free_huge_folio(new, consumed && resv_give(vma, haddr));
		return 0;
	}
	new->_mapcount = 0;
	set_huge_pte_at(haddr, ptep, page_to_phys(new) | (entry & ~PTE_PFN_MASK) | _PAGE_RW | _PAGE_DIRTY);
	__atomic_sub_fetch(&old->_mapcount, 1, __ATOMIC_RELAXED);
	spin_unlock(ptl);
	flush_tlb_mm_range(mm, haddr, haddr + huge_page_size(h));
	put_page(old);
	return 0;
}

vm_fault_t hugetlb_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	unsigned long haddr = address & huge_page_mask(h);
	u64 *ptep = huge_pte_alloc(mm, haddr, h);
	if (!ptep)
		return VM_FAULT_OOM;
	__atomic_add_fetch(&mm->page_faults, 1, __ATOMIC_RELAXED);
	struct mutex *fault_mutex = hugetlb_fault_mutex(mm, haddr);
	mutex_lock(fault_mutex);
	u64 entry = READ_ONCE(*ptep);
	vm_fault_t ret = 0;
	if (!entry)
		ret = hugetlb_no_page(vma, ptep, address, haddr, flags);
	else if (!(entry & _PAGE_PRESENT))
		ret = VM_FAULT_SIGSEGV; /* PROT_NONE: the VMA check let it through wrongly */
	else if ((flags & FAULT_FLAG_WRITE) && !(entry & _PAGE_RW))
		ret = vma->vm_flags & VM_WRITE ? hugetlb_wp(vma, ptep, haddr, entry, fault_mutex) : VM_FAULT_SIGSEGV;
	else
		invlpg(address); /* spurious: a stale TLB entry */
	mutex_unlock(fault_mutex);
	return ret;
}

bool hugetlb_populated(struct vm_area_struct *vma, unsigned long addr, bool write)
{
	u64 *ptep = huge_pte_offset(vma->vm_mm, addr, hstate_vma(vma));
	u64 entry = ptep ? READ_ONCE(*ptep) : 0;
	return (entry & _PAGE_PRESENT) && (!write || (entry & _PAGE_RW));
}
