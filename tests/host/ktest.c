/* The host KTAP harness (see ktest.h). Case diagnostics go through printk
 * with the line prefix "    # ", so what the code under test prints while a
 * case runs lands in the same place, as in the kernel. */
#include "tests/host/ktest.h"
#include "tests/host/shim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define CASE_PREFIX "    # "

void ktest_diag(struct ktest *t, const char *fmt, ...)
{
	(void)t;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk(KERN_ALWAYS "%s\n", buf);
}

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->failed = true;
	printk(KERN_ALWAYS "%s: EXPECTATION FAILED at %s:%d\n", t->name, file, line);
	printk(KERN_ALWAYS "%s\n", buf);
}

void ktest_abort(struct ktest *t)
{
	longjmp(*(jmp_buf *)t->abort_jmp, 1);
}

void ktest_skip(struct ktest *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->skip_reason, sizeof(t->skip_reason), fmt, ap);
	va_end(ap);
	t->skipped = true;
	ktest_abort(t);
}

int ktest_run_suite(const char *suite, const struct ktest_case *cases, size_t n,
		    void (*init)(struct ktest *t))
{
	host_printk_init();
	unsigned pass = 0, fail = 0, skip = 0;
	printf("KTAP version 1\n1..1\n");
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", suite, n);
	for (size_t i = 0; i < n; i++) {
		static struct ktest t; /* static: survives the longjmp unchanged */
		static jmp_buf jb;
		t = (struct ktest){ .name = cases[i].name, .abort_jmp = &jb };
		printk_set_line_prefix(CASE_PREFIX);
		if (!setjmp(jb)) {
			if (init)
				init(&t);
			cases[i].run(&t);
		}
		printk_set_line_prefix(NULL);
		fflush(stdout);
		if (t.skipped && !t.failed) {
			skip++;
			printf("    ok %zu %s # SKIP %s\n", i + 1, t.name, t.skip_reason);
		} else if (t.failed) {
			fail++;
			printf("    not ok %zu %s\n", i + 1, t.name);
		} else {
			pass++;
			printf("    ok %zu %s\n", i + 1, t.name);
		}
	}
	printf("# %s: pass:%u fail:%u skip:%u total:%zu\n", suite, pass, fail, skip, n);
	printf("%s 1 %s\n", fail ? "not ok" : "ok", suite);
	fflush(stdout);
	return fail ? 1 : 0;
}
