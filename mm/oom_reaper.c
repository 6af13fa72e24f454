/* The oom_reaper (Linux 6.1's mm/oom_kill.c, its second half): a kernel
 * thread that frees an OOM victim's private memory while the victim is
 * still on its way out, so that a victim blocked in the kernel (on a lock,
 * in an uninterruptible wait) cannot hold the memory the OOM was for, and
 * then marks the mm MMF_OOM_SKIP so that the next OOM may choose another
 * victim rather than wait for this one.
 *
 * A victim is queued at the kill (queue_oom_reaper) and reaped
 * OOM_REAPER_DELAY later (Linux 6.0's "mm: delay oom_reaper" by Nico
 * Pache, commit e4a38402c36e: a futex robust list in private memory must
 * survive until the exit path wakes its waiters); Linux arms a timer,
 * mmlab's reaper sleeps until the queue's head is due (mmlab has no timer
 * list). A victim whose exit freed its mm first (exit_mmap set
 * MMF_OOM_SKIP) is dropped without a look, as soon as exit_mmap says so
 * (oom_reaper_mm_exited), not when it would be due: the queue's
 * reference on the victim's task_struct would otherwise hold its
 * parent's wait for OOM_REAPER_DELAY, since mmlab's release_task waits
 * for a task's last reference (Linux's last put_task_struct frees the
 * task instead, so there the reaper's timer costs the parent nothing).
 *
 * Locking: the queue under oom_reaper_lock; a victim's mm is held by its
 * signal->oom_mm (mmgrab) and reaped under its mmap_lock held for reading,
 * tried (mmap_read_trylock) MAX_OOM_REAP_RETRIES times, a tenth of a
 * second apart; exit_mmap sets MMF_OOM_SKIP under the write lock, so the
 * reaper, which checks it under the read lock, never walks a torn-down
 * mm. */
#include "mm/oom.h"
#include "kernel/init.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "arch/x86_64/apic.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/teardown.h"
#include "mm/vma.h"

#define K(pages) ((pages) << (PAGE_SHIFT - 10))
#define MAX_OOM_REAP_RETRIES 10
#define OOM_REAPER_DELAY (2 * HZ)

/* Linux's constant; a variable here only so that the kernel's test of a
 * pinned victim can shorten it (what it checks is the reaping, not how
 * long the delay is). */
unsigned long oom_reaper_delay = OOM_REAPER_DELAY;

static DEFINE_SPINLOCK(oom_reaper_lock);
static DECLARE_WAIT_QUEUE_HEAD(oom_reaper_wait);
/* Oldest first (Linux's is a stack: its timers decide the order). */
static struct task_struct *oom_reaper_head, **oom_reaper_tail = &oom_reaper_head;
static unsigned long reaped_count;
/* The victim being reaped (off the queue, its mm not yet MMF_OOM_SKIP). */
static struct task_struct *oom_reaper_current;

unsigned long oom_reaped(void) { return __atomic_load_n(&reaped_count, __ATOMIC_RELAXED); }

/* Whether a victim's mm is done with: freed by its own exit (exit_mmap)
 * or reaped, either way MMF_OOM_SKIP. */
static bool oom_victim_done(const struct task_struct *t)
{
	return mm_flag_test(t->signal->oom_mm, MMF_OOM_SKIP);
}

bool oom_victims_pending(void)
{
	bool pending = false;
	spin_lock(&oom_reaper_lock);
	for (struct task_struct *t = oom_reaper_head; t && !pending; t = t->oom_reaper_list)
		pending = !oom_victim_done(t);
	if (oom_reaper_current && !oom_victim_done(oom_reaper_current))
		pending = true;
	spin_unlock(&oom_reaper_lock);
	return pending;
}

