/* Migration entries (Linux's try_to_migrate_one, remove_migration_pte
 * and migration_entry_wait, mm/rmap.c and mm/migrate.c): while a page
 * that several mappings map moves (mm/migrate.c for an anonymous page
 * that fork shared, mm/migrate_shmem.c for a shmem page), each PTE that
 * maps it holds a migration entry (arch/x86_64/pgtable.h: not present,
 * the old page's frame and the entry's bits kept); a fault that finds one
 * sleeps until the move has put a page back (the new one, or the old one
 * when the move was given up), and then faults again.
 *
 * The other mms of a move are held for reading with a trylock of their
 * mmap_lock (hold_mm): mmlab's walks take the i_mmap or anon_vma lock
 * first, then mmap_lock, the reverse of everyone else's order, so a wait
 * could deadlock; a miss makes the page busy, as Linux's migration gives
 * up on a page it cannot unmap. */
#include "mm/migrate.h"
#include "mm/migrate_internal.h"
#include "kernel/wait.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"

/* The mm of vma held for reading by this migration: the caller's, one
 * locked before, or one locked now with a trylock (the order here is
 * anon_vma lock, then mmap_lock: the reverse of everyone else's, so a
 * wait could deadlock; a miss makes the page busy, as Linux's migration
 * gives up on a page it cannot unmap). */
bool mm_held(const struct shared_migration *sm, struct mm_struct *mm)
{
	if (mm == sm->caller)
		return true;
	for (int i = 0; i < sm->nr_locked; i++)
		if (sm->locked[i] == mm)
			return true;
	return false;
}

bool hold_mm(struct shared_migration *sm, struct mm_struct *mm)
{
	if (mm_held(sm, mm))
		return true;
	if (sm->nr_locked == MIGRATE_MAX_MMS || !mmap_read_trylock(mm))
		return false;
	sm->locked[sm->nr_locked++] = mm;
	return true;
}

/* The PTE of vma at address, locked, with a table reference (refcount
 * mode); NULL when there is none. */
pte_t *lock_pte_at(struct vm_area_struct *vma, unsigned long address, pmd_t **pmdp, spinlock_t **ptlp)
{
	pmd_t *pmd = mm_find_pmd(vma->vm_mm, address);
	if (!pmd || pmd_trans_huge(pmdp_get(pmd)))
		return NULL;
	*pmdp = pmd;
	return pte_tryget_map_lock(vma->vm_mm, pmd, address, ptlp);
}

void unlock_pte_at(struct vm_area_struct *vma, unsigned long address, pmd_t *pmd, pte_t *pte,
		   spinlock_t *ptl)
{
	pte_unmap_unlock(pte, ptl);
	pte_put(vma->vm_mm, pmd, address);
}

/* Linux's try_to_migrate_one: the entry mapping old becomes a migration
 * entry, flushed from every TLB of its mm before the copy can start; the
 * page loses that mapping and its reference. The entry is never none in
 * between (ptep_establish_migration_entry), so that a concurrent fault
 * does not look the page up and hold it while the move counts its
 * references. */
bool try_to_migrate_one(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg)
{
	struct shared_migration *sm = arg;
	if (!hold_mm(sm, vma->vm_mm)) {
		sm->busy = true;
		return false;
	}
	pmd_t *pmd;
	spinlock_t *ptl;
	pte_t *pte = lock_pte_at(vma, address, &pmd, &ptl);
	if (!pte)
		return true;
	pte_t entry = ptep_get(pte);
	if (pte_present(entry) && pte_pfn(entry) == page_to_pfn(page)) {
		/* Non-none to non-none: the table's count stays, and a fault
		 * beside this finds the migration entry and waits, taking no
		 * reference on the page (pgtable.h). */
		ptep_establish_migration_entry(pte);
		flush_tlb_mm_range(vma->vm_mm, address, address + PAGE_SIZE);
		if (sm->shmem)
			shmem_rmap_moved(page, false);
		else
			anon_rmap_moved(page, false);
		put_page(page); /* the mapping's reference; the mover holds its own */
	}
	unlock_pte_at(vma, address, pmd, pte, ptl);
	return true;
}

/* Linux's remove_migration_pte: each migration entry of old that is still
 * there maps sm->new (or old again, when the move was given up). A shmem
 * page is mapped again only if it is still the object's at the entry's
 * offset (shmem_page_current): a truncate or hole punch may have taken it
 * meanwhile (mm/migrate_shmem.c), and the entry then goes, as that zap
 * would have taken the mapping. */
bool remove_migration_pte(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg)
{
	struct shared_migration *sm = arg;
	(void)page;
	if (!mm_held(sm, vma->vm_mm))
		return true; /* not reached by the first pass: no entry of ours there */
	struct mm_struct *mm = vma->vm_mm;
	pmd_t *pmd;
	spinlock_t *ptl;
	pte_t *pte = lock_pte_at(vma, address, &pmd, &ptl);
	if (!pte)
		return true;
	pte_t entry = ptep_get(pte);
	bool cleared = false;
	if (is_migration_entry(entry) && pte_pfn(entry) == page_to_pfn(sm->old)) {
		if (!sm->shmem) {
			anon_rmap_moved(sm->new, true);
		} else if (shmem_page_current(vma, address, sm->new)) {
			shmem_rmap_moved(sm->new, true);
		} else {
			pte_clear(mm, address, pte);
			add_mm_counter(mm, MM_SHMEMPAGES, -1);
			cleared = true;
		}
		if (!cleared)
			set_pte(pte, migration_entry_to_pte(entry, page_to_pfn(sm->new)));
	}
	unlock_pte_at(vma, address, pmd, pte, ptl);
	if (cleared)
		pte_put(mm, pmd, address); /* the entry's count on its table */
	return true;
}

/* Where the faults that found a migration entry sleep: one queue for the
 * machine (Linux sleeps on the old folio's lock bit, in a hashed queue);
 * every move wakes it when its entries are gone. */
static DECLARE_WAIT_QUEUE_HEAD(migration_wq);

void migration_done(struct shared_migration *sm)
{
	for (int i = 0; i < sm->nr_locked; i++)
		mmap_read_unlock(sm->locked[i]);
	sm->nr_locked = 0;
	wake_up_all(&migration_wq);
}

/* Whether the entry at address is no longer entry (or its table gone). */
static bool migration_entry_changed(pmd_t *pmd, unsigned long address, pte_t entry)
{
	pte_t *pte = pte_offset_map(pmd, address);
	if (!pte)
		return true;
	bool changed = !pte_same(ptep_get(pte), entry);
	pte_unmap(pte);
	return changed;
}

void migration_entry_wait(pmd_t *pmd, unsigned long address, pte_t entry)
{
	wait_event(migration_wq, migration_entry_changed(pmd, address, entry));
}
