/* Huge pages in tmpfs files' page cache (Linux 6.1's "huge tmpfs",
 * mm/shmem.c: shmem_is_huge, shmem_alloc_hugefolio, shmem_add_to_page_cache
 * of a PMD-sized folio, and truncate_inode_partial_folio's split).
 *
 * When shmem_is_huge says so (the instance's huge= option, overridden by
 * shmem_enabled's deny and force, and the VMA's MADV_HUGEPAGE /
 * MADV_NOHUGEPAGE), a tmpfs file's missing page comes as part of one
 * order-9 page covering the 512 indices aligned around it, if none of
 * them holds a page yet and the instance's size= has room for all 512;
 * otherwise it is a 4 KiB page, as Linux falls back.
 *
 * Invariants: the head carries PG_shmem_thp, each other page
 * PG_shmem_tail with private its distance to the head (compound_head).
 * Every page has its own mapping, index and _mapcount; every reference
 * (each index's in the page cache, each PTE's, each lookup's) is the
 * head's. A fault whose 2 MiB lies inside the VMA, with the file's
 * offsets aligned as its addresses (shmem_get_unmapped_area places new
 * mappings so), maps the huge page with one PMD (Linux's do_set_pmd): any
 * fault of a shared mapping, a read of a private one (read-only: its
 * write splits the PMD and copies one page). No PTE table is under it
 * and none deposited (x86 needs none: a split of such a PMD just clears
 * it, and the next touch faults its pages in again, by PMD or by PTEs). The PMD
 * mappings are counted in the head's second page (shmem_thp_pmd_mapcount_ptr),
 * each with a reference on the head. Elsewhere its pages are mapped by
 * 4 KiB PTEs, each counted in its own _mapcount.
 *
 * A truncate or hole punch that ends inside a huge page splits it first
 * (filemap_split_folio), after unmapping it from every shared mapping, so
 * that the pages outside the range stay and those inside go; when it
 * cannot (a reference held: a pin, a racing fault), the range inside it
 * is zeroed and all its pages stay (Linux 6.1's truncate_inode_partial_folio).
 *
 * Locking: as mm/filemap.h: additions and the split under the xarray's
 * xa_lock; truncate and hole punch hold i_rwsem for writing. */
#include "mm/swap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "fs/fs.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/mm_types.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/truncate.h"
#include "mm/rmap.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "kernel/unistd.h"

int shmem_huge = SHMEM_HUGE_NEVER;
static long shmem_thps;

