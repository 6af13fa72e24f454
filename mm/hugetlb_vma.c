/* MAP_HUGETLB mappings (mm/hugetlb_vma.h has the rules): the mmap side
 * (Linux's ksys_mmap_pgoff hugetlb branch, hugetlb_get_unmapped_area,
 * hugetlb_reserve_pages, hugetlbfs_file_mmap), the reservation map (resv_map, private
 * mappings), the fault (hugetlb_fault, hugetlb_no_page), the zap
 * (__unmap_hugepage_range), mprotect (hugetlb_change_protection), the
 * walk (walk_hugetlb_range) and get_user_pages (follow_hugetlb_page).
 * The pools and their counts are mm/hugetlb.c's. */
#include "mm/hugetlb_vma.h"
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

/* Linux's struct resv_map for a private mapping, reduced to what a private
 * mapping needs: which of its huge pages still hold the reservation mmap
 * took for them. Linux records the consumed ones in a region list; a
 * bitmap of the unconsumed ones says the same for a mapping whose size is
 * fixed at mmap (mremap cannot grow a hugetlb mapping). */
struct resv_map {
	int refcount;          /* VMAs sharing it (the pieces of a split); atomic */
	struct hstate *h;
	unsigned long base;    /* huge-page index (vm_pgoff >> order) of the mapping's first page */
	unsigned long nr;      /* huge pages the mapping had at mmap */
	spinlock_t lock;       /* the bits */
	unsigned long *reserved; /* bit i: page base + i still holds its reservation;
				  * NULL: none was taken (MAP_NORESERVE, or a fork's copy) */
	bool unmapped;           /* Linux's HPAGE_RESV_UNMAPPED: the owner took a page
				  * back from this (child's) mapping */
};

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
static bool resv_take(struct vm_area_struct *vma, unsigned long addr)
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
static bool resv_give(struct vm_area_struct *vma, unsigned long addr)
{
	struct resv_map *resv = vma->vm_resv_map;
	unsigned long i = resv_index(vma, addr), bit = 1ul << (i % 64);
	spin_lock(&resv->lock);
	bool was = resv->reserved[i / 64] & bit;
	resv->reserved[i / 64] |= bit;
	spin_unlock(&resv->lock);
	return !was;
}

static bool resv_test(struct vm_area_struct *vma, unsigned long addr)
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

void hugetlb_unreserve_pages(struct resv_map *resv)
{
	if (resv->reserved)
		hugetlb_acct_memory(resv->h, -(long)resv->nr);
	resv_map_put(resv);
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

/* A private MAP_HUGETLB mapping without a file: Linux's
 * hugetlbfs_file_mmap for it, with the part of mmap_region it needs:
 * the reservations, before the VMA; the mapping a MAP_FIXED replaces goes
 * first (Linux closes it before call_mmap), so its reservations can serve
 * the new one. */
unsigned long hugetlb_anon_mmap(struct mm_struct *mm, struct hstate *h, unsigned long addr,
				unsigned long len, unsigned long vm_flags, unsigned long flags,
				bool *populate)
{
	int err;
	vm_flags |= VM_HUGETLB;
	if ((flags & MAP_FIXED) && (err = munmap_range(mm, addr, addr + len)))
		return (unsigned long)err;
	struct resv_map *resv = hugetlb_reserve_pages(h, addr, len, vm_flags, &err);
	if (!resv)
		return (unsigned long)err;
	addr = mmap_region(mm, addr, len, vm_flags, false, NULL, 0);
	if (IS_ERR_VALUE(addr)) {
		hugetlb_unreserve_pages(resv);
		return addr;
	}
	/* mmap_region: a hugetlb VMA is never VM_LOCKED (mlock_fixup
	 * skips it too), though MAP_LOCKED still populates it. */
	struct vm_area_struct *vma = find_vma(mm, addr);
	vma->vm_resv_map = resv; /* a hugetlb VMA never merges */
	vma_set_flags(vma, vma->vm_flags & ~VM_LOCKED_MASK);
	if ((flags & (MAP_POPULATE | MAP_NONBLOCK)) == MAP_POPULATE || (vm_flags & VM_LOCKED))
		*populate = true;
	return addr;
}

/* --- page tables ------------------------------------------------------------ */

/* The entry that maps (or will map) the huge page at addr: a PMD entry for
 * 2 MiB, a PUD entry for 1 GiB (Linux's huge_pte_offset / huge_pte_alloc),
 * as a pointer to the 64-bit word; NULL when a table above it is missing
 * (and, for huge_pte_alloc, could not be allocated). */
static u64 *huge_pte_offset(struct mm_struct *mm, unsigned long addr, const struct hstate *h)
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

static u64 *huge_pte_alloc(struct mm_struct *mm, unsigned long addr, const struct hstate *h)
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
static void set_huge_pte_at(unsigned long addr, u64 *ptep, u64 entry)
{
	clear_page_check_coherent(addr);
	WRITE_ONCE(*ptep, entry);
}


/* --- the fault ----------------------------------------------------------------- */

/* Linux's hugetlb_fault_mutex_table: the faults of one huge page of one
 * mm, and its zap, one at a time. Without it two threads touching a new
 * page together would both allocate, and the second, finding the page's
 * reservation taken by the first, could get SIGBUS from a pool sized
 * exactly for the mapping; and a MADV_DONTNEED beside a fault could give
 * a reservation back twice. A sleeping lock: the fault clears the page
 * (up to 1 GiB, with cond_resched) under it. */
#define HUGETLB_FAULT_MUTEXES 64
static struct mutex hugetlb_fault_mutex_table[HUGETLB_FAULT_MUTEXES];

static struct mutex *hugetlb_fault_mutex(struct mm_struct *mm, unsigned long haddr)
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
static bool page_in_file(const struct page *page)
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
	unsigned long size = ((unsigned long)READ_ONCE(inode->i_size) + huge_page_size(h) - 1) >> (PAGE_SHIFT + h->order);
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

/* Linux's __unmap_hugepage_range with its ref_page: only entries that map
 * ref_page when it is not NULL. */
static void unmap_hugepage_range_ref(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
				     unsigned long end, struct page *ref_page);

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

/* --- zap, mprotect ---------------------------------------------------------------- */

void __unmap_hugepage_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			    unsigned long end)
{
	unmap_hugepage_range_ref(tlb, vma, start, end, NULL);
}

static void unmap_hugepage_range_ref(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
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
