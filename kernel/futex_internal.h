/* What the futex files share (Linux's kernel/futex/futex.h): the key, the
 * hash bucket and the queued waiter, and the core's hashing, locking and
 * queueing (kernel/futex.c), which the operations (kernel/futex_waitwake.c)
 * are built from. The invariants and the lock order are kernel/futex.c's. */
#ifndef KERNEL_FUTEX_INTERNAL_H
#define KERNEL_FUTEX_INTERNAL_H

#include "kernel/futex.h"
#include "kernel/spinlock.h"
#include "lib/list.h"

#define FUT_OFF_INODE 1    /* an inode-based key: never made here (no file mappings) */
#define FUT_OFF_MMSHARED 2 /* a shared futex on anonymous memory */


/* Linux's union futex_key, reduced to its private/anonymous form. */
struct futex_key {
	struct mm_struct *mm;
	unsigned long address; /* page-aligned */
	unsigned int offset;   /* in the page, | FUT_OFF_MMSHARED */
};

struct futex_hash_bucket {
	unsigned long waiters; /* atomic; see the invariants above */
	spinlock_t lock;
	struct list_head chain; /* of futex_q; set up on first locking */
} __aligned(64);

struct futex_q {
	struct list_head list;
	struct task_struct *task;
	spinlock_t *lock_ptr; /* the bucket lock while queued, NULL once woken */
	struct futex_key key;
	u32 bitset;
};

static inline bool futex_match(const struct futex_key *a, const struct futex_key *b)
{
	return a->mm == b->mm && a->address == b->address && a->offset == b->offset;
}

/* Linux's futex_hb_waiters_inc/dec/pending: the full barriers (A) and (B)
 * of waitwake.c. */
static inline void futex_hb_waiters_inc(struct futex_hash_bucket *hb)
{
	__atomic_fetch_add(&hb->waiters, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void futex_hb_waiters_dec(struct futex_hash_bucket *hb)
{
	__atomic_fetch_sub(&hb->waiters, 1, __ATOMIC_SEQ_CST);
}

static inline bool futex_hb_waiters_pending(struct futex_hash_bucket *hb)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&hb->waiters, __ATOMIC_SEQ_CST) != 0;
}

/* The core (kernel/futex.c; each says what it does there): the bucket of
 * a key, its lock taken and released with interrupts off (both of two
 * buckets in address order), a user fault resolved, a key made, the word
 * read under a bucket lock, and a waiter woken, locked, queued and taken
 * off its chain. */
struct futex_hash_bucket *futex_hash(const struct futex_key *key);
unsigned long hb_lock(struct futex_hash_bucket *hb);
void hb_unlock(struct futex_hash_bucket *hb, unsigned long flags);
unsigned long double_lock_hb(struct futex_hash_bucket *hb1, struct futex_hash_bucket *hb2);
void double_unlock_hb(struct futex_hash_bucket *hb1, struct futex_hash_bucket *hb2, unsigned long flags);
int fault_in_user_writeable(u32 __user *uaddr);
int get_futex_key(u32 __user *uaddr, unsigned int flags, struct futex_key *key);
int futex_get_value_locked(u32 *dest, u32 __user *from);
void futex_wake_one(struct futex_q *q);
struct futex_hash_bucket *futex_q_lock(struct futex_q *q, unsigned long *flags);
void futex_q_unlock(struct futex_hash_bucket *hb, unsigned long flags);
void futex_queue(struct futex_q *q, struct futex_hash_bucket *hb, unsigned long flags);
int futex_unqueue(struct futex_q *q);

#endif
