/* Signals, as far as threads need them (issue 10): per-thread masks and
 * alternate stacks, the thread group's actions, and whether a task has a
 * signal pending that must end its wait.
 *
 * Provisional: nothing is ever pending yet; the thread-group work makes
 * a group exit (exit_group, a fatal fault in another thread) pending. */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "kernel/sched.h"

/* Whether p has a signal pending that interrupts an interruptible wait
 * (the wait returns -EINTR). */
static inline bool signal_pending(struct task_struct *p) { (void)p; return false; }
/* Whether p is being killed (its thread group is exiting). */
static inline bool fatal_signal_pending(struct task_struct *p) { (void)p; return false; }

#endif
