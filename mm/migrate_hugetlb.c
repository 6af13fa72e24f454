/* Moving a hugetlb page between nodes (Linux's migrate_pages for a
 * hugetlb folio: alloc_migration_target -> alloc_hugetlb_folio_nodemask,
 * unmap_and_move_huge_page, hugetlbfs_migrate_folio, move_hugetlb_state).
 * The new page comes from the target node's free pool, beyond the pages
 * reservations hold (Linux's available_huge_pages); every entry that maps
 * the old page is cleared and flushed, the page is copied once nothing
 * but its mappings (and the page cache, for a page of a hugetlbfs file:
 * MAP_SHARED | MAP_HUGETLB's among them) holds it, the new page takes
 * its place in the page cache, every entry maps it, and the old page goes
 * back to its pool.
 *
 * Where Linux turns each entry into a migration entry under the folio
 * lock, mmlab clears it (0) under the hugetlb fault mutex of that mm and
 * page (mm/hugetlb_fault.c), held until the entry is back: a fault there
 * (the owner's threads, a forked child) waits on that mutex and finds the
 * new entry, a zap (MADV_DONTNEED, a truncate) waits too, and anything
 * else that changes the entries needs the mmap_lock for writing, which
 * the move holds for reading in every mm it touches. A page-table reader
 * (smaps, pagemap, mincore) may see the page unmapped meanwhile, as
 * Linux's sees a migration entry.
 *
 * The other mms' mmap_lock and fault mutexes are taken with a trylock
 * (a truncate takes the file's lock, then the fault mutexes: a wait here
 * could close a cycle); one out of reach ends the try, and the move is
 * tried again (Linux retries a busy folio 10 times too).
 *
 * A private page that fork shared is found through the anon_vma tree;
 * like every page mapped more than once, it moves only with
 * MPOL_MF_MOVE_ALL.
 *
 * mmlab difference: with no free page beyond the reservations on the
 * target, the move fails with -ENOMEM, where Linux's
 * alloc_migrate_hugetlb_folio makes a temporary surplus page. */
#include "mm/migrate.h"
#include "mm/migrate_internal.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "kernel/mutex.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_internal.h"
#include "mm/hugetlb_vma.h"
#include "mm/interval_tree.h"
#include "mm/mempolicy.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"

#define HUGETLB_MIGRATE_TRIES 10 /* Linux's NR_MAX_MIGRATE_PAGES_RETRY */

/* One entry the move cleared: where, and what it was. */
struct huge_unmapped {
	struct mm_struct *mm;
	unsigned long haddr;
	u64 *ptep;
	u64 entry;
};

struct hugetlb_migration {
	struct shared_migration sm; /* the mms held */
	struct hstate *h;
	struct page *old;
	struct mutex *mutexes[MIGRATE_MAX_MMS]; /* the fault mutexes held */
	int nr_mutexes;
	struct huge_unmapped cleared[MIGRATE_MAX_MMS];
	int nr_cleared;
};

/* The fault mutex of mm's page at haddr, held by this move (a trylock,
 * the caller's own too: it may come after others in the walk). */
static bool hold_fault_mutex(struct hugetlb_migration *hm, struct mm_struct *mm, unsigned long haddr)
{
	struct mutex *m = hugetlb_fault_mutex(mm, haddr);
	for (int i = 0; i < hm->nr_mutexes; i++)
		if (hm->mutexes[i] == m)
			return true;
	if (hm->nr_mutexes == MIGRATE_MAX_MMS)
		return false;
	if (!mutex_trylock(m))
		return false;
	hm->mutexes[hm->nr_mutexes++] = m;
	return true;
}

/* Clears vma's entry at haddr if it maps hm->old: the mapping's count
 * and reference go with it (the mover holds its own). false when its mm
 * or fault mutex is out of reach. */
static bool hugetlb_unmap_one(struct hugetlb_migration *hm, struct vm_area_struct *vma, unsigned long haddr)
{
	struct mm_struct *mm = vma->vm_mm;
	if (!hold_mm(&hm->sm, mm) || !hold_fault_mutex(hm, mm, haddr))
		return false;
	u64 *ptep = huge_pte_offset(mm, haddr, hm->h);
	if (!ptep)
		return true;
	spinlock_t *ptl = huge_pte_lockptr(mm);
	spin_lock(ptl);
	u64 entry = READ_ONCE(*ptep);
	bool ours = (entry & _PAGE_PRESENT) && (entry & PTE_PFN_MASK) == page_to_phys(hm->old);
	if (ours && hm->nr_cleared < MIGRATE_MAX_MMS)
		WRITE_ONCE(*ptep, 0);
	spin_unlock(ptl);
	if (!ours)
		return true;
	if (hm->nr_cleared == MIGRATE_MAX_MMS)
		return false;
	flush_tlb_mm_range(mm, haddr, haddr + huge_page_size(hm->h));
	hm->cleared[hm->nr_cleared++] = (struct huge_unmapped){ mm, haddr, ptep, entry };
	__atomic_sub_fetch(&hm->old->_mapcount, 1, __ATOMIC_RELAXED);
	put_page(hm->old);
	return true;
}

/* Every entry cleared maps page (new, or old again), with its count and
 * reference; then the locks go. */
static void hugetlb_remap_all(struct hugetlb_migration *hm, struct page *page)
{
	for (int i = 0; i < hm->nr_cleared; i++) {
		struct huge_unmapped *u = &hm->cleared[i];
		get_page(page);
		__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED);
		spin_lock(huge_pte_lockptr(u->mm));
		set_huge_pte_at(u->haddr, u->ptep, page_to_phys(page) | (u->entry & ~PTE_PFN_MASK));
		spin_unlock(huge_pte_lockptr(u->mm));
	}
	for (int i = 0; i < hm->nr_mutexes; i++)
		mutex_unlock(hm->mutexes[i]);
	migration_done(&hm->sm);
}

