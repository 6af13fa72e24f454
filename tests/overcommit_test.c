/* The overcommit policy and the commit count (mm/util.c): each mode's
 * refusal (-ENOMEM, nothing charged, nothing mapped), MAP_NORESERVE as
 * Linux honours it per mode, mprotect's charge, Committed_AS back after
 * munmap and after the mm goes (exit_mmap), and the /proc/sys/vm files.
 * Sizes come from what the kernel found (its managed pages) and from the
 * commit count at the start of each case, never from the machine matrix.
 * The in-kernel cases run alone (no user program maps meanwhile), so the
 * commit count moves only by what a case does. Every case puts the
 * sysctls back however it ends. */
#include "tests/kunit.h"
#include "tests/test_proc.h"
#include "tests/test_mm.h"
#include "mm/hugetlb.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/util.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

static struct {
	int mode, ratio;
	unsigned long kbytes;
} saved;

static void restore_sysctls(void *unused)
{
	(void)unused;
	sysctl_overcommit_memory = saved.mode;
	sysctl_overcommit_ratio = saved.ratio;
	sysctl_overcommit_kbytes = saved.kbytes;
}

static struct mm_struct *setup(struct kunit *test, int mode)
{
	saved.mode = sysctl_overcommit_memory;
	saved.ratio = sysctl_overcommit_ratio;
	saved.kbytes = sysctl_overcommit_kbytes;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_sysctls, NULL), 0);
	sysctl_overcommit_memory = mode;
	return test_mm_create(test, TEST_MM_CURRENT);
}

static void teardown(struct kunit *test, struct mm_struct *mm)
{
	test_mm_destroy(test, mm);
}

static unsigned long ram_pages(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (NODE_DATA(nid))
			n += NODE_DATA(nid)->managed_pages;
	return n;
}

static long committed(void) { return (long)vm_memory_committed(); }

/* Mode 0: one request larger than RAM (+ swap, 0) is refused, however much
 * is committed already; anything up to RAM passes; MAP_NORESERVE is not
 * charged. Nothing is populated, so this takes no memory. */
static void guess_refuses_one_request_larger_than_ram(struct kunit *test)
{
	struct mm_struct *mm = setup(test, OVERCOMMIT_GUESS);
	unsigned long ram = ram_pages();
	long before = committed();
	KUNIT_EXPECT_EQ(test, (long)do_mmap(mm, 0, (ram + 1) * PAGE_SIZE, RW, ANON), -ENOMEM);
	KUNIT_EXPECT_EQ(test, committed(), before);
	KUNIT_EXPECT_EQ(test, mm->map_count, 0);
	/* Read-only private memory is not accounted: no limit. */
	unsigned long ro = do_mmap(mm, 0, (ram + 1) * PAGE_SIZE, PROT_READ, ANON);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(ro));
	KUNIT_EXPECT_EQ(test, committed(), before);
	/* ...until it becomes writable: mprotect charges, and refuses. */
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, ro, (ram + 1) * PAGE_SIZE, RW), -ENOMEM);
	KUNIT_EXPECT_EQ(test, committed(), before);
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, ro, 8 * PAGE_SIZE, RW), 0);
	KUNIT_EXPECT_EQ(test, committed(), before + 8);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, ro, (ram + 1) * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, committed(), before);

	unsigned long a = do_mmap(mm, 0, ram * PAGE_SIZE, RW, ANON);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, committed(), before + (long)ram);
	/* Per request: a second one of RAM's size passes too. */
	unsigned long b = do_mmap(mm, 0, ram * PAGE_SIZE, RW, ANON);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(b));
	KUNIT_EXPECT_EQ(test, committed(), before + 2 * (long)ram);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, a, ram * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, b, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, committed(), before + (long)ram - 1);
	/* MAP_NORESERVE: honoured, nothing charged. */
	unsigned long c = do_mmap(mm, 0, 2 * ram * PAGE_SIZE, RW, ANON | MAP_NORESERVE);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(c));
	KUNIT_EXPECT_EQ(test, committed(), before + (long)ram - 1);
	/* The mm goes with a charged VMA: exit_mmap uncharges it. */
	teardown(test, mm);
	KUNIT_EXPECT_EQ(test, committed(), before);
}

