/* mremap(2): shrinking a mapping in place (the tail is unmapped), growing
 * it in place when the gap after it allows, and moving it otherwise
 * (MREMAP_MAYMOVE, MREMAP_FIXED, MREMAP_DONTUNMAP), after Linux's
 * mm/mremap.c as it reads today (the vma_remap_struct version, 6.16-ish),
 * with the errnos in its order; where Linux 6.1 differs, the comment says.
 *
 * A move makes the new VMA (copy_vma, mm/vma.c: merged into a neighbour
 * where the merge rules allow), moves the page-table entries under it
 * (move_page_tables) and unmaps the old range. The entries move two ways:
 *   - a whole PTE table, when the old and the new range each cover all
 *     2 MiB of one (both PMD-aligned there) and the destination PMD is
 *     none: the PMD entry itself moves (move_normal_pmd), the table page
 *     is the same, and its back-pointer follows it (pte_update_pmd: Qi
 *     Zheng's series, patch 03, in move_normal_pmd);
 *   - otherwise entry by entry (move_ptes), and each entry that becomes
 *     non-none in the destination table takes a reference on it while
 *     each one cleared in the source drops one (pte_get_many and
 *     pte_put_many, the series' patch 05), so that the refcounted tables
 *     keep count = non-none entries (mm/pte_ref.h).
 *
 * Invariants: a page is mapped at exactly one of its old and new addresses
 * at any time (the old PTE is cleared before the new one is set, under
 * both PTE locks); no entry is lost: every table the move needs is
 * allocated, and every table it reads is held, before the first entry
 * moves (prepare_move), so a move either fails whole with nothing moved
 * (the new VMA is unmapped, -ENOMEM) or completes; RSS does not change, total_vm grows by the growth (by new_len
 * with MREMAP_DONTUNMAP), VmPTE counts the tables wherever they hang.
 *
 * Locking: all of mremap runs under mm->mmap_lock held for WRITING. That
 * is what lets move_ptes hold two PTE locks at once (the source's, then
 * the destination's), the one place in mmlab where two are held: Linux's
 * move_ptes relies on the same exclusive mmap_lock ("we don't have to
 * worry about the ordering of src and dst pte locks"), since every other
 * holder of a PTE lock (faults, MADV_DONTNEED, the procfs walkers) holds
 * the mmap_lock for reading at least, and no PTE lock is ever held while
 * another is awaited elsewhere. move_normal_pmd takes the PMD lock
 * (page_table_lock, one for the mm: Linux's pmd_lockptr without split PMD
 * locks). TLB flushes run after those spinlocks are dropped (mmlab's rule:
 * a flush waits for other CPUs), still under the write lock: until it is
 * released no zap can free a moved page, so a stale TLB entry for the old
 * address can only reach the page that is now mapped at the new one, and
 * the flush comes before mremap returns. */
#include "mm/mremap.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/interval_tree.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/util.h"
#include "mm/vma.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"

static struct mremap_stats stats;

void mremap_stats_read(struct mremap_stats *out)
{
	out->tables_moved = __atomic_load_n(&stats.tables_moved, __ATOMIC_RELAXED);
	out->huge_pmds_moved = __atomic_load_n(&stats.huge_pmds_moved, __ATOMIC_RELAXED);
	out->tables_walked = __atomic_load_n(&stats.tables_walked, __ATOMIC_RELAXED);
	out->ptes_moved = __atomic_load_n(&stats.ptes_moved, __ATOMIC_RELAXED);
}

