/* Moving private anonymous pages between nodes (Linux's mm/migrate.c): a
 * page mapped once by its PTE, found by address, no rmap walk; one that
 * fork shared through the anon rmap (migrate_shared_page); a shmem page
 * through the i_mmap of its object's file (mm/migrate_shmem.c); and move_pages(2)
 * (279) with Linux's per-page status.
 *
 * migrate_anon_page replaces the PTE under its lock the way Linux's
 * migration entries make it safe: the entry is cleared and the TLB of
 * every CPU of the mm flushed first, so no thread can write to the old page
 * while it is copied; then the page's reference count must be exactly the
 * mapping's (Linux's folio_ref_freeze of the expected count): a
 * get_user_pages reference taken before the clear keeps the page where it
 * is (-EBUSY, the old entry put back), and one taken after it sees the
 * entry changed and lets go. The entry never becomes none for the
 * PTE-table refcount (mm/pte_ref.h): it goes from one page to the other
 * under the lock, so the table's count does not change. */
#include "mm/migrate.h"
#include "mm/migrate_internal.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/cred.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "mm/hugetlb_vma.h"

int anon_page_node(struct vm_area_struct *vma, unsigned long addr)
{
	struct mm_struct *mm = vma->vm_mm;
	if (is_vm_hugetlb_page(vma)) {
		spin_lock(huge_pte_lockptr(mm));
		u64 entry = huge_ptep_get_locked(vma, addr);
		spin_unlock(huge_pte_lockptr(mm));
		return entry & _PAGE_PRESENT ? page_to_nid(pfn_to_page((entry & PTE_PFN_MASK) >> PAGE_SHIFT)) : -ENOENT;
	}
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (!pmd)
		return -ENOENT;
	if (pmd_trans_huge(pmdp_get(pmd))) {
		/* A THP: its one node (read under the PMD lock, so the page is
		 * the one still mapped). */
		spinlock_t *ptl = pmd_lockptr(mm, pmd);
		spin_lock(ptl);
		pmd_t val = pmdp_get(pmd);
		int ret = !pmd_trans_huge(val) ? -EAGAIN
			  : is_huge_zero_pmd(val) ? -EFAULT /* as the zero page: not reported */
						  : page_to_nid(pfn_to_page(pmd_pfn(val)));
		spin_unlock(ptl);
		if (ret != -EAGAIN)
			return ret;
		/* Split or zapped meanwhile: the PTE path below decides. */
	}
	spinlock_t *ptl;
	pte_t *pte = pte_tryget_map_lock(mm, pmd, addr, &ptl);
	if (!pte)
		return -ENOENT;
	pte_t entry = ptep_get(pte);
	int ret;
	if (!pte_present(entry))
		ret = -ENOENT;
	else if (is_zero_pfn(pte_pfn(entry)))
		ret = -EFAULT; /* Linux: special pages are not reported */
	else
		ret = page_to_nid(pfn_to_page(pte_pfn(entry)));
	pte_unmap_unlock(pte, ptl);
	pte_put(mm, pmd, addr);
	return ret;
}

/* --- a page several processes map: through the reverse map --------------------- */

/* Linux's migrate_folio_unmap + move + remove_migration_ptes for a 4 KiB
 * anonymous page found by its frame rather than by one mapping: every
 * mapping, found through the reverse map, is turned into a migration
 * entry; if then nothing but the mover holds the page (no mapping left,
 * no get_user_pages reference), it is copied to new and every entry maps
 * new, else every entry maps old again. Whether it moved. The references
 * are the caller's: old keeps the mover's, new its allocation's. caller is
 * the mm whose mmap_lock the caller holds (NULL: none; every mm is then
 * taken with a trylock). */
