/* The collapse of shmem and tmpfs memory into a huge page of the page
 * cache, for khugepaged and MADV_COLLAPSE (Linux 6.1's mm/khugepaged.c:
 * hpage_collapse_scan_file, collapse_file, retract_page_tables,
 * collapse_pte_mapped_thp, set_huge_pmd, khugepaged_add_pte_mapped_thp).
 *
 * A collapse works on the file, not on one process's page tables: the 512
 * page-cache slots of an aligned range of the file get one huge page
 * (mm/shmem_huge.c's kind: PG_shmem_thp, one entry per index), holding a
 * copy of each small page and zeroes where there was none; then every
 * mapping of the range that only mapped the old pages loses its PTE table,
 * so that its next fault maps the huge page with a PMD.
 *
 * Where mmlab differs from Linux:
 *   - mmlab has no page lock. Linux puts the new huge page, locked and not
 *     up to date, into every slot and copies the pages afterwards while
 *     lookups wait on the lock. Here the checks of every slot, the copy and
 *     the replacement happen in one hold of the xarray's lock, which every
 *     lookup takes (mm/filemap.c): no lookup sees half a collapse, and no
 *     page can gain a mapping between its check and its copy. The file's
 *     i_rwsem, held for writing throughout, keeps write(2), truncate, hole
 *     punches and fallocate out. The pages are unmapped beforehand (Linux's
 *     try_to_unmap, here unmap_mapping_pages over the range: private
 *     mappings' own copies stay).
 *   - With the checks done before anything changes, a failure (a page
 *     pinned, mapped again meanwhile, or off the LRU; size= full; no
 *     memory for the xarray's nodes) leaves the file as it was without
 *     Linux's rollback walk; only the holes' charge is given back.
 *   - The huge page is allocated by the file's shared policy (the huge
 *     fault's shmem_alloc_policy_folio, with the policy's home node), where
 *     Linux 6.1 takes the node holding most of the old pages
 *     (hpage_collapse_find_target_node): the pages were placed by that
 *     policy, so both agree unless it changed since.
 *   - No swap: every slot holds a page or nothing. Once swap entries exist
 *     in shmem's xarray, a value entry counts against max_ptes_swap in the
 *     scan and is read in by collapse_file (Linux's shmem_get_folio with
 *     SGP_NOALLOC) before the slots are locked.
 *   - In pte_reclaim=refcount mode the unmap frees each emptied PTE table
 *     itself (its count reaches 0: mm/pte_ref.c), so retract_page_tables
 *     finds none and has nothing to do; in scan and off modes it frees the
 *     emptied tables. Either way a table maps nothing when it goes.
 *   - MADV_COLLAPSE retracts the tables of every mapping, as Linux 6.6
 *     does, not only the caller's (6.1 leaves the others to khugepaged).
 *   - MADV_COLLAPSE maps the huge page by a PMD in the caller's mapping
 *     also when the caller's PMD is none, and succeeds without mapping it
 *     when the caller has no PMD table there at all (Linux 6.1 reports
 *     SCAN_PMD_NONE or SCAN_PMD_NULL there: EINVAL, with the file
 *     collapsed): in refcount mode the unmap has just freed the caller's
 *     table, and the next fault maps the PMD either way.
 *
 * Locking: i_rwsem (write) -> i_mmap_rwsem (write) -> mmap_write_trylock
 * -> the PMD and PTE locks; xa_lock alone, inside i_rwsem. */
#include "mm/khugepaged_internal.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/xarray.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/interval_tree.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pt_reclaim.h"
#include "mm/rmap.h"
#include "mm/secretmem.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/slab.h"
#include "mm/swap.h"
#include "mm/truncate.h"
#include "mm/vmstat.h"