static void stat_add(unsigned long *counter, unsigned long n)
{
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

/* ---- the page tables --------------------------------------------------------- */

/* Linux's get_old_pmd: the PMD entry for addr, NULL when it or a level
 * above is none (nothing to move there). */
static pmd_t *get_old_pmd(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (!pmd || pmd_none(pmdp_get(pmd)))
		return NULL;
	return pmd;
}

/* Linux's alloc_new_pmd: the PMD entry for addr, allocating the PUD and
 * PMD tables on the way; NULL when memory is short. */
static pmd_t *alloc_new_pmd(struct mm_struct *mm, unsigned long addr)
{
	pud_t *pud = pud_alloc(mm, pgd_offset(mm, addr), addr);
	if (!pud)
		return NULL;
	return pmd_alloc(mm, pud, addr);
}

/* Linux's move_ptes (with the series' patch 05): the entries of
 * [old_addr, old_end), inside one PTE table, to the table new_pmd maps,
 * from new_addr on. Both PTE locks are held (see Locking above); each
 * non-none entry is cleared at the old address and set, unchanged, at
 * the new one (the VMA's flags and vm_page_prot move with it). The
 * references follow the entries once the locks are dropped: one taken on
 * the destination table for each entry set there, one dropped on the
 * source for each cleared (the drop may free the source table). -EAGAIN
 * when a table went in between (it cannot under the write lock: Linux's
 * contract). */
static int move_ptes(struct vm_area_struct *vma, pmd_t *old_pmd, unsigned long old_addr,
		     unsigned long old_end, pmd_t *new_pmd, unsigned long new_addr)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long old_start = old_addr;
	spinlock_t *old_ptl, *new_ptl;
	pte_t *old_pte = pte_offset_map_lock(mm, old_pmd, old_addr, &old_ptl);
	if (!old_pte)
		return -EAGAIN;
	pte_t *new_pte = pte_offset_map(new_pmd, new_addr);
	if (!new_pte) {
		pte_unmap_unlock(old_pte, old_ptl);
		return -EAGAIN;
	}
	new_ptl = pte_lockptr(mm, new_pmd);
	if (new_ptl != old_ptl)
		spin_lock(new_ptl);
	unsigned int nr_moved = 0;
	bool force_flush = false;
	for (; old_addr < old_end; old_pte++, old_addr += PAGE_SIZE, new_pte++,
				   new_addr += PAGE_SIZE) {
		pte_t pte = ptep_get(old_pte);
		if (pte_none(pte))
			continue;
		if (!pte_none(ptep_get(new_pte))) {
			/* Linux's VM_WARN_ON_ONCE: the destination was unmapped
			 * first. Never overwrite (and so leak) a mapped page. */
			pr_err("BUG: mremap: destination PTE at %#lx holds %#lx: source %#lx left in place\n",
			       new_addr, (unsigned long)pte_val(ptep_get(new_pte)), old_addr);
			continue;
		}
		/* A present entry may be in some CPU's TLB: flushed below,
		 * before mremap returns. */
		if (pte_present(pte))
			force_flush = true;
		pte = ptep_get_and_clear(mm, old_addr, old_pte);
		set_pte(new_pte, pte);
		nr_moved++;
	}
	if (new_ptl != old_ptl)
		spin_unlock(new_ptl);
	pte_unmap(new_pte - 1);
	pte_unmap_unlock(old_pte - 1, old_ptl);
	if (force_flush)
		flush_tlb_mm_range(mm, old_start, old_end);
	if (nr_moved) {
		pte_get_many(new_pmd, nr_moved);
		pte_put_many(mm, old_pmd, old_start, nr_moved);
	}
	stat_add(&stats.tables_walked, 1);
	stat_add(&stats.ptes_moved, nr_moved);
	return 0;
}

/* Linux's move_normal_pmd with the series' change: the PTE table under
 * *old_pmd (whose 2 MiB the move covers whole) is hung under *new_pmd
 * (none) as it is: no entry is touched, so its count (entries plus
 * walkers) is unchanged; only its back-pointer to the PMD moves
 * (pte_update_pmd). VmPTE is unchanged too (the same table in the same
 * mm). false when the destination is not none (Linux warns; mmlab then
 * moves the entries one by one) or the old PMD is not a PTE table. */
static bool move_normal_pmd(struct vm_area_struct *vma, unsigned long old_addr, pmd_t *old_pmd,
			    pmd_t *new_pmd)
{
	struct mm_struct *mm = vma->vm_mm;
	if (!pmd_none(pmdp_get(new_pmd)))
		return false;
	/* One lock covers both PMDs (pmd_lockptr is page_table_lock). */
	spinlock_t *ptl = pmd_lockptr(mm, old_pmd);
	spin_lock(ptl);
	pmd_t pmd = pmdp_get(old_pmd);
	if (!pmd_present(pmd) || pmd_trans_huge(pmd) || !pmd_none(pmdp_get(new_pmd))) {
		spin_unlock(ptl);
		return false;
	}
	pmd_clear(old_pmd);
	set_pmd(new_pmd, pmd); /* pmd_populate with the same table */
	pte_update_pmd(pmd, new_pmd);
	spin_unlock(ptl);
	flush_tlb_mm_range(mm, old_addr, old_addr + PMD_SIZE);
	stat_add(&stats.tables_moved, 1);
	return true;
}

/* Linux's move_huge_pmd: a huge PMD whose 2 MiB the move covers whole
 * moves as one entry (its page stays counted in RSS). false when the
 * destination PMD holds something. */
static bool move_huge_pmd(struct vm_area_struct *vma, unsigned long old_addr, pmd_t *old_pmd,
			  pmd_t *new_pmd)
{
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl = pmd_lockptr(mm, old_pmd);
	spin_lock(ptl);
	pmd_t pmd = pmdp_get(old_pmd);
	if (!pmd_trans_huge(pmd) || !pmd_none(pmdp_get(new_pmd))) {
		spin_unlock(ptl);
		return false;
	}
	pmd = pmdp_get_and_clear(mm, old_addr, old_pmd);
	set_pmd(new_pmd, pmd);
	spin_unlock(ptl);
	flush_tlb_mm_range(mm, old_addr, old_addr + PMD_SIZE);
	stat_add(&stats.huge_pmds_moved, 1);
	return true;
}

/* The next step of a move from old_addr: up to the next PMD boundary of
 * the old and of the new range, whichever comes first. */
static unsigned long move_extent(unsigned long old_addr, unsigned long old_end,
				 unsigned long new_addr)
{
	unsigned long extent = ((old_addr + PMD_SIZE) & PMD_MASK) - old_addr;
	if (extent > old_end - old_addr)
		extent = old_end - old_addr;
	unsigned long new_next = (new_addr + PMD_SIZE) & PMD_MASK;
	if (extent > new_next - new_addr)
		extent = new_next - new_addr;
	return extent;
}