static bool move_anon_page(struct mm_struct *caller, struct page *old, struct page *new)
{
	struct shared_migration sm = { .old = old, .new = new, .caller = caller };
	/* new takes old's place in the reverse map before any entry moves:
	 * old's mapping goes with its last entry. */
	new->mapping = old->mapping;
	new->index = old->index;
	struct rmap_walk_control unmap = { .arg = &sm, .rmap_one = try_to_migrate_one };
	rmap_walk(old, &unmap);
	bool moved = !sm.busy && page_mapcount(old) == 0 && page_ref_count(old) == 1;
	if (moved) {
		memcpy(page_address(new), page_address(old), PAGE_SIZE);
		folio_migrate_lru(new, old);
	} else
		sm.new = old; /* the entries map old again */
	struct rmap_walk_control remap = { .arg = &sm, .rmap_one = remove_migration_pte };
	rmap_walk(new, &remap);
	migration_done(&sm);
	/* Not moved, or moved with every entry zapped meanwhile: new is in
	 * no one's reverse map. */
	if (!moved || page_mapcount(new) == 0) {
		new->mapping = NULL;
		new->index = 0;
	}
	return moved;
}

/* A page several processes map (MPOL_MF_MOVE_ALL), with the mover's
 * reference on old, which goes here; new is used or freed. */
static int migrate_shared_page(struct mm_struct *caller, struct page *old, struct page *new)
{
	bool moved = move_anon_page(caller, old, new);
	put_page(old);
	if (!moved) {
		__free_page(new);
		return -EBUSY;
	}
	int nid = page_to_nid(new);
	/* Its allocation's reference goes: the mappings hold theirs (and
	 * with none left, every entry zapped meanwhile, the page goes). */
	put_page(new);
	return nid;
}

int migrate_isolated_page(struct page *old, struct page *new)
{
	/* Only 4 KiB pages: a THP or hugetlb page is compound (compaction
	 * skips those, as Linux 6.1's). A page of a page cache (tmpfs, shmem)
	 * moves through its file's i_mmap. */
	if (compound_head(old) != old || PageAnonThp(old) || PageHugetlb(old) ||
	    page_test_flag(old, PG_shmem_thp) || page_test_flag(old, PG_shmem_tail))
		return -EBUSY;
	if (page_in_page_cache(old))
		return migrate_isolated_shmem_page(old, new);
	if (!page_anon_vma(old))
		return -EBUSY;
	/* Unmapped meanwhile (Linux's "freed from under us"): its anon_vma
	 * may be gone, so no walk; the caller's putback frees it. (A zap
	 * between this test and the walk's lock is the window reclaim's
	 * folio_referenced has too: mmlab's anon_vma has no RCU-delayed
	 * free for Linux's folio_get_anon_vma to rely on.) */
	if (!page_mapcount(old))
		return -EAGAIN;
	if (!move_anon_page(NULL, old, new))
		return -EAGAIN;
	put_page(old); /* the isolation's, its last: old is free */
	put_page(new); /* its allocation's: the mappings hold theirs */
	return 0;
}

