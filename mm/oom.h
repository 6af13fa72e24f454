/* The OOM killer's choice (Linux's mm/oom_kill.c, include/linux/oom.h):
 * oom_badness, and the per-process knob that steers it, oom_score_adj
 * (signal->oom_score_adj, inherited by fork, shown and set through
 * /proc/<pid>/oom_score_adj; /proc/<pid>/oom_score shows the result).
 * The killer itself (out_of_memory, the reaper) is not built yet:
 * docs/reclaim.md. */
#ifndef MM_OOM_H
#define MM_OOM_H

#include "kernel/types.h"

struct task_struct;

/* Linux's uapi/linux/oom.h. */
#define OOM_SCORE_ADJ_MIN (-1000)
#define OOM_SCORE_ADJ_MAX 1000

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

#endif
