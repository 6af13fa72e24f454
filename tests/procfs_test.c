/* /proc and /sys contents (kernel/procfs.c), the file table and console
 * (kernel/file.c), and the small system calls (kernel/sys.c).
 *
 * Figures are checked against the allocator's own counters at the moment
 * of generation: a generation is retried until the counter read before it
 * equals the one read after it (another CPU may allocate meanwhile), and
 * the file must then show exactly that figure. The system calls run
 * through do_syscall_64() with pointers into an mm the case builds and
 * makes current (copies demand-page it), and into unmapped addresses for
 * -EFAULT. Every case frees what it made in the suite's exit hook, so an
 * early assertion leaks nothing (free_pages_restored checks). */
#include "tests/kunit.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/file.h"
#include "kernel/printk.h"
#include "kernel/procfs.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* What a case made, freed by case_exit whatever happened. */
static struct case_state {
	char *bufs[32];
	int nbufs;
	struct files_struct *files;
	struct mm_struct *mm, *saved_mm;
	struct files_struct *saved_files;
	bool switched;
} cs;

static int case_init(struct kunit *test)
{
	(void)test;
	memset(&cs, 0, sizeof(cs));
	return 0;
}

static void leave_space(void);

static void case_exit(struct kunit *test)
{
	(void)test;
	leave_space();
	for (int i = 0; i < cs.nbufs; i++)
		kfree(cs.bufs[i]);
	files_release(cs.files);
	if (cs.mm)
		mmput(cs.mm);
	memset(&cs, 0, sizeof(cs));
}

/* The content of path for task t (freed at the end of the case). */
static char *gen(struct kunit *test, const char *path, struct task_struct *t)
{
	char *buf;
	size_t len;
	KUNIT_ASSERT_LT(test, cs.nbufs, (int)ARRAY_SIZE(cs.bufs));
	int err = procfs_generate(path, t, &buf, &len);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, strlen(buf), len);
	cs.bufs[cs.nbufs++] = buf;
	return buf;
}

static void drop_last(void) { kfree(cs.bufs[--cs.nbufs]); }

/* The line that starts with label, or NULL. */
static const char *line_of(const char *text, const char *label)
{
	size_t n = strlen(label);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, label, n))
			return l;
	return NULL;
}

/* The number after label and blanks, or -1. */
static long field(const char *text, const char *label)
{
	const char *l = line_of(text, label);
	if (!l)
		return -1;
	l += strlen(label);
	while (*l == ' ' || *l == '\t')
		l++;
	u64 v;
	size_t n = 0;
	while (l[n] >= '0' && l[n] <= '9')
		n++;
	return n && !parse_u64(l, n, &v) ? (long)v : -1;
}

/* Every label starts a line, in this order. */
static void expect_order(struct kunit *test, const char *text, const char *const *labels, size_t n)
{
	const char *prev = text;
	for (size_t i = 0; i < n; i++) {
		const char *l = line_of(prev, labels[i]);
		if (!l)
			kunit_fail(test, false, __FILE__, __LINE__, "\"%s\" missing or out of order", labels[i]);
		else
			prev = l;
	}
}

/* Generates path until counter() reads the same before and after; returns
 * the text, with *value the counter's figure. */
static char *gen_stable(struct kunit *test, const char *path, unsigned long (*counter)(void *),
			void *arg, unsigned long *value)
{
	for (int tries = 0; tries < 50; tries++) {
		unsigned long before = counter(arg);
		char *text = gen(test, path, current);
		*value = counter(arg);
		if (*value == before)
			return text;
		drop_last();
	}
	kunit_skip(test, "%s: the counter never held still", path);
}

static unsigned long free_pages_counter(void *arg) { return (void)arg, nr_free_pages(); }
static unsigned long anon_counter(void *arg) { return (void)arg, nr_anon_pages(); }

/* ---- /proc/meminfo, /proc/buddyinfo, node files ---- */

static const char *const meminfo_labels[] = {
	"MemTotal:", "MemFree:", "MemAvailable:", "Buffers:", "Cached:", "SwapCached:", "Active:",
	"Inactive:", "Active(anon):", "Inactive(anon):", "Active(file):", "Inactive(file):",
	"Unevictable:", "Mlocked:", "SwapTotal:", "SwapFree:", "Zswap:", "Zswapped:", "Dirty:",
	"Writeback:", "AnonPages:", "Mapped:", "Shmem:", "KReclaimable:", "Slab:", "SReclaimable:",
	"SUnreclaim:", "KernelStack:", "PageTables:", "SecPageTables:", "NFS_Unstable:", "Bounce:",
	"WritebackTmp:", "CommitLimit:", "Committed_AS:", "VmallocTotal:", "VmallocUsed:",
	"VmallocChunk:", "Percpu:", "HardwareCorrupted:", "AnonHugePages:", "ShmemHugePages:",
	"ShmemPmdMapped:", "FileHugePages:", "FilePmdMapped:", "Unaccepted:", "HugePages_Total:",
	"HugePages_Free:", "HugePages_Rsvd:", "HugePages_Surp:", "Hugepagesize:", "Hugetlb:",
	"DirectMap4k:", "DirectMap2M:",
};

