/* Futexes through the system call, on a real address space: kernel
 * threads on several CPUs adopt one test mm (kthread_use_mm), so the
 * futex words are user addresses and every call goes through futex(2)'s
 * entry (timeouts read from user memory, keys taken in the mm).
 *
 * Nothing here depends on timing: a case waits for waiters to be queued
 * by asking the futex code (futex_nr_queued) and gives up only when
 * nothing moved for KUNIT_HANG_GUARD_NS; wake counts, what got requeued
 * and the values left in user memory are exact. Timeout cases check
 * that a wait never ends before its deadline, not how late it ends.
 * Each case checks that no waiter is left queued and that pages, slab
 * objects and kernel stacks (threads are joined) came back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/futex.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define PRIV FUTEX_PRIVATE_FLAG
#define UNMAPPED 0x10000000ul /* nothing is mapped this low in a fresh mm */
#define MAX_WAITERS 24
#define INT_MAX_U32 0x7fffffffu

struct waiter {
	struct mm_struct *mm;
	u32 *uaddr;
	int op;
	u32 val, bitset;
	long ret;
	unsigned long done;
	bool joined;
	struct task_struct *task;
};

/* The case's address space and threads. Static: the deferred cleanup may
 * run after the case's frame is gone (a failed assertion). */
static struct futex_fixture {
	struct mm_struct *mm;
	unsigned long base; /* 4 RW pages, populated */
	unsigned long ro;   /* 1 PROT_READ page */
	struct waiter w[MAX_WAITERS];
	unsigned nr;
} fx;

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2,
		unsigned long a3, unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

static long futex(u32 *uaddr, int op, u32 val, unsigned long utime, u32 *uaddr2, u32 val3)
{
	return sys(__NR_futex, (unsigned long)uaddr, (unsigned long)(unsigned)op, val, utime,
		   (unsigned long)uaddr2, val3);
}

static u32 *word(unsigned i) { return (u32 *)(fx.base + 64 * i); }

static u32 uget(const u32 *uaddr)
{
	u32 v = 0xdeadbeef;
	copy_from_user(&v, uaddr, sizeof(v));
	return v;
}

static void uset(u32 *uaddr, u32 v) { copy_to_user(uaddr, &v, sizeof(v)); }

/* A struct __kernel_timespec in user memory (the second page), in one
 * of its slots (one per thread that makes them). */
static unsigned long utimespec_in(unsigned slot, u64 ns)
{
	struct __kernel_timespec ts = { (long long)(ns / 1000000000ull), (long long)(ns % 1000000000ull) };
	unsigned long u = fx.base + PAGE_SIZE + slot * sizeof(ts);
	copy_to_user((void *)u, &ts, sizeof(ts));
	return u;
}

static unsigned long utimespec(u64 ns) { return utimespec_in(0, ns); }

static int waiter_fn(void *data)
{
	struct waiter *w = data;
	kthread_use_mm(w->mm);
	long r = futex(w->uaddr, w->op, w->val, 0, NULL, w->bitset);
	kthread_unuse_mm(w->mm);
	w->ret = r;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Starts a thread that calls futex(uaddr, op, val, NULL, NULL, bitset). */
static struct waiter *start_waiter(struct kunit *test, u32 *uaddr, int op, u32 val, u32 bitset)
{
	KUNIT_ASSERT_LT(test, fx.nr, MAX_WAITERS);
	struct waiter *w = &fx.w[fx.nr];
	*w = (struct waiter){ .mm = fx.mm, .uaddr = uaddr, .op = op, .val = val, .bitset = bitset };
	w->task = kthread_run_on_cpu(waiter_fn, w, test_nth_other_cpu_or_this(fx.nr), "futexw/%u");
	KUNIT_ASSERT_NOT_NULL(test, w->task);
	fx.nr++;
	return w;
}

/* Waits until exactly n waiters are queued on uaddr's futex (NULL: on
 * any), giving up only when the count stopped moving for the hang guard. */
static bool wait_queued(u32 *uaddr, unsigned flags, unsigned long n)
{
	unsigned long last = ~0ul;
	u64 since = ktime_get_ns();
	for (;;) {
		unsigned long q = futex_nr_queued(uaddr, flags);
		if (q == n)
			return true;
		if (q != last) {
			last = q;
			since = ktime_get_ns();
		} else if (ktime_get_ns() - since > KUNIT_HANG_GUARD_NS) {
			return false;
		}
		schedule_timeout_uninterruptible(1);
	}
}

/* Waits until *done is set, sleeping a tick between looks (the awaited
 * thread may share this CPU, and the kernel does not preempt), giving up
 * only when neither *done nor *progress (NULL: none) moved for the hang
 * guard. */
static bool wait_done(const unsigned long *done, const unsigned long *progress)
{
	unsigned long last = ~0ul;
	u64 since = ktime_get_ns();
	for (;;) {
		if (__atomic_load_n(done, __ATOMIC_ACQUIRE))
			return true;
		unsigned long p = progress ? __atomic_load_n(progress, __ATOMIC_RELAXED) : 0;
		if (p != last) {
			last = p;
			since = ktime_get_ns();
		} else if (ktime_get_ns() - since > KUNIT_HANG_GUARD_NS) {
			return false;
		}
		schedule_timeout_uninterruptible(1);
	}
}

/* Waits for w's call to return, then reaps the thread. */
static bool join_waiter(struct waiter *w)
{
	if (w->joined)
		return true;
	if (!wait_done(&w->done, NULL))
		return false;
	kthread_join(w->task);
	w->joined = true;
	return true;
}

/* However the case ends: wakes whatever is still waiting, on every word
 * a case uses, shared and private, and joins every thread. */
static void waiters_cleanup(void *unused)
{
	(void)unused;
	for (unsigned i = 0; i < fx.nr; i++) {
		struct waiter *w = &fx.w[i];
		while (!w->joined && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
			for (unsigned k = 0; k < 3 * PAGE_SIZE / 64; k++) {
				futex(word(k), FUTEX_WAKE, INT_MAX_U32, 0, NULL, 0);
				futex(word(k), FUTEX_WAKE | PRIV, INT_MAX_U32, 0, NULL, 0);
			}
			schedule_timeout_uninterruptible(1);
		}
		join_waiter(w);
	}
	fx.nr = 0;
}

static void fx_init(struct kunit *test)
{
	fx.nr = 0;
	fx.mm = test_mm_create(test, TEST_MM_CURRENT);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, waiters_cleanup, NULL), 0);
	fx.base = do_mmap(fx.mm, 0, 4 * PAGE_SIZE, RW, ANON | MAP_POPULATE);
	KUNIT_ASSERT_LT(test, fx.base, USER_ADDR_LIMIT);
	fx.ro = do_mmap(fx.mm, 0, PAGE_SIZE, PROT_READ, ANON);
	KUNIT_ASSERT_LT(test, fx.ro, USER_ADDR_LIMIT);
}

