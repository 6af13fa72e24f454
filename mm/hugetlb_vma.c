/* MAP_HUGETLB mappings (mm/hugetlb_vma.h has the rules): the mmap side
 * (Linux's ksys_mmap_pgoff hugetlb branch, hugetlb_get_unmapped_area,
 * hugetlb_reserve_pages, hugetlbfs_file_mmap), the reservation map (resv_map, private
 * mappings), the page tables, the zap (__unmap_hugepage_range), mprotect
 * (hugetlb_change_protection), fork, the walk (walk_hugetlb_range) and
 * get_user_pages (follow_hugetlb_page). The fault is mm/hugetlb_fault.c's,
 * the pools and their counts mm/hugetlb.c's. */
#include "mm/hugetlb_vma.h"
#include "mm/hugetlb_internal.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "mm/filemap.h"
#include "arch/x86_64/cpu.h"
#include "kernel/init.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/clear_page.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/mempolicy.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "mm/vma.h"

/* A shared mapping of a hugetlbfs file has no map: its reservations are
 * the file's (fs/hugetlbfs/hugetlbfs.h), its size the file's. */
struct hstate *hstate_vma(const struct vm_area_struct *vma)
{
	return vma->vm_resv_map ? vma->vm_resv_map->h : hstate_file(vma->vm_file);
}

/* The page's index in the map. */
static unsigned long resv_index(const struct vm_area_struct *vma, unsigned long addr)
{
	const struct resv_map *resv = vma->vm_resv_map;
	return (vma->vm_pgoff >> resv->h->order) + ((addr - vma->vm_start) >> (PAGE_SHIFT + resv->h->order)) -
	       resv->base;
}

/* Test and clear (take) or set (give) the reservation bit of addr. */
bool resv_take(struct vm_area_struct *vma, unsigned long addr)
{
	struct resv_map *resv = vma->vm_resv_map;
	if (!resv || !resv->reserved)
		return false;
	unsigned long i = resv_index(vma, addr), bit = 1ul << (i % 64);
	spin_lock(&resv->lock);
	bool had = resv->reserved[i / 64] & bit;
	resv->reserved[i / 64] &= ~bit;
	spin_unlock(&resv->lock);
	return had;
}

/* Sets the bit; false if it was set already. */
bool resv_give(struct vm_area_struct *vma, unsigned long addr)
{
	struct resv_map *resv = vma->vm_resv_map;
	unsigned long i = resv_index(vma, addr), bit = 1ul << (i % 64);
	spin_lock(&resv->lock);
	bool was = resv->reserved[i / 64] & bit;
	resv->reserved[i / 64] |= bit;
	spin_unlock(&resv->lock);
	return !was;
}

bool resv_test(struct vm_area_struct *vma, unsigned long addr)
{
	struct resv_map *resv = vma->vm_resv_map;
	if (!resv)
		return false;
	unsigned long i = resv_index(vma, addr);
	return resv->reserved && (READ_ONCE(resv->reserved[i / 64]) >> (i % 64) & 1);
}

void resv_map_get(struct resv_map *resv)
{
	if (resv)
		__atomic_add_fetch(&resv->refcount, 1, __ATOMIC_RELAXED);
}

