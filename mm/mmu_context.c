/* An address space's life: mm_alloc, mmput (its last user unmaps and frees
 * everything), switch_mm, kthread_use_mm. See mm/mmu_context.h for the
 * invariants and the locking. */
#include "mm/swapfile.h"
#include "mm/mmu_context.h"
#include "mm/khugepaged.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "kernel/signal.h"
#include "mm/hugetlb_vma.h"
#include "mm/mempolicy.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/util.h"
#include "mm/vma.h"

/* The count of live user mms, and the lock under which it is counted so
 * that hold_off_new_user_mms_if_none() can keep it at zero. */
static DEFINE_SPINLOCK(live_user_mms_lock);
static long live_user_mms;

long nr_live_user_mms(void) { return __atomic_load_n(&live_user_mms, __ATOMIC_RELAXED); }

bool hold_off_new_user_mms_if_none(void)
{
	spin_lock(&live_user_mms_lock);
	if (!live_user_mms)
		return true;
	spin_unlock(&live_user_mms_lock);
	return false;
}

void allow_new_user_mms(void) { spin_unlock(&live_user_mms_lock); }

static void live_user_mms_add(long delta)
{
	spin_lock(&live_user_mms_lock);
	__atomic_add_fetch(&live_user_mms, delta, __ATOMIC_RELAXED);
	spin_unlock(&live_user_mms_lock);
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kmalloc(sizeof(*mm), GFP_KERNEL | __GFP_ZERO);
	if (!mm)
		return NULL;
	struct page *pgd = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!pgd) {
		kfree(mm);
		return NULL;
	}
	mm->pgd = page_address(pgd);
	/* The kernel half: entries that never change (memory_init made them
	 * all), so a copy made now stays right. */
	memcpy(mm->pgd + PTRS_PER_TABLE / 2, swapper_pg_dir + PTRS_PER_TABLE / 2,
	       PTRS_PER_TABLE / 2 * sizeof(pgd_t));
	mm->mm_rb = RB_ROOT;
	mmap_init_lock(mm);
	spin_lock_init(&mm->page_table_lock);
	INIT_LIST_HEAD(&mm->pmd_huge_pte);
	INIT_LIST_HEAD(&mm->mmlist);
	mm->mm_users = 1;
	mm->mm_count = 1;
	mm->mmap_base = MMAP_BASE;
	/* Linux's mm_init: a process's new mm (its exec's) keeps what
	 * mmf_init_flags passes on, and exec makes it dumpable again
	 * (setup_new_exec's set_dumpable(SUID_DUMP_USER)); a fork's copies
	 * the parent's flags after this (dup_mm). The kernel's first
	 * program starts dumpable. */
	struct mm_struct *old = current->signal ? current->mm : NULL;
	mm->flags = (old ? mmf_init_flags(READ_ONCE(old->flags)) & ~MMF_DUMPABLE_MASK : 0) | SUID_DUMP_USER;
	live_user_mms_add(1);
	return mm;
}

void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL))
		return;
	khugepaged_exit(mm); /* before the teardown, as Linux's __mmput */
	/* Stop using its page tables before they go. */
	if ((read_cr3() & PTE_PFN_MASK) == __pa(mm->pgd))
		switch_mm(mm, NULL);
	exit_mmap(mm);
	swap_mmlist_del(mm);
	if (mm->pgtables_bytes || mm->nr_ptes || get_mm_rss(mm))
		pr_err("BUG: mm %p freed with %ld bytes of page tables, %ld PTE tables, %lu pages\n",
		       (void *)mm, mm->pgtables_bytes, mm->nr_ptes, get_mm_rss(mm));
	for (int i = 0; i < PTRS_PER_TABLE / 2; i++)
		if (!pgd_none(mm->pgd[i]))
			pr_err("BUG: mm %p freed with PGD entry %d still set\n", (void *)mm, i);
	__free_page(virt_to_page(mm->pgd));
	mm->pgd = NULL;
	live_user_mms_add(-1);
	mmdrop(mm); /* the users' reference to the struct */
}

void mmdrop(struct mm_struct *mm)
{
	if (!__atomic_sub_fetch(&mm->mm_count, 1, __ATOMIC_ACQ_REL))
		kfree(mm);
}

void switch_mm(struct mm_struct *prev, struct mm_struct *next)
{
	(void)prev;
	phys_addr_t pgd = next ? __pa(next->pgd) : __pa(swapper_pg_dir);
	if (next)
		__atomic_fetch_or(&mm_cpumask(next)->bits, 1ull << smp_processor_id(), __ATOMIC_SEQ_CST);
	if ((read_cr3() & PTE_PFN_MASK) != pgd) {
		/* Before the CR3 write (serialising: the store is visible to
		 * every flusher before this CPU can cache a translation of
		 * the new tables). */
		tlb_note_loaded_pgd(pgd);
		write_cr3(pgd);
	}
}

void kthread_use_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	if (tsk->mm)
		panic("BUG: kthread_use_mm by %s, which has an mm already", tsk->comm);
	/* Interrupts off: the scheduler must see task and CR3 agree. */
	unsigned long irq;
	local_irq_save(irq);
	tsk->mm = mm;
	switch_mm(NULL, mm);
	local_irq_restore(irq);
}