struct inode *khugepaged_shmem_inode(struct vm_area_struct *vma)
{
	struct address_space *mapping;
	/* A System V segment's VMA: Linux's vm_file there is the segment's
	 * own file (shm_file_operations), which shmem_file() refuses. */
	if (vma->vm_shm && vma->vm_shm->attach_ops)
		return NULL;
	if (vma->vm_shm)
		mapping = vma->vm_shm->mapping;
	else if (vma->vm_file && shmem_file(vma->vm_file))
		mapping = vma->vm_file->f_mapping;
	else
		return NULL;
	/* A secretmem file is not tmpfs (Linux's secretmem_fops), nor a
	 * SHM_HUGETLB segment's hugetlbfs file (VM_HUGETLB, refused before). */
	if (!mapping || secretmem_mapping(mapping) || (vma->vm_flags & VM_HUGETLB))
		return NULL;
	return mapping->host;
}

struct file *khugepaged_vma_file(struct vm_area_struct *vma)
{
	if (!khugepaged_shmem_inode(vma))
		return NULL;
	return get_file(vma->vm_shm ? vma->vm_shm->file : vma->vm_file);
}

/* A small page of the range as the scan and the collapse want it: not
 * part of a huge page, on the LRU (not isolated by reclaim or migration),
 * held by nothing but the page cache and its mappings. */
static enum scan_result file_page_census(struct page *page, unsigned long start, struct collapse_control *cc)
{
	struct page *head = compound_head(page);
	if (page_test_flag(head, PG_shmem_thp))
		/* Linux's "Maybe PMD-mapped": the range is one already. */
		return head->index == start && head == page ? SCAN_PTE_MAPPED_HUGEPAGE : SCAN_PAGE_COMPOUND;
	if (head != page || PageHead(page))
		return SCAN_PAGE_COMPOUND;
	int node = page_to_nid(page);
	cc->node_load[node]++;
	__node_set(node, &cc->alloc_nmask);
	if (!page_test_flag(page, PG_lru))
		return SCAN_PAGE_LRU;
	if (page_ref_count(page) != 1 + page_mapcount(page))
		return SCAN_PAGE_COUNT;
	return SCAN_SUCCEED;
}

/* --- the page cache: collapse_file ---------------------------------------- */

/* Under xa_lock: every slot of [start, start + 512) checked again (the
 * pages unmapped now: the page cache's reference alone), old[] filled
 * (NULL for a hole), *nr_none the holes. */
static enum scan_result collapse_file_check(struct xa_state *xas, struct address_space *mapping,
					    unsigned long start, struct page **old, int *nr_none,
					    struct collapse_control *cc)
{
	*nr_none = 0;
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		xas_set(xas, start + i);
		struct page *page = xas_load(xas);
		old[i] = page;
		if (!page) {
			(*nr_none)++;
			continue;
		}
		/* A swap entry (none yet: see the top of this file) would be
		 * read in before the lock; until then the range stays. */
		if (xa_is_value(page))
			return SCAN_FAIL;
		enum scan_result r = file_page_census(page, start, cc);
		if (r != SCAN_SUCCEED)
			return r;
		if (page->mapping != mapping)
			return SCAN_TRUNCATED;
		/* Linux's page_ref_freeze(page, 3) after try_to_unmap: mapped
		 * again since, or pinned. */
		if (page_mapcount(page) || page_ref_count(page) != 1)
			return SCAN_PAGE_COUNT;
	}
	/* Linux's SCAN_TRUNCATED: the range was emptied meanwhile. */
	return *nr_none == HPAGE_PMD_NR ? SCAN_TRUNCATED : SCAN_SUCCEED;
}

/* Under xa_lock, after collapse_file_check: the huge page gets each old
 * page's contents (zeroes for a hole) and takes every slot, the holes
 * first (they may need xarray nodes: on -ENOMEM the ones stored go again
 * and the caller retries after xas_nomem). */