/* Mode 1: nothing is refused, everything is still counted. */
static void always_counts_but_never_refuses(struct kunit *test)
{
	struct mm_struct *mm = setup(test, OVERCOMMIT_ALWAYS);
	unsigned long ram = ram_pages();
	long before = committed();
	unsigned long a = do_mmap(mm, 0, 4 * ram * PAGE_SIZE, RW, ANON);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, committed(), before + 4 * (long)ram);
	/* MAP_FIXED over half of it: the replaced charge passes on. */
	KUNIT_EXPECT_EQ(test, do_mmap(mm, a, 2 * ram * PAGE_SIZE, RW, ANON | MAP_FIXED), a);
	KUNIT_EXPECT_EQ(test, committed(), before + 4 * (long)ram);
	KUNIT_EXPECT_EQ(test, do_mmap(mm, a, ram * PAGE_SIZE, PROT_READ, ANON | MAP_FIXED), a);
	KUNIT_EXPECT_EQ(test, committed(), before + 3 * (long)ram);
	/* brk charges too. */
	mm->start_brk = mm->brk = 0x10000000ul;
	KUNIT_EXPECT_EQ(test, do_brk(mm, mm->brk + 16 * PAGE_SIZE), 0x10000000ul + 16 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, committed(), before + 3 * (long)ram + 16);
	KUNIT_EXPECT_EQ(test, do_brk(mm, 0x10000000ul + 4 * PAGE_SIZE), 0x10000000ul + 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, committed(), before + 3 * (long)ram + 4);
	teardown(test, mm);
	KUNIT_EXPECT_EQ(test, committed(), before);
}

/* Mode 2: CommitLimit from overcommit_kbytes, set just above what is
 * committed now; MAP_NORESERVE is charged anyway. */
static void never_refuses_past_commit_limit(struct kunit *test)
{
	struct mm_struct *mm = setup(test, OVERCOMMIT_NEVER);
	long before = committed();
	sysctl_overcommit_kbytes = (unsigned long)(before + 64) * (PAGE_SIZE / 1024);
	KUNIT_EXPECT_EQ(test, vm_commit_limit(), before + 64);
	/* A fresh mm's total_vm is 0: no user reserve is kept back. */
	unsigned long a = do_mmap(mm, 0, 32 * PAGE_SIZE, RW, ANON);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, committed(), before + 32);
	KUNIT_EXPECT_EQ(test, (long)do_mmap(mm, 0, 40 * PAGE_SIZE, RW, ANON), -ENOMEM);
	KUNIT_EXPECT_EQ(test, (long)do_mmap(mm, 0, 40 * PAGE_SIZE, RW, ANON | MAP_NORESERVE),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, committed(), before + 32);
	/* The same brk growth is refused: brk stays. */
	mm->start_brk = mm->brk = 0x10000000ul;
	KUNIT_EXPECT_EQ(test, do_brk(mm, mm->brk + 40 * PAGE_SIZE), 0x10000000ul);
	unsigned long ro = do_mmap(mm, 0, 100 * PAGE_SIZE, PROT_READ, ANON);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(ro));
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, ro, 100 * PAGE_SIZE, RW), -ENOMEM);
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, ro, 16 * PAGE_SIZE, RW), 0);
	KUNIT_EXPECT_EQ(test, committed(), before + 48);
	/* Write access taken away before any fault: the charge goes. */
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, ro, 16 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, committed(), before + 32);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, a, 32 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, committed(), before);
	/* Now 40 fit. */
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(do_mmap(mm, 0, 40 * PAGE_SIZE, RW, ANON)));
	/* The ratio form: overcommit_ratio% of RAM. */
	sysctl_overcommit_kbytes = 0;
	sysctl_overcommit_ratio = 0;
	KUNIT_EXPECT_EQ(test, vm_commit_limit(), 0);
	KUNIT_EXPECT_EQ(test, (long)do_mmap(mm, 0, PAGE_SIZE, RW, ANON), -ENOMEM);
	sysctl_overcommit_ratio = 100;
	/* RAM less the hugetlb pools (a boot pool on some topologies). */
	KUNIT_EXPECT_EQ(test, vm_commit_limit(), ram_pages() - hugetlb_total_pages());
	teardown(test, mm);
	KUNIT_EXPECT_EQ(test, committed(), before);
}