static void fx_destroy(struct kunit *test)
{
	kunit_release_action(test, waiters_cleanup, NULL);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(NULL, 0), 0);
	test_mm_destroy(test, fx.mm); /* every page and slab object back */
}

/* FUTEX_WAKE wakes exactly as many as asked, oldest first; 0 (or less)
 * wakes one, as Linux's loop does; waiters on other CPUs return 0. */
static void wake_counts_are_exact(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0);
	uset(a, 7);
	struct waiter *w[4];
	for (unsigned i = 0; i < 4; i++) {
		w[i] = start_waiter(test, a, FUTEX_WAIT | PRIV, 7, 0);
		KUNIT_ASSERT_TRUE(test, wait_queued(a, 0, i + 1)); /* in this order */
	}
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, 2, 0, NULL, 0), 2);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 2);
	KUNIT_ASSERT_TRUE(test, join_waiter(w[0]));
	KUNIT_ASSERT_TRUE(test, join_waiter(w[1]));
	KUNIT_EXPECT_EQ(test, w[0]->ret, 0);
	KUNIT_EXPECT_EQ(test, w[1]->ret, 0);
	KUNIT_EXPECT_FALSE(test, __atomic_load_n(&w[2]->done, __ATOMIC_ACQUIRE));
	/* A shared wake does not see private waiters (different keys). */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE, 10, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, 0, 0, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, 10, 0, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, 10, 0, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, join_waiter(w[2]));
	KUNIT_ASSERT_TRUE(test, join_waiter(w[3]));
	KUNIT_EXPECT_EQ(test, w[2]->ret, 0);
	KUNIT_EXPECT_EQ(test, w[3]->ret, 0);
	/* Shared waiters, woken by a shared wake only. */
	w[0] = start_waiter(test, a, FUTEX_WAIT, 7, 0);
	KUNIT_ASSERT_TRUE(test, wait_queued(a, FLAGS_SHARED, 1));
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, 1, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE, 1, 0, NULL, 0), 1);
	KUNIT_ASSERT_TRUE(test, join_waiter(w[0]));
	KUNIT_EXPECT_EQ(test, w[0]->ret, 0);
	fx_destroy(test);
}

/* The value is compared under the bucket lock: a mismatch is -EAGAIN,
 * without sleeping, whatever the timeout. */