static bool collapse_file_replace(struct xa_state *xas, struct address_space *mapping, unsigned long start,
				  struct page **old, struct page *hpage)
{
	unsigned long i;
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		if (old[i])
			continue;
		xas_set(xas, start + i);
		xas_store(xas, hpage + i);
		if (xas_error(xas))
			break;
	}
	if (i < HPAGE_PMD_NR) {
		int err = xas_error(xas);
		for (unsigned long j = 0; j < i; j++) {
			if (old[j])
				continue;
			xas_set(xas, start + j);
			xas_store(xas, NULL);
		}
		xas_set(xas, start + i);
		xas_set_err(xas, err);
		return false;
	}
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		void *dst = page_address(hpage + i);
		hpage[i].mapping = mapping;
		hpage[i].index = start + i;
		if (!old[i]) {
			memset(dst, 0, PAGE_SIZE);
			continue;
		}
		memcpy(dst, page_address(old[i]), PAGE_SIZE);
		xas_set(xas, start + i);
		xas_store(xas, hpage + i); /* replacing an entry allocates nothing */
		/* A fault that found it before sees it gone (shmem_page_current). */
		WRITE_ONCE(old[i]->mapping, NULL);
	}
	return true;
}

/* Linux's retract_page_tables, below. */
static enum scan_result retract_page_tables(struct address_space *mapping, unsigned long pgoff,
					    struct mm_struct *target_mm, unsigned long target_addr,
					    struct page *hpage, struct collapse_control *cc);

/* Linux's collapse_file for shmem. */
static enum scan_result collapse_file(struct mm_struct *mm, unsigned long addr, struct file *file,
				      unsigned long start, struct collapse_control *cc)
{
	struct address_space *mapping = file->f_mapping;
	struct inode *inode = mapping->host;
	enum scan_result result;
	int nr_none = 0, charged = 0;
	struct page **old = kmalloc(HPAGE_PMD_NR * sizeof(*old), GFP_KERNEL);
	if (!old)
		return SCAN_FAIL;
	/* Linux's alloc_charge_hpage; see the top of this file for the node. */
	gfp_t gfp = (!cc->is_khugepaged || READ_ONCE(khugepaged_defrag)) ? GFP_TRANSHUGE : GFP_TRANSHUGE_LIGHT;
	struct page *hpage = shmem_alloc_policy_folio(&inode->i_policy, start, inode->i_ino + start, gfp,
						      HPAGE_PMD_ORDER);
	if (!hpage) {
		count_vm_event(THP_COLLAPSE_ALLOC_FAILED);
		kfree(old);
		return SCAN_ALLOC_HUGE_PAGE_FAIL;
	}
	count_vm_event(THP_COLLAPSE_ALLOC);

	down_write(&inode->i_rwsem);
	/* Linux's try_to_unmap of each page (TTU_IGNORE_MLOCK): every shared
	 * mapping of the range, in every process; private copies stay. */
	unmap_mapping_pages(mapping, start, HPAGE_PMD_NR, false);
	/* The holes take size= blocks (Linux's shmem_charge per hole): the
	 * count before the lock, only ever too high (a fault may fill a hole
	 * meanwhile; nothing makes one under i_rwsem), the excess given back. */
	for (unsigned long idx = start;
	     (idx = filemap_next_index(mapping, idx, start + HPAGE_PMD_NR, false)) < start + HPAGE_PMD_NR; idx++)
		charged++;
	if (charged && shmem_charge(inode, charged)) {
		charged = 0;
		result = SCAN_FAIL;
		goto out_unlock;
	}
	shmem_thp_prep(hpage);
	XA_STATE(xas, &mapping->i_pages, start);
	do {
		xas_lock(&xas);
		memset(cc->node_load, 0, sizeof(cc->node_load));
		result = collapse_file_check(&xas, mapping, start, old, &nr_none, cc);
		if (result == SCAN_SUCCEED && nr_none > charged)
			result = SCAN_FAIL; /* cannot happen: holes only fill */
		if (result == SCAN_SUCCEED && collapse_file_replace(&xas, mapping, start, old, hpage)) {
			/* The page cache's references: one per index, the head's;
			 * plus the allocation's, ours until the end. */
			set_page_count(hpage, HPAGE_PMD_NR + 1);
			mapping->nrpages += (unsigned long)nr_none;
		} else if (result == SCAN_SUCCEED) {
			result = SCAN_FAIL; /* out of xarray nodes (xas_error): below */
		}
		xas_unlock(&xas);
		/* Out of xarray nodes: one allocated, and again; otherwise
		 * xas_nomem frees a node left over from an earlier round. */
	} while (xas_nomem(&xas, GFP_KERNEL));
	if (result != SCAN_SUCCEED)
		goto out_unlock;

	/* The holes now hold pages: Cached and Shmem count them (charged
	 * above); the old pages go with the page cache's reference. */
	if (charged > nr_none)
		shmem_uncharge(inode, charged - nr_none);
	charged = 0;
	filemap_account_file_pages(nr_none);
	folio_add_lru(hpage); /* Linux's lru_cache_add: one entry for the 512 */
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
		if (old[i])
			put_page(old[i]);
	result = retract_page_tables(mapping, start, mm, addr, hpage, cc);
	up_write(&inode->i_rwsem);
	put_page(hpage); /* the allocation's */
	kfree(old);
	return result;

out_unlock:
	up_write(&inode->i_rwsem);
	if (charged)
		shmem_uncharge(inode, charged);
	/* Never visible: its marks off, freed as the order-9 block it is. */
	put_page(hpage);
	kfree(old);
	return result;
}