/* How one step moves: nothing to move, a huge PMD or a whole PTE table
 * moved as one PMD entry, or the entries one by one (move_ptes). */
enum move_kind { MOVE_NOTHING, MOVE_HUGE_PMD, MOVE_TABLE, MOVE_ENTRIES };

static enum move_kind classify_step(pmd_t *old_pmd, pmd_t *new_pmd, unsigned long extent)
{
	if (!old_pmd)
		return MOVE_NOTHING;
	pmd_t val = pmdp_get(old_pmd);
	if (pmd_none(val))
		return MOVE_NOTHING;
	if (pmd_trans_huge(val))
		return MOVE_HUGE_PMD;
	if (extent == PMD_SIZE && pmd_none(pmdp_get(new_pmd)))
		return MOVE_TABLE;
	return MOVE_ENTRIES;
}

/* The references prepare_move holds for one MOVE_ENTRIES step: one on the
 * destination table and one on the source table, dropped once the step's
 * entries have moved (or the move is given up). */
static void release_step(struct mm_struct *mm, pmd_t *old_pmd, unsigned long old_addr,
			 pmd_t *new_pmd, unsigned long new_addr)
{
	pte_put(mm, new_pmd, new_addr);
	pte_put(mm, old_pmd, old_addr);
}

/* Gives back what prepare_move holds for the steps of [old_addr, stop) of
 * a move that ends at old_end, none of which has moved: each classifies
 * as it did in prepare_move (the destination of a MOVE_TABLE step is none
 * still; that of a MOVE_ENTRIES step now holds a table). */
static void release_steps(struct mm_struct *mm, unsigned long old_addr, unsigned long new_addr,
			  unsigned long stop, unsigned long old_end)
{
	unsigned long extent;
	for (; old_addr < stop; old_addr += extent, new_addr += extent) {
		extent = move_extent(old_addr, old_end, new_addr);
		pmd_t *old_pmd = get_old_pmd(mm, old_addr);
		if (!old_pmd)
			continue;
		pmd_t *new_pmd = mm_find_pmd(mm, new_addr);
		if (new_pmd && classify_step(old_pmd, new_pmd, extent) == MOVE_ENTRIES)
			release_step(mm, old_pmd, old_addr, new_pmd, new_addr);
	}
}

/* mmlab's first pass, for the refcounted tables: everything the move will
 * need is allocated and held before a single entry moves, so that the
 * move itself cannot stop short. Linux's move_page_tables allocates as it
 * goes and, when memory runs out, moves the entries back (the old tables
 * are still there: Linux frees none on the way). With the series'
 * refcount a source table whose last entry moved is freed at once
 * (pte_put_many in move_ptes), so a move back would need memory again,
 * and a move back that failed would leave pages under the new VMA that is
 * then unmapped: lost data. Hence, for every step that moves entries one
 * by one: the PUD/PMD tables on the new side, the destination PTE table
 * with a reference (pte_alloc), and a reference on the source table, so
 * that it stays until the last step that reads it is done. Steps that
 * move a whole table or a huge PMD need only the new PMD entry. A huge
 * PMD that the move covers in part, or whose destination entry is not
 * none, is split here (its deposited table makes that infallible), and
 * moves entry by entry. On failure everything
 * taken is dropped (a destination table that got no entry is freed by
 * its last put in refcount mode, and with the new VMA by the unmap in the
 * other modes) and false is returned: nothing moved. */
static bool prepare_move(struct mm_struct *mm, unsigned long old_addr, unsigned long new_addr,
			 unsigned long len)
{
	unsigned long old_end = old_addr + len, addr = old_addr, naddr = new_addr, extent;
	bool ok = true;
	for (; addr < old_end; addr += extent, naddr += extent) {
		extent = move_extent(addr, old_end, naddr);
		pmd_t *old_pmd = get_old_pmd(mm, addr);
		if (!old_pmd)
			continue;
		pmd_t *new_pmd = alloc_new_pmd(mm, naddr);
		if (!new_pmd) {
			ok = false;
			break;
		}
		enum move_kind kind = classify_step(old_pmd, new_pmd, extent);
		if (kind == MOVE_HUGE_PMD && (extent != PMD_SIZE || !pmd_none(pmdp_get(new_pmd)))) {
			/* Linux's move_page_tables: a huge PMD the move covers
			 * in part is split, and its entries move one by one. */
			split_huge_pmd(mm, old_pmd, addr);
			kind = classify_step(old_pmd, new_pmd, extent);
		}
		if (kind == MOVE_HUGE_PMD) {
			if (extent != HPAGE_PMD_NR * PAGE_SIZE || !pmd_none(pmdp_get(new_pmd))) {
				ok = false;
				break;
			}
		} else if (kind == MOVE_ENTRIES) {
			if (pte_alloc(mm, new_pmd) != INSTALLED_PTE) {
				ok = false; /* -ENOMEM, or a huge PMD at the destination */
				break;
			}
			if (pte_try_get(old_pmd) != TRYGET_SUCCESSED) {
				/* Cannot happen under the write lock: a table at
				 * zero is unhooked at once. */
				pte_put(mm, new_pmd, naddr);
				ok = false;
				break;
			}
		}
	}
	if (ok)
		return true;
	release_steps(mm, old_addr, new_addr, addr, old_end);
	return false;
}

