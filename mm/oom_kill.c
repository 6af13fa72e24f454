/* The OOM killer's choice (Linux 6.1's mm/oom_kill.c oom_badness and
 * fs/proc/base.c's oom_score, oom_score_adj): mm/oom.h says what each
 * does. What is not built yet (out_of_memory, select_bad_process, the
 * kill and the oom_reaper) is in docs/reclaim.md.
 *
 * Locking: oom_score_adj and oom_score_adj_min are the process's
 * (signal_struct), written under its siglock, read without (a short, as
 * Linux reads it). The mm is the caller's, referenced (get_task_mm). */
#include "mm/oom.h"
#include "kernel/cred.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "mm/mm_types.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

#define LONG_MIN_VALUE (-__LONG_MAX__ - 1)

/* Linux's oom_unkillable_task: init, kernel threads. A kernel thread
 * here is a task with no thread group (no signal_struct: fs/proc/array.c
 * shows it PF_KTHREAD so); mmlab's processes start from kernel threads
 * and keep the flag. */
static bool oom_unkillable_task(struct task_struct *p)
{
	return p->tgid == 1 || !p->signal;
}

long oom_badness(struct task_struct *p, unsigned long totalpages)
{
	if (oom_unkillable_task(p))
		return LONG_MIN_VALUE;
	long adj = READ_ONCE(p->signal->oom_score_adj);
	if (adj == OOM_SCORE_ADJ_MIN)
		return LONG_MIN_VALUE;
	struct mm_struct *mm = get_task_mm(p);
	if (!mm)
		return LONG_MIN_VALUE;
	/* RSS, swap entries (MM_SWAPENTS) and page tables, as Linux's. */
	long points = (long)get_mm_rss(mm) + (long)get_mm_counter(mm, MM_SWAPENTS) + (long)(mm_pgtables_bytes(mm) / PAGE_SIZE);
	mmput(mm);
	/* Normalise to oom_score_adj units. */
	adj *= (long)totalpages / 1000;
	return points + adj;
}

unsigned long oom_score(struct task_struct *p)
{
	unsigned long totalpages = totalram_pages() + (unsigned long)total_swap_pages;
	long badness = oom_badness(p, totalpages);
	/* LONG_MIN (never killed) shows 0; the rest is scaled back from
	 * -1000..1000 units around 1000, to 0..2000, by 2/3 (Linux). */
	if (badness == LONG_MIN_VALUE)
		return 0;
	long points = (1000 + badness * 1000 / (long)totalpages) * 2 / 3;
	return points < 0 ? 0 : (unsigned long)points;
}

int set_oom_score_adj(struct task_struct *p, int adj)
{
	if (adj < OOM_SCORE_ADJ_MIN || adj > OOM_SCORE_ADJ_MAX)
		return -EINVAL;
	struct signal_struct *sig = p->signal;
	if (!sig)
		return -ESRCH;
	bool privileged = capable(CAP_SYS_RESOURCE);
	int err = 0;
	spin_lock(&sig->siglock);
	if (adj < sig->oom_score_adj_min && !privileged) {
		err = -EACCES;
	} else {
		sig->oom_score_adj = (short)adj;
		if (privileged)
			sig->oom_score_adj_min = (short)adj;
	}
	spin_unlock(&sig->siglock);
	return err;
}