int migrate_anon_page(struct vm_area_struct *vma, unsigned long addr, struct page *new, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	int target = page_to_nid(new), ret;
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (!pmd) {
		__free_page(new);
		return -ENOENT;
	}
	spinlock_t *ptl;
	pte_t *pte = pte_tryget_map_lock(mm, pmd, addr, &ptl);
	if (!pte) {
		__free_page(new);
		return -ENOENT;
	}
	pte_t orig = ptep_get(pte);
	if (!pte_present(orig)) {
		ret = -ENOENT;
		goto fail;
	}
	if (is_zero_pfn(pte_pfn(orig))) {
		ret = -EFAULT;
		goto fail;
	}
	struct page *old = pfn_to_page(pte_pfn(orig));
	if (page_to_nid(old) == target) {
		ret = target; /* already there */
		goto fail;
	}
	if (!page_anon_vma(old)) {
		/* A shmem page (mm/shmem.h): the object or the page cache
		 * holds it, any number of shared mappings map it. A private
		 * file mapping's page-cache page (mapped as it is until
		 * written: mm/filemap_fault.c) stays: -EBUSY (Linux would
		 * move a file page mapped once). Only with
		 * MPOL_MF_MOVE_ALL when it is mapped more than once (Linux's
		 * migrate_page_add and add_page_for_migration ask
		 * page_mapcount, whoever the mappings are). A page of a
		 * tmpfs file's huge page stays where it is (Linux splits
		 * the folio to move it; mm/shmem_huge.c). */
		if (!vma->vm_shm || compound_head(old) != old || page_test_flag(old, PG_shmem_thp)) {
			ret = -EBUSY;
			goto fail;
		}
		if (page_mapcount(old) > 1 && !(flags & MPOL_MF_MOVE_ALL)) {
			ret = -EACCES;
			goto fail;
		}
		get_page(old);
		pte_unmap_unlock(pte, ptl);
		pte_put(mm, pmd, addr);
		return migrate_shmem_page(vma, addr, old, new);
	}
	if (compound_head(old) != old || PageAnonThp(old)) {
		/* A 4 KiB page of a THP that fork shared and a split left
		 * whole (mm/rmap.h): Linux splits the THP for good first;
		 * mmlab leaves it where it is. */
		ret = -EBUSY;
		goto fail;
	}
	if (page_mapcount(old) > 1) {
		/* Mapped by other processes too since a fork: only
		 * MPOL_MF_MOVE_ALL moves it (Linux's "Avoid migrating a page
		 * that is shared with others"), through the reverse map. */
		if (!(flags & MPOL_MF_MOVE_ALL)) {
			ret = -EACCES;
			goto fail;
		}
		get_page(old);
		pte_unmap_unlock(pte, ptl);
		pte_put(mm, pmd, addr);
		return migrate_shared_page(mm, old, new);
	}
	/* No thread may write the old page from here on. */
	ptep_get_and_clear(mm, addr, pte);
	flush_tlb_mm_range(mm, addr, addr + PAGE_SIZE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&old->_refcount, __ATOMIC_SEQ_CST) != 1) {
		set_pte(pte, orig); /* pinned (get_user_pages): it stays */
		ret = -EBUSY;
		goto fail;
	}
	memcpy(page_address(new), page_address(old), PAGE_SIZE);
	folio_migrate_lru(new, old); /* before the mapping's add, which then finds it there */
	anon_page_mapped(vma, new, addr, 1);
	new->mapping = old->mapping; /* the old page's place in the reverse map */
	new->index = old->index;
	anon_page_unmapped(mm, old, 1);
	set_pte_at(mm, addr, pte, __pte((pte_val(orig) & ~PTE_PFN_MASK) | (page_to_pfn(new) << PAGE_SHIFT)));
	pte_unmap_unlock(pte, ptl);
	pte_put(mm, pmd, addr);
	put_page(old);
	return target;
fail:
	pte_unmap_unlock(pte, ptl);
	pte_put(mm, pmd, addr);
	__free_page(new);
	return ret;
}

/* The THP that *pmd maps at haddr moves to new (order 9) whole, as
 * migrate_anon_page moves a 4 KiB page: under the PMD lock, the entry
 * cleared and flushed, the reference count checked (a get_user_pages
 * reference would keep it; mmlab's splits the PMD first, so none does),
 * the 2 MiB copied, the new entry written. The deposited PTE table is the
 * mm's, and stays. Returns the target node, -EAGAIN when the PMD is no
 * longer huge (new is freed), or another negative errno. */