/* Linux's move_page_tables, PMD by PMD (x86_64 has HAVE_MOVE_PMD; the
 * PUD-level move, HAVE_MOVE_PUD, and try_realign_addr, Linux 6.9's
 * widening of an unaligned move to a whole table, are not done here: a
 * table moves whole only when the range itself covers it), after
 * prepare_move above. The huge-PMD rule of mm/pgtable.h for mremap: a huge
 * PMD the move covers whole moves as one entry; one it covers in part
 * would need a THP split, which mmlab does not have, so the move is
 * refused before it starts (a return of 0: the caller unmaps the new VMA
 * and fails with -ENOMEM). Returns the length moved: len, or 0. */
unsigned long move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
			       struct vm_area_struct *new_vma, unsigned long new_addr,
			       unsigned long len)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long old_end = old_addr + len, orig_old_addr = old_addr, extent;
	mmap_assert_write_locked(mm);
	(void)new_vma; /* the same mm; Linux passes it for rmap and uffd */
	if (!prepare_move(mm, old_addr, new_addr, len))
		return 0;
	/* Linux's take_rmap_locks: a walker of the file's i_mmap (truncate's
	 * unmap_mapping_range) could zap the new range before an entry got
	 * there and the old one after it left: it waits for the whole move. */
	struct rw_semaphore *i_mmap_rwsem;
	if (vma_i_mmap(vma, &i_mmap_rwsem))
		down_write(i_mmap_rwsem);
	else
		i_mmap_rwsem = NULL;
	for (; old_addr < old_end; old_addr += extent, new_addr += extent) {
		cond_resched();
		extent = move_extent(old_addr, old_end, new_addr);
		pmd_t *old_pmd = get_old_pmd(mm, old_addr);
		if (!old_pmd)
			continue;
		/* Allocated by prepare_move: a lookup now. */
		pmd_t *new_pmd = mm_find_pmd(mm, new_addr);
		bool moved = false;
		switch (new_pmd ? classify_step(old_pmd, new_pmd, extent) : MOVE_NOTHING) {
		case MOVE_NOTHING:
			moved = new_pmd != NULL;
			break;
		case MOVE_HUGE_PMD:
			moved = move_huge_pmd(vma, old_addr, old_pmd, new_pmd);
			break;
		case MOVE_TABLE:
			moved = move_normal_pmd(vma, old_addr, old_pmd, new_pmd);
			break;
		case MOVE_ENTRIES:
			/* prepare_move holds both tables (the series' pte_alloc
			 * reference on the destination, patch 04's pte_put in
			 * move_page_tables, and mmlab's on the source). */
			moved = move_ptes(vma, old_pmd, old_addr, old_addr + extent, new_pmd, new_addr) == 0;
			release_step(mm, old_pmd, old_addr, new_pmd, new_addr);
			break;
		}
		if (!moved) {
			/* prepare_move found every step possible and holds what
			 * it needs, and nothing else runs under the write lock
			 * (a NULL new_pmd lands here too). */
			pr_err("BUG: mremap: the step at %#lx (to %#lx) could not move after prepare_move\n",
			       old_addr, new_addr);
			release_steps(mm, old_addr + extent, new_addr + extent, old_end, old_end);
			break;
		}
	}
	if (i_mmap_rwsem)
		up_write(i_mmap_rwsem);
	return old_addr < orig_old_addr + len ? old_addr - orig_old_addr : len;
}

/* ---- the VMAs ----------------------------------------------------------------- */

/* Linux's enum mremap_type. */
enum mremap_type {
	MREMAP_INVALID,
	MREMAP_NO_RESIZE,
	MREMAP_SHRINK,
	MREMAP_EXPAND,
};

/* Linux's struct vma_remap_struct, without userfaultfd. */
struct vma_remap_struct {
	struct mm_struct *mm;
	unsigned long addr, old_len, new_len, flags, new_addr;
	struct vm_area_struct *vma;
	unsigned long delta;          /* |old_len - new_len| */
	bool mlocked;                 /* the VMA is VM_LOCKED: populate the growth */
	enum mremap_type remap_type;
	unsigned long charged;        /* pages charged to the commit count */
};

static void vrm_set_delta(struct vma_remap_struct *vrm)
{
	vrm->delta = vrm->old_len > vrm->new_len ? vrm->old_len - vrm->new_len
						 : vrm->new_len - vrm->old_len;
}

static enum mremap_type vrm_remap_type(struct vma_remap_struct *vrm)
{
	if (!vrm->delta)
		return MREMAP_NO_RESIZE;
	return vrm->old_len > vrm->new_len ? MREMAP_SHRINK : MREMAP_EXPAND;
}

static bool vrm_implies_new_addr(struct vma_remap_struct *vrm)
{
	return vrm->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP);
}

static bool vrm_overlaps(struct vma_remap_struct *vrm)
{
	unsigned long end_old = vrm->addr + vrm->old_len, end_new = vrm->new_addr + vrm->new_len;
	return end_old > vrm->new_addr && end_new > vrm->addr;
}

