/* futex(2), set_robust_list(2) and get_robust_list(2) as one thread sees
 * them: a changed value (EAGAIN), timeouts (relative, absolute on
 * CLOCK_MONOTONIC and CLOCK_REALTIME; never early), Linux's EINVAL,
 * EFAULT and ENOSYS cases, wakes and requeues that find no waiter (0),
 * FUTEX_WAKE_OP's operations on the second word, and the robust-list head
 * a thread registers. Raw syscall(2) with the constants of
 * <linux/futex.h> spelled out, so only standard headers are needed. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_futex
#define SYS_futex 202
#endif
#ifndef SYS_set_robust_list
#define SYS_set_robust_list 273
#endif
#ifndef SYS_get_robust_list
#define SYS_get_robust_list 274
#endif

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define PRIV FUTEX_PRIVATE_FLAG
#define FUTEX_OP_SET 0
#define FUTEX_OP_ADD 1
#define FUTEX_OP_OR 2
#define FUTEX_OP_ANDN 3
#define FUTEX_OP_XOR 4
#define FUTEX_OP_OPARG_SHIFT 8
#define FUTEX_OP_CMP_EQ 0
#define FUTEX_OP(op, oparg, cmp, cmparg)                                                   \
	((((op) & 0xf) << 28) | (((cmp) & 0xf) << 24) | (((oparg) & 0xfff) << 12) |        \
	 ((cmparg) & 0xfff))

struct robust_list {
	struct robust_list *next;
};
struct robust_list_head {
	struct robust_list list;
	long futex_offset;
	struct robust_list *list_op_pending;
};

static long futex(uint32_t *uaddr, int op, uint32_t val, const void *timeout, uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
}

static long long clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct timespec ts_of(long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	return ts;
}

static uint32_t words[16] __attribute__((aligned(64)));

static void value_mismatch(void)
{
	uint32_t *a = &words[0];
	*a = 1;
	CHECK_ERRNO(futex(a, FUTEX_WAIT | PRIV, 2, NULL, NULL, 0), EAGAIN);
	CHECK_ERRNO(futex(a, FUTEX_WAIT, 2, NULL, NULL, 0), EAGAIN);
	CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET | PRIV, 0, NULL, NULL, 1), EAGAIN);
	/* The value is compared before the (past) deadline matters. */
	struct timespec past = { 0, 0 };
	CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET | PRIV, 0, &past, NULL, ~0u), EAGAIN);
}

static void timeouts(void)
{
	uint32_t *a = &words[0];
	*a = 3;
	struct timespec rel = { 0, 20 * 1000 * 1000 };
	long long t0 = clock_ns(CLOCK_MONOTONIC);
	CHECK_ERRNO(futex(a, FUTEX_WAIT | PRIV, 3, &rel, NULL, 0), ETIMEDOUT);
	long long waited = clock_ns(CLOCK_MONOTONIC) - t0;
	note("FUTEX_WAIT with 20 ms took %lld us", waited / 1000);
	CHECK_CMP(waited, >=, 20 * 1000 * 1000);

	long long deadline = clock_ns(CLOCK_MONOTONIC) + 20 * 1000 * 1000;
	struct timespec abs = ts_of(deadline);
	CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET | PRIV, 3, &abs, NULL, ~0u), ETIMEDOUT);
	CHECK_CMP(clock_ns(CLOCK_MONOTONIC), >=, deadline);

	/* CLOCK_REALTIME reads a real date (past 2017), and a realtime
	 * deadline is kept on that clock. */
	long long real = clock_ns(CLOCK_REALTIME);
	CHECK_CMP(real / 1000000000LL, >, 1500000000LL);
	deadline = real + 20 * 1000 * 1000;
	abs = ts_of(deadline);
	CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET | PRIV | FUTEX_CLOCK_REALTIME, 3, &abs, NULL, ~0u),
		    ETIMEDOUT);
	CHECK_CMP(clock_ns(CLOCK_REALTIME), >=, deadline);
	/* Shared, and a deadline long past. */
	struct timespec past = { 0, 1 };
	CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET, 3, &past, NULL, ~0u), ETIMEDOUT);
}