void resv_map_put(struct resv_map *resv)
{
	if (!resv || __atomic_sub_fetch(&resv->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	kvfree(resv->reserved);
	kfree(resv);
}

/* Linux's hugetlb_vm_op_close: the reservations the VMA's pages still hold
 * go back to the pool (its unfaulted pages, and those a zap gave back),
 * then the VMA's reference on the map. */
void hugetlb_vm_op_close(struct vm_area_struct *vma)
{
	struct resv_map *resv = vma->vm_resv_map;
	if (!resv)
		return;
	long unused = 0;
	if (resv->reserved) /* none with MAP_NORESERVE */
		for (unsigned long a = vma->vm_start; a < vma->vm_end; a += huge_page_size(resv->h))
			unused += resv_take(vma, a);
	if (unused)
		hugetlb_acct_memory(resv->h, -unused);
	vma->vm_resv_map = NULL;
	resv_map_put(resv);
}

int hugetlb_vm_op_split(const struct vm_area_struct *vma, unsigned long addr)
{
	if (!is_vm_hugetlb_page(vma))
		return 0;
	return addr & ~huge_page_mask(hstate_vma(vma)) ? -EINVAL : 0;
}

/* --- mmap ------------------------------------------------------------------ */

int hugetlb_mmap_prepare(unsigned long flags, unsigned long *addr, unsigned long *len, struct hstate **hp)
{
	struct hstate *h = hstate_sizelog((flags >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK);
	if (!h)
		return -EINVAL;
	*hp = h;
	return hugetlb_mmap_align(h, flags, addr, len);
}

int hugetlb_mmap_align(struct hstate *h, unsigned long flags, unsigned long *addr, unsigned long *len)
{
	/* ksys_mmap_pgoff: the length is rounded up to the page size. */
	unsigned long sz = huge_page_size(h);
	if (*len > ~0ul - (sz - 1))
		return -ENOMEM;
	*len = ALIGN_UP(*len, sz);
	/* hugetlb_get_unmapped_area: a fixed address must be aligned; a hint
	 * is rounded up to the size. */
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (*addr & (sz - 1))
			return -EINVAL;
	} else if (*addr) {
		*addr = *addr > ~0ul - (sz - 1) ? 0 : ALIGN_UP(*addr, sz);
	}
	return 0;
}

struct resv_map *hugetlb_reserve_pages(struct hstate *h, unsigned long addr, unsigned long len,
				       unsigned long vm_flags, int *err)
{
	struct resv_map *resv = kzalloc(sizeof(*resv), GFP_KERNEL);
	if (!resv) {
		*err = -ENOMEM;
		return NULL;
	}
	resv->refcount = 1;
	resv->h = h;
	resv->base = addr >> (PAGE_SHIFT + h->order);
	resv->nr = len >> (PAGE_SHIFT + h->order);
	spin_lock_init(&resv->lock);
	if (vm_flags & VM_NORESERVE)
		return resv;
	/* kvmalloc: a mapping of 2^20 huge pages needs 128 KiB of bits. */
	resv->reserved = kvmalloc(((resv->nr + 63) / 64) * sizeof(unsigned long), GFP_KERNEL);
	if (!resv->reserved || hugetlb_acct_memory(h, (long)resv->nr)) {
		kvfree(resv->reserved);
		kfree(resv);
		*err = -ENOMEM;
		return NULL;
	}
	memset(resv->reserved, 0xff, ((resv->nr + 63) / 64) * sizeof(unsigned long));
	if (resv->nr % 64)
		resv->reserved[resv->nr / 64] = (1ul << (resv->nr % 64)) - 1;
	return resv;
}

int hugetlb_vma_reserve_private(struct vm_area_struct *vma, struct hstate *h)
{
	int err = 0;
	/* The map is indexed from the file's huge-page offset at vm_start,
	 * as resv_index computes it (an anonymous mapping's vm_pgoff is its
	 * address's). */
	struct resv_map *resv =
		hugetlb_reserve_pages(h, vma->vm_pgoff << PAGE_SHIFT, vma->vm_end - vma->vm_start, vma->vm_flags, &err);
	if (!resv)
		return err;
	vma->vm_resv_map = resv;
	return 0;
}

/* Linux's hugetlb_get_unmapped_area (generic_hugetlb_get_unmapped_area
 * with its align_mask): a hint aligned already (hugetlb_mmap_prepare) is
 * taken if it fits; else the search pads the length by a page size less
 * 4 KiB and takes the highest (top-down) or lowest (bottom-up) aligned
 * start inside what it found. A fixed address was checked for alignment. */
unsigned long hugetlb_get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
					       unsigned long flags, unsigned long sz)
{
	if (flags & MAP_FIXED)
		return get_unmapped_area(mm, addr, len, flags);
	if (len > TASK_SIZE)
		return -ENOMEM;
	if (hint_fits(mm, addr, len, TASK_SIZE))
		return get_unmapped_area(mm, addr, len, flags | MAP_FIXED);
	unsigned long padded = len + sz - PAGE_SIZE;
	if (padded < len || padded > TASK_SIZE)
		return -ENOMEM;
	unsigned long a = unmapped_area_topdown(mm, padded, PAGE_SIZE, mm->mmap_base);
	if (!IS_ERR_VALUE(a)) {
		a = ALIGN_DOWN(a + sz - PAGE_SIZE, sz);
	} else {
		a = unmapped_area(mm, padded, TASK_UNMAPPED_BASE, TASK_SIZE);
		if (IS_ERR_VALUE(a))
			return a;
		a = ALIGN_UP(a, sz);
	}
	return get_unmapped_area(mm, a, len, flags | MAP_FIXED);
}

/* --- page tables ------------------------------------------------------------ */

u64 *huge_pte_offset(struct mm_struct *mm, unsigned long addr, const struct hstate *h)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	if (pgd_none(pgdp_get(pgd)))
		return NULL;
	pud_t *pud = pud_offset(pgd, addr);
	if (hstate_is_gigantic(h))
		return &pud->pud;
	pud_t pudv = pudp_get(pud);
	if (pud_none(pudv) || (pud_val(pudv) & _PAGE_PSE))
		return NULL;
	return &pmd_offset(pud, addr)->pmd;
}