/* Linux's may_expand_vm, RLIMIT_AS part (mmlab keeps no data_vm, so
 * RLIMIT_DATA is not checked). The limit is the calling task's; a kernel
 * thread working on an mm (kthread_use_mm, the tests) has none. */
static bool may_expand_vm(struct mm_struct *mm, unsigned long npages)
{
	struct signal_struct *sig = current->signal;
	if (!sig)
		return true;
	unsigned long limit = sig->rlim[RLIMIT_AS].rlim_cur;
	return limit == RLIM_INFINITY || mm->total_vm + npages <= limit >> PAGE_SHIFT;
}

/* Linux's vrm_set_new_addr: the destination, through get_unmapped_area:
 * new_addr itself with MREMAP_FIXED, new_addr as a hint with
 * MREMAP_DONTUNMAP alone, else anywhere. A shmem VMA's goes through
 * shmem's method with the moved range's file offset (and MAP_SHARED for
 * a shared one), as Linux passes vm_file and vm_pgoff: its huge pages
 * stay PMD-mappable where they land (mmlab's shared anonymous VMAs keep
 * their file in vm_shm, mm/shmem.h). */
static unsigned long vrm_set_new_addr(struct vma_remap_struct *vrm)
{
	unsigned long hint = vrm_implies_new_addr(vrm) ? vrm->new_addr : 0;
	unsigned long flags = vrm->flags & MREMAP_FIXED ? MAP_FIXED : 0;
	struct vm_area_struct *vma = vrm->vma;
	struct file *file = NULL;
	if (vma && !is_vm_hugetlb_page(vma))
		file = vma->vm_file ? vma->vm_file : vma->vm_shm ? vma->vm_shm->file : NULL;
	unsigned long res;
	if (file && shmem_file(file)) {
		if (vma->vm_flags & VM_MAYSHARE)
			flags |= MAP_SHARED;
		unsigned long pgoff = vma->vm_pgoff + ((vrm->addr - vma->vm_start) >> PAGE_SHIFT);
		res = get_unmapped_area_file(vrm->mm, file, hint, vrm->new_len, pgoff, flags);
	} else {
		res = get_unmapped_area(vrm->mm, hint, vrm->new_len, flags);
	}
	if (IS_ERR_VALUE(res))
		return res;
	vrm->new_addr = res;
	return 0;
}

/* Linux's vrm_calc_charge: a VM_ACCOUNT mapping is charged what it gains
 * (all of new_len with MREMAP_DONTUNMAP, since the old VMA stays). */
static bool vrm_calc_charge(struct vma_remap_struct *vrm)
{
	if (!(vrm->vma->vm_flags & VM_ACCOUNT))
		return true;
	unsigned long charged = (vrm->flags & MREMAP_DONTUNMAP ? vrm->new_len : vrm->delta) >> PAGE_SHIFT;
	if (security_vm_enough_memory_mm(vrm->mm, (long)charged))
		return false;
	vrm->charged = charged;
	return true;
}

static void vrm_uncharge(struct vma_remap_struct *vrm)
{
	if (!(vrm->vma->vm_flags & VM_ACCOUNT))
		return;
	vm_unacct_memory((long)vrm->charged);
	vrm->charged = 0;
}

static void vrm_stat_account(struct vma_remap_struct *vrm, unsigned long bytes)
{
	vm_stat_account(vrm->mm, (long)(bytes >> PAGE_SHIFT));
	if (vrm->vma->vm_flags & VM_LOCKED)
		vrm->mlocked = true; /* no locked_vm counter in mmlab */
}

/* Linux's unmap_source_vma: the old range goes. Its pages were charged
 * once and that charge now belongs to the new VMA (vrm_calc_charge only
 * charged the difference), so VM_ACCOUNT is hidden from the unmap and put
 * back on the pieces of the old VMA that stay on either side. On failure
 * (a split without memory) the old range stays mapped, as Linux. */
static void unmap_source_vma(struct vma_remap_struct *vrm)
{
	struct mm_struct *mm = vrm->mm;
	unsigned long addr = vrm->addr, end = addr + vrm->old_len;
	struct vm_area_struct *vma = vrm->vma;
	bool accountable_move = (vma->vm_flags & VM_ACCOUNT) && !(vrm->flags & MREMAP_DONTUNMAP);
	unsigned long vm_start = vma->vm_start, vm_end = vma->vm_end;
	if (accountable_move)
		vma_set_flags(vma, vma->vm_flags & ~VM_ACCOUNT);
	int err = munmap_range(mm, addr, end);
	vrm->vma = NULL;
	if (err) {
		/* Linux: "OOM: unable to split vma, just get accounts right". */
		if (accountable_move)
			vm_acct_memory((long)(vrm->old_len >> PAGE_SHIFT));
		vma = find_vma(mm, addr);
		if (accountable_move && vma && vma->vm_start <= addr)
			vma_set_flags(vma, vma->vm_flags | VM_ACCOUNT);
		return;
	}
	if (accountable_move) {
		struct vm_area_struct *prev = vm_start < addr ? find_vma(mm, vm_start) : NULL;
		struct vm_area_struct *next = vm_end > end ? find_vma(mm, end) : NULL;
		if (prev)
			vma_set_flags(prev, prev->vm_flags | VM_ACCOUNT);
		if (next)
			vma_set_flags(next, next->vm_flags | VM_ACCOUNT);
	}
}

