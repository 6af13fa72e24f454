/* The test runner: KTAP version 1 output exactly as Linux KUnit prints it.
 *
 *   KTAP version 1
 *   1..S
 *       KTAP version 1
 *       # Subtest: <suite>
 *       1..N
 *       # <diagnostics of case 1, if any>
 *       ok 1 <case>
 *       ok 2 <case> # SKIP <reason>
 *           KTAP version 1
 *           # Subtest: <parameterised case>
 *           # <diagnostics of its first parameter, if any>
 *           ok 1 <description of its first parameter>
 *           ...
 *       # <parameterised case>: pass:P fail:F skip:K total:T
 *       ok 3 <parameterised case>
 *       ok N+1 free_pages_restored
 *   # <suite>: pass:P fail:F skip:K total:N+1
 *   ok 1 <suite>
 *   # Totals: pass:P fail:F skip:K total:T
 *
 * While a case runs, everything printk prints becomes a "    # " diagnostic
 * line of that case. Every suite ends with a case of the runner's own,
 * free_pages_restored: each node's free page count (the hugetlb pool's
 * pages among them; a node's LRU pages may stand in for free ones it gained
 * or lost if the machine's total is unchanged: a tmpfs page swapped out
 * and back in on another node), each hugetlb pool's size and the number
 * of slab objects in use must be what they were before the suite ran, and no "Bad
 * page state" report may have come while no case ran (no case judged it).
 *
 * A case ends in this order: the case (returned, or unwound by longjmp), the
 * suite's exit, the case's deferred actions newest first, then the
 * framework's checks (printk capture, RCU read side, "Bad page state"
 * reports), so that the checks see what the case's cleanup left. Locking:
 * none; one case runs at a time, on one thread, and current_test is only
 * that thread's. */
#include "tests/kunit.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cmdline.h"
#include "kernel/ksyms.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/xarray.h"
#include "kernel/time.h"
#include "mm/hugetlb.h"
#include "mm/mmu_context.h"
#include "mm/compaction.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/slab.h"
#include "mm/swap.h"
#include "mm/vmalloc.h"

extern struct kunit_suite *const __kunit_suites_start[], *const __kunit_suites_end[];

static struct kunit *current_test;

#define CASE_PREFIX "    # "
#define PARAM_PREFIX "        # "

int kunit_strcmp(const char *a, const char *b)
{
	if (!a || !b)
		return a == b ? 0 : (a ? 1 : -1);
	return strcmp(a, b);
}

void kunit_fail(struct kunit *test, bool assert, const char *file, int line, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	test->status = KUNIT_FAILURE;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_ALWAYS "%s: %s FAILED at %s:%d\n%s\n", test->name, __kunit_kind(assert), file, line, msg);
}

void kunit_fail_mem(struct kunit *test, bool assert, const char *file, int line,
		    const char *lname, const char *rname, const void *l, const void *r, size_t size)
{
	const u8 *a = l, *b = r;
	size_t first = 0;
	while (first < size && a[first] == b[first])
		first++;
	kunit_fail(test, assert, file, line,
		   "Expected %s == %s (%zu bytes), but they differ from byte %zu:\n"
		   "    %s[%zu] == 0x%02x\n    %s[%zu] == 0x%02x",
		   lname, rname, size, first, lname, first, a[first], rname, first, b[first]);
}

void kunit_abort(struct kunit *test)
{
	kernel_longjmp(&test->abort, 1);
}

void kunit_mark_skipped(struct kunit *test, const char *fmt, ...)
{
	va_list ap;
	if (test->status == KUNIT_FAILURE)
		return; /* a failure stays a failure */
	test->status = KUNIT_SKIPPED;
	va_start(ap, fmt);
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, ap);
	va_end(ap);
}

void kunit_info(struct kunit *test, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_ALWAYS "%s: %s\n", test->name, msg);
}