u64 *huge_pte_alloc(struct mm_struct *mm, unsigned long addr, const struct hstate *h)
{
	pud_t *pud = pud_alloc(mm, pgd_offset(mm, addr), addr);
	if (!pud)
		return NULL;
	if (hstate_is_gigantic(h))
		return &pud->pud;
	pmd_t *pmd = pmd_alloc(mm, pud, addr);
	return pmd ? &pmd->pmd : NULL;
}

/* Linux's set_huge_pte_at: the fence rule of set_pmd_at too. */
void set_huge_pte_at(unsigned long addr, u64 *ptep, u64 entry)
{
	clear_page_check_coherent(addr);
	WRITE_ONCE(*ptep, entry);
}


/* --- zap, mprotect ---------------------------------------------------------------- */

void __unmap_hugepage_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			    unsigned long end)
{
	unmap_hugepage_range_ref(tlb, vma, start, end, NULL);
}

void unmap_hugepage_range_ref(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
				     unsigned long end, struct page *ref_page)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	unsigned long sz = huge_page_size(h);
	spinlock_t *ptl = huge_pte_lockptr(mm);
	for (unsigned long addr = start & huge_page_mask(h); addr < end; addr += sz) {
		u64 *ptep = huge_pte_offset(mm, addr, h);
		if (!ptep || !READ_ONCE(*ptep))
			continue;
		/* A fault of this page waits, so its reservation bit and entry
		 * change together. */
		struct mutex *fault_mutex = hugetlb_fault_mutex(mm, addr);
		mutex_lock(fault_mutex);
		spin_lock(ptl);
		u64 entry = READ_ONCE(*ptep);
		if (ref_page && (entry & PTE_PFN_MASK) != page_to_phys(ref_page))
			entry = 0; /* another page now: not the one taken back */
		else
			WRITE_ONCE(*ptep, 0);
		spin_unlock(ptl);
		if (!entry) {
			mutex_unlock(fault_mutex);
			continue;
		}
		tlb_flush_range_add(tlb, addr, sz);
		__atomic_sub_fetch(&mm->hugetlb_usage, (long)pages_per_huge_page(h), __ATOMIC_RELAXED);
		struct page *page = pfn_to_page((entry & PTE_PFN_MASK) >> PAGE_SHIFT);
		/* Linux 6.8 marks the page and counts the reservation when it
		 * is freed; mmlab counts it here, so the bit and the count go
		 * back together (while get_user_pages still holds the page,
		 * free_huge_pages stays below resv_huge_pages: other mappings'
		 * unreserved faults see one page fewer until it is put). */
		if (vma->vm_resv_map && vma->vm_resv_map->reserved && !resv_test(vma, addr) &&
		    hugetlb_restore_reserve(h))
			resv_give(vma, addr);
		mutex_unlock(fault_mutex);
		__atomic_sub_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED); /* one mapping less */
		if (__tlb_remove_page_size(tlb, page, addr, h->order))
			tlb_flush_mmu(tlb);
	}
}

unsigned long hugetlb_change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
					pgprot_t newprot)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	unsigned long pages = 0;
	spinlock_t *ptl = huge_pte_lockptr(mm);
	for (unsigned long addr = start; addr < end; addr += huge_page_size(h)) {
		u64 *ptep = huge_pte_offset(mm, addr, h);
		if (!ptep)
			continue;
		spin_lock(ptl);
		u64 entry = READ_ONCE(*ptep);
		if (entry) {
			u64 new = pmd_val(pmd_modify(__pmd(entry), newprot));
			/* A private page another process maps too since a fork,
			 * or a file's page a private mapping maps, stays
			 * read-only: its next write copies it (hugetlb_wp). */
			struct page *page = pfn_to_page((entry & PTE_PFN_MASK) >> PAGE_SHIFT);
			if ((new & _PAGE_RW) && !(entry & _PAGE_RW) && !(vma->vm_flags & VM_SHARED) &&
			    (page->_mapcount > 0 || page_in_file(page)))
				new &= ~(u64)_PAGE_RW;
			WRITE_ONCE(*ptep, new);
			pages += pages_per_huge_page(h);
		}
		spin_unlock(ptl);
	}
	if (pages)
		flush_tlb_mm_range(mm, start, end);
	return pages;
}