static void wait_on_a_changed_value_is_eagain(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0);
	uset(a, 1);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | PRIV, 2, 0, NULL, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT, 2, 0, NULL, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV, 0, 0, NULL, 1), -EAGAIN);
	/* Even with a timeout already past: the value is checked first. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV, 0, utimespec(0), NULL, ~0u), -EAGAIN);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV, 1, utimespec(0), NULL, ~0u),
			-ETIMEDOUT);
	/* A word in a read-only private page can be waited on privately... */
	KUNIT_EXPECT_EQ(test, futex((u32 *)fx.ro, FUTEX_WAIT | PRIV, 1, 0, NULL, 0), -EAGAIN);
	/* ...but a shared key needs it writable (Linux's get_futex_key). */
	KUNIT_EXPECT_EQ(test, futex((u32 *)fx.ro, FUTEX_WAIT, 1, 0, NULL, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex((u32 *)fx.ro, FUTEX_WAKE, 1, 0, NULL, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex((u32 *)fx.ro, FUTEX_WAKE | PRIV, 1, 0, NULL, 0), 0);
	fx_destroy(test);
}

/* Timeouts: FUTEX_WAIT's is relative (CLOCK_MONOTONIC), FUTEX_WAIT_BITSET's
 * absolute on CLOCK_MONOTONIC or, with FUTEX_CLOCK_REALTIME, on
 * CLOCK_REALTIME. None ends before its time. */
static void timeouts_never_end_early(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0);
	uset(a, 3);
	u64 start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | PRIV, 3, utimespec(25000000), NULL, 0), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - start, 25000000);

	u64 deadline = ktime_get_ns() + 25000000;
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV, 3, utimespec(deadline), NULL, ~0u),
			-ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ktime_get_ns(), deadline);

	deadline = ktime_get_real_ns() + 25000000;
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV | FUTEX_CLOCK_REALTIME, 3,
				    utimespec(deadline), NULL, ~0u),
			-ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ktime_get_real_ns(), deadline);
	/* Shared, and a deadline already past. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET, 3, utimespec(1), NULL, ~0u), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | PRIV, 3, utimespec(0), NULL, 0), -ETIMEDOUT);
	fx_destroy(test);
}

/* The errno order of Linux's sys_futex/do_futex and the operations. */
static void bad_arguments_get_linux_errnos(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0), *b = word(1);
	uset(a, 0);
	u32 *odd = (u32 *)(fx.base + 2);
	KUNIT_EXPECT_EQ(test, futex(odd, FUTEX_WAIT | PRIV, 0, 0, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, futex(odd, FUTEX_WAKE, 1, 0, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_REQUEUE | PRIV, 1, 1, odd, 0), -EINVAL);
	/* bitset 0 */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV, 0, 0, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_BITSET | PRIV, 1, 0, NULL, 0), -EINVAL);
	/* bad timespecs, checked before the value (and before the op) */
	struct __kernel_timespec bad[] = { { 0, 1000000000 }, { 0, -1 }, { -1, 0 } };
	unsigned long uts = fx.base + PAGE_SIZE;
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		copy_to_user((void *)uts, &bad[i], sizeof(bad[i]));
		KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | PRIV, 1, uts, NULL, 0), -EINVAL);
		KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_BITSET | PRIV, 1, uts, NULL, ~0u), -EINVAL);
		KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 1, uts, NULL, 0), -EINVAL);
	}
	/* A timeout that cannot be read; ignored by the calls without one. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | PRIV, 0, UNMAPPED, NULL, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, 1, UNMAPPED, NULL, 0), 0);
	/* FUTEX_CLOCK_REALTIME only with the absolute waits: -ENOSYS. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 1, 0, NULL, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, 0, NULL, 0), -ENOSYS);
	/* PI and unknown operations. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_LOCK_PI | PRIV, 0, 0, NULL, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_UNLOCK_PI | PRIV, 0, 0, NULL, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_TRYLOCK_PI | PRIV, 0, 0, NULL, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAIT_REQUEUE_PI | PRIV, 0, 0, b, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE_PI | PRIV, 1, 0, b, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_FD, 0, 0, NULL, 0), -ENOSYS);
	KUNIT_EXPECT_EQ(test, futex(a, 14, 0, 0, NULL, 0), -ENOSYS);
	/* Negative counts (Linux's futex_requeue), before PI is refused. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_REQUEUE | PRIV, (u32)-1, 1, b, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE | PRIV, 1, (unsigned long)(u32)-1, b, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE_PI | PRIV, (u32)-1, 0, b, 0), -EINVAL);
	/* Addresses: unmapped, kernel. A private wake needs no page. */
	KUNIT_EXPECT_EQ(test, futex((u32 *)UNMAPPED, FUTEX_WAIT | PRIV, 0, 0, NULL, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex((u32 *)UNMAPPED, FUTEX_WAKE | PRIV, 1, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, futex((u32 *)UNMAPPED, FUTEX_WAKE, 1, 0, NULL, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex((u32 *)0xffff800000000000ul, FUTEX_WAKE | PRIV, 1, 0, NULL, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE | PRIV, 1, 1, (u32 *)UNMAPPED, 0), 0);
	KUNIT_EXPECT_EQ(test, futex((u32 *)UNMAPPED, FUTEX_CMP_REQUEUE | PRIV, 1, 1, b, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, (u32 *)UNMAPPED, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, (u32 *)fx.ro, 0), -EFAULT);
	fx_destroy(test);
}

/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE: the first nr_wake waiters are
 * woken, the next nr_requeue move to uaddr2 (and are woken from there),
 * the rest stay; CMP_REQUEUE does nothing when *uaddr1 changed. */
static void requeue_moves_the_right_number(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0), *b = word(1);
	uset(a, 5);
	uset(b, 0);
	struct waiter *w[5];
	for (unsigned i = 0; i < 5; i++) {
		w[i] = start_waiter(test, a, FUTEX_WAIT | PRIV, 5, 0);
		KUNIT_ASSERT_TRUE(test, wait_queued(a, 0, i + 1));
	}
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_REQUEUE | PRIV, 1, 2, b, 0), 3);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 2);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(b, 0), 2);
	KUNIT_ASSERT_TRUE(test, join_waiter(w[0]));
	KUNIT_EXPECT_EQ(test, w[0]->ret, 0);
	/* A stale expected value: -EAGAIN, nothing moves. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE | PRIV, 0, 2, b, 4), -EAGAIN);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 2);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE | PRIV, 0, 1, b, 5), 1);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 1);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(b, 0), 3);
	/* A requeued waiter is a waiter of b now: a's wake misses it. */
	KUNIT_EXPECT_EQ(test, futex(b, FUTEX_WAKE | PRIV, INT_MAX_U32, 0, NULL, 0), 3);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, INT_MAX_U32, 0, NULL, 0), 1);
	for (unsigned i = 1; i < 5; i++) {
		KUNIT_ASSERT_TRUE(test, join_waiter(w[i]));
		KUNIT_EXPECT_EQ(test, w[i]->ret, 0);
	}
	/* Requeue onto the same futex, and with no waiters. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_CMP_REQUEUE | PRIV, 1, 1, a, 5), 0);
	fx_destroy(test);
}

/* FUTEX_WAKE_OP: *uaddr2 op= oparg atomically, wake nr_wake of uaddr1,
 * and nr_wake2 of uaddr2 if the old value compared true. */