enum scan_result hpage_collapse_scan_file(struct mm_struct *mm, unsigned long addr, struct file *file,
					  unsigned long start, struct collapse_control *cc)
{
	struct address_space *mapping = file->f_mapping;
	XA_STATE(xas, &mapping->i_pages, start);
	enum scan_result result = SCAN_SUCCEED;
	int present = 0, swap = 0;
	memset(cc->node_load, 0, sizeof(cc->node_load));
	cc->alloc_nmask = NODE_MASK_NONE;
	/* Linux walks under rcu_read_lock; mmlab's lookups take the lock. */
	xas_lock(&xas);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		xas_set(&xas, start + i);
		struct page *page = xas_load(&xas);
		if (!page)
			continue;
		if (xa_is_value(page)) { /* a swapped-out page (Linux's max_ptes_swap) */
			if (cc->is_khugepaged && ++swap > (int)READ_ONCE(khugepaged_max_ptes_swap)) {
				count_vm_event(THP_SCAN_EXCEED_SWAP_PTE);
				result = SCAN_EXCEED_SWAP_PTE;
				break;
			}
			continue;
		}
		result = file_page_census(page, start, cc);
		if (result != SCAN_SUCCEED)
			break;
		/* Linux does not look at the accessed bits here: "nobody would
		 * transfer pte_young() to PageReferenced() for us". */
		present++;
	}
	xas_unlock(&xas);
	if (result != SCAN_SUCCEED)
		return result;
	if (cc->is_khugepaged && present < (int)(HPAGE_PMD_NR - READ_ONCE(khugepaged_max_ptes_none))) {
		count_vm_event(THP_SCAN_EXCEED_NONE_PTE);
		return SCAN_EXCEED_NONE_PTE;
	}
	return collapse_file(mm, addr, file, start, cc);
}

/* --- the page tables: retract_page_tables, collapse_pte_mapped_thp --------- */

/* Linux's set_huge_pmd: the huge page mapped by the PMD at addr (none). */
static enum scan_result set_huge_pmd(struct vm_area_struct *vma, unsigned long addr, pmd_t *pmd,
				     struct page *hpage)
{
	get_page(hpage); /* the PMD's */
	return shmem_map_huge_pmd(vma, pmd, addr, hpage, 0) ? SCAN_SUCCEED : SCAN_FAIL;
}