/* --- fork ------------------------------------------------------------------------- */

int hugetlb_dup_vma_private(struct vm_area_struct *vma)
{
	struct resv_map *parent = vma->vm_resv_map;
	if (!parent)
		return 0; /* a shared mapping of a file: the file holds its reservations */
	struct resv_map *resv = kzalloc(sizeof(*resv), GFP_KERNEL);
	if (!resv)
		return -ENOMEM;
	resv->refcount = 1;
	resv->h = parent->h;
	resv->base = parent->base;
	resv->nr = parent->nr;
	spin_lock_init(&resv->lock);
	vma->vm_resv_map = resv; /* reserved NULL: none, as MAP_NORESERVE */
	resv_map_put(parent);    /* vm_area_dup's reference */
	return 0;
}

int copy_hugetlb_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	struct mm_struct *dst = dst_vma->vm_mm, *src = src_vma->vm_mm;
	struct hstate *h = hstate_vma(src_vma);
	unsigned long sz = huge_page_size(h);
	for (unsigned long addr = src_vma->vm_start; addr < src_vma->vm_end; addr += sz) {
		u64 *src_ptep = huge_pte_offset(src, addr, h);
		if (!src_ptep || !READ_ONCE(*src_ptep))
			continue;
		u64 *dst_ptep = huge_pte_alloc(dst, addr, h);
		if (!dst_ptep)
			return -ENOMEM;
		/* The child's lock is its own and nobody sees the child yet;
		 * the parent's faults wait for its mmap_lock. */
		spin_lock(huge_pte_lockptr(src));
		u64 entry = READ_ONCE(*src_ptep);
		if (entry) {
			struct page *page = pfn_to_page((entry & PTE_PFN_MASK) >> PAGE_SHIFT);
			get_page(page);
			__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED);
			if ((entry & _PAGE_RW) && !(src_vma->vm_flags & VM_SHARED)) {
				__atomic_fetch_and(src_ptep, ~(u64)_PAGE_RW, __ATOMIC_RELAXED);
				entry &= ~(u64)_PAGE_RW;
			}
			WRITE_ONCE(*dst_ptep, entry);
			__atomic_add_fetch(&dst->hugetlb_usage, (long)pages_per_huge_page(h), __ATOMIC_RELAXED);
		}
		spin_unlock(huge_pte_lockptr(src));
	}
	return 0;
}

/* --- readers ------------------------------------------------------------------ */

u64 huge_ptep_get_locked(struct vm_area_struct *vma, unsigned long addr)
{
	u64 *ptep = huge_pte_offset(vma->vm_mm, addr, hstate_vma(vma));
	return ptep ? READ_ONCE(*ptep) : 0;
}

struct page *follow_hugetlb_page(struct vm_area_struct *vma, unsigned long addr, bool write, int *err)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	u64 *ptep = huge_pte_offset(mm, addr, h);
	if (!ptep)
		return NULL;
	struct page *page = NULL;
	spinlock_t *ptl = huge_pte_lockptr(mm);
	spin_lock(ptl);
	u64 entry = READ_ONCE(*ptep);
	if ((entry & (_PAGE_PRESENT | _PAGE_USER)) == (_PAGE_PRESENT | _PAGE_USER) && (!write || (entry & _PAGE_RW))) {
		unsigned long pfn = (entry & PTE_PFN_MASK) >> PAGE_SHIFT;
		if (pfn_valid(pfn)) {
			/* The reference is the whole page's (its head's);
			 * put_page of the 4 KiB part finds the head. */
			struct page *head = pfn_to_page(pfn);
			__atomic_add_fetch(&head->_refcount, 1, __ATOMIC_ACQ_REL);
			page = head + ((addr & ~huge_page_mask(h)) >> PAGE_SHIFT);
		} else {
			*err = -EFAULT;
		}
	}
	spin_unlock(ptl);
	return page;
}