static void wake_op_applies_the_op_and_compares(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0), *b = word(1);
	/* The operations, on a word nobody waits on (return: 0 woken). */
	static const struct {
		int op, oparg;
		u32 before, after;
	} ops[] = {
		{ FUTEX_OP_SET, 0x123, 7, 0x123 },
		{ FUTEX_OP_SET, -1, 7, 0xffffffff }, /* oparg is 12-bit signed */
		{ FUTEX_OP_ADD, 5, 7, 12 },
		{ FUTEX_OP_ADD, -2, 7, 5 },
		{ FUTEX_OP_OR, 0x30, 0x0f, 0x3f },
		{ FUTEX_OP_ANDN, 0x3, 0xff, 0xfc },
		{ FUTEX_OP_XOR, 0x5, 0xf, 0xa },
		{ FUTEX_OP_OPARG_SHIFT | FUTEX_OP_OR, 4, 0x1, 0x11 },
		{ FUTEX_OP_OPARG_SHIFT | FUTEX_OP_ADD, 31, 0, 0x80000000 },
		{ FUTEX_OP_OPARG_SHIFT | FUTEX_OP_SET, 33, 0, 2 }, /* shift masked to 5 bits */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
		uset(b, ops[i].before);
		KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, b,
					    FUTEX_OP(ops[i].op, ops[i].oparg, FUTEX_OP_CMP_EQ, 0)), 0);
		KUNIT_EXPECT_EQ(test, uget(b), ops[i].after);
	}
	/* An unknown op changes nothing; an unknown cmp after the op. */
	uset(b, 9);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, b, FUTEX_OP(5, 1, 0, 0)), -ENOSYS);
	KUNIT_EXPECT_EQ(test, uget(b), 9);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, b,
				    FUTEX_OP(FUTEX_OP_ADD, 1, 6, 0)), -ENOSYS);
	KUNIT_EXPECT_EQ(test, uget(b), 10);

	/* The comparisons (signed, cmparg 12-bit signed): one waiter on b
	 * tells whether the comparison held. */
	static const struct {
		int cmp, cmparg;
		u32 old;
		bool wakes;
	} cmps[] = {
		{ FUTEX_OP_CMP_EQ, 4, 4, true },   { FUTEX_OP_CMP_EQ, 4, 5, false },
		{ FUTEX_OP_CMP_NE, 4, 5, true },   { FUTEX_OP_CMP_NE, 4, 4, false },
		{ FUTEX_OP_CMP_LT, 4, 3, true },   { FUTEX_OP_CMP_LT, 4, 4, false },
		{ FUTEX_OP_CMP_LE, 4, 4, true },   { FUTEX_OP_CMP_LE, 4, 5, false },
		{ FUTEX_OP_CMP_GT, 4, 5, true },   { FUTEX_OP_CMP_GT, 4, 4, false },
		{ FUTEX_OP_CMP_GE, 4, 4, true },   { FUTEX_OP_CMP_GE, 4, 3, false },
		{ FUTEX_OP_CMP_EQ, -1, 0xffffffff, true },
		{ FUTEX_OP_CMP_LT, 0, 0xffffffff, true }, /* -1 < 0: signed */
	};
	struct waiter *w = NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(cmps); i++) {
		uset(b, 100);
		if (!w) {
			w = start_waiter(test, b, FUTEX_WAIT | PRIV, 100, 0);
			KUNIT_ASSERT_TRUE(test, wait_queued(b, 0, 1));
		}
		uset(b, cmps[i].old);
		/* SET the value it has: the op changes nothing. */
		long r = futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, b,
			       FUTEX_OP(FUTEX_OP_SET, (int)cmps[i].old, cmps[i].cmp, cmps[i].cmparg));
		KUNIT_EXPECT_EQ(test, r, cmps[i].wakes ? 1 : 0);
		KUNIT_EXPECT_EQ(test, uget(b), cmps[i].old);
		if (r == 1) {
			KUNIT_ASSERT_TRUE(test, join_waiter(w));
			KUNIT_EXPECT_EQ(test, w->ret, 0);
			w = NULL;
		}
	}
	/* Both sides: 2 waiters on a, 2 on b; wake 1 + 1. */
	if (w) {
		KUNIT_EXPECT_EQ(test, futex(b, FUTEX_WAKE | PRIV, 1, 0, NULL, 0), 1);
		KUNIT_ASSERT_TRUE(test, join_waiter(w));
	}
	uset(a, 1);
	uset(b, 5);
	struct waiter *wa[2], *wb[2];
	for (unsigned i = 0; i < 2; i++) {
		wa[i] = start_waiter(test, a, FUTEX_WAIT | PRIV, 1, 0);
		wb[i] = start_waiter(test, b, FUTEX_WAIT | PRIV, 5, 0);
	}
	KUNIT_ASSERT_TRUE(test, wait_queued(a, 0, 2));
	KUNIT_ASSERT_TRUE(test, wait_queued(b, 0, 2));
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, b,
				    FUTEX_OP(FUTEX_OP_ADD, 3, FUTEX_OP_CMP_EQ, 5)), 2);
	KUNIT_EXPECT_EQ(test, uget(b), 8);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 1);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(b, 0), 1);
	/* The comparison fails: only uaddr1's waiter. */
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_OP | PRIV, 1, 1, b,
				    FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_GT, 100)), 1);
	KUNIT_EXPECT_EQ(test, uget(b), 9);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 0);
	KUNIT_EXPECT_EQ(test, futex(b, FUTEX_WAKE | PRIV, 1, 0, NULL, 0), 1);
	for (unsigned i = 0; i < 2; i++) {
		KUNIT_ASSERT_TRUE(test, join_waiter(wa[i]));
		KUNIT_ASSERT_TRUE(test, join_waiter(wb[i]));
		KUNIT_EXPECT_EQ(test, wa[i]->ret, 0);
		KUNIT_EXPECT_EQ(test, wb[i]->ret, 0);
	}
	fx_destroy(test);
}