void __oom_reap_task_mm(struct mm_struct *mm)
{
	/* Readers of the victim's memory (get_user) may now see zeroes. */
	mm_flag_set(mm, MMF_UNSTABLE);
	for (struct vm_area_struct *vma = vma_first(mm); vma; vma = vma->vm_next) {
		/* Linux 6.1 skips VM_HUGETLB and VM_PFNMAP (mmlab has no
		 * VM_PFNMAP) and reaps VM_LOCKED ones too since Hugh Dickins'
		 * "mm/munlock: delete munlock_vma_pages_all(), allow oomreap"
		 * (5.18): the zap munlocks. Only private memory: shared
		 * pages stay in their file's page cache. */
		if (vma->vm_flags & VM_HUGETLB)
			continue;
		if (!(vma->vm_flags & VM_SHARED))
			zap_page_range(vma, vma->vm_start, vma->vm_end - vma->vm_start);
	}
}

/* Linux's oom_reap_task_mm: false when the mmap_lock was held (try again
 * later). */
static bool oom_reap_task_mm(struct task_struct *tsk, struct mm_struct *mm)
{
	if (!mmap_read_trylock(mm))
		return false;
	/* Freed by the victim's own exit, or reaped: nothing to do. */
	if (!mm_flag_test(mm, MMF_OOM_SKIP)) {
		__oom_reap_task_mm(mm);
		__atomic_add_fetch(&reaped_count, 1, __ATOMIC_RELAXED);
		pr_info("oom_reaper: reaped process %d (%s), now anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB\n",
			tsk->tgid, tsk->comm, K(get_mm_counter(mm, MM_ANONPAGES)), 0ul /* no MM_FILEPAGES */,
			K(get_mm_counter(mm, MM_SHMEMPAGES)));
	}
	mmap_read_unlock(mm);
	return true;
}

/* The victim's own exit is tearing the mm down: its last user is gone,
 * and exit_mmap, which runs next in the same task, sets MMF_OOM_SKIP once
 * the memory is back. Linux 6.1's exit_mmap unmaps under the read lock,
 * so its reaper gets in beside it and finishes; mmlab's holds the write
 * lock throughout (its full-mm gather frees emptied PTE tables without
 * an RCU grace period, mm/mmu_gather.c), so the reaper cannot, and must
 * not give up on it either: a victim freeing a large mm on a slow
 * machine would otherwise be taken for a stuck one after a second, and
 * the next OOM would kill again while its memory is still on the way
 * back. */
static bool oom_exit_mmap_running(struct mm_struct *mm)
{
	return __atomic_load_n(&mm->mm_users, __ATOMIC_ACQUIRE) == 0;
}

static void oom_reap_task(struct task_struct *tsk)
{
	struct mm_struct *mm = tsk->signal->oom_mm;
	int attempts = 0;
	while (attempts++ < MAX_OOM_REAP_RETRIES && !oom_reap_task_mm(tsk, mm)) {
		if (oom_exit_mmap_running(mm))
			return; /* exit_mmap sets MMF_OOM_SKIP */
		schedule_timeout_uninterruptible(HZ / 10);
	}
	if (attempts > MAX_OOM_REAP_RETRIES && !mm_flag_test(mm, MMF_OOM_SKIP)) {
		if (oom_exit_mmap_running(mm))
			return;
		pr_info("oom_reaper: unable to reap pid:%d (%s)\n", tsk->tgid, tsk->comm);
	}
	/* Reaped, or stuck: either way the next OOM looks elsewhere. */
	mm_flag_set(mm, MMF_OOM_SKIP);
}

/* Whether a queued victim's exit freed its mm. */
static bool oom_reaper_has_exited(void)
{
	bool exited = false;
	spin_lock(&oom_reaper_lock);
	for (struct task_struct *t = oom_reaper_head; t && !exited; t = t->oom_reaper_list)
		exited = oom_victim_done(t);
	spin_unlock(&oom_reaper_lock);
	return exited;
}

/* The queued victims whose exit freed their mm leave the queue, their
 * references dropped (see the top of the file). */