static void meminfo_fields(struct kunit *test)
{
	unsigned long free, anon, total = 0;
	char *text = gen_stable(test, "/proc/meminfo", free_pages_counter, NULL, &free);
	expect_order(test, text, meminfo_labels, ARRAY_SIZE(meminfo_labels));
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		total += NODE_DATA(nid) ? NODE_DATA(nid)->managed_pages : 0;
	KUNIT_EXPECT_EQ(test, field(text, "MemTotal:"), total * 4);
	KUNIT_EXPECT_EQ(test, field(text, "MemFree:"), free * 4);
	KUNIT_EXPECT_LE(test, field(text, "MemAvailable:"), free * 4);
	KUNIT_EXPECT_EQ(test, field(text, "CommitLimit:"), total * 50 / 100 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "PageTables:"), nr_user_pagetable_pages() * 4);
	/* Linux's exact layout: 16 columns of label, then %8lu. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nSwapTotal:             0 kB\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nHugePages_Total:       0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nHugepagesize:       2048 kB\n"));
	text = gen_stable(test, "/proc/meminfo", anon_counter, NULL, &anon);
	KUNIT_EXPECT_EQ(test, field(text, "AnonPages:"), anon * 4);
}

static unsigned long buddy_counter(void *arg)
{
	pg_data_t *pgdat = arg;
	unsigned long flags, n;
	spin_lock_irqsave(&pgdat->lock, flags);
	n = pgdat->nr_free;
	spin_unlock_irqrestore(&pgdat->lock, flags);
	return n;
}

static void buddyinfo_sums_to_free_pages(struct kunit *test)
{
	int lines = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		char label[32];
		if (!pgdat)
			continue;
		unsigned long buddy_free;
		char *text = gen_stable(test, "/proc/buddyinfo", buddy_counter, pgdat, &buddy_free);
		snprintf(label, sizeof(label), "Node %d, zone   Normal ", nid);
		const char *l = line_of(text, label);
		if (!pgdat->node_present_pages) {
			KUNIT_EXPECT_NULL(test, l); /* Linux shows populated zones only */
			continue;
		}
		KUNIT_ASSERT_NOT_NULL(test, l);
		lines++;
		l += strlen(label);
		unsigned long sum = 0;
		int orders = 0;
		while (*l == ' ' || (*l >= '0' && *l <= '9')) {
			while (*l == ' ')
				l++;
			size_t n = 0;
			u64 v;
			while (l[n] >= '0' && l[n] <= '9')
				n++;
			if (!n)
				break;
			KUNIT_ASSERT_EQ(test, parse_u64(l, n, &v), 0);
			KUNIT_EXPECT_EQ(test, l[n], ' '); /* "%6lu " */
			sum += (unsigned long)v << orders++;
			l += n;
		}
		KUNIT_EXPECT_EQ(test, *l, '\n');
		KUNIT_EXPECT_EQ(test, orders, NR_PAGE_ORDERS);
		KUNIT_EXPECT_EQ(test, sum, buddy_free);
	}
	KUNIT_EXPECT_GT(test, lines, 0);
}

static unsigned long numa_counter(void *arg)
{
	/* All five counters at once: a sum changes when any of them does. */
	pg_data_t *pgdat = arg;
	unsigned long s = 0;
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
		s += READ_ONCE(pgdat->numa_stat[i]) << (8 * i);
	return s;
}

static void numastat_matches_counters(struct kunit *test)
{
	static const char *const labels[] = { "numa_hit ", "numa_miss ", "numa_foreign ",
					      "interleave_hit ", "local_node ", "other_node " };
	static const int items[] = { NUMA_HIT, NUMA_MISS, NUMA_FOREIGN, -1, NUMA_LOCAL, NUMA_OTHER };
	for (unsigned nid = 0; nid < num_online_nodes(); nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		char path[64];
		unsigned long v;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/numastat", nid);
		KUNIT_ASSERT_NOT_NULL(test, pgdat);
		char *text = gen_stable(test, path, numa_counter, pgdat, &v);
		expect_order(test, text, labels, ARRAY_SIZE(labels));
		for (size_t i = 0; i < ARRAY_SIZE(labels); i++)
			KUNIT_EXPECT_EQ(test, field(text, labels[i]),
					items[i] < 0 ? 0ul : pgdat->numa_stat[items[i]]);
	}
	char path[64];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/numastat", num_online_nodes());
	char *buf;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_generate(path, current, &buf, &len), -ENOENT);
}