/* Linux's collapse_and_free_pmd, under the mmap write lock with the PTE
 * table's entries all none: the PMD cleared, the TLB flushed (a lockless
 * get_user_pages holds interrupts off across its read of a PTE, so after
 * the flush no one is in the table but RCU readers), the table out of
 * VmPTE and freed after a grace period. A refcount-mode table's count
 * goes with it, as after an anonymous collapse (pagetable_free zeroes
 * it): under the write lock no walker holds a reference. */
static void collapse_and_free_pmd(struct mm_struct *mm, unsigned long addr, pmd_t *pmd)
{
	spinlock_t *pml = pmd_lockptr(mm, pmd);
	spin_lock(pml);
	pmd_t val = pmdp_get_and_clear(mm, addr, pmd);
	spin_unlock(pml);
	flush_tlb_mm_range(mm, addr, addr + PMD_SIZE);
	mm_account_pgtable(mm, -1, true);
	pagetable_free_deferred(pfn_to_page(pmd_pfn(val)));
}

/* Under the mmap write lock: the entries of the PTE table under pmd that
 * map pages of hpage (each hpage + i at addr + i pages, as Linux's step
 * 1) lose their mappings, and the table goes. SCAN_FAIL when an entry
 * maps anything else (a private copy, another page). */
static enum scan_result drop_table_of_thp(struct mm_struct *mm, unsigned long haddr, pmd_t *pmd,
					  struct page *hpage)
{
	pmd_t val = pmdp_get(pmd);
	struct page *table = pfn_to_page(pmd_pfn(val));
	pte_t *pte = pmd_page_vaddr(val);
	spinlock_t *ptl = ptlock_ptr(table);
	enum scan_result result = SCAN_SUCCEED;
	spin_lock(ptl);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		pte_t e = ptep_get(pte + i);
		if (pte_none(e))
			continue;
		if (!pte_present(e)) {
			result = SCAN_PTE_NON_PRESENT;
			break;
		}
		if (pte_pfn(e) != page_to_pfn(hpage + i)) {
			result = SCAN_FAIL;
			break;
		}
	}
	if (result == SCAN_SUCCEED) {
		/* Linux's steps 2 and 3: each mapping's rmap, RSS and reference. */
		for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
			if (pte_none(ptep_get(pte + i)))
				continue;
			pte_clear(mm, haddr + i * PAGE_SIZE, pte + i);
			shmem_page_unmapped(mm, hpage + i);
			put_page(hpage + i); /* the head's; the page cache holds 512 more */
		}
	}
	spin_unlock(ptl);
	if (result == SCAN_SUCCEED)
		collapse_and_free_pmd(mm, haddr, pmd);
	return result;
}