/* FUTEX_WAIT_BITSET/FUTEX_WAKE_BITSET: a wake reaches only the waiters
 * whose bitset shares a bit with its own; plain FUTEX_WAKE matches any. */
static void bitsets_select_the_waiters(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0);
	uset(a, 0);
	struct waiter *w1 = start_waiter(test, a, FUTEX_WAIT_BITSET | PRIV, 0, 0x1);
	struct waiter *w2 = start_waiter(test, a, FUTEX_WAIT_BITSET | PRIV, 0, 0x2);
	struct waiter *w3 = start_waiter(test, a, FUTEX_WAIT_BITSET | PRIV, 0, 0x3);
	KUNIT_ASSERT_TRUE(test, wait_queued(a, 0, 3));
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_BITSET | PRIV, INT_MAX_U32, 0, NULL, 0x4), 0);
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE_BITSET | PRIV, INT_MAX_U32, 0, NULL, 0x2), 2);
	KUNIT_ASSERT_TRUE(test, join_waiter(w2));
	KUNIT_ASSERT_TRUE(test, join_waiter(w3));
	KUNIT_EXPECT_EQ(test, futex_nr_queued(a, 0), 1);
	KUNIT_EXPECT_FALSE(test, __atomic_load_n(&w1->done, __ATOMIC_ACQUIRE));
	KUNIT_EXPECT_EQ(test, futex(a, FUTEX_WAKE | PRIV, INT_MAX_U32, 0, NULL, 0), 1);
	KUNIT_ASSERT_TRUE(test, join_waiter(w1));
	KUNIT_EXPECT_EQ(test, w1->ret, 0);
	KUNIT_EXPECT_EQ(test, w2->ret, 0);
	fx_destroy(test);
}

/* Two threads on two CPUs hand a token back and forth through one word,
 * each waiting until the word holds its turn: a lost wakeup (the waker
 * changing the word between the waiter's check and its queueing) would
 * leave both asleep, and the hang guard would end the case. */
#define PINGPONG_ROUNDS 2000
struct pingpong {
	struct mm_struct *mm;
	u32 *word;
	unsigned long progress;
	unsigned long done;
};
static struct pingpong pp[2];
static struct test_crew pp_crew; /* worker i plays pp[i], parity i */