static long meminfo_kb(const char *text, const char *label)
{
	const char *l = strstr(text, label);
	if (!l)
		return -1;
	l += strlen(label);
	while (*l == ' ')
		l++;
	size_t n = 0;
	while (l[n] >= '0' && l[n] <= '9')
		n++;
	u64 v;
	return n && !parse_u64(l, n, &v) ? (long)v : -1;
}

static void sysctl_files_and_meminfo(struct kunit *test)
{
	struct mm_struct *mm = setup(test, OVERCOMMIT_GUESS);
	(void)mm;
	static const char *const bad[] = { "3", "-1", "x", "", "1 2", "99999999999" };
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/overcommit_memory", current,
							bad[i], strlen(bad[i])), -EINVAL);
	KUNIT_EXPECT_EQ(test, sysctl_overcommit_memory, OVERCOMMIT_GUESS);
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/overcommit_memory", current, "2\n", 2), 0);
	KUNIT_EXPECT_EQ(test, sysctl_overcommit_memory, OVERCOMMIT_NEVER);
	char *s = test_proc_read(test, "/proc/sys/vm/overcommit_memory");
	KUNIT_EXPECT_STREQ(test, s, "2\n");
	test_proc_free(test, s);
	/* kbytes and ratio: writing one clears the other (Linux's handlers). */
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/overcommit_kbytes", current, "4096", 4), 0);
	KUNIT_EXPECT_EQ(test, sysctl_overcommit_ratio, 0);
	KUNIT_EXPECT_EQ(test, vm_commit_limit(), 4096 / (PAGE_SIZE / 1024));
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/overcommit_kbytes", current, "-5", 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/sys/vm/overcommit_ratio", current, "80\n", 3), 0);
	KUNIT_EXPECT_EQ(test, sysctl_overcommit_kbytes, 0);
	s = test_proc_read(test, "/proc/sys/vm/overcommit_ratio");
	KUNIT_EXPECT_STREQ(test, s, "80\n");
	test_proc_free(test, s);
	s = test_proc_read(test, "/proc/sys/vm/overcommit_kbytes");
	KUNIT_EXPECT_STREQ(test, s, "0\n");
	test_proc_free(test, s);
	/* /proc/meminfo shows the limit and the count, in kB. */
	s = test_proc_read(test, "/proc/meminfo");
	KUNIT_EXPECT_EQ(test, meminfo_kb(s, "CommitLimit:"), (long)((ram_pages() - hugetlb_total_pages()) * 80 / 100 * 4));
	KUNIT_EXPECT_EQ(test, meminfo_kb(s, "Committed_AS:"), committed() * 4);
	test_proc_free(test, s);
}

static struct kunit_case overcommit_cases[] = {
	KUNIT_CASE(guess_refuses_one_request_larger_than_ram),
	KUNIT_CASE(always_counts_but_never_refuses),
	KUNIT_CASE(never_refuses_past_commit_limit),
	KUNIT_CASE(sysctl_files_and_meminfo),
	{}
};
static struct kunit_suite overcommit_suite = { .name = "overcommit", .test_cases = overcommit_cases };
kunit_test_suite(overcommit_suite);
