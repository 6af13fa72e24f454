/* The in-kernel test framework, shaped after Linux's KUnit so that tests read
 * the same and the output parses with kunit_tool.
 *
 *   static void my_case(struct kunit *test)
 *   {
 *           KUNIT_EXPECT_EQ(test, 1 + 1, 2);      // record and go on
 *           KUNIT_ASSERT_NOT_NULL(test, ptr);     // record and stop the case
 *   }
 *   static struct kunit_case my_cases[] = { KUNIT_CASE(my_case), {} };
 *   static struct kunit_suite my_suite = { .name = "my", .test_cases = my_cases };
 *   kunit_test_suite(my_suite);
 *
 * Suites register themselves through the .kunit_test_suites linker section.
 * A failed ASSERT, a kunit_skip() or a CPU exception inside a case ends that
 * case (longjmp back to the runner); the run goes on with the next case.
 * What a case takes (an mm made current, a mapping, a lock) it gives back
 * through kunit_add_action(), which runs however the case ends, so that one
 * failing assertion costs one case and not the rest of the run.
 *
 * A parameterised case (KUNIT_CASE_PARAM) runs its one body once per value
 * its generator yields, each run a case of its own (init, actions, checks)
 * reported as a KTAP subtest named by the generator's description. */
#ifndef TESTS_KUNIT_H
#define TESTS_KUNIT_H

#include "arch/x86_64/setjmp.h"
#include "kernel/types.h"
#include "mm/numa.h"

struct kunit;

/* Room for a parameter's description, its terminating NUL included. */
#define KUNIT_PARAM_DESC_SIZE 128

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	/* NULL for a plain case. Otherwise called with prev NULL for the
	 * first parameter, then with the last one returned, until it returns
	 * NULL; it may write the parameter's description into desc
	 * (KUNIT_PARAM_DESC_SIZE bytes), else "param-<index>" is used. */
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	/* Optional, before the plan is printed: fills test_cases when the
	 * cases depend on what booted (the user programs the boot loader
	 * loaded: tests/user_test.c). */
	void (*prepare)(struct kunit_suite *suite);
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);  /* before each case */
	/* After each case, even a failed one; not after an init that failed
	 * (Linux's runs then too): what init took before failing, it gives
	 * back through kunit_add_action(), whose actions always run. */
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;    /* ends with an empty entry */
};

enum kunit_status { KUNIT_SUCCESS, KUNIT_FAILURE, KUNIT_SKIPPED };

/* Deferred cleanup, as Linux's KUnit (include/kunit/resource.h). */
typedef void(kunit_action_t)(void *);
/* Actions a case can have pending at once. A fixed table in struct kunit
 * rather than Linux's kzalloc per action: registering one allocates
 * nothing, so it never shows in a case's own free-page or slab check; the
 * next one past the table fails with -ENOMEM, as Linux's does when its
 * allocation fails. */
#define KUNIT_MAX_ACTIONS 16
struct kunit_action {
	kunit_action_t *action;
	void *ctx;
};

struct kunit {
	const char *name;
	enum kunit_status status;
	char status_comment[128]; /* skip reason */
	void *priv;
	/* The parameter of this run of a parameterised case (NULL in a plain
	 * case), and its index from 0. */
	const void *param_value;
	int param_index;
	struct jmp_buf abort;
	struct kunit *outer; /* the case that was current before this one */
	void *task;          /* the thread running the case: only its faults are caught */
	void *case_frame;    /* kunit_run_case's frame: the case's locals lie below it */
	unsigned faults;     /* CPU exceptions caught in this case */
	/* Pending deferred actions, oldest first; only the case's own thread
	 * touches them, so they need no lock. */
	struct kunit_action actions[KUNIT_MAX_ACTIONS];
	unsigned nr_actions;
	/* "BUG: Bad page state" reports: bad_page_reports when the case began
	 * (moved on past what an inner case judged), and how many the case
	 * said it provokes. */
	unsigned long bad_page_reports_at_start;
	unsigned long bad_page_reports_expected;
};

