/* Futexes (Linux's kernel/futex/core.c, without PI): a waiter sleeps on a
 * user word until another thread wakes it, the kernel keeping no state for
 * a word nobody waits on. This file is the core: the hash of keys to
 * buckets, their locks, and queueing and waking a waiter; the operations
 * built from them (wait, wake, wake_op, requeue, the system call) are
 * kernel/futex_waitwake.c's, robust lists kernel/futex_robust.c's, and
 * what they share kernel/futex_internal.h.
 *
 * Waiters are found through a hash table of buckets (futex_hash_bucket):
 * each bucket is a spinlock and a list of futex_q, one per sleeping task,
 * living on that task's kernel stack for the length of its wait. A futex_q
 * is identified by its key: (mm, page-aligned address, offset in the page),
 * the offset carrying FUT_OFF_MMSHARED for a process-shared futex. Every
 * user page in mmlab is private anonymous memory (no MAP_SHARED, no file
 * mappings), which is the case where Linux's get_futex_key also keys a
 * shared futex on (mm, address) (its PageAnon branch); there is no
 * inode-based key. As in Linux, a shared and a private futex on the same
 * word have different keys and do not wake each other.
 *
 * Invariants:
 *   - while a futex_q is on a chain, q->lock_ptr is that bucket's lock
 *     (a requeue changes both under both locks); a waker unlinks it, wakes
 *     the task and only then clears q->lock_ptr (release), after which it
 *     never touches q again: the waiter may return, and its stack frame
 *     go, as soon as it reads NULL there;
 *   - hb->waiters counts the futex_q on the chain plus the tasks between
 *     futex_q_lock and their queueing (or giving up), so a waker that reads
 *     0 after its own barrier knows no waiter can miss its change of the
 *     word (waitwake.c's ordering argument, kept as is).
 * Locking: bucket locks are taken with interrupts off, which is also what
 * makes a user access under them fail with -EFAULT instead of sleeping in
 * the page-fault handler (mm/fault.c; Linux's pagefault_disable). Two
 * buckets are locked in address order (double_lock_hb). Bucket lock ->
 * run-queue lock (wake_up_process under the bucket lock). */
#include "kernel/futex_internal.h"
#include "arch/x86_64/futex.h"
#include "arch/x86_64/irqflags.h"
#include "arch/x86_64/uaccess.h"
#include "lib/list.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "mm/page.h"

/* Linux sizes its table 256 buckets per possible CPU; a fixed 1024 here
 * (whatever the CPU count: 64 KiB of .bss). */
#define FUTEX_HASHSIZE 1024
static struct futex_hash_bucket futex_queues[FUTEX_HASHSIZE];

/* Linux hashes the key with jhash2; a multiplicative hash of the same
 * words serves as well. */
struct futex_hash_bucket *futex_hash(const struct futex_key *key)
{
	u64 h = (u64)(unsigned long)key->mm * 0x9e3779b97f4a7c15ull;
	h ^= (key->address + key->offset) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	h *= 0x165667b19e3779f9ull;
	return &futex_queues[(h >> 40) & (FUTEX_HASHSIZE - 1)];
}

/* Takes hb's lock, interrupts already off. The chain is set up the first
 * time, under the lock (the table is static and there is no init hook
 * that runs before every user). */
static void hb_lock_irqs_off(struct futex_hash_bucket *hb)
{
	spin_lock(&hb->lock);
	if (unlikely(!hb->chain.next))
		INIT_LIST_HEAD(&hb->chain);
}

unsigned long hb_lock(struct futex_hash_bucket *hb)
{
	unsigned long flags;
	local_irq_save(flags);
	hb_lock_irqs_off(hb);
	return flags;
}

void hb_unlock(struct futex_hash_bucket *hb, unsigned long flags)
{
	spin_unlock_irqrestore(&hb->lock, flags);
}

/* Linux's double_lock_hb: one lock when both keys hash alike, else in
 * address order. */
unsigned long double_lock_hb(struct futex_hash_bucket *hb1, struct futex_hash_bucket *hb2)
{
	unsigned long flags;
	local_irq_save(flags);
	if (hb1 > hb2) {
		struct futex_hash_bucket *t = hb1;
		hb1 = hb2;
		hb2 = t;
	}
	hb_lock_irqs_off(hb1);
	if (hb1 != hb2)
		hb_lock_irqs_off(hb2);
	return flags;
}

void double_unlock_hb(struct futex_hash_bucket *hb1, struct futex_hash_bucket *hb2,
			     unsigned long flags)
{
	spin_unlock(&hb1->lock);
	if (hb1 != hb2)
		spin_unlock(&hb2->lock);
	local_irq_restore(flags);
}

/* Linux's fault_in_user_writeable: resolves a fault the atomic access
 * took, with interrupts on (the page-fault handler may sleep). */
int fault_in_user_writeable(u32 __user *uaddr)
{
	return futex_touch_user_writeable(uaddr) ? -EFAULT : 0;
}