static unsigned long node_free_counter(void *arg) { return node_free_pages((int)(long)arg); }

static void node_files(struct kunit *test)
{
	char path[64], want[64];
	unsigned n = num_online_nodes();
	snprintf(want, sizeof(want), n > 1 ? "0-%u\n" : "0\n", n - 1);
	KUNIT_EXPECT_STREQ(test, gen(test, "/sys/devices/system/node/online", current), want);
	for (unsigned nid = 0; nid < n; nid++) {
		unsigned long free;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/meminfo", nid);
		char *text = gen_stable(test, path, node_free_counter, (void *)(long)nid, &free);
		snprintf(want, sizeof(want), "Node %u MemTotal:", nid);
		KUNIT_EXPECT_EQ(test, field(text, want), NODE_DATA(nid)->managed_pages * 4);
		snprintf(want, sizeof(want), "Node %u MemFree:", nid);
		KUNIT_EXPECT_EQ(test, field(text, want), free * 4);
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/distance", nid);
		const char *d = gen(test, path, current);
		for (unsigned j = 0; j < n; j++) {
			char *end = strchr(d, j + 1 < n ? ' ' : '\n');
			KUNIT_ASSERT_NOT_NULL(test, end);
			u64 v;
			KUNIT_EXPECT_EQ(test, parse_u64(d, (size_t)(end - d), &v), 0);
			KUNIT_EXPECT_EQ(test, v, node_distance(nid, j));
			d = end + 1;
		}
	}
}

static void lookup_errors(struct kunit *test)
{
	static const struct { const char *path; int err; } cases[] = {
		{ "/proc", -EISDIR }, { "/", -EISDIR }, { "/sys/devices/system/node/node0", -EISDIR },
		{ "/proc/nothing", -ENOENT }, { "/proc/meminfo/x", -ENOTDIR },
		{ "/sys/devices/system/node/node01/numastat", -ENOENT }, { "/proc/0/status", -ENOENT },
		{ "/proc/self/nothing", -ENOENT }, { "proc/meminfo", -ENOENT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *buf;
		size_t len;
		int err = procfs_generate(cases[i].path, current, &buf, &len);
		if (err != cases[i].err)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: %d, expected %d", cases[i].path,
				   err, cases[i].err);
		if (!err)
			kfree(buf);
	}
}

/* ---- /proc/<pid>/status, statm, maps ---- */

static const char *const status_labels[] = {
	"Name:", "Umask:", "State:", "Tgid:", "Ngid:", "Pid:", "PPid:", "TracerPid:", "Uid:", "Gid:",
	"FDSize:", "Groups:", "NStgid:", "NSpid:", "NSpgid:", "NSsid:", "Kthread:", "VmPeak:",
	"VmSize:", "VmLck:", "VmPin:", "VmHWM:", "VmRSS:", "RssAnon:", "RssFile:", "RssShmem:",
	"VmData:", "VmStk:", "VmExe:", "VmLib:", "VmPTE:", "VmSwap:", "HugetlbPages:", "CoreDumping:",
	"THP_enabled:", "untag_mask:", "Threads:", "SigQ:", "SigPnd:", "ShdPnd:", "SigBlk:",
	"SigIgn:", "SigCgt:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:",
	"Seccomp:", "Seccomp_filters:", "Speculation_Store_Bypass:", "SpeculationIndirectBranch:",
	"Cpus_allowed:", "Cpus_allowed_list:", "Mems_allowed:", "Mems_allowed_list:",
	"voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:",
};

static void status_of_kernel_thread(struct kunit *test)
{
	char want[64];
	const char *text = gen(test, "/proc/self/status", current);
	snprintf(want, sizeof(want), "Name:\t%s\n", current->comm);
	KUNIT_EXPECT_TRUE(test, !strncmp(text, want, strlen(want)));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nState:\tR (running)\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nKthread:\t1\n"));
	KUNIT_EXPECT_NULL(test, line_of(text, "VmSize:")); /* no mm: no task_mem() */
	KUNIT_EXPECT_EQ(test, field(text, "Threads:"), 1);
	KUNIT_EXPECT_STREQ(test, gen(test, "/proc/self/statm", current), "0 0 0 0 0 0 0\n");
	KUNIT_EXPECT_STREQ(test, gen(test, "/proc/self/maps", current), "");
}