#define KUNIT_CASE(fn) { .run_case = fn, .name = #fn }
/* A case run once per parameter gen_params yields (test->param_value).
 * Printed as Linux's KUnit prints it: a subtest block with one result
 * per parameter, then the case's own result (not ok if a parameter
 * failed, skipped if every one skipped):
 *
 *       KTAP version 1
 *       # Subtest: case
 *       ok 1 desc of the first parameter
 *       not ok 2 desc of the second
 *   # case: pass:1 fail:1 skip:0 total:2
 *   not ok 3 case
 */
#define KUNIT_CASE_PARAM(fn, gen_params)                                               \
	{ .run_case = fn, .name = #fn, .generate_params = gen_params }

/* Defines name_gen_params, yielding a pointer to each element of array in
 * turn; get_desc(element, desc) describes one (NULL: "param-<index>"). */
#define KUNIT_ARRAY_PARAM(name, array, get_desc)                                        \
	static const void *name##_gen_params(const void *prev, char *desc)              \
	{                                                                               \
		typeof((array)[0]) *__next = prev ? ((typeof(__next))prev) + 1 : (array);   \
		if ((size_t)(__next - (array)) < ARRAY_SIZE(array)) {                      \
			void (*__get_desc)(typeof(__next), char *) = get_desc;             \
			if (__get_desc)                                                    \
				__get_desc(__next, desc);                                  \
			return __next;                                                     \
		}                                                                          \
		return NULL;                                                               \
	}

/* The same, each element described by its string member desc_member. */
#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)                                \
	static const void *name##_gen_params(const void *prev, char *desc)              \
	{                                                                               \
		typeof((array)[0]) *__next = prev ? ((typeof(__next))prev) + 1 : (array);   \
		if ((size_t)(__next - (array)) < ARRAY_SIZE(array)) {                      \
			kunit_param_desc(desc, "%s", __next->desc_member);                 \
			return __next;                                                     \
		}                                                                          \
		return NULL;                                                               \
	}
/* Writes a parameter's description (at most KUNIT_PARAM_DESC_SIZE bytes
 * with the NUL), for generators and get_desc functions. */
void kunit_param_desc(char *desc, const char *fmt, ...) __printf(2, 3);

#define kunit_test_suite(suite)                                                     \
	static struct kunit_suite *const __kunit_suite_ptr_##suite __used             \
		__section(".kunit_test_suites") = &suite

/* Registers action(ctx) to run when the case ends, however it ends (it
 * returns, an ASSERT fails, it skips, a CPU exception is caught): actions run
 * in the reverse order of registration, after the suite's exit and before
 * the framework's end-of-case checks. Returns 0, -EINVAL (no test or no
 * action) or -ENOMEM (KUNIT_MAX_ACTIONS pending already). ctx must outlive
 * the case function: never a local of the case, whose stack is gone (or
 * overwritten) when the action runs; use a static or an allocation. A ctx
 * on the case's stack is refused (-EINVAL) and fails the case. */
int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx);
/* The same, but runs action(ctx) at once when it cannot be registered, so
 * that a caller can bail out without leaking what it just took. */
int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action, void *ctx);
/* Forgets the most recently registered pending action(ctx) without running
 * it; nothing happens if there is none. */
void kunit_remove_action(struct kunit *test, kunit_action_t *action, void *ctx);
/* Runs the most recently registered pending action(ctx) now, and forgets it;
 * nothing happens if there is none. */
void kunit_release_action(struct kunit *test, kunit_action_t *action, void *ctx);

/* A case that provokes "BUG: Bad page state" reports on purpose says how
 * many (calls add up); one that provokes a different number fails when it
 * ends, since a bad page nobody expected is a kernel or test bug that must
 * not pass by as console noise. */
void kunit_expect_bad_page_reports(struct kunit *test, unsigned long n);

/* Runs one case with failure, skip and exception handling; no KTAP output.
 * Used by the runner, and by tests of the framework itself. */
enum kunit_status kunit_run_case(const struct kunit_suite *suite, const struct kunit_case *c,
				 struct kunit *test);