static int pingpong_fn(struct test_worker *w)
{
	struct pingpong *p = &pp[w->id];
	kthread_use_mm(p->mm);
	for (u32 i = 0; i < PINGPONG_ROUNDS && !test_crew_should_stop(w); i++) {
		u32 turn = 2 * i + w->id;
		for (;;) {
			u32 v = uget(p->word);
			if (v == turn || test_crew_should_stop(w))
				break;
			futex(p->word, FUTEX_WAIT | PRIV, v, 0, NULL, 0);
		}
		uset(p->word, turn + 1);
		futex(p->word, FUTEX_WAKE | PRIV, 1, 0, NULL, 0);
		__atomic_fetch_add(&p->progress, 1, __ATOMIC_RELAXED);
		test_crew_progress(w);
	}
	kthread_unuse_mm(p->mm);
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Before the crew is waited for: stops it, and wakes whoever sleeps on the
 * word until both are through. */
static void pingpong_stop(void *unused)
{
	(void)unused;
	test_crew_stop(&pp_crew);
	for (unsigned i = 0; i < pp_crew.n; i++)
		while (!__atomic_load_n(&pp[i].done, __ATOMIC_ACQUIRE)) {
			futex(pp[i].word, FUTEX_WAKE | PRIV, INT_MAX_U32, 0, NULL, 0);
			schedule_timeout_uninterruptible(1);
		}
}

static void no_lost_wakeups_across_cpus(struct kunit *test)
{
	fx_init(test);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	u32 *a = word(0);
	uset(a, 0);
	for (unsigned i = 0; i < 2; i++)
		pp[i] = (struct pingpong){ .mm = fx.mm, .word = a };
	test_crew_start(test, &pp_crew, pingpong_fn, NULL, 2, TEST_CREW_OTHER_CPUS);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pingpong_stop, NULL), 0);
	test_crew_wait(test, &pp_crew);
	kunit_release_action(test, pingpong_stop, NULL); /* wakes them if they hung */
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &pp_crew), 0);
	KUNIT_EXPECT_EQ(test, pp[0].progress, PINGPONG_ROUNDS);
	KUNIT_EXPECT_EQ(test, pp[1].progress, PINGPONG_ROUNDS);
	KUNIT_EXPECT_EQ(test, uget(a), 2 * PINGPONG_ROUNDS);
	fx_destroy(test);
}

/* Waiters whose timeouts run out while a waker on another CPU requeues
 * them back and forth between two words and wakes some: a timed-out
 * waiter must find its futex_q wherever the requeue put it (its
 * lock_ptr changes under it). Every wait ends in 0 or -ETIMEDOUT, every
 * thread finishes, nothing stays queued. */
#define RACE_WAITERS 4
#define RACE_ROUNDS 40
struct racer {
	struct mm_struct *mm;
	u32 *a;
	unsigned long progress, bad;
	long bad_ret;
};
static struct racer racers[RACE_WAITERS + 1];
static unsigned long racers_done; /* the waiters through */

/* A crew: workers 0 .. RACE_WAITERS - 1 wait, the last one requeues and
 * wakes until the crew is stopped. */
static int racer_fn(struct test_worker *w)
{
	struct racer *r = &racers[w->id];
	u32 *b = r->a + 16;
	kthread_use_mm(r->mm);
	if (w->id == RACE_WAITERS) {
		while (!test_crew_should_stop(w)) {
			futex(r->a, FUTEX_REQUEUE | PRIV, 0, 2, b, 0);
			futex(b, FUTEX_REQUEUE | PRIV, 0, 3, r->a, 0);
			futex(b, FUTEX_WAKE | PRIV, 1, 0, NULL, 0);
			__atomic_fetch_add(&r->progress, 1, __ATOMIC_RELAXED);
			cond_resched();
		}
	} else {
		test_crew_progress(w);
		for (unsigned i = 0; i < RACE_ROUNDS; i++) {
			unsigned long ts = utimespec_in(1 + (unsigned)(r - racers),
							10000000 + 1000000 * (i % 7));
			long ret = futex(r->a, FUTEX_WAIT | PRIV, 0, ts, NULL, 0);
			if (ret != 0 && ret != -ETIMEDOUT) {
				r->bad++;
				r->bad_ret = ret;
			}
			__atomic_fetch_add(&r->progress, 1, __ATOMIC_RELAXED);
			test_crew_progress(w);
		}
		__atomic_add_fetch(&racers_done, 1, __ATOMIC_RELEASE);
	}
	kthread_unuse_mm(r->mm);
	return 0;
}