#define SPACE 0x0000200000000000ul

static void status_of_process(struct kunit *test)
{
	static struct task_struct fake; /* a process as procfs sees one */
	fake = *current;
	fake.pid = 4242;
	fake.flags &= ~PF_KTHREAD;
	strlcpy(fake.comm, "proc\ttest", sizeof(fake.comm));
	KUNIT_ASSERT_NOT_NULL(test, cs.mm = fake.mm = mm_alloc());
	unsigned long p = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	/* 8 pages of data (populated), 4 of code, 16 of stack. */
	KUNIT_ASSERT_EQ(test, do_mmap(cs.mm, SPACE, 8 * PAGE_SIZE, PROT_READ | PROT_WRITE, p | MAP_POPULATE), SPACE);
	KUNIT_ASSERT_EQ(test, do_mmap(cs.mm, SPACE + 16 * PAGE_SIZE, 4 * PAGE_SIZE, PROT_READ | PROT_EXEC, p),
			SPACE + 16 * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, do_mmap(cs.mm, SPACE + 32 * PAGE_SIZE, 16 * PAGE_SIZE, PROT_READ | PROT_WRITE,
				      p | MAP_GROWSDOWN), SPACE + 32 * PAGE_SIZE);
	cs.mm->start_stack = SPACE + 40 * PAGE_SIZE;

	const char *text = gen(test, "/proc/self/status", &fake);
	expect_order(test, text, status_labels, ARRAY_SIZE(status_labels));
	KUNIT_EXPECT_TRUE(test, !strncmp(text, "Name:\tproc\\ttest\n", 17));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nPid:\t4242\nPPid:\t0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nKthread:\t0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nVmSize:\t     112 kB\n")); /* "%8lu kB" */
	KUNIT_EXPECT_EQ(test, field(text, "VmSize:"), cs.mm->total_vm * 4);
	KUNIT_EXPECT_EQ(test, field(text, "VmSize:"), 28 * 4);
	KUNIT_EXPECT_GE(test, field(text, "VmPeak:"), 28 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "VmRSS:"), 8 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "RssAnon:"), get_mm_counter(cs.mm, MM_ANONPAGES) * 4);
	KUNIT_EXPECT_EQ(test, field(text, "VmData:"), 8 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "VmStk:"), 16 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "VmExe:") + field(text, "VmLib:"), 4 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "VmPTE:"), mm_pgtables_bytes(cs.mm) >> 10);
	KUNIT_EXPECT_GT(test, field(text, "VmPTE:"), 0);
	/* The own pid names the same files; another pid does not exist. */
	KUNIT_EXPECT_STREQ(test, gen(test, "/proc/4242/status", &fake), text);
	char *buf;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_generate("/proc/4243/status", &fake, &buf, &len), -ENOENT);
	KUNIT_EXPECT_STREQ(test, gen(test, "/proc/self/statm", &fake), "28 8 0 0 0 24 0\n");

	char want[160];
	const char *maps = gen(test, "/proc/self/maps", &fake);
	snprintf(want, sizeof(want), "%08lx-%08lx rw-p 00000000 00:00 0 \n%08lx-%08lx r-xp 00000000 00:00 0 \n",
		 SPACE, SPACE + 8 * PAGE_SIZE, SPACE + 16 * PAGE_SIZE, SPACE + 20 * PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, !strncmp(maps, want, strlen(want)));
	const char *stack = line_of(maps, "200000020000-");
	KUNIT_ASSERT_NOT_NULL(test, stack);
	KUNIT_EXPECT_EQ(test, strchr(stack, '[') - stack, 73); /* names start at column 73 */
	KUNIT_EXPECT_TRUE(test, !strncmp(stack + 73, "[stack]\n", 8));
}

/* ---- the file table ---- */

static struct files_struct *new_files(struct kunit *test, const char *prefix)
{
	KUNIT_ASSERT_NOT_NULL(test, cs.files = files_alloc(prefix));
	return cs.files;
}

static void fd_lowest_first(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	KUNIT_EXPECT_EQ(test, files_count(f), 3);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0), 3);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/proc/buddyinfo", O_RDONLY, 0), 4);
	KUNIT_EXPECT_EQ(test, files_close(f, 3), 0);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "proc/buddyinfo", O_RDONLY, 0), 3);
	KUNIT_EXPECT_EQ(test, files_close(f, 1), 0);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/sys/devices/system/node/online", O_RDONLY, 0), 1);
	int fd;
	while ((fd = files_open(f, AT_FDCWD, "/proc/self/statm", O_RDONLY, 0)) >= 0)
		;
	KUNIT_EXPECT_EQ(test, fd, -EMFILE);
	KUNIT_EXPECT_EQ(test, files_count(f), NR_OPEN_DEFAULT);
	/* A full table is reported before the lookup, as in Linux. */
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/nothing", O_RDONLY, 0), -EMFILE);
	KUNIT_EXPECT_EQ(test, files_close(f, 40), 0);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0), 40);
}

