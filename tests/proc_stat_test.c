/* /proc/stat (fs/proc/stat.c): Linux 6.1's lines in its order; one cpuN
 * line per online CPU whose columns add up to the cpu line's; the times,
 * interrupts, context switches and tasks made only grow, and grow across
 * a sleep of a few ticks and a kernel thread made; the boot time is the
 * kernel's. */
#include "tests/kunit.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "mm/util.h"

#define COLUMNS 10

struct stat_figures {
	unsigned long cpu[COLUMNS], cpus_sum[COLUMNS];
	unsigned int cpu_lines;
	unsigned long intr, ctxt, btime, processes, procs_running, procs_blocked, softirq;
	bool order_ok;
};

/* The unsigned number at *s, past it and one blank. */
static unsigned long take(const char **s)
{
	unsigned long v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (unsigned long)(*(*s)++ - '0');
	if (**s == ' ')
		(*s)++;
	return v;
}

static void read_stat(struct kunit *test, struct stat_figures *f)
{
	static const char *const keys[] = { "intr ", "ctxt ", "btime ", "processes ", "procs_running ",
					    "procs_blocked ", "softirq " };
	unsigned long *vals[] = { &f->intr, &f->ctxt, &f->btime, &f->processes, &f->procs_running,
				  &f->procs_blocked, &f->softirq };
	char *buf;
	size_t len;
	memset(f, 0, sizeof(*f));
	KUNIT_ASSERT_EQ(test, procfs_generate("/proc/stat", current, &buf, &len), 0);
	const char *s = buf;
	f->order_ok = !strncmp(s, "cpu  ", 5);
	s += f->order_ok ? 5 : 0;
	for (int i = 0; i < COLUMNS; i++)
		f->cpu[i] = take(&s);
	f->order_ok &= *s++ == '\n';
	while (!strncmp(s, "cpu", 3)) {
		s += 3;
		f->order_ok &= take(&s) == f->cpu_lines++;
		for (int i = 0; i < COLUMNS; i++)
			f->cpus_sum[i] += take(&s);
		f->order_ok &= *s++ == '\n';
	}
	for (unsigned int k = 0; k < ARRAY_SIZE(keys); k++) {
		bool at = !strncmp(s, keys[k], strlen(keys[k]));
		f->order_ok &= at;
		if (!at)
			break;
		s += strlen(keys[k]);
		*vals[k] = take(&s);
		if (k == ARRAY_SIZE(keys) - 1) /* softirq: the total, then 10 of them */
			for (int i = 0; i < 10; i++)
				f->order_ok &= take(&s) == 0;
		f->order_ok &= *s++ == '\n';
	}
	f->order_ok &= !*s;
	kvfree(buf);
}

static unsigned long cpu_total(const struct stat_figures *f)
{
	unsigned long t = 0;
	for (int i = 0; i < COLUMNS; i++)
		t += f->cpu[i];
	return t;
}

static int quick_fn(void *unused)
{
	(void)unused;
	return 0;
}

static void stat_lines_and_counts(struct kunit *test)
{
	struct stat_figures a, b;
	read_stat(test, &a);
	KUNIT_EXPECT_TRUE(test, a.order_ok);
	KUNIT_EXPECT_EQ(test, a.cpu_lines, num_online_cpus());
	/* Each line is rounded down to whole ticks on its own (idle time is
	 * measured in ns, as Linux's NO_HZ idle time): the total's line is
	 * the sum of the CPUs' lines, or up to one tick per CPU more. */
	for (int i = 0; i < COLUMNS; i++) {
		KUNIT_EXPECT_GE(test, a.cpu[i], a.cpus_sum[i]);
		KUNIT_EXPECT_LT(test, a.cpu[i], a.cpus_sum[i] + (unsigned long)num_online_cpus());
	}
	/* nice, iowait, irq, softirq, steal, guest, guest_nice: none here. */
	static const int none[] = { 1, 4, 5, 6, 7, 8, 9 };
	for (unsigned int i = 0; i < ARRAY_SIZE(none); i++)
		KUNIT_EXPECT_EQ(test, a.cpu[none[i]], 0ul);
	KUNIT_EXPECT_GE(test, a.procs_running, 1ul); /* the reader */
	KUNIT_EXPECT_EQ(test, a.procs_blocked, 0ul);
	KUNIT_EXPECT_EQ(test, a.btime, (unsigned long)(ktime_get_real_offset_ns() / (u64)NSEC_PER_SEC));

	struct task_struct *k = kthread_create(quick_fn, NULL, "stat_fork");
	KUNIT_ASSERT_NOT_NULL(test, k);
	wake_up_process(k);
	kthread_join(k);
	schedule_timeout_uninterruptible(3); /* ticks, switches, interrupts */
	read_stat(test, &b);
	KUNIT_EXPECT_TRUE(test, b.order_ok);
	KUNIT_EXPECT_GE(test, b.processes, a.processes + 1);
	KUNIT_EXPECT_GT(test, b.ctxt, a.ctxt);
	KUNIT_EXPECT_GT(test, b.intr, a.intr);
	KUNIT_EXPECT_GT(test, cpu_total(&b), cpu_total(&a));
	for (int i = 0; i < COLUMNS; i++)
		KUNIT_EXPECT_GE(test, b.cpu[i], a.cpu[i]);
	KUNIT_EXPECT_EQ(test, b.btime, a.btime);
}

static struct kunit_case proc_stat_cases[] = {
	KUNIT_CASE(stat_lines_and_counts),
	{}
};

static struct kunit_suite proc_stat_suite = {
	.name = "proc_stat",
	.test_cases = proc_stat_cases,
};
kunit_test_suite(proc_stat_suite);