static void invalid(void)
{
	uint32_t *a = &words[0], *b = &words[4];
	uint32_t *odd = (uint32_t *)((char *)a + 2);
	*a = 0;
	CHECK_ERRNO(futex(odd, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EINVAL);
	CHECK_ERRNO(futex(odd, FUTEX_WAKE, 1, NULL, NULL, 0), EINVAL);
	CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET | PRIV, 0, NULL, NULL, 0), EINVAL);
	CHECK_ERRNO(futex(a, FUTEX_WAKE_BITSET | PRIV, 1, NULL, NULL, 0), EINVAL);
	struct timespec bad[] = { { 0, 1000000000L }, { 0, -1 }, { -1, 0 } };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERRNO(futex(a, FUTEX_WAIT | PRIV, 1, &bad[i], NULL, 0), EINVAL);
		CHECK_ERRNO(futex(a, FUTEX_WAIT_BITSET | PRIV, 1, &bad[i], NULL, ~0u), EINVAL);
	}
	/* Negative counts for the requeues. */
	CHECK_ERRNO(futex(a, FUTEX_REQUEUE | PRIV, (uint32_t)-1, (void *)1, b, 0), EINVAL);
	CHECK_ERRNO(futex(a, FUTEX_CMP_REQUEUE | PRIV, 1, (void *)0xffffffffUL, b, 0), EINVAL);
	/* FUTEX_CLOCK_REALTIME is only for the absolute waits; 14 is no op. */
	CHECK_ERRNO(futex(a, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0), ENOSYS);
	CHECK_ERRNO(futex(a, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0), ENOSYS);
	CHECK_ERRNO(futex(a, 14 | PRIV, 0, NULL, NULL, 0), ENOSYS);
	/* FUTEX_WAKE_OP's unknown operation changes nothing. */
	*b = 9;
	CHECK_ERRNO(futex(a, FUTEX_WAKE_OP | PRIV, 1, (void *)1, b, FUTEX_OP(5, 1, 0, 0)), ENOSYS);
	CHECK_CMP(*b, ==, 9);
}