unsigned long nr_shmem_thps(void)
{
	long n = __atomic_load_n(&shmem_thps, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

void shmem_huge_set(int huge)
{
	WRITE_ONCE(shmem_huge, huge);
	/* Linux's shmem_enabled_store: the internal instance (memfd, shared
	 * anonymous memory, SysV shm) takes the value as its huge=, unless
	 * deny or force. */
	struct super_block *sb = shmem_internal_sb();
	if (huge > SHMEM_HUGE_DENY && sb)
		WRITE_ONCE(SHMEM_SB(sb)->huge, (unsigned char)huge);
}

bool shmem_is_huge(struct vm_area_struct *vma, struct inode *inode, unsigned long index, bool force)
{
	if (!S_ISREG(inode->i_mode))
		return false;
	if (vma && ((vma->vm_flags & VM_NOHUGEPAGE) || mm_flag_test(vma->vm_mm, MMF_DISABLE_THP)))
		return false;
	/* Linux 6.1 (Zach O'Keefe's "mm/khugepaged: add flag to ignore THP
	 * sysfs enabled"): force (MADV_COLLAPSE) overrides even deny. */
	int global = READ_ONCE(shmem_huge);
	if (force || global == SHMEM_HUGE_FORCE)
		return true;
	if (global == SHMEM_HUGE_DENY)
		return false;
	switch (READ_ONCE(SHMEM_SB(inode->i_sb)->huge)) {
	case SHMEM_HUGE_ALWAYS:
		return true;
	case SHMEM_HUGE_WITHIN_SIZE: {
		/* The whole huge page the index is in lies inside i_size. */
		unsigned long end = (index + HPAGE_PMD_NR) & ~(HPAGE_PMD_NR - 1);
		unsigned long size = ((unsigned long)READ_ONCE(inode->i_size) + PAGE_SIZE - 1) >> PAGE_SHIFT;
		if (size >= end)
			return true;
		/* MADV_HUGEPAGE still asks for one */
		__attribute__((fallthrough));
	}
	case SHMEM_HUGE_ADVISE:
		return vma && (vma->vm_flags & VM_HUGEPAGE);
	default:
		return false;
	}
}

void shmem_thp_prep_free(struct page *head)
{
	page_clear_flag(head, PG_shmem_thp);
	*shmem_thp_pmd_mapcount_ptr(head) = 0;
	*shmem_thp_nr_pages_mapped_ptr(head) = 0;
	*shmem_thp_nr_pages_mapped_ptr(head) = 0;
	for (unsigned long i = 1; i < HPAGE_PMD_NR; i++) {
		page_clear_flag(head + i, PG_shmem_tail);
		head[i].private = 0;
	}
	__atomic_sub_fetch(&shmem_thps, 1, __ATOMIC_RELAXED);
}

void shmem_thp_prep(struct page *head)
{
	page_set_flag(head, PG_shmem_thp);
	*shmem_thp_pmd_mapcount_ptr(head) = 0;
	*shmem_thp_nr_pages_mapped_ptr(head) = 0;
	for (unsigned long i = 1; i < HPAGE_PMD_NR; i++) {
		head[i].private = i;
		page_set_flag(head + i, PG_shmem_tail);
	}
	__atomic_add_fetch(&shmem_thps, 1, __ATOMIC_RELAXED);
}

struct page *shmem_alloc_huge(struct inode *inode, unsigned long index)
{
	struct address_space *mapping = inode->i_mapping;
	unsigned long hindex = index & ~(HPAGE_PMD_NR - 1);
	/* Linux's shmem_alloc_hugefolio: not over a page already there. */
	if (filemap_next_index(mapping, hindex, hindex + HPAGE_PMD_NR, true) < hindex + HPAGE_PMD_NR)
		return NULL;
	if (shmem_inode_acct_block(inode, (long)HPAGE_PMD_NR))
		return NULL; /* size= has no room for 512: a small page may fit */
	struct page *head = shmem_alloc_policy_folio(&inode->i_policy, hindex, inode->i_ino + hindex,
						     GFP_TRANSHUGE_LIGHT | __GFP_ZERO, HPAGE_PMD_ORDER);
	if (!head) {
		shmem_inode_unacct_blocks(inode, (long)HPAGE_PMD_NR);
		count_vm_event(THP_FILE_FALLBACK);
		return NULL;
	}
	shmem_thp_prep(head);
	if (filemap_add_folio_range(mapping, head, hindex, HPAGE_PMD_NR, GFP_KERNEL)) {
		/* A page came meanwhile (a racing fault), or no memory for the
		 * index: the caller makes a small one. */
		put_page(head);
		shmem_inode_unacct_blocks(inode, (long)HPAGE_PMD_NR);
		return NULL;
	}
	count_vm_event(THP_FILE_ALLOC);
	folio_add_lru(head); /* one LRU entry for the 512 pages */
	return head; /* with the allocation's reference, the caller's */
}

/* The huge page of inode's cache holding index, without a reference
 * (i_rwsem held for writing: nothing takes it out meanwhile), or NULL. */
static struct page *huge_head_at(struct address_space *mapping, unsigned long index)
{
	struct page *page = filemap_get_folio(mapping, index);
	if (!page)
		return NULL;
	struct page *head = compound_head(page);
	put_page(page);
	return page_test_flag(head, PG_shmem_thp) ? head : NULL;
}

/* Zeroes the pages [from, to) of a huge page that could not be split. */
static void zero_huge_range(struct page *head, unsigned long from, unsigned long to)
{
	unsigned long first = head->index;
	for (unsigned long i = from; i < to; i++)
		memset(page_address(head + (i - first)), 0, PAGE_SIZE);
}

/* One edge of the range: a huge page across index is split, or, failing
 * that, keeps its pages and has [from, to) zeroed; returns whether it
 * stays whole. */
static bool split_or_zero(struct inode *inode, unsigned long index, unsigned long from, unsigned long to)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *head = huge_head_at(mapping, index);
	if (!head || head->index == index)
		return false; /* no huge page, or one that starts here: not cut */
	/* Linux's split_huge_page unmaps the folio first (try_to_unmap):
	 * every shared mapping of it faults its pages in again after. */
	unmap_mapping_pages(mapping, head->index, HPAGE_PMD_NR, false);
	if (!filemap_split_folio(mapping, head, HPAGE_PMD_ORDER))
		return false;
	zero_huge_range(head, max(from, head->index), min(to, head->index + HPAGE_PMD_NR));
	return true;
}

void shmem_huge_trim_range(struct inode *inode, unsigned long *start, unsigned long *end)
{
	unsigned long s = *start, e = *end;
	if (s >= e)
		return;
	if (s & (HPAGE_PMD_NR - 1) && split_or_zero(inode, s, s, e))
		*start = (s | (HPAGE_PMD_NR - 1)) + 1;
	if (e != ~0ul && e & (HPAGE_PMD_NR - 1) && *start < e && split_or_zero(inode, e, *start, e))
		*end = e & ~(HPAGE_PMD_NR - 1);
}

/* --- where a mapping goes (Linux 6.1's shmem_get_unmapped_area) ------------- */

unsigned long shmem_get_unmapped_area(struct mm_struct *mm, struct file *file, unsigned long uaddr,
				      unsigned long len, unsigned long pgoff, unsigned long flags)
{
	if (len > TASK_SIZE)
		return -ENOMEM;
	unsigned long addr = arch_get_unmapped_area(mm, uaddr, len, flags);
	if (IS_ERR_VALUE(addr) || (addr & ~PAGE_MASK) || addr > TASK_SIZE - len)
		return addr;
	int global = READ_ONCE(shmem_huge);
	if (global == SHMEM_HUGE_DENY || len < PMD_SIZE || (flags & MAP_FIXED))
		return addr;
	/* Linux: "Our priority is to support MAP_SHARED mapped hugely; and
	 * support MAP_PRIVATE mapped hugely too, until it is COWed. But if
	 * caller specified an address hint and we allocated area there
	 * successfully, respect that as before." */
	if (uaddr == addr)
		return addr;
	if (global != SHMEM_HUGE_FORCE) {
		/* The file's instance, or the internal one for what will be
		 * shared anonymous memory. Only huge=never rules it out here:
		 * advise and within_size may still give huge pages later. */
		struct super_block *sb = file ? file->f_inode->i_sb : shmem_internal_sb();
		if (!sb || READ_ONCE(SHMEM_SB(sb)->huge) == SHMEM_HUGE_NEVER)
			return addr;
	}
	unsigned long offset = (pgoff << PAGE_SHIFT) & (PMD_SIZE - 1);
	/* An offset that leaves no whole huge page inside, or the address
	 * aligned as the offset already. */
	if (offset && offset + len < 2 * PMD_SIZE)
		return addr;
	if ((addr & (PMD_SIZE - 1)) == offset)
		return addr;
	/* A search for len + 2 MiB - 4 KiB holds an address of the right
	 * residue: the first one at or above the padded gap's start. */
	unsigned long inflated_len = len + PMD_SIZE - PAGE_SIZE;
	if (inflated_len > TASK_SIZE || inflated_len < len)
		return addr;
	unsigned long inflated_addr = arch_get_unmapped_area(mm, uaddr, inflated_len, flags);
	if (IS_ERR_VALUE(inflated_addr) || (inflated_addr & ~PAGE_MASK))
		return addr;
	unsigned long inflated_offset = inflated_addr & (PMD_SIZE - 1);
	inflated_addr += offset - inflated_offset;
	if (inflated_offset > offset)
		inflated_addr += PMD_SIZE;
	if (inflated_addr > TASK_SIZE - len)
		return addr;
	return inflated_addr;
}

/* --- mapped by a PMD (Linux's finish_fault -> do_set_pmd) -------------------- */

/* Huge pages of tmpfs mapped by at least one PMD (ShmemPmdMapped). */
static long shmem_pmd_mapped_thps;

unsigned long nr_shmem_pmdmapped(void)
{
	long n = __atomic_load_n(&shmem_pmd_mapped_thps, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

bool shmem_vma_eligible(struct vm_area_struct *vma)
{
	if ((vma->vm_flags & VM_NOHUGEPAGE) || mm_flag_test(vma->vm_mm, MMF_DISABLE_THP))
		return false;
	/* Linux's transhuge_vma_suitable at the last 2 MiB: the file's
	 * offsets aligned as the addresses, and 2 MiB inside the VMA. */
	unsigned long haddr = (vma->vm_end - PMD_SIZE) & PMD_MASK;
	if (((vma->vm_start >> PAGE_SHIFT) - vma->vm_pgoff) & (HPAGE_PMD_NR - 1))
		return false;
	if (vma->vm_end < PMD_SIZE || haddr < vma->vm_start || haddr + PMD_SIZE > vma->vm_end)
		return false;
	struct inode *inode = vma->vm_file ? vma->vm_file->f_inode : vma->vm_shm->mapping->host;
	return shmem_is_huge(vma, inode, vma->vm_pgoff, false);
}

bool shmem_huge_vma_suitable(struct vm_area_struct *vma, unsigned long haddr, unsigned int flags)
{
	struct shmem_object *obj = vma->vm_shm;
	if (obj) {
		if (!obj->mapping || !(vma->vm_flags & VM_SHARED))
			return false;
	} else if (!vma->vm_file || !shmem_file(vma->vm_file) || (flags & FAULT_FLAG_WRITE)) {
		return false; /* not tmpfs, or a private mapping's write */
	}
	/* Linux's transhuge_vma_suitable: the 2 MiB inside the VMA, and the
	 * file's offsets aligned as the addresses are. */
	if (haddr < vma->vm_start || haddr + PMD_SIZE > vma->vm_end)
		return false;
	return !(linear_page_index(vma, haddr) & (HPAGE_PMD_NR - 1));
}

vm_fault_t shmem_huge_pmd_fault(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address, unsigned int flags)
{
	unsigned long haddr = address & PMD_MASK;
	vm_fault_t ret = 0;
	struct page *page = shmem_get_page(vma, address, &ret);
	if (!page)
		return ret;
	struct page *head = compound_head(page);
	if (!page_test_flag(head, PG_shmem_thp) || head->index != linear_page_index(vma, haddr)) {
		put_page(page); /* a small page: the PTE path finds it again */
		return VM_FAULT_FALLBACK;
	}
	if (shmem_map_huge_pmd(vma, pmd, haddr, head, flags))
		count_vm_event(THP_FILE_MAPPED);
	return 0;
}

bool shmem_map_huge_pmd(struct vm_area_struct *vma, pmd_t *pmd, unsigned long haddr, struct page *head,
			unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t entry = __pmd(page_to_phys(head) | vma->vm_page_prot | _PAGE_PSE | _PAGE_ACCESSED |
			    (flags & FAULT_FLAG_WRITE ? _PAGE_DIRTY : 0));
	/* A private mapping's read maps the cache's page read-only, as its
	 * PTEs (mmlab's private vm_page_prot keeps the write bit for the
	 * VMA's anonymous pages; Linux's is PAGE_COPY's, without it). */
	if (!vma->vm_shm)
		entry = __pmd(pmd_val(entry) & ~_PAGE_RW);
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	/* As a PTE's (mm/truncate.h): mapped only while the page is still
	 * the file's there, below i_size, checked under the lock. */
	if (!pmd_none(pmdp_get(pmd)) || !shmem_page_current(vma, haddr, head)) {
		spin_unlock(ptl);
		put_page(head);
		return false; /* their result stands; the access faults again if it must */
	}
	/* The caller's reference (the head's) is the PMD's. */
	if (__atomic_add_fetch(shmem_thp_pmd_mapcount_ptr(head), 1, __ATOMIC_RELAXED) == 1) {
		__atomic_add_fetch(&shmem_pmd_mapped_thps, 1, __ATOMIC_RELAXED);
		shmem_file_rmap_pmd(head, true);
	}
	add_mm_rss_counter(mm, MM_SHMEMPAGES, (long)HPAGE_PMD_NR);
	set_pmd_at(mm, haddr, pmd, entry);
	spin_unlock(ptl);
	return true;
}

void shmem_huge_pmd_cow_split(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address)
{
	if (vma->vm_shm || !vma->vm_file)
		return;
	pmd_t val = pmdp_get(pmd);
	if (!pmd_trans_huge(val) || !pfn_valid(pmd_pfn(val)) || !page_test_flag(pfn_to_page(pmd_pfn(val)), PG_shmem_thp))
		return;
	/* Linux's __split_huge_pmd_locked for a file VMA: the PMD goes, no
	 * table in its place (mm/huge_memory.c); the write then faults as at
	 * a none PTE: do_cow_fault's copy of its one page. */
	split_huge_pmd(vma->vm_mm, pmd, address);
}

void shmem_pmd_unmapped(struct mm_struct *mm, struct page *head)
{
	if (__atomic_sub_fetch(shmem_thp_pmd_mapcount_ptr(head), 1, __ATOMIC_RELAXED) == 0) {
		__atomic_sub_fetch(&shmem_pmd_mapped_thps, 1, __ATOMIC_RELAXED);
		shmem_file_rmap_pmd(head, false);
	}
	add_mm_counter(mm, MM_SHMEMPAGES, -(long)HPAGE_PMD_NR);
}
