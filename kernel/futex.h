/* Fast user-space mutexes (Linux's kernel/futex/): the futex system call,
 * robust lists, and what thread exit needs from them. */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include "kernel/syscall.h"
#include "kernel/types.h"

struct task_struct;

/* The futex operations and flags (Linux's uapi/linux/futex.h). */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_FD 2
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_TRYLOCK_PI 8
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI 12
#define FUTEX_LOCK_PI2 13
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_CMD_MASK (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

/* FUTEX_WAKE_OP's encoded operation: op (bits 28-30, plus
 * FUTEX_OP_OPARG_SHIFT at bit 31: oparg is a shift count), cmp (24-27),
 * oparg (12-23), cmparg (0-11), both 12-bit signed. */
#define FUTEX_OP_SET 0  /* *uaddr2 = oparg */
#define FUTEX_OP_ADD 1  /* *uaddr2 += oparg */
#define FUTEX_OP_OR 2   /* *uaddr2 |= oparg */
#define FUTEX_OP_ANDN 3 /* *uaddr2 &= ~oparg */
#define FUTEX_OP_XOR 4  /* *uaddr2 ^= oparg */
#define FUTEX_OP_OPARG_SHIFT 8
#define FUTEX_OP_CMP_EQ 0
#define FUTEX_OP_CMP_NE 1
#define FUTEX_OP_CMP_LT 2
#define FUTEX_OP_CMP_LE 3
#define FUTEX_OP_CMP_GT 4
#define FUTEX_OP_CMP_GE 5
#define FUTEX_OP(op, oparg, cmp, cmparg)                                                   \
	((((op) & 0xf) << 28) | (((cmp) & 0xf) << 24) | (((oparg) & 0xfff) << 12) |        \
	 ((cmparg) & 0xfff))

/* Robust futexes: the per-thread list of held locks that user space keeps
 * and the kernel walks at thread exit. The word of a lock holds its
 * owner's thread id, FUTEX_WAITERS when someone sleeps on it, and
 * FUTEX_OWNER_DIED once its owner died holding it. */
#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_TID_MASK 0x3fffffffu
#define ROBUST_LIST_LIMIT 2048

struct robust_list {
	struct robust_list __user *next; /* bit 0: the lock is a PI futex */
};

struct robust_list_head {
	struct robust_list list;                     /* first entry; the list ends at &list */
	long futex_offset;                           /* entry + futex_offset = the lock word */
	struct robust_list __user *list_op_pending; /* a lock being taken or released */
};

/* Linux's internal flags (kernel/futex/futex.h). */
#define FLAGS_SHARED 0x01
#define FLAGS_CLOCKRT 0x02
#define FUTEX_BITSET_MATCH_ANY 0xffffffffu

/* Wakes up to nr_wake waiters on uaddr whose bitset intersects bitset;
 * returns how many it woke, or a negative errno (Linux's futex_wake). */
int futex_wake(u32 __user *uaddr, unsigned int flags, int nr_wake, u32 bitset);
/* At thread exit, in the exiting thread with its mm still live: walks its
 * robust list (Linux's futex_exit_release / exit_robust_list). */
void futex_exit_release(struct task_struct *tsk);

/* The futex system call after its timeout was read: abs_time (NULL: none)
 * is an absolute time in ns on CLOCK_MONOTONIC, or on CLOCK_REALTIME with
 * FUTEX_CLOCK_REALTIME (Linux's do_futex). */
long do_futex(u32 __user *uaddr, int op, u32 val, u64 *abs_time, u32 __user *uaddr2, u32 val2,
	      u32 val3);

/* For tests: how many waiters are queued on uaddr's futex (its key taken
 * in the current mm, shared or private per flags), or on every futex
 * when uaddr is NULL. A waiter is counted from the moment a wake can find
 * it. */
unsigned long futex_nr_queued(u32 __user *uaddr, unsigned int flags);

#endif