static void bad_descriptors(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	char c;
	KUNIT_EXPECT_EQ(test, files_read(f, 7, &c, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_read(f, 1000, &c, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_write(f, 7, &c, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_close(f, 7), -EBADF);
	KUNIT_EXPECT_EQ(test, files_close(f, -1u), -EBADF);
	KUNIT_EXPECT_EQ(test, files_lseek(f, 7, 0, SEEK_SET), -EBADF);
	KUNIT_EXPECT_EQ(test, files_write(f, 0, "x", 1), -EBADF); /* stdin is read-only */
	KUNIT_EXPECT_EQ(test, files_read(f, 1, &c, 1), -EBADF);   /* stdout is write-only */
	KUNIT_EXPECT_EQ(test, files_read(f, 0, &c, 1), 0);        /* end of file */
	KUNIT_EXPECT_EQ(test, files_lseek(f, 1, 0, SEEK_SET), -ESPIPE);
	KUNIT_EXPECT_EQ(test, files_pread(f, 0, &c, 1, 0), -ESPIPE);
	int fd = files_open(f, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0);
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "x", 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_close(f, fd), 0);
	KUNIT_EXPECT_EQ(test, files_close(f, fd), -EBADF);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), -EBADF);
}

static void open_errors(struct kunit *test)
{
	static char long_path[PATH_MAX + 1];
	static const struct { const char *path; int flags; int result; } cases[] = {
		{ "", O_RDONLY, -ENOENT }, { "/nothing", O_RDONLY, -ENOENT },
		{ "/nothing/meminfo", O_CREAT, -ENOENT }, { "/proc/new", O_CREAT | O_WRONLY, -EACCES },
		{ "/proc/meminfo", O_CREAT | O_EXCL, -EEXIST }, { "/proc", O_DIRECTORY | O_CREAT, -EINVAL },
		{ "/proc/meminfo", O_DIRECTORY, -ENOTDIR }, { "/proc/meminfo/", O_RDONLY, -ENOTDIR },
		{ "/proc/meminfo/.", O_RDONLY, -ENOTDIR }, { "/proc/meminfo/x", O_RDONLY, -ENOTDIR },
		{ "/proc", O_WRONLY, -EISDIR }, { "/proc", O_CREAT, -EISDIR },
		{ "/sys/devices/system/node/online", O_WRONLY, -EACCES },
		{ "/sys/devices/system/node/node0/numastat", O_RDWR, -EACCES },
		{ "/proc/meminfo", O_WRONLY, 3 }, { "/proc/./../proc//meminfo", O_RDONLY, 3 },
		{ "/..", O_RDONLY | O_DIRECTORY, 3 }, { "/proc/self/", O_RDONLY, 3 },
	};
	struct files_struct *f = new_files(test, "");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = files_open(f, AT_FDCWD, cases[i].path, cases[i].flags, 0);
		if (r != cases[i].result)
			kunit_fail(test, false, __FILE__, __LINE__, "open(\"%s\", %#x): %d, expected %d",
				   cases[i].path, cases[i].flags, r, cases[i].result);
		if (r >= 0)
			files_close(f, (unsigned)r);
	}
	memset(long_path, 'a', PATH_MAX);
	long_path[0] = '/';
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENAMETOOLONG);
	long_path[NAME_MAX + 2] = 0; /* one component of NAME_MAX + 1 */
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENAMETOOLONG);
	long_path[NAME_MAX + 1] = 0;
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENOENT);

	/* Writes to /proc files: -EIO at the top, -EINVAL under /proc/<pid>. */
	int fd = files_open(f, AT_FDCWD, "/proc/meminfo", O_WRONLY, 0);
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "1", 1), -EIO);
	char c;
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), -EBADF);
	fd = files_open(f, AT_FDCWD, "/proc/self/status", O_RDWR, 0);
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "1", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), 1);
	KUNIT_EXPECT_EQ(test, c, 'N');
	/* Directories: readable descriptors, read -EISDIR, base of openat. */
	int dir = files_open(f, AT_FDCWD, "/sys/devices/system/node", O_RDONLY | O_DIRECTORY, 0);
	KUNIT_ASSERT_GE(test, dir, 0);
	KUNIT_EXPECT_EQ(test, files_read(f, dir, &c, 1), -EISDIR);
	KUNIT_EXPECT_GE(test, fd = files_open(f, dir, "node0/../node0/numastat", O_RDONLY, 0), 0);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), 1);
	KUNIT_EXPECT_EQ(test, files_open(f, fd, "x", O_RDONLY, 0), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, files_open(f, 60, "x", O_RDONLY, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, files_open(f, -5, "x", O_RDONLY, 0), -EBADF);
	KUNIT_EXPECT_GE(test, files_open(f, 60, "/proc/meminfo", O_RDONLY, 0), 0); /* dirfd unused */
}