void kthread_unuse_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	if (tsk->mm != mm)
		panic("BUG: kthread_unuse_mm by %s of an mm it does not use", tsk->comm);
	unsigned long irq;
	local_irq_save(irq);
	tsk->mm = NULL;
	switch_mm(mm, NULL);
	local_irq_restore(irq);
}

/* --- fork ------------------------------------------------------------------ */

/* Linux's dup_mmap (kernel/fork.c in 6.1, beside mm_alloc and dup_mm, as
 * here; mm/mmap.c since 6.16): every VMA
 * of oldmm but MADV_DONTFORK's is copied into mm with its policy, joins
 * its anon_vmas (anon_vma_fork) and gets its entries copied
 * (copy_page_range); a MADV_WIPEONFORK VMA starts empty, as a new
 * mapping; mlock does not pass to a child. Both mmap_locks are held for
 * writing (the parent's first), so no fault runs in either meanwhile; the
 * parent's TLB is flushed once at the end, after every write bit taken
 * away. A failure leaves what was copied for the caller's mmput. */
static int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	int err = 0;
	mmap_write_lock(oldmm);
	if (fatal_signal_pending(current)) { /* Linux's mmap_write_lock_killable */
		mmap_write_unlock(oldmm);
		return -EINTR;
	}
	mmap_write_lock(mm);
	mm->total_vm = oldmm->total_vm;
	mm->hiwater_vm = oldmm->total_vm;
	mm->mmap_base = oldmm->mmap_base;
	mm->start_code = oldmm->start_code;
	mm->end_code = oldmm->end_code;
	mm->start_data = oldmm->start_data;
	mm->end_data = oldmm->end_data;
	mm->start_brk = oldmm->start_brk;
	mm->brk = oldmm->brk;
	mm->start_stack = oldmm->start_stack;
	mm->arg_start = oldmm->arg_start;
	mm->arg_end = oldmm->arg_end;
	mm->env_start = oldmm->env_start;
	mm->env_end = oldmm->env_end;
	/* Linux's mm_init: of the default flags only VM_NOHUGEPAGE is
	 * inherited (VM_INIT_DEF_MASK): mlockall(MCL_FUTURE) is not. */
	mm->def_flags = oldmm->def_flags & VM_NOHUGEPAGE;
	khugepaged_fork(mm, oldmm); /* a registered parent's child is scanned too */
	for (struct vm_area_struct *mpnt = vma_first(oldmm); mpnt; mpnt = mpnt->vm_next) {
		long pages = (long)((mpnt->vm_end - mpnt->vm_start) >> PAGE_SHIFT);
		if (mpnt->vm_flags & VM_DONTCOPY) {
			vm_stat_account(mm, -pages);
			continue;
		}
		if ((mpnt->vm_flags & VM_ACCOUNT) && security_vm_enough_memory_mm(oldmm, pages)) {
			err = -ENOMEM;
			break;
		}
		/* Its policy, hugetlb map and shmem object come with it: the
		 * child maps the same shared pages. */
		struct vm_area_struct *tmp = vm_area_copy(mpnt);
		if (tmp) {
			tmp->vm_mm = mm;
			tmp->vm_flags &= ~VM_LOCKED_MASK;
			if (!(tmp->vm_flags & VM_WIPEONFORK))
				err = anon_vma_fork(tmp, mpnt);
			if (!err && is_vm_hugetlb_page(tmp))
				err = hugetlb_dup_vma_private(tmp);
		}
		if (!tmp || err) {
			if (mpnt->vm_flags & VM_ACCOUNT)
				vm_unacct_memory(pages);
			if (tmp)
				vm_area_dup_abort(tmp);
			err = -ENOMEM;
			break;
		}
		struct vm_area_struct *prev;
		struct rb_node **link, *parent;
		find_vma_links(mm, tmp->vm_start, tmp->vm_end, &prev, &link, &parent);
		vma_link(mm, tmp, prev, link, parent);
		if (!(tmp->vm_flags & VM_WIPEONFORK))
			err = copy_page_range(tmp, mpnt);
		if (err)
			break;
	}
	/* The write bits taken from the parent's entries go from every TLB
	 * (Linux's flush_tlb_mm at the end of dup_mmap). */
	flush_tlb_mm_range(oldmm, 0, TASK_SIZE);
	mmap_write_unlock(mm);
	mmap_write_unlock(oldmm);
	return err;
}

int dup_mm(struct mm_struct *oldmm, struct mm_struct **newp)
{
	struct mm_struct *mm = mm_alloc();
	*newp = NULL;
	if (!mm)
		return -ENOMEM;
	mm->flags = mmf_init_flags(READ_ONCE(oldmm->flags)); /* the dumpable mode too */
	int err = dup_mmap(mm, oldmm);
	if (err) {
		mmput(mm); /* exit_mmap undoes the part copied */
		return err;
	}
	mm->hiwater_rss = get_mm_rss(mm);
	*newp = mm;
	return 0;
}