/* Linux's get_futex_key. A private key needs only a user address; a
 * shared one needs the page itself: Linux pins it writable
 * (get_user_pages_fast with FOLL_WRITE) and, for anonymous memory, fails
 * with -EFAULT when it can only be read, so here the word is faulted in
 * writable (without changing it) and the key is (mm, address) as Linux's
 * for an anonymous page. */
int get_futex_key(u32 __user *uaddr, unsigned int flags, struct futex_key *key)
{
	unsigned long address = (unsigned long)uaddr;
	key->offset = address % PAGE_SIZE;
	if (address % sizeof(u32))
		return -EINVAL;
	address -= key->offset;
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	key->mm = current->mm;
	key->address = address;
	if (!(flags & FLAGS_SHARED))
		return 0;
	if (fault_in_user_writeable(uaddr))
		return -EFAULT;
	key->offset |= FUT_OFF_MMSHARED;
	return 0;
}

/* Linux's futex_get_value_locked: under a bucket lock (interrupts off), so
 * a page that is not present gives -EFAULT. */
int futex_get_value_locked(u32 *dest, u32 __user *from)
{
	return futex_load_inatomic(dest, from) ? -EFAULT : 0;
}

/* Linux's __futex_unqueue: q off its chain, under its bucket's lock. */
static void __futex_unqueue(struct futex_q *q)
{
	struct futex_hash_bucket *hb = container_of(q->lock_ptr, struct futex_hash_bucket, lock);
	list_del(&q->list);
	INIT_LIST_HEAD(&q->list);
	futex_hb_waiters_dec(hb);
}

/* Linux's futex_wake_mark + wake_up_q, done under the bucket lock: mmlab
 * has no task reference to keep the waiter's task_struct alive past the
 * unlock, so the wakeup comes first and q->lock_ptr is cleared last. The
 * waiter cannot leave futex_unqueue before it reads NULL there (or takes
 * this lock), so the task is alive when it is woken. */
void futex_wake_one(struct futex_q *q)
{
	struct task_struct *p = q->task;
	__futex_unqueue(q);
	wake_up_process(p);
	__atomic_store_n(&q->lock_ptr, NULL, __ATOMIC_RELEASE);
}

/* Linux's futex_q_lock: counts the waiter before taking the lock (barrier
 * (A)), so a concurrent waker cannot miss it. */
struct futex_hash_bucket *futex_q_lock(struct futex_q *q, unsigned long *flags)
{
	struct futex_hash_bucket *hb = futex_hash(&q->key);
	futex_hb_waiters_inc(hb);
	q->lock_ptr = &hb->lock;
	*flags = hb_lock(hb);
	return hb;
}

void futex_q_unlock(struct futex_hash_bucket *hb, unsigned long flags)
{
	hb_unlock(hb, flags);
	futex_hb_waiters_dec(hb);
}

/* Linux's futex_queue: on the chain (FIFO: every task has the same
 * priority here), then the lock dropped. The waiter count taken in
 * futex_q_lock now stands for the queued q. */
void futex_queue(struct futex_q *q, struct futex_hash_bucket *hb, unsigned long flags)
{
	list_add_tail(&q->list, &hb->chain);
	q->task = current;
	hb_unlock(hb, flags);
}

/* Linux's futex_unqueue: 1 if q was still queued (this removed it), 0 if a
 * waker had already taken it off. q->lock_ptr may change under a requeue
 * between the read and the locking; then the lock is the wrong one and
 * the read is retried. */
int futex_unqueue(struct futex_q *q)
{
	spinlock_t *lock_ptr;
	unsigned long flags;
retry:
	lock_ptr = __atomic_load_n(&q->lock_ptr, __ATOMIC_ACQUIRE);
	if (!lock_ptr)
		return 0;
	spin_lock_irqsave(lock_ptr, flags);
	if (unlikely(lock_ptr != READ_ONCE(q->lock_ptr))) {
		spin_unlock_irqrestore(lock_ptr, flags);
		goto retry;
	}
	__futex_unqueue(q);
	spin_unlock_irqrestore(lock_ptr, flags);
	return 1;
}

unsigned long futex_nr_queued(u32 __user *uaddr, unsigned int flags)
{
	struct futex_key key;
	unsigned long n = 0;
	struct futex_hash_bucket *only = NULL;
	if (uaddr) {
		if (get_futex_key(uaddr, flags, &key))
			return 0;
		only = futex_hash(&key);
	}
	for (unsigned i = 0; i < FUTEX_HASHSIZE; i++) {
		struct futex_hash_bucket *hb = &futex_queues[i];
		if (only && hb != only)
			continue;
		unsigned long irq = hb_lock(hb);
		struct futex_q *q;
		list_for_each_entry(q, &hb->chain, list)
			if (!uaddr || futex_match(&q->key, &key))
				n++;
		hb_unlock(hb, irq);
	}
	return n;
}