static void read_and_seek(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	const char *want = gen(test, "/sys/devices/system/node/node0/distance", current);
	size_t len = strlen(want);
	char got[64] = { 0 };
	int fd = files_open(f, AT_FDCWD, "/sys/devices/system/node/node0/distance", O_RDONLY, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	for (size_t i = 0; i < len; i++)
		KUNIT_ASSERT_EQ(test, files_read(f, fd, got + i, 1), 1);
	KUNIT_EXPECT_STREQ(test, got, want);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, got, sizeof(got)), 0);
	KUNIT_EXPECT_EQ(test, files_pread(f, fd, got, sizeof(got), 1), len - 1); /* short read */
	KUNIT_EXPECT_EQ(test, files_pread(f, fd, got, 1, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_CUR), len); /* pread moved nothing */
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_END), PAGE_SIZE); /* a sysfs attribute's size */
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_DATA), 0);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_HOLE), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, PAGE_SIZE, SEEK_DATA), -ENXIO);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 1, SEEK_SET), 1);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, got, 1), 1);
	KUNIT_EXPECT_EQ(test, got[0], want[1]);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, -3, SEEK_CUR), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, 5), -EINVAL);
	int proc = files_open(f, AT_FDCWD, "/proc/buddyinfo", O_RDONLY, 0);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 0, SEEK_END), -EINVAL); /* seq_lseek */
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 5, SEEK_SET), 5);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 2, SEEK_CUR), 7);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, -8, SEEK_CUR), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 1 << 20, SEEK_SET), 1 << 20);
	KUNIT_EXPECT_EQ(test, files_read(f, proc, got, 1), 0); /* past the end */
}

static void close_frees_snapshot(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	unsigned long before = slab_objects_in_use();
	int fd = files_open(f, AT_FDCWD, "/proc/self/status", O_RDONLY, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), before + 2); /* the file and its snapshot */
	char c;
	for (int i = 0; i < 10; i++) /* each read at 0 replaces the snapshot */
		KUNIT_EXPECT_EQ(test, files_pread(f, fd, &c, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), before + 2);
	KUNIT_EXPECT_EQ(test, files_close(f, fd), 0);
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), before);
}

/* ---- the console ---- */

static char capture_buf[16384];

static void console_lines(struct kunit *test)
{
	struct printk_capture cap;
	char longline[1000];
	memset(longline, 'x', sizeof(longline));
	struct files_struct *f = new_files(test, "[p] ");
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	files_write(f, 1, "hello", 5);
	bool early = cap.len != 0; /* nothing before the newline */
	files_write(f, 2, " wor\0ld\n", 8);
	files_write(f, 1, "a\n\nb", 4);
	files_write(f, 1, longline, sizeof(longline));
	files_release(f);
	cs.files = NULL;
	printk_capture_end(&cap);
	KUNIT_EXPECT_FALSE(test, early);
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] hello world\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] a\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] \n"));
	/* "b" + 1000 x: pieces of 384, the rest written out by release. */
	const char *l = strstr(capture_buf, "[p] bxxx");
	KUNIT_ASSERT_NOT_NULL(test, l);
	size_t pieces[3];
	for (int i = 0; i < 3; i++) {
		l = strstr(l, "[p] ");
		KUNIT_ASSERT_NOT_NULL(test, l);
		l += 4;
		pieces[i] = (size_t)(strchr(l, '\n') - l);
	}
	KUNIT_EXPECT_EQ(test, pieces[0], 384);
	KUNIT_EXPECT_EQ(test, pieces[1], 384);
	KUNIT_EXPECT_EQ(test, pieces[2], 1001 - 768);
}

struct writer {
	struct files_struct *files;
	char c;
};

/* 40 lines of 60 copies of c, a byte per write. */
static int writer_fn(void *data)
{
	struct writer *w = data;
	for (int line = 0; line < 40; line++) {
		for (int i = 0; i < 60; i++)
			files_write(w->files, 1, &w->c, 1);
		files_write(w->files, 1, "\n", 1);
		cond_resched();
	}
	return 0;
}