int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	if (!test || !action)
		return -EINVAL;
	/* Below kunit_run_case's frame and above ours: a local of the case or
	 * of its helpers, gone (or overwritten) by the time an ASSERT unwinds
	 * the case and the action runs. */
	const char *here = __builtin_frame_address(0), *p = ctx;
	if (test->task == (void *)current && p >= here && p < (const char *)test->case_frame) {
		kunit_fail(test, false, __FILE__, __LINE__,
			   "kunit_add_action: ctx %p is on the case's stack (a local); "
			   "use a static or an allocation", ctx);
		return -EINVAL;
	}
	if (test->nr_actions == KUNIT_MAX_ACTIONS)
		return -ENOMEM;
	test->actions[test->nr_actions++] = (struct kunit_action){ action, ctx };
	return 0;
}

int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action, void *ctx)
{
	int err = kunit_add_action(test, action, ctx);
	if (err && action)
		action(ctx);
	return err;
}

/* Takes the newest pending action(ctx) out of the table; false if none. As
 * Linux's kunit_find_resource, the newest match wins when one action was
 * registered twice with the same ctx. */
static bool take_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	if (!test)
		return false;
	for (unsigned i = test->nr_actions; i-- > 0;) {
		if (test->actions[i].action != action || test->actions[i].ctx != ctx)
			continue;
		memmove(&test->actions[i], &test->actions[i + 1],
			(test->nr_actions - i - 1) * sizeof(test->actions[0]));
		test->nr_actions--;
		return true;
	}
	return false;
}

void kunit_remove_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	take_action(test, action, ctx);
}

void kunit_release_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	/* Out of the table first: if the action faults, the end of the case
	 * must not run it a second time. */
	if (take_action(test, action, ctx))
		action(ctx);
}

/* Runs the pending actions, newest first. An action that faults fails the
 * case (kunit_fault unwinds to test->abort, set here) and the older ones
 * still run. One registered while they run runs too. */
static void run_deferred_actions(struct kunit *test)
{
	while (test->nr_actions) {
		struct kunit_action a = test->actions[--test->nr_actions];
		if (kernel_setjmp(&test->abort) == 0)
			a.action(a.ctx);
	}
}

/* Every "Bad page state" report a case has judged (its own, expected or
 * not): a suite compares it with bad_page_reports to find the reports that
 * came while no case ran (suite_init, suite_exit, between cases). */
static unsigned long bad_page_reports_judged;

void kunit_expect_bad_page_reports(struct kunit *test, unsigned long n)
{
	test->bad_page_reports_expected += n;
}

/* Whether the case provoked the reports it declared. The count is global,
 * so a case run inside another (the framework's self-tests) hands the
 * reports it judged to the outer one as already seen. */
static void check_bad_page_reports(struct kunit *test)
{
	unsigned long seen = bad_page_reports - test->bad_page_reports_at_start;
	bad_page_reports_judged += seen;
	if (seen != test->bad_page_reports_expected) {
		printk(KERN_ALWAYS "%s: %lu \"BUG: Bad page state\" report(s), %lu expected "
		       "(kunit_expect_bad_page_reports)\n", test->name, seen,
		       test->bad_page_reports_expected);
		test->status = KUNIT_FAILURE;
	}
	if (test->outer)
		test->outer->bad_page_reports_at_start += seen;
}

/* A CPU exception while a case runs fails that case instead of the kernel. */
static void kunit_fault(struct pt_regs *regs, u64 cr2)
{
	struct kunit *test = current_test;
	/* Not in a case, or a fault of another thread (another CPU's, or a
	 * kthread the case started): the case's longjmp target is not on that
	 * stack, so let the kernel die with the full report. */
	if (!test || test->task != (void *)current)
		return;
	/* Nor one in an interrupt handler that happened to interrupt the
	 * case: unwinding the case would leave the handler half done. */
	if (in_interrupt())
		return;
	/* Nor one under the console lock: unwinding would leave it held. */
	if (printk_console_held())
		return;
	u64 off, size;
	const char *fn = ksym_lookup(regs->rip, &off, &size);
	test->status = KUNIT_FAILURE;
	test->faults++;
	printk(KERN_ALWAYS "%s: caught %s (vector %lu, error code %#lx) at %s+0x%lx (%#lx)", test->name,
	       trap_name(regs->vector), regs->vector, regs->error_code, fn ? fn : "?",
	       fn ? off : 0, regs->rip);
	if (regs->vector == X86_TRAP_PF)
		printk(KERN_ALWAYS ", address %#lx", cr2);
	printk(KERN_ALWAYS "\n");
	show_backtrace(regs->rip, regs->rbp);
	kernel_longjmp(&test->abort, 2);
}