static void faults(void)
{
	uint32_t *a = &words[0];
	*a = 0;
	char *page = mmap(NULL, 2 * PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	if (page == MAP_FAILED)
		return;
	CHECK(munmap(page + PAGE_4K, PAGE_4K) == 0);
	uint32_t *hole = (uint32_t *)(page + PAGE_4K);
	CHECK_ERRNO(futex(NULL, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EFAULT);
	CHECK_ERRNO(futex(hole, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EFAULT);
	CHECK_ERRNO(futex(a, FUTEX_WAIT | PRIV, 0, (void *)hole, NULL, 0), EFAULT);
	/* A private wake needs only a user address; a shared one the page. */
	CHECK_CMP(futex(hole, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), ==, 0);
	CHECK_ERRNO(futex(hole, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
	CHECK_ERRNO(futex(a, FUTEX_WAKE_OP | PRIV, 1, (void *)1, hole, 0), EFAULT);
	CHECK_ERRNO(futex((uint32_t *)0xffff800000000000UL, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0),
		    EFAULT);
	/* A read-only page can be waited on privately, not shared. */
	CHECK(mprotect(page, PAGE_4K, PROT_READ) == 0);
	CHECK_ERRNO(futex((uint32_t *)page, FUTEX_WAIT | PRIV, 1, NULL, NULL, 0), EAGAIN);
	CHECK_ERRNO(futex((uint32_t *)page, FUTEX_WAIT, 1, NULL, NULL, 0), EFAULT);
	munmap(page, PAGE_4K);
}

static void no_waiters(void)
{
	uint32_t *a = &words[0], *b = &words[4];
	*a = 5;
	CHECK_CMP(futex(a, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), ==, 0);
	CHECK_CMP(futex(a, FUTEX_WAKE, 100, NULL, NULL, 0), ==, 0);
	CHECK_CMP(futex(a, FUTEX_WAKE_BITSET | PRIV, 1, NULL, NULL, 0x10), ==, 0);
	CHECK_CMP(futex(a, FUTEX_REQUEUE | PRIV, 1, (void *)1, b, 0), ==, 0);
	CHECK_ERRNO(futex(a, FUTEX_CMP_REQUEUE | PRIV, 1, (void *)1, b, 4), EAGAIN);
	CHECK_CMP(futex(a, FUTEX_CMP_REQUEUE | PRIV, 1, (void *)1, b, 5), ==, 0);
	CHECK_CMP(futex(a, FUTEX_CMP_REQUEUE, 1, (void *)1, b, 5), ==, 0);
	static const struct {
		int op, oparg;
		uint32_t before, after;
	} ops[] = {
		{ FUTEX_OP_SET, 0x123, 7, 0x123 },
		{ FUTEX_OP_SET, -1, 7, 0xffffffff },
		{ FUTEX_OP_ADD, 5, 7, 12 },
		{ FUTEX_OP_ADD, -2, 7, 5 },
		{ FUTEX_OP_OR, 0x30, 0x0f, 0x3f },
		{ FUTEX_OP_ANDN, 0x3, 0xff, 0xfc },
		{ FUTEX_OP_XOR, 0x5, 0xf, 0xa },
		{ FUTEX_OP_OPARG_SHIFT | FUTEX_OP_OR, 4, 0x1, 0x11 },
	};
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		*b = ops[i].before;
		CHECK_CMP(futex(a, FUTEX_WAKE_OP | PRIV, 1, (void *)1, b,
				FUTEX_OP(ops[i].op, ops[i].oparg, FUTEX_OP_CMP_EQ, 0)), ==, 0);
		CHECKF(*b == ops[i].after, "FUTEX_WAKE_OP op %d oparg %d: %#x -> %#x (expected %#x)",
		       ops[i].op, ops[i].oparg, ops[i].before, *b, ops[i].after);
	}
}

static void robust_list(void)
{
	struct robust_list_head *saved = NULL, *head = NULL;
	size_t len = 0;
	/* The C library may have registered one already: kept and put back. */
	CHECK(syscall(SYS_get_robust_list, 0, &saved, &len) == 0);
	CHECK_CMP(len, ==, sizeof(struct robust_list_head));
	static struct robust_list_head mine = { { &mine.list }, 0, NULL };
	CHECK_ERRNO(syscall(SYS_set_robust_list, &mine, sizeof(mine) - 1), EINVAL);
	CHECK_ERRNO(syscall(SYS_set_robust_list, &mine, sizeof(mine) + 1), EINVAL);
	CHECK(syscall(SYS_set_robust_list, &mine, sizeof(mine)) == 0);
	len = 0;
	CHECK(syscall(SYS_get_robust_list, 0, &head, &len) == 0);
	CHECK(head == &mine);
	CHECK_CMP(len, ==, 24);
	head = NULL;
	CHECK(syscall(SYS_get_robust_list, gettid(), &head, &len) == 0);
	CHECK(head == &mine);
	CHECK_ERRNO(syscall(SYS_get_robust_list, 0x3ffffff0, &head, &len), ESRCH);
	CHECK_ERRNO(syscall(SYS_get_robust_list, 0, NULL, &len), EFAULT);
	CHECK_ERRNO(syscall(SYS_get_robust_list, 0, &head, NULL), EFAULT);
	CHECK(syscall(SYS_set_robust_list, saved, sizeof(mine)) == 0);
}

int main(void)
{
	test_begin("futex_basic");
	value_mismatch();
	timeouts();
	invalid();
	faults();
	no_waiters();
	robust_list();
	return test_end();
}