/* Linux's copy_vma_and_data: the new VMA, then the entries. A move that
 * stops short is undone (Linux moves the entries back) and the new VMA
 * becomes the one to unmap. In mmlab move_page_tables moves all or
 * nothing (prepare_move), so the move back has nothing to do unless the
 * "cannot happen" path of move_page_tables ran; it is kept as Linux's. */
static int copy_vma_and_data(struct vma_remap_struct *vrm, struct vm_area_struct **new_vma_ptr)
{
	struct vm_area_struct *vma = vrm->vma;
	unsigned long new_pgoff = vma->vm_pgoff + ((vrm->addr - vma->vm_start) >> PAGE_SHIFT);
	struct vm_area_struct *new_vma = copy_vma(&vma, vrm->new_addr, vrm->new_len, new_pgoff);
	if (!new_vma) {
		vrm_uncharge(vrm);
		*new_vma_ptr = NULL;
		return -ENOMEM;
	}
	vrm->vma = vma;
	unsigned long moved_len = move_page_tables(vma, vrm->addr, new_vma, vrm->new_addr, vrm->old_len);
	int err = 0;
	if (moved_len < vrm->old_len) {
		err = -ENOMEM;
		move_page_tables(new_vma, vrm->new_addr, vma, vrm->addr, moved_len);
		vrm->vma = new_vma;
		vrm->old_len = vrm->new_len;
		vrm->addr = vrm->new_addr;
	}
	*new_vma_ptr = new_vma;
	return err;
}

/* Linux's dontunmap_complete: the old VMA stays, empty; it loses
 * VM_LOCKED (its pages went) and its anon_vma when all of it moved. It
 * keeps VM_ACCOUNT, as Linux 6.6 did: its own charge is still there (the
 * new VMA was charged new_len apart) and goes when it is unmapped. The
 * vma_remap_struct version read clears VM_ACCOUNT too, which leaves that
 * charge with no VMA to give it back. */
static void dontunmap_complete(struct vma_remap_struct *vrm, struct vm_area_struct *new_vma)
{
	struct vm_area_struct *vma = vrm->vma;
	unsigned long start = vrm->addr, end = vrm->addr + vrm->old_len;
	vma_set_flags(vma, vma->vm_flags & ~VM_LOCKED);
	if (new_vma != vma && start == vma->vm_start && end == vma->vm_end)
		unlink_anon_vmas(vma);
}

/* Linux's prep_move_vma + move_vma. */
static unsigned long move_vma(struct vma_remap_struct *vrm)
{
	struct mm_struct *mm = vrm->mm;
	/* Linux's prep_move_vma: the unmap of the old range may split one
	 * VMA into three. */
	if (mm->map_count >= sysctl_max_map_count - 3)
		return -ENOMEM;
	if (!vrm_calc_charge(vrm))
		return -ENOMEM;
	struct vm_area_struct *new_vma;
	int err = copy_vma_and_data(vrm, &new_vma);
	if (err && !new_vma)
		return err;
	/* total_vm is raised by new_len, then the unmap lowers it by
	 * old_len: the peak in between is not a real one. */
	unsigned long hiwater_vm = mm->hiwater_vm;
	vrm_stat_account(vrm, vrm->new_len);
	unsigned long charged = vrm->charged;
	bool accountable_move = (vrm->vma->vm_flags & VM_ACCOUNT) && !(vrm->flags & MREMAP_DONTUNMAP);
	if (!err && (vrm->flags & MREMAP_DONTUNMAP))
		dontunmap_complete(vrm, new_vma);
	else
		unmap_source_vma(vrm);
	/* A failed move unmapped the new VMA with VM_ACCOUNT hidden, so the
	 * growth charged for it is given back here (Linux keeps it: a leak of
	 * the commit count on that out-of-memory path). */
	if (err && accountable_move)
		vm_unacct_memory((long)charged);
	mm->hiwater_vm = hiwater_vm;
	return err ? (unsigned long)(long)err : vrm->new_addr;
}

/* Linux's remap_is_valid (6.1's vma_to_resize, without the lookup): may
 * [addr, addr + old_len) of vrm->vma become new_len long? */
static int remap_is_valid(struct vma_remap_struct *vrm)
{
	struct vm_area_struct *vma = vrm->vma;
	/* old_len 0 asks for a duplicate of a shared mapping (Linux's "DOS-emu
	 * duplicate shm area"); a private one gives an unrelated mapping:
	 * refused, as Linux since 5.14. mmlab has no shared mappings. */
	if (!vrm->old_len && !(vma->vm_flags & (VM_SHARED | VM_MAYSHARE)))
		return -EINVAL;
	/* MREMAP_DONTUNMAP: Linux refuses VM_DONTEXPAND and VM_PFNMAP (5.7 to
	 * 5.12 took private anonymous memory only); every mmlab mapping is
	 * private anonymous, so nothing is refused here. */
	if (vrm->old_len > vma->vm_end - vrm->addr)
		return -EFAULT; /* the old range leaves its VMA */
	if (vrm->new_len == vrm->old_len)
		return 0;
	unsigned long pgoff = vma->vm_pgoff + ((vrm->addr - vma->vm_start) >> PAGE_SHIFT);
	if (pgoff + (vrm->new_len >> PAGE_SHIFT) < pgoff)
		return -EINVAL;
	/* A locked VMA grows within RLIMIT_MEMLOCK (or with CAP_IPC_LOCK). */
	if (vrm->new_len > vrm->old_len && !mlock_future_ok(vrm->mm, vma->vm_flags, vrm->delta))
		return -EAGAIN;
	if (!may_expand_vm(vrm->mm, vrm->delta >> PAGE_SHIFT))
		return -ENOMEM;
	return 0;
}