void kunit_param_desc(char *desc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(desc, KUNIT_PARAM_DESC_SIZE, fmt, ap);
	va_end(ap);
}

/* One run of case c: with param_value NULL for a plain case, or one
 * parameter of a parameterised one. */
static enum kunit_status run_case(const struct kunit_suite *suite, const struct kunit_case *c,
				  struct kunit *test, const void *param_value, int param_index)
{
	memset(test, 0, sizeof(*test));
	test->name = c->name;
	test->param_value = param_value;
	test->param_index = param_index;
	test->status = KUNIT_SUCCESS;
	test->outer = current_test;
	test->task = current;
	test->case_frame = __builtin_frame_address(0);
	test->bad_page_reports_at_start = bad_page_reports;
	current_test = test;
	trap_fault_hook = kunit_fault;
	/* A case that faults (or returns) inside rcu_read_lock() would leave
	 * the CPU's read-side count up and stall every grace period after. */
	int rcu_nesting = this_cpu_read(rcu_read_lock_nesting);
	/* Likewise a printk capture it began and never ended (a fault between
	 * the two): every later line would go to a dead buffer. */
	struct printk_capture *capture = printk_capture_current();

	/* volatile: read after a longjmp. */
	volatile bool init_done = false;
	if (kernel_setjmp(&test->abort) == 0) {
		if (suite && suite->init && suite->init(test)) {
			kunit_fail(test, true, __FILE__, __LINE__, "the suite's init failed");
		} else {
			init_done = true;
			c->run_case(test);
		}
	}
	/* The case is over (normally, by ASSERT, skip or exception). */
	if (init_done && suite && suite->exit) {
		if (kernel_setjmp(&test->abort) == 0)
			suite->exit(test);
	}
	run_deferred_actions(test);
	/* test->abort now points into run_deferred_actions' finished frame: a
	 * fault in the checks below is the framework's own bug, reported by
	 * the kernel as such, never unwound to there. */
	test->task = NULL;
	if (printk_capture_current() != capture) {
		printk_capture_restore(capture);
		printk(KERN_ALWAYS "%s: left a printk capture open; ended for it\n", test->name);
		test->status = KUNIT_FAILURE;
	}
	int left = this_cpu_read(rcu_read_lock_nesting) - rcu_nesting;
	if (left) {
		printk(KERN_ALWAYS "%s: left %d rcu_read_lock() section(s) open; closed for it\n",
		       test->name, left);
		this_cpu_write(rcu_read_lock_nesting, rcu_nesting);
		test->status = KUNIT_FAILURE;
	}
	check_bad_page_reports(test);
	current_test = test->outer;
	return test->status;
}

enum kunit_status kunit_run_case(const struct kunit_suite *suite, const struct kunit_case *c,
				 struct kunit *test)
{
	return run_case(suite, c, test, NULL, 0);
}

/* One "suite_glob[.case_glob]" of the filter, len bytes of it. */
static bool filter_glob_match(const char *glob, size_t len, const char *suite, const char *name)
{
	char suite_glob[128], case_glob[128];
	if (len >= sizeof(suite_glob))
		len = sizeof(suite_glob) - 1;
	memcpy(suite_glob, glob, len);
	suite_glob[len] = 0;
	char *dot = strchr(suite_glob, '.');
	if (dot) {
		*dot = 0;
		strlcpy(case_glob, dot + 1, sizeof(case_glob));
	}
	return glob_match(suite_glob, suite) && (!dot || glob_match(case_glob, name));
}