static void console_never_interleaves(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	struct printk_capture cap;
	struct writer w[2] = { { files_alloc("<A>"), 'a' }, { files_alloc("<B>"), 'b' } };
	struct task_struct *t[2] = { NULL, NULL };
	unsigned cpu, n = 0;
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	for_each_online_cpu(cpu) {
		if (cpu == smp_processor_id() || n == 2 || !w[0].files || !w[1].files)
			continue;
		t[n] = kthread_run_on_cpu(writer_fn, &w[n], cpu, "conwriter/%u");
		n++;
	}
	while (n < 2) /* only one other CPU: the second writer runs here */
		writer_fn(&w[n++]);
	for (int i = 0; i < 2; i++)
		if (t[i])
			kthread_join(t[i]);
	printk_capture_end(&cap);
	files_release(w[0].files);
	files_release(w[1].files);
	int lines = 0;
	for (const char *l = capture_buf; (l = strchr(l, '<')) != NULL; lines++) {
		char c = l[1] == 'A' ? 'a' : 'b';
		const char *end = strchr(l, '\n');
		KUNIT_ASSERT_NOT_NULL(test, end);
		bool pure = end - l == 63;
		for (const char *p = l + 3; p < end; p++)
			pure &= *p == c;
		KUNIT_EXPECT_TRUE(test, pure);
		l = end;
	}
	KUNIT_EXPECT_EQ(test, lines, 80);
}

/* ---- the system calls, on an mm of the case's own ---- */

#define UBASE 0x0000300000000000ul

static void enter_space(struct kunit *test)
{
	KUNIT_ASSERT_NOT_NULL(test, cs.mm = mm_alloc());
	KUNIT_ASSERT_EQ(test, do_mmap(cs.mm, UBASE, 16 * PAGE_SIZE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED), UBASE);
	KUNIT_ASSERT_NOT_NULL(test, cs.files = files_alloc(""));
	unsigned long irq;
	local_irq_save(irq);
	cs.saved_mm = current->mm;
	cs.saved_files = current->files;
	current->mm = cs.mm;
	current->files = cs.files;
	switch_mm(cs.saved_mm, cs.mm);
	cs.switched = true;
	local_irq_restore(irq);
}

static void leave_space(void)
{
	if (!cs.switched)
		return;
	unsigned long irq;
	local_irq_save(irq);
	current->mm = cs.saved_mm;
	current->files = cs.saved_files;
	switch_mm(cs.mm, cs.saved_mm);
	cs.switched = false;
	local_irq_restore(irq);
}

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2)
{
	const unsigned long args[6] = { a0, a1, a2, 0, 0, 0 };
	return do_syscall_64(nr, args);
}

#define UNMAPPED 0x1000ul /* below mmap_min_addr: never mapped */

static void file_syscalls(struct kunit *test)
{
	enter_space(test);
	char *path = (char *)UBASE, *buf = (char *)(UBASE + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(path, "/proc/meminfo", 14), 0);
	long fd = sys(__NR_open, UBASE, O_RDONLY, 0);
	KUNIT_ASSERT_EQ(test, fd, 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_read, fd, UBASE + PAGE_SIZE, 9), 9);
	char got[10] = { 0 };
	KUNIT_EXPECT_EQ(test, copy_from_user(got, buf, 9), 0);
	KUNIT_EXPECT_STREQ(test, got, "MemTotal:");
	KUNIT_EXPECT_EQ(test, sys(__NR_read, fd, UNMAPPED, 9), -EFAULT);
	KUNIT_EXPECT_EQ(test, sys(__NR_read, fd, 0xffff888000000000ul, 9), -EFAULT); /* kernel */
	KUNIT_EXPECT_EQ(test, sys(__NR_write, 1, UNMAPPED, 3), -EFAULT);
	KUNIT_EXPECT_EQ(test, sys(__NR_open, UNMAPPED, O_RDONLY, 0), -EFAULT);
	/* A path with no NUL within PATH_MAX bytes. */
	KUNIT_EXPECT_EQ(test, clear_user(buf, PATH_MAX), 0);
	char a[256];
	memset(a, 'a', sizeof(a));
	for (unsigned long off = 0; off < PATH_MAX; off += sizeof(a))
		KUNIT_ASSERT_EQ(test, copy_to_user(buf + off, a, sizeof(a)), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_open, (unsigned long)buf, O_RDONLY, 0), -ENAMETOOLONG);
	const unsigned long at[6] = { (unsigned long)AT_FDCWD, UBASE, O_RDONLY, 0, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_openat, at), 4);
	KUNIT_EXPECT_EQ(test, sys(__NR_lseek, fd, 3, SEEK_SET), 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), -EBADF);
	const unsigned long pr[6] = { 4, UBASE + PAGE_SIZE, 3, 0, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_pread64, pr), 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_fstat, 4, UBASE + 2 * PAGE_SIZE, 0), 0);
	unsigned int mode;
	KUNIT_EXPECT_EQ(test, copy_from_user(&mode, (char *)UBASE + 2 * PAGE_SIZE + 24, 4), 0);
	KUNIT_EXPECT_EQ(test, mode, 0100444);
	KUNIT_EXPECT_EQ(test, sys(__NR_fstat, 4, UNMAPPED, 0), -EFAULT);
}

