/* The OOM killer (Linux 6.1's mm/oom_kill.c, include/linux/oom.h): the
 * choice (oom_badness, steered by oom_score_adj: /proc/<pid>/oom_score_adj
 * and oom_score), the kill (out_of_memory, called by the page allocator's
 * slow path when reclaim cannot help: mm/page_alloc.c's
 * alloc_pages_may_oom) and the oom_reaper (mm/oom_reaper.c), which frees
 * a victim's anonymous memory before the victim's own exit does.
 * docs/reclaim.md maps each piece to Linux's. */
#ifndef MM_OOM_H
#define MM_OOM_H

#include "kernel/types.h"
#include "mm/gfp.h"
#include "mm/nodemask.h"

struct task_struct;
struct mm_struct;

/* Linux's uapi/linux/oom.h. */
#define OOM_SCORE_ADJ_MIN (-1000)
#define OOM_SCORE_ADJ_MAX 1000

/* Linux's enum oom_constraint (mmlab has no cpusets and no memory
 * cgroups, so CONSTRAINT_CPUSET and CONSTRAINT_MEMCG never occur). */
enum oom_constraint {
	CONSTRAINT_NONE,
	CONSTRAINT_CPUSET,
	CONSTRAINT_MEMORY_POLICY,
	CONSTRAINT_MEMCG,
};

/* Linux's struct oom_control: the allocation that failed, and what the
 * killer decided. */
struct oom_control {
	const nodemask_t *nodemask; /* the allocation's; NULL unless CONSTRAINT_MEMORY_POLICY */
	gfp_t gfp_mask;
	int order;
	unsigned long totalpages; /* RAM (of the policy's nodes) plus swap */
	struct task_struct *chosen; /* a reference; (void *)-1: wait for a dying victim */
	long chosen_points;
	enum oom_constraint constraint;
	/* mmlab's: an earlier victim's memory was still on its way back
	 * when the caller last tried the free lists (oom_victims_pending()
	 * then): select_bad_process waits for it even if it is back now,
	 * since the try did not see that memory (mm/page_alloc.c's
	 * alloc_pages_may_oom says why). */
	bool victims_pending;
};

/* /proc/sys/vm/panic_on_oom (0: kill; 1: panic unless the allocation was
 * constrained by a memory policy; 2: always panic),
 * oom_kill_allocating_task (non-zero: kill the task that asked, if it
 * may be killed, without looking further) and oom_dump_tasks (non-zero,
 * the default: the report lists every eligible process). */
extern int sysctl_panic_on_oom;
extern int sysctl_oom_kill_allocating_task;
extern int sysctl_oom_dump_tasks;

/* Linux's oom_badness: the pages the task's memory frees if it is
 * killed (its RSS, swap entries (none without swap) and page tables),
 * plus oom_score_adj thousandths of totalpages; LONG_MIN for a task
 * never to be killed (a kernel thread, init, OOM_SCORE_ADJ_MIN, no mm). */
long oom_badness(struct task_struct *p, unsigned long totalpages);
/* /proc/<pid>/oom_score's figure (Linux's proc_oom_score): the badness
 * over the machine's RAM and swap, in 0..2000 scaled by 2/3. */
unsigned long oom_score(struct task_struct *p);
/* Linux's __set_oom_adj for a write of oom_score_adj: -EINVAL outside
 * [OOM_SCORE_ADJ_MIN, OOM_SCORE_ADJ_MAX]; -EACCES to go below the
 * process's oom_score_adj_min without CAP_SYS_RESOURCE; with it, the
 * value also becomes the floor for later writes without it. Every
 * thread of the process shares the value. */
int set_oom_score_adj(struct task_struct *p, int adj);

/* Linux's out_of_memory: kills the process whose death frees the most
 * (select_bad_process), or finds that an earlier victim is still dying.
 * true when memory is on its way (the allocation should retry), false
 * when nothing can be killed. Linux panics then ("System is deadlocked on
 * memory"); mmlab reports it and lets the allocation fail, so that the
 * kernel survives every OOM. Called with the OOM lock held. */
bool out_of_memory(struct oom_control *oc);
/* Linux's mutex_trylock(&oom_lock) in __alloc_pages_may_oom: true with
 * the lock taken; false after sleeping a tick (Linux's
 * schedule_timeout_uninterruptible(1)) when another task holds it, whose
 * kill will help this one too. Out of line, as the page allocator is also
 * built for the host, which has no mutex. */
bool oom_lock_trylock(void);
void oom_lock_unlock(void);
/* Linux's oom_reserves_allowed(current): the current task's process is an
 * OOM victim, and may take the reserve below min (ALLOC_OOM) to exit. */
bool oom_reserves_allowed(void);
/* Linux's tsk_is_oom_victim: p's process was chosen (signal->oom_mm). */
bool tsk_is_oom_victim(struct task_struct *p);
/* Kills counted by the OOM killer (Linux's oom_kill vmstat event counts
 * the same; this one is its own, for tests that must not see kswapd's or
 * another test's events: it never goes down). */
unsigned long oom_kills(void);

/* mm/oom_reaper.c: Linux's queue_oom_reaper. The victim's mm
 * (signal->oom_mm) is reaped by the oom_reaper thread OOM_REAPER_DELAY
 * after the kill unless the victim's exit got there first; either way the
 * mm ends with MMF_OOM_SKIP, so that the next OOM may choose again.
 * Takes a reference on tsk. */
void queue_oom_reaper(struct task_struct *tsk);
/* OOM_REAPER_DELAY (2 s, Linux's), in jiffies; tests may shorten it. */
extern unsigned long oom_reaper_delay;
/* exit_mmap has freed mm and set MMF_OOM_SKIP: a victim queued for the
 * reaper with it leaves the queue now, not when due. */
void oom_reaper_mm_exited(struct mm_struct *mm);
/* Linux's __oom_reap_task_mm: unmaps the private memory of every VMA
 * but hugetlb and VM_PFNMAP ones; the caller holds mm's mmap_lock for
 * reading. */
void __oom_reap_task_mm(struct mm_struct *mm);
/* Whether a victim the reaper holds (queued, or being reaped) still has
 * its memory (no MMF_OOM_SKIP). Linux's select_bad_process sees such a
 * victim among the processes even once it is a zombie and waits for it
 * (tsk_is_oom_victim); mmlab's process walk sees live threads only, so it
 * asks the reaper's queue, which holds every victim until then. */
bool oom_victims_pending(void);
/* Victims the reaper reaped (each one's oom_reaper line), and gave up on
 * (mmap_lock never free after MAX_OOM_REAP_RETRIES tries). */
unsigned long oom_reaped(void);

#endif