bool kunit_filter_match(const char *filter, const char *suite, const char *name)
{
	if (!filter || !*filter)
		return true;
	/* Globs separated by commas: a case any of them selects. */
	for (const char *g = filter;;) {
		const char *comma = strchr(g, ',');
		size_t len = comma ? (size_t)(comma - g) : strlen(g);
		if (len && filter_glob_match(g, len, suite, name))
			return true;
		if (!comma)
			return false;
		g = comma + 1;
	}
}

void kunit_wait_kcompactd_idle(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		while (node_data[nid] && kcompactd_busy(nid)) {
			kcompactd_take_pending(nid);
			set_current_state(TASK_UNINTERRUPTIBLE);
			schedule_hrtimeout(ktime_get_ns() + 100 * 1000);
		}
}

void kunit_resources_take(struct kunit_resources *s)
{
	/* Page-table pages waiting for their RCU grace period (mm/pgtable.h)
	 * are free memory for this purpose too: let them go. */
	if (nr_pagetables_rcu_pending())
		rcu_barrier();
	/* And xarray nodes (lib/xarray.c), a page cache's among them. */
	else if (xa_nodes_rcu_pending())
		rcu_barrier();
	/* So are the page-table pages of vmalloc ranges waiting on the lazy
	 * purge list (a dead thread's stack, say). */
	vm_unmap_aliases();
	/* Empty slabs cached by kmalloc are free memory for this purpose. */
	kmem_cache_shrink_all();
	/* So are the free pages a kcompactd holds for the moves of its round
	 * (mm/compaction.c gives them back before it ends): wait for it. */
	kunit_wait_kcompactd_idle();
	_Static_assert(ARRAY_SIZE(s->pool) == HUGE_MAX_HSTATE, "a pool per hstate");
	/* Read without hugetlb_lock (mm/hugetlb.c's): taken between cases,
	 * when nothing changes the pools. */
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		s->free[nid] = node_data[nid] ? node_free_pages(nid) + node_data[nid]->nr_bad_pages : 0;
		s->lru[nid] = 0;
		for (int lru = 0; node_data[nid] && lru < NR_LRU_LISTS; lru++)
			s->lru[nid] += node_lru_pages(nid, (enum lru_list)lru);
		for (int h = 0; h < HUGE_MAX_HSTATE; h++)
			s->free[nid] += READ_ONCE(hstates[h].nr_huge_pages_node[nid]) << hstates[h].order;
	}
	for (int h = 0; h < HUGE_MAX_HSTATE; h++)
		s->pool[h] = READ_ONCE(hstates[h].nr_huge_pages);
	s->slab_objects = slab_objects_in_use();
}

unsigned long kunit_user_nonzero_pages(unsigned long addr, unsigned long pages, unsigned long stride)
{
	static u64 buf[4096 / 8];
	unsigned long bad = 0;
	for (unsigned long i = 0; i < pages; i += stride) {
		if (copy_from_user(buf, (void *)(addr + i * 4096), 4096)) {
			bad++;
			continue;
		}
		for (unsigned w = 0; w < 4096 / 8; w++)
			if (buf[w]) {
				bad++;
				break;
			}
	}
	return bad;
}

/* Reports each figure of after that differs from before's, one line each
 * ("... before<when> and ... after"); how many differed. */