static void timeouts_racing_requeues_leave_nothing_queued(struct kunit *test)
{
	fx_init(test);
	u32 *a = word(0);
	uset(a, 0);
	uset(a + 16, 0);
	static struct test_crew c;
	racers_done = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(racers); i++)
		racers[i] = (struct racer){ .mm = fx.mm, .a = a };
	test_crew_start(test, &c, racer_fn, NULL, ARRAY_SIZE(racers), TEST_CREW_OTHER_CPUS_OR_THIS);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(__atomic_load_n(&racers_done, __ATOMIC_ACQUIRE) == RACE_WAITERS,
						&c.progress));
	test_crew_stop(&c); /* the waker */
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	for (unsigned i = 0; i < RACE_WAITERS; i++) {
		KUNIT_EXPECT_EQ(test, racers[i].progress, RACE_ROUNDS);
		KUNIT_EXPECT_EQ(test, racers[i].bad, 0);
		KUNIT_EXPECT_EQ(test, racers[i].bad_ret, 0);
	}
	KUNIT_EXPECT_GT(test, racers[RACE_WAITERS].progress, 0);
	KUNIT_EXPECT_EQ(test, futex_nr_queued(NULL, 0), 0);
	fx_destroy(test);
}

/* Robust lists: a thread dies holding locks on its list. */
#define DEAD_TID 0x1234u
#define OTHER_TID 0x999u
struct robust_entry {
	u64 next;
	u32 lock; /* futex_offset 8 */
};

struct dying {
	struct mm_struct *mm;
	unsigned long head;
	long set_ret, get_ret;
	u64 got_head, got_len;
	bool cleared;
	unsigned long done;
	struct task_struct *task;
};
static struct dying dy;

/* A thread whose tid is DEAD_TID registers the list at head and exits
 * (the part of thread exit that is the futex code's). */
static int dying_fn(void *data)
{
	struct dying *d = data;
	kthread_use_mm(d->mm);
	int own = current->pid; /* its id, which kthread_join frees: restored below */
	current->pid = DEAD_TID;
	unsigned long out = fx.base + 3 * PAGE_SIZE;
	d->set_ret = sys(__NR_set_robust_list, d->head, sizeof(struct robust_list_head), 0, 0, 0, 0);
	d->get_ret = sys(__NR_get_robust_list, 0, out, out + 8, 0, 0, 0);
	copy_from_user(&d->got_head, (void *)out, 8);
	copy_from_user(&d->got_len, (void *)(out + 8), 8);
	futex_exit_release(current);
	d->cleared = current->robust_list == NULL;
	current->pid = own;
	kthread_unuse_mm(d->mm);
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void dying_join(void *unused)
{
	(void)unused;
	if (dy.task) {
		kthread_join(dy.task);
		dy.task = NULL;
	}
}

static bool run_dying(struct kunit *test, unsigned long head)
{
	dy = (struct dying){ .mm = fx.mm, .head = head };
	dy.task = kthread_run_on_cpu(dying_fn, &dy, test_nth_other_cpu_or_this(5), "futexdie/%u");
	KUNIT_ASSERT_NOT_NULL(test, dy.task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dying_join, NULL), 0);
	bool ok = wait_done(&dy.done, NULL);
	kunit_release_action(test, dying_join, NULL);
	return ok;
}

static void put_entry(unsigned long at, unsigned long next, u32 lock)
{
	struct robust_entry e = { next, lock };
	copy_to_user((void *)at, &e, sizeof(e));
}

static void robust_list_death_marks_and_wakes(struct kunit *test)
{
	fx_init(test);
	unsigned long r = fx.base + 2 * PAGE_SIZE;
	unsigned long e1 = r + 64, e2 = r + 128, e3 = r + 192, e4 = r + 256;
	/* head -> e1 (ours, with a waiter) -> e2 (another's) -> e3 (PI, ours)
	 * -> head; e4 pending (word 0, a waiter). */
	struct robust_list_head head = { { (struct robust_list *)e1 }, 8, (struct robust_list *)e4 };
	copy_to_user((void *)r, &head, sizeof(head));
	put_entry(e1, e2, DEAD_TID | FUTEX_WAITERS);
	put_entry(e2, e3 | 1, OTHER_TID | FUTEX_WAITERS);
	put_entry(e3, r, DEAD_TID);
	put_entry(e4, 0, 0);
	u32 *l1 = (u32 *)(e1 + 8), *l2 = (u32 *)(e2 + 8), *l3 = (u32 *)(e3 + 8), *l4 = (u32 *)(e4 + 8);
	/* The kernel wakes shared (handle_futex_death's futex_wake(uaddr, 1..)),
	 * as glibc's robust mutexes wait. */
	struct waiter *w1 = start_waiter(test, l1, FUTEX_WAIT, DEAD_TID | FUTEX_WAITERS, 0);
	struct waiter *w2 = start_waiter(test, l2, FUTEX_WAIT, OTHER_TID | FUTEX_WAITERS, 0);
	struct waiter *w4 = start_waiter(test, l4, FUTEX_WAIT, 0, 0);
	KUNIT_ASSERT_TRUE(test, wait_queued(NULL, 0, 3));

	KUNIT_ASSERT_TRUE(test, run_dying(test, r));
	KUNIT_EXPECT_EQ(test, dy.set_ret, 0);
	KUNIT_EXPECT_EQ(test, dy.get_ret, 0);
	KUNIT_EXPECT_EQ(test, dy.got_head, r);
	KUNIT_EXPECT_EQ(test, dy.got_len, sizeof(struct robust_list_head));
	KUNIT_EXPECT_TRUE(test, dy.cleared);
	KUNIT_EXPECT_EQ(test, uget(l1), FUTEX_WAITERS | FUTEX_OWNER_DIED);
	KUNIT_EXPECT_EQ(test, uget(l2), OTHER_TID | FUTEX_WAITERS);
	KUNIT_EXPECT_EQ(test, uget(l3), FUTEX_OWNER_DIED);
	KUNIT_EXPECT_EQ(test, uget(l4), 0);
	KUNIT_ASSERT_TRUE(test, join_waiter(w1));
	KUNIT_ASSERT_TRUE(test, join_waiter(w4));
	KUNIT_EXPECT_EQ(test, w1->ret, 0);
	KUNIT_EXPECT_EQ(test, w4->ret, 0);
	/* Another thread's lock: its waiter sleeps on. */
	KUNIT_EXPECT_EQ(test, futex_nr_queued(l2, FLAGS_SHARED), 1);
	KUNIT_EXPECT_EQ(test, futex(l2, FUTEX_WAKE, 1, 0, NULL, 0), 1);
	KUNIT_ASSERT_TRUE(test, join_waiter(w2));

	/* A circular list ends after ROBUST_LIST_LIMIT entries. */
	head = (struct robust_list_head){ { (struct robust_list *)e1 }, 8, NULL };
	copy_to_user((void *)r, &head, sizeof(head));
	put_entry(e1, e1, DEAD_TID);
	KUNIT_ASSERT_TRUE(test, run_dying(test, r));
	KUNIT_EXPECT_EQ(test, uget(l1), FUTEX_OWNER_DIED);
	/* A head that cannot be read: nothing happens. */
	KUNIT_ASSERT_TRUE(test, run_dying(test, UNMAPPED));
	KUNIT_EXPECT_EQ(test, dy.set_ret, 0);
	KUNIT_EXPECT_TRUE(test, dy.cleared);
	fx_destroy(test);
}