/* Linux's shrink_vma: the tail [addr + new_len, addr + old_len) is
 * unmapped (uncharged there by munmap), whatever VMAs it covers, through
 * munmap's own range checks: an old_len that runs past TASK_SIZE (or
 * wraps) is -EINVAL before anything is touched, as Linux's do_vmi_munmap
 * gives, instead of unmapping everything above addr + new_len. */
static unsigned long shrink_vma(struct vma_remap_struct *vrm)
{
	int err = do_munmap_locked(vrm->mm, vrm->addr + vrm->new_len, vrm->old_len - vrm->new_len);
	vrm->vma = NULL;
	if (err)
		return (unsigned long)(long)err;
	vrm->vma = find_vma(vrm->mm, vrm->addr);
	if (!vrm->vma || vrm->vma->vm_start > vrm->addr)
		return -EFAULT;
	return 0;
}

/* Linux's mremap_to: MREMAP_FIXED and/or MREMAP_DONTUNMAP. */
static unsigned long mremap_to(struct vma_remap_struct *vrm)
{
	struct mm_struct *mm = vrm->mm;
	unsigned long err;
	if (vrm->new_len > TASK_SIZE || vrm->new_addr > TASK_SIZE - vrm->new_len)
		return -EINVAL;
	if (vrm_overlaps(vrm))
		return -EINVAL;
	if (vrm->flags & MREMAP_FIXED) {
		/* The destination is unmapped first (as MAP_FIXED). */
		int ret = munmap_range(mm, vrm->new_addr, vrm->new_addr + vrm->new_len);
		vrm->vma = NULL;
		if (ret)
			return (unsigned long)(long)ret;
		vrm->vma = find_vma(mm, vrm->addr);
		if (!vrm->vma || vrm->vma->vm_start > vrm->addr)
			return -EFAULT;
	}
	if (vrm->remap_type == MREMAP_SHRINK) {
		err = shrink_vma(vrm);
		if (err)
			return err;
		vrm->old_len = vrm->new_len;
		/* The shrink has uncharged the tail: what is left moves
		 * as it is, charged nothing, as Linux 6.6's move_vma did
		 * (to_account = new_len - old_len, taken after the shrink).
		 * The vma_remap_struct version read keeps the old delta
		 * here and so charges the unmapped tail again in
		 * vrm_calc_charge: mmlab recomputes it. */
		vrm_set_delta(vrm);
	}
	int ret = remap_is_valid(vrm);
	if (ret)
		return (unsigned long)(long)ret;
	/* MREMAP_DONTUNMAP keeps the old VMA: the mm grows by old_len. */
	if ((vrm->flags & MREMAP_DONTUNMAP) && !may_expand_vm(mm, vrm->old_len >> PAGE_SHIFT))
		return -ENOMEM;
	err = vrm_set_new_addr(vrm);
	if (err)
		return err;
	return move_vma(vrm);
}

/* Linux's vma_expandable: the gap after the VMA holds delta more bytes
 * below TASK_SIZE. */
static bool vma_expandable(struct vm_area_struct *vma, unsigned long delta)
{
	unsigned long end = vma->vm_end + delta;
	if (end < vma->vm_end)
		return false;
	if (find_vma_intersection(vma->vm_mm, vma->vm_end, end))
		return false;
	if (get_unmapped_area(vma->vm_mm, vma->vm_start, end - vma->vm_start, MAP_FIXED) & ~PAGE_MASK)
		return false;
	return true;
}

/* Linux's expand_vma_in_place. */
static unsigned long expand_vma_in_place(struct vma_remap_struct *vrm)
{
	if (!vrm_calc_charge(vrm))
		return -ENOMEM;
	struct vm_area_struct *vma = vma_merge_extend(vrm->mm, vrm->vma, vrm->delta);
	if (!vma) {
		vrm_uncharge(vrm);
		return -ENOMEM;
	}
	vrm->vma = vma;
	vrm_stat_account(vrm, vrm->delta);
	return 0;
}

/* Linux's expand_vma: in place if [addr, addr + old_len) ends the VMA and
 * the gap after it allows, else a move (MREMAP_MAYMOVE), else -ENOMEM. */