/* Runs the cases of suite s that match filter (NULL: all), then its
 * free_pages_restored case, printing its KTAP block as suite number
 * suite_no, and adds its pass, fail and skip counts to counts[]: one per
 * plain case, one per parameter of a parameterised case (as kunit_tool
 * counts them; the suite's own "# name: pass:..." line counts the case
 * once, as its plan does). Used by kunit_run_all, and by tests of the
 * framework itself. */
void kunit_run_suite(struct kunit_suite *s, const char *filter, unsigned suite_no, unsigned counts[3]);
/* Runs every registered suite whose "suite.case" names match filter (NULL:
 * all), printing KTAP. Returns the number of failed cases, or
 * KUNIT_RUN_NONE when no case matched (a failure: the plan is 1..0). */
#define KUNIT_RUN_NONE (~0u)
unsigned kunit_run_all(const char *filter);
/* Splits a "suite_glob.case_glob" filter, as KUnit's filter_glob; a
 * filter of several such globs separated by commas selects a case any of
 * them matches. */
bool kunit_filter_match(const char *filter, const char *suite, const char *name);

/* What a suite must give back (its last case, free_pages_restored, checks
 * it; a suite can check it per case too): per node, the free pages (buddy
 * and per-CPU lists; pages retired by a bad-page check count as given
 * back, since the test that provoked the check accounts for them), and the
 * slab objects in use. Taking it first empties kmalloc's cached slabs. */
/* What a suite or a user program must give back: per node, the free
 * pages with the hugetlb pool's pages counted among them (a pool shrunk
 * and grown again may hold its pages on other nodes, by Linux's rotors:
 * only the pool's size must come back, pool[]), and the slab objects in
 * use. */
struct kunit_resources {
	unsigned long free[MAX_NUMNODES];
	unsigned long lru[MAX_NUMNODES]; /* pages on the node's LRU lists */
	unsigned long pool[2]; /* pages in each hugetlb pool (hstates[]) */
	unsigned long slab_objects;
};
void kunit_resources_take(struct kunit_resources *r);
/* Waits until no kcompactd holds free pages for the moves of its round,
 * sleeping 100 us at a time: a spin through cond_resched() kept a host
 * thread from the very kcompactd it waited for under TCG (32 million
 * calls, 7% of default's instructions). */
void kunit_wait_kcompactd_idle(void);
/* Fails (as an expectation) for each figure that differs from before's. */
void kunit_expect_resources_back(struct kunit *test, const struct kunit_resources *before);

/* Of the 4 KiB pages [addr, addr + pages * 4 KiB) of the current mm, every
 * stride-th one, how many do not read back all zero (or cannot be read):
 * the check that a huge page was cleared. */
unsigned long kunit_user_nonzero_pages(unsigned long addr, unsigned long pages, unsigned long stride);

/* The hang guard of a case that waits for other CPUs: waits until *value
 * reaches target and returns true; returns false only after
 * KUNIT_HANG_GUARD_NS in which neither *value nor *progress (a counter the
 * awaited work moves, or NULL) changed. A slow or loaded host stretches the
 * wait; only a hang ends it, so timing never decides the case. */
#define KUNIT_HANG_GUARD_NS 20000000000ull
bool kunit_wait_while_progressing(const volatile unsigned long *value, unsigned long target,
				  const volatile unsigned long *progress);

struct mm_struct;
/* A flag word a test's user program shares with the case (the spinners of
 * tests/user/aux/ map a page at a fixed address): written (write != 0:
 * the value write) or read through mm, from a case's task that has no mm
 * of its own; the value, or -1 while the page is not mapped yet. */
int kunit_user_flag(struct mm_struct *mm, unsigned long uaddr, int write);

/* What the assertion macros call. */
void kunit_fail(struct kunit *test, bool assert, const char *file, int line, const char *fmt, ...)
	__printf(5, 6);
__noreturn void kunit_abort(struct kunit *test);
void kunit_mark_skipped(struct kunit *test, const char *fmt, ...) __printf(2, 3);
#define kunit_skip(test, ...)                                                       \
	do {                                                                        \
		kunit_mark_skipped(test, __VA_ARGS__);                              \
		kunit_abort(test);                                                  \
	} while (0)
void kunit_info(struct kunit *test, const char *fmt, ...) __printf(2, 3);