static unsigned resources_report(const struct kunit_resources *before, const struct kunit_resources *after,
				 const char *when, void (*report)(void *ctx, const char *line), void *ctx)
{
	char line[160];
	unsigned n = 0;
	/* A page that lives on, a tmpfs file's, may come back on another node
	 * than it left (swapped out, and in again by swapoff on another CPU):
	 * then the free pages of the machine are what they were, and so is
	 * each node's free and LRU pages together; anything else is a leak
	 * or a miscount. */
	unsigned long free_before = 0, free_after = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		free_before += before->free[nid];
		free_after += after->free[nid];
	}
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		bool moved = free_before == free_after &&
			     after->free[nid] + after->lru[nid] == before->free[nid] + before->lru[nid];
		if (after->free[nid] != before->free[nid] && !moved) {
			snprintf(line, sizeof(line), "node %d had %lu free pages before%s and %lu after (%+ld)", nid,
				 before->free[nid], when, after->free[nid],
				 (long)(after->free[nid] - before->free[nid]));
			report(ctx, line);
			n++;
		}
	}
	for (int h = 0; h < HUGE_MAX_HSTATE; h++) {
		if (after->pool[h] != before->pool[h]) {
			snprintf(line, sizeof(line),
				 "the pool of %lu kB hugetlb pages had %lu pages before%s and %lu after",
				 (PAGE_SIZE << hstates[h].order) / 1024, before->pool[h], when, after->pool[h]);
			report(ctx, line);
			n++;
		}
	}
	if (after->slab_objects != before->slab_objects) {
		snprintf(line, sizeof(line), "%lu slab objects in use before%s, %lu after", before->slab_objects,
			 when, after->slab_objects);
		report(ctx, line);
		n++;
	}
	return n;
}

static void report_as_failure(void *test, const char *line)
{
	kunit_fail(test, false, __FILE__, __LINE__, "%s", line);
}

void kunit_expect_resources_back(struct kunit *test, const struct kunit_resources *before)
{
	struct kunit_resources now;
	kunit_resources_take(&now);
	resources_report(before, &now, "", report_as_failure, test);
}

bool kunit_wait_while_progressing(const volatile unsigned long *value, unsigned long target,
				  const volatile unsigned long *progress)
{
	unsigned long seen_v = ~0ul, seen_p = ~0ul;
	u64 deadline = 0;
	for (;;) {
		unsigned long now_v = __atomic_load_n(value, __ATOMIC_ACQUIRE);
		unsigned long now_p = progress ? __atomic_load_n(progress, __ATOMIC_RELAXED) : 0;
		if (now_v >= target)
			return true;
		u64 now = ktime_get_ns();
		if (now_v != seen_v || now_p != seen_p) {
			seen_v = now_v;
			seen_p = now_p;
			deadline = now + KUNIT_HANG_GUARD_NS;
		} else if (now > deadline) {
			return false;
		}
		cpu_relax();
	}
}

static void report_as_log_line(void *unused, const char *line)
{
	(void)unused;
	printk(KERN_ALWAYS "free_pages_restored: %s\n", line);
}

/* The last case of every suite: nothing the suite allocated is left, and
 * no "Bad page state" report came while no case ran (from suite_init,
 * suite_exit, or work a case left behind), where no case could judge it. */
static enum kunit_status check_restored(const struct kunit_resources *before,
					unsigned long reports_before, unsigned long judged_before)
{
	struct kunit_resources after;
	enum kunit_status st = KUNIT_SUCCESS;
	kunit_resources_take(&after);
	if (resources_report(before, &after, " the suite", report_as_log_line, NULL))
		st = KUNIT_FAILURE;
	unsigned long unjudged = (bad_page_reports - reports_before) -
				 (bad_page_reports_judged - judged_before);
	if (unjudged) {
		printk(KERN_ALWAYS "free_pages_restored: %lu \"BUG: Bad page state\" report(s) "
		       "outside every case\n", unjudged);
		st = KUNIT_FAILURE;
		bad_page_reports_judged += unjudged;
		/* A suite run inside a case (the framework's self-tests) has
		 * judged them for that case, as an inner case does. */
		if (current_test)
			current_test->bad_page_reports_at_start += unjudged;
	}
	return st;
}

static unsigned count_cases(const struct kunit_suite *s, const char *filter)
{
	unsigned n = 0;
	for (const struct kunit_case *c = s->test_cases; c->run_case; c++)
		n += kunit_filter_match(filter, s->name, c->name);
	return n;
}

/* ktest.case_times: a diagnostic line before each case's result with the
 * guest time it took (wall clock in the guest: under TCG, emulation's
 * time), to find what a boot spends its time on. */
static bool case_times;
kernel_param_flag("ktest.case_times", case_times, "print each case's guest time before its result");