static void robust_list_syscalls(struct kunit *test)
{
	fx_init(test);
	unsigned long out = fx.base + 3 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, sys(__NR_set_robust_list, fx.base, 23, 0, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_set_robust_list, fx.base, 25, 0, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_get_robust_list, 0, out, out + 8, 0, 0, 0), 0);
	u64 h = 1, len = 0;
	copy_from_user(&h, (void *)out, 8);
	copy_from_user(&len, (void *)(out + 8), 8);
	KUNIT_EXPECT_EQ(test, h, (u64)(unsigned long)current->robust_list);
	KUNIT_EXPECT_EQ(test, len, 24);
	KUNIT_EXPECT_EQ(test, sys(__NR_get_robust_list, 0x3ffffff0, out, out + 8, 0, 0, 0), -ESRCH);
	KUNIT_EXPECT_EQ(test, sys(__NR_get_robust_list, 0, UNMAPPED, out + 8, 0, 0, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, sys(__NR_get_robust_list, 0, out, UNMAPPED, 0, 0, 0), -EFAULT);
	fx_destroy(test);
}


/* FUTEX_CLOCK_REALTIME's clock: the date the CMOS RTC showed at boot
 * (QEMU's is the host's UTC time, so past 2017) plus the monotonic clock,
 * which clock_gettime(CLOCK_REALTIME) reads too. */
static void realtime_clock_is_the_rtc_date(struct kunit *test)
{
	fx_init(test);
	u64 before = ktime_get_real_ns();
	KUNIT_EXPECT_GT(test, before / 1000000000ull, 1500000000ull);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_REALTIME, fx.base, 0, 0, 0, 0), 0);
	struct __kernel_timespec ts;
	KUNIT_ASSERT_EQ(test, copy_from_user(&ts, (void *)fx.base, sizeof(ts)), 0);
	u64 t = (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
	KUNIT_EXPECT_GE(test, t, before);
	KUNIT_EXPECT_LE(test, t, ktime_get_real_ns());
	fx_destroy(test);
}

static struct kunit_case futex_cases[] = {
	KUNIT_CASE(wake_counts_are_exact),
	KUNIT_CASE(wait_on_a_changed_value_is_eagain),
	KUNIT_CASE(timeouts_never_end_early),
	KUNIT_CASE(bad_arguments_get_linux_errnos),
	KUNIT_CASE(requeue_moves_the_right_number),
	KUNIT_CASE(wake_op_applies_the_op_and_compares),
	KUNIT_CASE(bitsets_select_the_waiters),
	KUNIT_CASE(no_lost_wakeups_across_cpus),
	KUNIT_CASE(timeouts_racing_requeues_leave_nothing_queued),
	KUNIT_CASE(robust_list_death_marks_and_wakes),
	KUNIT_CASE(robust_list_syscalls),
	KUNIT_CASE(realtime_clock_is_the_rtc_date),
	{},
};

static struct kunit_suite futex_suite = {
	.name = "futex",
	.test_cases = futex_cases,
};
kunit_test_suite(futex_suite);