static unsigned long expand_vma(struct vma_remap_struct *vrm)
{
	unsigned long addr = vrm->addr;
	int ret = remap_is_valid(vrm);
	if (ret)
		return (unsigned long)(long)ret;
	if (vrm->vma->vm_end - addr == vrm->old_len && vma_expandable(vrm->vma, vrm->delta)) {
		unsigned long err = expand_vma_in_place(vrm);
		if (err)
			return err;
		vrm->new_addr = addr; /* where the growth is populated if locked */
		return addr;
	}
	if (!(vrm->flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	unsigned long err = vrm_set_new_addr(vrm);
	if (err)
		return err;
	return move_vma(vrm);
}

/* Linux's mremap_at: no new address asked for. */
static unsigned long mremap_at(struct vma_remap_struct *vrm)
{
	switch (vrm->remap_type) {
	case MREMAP_NO_RESIZE:
		return vrm->addr;
	case MREMAP_SHRINK: {
		unsigned long err = shrink_vma(vrm);
		return err ? err : vrm->addr;
	}
	case MREMAP_EXPAND:
		return expand_vma(vrm);
	case MREMAP_INVALID:
		break;
	}
	return -EINVAL;
}

/* Linux's check_mremap_params, before any lock. (Linux 6.6 and before
 * checked the same things in the system call and in mremap_to in another
 * order, all -EINVAL alike, except the map_count check (-ENOMEM), which
 * came after the VMA lookup (-EFAULT) and the destination's range and
 * overlap checks (-EINVAL).) */
static unsigned long check_mremap_params(struct vma_remap_struct *vrm)
{
	unsigned long flags = vrm->flags;
	if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if (vrm->addr & ~PAGE_MASK)
		return -EINVAL;
	/* A zero old_len is allowed here (see remap_is_valid), a zero new_len
	 * (after rounding up) never. */
	if (!PAGE_ALIGN(vrm->new_len))
		return -EINVAL;
	if (!vrm_implies_new_addr(vrm))
		return 0;
	if (vrm->new_addr & ~PAGE_MASK)
		return -EINVAL;
	if (!(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) && vrm->old_len != vrm->new_len)
		return -EINVAL;
	/* Both the old and the new range may be split in three before the
	 * move: refuse early rather than fail half way. */
	if (vrm->mm->map_count + 2 >= sysctl_max_map_count - 3)
		return -ENOMEM;
	return 0;
}

unsigned long do_mremap(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
			unsigned long new_len, unsigned long flags, unsigned long new_addr)
{
	struct vma_remap_struct vrm = {
		.mm = mm, .addr = addr, .old_len = old_len, .new_len = new_len,
		.flags = flags, .new_addr = new_addr, .remap_type = MREMAP_INVALID,
	};
	unsigned long res = check_mremap_params(&vrm);
	if (res)
		return res;
	vrm.old_len = PAGE_ALIGN(vrm.old_len);
	vrm.new_len = PAGE_ALIGN(vrm.new_len);
	vrm_set_delta(&vrm);

	mmap_write_lock(mm);
	/* Linux's vma_lookup: the VMA that contains addr. */
	struct vm_area_struct *vma = find_vma(mm, vrm.addr);
	if (!vma || vma->vm_start > vrm.addr) {
		mmap_write_unlock(mm);
		return -EFAULT;
	}
	vrm.vma = vma;
	/* Linux's align_hugetlb: both lengths rounded up to the huge page
	 * size, the addresses aligned to it, no growth (the reservations
	 * cannot follow). Linux moves a hugetlb mapping too
	 * (move_hugetlb_page_tables); mmlab does not yet: a move is -EINVAL,
	 * so only a shrink in place or a same-size call remain. */
	if (is_vm_hugetlb_page(vma)) {
		unsigned long sz = huge_page_size(hstate_vma(vma));
		vrm.old_len = ALIGN_UP(vrm.old_len, sz);
		vrm.new_len = ALIGN_UP(vrm.new_len, sz);
		vrm_set_delta(&vrm);
		if ((vrm.addr & (sz - 1)) || (vrm.new_addr & (sz - 1)) || vrm.new_len > vrm.old_len ||
		    vrm_implies_new_addr(&vrm)) {
			mmap_write_unlock(mm);
			return -EINVAL;
		}
	}
	vrm.remap_type = vrm_remap_type(&vrm);
	res = vrm_implies_new_addr(&vrm) ? mremap_to(&vrm) : mremap_at(&vrm);
	if (IS_ERR_VALUE(res) || !vrm.mlocked || vrm.new_len <= vrm.old_len) {
		mmap_write_unlock(mm);
		return res;
	}
	/* A locked mapping that grew: its new pages are faulted in, under
	 * the read lock (Linux drops the lock and mm_populate takes it; mmlab
	 * downgrades, as its mmap does). */
	mmap_write_downgrade(mm);
	/* Linux's mm_populate (errors ignored; a VM_LOCKONFAULT mapping is
	 * left to its faults). */
	__mm_populate(mm, vrm.new_addr + vrm.old_len, vrm.new_len - vrm.old_len, true);
	mmap_read_unlock(mm);
	return res;
}

SYSCALL_DEFINE5(mremap, unsigned long, addr, unsigned long, old_len, unsigned long, new_len,
		unsigned long, flags, unsigned long, new_addr)
{
	return (long)do_mremap(current->mm, addr, old_len, new_len, flags, new_addr);
}
