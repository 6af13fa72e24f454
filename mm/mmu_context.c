/* An address space's life: mm_alloc, mmput (its last user unmaps and frees
 * everything), switch_mm, kthread_use_mm. See mm/mmu_context.h for the
 * invariants and the locking. */
#include "mm/mmu_context.h"
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
	mm->mm_users = 1;
	mm->mm_count = 1;
	mm->mmap_base = MMAP_BASE;
	live_user_mms_add(1);
	return mm;
}

void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL))
		return;
	/* Stop using its page tables before they go. */
	if ((read_cr3() & PTE_PFN_MASK) == __pa(mm->pgd))
		switch_mm(mm, NULL);
	exit_mmap(mm);
	if (mm->pgtables_bytes || mm->nr_ptes || get_mm_rss(mm))
		pr_err("BUG: mm %p freed with %ld bytes of page tables, %ld PTE tables, %lu pages\n",
		       (void *)mm, mm->pgtables_bytes, mm->nr_ptes, get_mm_rss(mm));
	for (int i = 0; i < PTRS_PER_TABLE / 2; i++)
		if (!pgd_none(mm->pgd[i]))
			pr_err("BUG: mm %p freed with PGD entry %d still set\n", (void *)mm, i);
	__free_page(virt_to_page(mm->pgd));
	kfree(mm);
	live_user_mms_add(-1);
}

void switch_mm(struct mm_struct *prev, struct mm_struct *next)
{
	(void)prev;
	phys_addr_t pgd = next ? __pa(next->pgd) : __pa(swapper_pg_dir);
	if (next)
		__atomic_fetch_or(&mm_cpumask(next)->bits, 1ull << smp_processor_id(), __ATOMIC_SEQ_CST);
	if ((read_cr3() & PTE_PFN_MASK) != pgd)
		write_cr3(pgd);
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

/* Not yet: fork's copy of an address space (copy_page_range, copy-on-write
 * and the reverse map) is being built; until then a fork fails as one out
 * of memory would. */
int dup_mm(struct mm_struct *oldmm, struct mm_struct **newp)
{
	(void)oldmm;
	*newp = NULL;
	return -ENOMEM;
}