static int migrate_huge_pmd(struct vm_area_struct *vma, pmd_t *pmd, unsigned long haddr, struct page *new)
{
	struct mm_struct *mm = vma->vm_mm;
	int target = page_to_nid(new), ret;
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	pmd_t orig = pmdp_get(pmd);
	if (!pmd_trans_huge(orig)) {
		ret = -EAGAIN;
		goto fail;
	}
	struct page *old = pfn_to_page(pmd_pfn(orig));
	if (is_huge_zero_pmd(orig)) {
		ret = -EFAULT;
		goto fail;
	}
	if (page_test_flag(old, PG_shmem_thp)) {
		/* A tmpfs huge page stays (Linux splits the folio to move
		 * it; mm/shmem_huge.c). */
		ret = -EBUSY;
		goto fail;
	}
	if (page_to_nid(old) == target) {
		ret = target;
		goto fail;
	}
	pmdp_get_and_clear(mm, haddr, pmd);
	flush_tlb_mm_range(mm, haddr, haddr + PMD_SIZE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&old->_refcount, __ATOMIC_SEQ_CST) != 1) {
		set_pmd(pmd, orig);
		ret = -EBUSY;
		goto fail;
	}
	memcpy(page_address(new), page_address(old), PMD_SIZE);
	/* The THP's marks first: the LRU counts it as 512 pages. */
	page_set_flag(new, PG_anon_thp);
	folio_migrate_lru(new, old);
	anon_page_mapped(vma, new, haddr, HPAGE_PMD_NR);
	new->mapping = old->mapping;
	new->index = old->index;
	anon_page_unmapped(mm, old, HPAGE_PMD_NR);
	set_pmd_at(mm, haddr, pmd, __pmd((pmd_val(orig) & ~PTE_PFN_MASK) | page_to_phys(new)));
	spin_unlock(ptl);
	put_page(old); /* its last reference: the THP's marks come off as it goes */
	return target;
fail:
	spin_unlock(ptl);
	__free_pages(new, HPAGE_PMD_ORDER);
	return ret;
}

int migrate_anon_at(struct vm_area_struct *vma, unsigned long addr, migrate_alloc_t alloc, void *arg,
		    bool *split, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	*split = false;
	/* A hugetlb page moves whole, to a page of the target's pool
	 * (mm/migrate_hugetlb.c): to arg's node for alloc_migration_target
	 * (move_pages, migrate_pages), else where the VMA's policy says
	 * (mbind's alloc_by_policy). */
	if (is_vm_hugetlb_page(vma))
		return migrate_hugetlb_page(vma, addr, alloc == alloc_migration_target ? arg : NULL, flags);
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (pmd && pmd_trans_huge(pmdp_get(pmd))) {
		if (is_huge_zero_pmd(pmdp_get(pmd)))
			return -EFAULT; /* the huge zero page does not move */
		struct page *new = alloc(vma, addr & PMD_MASK, HPAGE_PMD_ORDER, arg);
		if (new) {
			int r = migrate_huge_pmd(vma, pmd, addr & PMD_MASK, new);
			if (r != -EAGAIN)
				return r;
		} else {
			/* No 2 MiB on the target: Linux splits the THP and
			 * moves its pages one by one; here the 4 KiB at addr,
			 * and the caller sees *split to go on with the rest. */
			split_huge_pmd(mm, pmd, addr);
			*split = true;
		}
	}
	struct page *new = alloc(vma, addr, 0, arg);
	if (!new)
		return -ENOMEM;
	return migrate_anon_page(vma, addr, new, flags);
}

struct page *alloc_migration_target(struct vm_area_struct *vma, unsigned long addr, unsigned order, void *arg)
{
	(void)vma, (void)addr;
	int nid = *(int *)arg;
	/* Linux 6.1's callers (migrate_to_node, do_move_pages_to_node) ask for
	 * GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, and alloc_migration_target
	 * turns a THP's into GFP_TRANSHUGE without kswapd.
	 *
	 * __GFP_NORETRY stands for what Linux's slow path decides by itself:
	 * after a round of reclaim, should_reclaim_retry() tries again only
	 * while the node's reclaimable pages (its LRU lists) plus its free
	 * pages would lift it over the min watermark. mmlab has no LRU
	 * reclaim, so that test can never pass and Linux would fail the page
	 * after one round (one drain_all_pages, one shrink); mmlab's slow path
	 * counts rounds instead, 17 of them, each with an IPI to every CPU.
	 * __GFP_NOWARN is mmlab's too: a full target is an answer the syscall
	 * returns (-ENOMEM), not something to report on the console. */
	gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN;
	if (order)
		gfp = (gfp & ~__GFP_RECLAIM) | GFP_TRANSHUGE;
	return __alloc_pages(gfp, order, nid, NULL);
}

