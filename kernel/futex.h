/* Fast user-space mutexes (Linux's kernel/futex/): the futex system call,
 * robust lists, and what thread exit needs from them. */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include "kernel/syscall.h"
#include "kernel/types.h"

struct task_struct;

/* Linux's internal flags (kernel/futex/futex.h). */
#define FLAGS_SHARED 0x01
#define FUTEX_BITSET_MATCH_ANY 0xffffffffu

/* Wakes up to nr_wake waiters on uaddr whose bitset intersects bitset;
 * returns how many it woke, or a negative errno (Linux's futex_wake). */
int futex_wake(u32 __user *uaddr, unsigned int flags, int nr_wake, u32 bitset);
/* At thread exit, in the exiting thread with its mm still live: walks its
 * robust list (Linux's futex_exit_release / exit_robust_list). */
void futex_exit_release(struct task_struct *tsk);

#endif