static enum scan_result retract_page_tables(struct address_space *mapping, unsigned long pgoff,
					    struct mm_struct *target_mm, unsigned long target_addr,
					    struct page *hpage, struct collapse_control *cc)
{
	struct vm_area_struct *vma;
	enum scan_result target_result = SCAN_FAIL;
	down_write(&mapping->i_mmap_rwsem);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
		enum scan_result result;
		unsigned long addr = 0;
		bool is_target = false;
		pmd_t *pmd = NULL;
		/* As Linux: a private mapping written to (an anon_vma) is not
		 * worth the write lock; its PMD would be split again. */
		if (vma->anon_vma) {
			result = SCAN_PAGE_ANON;
			goto next;
		}
		addr = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		if ((addr & ~PMD_MASK) || vma->vm_end < addr + PMD_SIZE) {
			result = SCAN_VMA_CHECK;
			goto next;
		}
		struct mm_struct *mm = vma->vm_mm;
		is_target = mm == target_mm && addr == target_addr;
		/* Every mapping, for MADV_COLLAPSE too: Linux 6.1 leaves the
		 * others to khugepaged ("it's not MADV_COLLAPSE's job"), 6.6
		 * retracts them all (Hugh Dickins, "mm/khugepaged:
		 * retract_page_tables() without mmap or vma lock", 1d65b771bc08),
		 * so that every process maps the huge page at its next fault. */
		if (!mmap_write_trylock(mm)) {
			/* Lock inversion with a fault holding the mmap lock and
			 * waiting for i_rwsem: trylock, as Linux; khugepaged
			 * comes back to it. */
			if (!is_target) {
				khugepaged_add_pte_mapped_thp(mm, addr);
				continue;
			}
			result = SCAN_PTE_MAPPED_HUGEPAGE;
			goto next;
		}
		if (hpage_collapse_test_exit(mm)) {
			result = SCAN_ANY_PROCESS;
		} else {
			result = find_pmd_or_thp_or_none(mm, addr, &pmd);
			if (result == SCAN_SUCCEED)
				result = drop_table_of_thp(mm, addr, pmd, hpage);
			else if (result == SCAN_PMD_NULL)
				result = SCAN_SUCCEED; /* no table: the unmap freed it, or never faulted */
			/* MADV_COLLAPSE's own mapping: the PMD now, where there
			 * is a PMD table (none at all: the next fault maps it). */
			if (result == SCAN_SUCCEED && !cc->is_khugepaged && is_target && pmd &&
			    pmd_none(pmdp_get(pmd)))
				result = set_huge_pmd(vma, addr, pmd, hpage);
		}
		mmap_write_unlock(mm);
next:
		if (is_target)
			target_result = result;
	}
	up_write(&mapping->i_mmap_rwsem);
	/* The caller's own range was not among the mappings (its VMA went
	 * meanwhile): Linux's SCAN_FAIL. */
	return target_result;
}

enum scan_result collapse_pte_mapped_thp(struct mm_struct *mm, unsigned long addr, bool install_pmd)
{
	unsigned long haddr = addr & PMD_MASK;
	pmd_t *pmd;
	enum scan_result result = find_pmd_or_thp_or_none(mm, haddr, &pmd);
	if (result == SCAN_PMD_MAPPED)
		return result;
	struct vm_area_struct *vma = find_vma(mm, haddr);
	if (!vma || haddr < vma->vm_start || haddr + PMD_SIZE > vma->vm_end || !khugepaged_shmem_inode(vma))
		return SCAN_VMA_CHECK;
	/* "If we are here, we've succeeded in replacing all the native pages
	 * in the page cache with a single hugepage": the sysfs modes do not
	 * matter, as for a fault. */
	if (!hugepage_vma_check(vma, vma->vm_flags, false, false))
		return SCAN_VMA_CHECK;
	if (vma->anon_vma)
		return SCAN_VMA_CHECK; /* symmetry with retract_page_tables */
	struct address_space *mapping = khugepaged_shmem_inode(vma)->i_mapping;
	struct page *page = filemap_get_folio(mapping, linear_page_index(vma, haddr));
	if (!page)
		return SCAN_PAGE_NULL;
	struct page *hpage = compound_head(page);
	if (hpage != page || !page_test_flag(hpage, PG_shmem_thp)) {
		put_page(page);
		return page_test_flag(hpage, PG_shmem_thp) ? SCAN_PAGE_COMPOUND : SCAN_FAIL;
	}
	if (result == SCAN_SUCCEED) {
		down_write(&mapping->i_mmap_rwsem);
		result = drop_table_of_thp(mm, haddr, pmd, hpage);
		up_write(&mapping->i_mmap_rwsem);
	} else if (result == SCAN_PMD_NULL && pmd && pmd_none(pmdp_get(pmd))) {
		result = SCAN_SUCCEED; /* Linux's SCAN_PMD_NONE: maybe_install_pmd */
	}
	if (result == SCAN_SUCCEED && install_pmd)
		result = set_huge_pmd(vma, haddr, pmd, hpage);
	put_page(hpage);
	return result;
}