int migrate_anon_page_to_node(struct vm_area_struct *vma, unsigned long addr, int nid)
{
	int cur = anon_page_node(vma, addr);
	if (cur < 0 || cur == nid)
		return cur;
	bool split;
	return migrate_anon_at(vma, addr, alloc_migration_target, &nid, &split, 0);
}

/* ---- move_pages(2) -------------------------------------------------------- */

struct mm_struct *find_mm_struct(int pid, int *err)
{
	struct mm_struct *mm;
	*err = 0;
	if (!pid) {
		mm = current->mm;
		mmget(mm);
		return mm;
	}
	struct task_struct *t = find_get_task_by_vpid(pid);
	if (!t) {
		*err = -ESRCH;
		return NULL;
	}
	/* Every mmlab process may act on any other (they all run as root).
	 * get_task_mm: its exit may be clearing ->mm meanwhile. */
	mm = t->signal ? get_task_mm(t) : NULL; /* Linux's get_task_mm gives a kernel thread none */
	put_task_struct(t);
	if (!mm)
		*err = -EINVAL;
	return mm;
}

static int page_status(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	if (!vma || addr < vma->vm_start)
		return -EFAULT;
	return anon_page_node(vma, addr & PAGE_MASK);
}

/* do_pages_move's batch: the run of pages [start, i) queued for node, as
 * Linux isolates them before one migrate_pages call. Here a page moves as
 * it is queued (under the mmap_lock taken for it alone, as Linux's
 * add_page_for_migration takes it), and the batch keeps what Linux's
 * migrate_pages would return for the run: -ENOMEM once a page found no free
 * page on node (the pages after it in the run are queued but not tried,
 * as Linux's migrate_pages gives up on the rest of its list), else the
 * count of pages that could not be moved. */
struct pages_move_batch {
	int node; /* NUMA_NO_NODE: no run open */
	unsigned long start;
	unsigned long queued;
	unsigned long failed; /* not moved, -ENOMEM aside */
	bool nomem;
	unsigned int flags; /* move_pages' MPOL_MF_MOVE or MPOL_MF_MOVE_ALL */
};

/* Linux's add_page_for_migration: 1 when the page at addr was queued
 * (and moved, or counted in the batch), 0 when it is on node already,
 * else the status to store: -EFAULT (no VMA, or the zero page), -ENOENT
 * (nothing mapped). */
static int add_page_for_migration(struct mm_struct *mm, unsigned long addr, struct pages_move_batch *b)
{
	int node = b->node, ret;
	mmap_read_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, addr);
	if (!vma || addr < vma->vm_start) {
		ret = -EFAULT;
		goto out;
	}
	ret = anon_page_node(vma, addr & PAGE_MASK);
	if (ret < 0)
		goto out;
	if (ret == node) {
		ret = 0;
		goto out;
	}
	ret = 1;
	b->queued++;
	if (!b->nomem) {
		bool split;
		int r = migrate_anon_at(vma, addr & PAGE_MASK, alloc_migration_target, &node, &split, b->flags);
		if (r == -EACCES) {
			/* Shared without MPOL_MF_MOVE_ALL: the page's status,
			 * not queued (Linux checks page_mapcount first). */
			b->queued--;
			ret = -EACCES;
		} else if (r == -ENOMEM)
			b->nomem = true;
		else if (r < 0 && r != -ENOENT) /* gone meanwhile: Linux's "freed from under us" */
			b->failed++;
	}
out:
	mmap_read_unlock(mm);
	return ret;
}

static int store_status(int __user *status, unsigned long start, int value, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		if (copy_to_user(&status[start + i], &value, sizeof(value)))
			return -EFAULT;
	return 0;
}

/* Linux's move_pages_and_store_status for the run [b->start, i): -ENOMEM,
 * or the pages not moved plus the nr_pages - i not yet looked at, with no
 * status stored for the run; else the run's statuses are its node. */