static void small_syscalls(struct kunit *test)
{
	enter_space(test);
	struct __kernel_timespec ts, *uts = (void *)UBASE;
	current->pid = 77; /* restored below: the runner thread has none */
	long pid = sys(__NR_getpid, 0, 0, 0), tid = sys(__NR_gettid, 0, 0, 0);
	current->pid = 0;
	KUNIT_EXPECT_EQ(test, pid, 77);
	KUNIT_EXPECT_EQ(test, tid, 77);
	KUNIT_EXPECT_EQ(test, sys(__NR_sched_yield, 0, 0, 0), 0);
	u64 before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_MONOTONIC, UBASE, 0), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(&ts, uts, sizeof(ts)), 0);
	u64 t = (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
	KUNIT_EXPECT_TRUE(test, t >= before && t <= ktime_get_ns());
	KUNIT_EXPECT_LT(test, ts.tv_nsec, 1000000000);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_BOOTTIME, UBASE, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_REALTIME, UBASE, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, 99, UBASE, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_MONOTONIC, UNMAPPED, 0), -EFAULT);

	/* nanosleep: 25 ms is at least 25 ms (3 ticks), rem untouched. */
	struct __kernel_timespec req = { 0, 25000000 }, rem = { 7, 7 };
	KUNIT_ASSERT_EQ(test, copy_to_user(uts, &req, sizeof(req)), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user(uts + 1, &rem, sizeof(rem)), 0);
	before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, sys(__NR_nanosleep, UBASE, UBASE + sizeof(ts), 0), 0);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - before, 25000000);
	KUNIT_EXPECT_EQ(test, copy_from_user(&rem, uts + 1, sizeof(rem)), 0);
	KUNIT_EXPECT_EQ(test, rem.tv_sec + rem.tv_nsec, 14);
	KUNIT_EXPECT_EQ(test, sys(__NR_nanosleep, UNMAPPED, 0, 0), -EFAULT);
	static const struct __kernel_timespec bad[] = { { 0, 1000000000 }, { 0, -1 }, { -1, 0 } };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_ASSERT_EQ(test, copy_to_user(uts, &bad[i], sizeof(bad[i])), 0);
		KUNIT_EXPECT_EQ(test, sys(__NR_nanosleep, UBASE, 0, 0), -EINVAL);
	}

	char u[6 * 65];
	KUNIT_EXPECT_EQ(test, sys(__NR_uname, UBASE, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(u, uts, sizeof(u)), 0);
	KUNIT_EXPECT_STREQ(test, u, "mmlab");
	KUNIT_EXPECT_STREQ(test, u + 4 * 65, "x86_64");
	KUNIT_EXPECT_EQ(test, sys(__NR_uname, UNMAPPED, 0, 0), -EFAULT);
}

static struct kunit_case procfs_cases[] = {
	KUNIT_CASE(meminfo_fields),
	KUNIT_CASE(buddyinfo_sums_to_free_pages),
	KUNIT_CASE(numastat_matches_counters),
	KUNIT_CASE(node_files),
	KUNIT_CASE(lookup_errors),
	KUNIT_CASE(status_of_kernel_thread),
	KUNIT_CASE(status_of_process),
	KUNIT_CASE(fd_lowest_first),
	KUNIT_CASE(bad_descriptors),
	KUNIT_CASE(open_errors),
	KUNIT_CASE(read_and_seek),
	KUNIT_CASE(close_frees_snapshot),
	KUNIT_CASE(console_lines),
	KUNIT_CASE(console_never_interleaves),
	KUNIT_CASE(file_syscalls),
	KUNIT_CASE(small_syscalls),
	{},
};

static struct kunit_suite procfs_suite = {
	.name = "procfs",
	.init = case_init,
	.exit = case_exit,
	.test_cases = procfs_cases,
};
kunit_test_suite(procfs_suite);