static void oom_reaper_drop_exited(void)
{
	struct task_struct *dropped = NULL, **pp = &oom_reaper_head;
	spin_lock(&oom_reaper_lock);
	while (*pp) {
		struct task_struct *t = *pp;
		if (oom_victim_done(t)) {
			*pp = t->oom_reaper_list;
			t->oom_reaper_list = dropped;
			dropped = t;
		} else {
			pp = &t->oom_reaper_list;
		}
	}
	oom_reaper_tail = pp;
	spin_unlock(&oom_reaper_lock);
	while (dropped) {
		struct task_struct *t = dropped;
		dropped = t->oom_reaper_list;
		t->oom_reaper_list = NULL;
		put_task_struct(t); /* queue_oom_reaper's */
	}
}

void oom_reaper_mm_exited(struct mm_struct *mm)
{
	if (mm_flag_test(mm, MMF_OOM_REAP_QUEUED))
		wake_up(&oom_reaper_wait);
}

/* The head of the queue once it is due, or NULL. */
static struct task_struct *oom_reaper_take_due(void)
{
	struct task_struct *tsk = NULL;
	spin_lock(&oom_reaper_lock);
	if (oom_reaper_head && (s64)(jiffies - oom_reaper_head->oom_reaper_due) >= 0) {
		tsk = oom_reaper_head;
		oom_reaper_head = tsk->oom_reaper_list;
		if (!oom_reaper_head)
			oom_reaper_tail = &oom_reaper_head;
		tsk->oom_reaper_list = NULL;
		oom_reaper_current = tsk;
	}
	spin_unlock(&oom_reaper_lock);
	return tsk;
}

static long oom_reaper_wait_ticks(void)
{
	long ticks = 0;
	spin_lock(&oom_reaper_lock);
	if (oom_reaper_head) {
		s64 left = (s64)(oom_reaper_head->oom_reaper_due - jiffies);
		ticks = left > 0 ? (long)left : 0;
	} else {
		ticks = -1;
	}
	spin_unlock(&oom_reaper_lock);
	return ticks;
}

static int oom_reaper(void *unused)
{
	(void)unused;
	for (;;) {
		oom_reaper_drop_exited();
		long ticks = oom_reaper_wait_ticks();
		if (ticks < 0)
			wait_event(oom_reaper_wait, READ_ONCE(oom_reaper_head) != NULL);
		else if (ticks > 0)
			wait_event_timeout(oom_reaper_wait, oom_reaper_has_exited(), ticks);
		struct task_struct *tsk = oom_reaper_take_due();
		if (!tsk)
			continue;
		/* The victim managed to terminate on its own (exit_mmap). */
		if (!oom_victim_done(tsk))
			oom_reap_task(tsk);
		spin_lock(&oom_reaper_lock);
		oom_reaper_current = NULL;
		spin_unlock(&oom_reaper_lock);
		put_task_struct(tsk); /* queue_oom_reaper's */
	}
	return 0;
}

void queue_oom_reaper(struct task_struct *tsk)
{
	struct mm_struct *mm = tsk->signal->oom_mm;
	/* Queued already (another thread of the group, or a second kill). */
	if (__atomic_fetch_or(&mm->flags, 1ul << MMF_OOM_REAP_QUEUED, __ATOMIC_ACQ_REL) & (1ul << MMF_OOM_REAP_QUEUED))
		return;
	get_task_struct(tsk);
	spin_lock(&oom_reaper_lock);
	tsk->oom_reaper_due = jiffies + __atomic_load_n(&oom_reaper_delay, __ATOMIC_RELAXED);
	tsk->oom_reaper_list = NULL;
	*oom_reaper_tail = tsk;
	oom_reaper_tail = &tsk->oom_reaper_list;
	spin_unlock(&oom_reaper_lock);
	wake_up(&oom_reaper_wait);
}

static int oom_init(void)
{
	struct task_struct *t = kthread_run(oom_reaper, NULL, "oom_reaper");
	if (!t)
		pr_err("oom_reaper: not started (no memory)\n");
	return 0;
}
late_initcall(oom_init);