static long move_pages_and_store_status(struct pages_move_batch *b, int __user *status, unsigned long i,
					unsigned long nr_pages)
{
	long err = 0;
	if (b->queued) {
		if (b->nomem)
			err = -ENOMEM;
		else if (b->failed)
			err = (long)(b->failed + nr_pages - i);
		else
			err = store_status(status, b->start, b->node, i - b->start);
	}
	b->queued = b->failed = 0;
	b->nomem = false;
	return err;
}

/* Linux's do_pages_move, step for step: runs of pages bound for one node
 * move together; a page that is not queued (already there, or an error
 * for its status) ends the run. A run that fails ends the call: -ENOMEM
 * when the node had no room, else the number of pages not moved (those of
 * the run that failed, and every page after it). The mmap_lock is taken
 * per page, never across a run. */
static long do_pages_move(struct mm_struct *mm, const nodemask_t *task_nodes, unsigned long nr_pages,
			  const void __user *__user *pages, const int __user *nodes, int __user *status,
			  unsigned int flags)
{
	struct pages_move_batch b = { .node = NUMA_NO_NODE, .flags = flags };
	nodemask_t memory = node_states_memory();
	long err = 0, err1;
	unsigned long i;
	for (i = 0; i < nr_pages; i++) {
		const void *p;
		int node;
		cond_resched(); /* as Linux's migrate_pages, per page */
		err = -EFAULT;
		if (copy_from_user(&p, &pages[i], sizeof(p)) || copy_from_user(&node, &nodes[i], sizeof(node)))
			goto out_flush;
		err = -ENODEV;
		if (node < 0 || node >= MAX_NUMNODES || !node_isset(node, memory))
			goto out_flush;
		err = -EACCES;
		if (!node_isset(node, *task_nodes))
			goto out_flush;
		if (b.node == NUMA_NO_NODE) {
			b.node = node;
			b.start = i;
		} else if (node != b.node) {
			err = move_pages_and_store_status(&b, status, i, nr_pages);
			if (err)
				goto out;
			b.start = i;
			b.node = node;
		}
		/* Errors in the lookup are the page's status, not the call's. */
		err = add_page_for_migration(mm, (unsigned long)p, &b);
		if (err > 0)
			continue;
		err = store_status(status, i, err ? (int)err : b.node, 1);
		if (err)
			goto out_flush;
		err = move_pages_and_store_status(&b, status, i, nr_pages);
		if (err) {
			if (err > 0)
				err--; /* page i is accounted for */
			goto out;
		}
		b.node = NUMA_NO_NODE;
	}
out_flush:
	/* Make sure we do not overwrite the existing error. */
	err1 = move_pages_and_store_status(&b, status, i, nr_pages);
	if (err >= 0)
		err = err1;
out:
	return err;
}

SYSCALL_DEFINE6(move_pages, int, pid, unsigned long, nr_pages, const void __user *__user *, pages,
		const int __user *, nodes, int __user *, status, int, flags)
{
	if (flags & ~(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL))
		return -EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && !capable(CAP_SYS_NICE))
		return -EPERM;
	int err;
	struct mm_struct *mm = find_mm_struct(pid, &err);
	if (!mm)
		return err;
	long ret = 0;
	if (nodes) {
		nodemask_t task_nodes = node_states_memory(); /* cpuset_mems_allowed(task) */
		ret = do_pages_move(mm, &task_nodes, nr_pages, pages, nodes, status, (unsigned int)flags);
	} else {
		/* do_pages_stat: each page's node or errno. */
		for (unsigned long i = 0; i < nr_pages; i++) {
			const void *p;
			if (copy_from_user(&p, &pages[i], sizeof(p))) {
				ret = -EFAULT;
				break;
			}
			mmap_read_lock(mm);
			int st = page_status(mm, (unsigned long)p);
			mmap_read_unlock(mm);
			if (copy_to_user(&status[i], &st, sizeof(st))) {
				ret = -EFAULT;
				break;
			}
		}
	}
	mmput(mm);
	return ret;
}