#define KUNIT_EXPECTATION false
#define KUNIT_ASSERTION true
#define __kunit_kind(a) ((a) ? "ASSERTION" : "EXPECTATION")

#define KUNIT_BOOL(test, assert, cond, expect, cond_text)                                           \
	do {                                                                             \
		bool __c = (cond);                                                       \
		if (__c != (bool)(expect)) {                                             \
			kunit_fail(test, assert, __FILE__, __LINE__,                     \
				   "Expected %s to be %s, but is %s", cond_text,              \
				   (expect) ? "true" : "false", (expect) ? "false" : "true"); \
			if (assert)                                                      \
				kunit_abort(test);                                       \
		}                                                                        \
	} while (0)

/* Integers of any type compare as __int128, so u64 and s64 both keep their
 * values. */
#define KUNIT_BINARY(test, assert, left, op, right, ltext, rtext)                                      \
	do {                                                                             \
		__int128 __l = (__int128)(left), __r = (__int128)(right);                \
		if (!(__l op __r)) {                                                     \
			kunit_fail(test, assert, __FILE__, __LINE__,                     \
				   "Expected %s %s %s, but\n    %s == %lld (%#llx)\n    %s == %lld (%#llx)", \
				   ltext, #op, rtext, ltext, (long long)__l,             \
				   (unsigned long long)__l, rtext, (long long)__r,       \
				   (unsigned long long)__r);                               \
			if (assert)                                                      \
				kunit_abort(test);                                       \
		}                                                                        \
	} while (0)

