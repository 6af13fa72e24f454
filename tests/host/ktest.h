/* A minimal KTAP version 1 test harness for host programs, printing what the
 * kernel's KUnit prints (one suite per program), so tests/runner --host
 * counts the cases:
 *
 *   KTAP version 1
 *   1..1
 *       KTAP version 1
 *       # Subtest: host_page_alloc
 *       1..N
 *       # diagnostics of case 1 (and everything printk prints meanwhile)
 *       ok 1 name
 *   # host_page_alloc: pass:N fail:0 skip:0 total:N
 *   ok 1 host_page_alloc
 *
 * The program exits 0 when every case passed (or was skipped), 1 otherwise.
 * EXPECT_* record a failure and go on; ASSERT_* also end the case. */
#ifndef TESTS_HOST_KTEST_H
#define TESTS_HOST_KTEST_H

#include "kernel/types.h"

struct ktest {
	const char *name;
	bool failed;
	bool skipped;
	char skip_reason[160];
	void *abort_jmp; /* jmp_buf of the running case */
};

/* One step of xorshift64 (Marsaglia): the host tests' reproducible
 * random numbers, from a nonzero *state. */
static inline u64 ktest_xorshift64(u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

#define KTEST_CASE(fn) { #fn, fn }

/* Runs the suite; returns the process exit status (0 or 1). init, if not
 * NULL, runs before every case. */
int ktest_run_suite(const char *suite, const struct ktest_case *cases, size_t n,
		    void (*init)(struct ktest *t));

void ktest_diag(struct ktest *t, const char *fmt, ...) __printf(2, 3);
void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...) __printf(4, 5);
__noreturn void ktest_abort(struct ktest *t);
__noreturn void ktest_skip(struct ktest *t, const char *fmt, ...) __printf(2, 3);

#define KTEST_EXPECT_TRUE(t, c)                                                          \
	((c) ? true : (ktest_fail(t, __FILE__, __LINE__, "Expected %s to be true", #c), false))
#define KTEST_EXPECT_FALSE(t, c)                                                         \
	(!(c) ? true : (ktest_fail(t, __FILE__, __LINE__, "Expected %s to be false", #c), false))

#define KTEST_EXPECT_OP(t, a, op, b)                                                     \
	({                                                                               \
		long long _a = (long long)(a), _b = (long long)(b);                      \
		bool _ok = _a op _b;                                                     \
		if (!_ok)                                                                \
			ktest_fail(t, __FILE__, __LINE__,                                \
				   "Expected %s %s %s, but %s == %lld (%#llx), %s == %lld (%#llx)", \
				   #a, #op, #b, #a, _a, (unsigned long long)_a, #b, _b,  \
				   (unsigned long long)_b);                             \
		_ok;                                                                     \
	})
#define KTEST_EXPECT_EQ(t, a, b) KTEST_EXPECT_OP(t, a, ==, b)
#define KTEST_EXPECT_NE(t, a, b) KTEST_EXPECT_OP(t, a, !=, b)
#define KTEST_EXPECT_LT(t, a, b) KTEST_EXPECT_OP(t, a, <, b)
#define KTEST_EXPECT_LE(t, a, b) KTEST_EXPECT_OP(t, a, <=, b)
#define KTEST_EXPECT_GT(t, a, b) KTEST_EXPECT_OP(t, a, >, b)
#define KTEST_EXPECT_GE(t, a, b) KTEST_EXPECT_OP(t, a, >=, b)
#define KTEST_EXPECT_NULL(t, p)                                                          \
	((p) == NULL ? true : (ktest_fail(t, __FILE__, __LINE__, "Expected %s to be NULL", #p), false))
#define KTEST_EXPECT_NOT_NULL(t, p)                                                      \
	((p) != NULL ? true : (ktest_fail(t, __FILE__, __LINE__, "Expected %s not to be NULL", #p), false))

#define KTEST_ASSERT_TRUE(t, c) do { if (!KTEST_EXPECT_TRUE(t, c)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_FALSE(t, c) do { if (!KTEST_EXPECT_FALSE(t, c)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_EQ(t, a, b) do { if (!KTEST_EXPECT_EQ(t, a, b)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_NE(t, a, b) do { if (!KTEST_EXPECT_NE(t, a, b)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_LT(t, a, b) do { if (!KTEST_EXPECT_LT(t, a, b)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_LE(t, a, b) do { if (!KTEST_EXPECT_LE(t, a, b)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_GE(t, a, b) do { if (!KTEST_EXPECT_GE(t, a, b)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_NULL(t, p) do { if (!KTEST_EXPECT_NULL(t, p)) ktest_abort(t); } while (0)
#define KTEST_ASSERT_NOT_NULL(t, p) do { if (!KTEST_EXPECT_NOT_NULL(t, p)) ktest_abort(t); } while (0)

#endif