/* One try: the node the page is on after it, -EAGAIN (something held it
 * or was out of reach: try again) or another errno. */
static int migrate_hugetlb_try(struct vm_area_struct *vma, unsigned long haddr, struct page *old, struct page *new,
			       unsigned int flags)
{
	struct hugetlb_migration hm = { .sm = { .caller = vma->vm_mm }, .h = hstate_vma(vma), .old = old };
	struct hstate *h = hm.h;
	bool in_file = page_in_file(old);
	int err = 0;
	if (page_mapcount(old) > 1 && !(flags & MPOL_MF_MOVE_ALL))
		return -EACCES;
	struct rw_semaphore *rwsem = NULL;
	if (in_file) {
		/* Every VMA of the file over the page, in whatever mm. */
		struct rb_root *root = vma_i_mmap(vma, &rwsem);
		unsigned long pgoff = old->index << h->order;
		down_read(rwsem);
		struct vm_area_struct *v;
		vma_interval_tree_foreach(v, root, pgoff, pgoff) {
			if (!is_vm_hugetlb_page(v) || pgoff < v->vm_pgoff)
				continue;
			if (!hugetlb_unmap_one(&hm, v, v->vm_start + ((pgoff - v->vm_pgoff) << PAGE_SHIFT))) {
				err = -EAGAIN;
				break;
			}
		}
	} else if (page_mapcount(old) > 1) {
		/* A private page that fork shared: every hugetlb VMA of the
		 * anon_vma tree over its offset (Linux's rmap_walk_anon; the
		 * root's list has every VMA of the tree, each once). */
		struct anon_vma *root = vma->anon_vma ? vma->anon_vma->root : NULL;
		unsigned long pgoff = vma->vm_pgoff + ((haddr - vma->vm_start) >> PAGE_SHIFT);
		if (!root)
			return -EBUSY;
		rwsem = &root->rwsem;
		down_read(rwsem);
		struct anon_vma_chain *avc;
		list_for_each_entry(avc, &root->head, same_anon_vma) {
			struct vm_area_struct *v = avc->vma;
			unsigned long pages = (v->vm_end - v->vm_start) >> PAGE_SHIFT;
			if (!is_vm_hugetlb_page(v) || pgoff < v->vm_pgoff || pgoff - v->vm_pgoff >= pages)
				continue;
			if (!hugetlb_unmap_one(&hm, v, v->vm_start + ((pgoff - v->vm_pgoff) << PAGE_SHIFT))) {
				err = -EAGAIN;
				break;
			}
		}
	} else if (!hugetlb_unmap_one(&hm, vma, haddr)) {
		err = -EAGAIN;
	}
	/* Nothing but the mover and (for a file's page) the page cache may
	 * hold it now. */
	if (!err && page_mapcount(old) != 0)
		err = -EAGAIN;
	if (!err && in_file) {
		err = filemap_migrate_folio(old->mapping, new, old, 1, h->order);
	} else if (!err) {
		if (page_ref_count(old) != 1) {
			err = -EAGAIN; /* a get_user_pages reference */
		} else {
			for (unsigned long i = 0; i < pages_per_huge_page(h); i++) {
				memcpy(page_address(new + i), page_address(old + i), PAGE_SIZE);
				if (i % 512 == 511)
					cond_resched();
			}
			new->mapping = old->mapping;
			new->index = old->index;
			old->mapping = NULL;
		}
	}
	hugetlb_remap_all(&hm, err ? old : new);
	if (rwsem)
		up_read(rwsem);
	return err ? err : page_to_nid(new);
}

int migrate_hugetlb_page(struct vm_area_struct *vma, unsigned long addr, const int *target, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct hstate *h = hstate_vma(vma);
	unsigned long haddr = addr & huge_page_mask(h);
	int ret = -EBUSY;
	for (int tries = 0; tries < HUGETLB_MIGRATE_TRIES; tries++) {
		/* The page mapped now, held by the mover. */
		u64 *ptep = huge_pte_offset(mm, haddr, h);
		spinlock_t *ptl = huge_pte_lockptr(mm);
		spin_lock(ptl);
		u64 entry = ptep ? READ_ONCE(*ptep) : 0;
		struct page *old = entry & _PAGE_PRESENT ? pfn_to_page((entry & PTE_PFN_MASK) >> PAGE_SHIFT) : NULL;
		if (old)
			get_page(old);
		spin_unlock(ptl);
		if (!old)
			return -ENOENT;
		/* Linux's alloc_migration_target (move_pages, migrate_pages:
		 * that node only) or alloc_hugetlb_folio_vma (mbind: the
		 * VMA's policy). */
		nodemask_t mask;
		bool have_mask = false, many = false, reserve = false;
		int nid = target ? *target : huge_node(vma, haddr, h->order, &mask, &have_mask, &many);
		if (target)
			mask = nodemask_of_node(nid), have_mask = true;
		if (page_to_nid(old) == nid && target) {
			put_page(old);
			return nid;
		}
		struct page *new = alloc_hugetlb_folio(h, nid, have_mask ? &mask : NULL, many, &reserve);
		if (!new) {
			put_page(old);
			return -ENOMEM;
		}
		ret = migrate_hugetlb_try(vma, haddr, old, new, flags);
		if (ret < 0)
			free_huge_folio(new, false);
		else
			put_page(new); /* its allocation's: the mappings and the page cache hold theirs */
		put_page(old); /* the mover's: after a move, its last, back to the pool */
		if (ret != -EAGAIN)
			return ret;
		/* Let a fault that waited on a mutex of ours finish. */
		schedule_timeout_uninterruptible(1);
	}
	return -EBUSY;
}