#define KUNIT_PTR(test, assert, left, op, right, ltext, rtext)                                         \
	do {                                                                             \
		const void *__l = (left), *__r = (right);                                \
		if (!(__l op __r)) {                                                     \
			kunit_fail(test, assert, __FILE__, __LINE__,                     \
				   "Expected %s %s %s, but\n    %s == %p\n    %s == %p",  \
				   ltext, #op, rtext, ltext, __l, rtext, __r);          \
			if (assert)                                                      \
				kunit_abort(test);                                       \
		}                                                                        \
	} while (0)

int kunit_strcmp(const char *a, const char *b);
#define KUNIT_STR(test, assert, left, op, right, ltext, rtext)                                         \
	do {                                                                             \
		const char *__l = (left), *__r = (right);                                \
		if (!(kunit_strcmp(__l, __r) op 0)) {                                    \
			kunit_fail(test, assert, __FILE__, __LINE__,                     \
				   "Expected %s %s %s, but\n    %s == \"%s\"\n    %s == \"%s\"", \
				   ltext, #op, rtext, ltext, __l, rtext, __r);          \
			if (assert)                                                      \
				kunit_abort(test);                                       \
		}                                                                        \
	} while (0)

void kunit_fail_mem(struct kunit *test, bool assert, const char *file, int line,
		    const char *lname, const char *rname, const void *l, const void *r, size_t size);
int memcmp(const void *a, const void *b, size_t n);
#define KUNIT_MEM(test, assert, left, right, size, ltext, rtext)                                       \
	do {                                                                             \
		const void *__l = (left), *__r = (right);                                \
		size_t __n = (size);                                                     \
		if (memcmp(__l, __r, __n)) {                                             \
			kunit_fail_mem(test, assert, __FILE__, __LINE__, ltext, rtext,   \
				       __l, __r, __n);                                     \
			if (assert)                                                      \
				kunit_abort(test);                                       \
		}                                                                        \
	} while (0)

#define KUNIT_EXPECT_TRUE(t, c) KUNIT_BOOL(t, KUNIT_EXPECTATION, c, true, #c)
#define KUNIT_EXPECT_FALSE(t, c) KUNIT_BOOL(t, KUNIT_EXPECTATION, c, false, #c)
#define KUNIT_EXPECT_EQ(t, a, b) KUNIT_BINARY(t, KUNIT_EXPECTATION, a, ==, b, #a, #b)
#define KUNIT_EXPECT_NE(t, a, b) KUNIT_BINARY(t, KUNIT_EXPECTATION, a, !=, b, #a, #b)
#define KUNIT_EXPECT_LT(t, a, b) KUNIT_BINARY(t, KUNIT_EXPECTATION, a, <, b, #a, #b)
#define KUNIT_EXPECT_LE(t, a, b) KUNIT_BINARY(t, KUNIT_EXPECTATION, a, <=, b, #a, #b)
#define KUNIT_EXPECT_GT(t, a, b) KUNIT_BINARY(t, KUNIT_EXPECTATION, a, >, b, #a, #b)
#define KUNIT_EXPECT_GE(t, a, b) KUNIT_BINARY(t, KUNIT_EXPECTATION, a, >=, b, #a, #b)
#define KUNIT_EXPECT_PTR_EQ(t, a, b) KUNIT_PTR(t, KUNIT_EXPECTATION, a, ==, b, #a, #b)
#define KUNIT_EXPECT_PTR_NE(t, a, b) KUNIT_PTR(t, KUNIT_EXPECTATION, a, !=, b, #a, #b)
#define KUNIT_EXPECT_NULL(t, a) KUNIT_PTR(t, KUNIT_EXPECTATION, a, ==, NULL, #a, "NULL")
#define KUNIT_EXPECT_NOT_NULL(t, a) KUNIT_PTR(t, KUNIT_EXPECTATION, a, !=, NULL, #a, "NULL")
#define KUNIT_EXPECT_STREQ(t, a, b) KUNIT_STR(t, KUNIT_EXPECTATION, a, ==, b, #a, #b)
#define KUNIT_EXPECT_STRNEQ(t, a, b) KUNIT_STR(t, KUNIT_EXPECTATION, a, !=, b, #a, #b)
#define KUNIT_EXPECT_MEMEQ(t, a, b, n) KUNIT_MEM(t, KUNIT_EXPECTATION, a, b, n, #a, #b)

#define KUNIT_ASSERT_TRUE(t, c) KUNIT_BOOL(t, KUNIT_ASSERTION, c, true, #c)
#define KUNIT_ASSERT_FALSE(t, c) KUNIT_BOOL(t, KUNIT_ASSERTION, c, false, #c)
#define KUNIT_ASSERT_EQ(t, a, b) KUNIT_BINARY(t, KUNIT_ASSERTION, a, ==, b, #a, #b)
#define KUNIT_ASSERT_NE(t, a, b) KUNIT_BINARY(t, KUNIT_ASSERTION, a, !=, b, #a, #b)
#define KUNIT_ASSERT_LT(t, a, b) KUNIT_BINARY(t, KUNIT_ASSERTION, a, <, b, #a, #b)
#define KUNIT_ASSERT_LE(t, a, b) KUNIT_BINARY(t, KUNIT_ASSERTION, a, <=, b, #a, #b)
#define KUNIT_ASSERT_GT(t, a, b) KUNIT_BINARY(t, KUNIT_ASSERTION, a, >, b, #a, #b)
#define KUNIT_ASSERT_GE(t, a, b) KUNIT_BINARY(t, KUNIT_ASSERTION, a, >=, b, #a, #b)
#define KUNIT_ASSERT_PTR_EQ(t, a, b) KUNIT_PTR(t, KUNIT_ASSERTION, a, ==, b, #a, #b)
#define KUNIT_ASSERT_PTR_NE(t, a, b) KUNIT_PTR(t, KUNIT_ASSERTION, a, !=, b, #a, #b)
#define KUNIT_ASSERT_NULL(t, a) KUNIT_PTR(t, KUNIT_ASSERTION, a, ==, NULL, #a, "NULL")
#define KUNIT_ASSERT_NOT_NULL(t, a) KUNIT_PTR(t, KUNIT_ASSERTION, a, !=, NULL, #a, "NULL")
#define KUNIT_ASSERT_STREQ(t, a, b) KUNIT_STR(t, KUNIT_ASSERTION, a, ==, b, #a, #b)
#define KUNIT_ASSERT_STRNEQ(t, a, b) KUNIT_STR(t, KUNIT_ASSERTION, a, !=, b, #a, #b)
#define KUNIT_ASSERT_MEMEQ(t, a, b, n) KUNIT_MEM(t, KUNIT_ASSERTION, a, b, n, #a, #b)

#endif