static void print_result(const char *indent, enum kunit_status st, unsigned no, const char *name,
			 const char *skip_reason)
{
	if (st == KUNIT_SKIPPED)
		printk(KERN_ALWAYS "%sok %u %s # SKIP %s\n", indent, no, name, skip_reason);
	else
		printk(KERN_ALWAYS "%s%s %u %s\n", indent, st == KUNIT_SUCCESS ? "ok" : "not ok", no, name);
}

/* Runs parameterised case c once per parameter, as a KTAP subtest of its
 * own (no plan: the generator's count is not known before it ends, as in
 * Linux), adds each parameter's result to counts[] and returns the case's:
 * failed if a parameter failed, else passed if one passed, else skipped
 * (no parameter at all included, as Linux's). test->status_comment is
 * the last skip reason. */
static enum kunit_status run_param_case(const struct kunit_suite *s, const struct kunit_case *c,
					int init_err, unsigned counts[3], struct kunit *test)
{
	char desc[KUNIT_PARAM_DESC_SIZE], skip_reason[sizeof(test->status_comment)] = "";
	unsigned param_counts[3] = { 0 };
	enum kunit_status status = KUNIT_SKIPPED;
	printk(KERN_ALWAYS "        KTAP version 1\n        # Subtest: %s\n", c->name);
	desc[0] = 0;
	const void *param = c->generate_params(NULL, desc);
	for (int index = 0; param; index++) {
		enum kunit_status st;
		printk_set_line_prefix(PARAM_PREFIX);
		if (init_err) {
			printk(KERN_ALWAYS "%s: not run: the suite's init failed\n", c->name);
			st = KUNIT_FAILURE;
			test->status_comment[0] = 0;
		} else {
			st = run_case(s, c, test, param, index);
		}
		printk_set_line_prefix(NULL);
		if (!desc[0])
			kunit_param_desc(desc, "param-%d", index);
		print_result("        ", st, (unsigned)index + 1, desc,
			     st == KUNIT_SKIPPED ? test->status_comment : "");
		if (st == KUNIT_SKIPPED)
			memcpy(skip_reason, test->status_comment, sizeof(skip_reason));
		param_counts[st]++;
		if (st == KUNIT_FAILURE || (st == KUNIT_SUCCESS && status == KUNIT_SKIPPED))
			status = st;
		desc[0] = 0;
		param = c->generate_params(param, desc);
	}
	unsigned total = param_counts[0] + param_counts[1] + param_counts[2];
	if (total > 1) /* as Linux's kunit.stats_enabled=1 */
		printk(KERN_ALWAYS "    # %s: pass:%u fail:%u skip:%u total:%u\n", c->name,
		       param_counts[0], param_counts[1], param_counts[2], total);
	for (int i = 0; i < 3; i++)
		counts[i] += param_counts[i];
	if (!total) {
		counts[KUNIT_SKIPPED]++; /* the case itself, as Linux counts it */
		kunit_param_desc(skip_reason, "no parameters");
	}
	if (status == KUNIT_SKIPPED)
		memcpy(test->status_comment, skip_reason, sizeof(skip_reason));
	else
		test->status_comment[0] = 0;
	return status;
}

void kunit_run_suite(struct kunit_suite *s, const char *filter, unsigned suite_no, unsigned counts[3])
{
	unsigned nr = count_cases(s, filter);
	const char *prefix = printk_set_line_prefix(NULL);
	printk(KERN_ALWAYS "    KTAP version 1\n    # Subtest: %s\n    1..%u\n", s->name, nr + 1);
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long reports_before = bad_page_reports, judged_before = bad_page_reports_judged;

	int init_err = 0;
	if (s->suite_init) {
		printk_set_line_prefix(CASE_PREFIX);
		init_err = s->suite_init(s);
		if (init_err)
			printk(KERN_ALWAYS "%s: suite_init failed with %d\n", s->name, init_err);
		printk_set_line_prefix(NULL);
	}

	/* suite_counts: one per case, as the plan; param_counts: one per
	 * plain case and one per parameter, as kunit_tool counts them. */
	unsigned suite_counts[3] = { 0 }, param_counts[3] = { 0 }, case_no = 0;
	for (const struct kunit_case *c = s->test_cases; c->run_case; c++) {
		if (!kunit_filter_match(filter, s->name, c->name))
			continue;
		case_no++;
		struct kunit test;
		enum kunit_status st;
		u64 started = ktime_get_ns();
		if (c->generate_params) {
			st = run_param_case(s, c, init_err, param_counts, &test);
		} else {
			printk_set_line_prefix(CASE_PREFIX);
			if (init_err) {
				printk(KERN_ALWAYS "%s: not run: the suite's init failed\n", c->name);
				st = KUNIT_FAILURE;
				test.status_comment[0] = 0;
			} else {
				st = kunit_run_case(s, c, &test);
			}
			printk_set_line_prefix(NULL);
			param_counts[st]++;
		}
		suite_counts[st]++;
		if (case_times && !current_test) /* not in a suite a case runs (kunit_selftest's) */
			printk(KERN_ALWAYS "    # %s: %llu ms of guest time\n", c->name,
			       (unsigned long long)((ktime_get_ns() - started) / 1000000));
		print_result("    ", st, case_no, c->name, test.status_comment);
	}
	if (s->suite_exit && !init_err) {
		printk_set_line_prefix(CASE_PREFIX);
		s->suite_exit(s);
		printk_set_line_prefix(NULL);
	}
	printk_set_line_prefix(CASE_PREFIX);
	enum kunit_status restored = check_restored(&before, reports_before, judged_before);
	printk_set_line_prefix(NULL);
	suite_counts[restored]++;
	param_counts[restored]++;
	printk(KERN_ALWAYS "    %s %u free_pages_restored\n", restored == KUNIT_SUCCESS ? "ok" : "not ok",
	       nr + 1);
	printk(KERN_ALWAYS "# %s: pass:%u fail:%u skip:%u total:%u\n", s->name, suite_counts[0],
	       suite_counts[1], suite_counts[2], nr + 1);
	printk(KERN_ALWAYS "%s %u %s\n", suite_counts[1] ? "not ok" : "ok", suite_no, s->name);
	for (int i = 0; i < 3; i++)
		counts[i] += param_counts[i];
	printk_set_line_prefix(prefix);
}

unsigned kunit_run_all(const char *filter)
{
	unsigned nr_suites = 0;
	unsigned totals[3] = { 0 }; /* pass, fail, skip */

	for (struct kunit_suite *const *sp = __kunit_suites_start; sp < __kunit_suites_end; sp++) {
		if ((*sp)->prepare)
			(*sp)->prepare(*sp);
		nr_suites += count_cases(*sp, filter) > 0;
	}

	printk_set_line_prefix(NULL);
	printk(KERN_ALWAYS "KTAP version 1\n1..%u\n", nr_suites);

	unsigned suite_no = 0;
	for (struct kunit_suite *const *sp = __kunit_suites_start; sp < __kunit_suites_end; sp++)
		if (count_cases(*sp, filter))
			kunit_run_suite(*sp, filter, ++suite_no, totals);
	unsigned total = totals[0] + totals[1] + totals[2];
	printk(KERN_ALWAYS "# Totals: pass:%u fail:%u skip:%u total:%u\n", totals[0], totals[1], totals[2],
	       total);
	if (total == 0) {
		/* A run of nothing is a failure with its own message (kunit_tool:
		 * "0 tests run!"), never "all passed": a mistyped filter must not
		 * look green to a CI. */
		pr_err("ktest: no test case matches the filter '%s': 0 tests run, a failure\n",
		       filter ? filter : "");
		return KUNIT_RUN_NONE;
	}
	return totals[1];
}

int kunit_user_flag(struct mm_struct *mm, unsigned long uaddr, int write)
{
	int v = write;
	kthread_use_mm(mm);
	unsigned long left = write ? copy_to_user((void *)uaddr, &v, sizeof(v))
				   : copy_from_user(&v, (const void *)uaddr, sizeof(v));
	kthread_unuse_mm(mm);
	return left ? -1 : v;
}
