/* /proc and /sys contents (fs/proc/, drivers/base/node.c, mm/vmstat.c;
 * fs/proc/array.c and task_mmu.c for /proc/<pid>), and the namespace
 * their entries are registered in: each file's fields in Linux's order and layout, and its
 * figures against the kernel's own counters. The file table that opens
 * these files is tests/file_test.c's.
 *
 * Figures are checked against the allocator's own counters at the moment
 * of generation: a generation is retried until the counter read before it
 * equals the one read after it (another CPU may allocate meanwhile), and
 * the file must then show exactly that figure. Every case frees what it
 * made in the suite's exit hook, so an early assertion leaks nothing
 * (free_pages_restored checks). */
#include "kernel/pid.h"
#include "tests/kunit.h"
#include "mm/swap.h"
#include "mm/hugetlb.h"
#include "kernel/printk.h"
#include "fs/fs.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/util.h"

/* Objects slab_pages_follow_kmalloc holds at once. */
#define GROW_OBJECTS 128

/* What a case made, freed by case_exit whatever happened. */
static struct case_state {
	char *bufs[32];
	int nbufs;
	struct mm_struct *mm;
	void *objs[GROW_OBJECTS];
} cs;

static int case_init(struct kunit *test)
{
	(void)test;
	memset(&cs, 0, sizeof(cs));
	return 0;
}

static void case_exit(struct kunit *test)
{
	(void)test;
	for (int i = 0; i < cs.nbufs; i++)
		kvfree(cs.bufs[i]);
	for (int i = 0; i < GROW_OBJECTS; i++)
		kfree(cs.objs[i]);
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

static void drop_last(void) { kvfree(cs.bufs[--cs.nbufs]); }

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
	/* RAM less the hugetlb pools (boot pools on some topologies). */
	KUNIT_EXPECT_EQ(test, field(text, "CommitLimit:"), (total - hugetlb_total_pages()) * 50 / 100 * 4);
	KUNIT_EXPECT_EQ(test, field(text, "PageTables:"), nr_user_pagetable_pages() * 4);
	/* Linux's exact layout: 16 columns of label, then %8lu. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nSwapTotal:             0 kB\n"));
	char line[48];
	snprintf(line, sizeof(line), "\nHugePages_Total:   %5lu\n", hstates[default_hstate_idx].nr_huge_pages);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, line));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nHugepagesize:       2048 kB\n"));
	text = gen_stable(test, "/proc/meminfo", anon_counter, NULL, &anon);
	KUNIT_EXPECT_EQ(test, field(text, "AnonPages:"), anon * 4);
}

/* ---- Slab: the pages the slab allocator holds ---- */

static unsigned long slab_counter(void *arg) { return (void)arg, nr_slab_pages(); }

static void meminfo_slab(struct kunit *test)
{
	unsigned long slab;
	char *text = gen_stable(test, "/proc/meminfo", slab_counter, NULL, &slab);
	KUNIT_EXPECT_GT(test, slab, 0); /* kmalloc's caches hold slabs from boot on */
	KUNIT_EXPECT_EQ(test, field(text, "Slab:"), slab * 4);
	/* Nothing reclaims slab objects here: all of it is unreclaimable. */
	KUNIT_EXPECT_EQ(test, field(text, "SUnreclaim:"), slab * 4);
	KUNIT_EXPECT_EQ(test, field(text, "SReclaimable:"), 0);
	KUNIT_EXPECT_EQ(test, field(text, "KReclaimable:"), 0);
}

/* kmalloc's 4 KiB class has one object per one-page slab, so a slab of it
 * is full or empty, never partial: once kmem_cache_shrink_all() has given
 * the empty ones back, each of GROW_OBJECTS objects needs a new slab. */
static void slab_pages_follow_kmalloc(struct kunit *test)
{
	kmem_cache_shrink_all();
	unsigned long before = nr_slab_pages();
	for (int i = 0; i < GROW_OBJECTS; i++)
		KUNIT_ASSERT_NOT_NULL(test, cs.objs[i] = kmalloc(4096, GFP_KERNEL));
	unsigned long grown = nr_slab_pages();
	KUNIT_EXPECT_GE(test, grown, before + GROW_OBJECTS);
	/* Freed, the slabs go back: all but one per node at once (the one
	 * kept empty for the next allocation), that one on shrinking. */
	for (int i = 0; i < GROW_OBJECTS; i++) {
		kfree(cs.objs[i]);
		cs.objs[i] = NULL;
	}
	KUNIT_EXPECT_LE(test, nr_slab_pages(), grown - GROW_OBJECTS + MAX_NUMNODES);
	kmem_cache_shrink_all();
	KUNIT_EXPECT_LE(test, nr_slab_pages(), grown - GROW_OBJECTS);
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
			drop_last();
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
		drop_last(); /* one buffer held however many nodes there are */
	}
	KUNIT_EXPECT_GT(test, lines, 0);
}

/* The five counters, as read by gen_stable before and after the file was
 * generated: the generation number moves whenever any of them differs
 * from the last read, so a stable read leaves in v[] exactly the values
 * the file was made from (the counters only grow). */
struct numa_snapshot {
	pg_data_t *pgdat;
	unsigned long v[NR_NUMA_STAT_ITEMS];
	unsigned long generation;
};

static unsigned long numa_counter(void *arg)
{
	struct numa_snapshot *snap = arg;
	bool changed = false;
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++) {
		unsigned long now = node_numa_event_state(snap->pgdat->node_id, (enum numa_stat_item)i);
		changed |= now != snap->v[i];
		snap->v[i] = now;
	}
	return snap->generation += changed;
}

static void numastat_matches_counters(struct kunit *test)
{
	static const char *const labels[] = { "numa_hit ", "numa_miss ", "numa_foreign ",
					      "interleave_hit ", "local_node ", "other_node " };
	static const int items[] = { NUMA_HIT, NUMA_MISS, NUMA_FOREIGN, -1, NUMA_LOCAL, NUMA_OTHER };
	for (unsigned nid = 0; nid < num_online_nodes(); nid++) {
		struct numa_snapshot snap = { .pgdat = NODE_DATA(nid) };
		char path[64];
		unsigned long v;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/numastat", nid);
		KUNIT_ASSERT_NOT_NULL(test, snap.pgdat);
		/* Compared with the values of the stable read, not a later one
		 * (other CPUs allocate meanwhile). */
		char *text = gen_stable(test, path, numa_counter, &snap, &v);
		expect_order(test, text, labels, ARRAY_SIZE(labels));
		for (size_t i = 0; i < ARRAY_SIZE(labels); i++)
			KUNIT_EXPECT_EQ(test, field(text, labels[i]), items[i] < 0 ? 0ul : snap.v[items[i]]);
	}
	char path[64];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/numastat", num_online_nodes());
	char *buf;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_generate(path, current, &buf, &len), -ENOENT);
}

static unsigned long node_free_counter(void *arg) { return node_free_pages((int)(long)arg); }
static unsigned long node_inactive_anon_counter(void *arg) { return node_lru_pages((int)(long)arg, LRU_INACTIVE_ANON); }

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
		/* One buffer per file at a time: cs.bufs is not sized by the
		 * number of nodes (16 nodes are 33 files). */
		drop_last();
		/* The node's lists, as node_read_meminfo shows its lruvec's. */
		unsigned long inactive;
		text = gen_stable(test, path, node_inactive_anon_counter, (void *)(long)nid, &inactive);
		snprintf(want, sizeof(want), "Node %u Inactive(anon):", nid);
		KUNIT_EXPECT_EQ(test, field(text, want), inactive * 4);
		drop_last();
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
		drop_last();
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
			kvfree(buf);
	}
}

/* Every registered entry is well formed: one root; every other entry's
 * parent is a registered directory; a fixed name or a family, never both;
 * a directory has no methods; a regular file is generated whole (show),
 * read at an offset (read), or has open-file methods of its own (fops:
 * /proc/<pid>/mem, whose own write decides), and otherwise has a write
 * method exactly when its mode says it is writable; no two fixed names in one directory are the same.
 * And each fixed file is found by a lookup of its own path. */
static bool entry_registered(const struct proc_dir_entry *e)
{
	return e >= __proc_entries_start && e < __proc_entries_end;
}

static void entries_are_well_formed(struct kunit *test)
{
	int roots = 0;
	KUNIT_ASSERT_TRUE(test, __proc_entries_end - __proc_entries_start > 40);
	for (const struct proc_dir_entry *e = __proc_entries_start; e < __proc_entries_end; e++) {
		const char *name = e->name ? e->name : "(family)";
		bool dir = (e->mode & S_IFMT) == S_IFDIR, reg = (e->mode & S_IFMT) == S_IFREG;
		bool lnk = (e->mode & S_IFMT) == S_IFLNK; /* its target is fs/stat.c's */
		if (!e->parent) {
			roots++;
			KUNIT_EXPECT_TRUE(test, e == &root_dir);
			continue;
		}
		if (!entry_registered(e->parent) || (e->parent->mode & S_IFMT) != S_IFDIR)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: parent is not a directory", name);
		if (!e->name == !e->match)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: needs a name or a match", name);
		if (dir && (e->show || e->read || e->write || e->fops))
			kunit_fail(test, false, __FILE__, __LINE__, "%s: a directory with methods", name);
		if (reg && (!!e->show + !!e->read + !!e->fops) != 1)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: needs show, read or fops", name);
		if (e->fops && (e->write || !e->fops->read))
			kunit_fail(test, false, __FILE__, __LINE__, "%s: fops on a file with other methods", name);
		if (reg && !e->fops && !(e->mode & 0200) != !e->write)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: mode %o and write method disagree",
				   name, e->mode);
		if (lnk && (e->show || e->read || e->write || e->fops))
			kunit_fail(test, false, __FILE__, __LINE__, "%s: a link with methods", name);
		if (!dir && !reg && !lnk)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: mode %o", name, e->mode);
		for (const struct proc_dir_entry *o = e + 1; e->name && o < __proc_entries_end; o++)
			if (o->parent == e->parent && o->name && !strcmp(o->name, e->name))
				kunit_fail(test, false, __FILE__, __LINE__, "%s: registered twice", name);
	}
	KUNIT_EXPECT_EQ(test, roots, 1);

	/* Each fixed entry whose ancestors are all fixed names is found at its
	 * path, as itself. */
	int looked_up = 0;
	for (const struct proc_dir_entry *e = __proc_entries_start; e < __proc_entries_end; e++) {
		const struct proc_dir_entry *chain[8];
		int n = 0;
		for (const struct proc_dir_entry *a = e; a && a->parent && n < 8; a = a->parent)
			chain[n++] = a;
		bool fixed = n > 0 && n < 8;
		for (int i = 0; i < n; i++)
			fixed = fixed && chain[i]->name;
		if (!fixed)
			continue;
		char path[256] = "";
		size_t len = 0;
		for (int i = n - 1; i >= 0; i--)
			len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s", chain[i]->name);
		struct proc_node node;
		KUNIT_EXPECT_EQ(test, procfs_lookup(path, current, &node), 0);
		if (node.entry != e)
			kunit_fail(test, false, __FILE__, __LINE__, "%s: the lookup found another entry", path);
		looked_up++;
	}
	KUNIT_EXPECT_TRUE(test, looked_up > 30); /* /proc, /sys and what is in them */
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
	strlcpy(fake.comm, "pr\\oc\ttest\n", sizeof(fake.comm));
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
	/* Only '\n' and '\\' are escaped (seq_escape_str's "\n\\" set). */
	KUNIT_EXPECT_TRUE(test, !strncmp(text, "Name:\tpr\\\\oc\ttest\\n\n", 20));
	/* The fake has no thread group: procfs takes it for a kernel thread
	 * (kthreadd's child) working on an mm (kthread_use_mm), whose Vm
	 * lines it shows. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nPid:\t4242\nPPid:\t2\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nKthread:\t1\n"));
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
	/* (Kernel threads and processes have ids too: one nobody holds.) */
	int unused = 4243;
	while (pid_in_use(unused))
		unused++;
	char other[32];
	snprintf(other, sizeof(other), "/proc/%d/status", unused);
	KUNIT_EXPECT_EQ(test, procfs_generate(other, &fake, &buf, &len), -ENOENT);
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

static struct kunit_case procfs_cases[] = {
	KUNIT_CASE(meminfo_fields),
	KUNIT_CASE(meminfo_slab),
	KUNIT_CASE(slab_pages_follow_kmalloc),
	KUNIT_CASE(buddyinfo_sums_to_free_pages),
	KUNIT_CASE(numastat_matches_counters),
	KUNIT_CASE(node_files),
	KUNIT_CASE(lookup_errors),
	KUNIT_CASE(entries_are_well_formed),
	KUNIT_CASE(status_of_kernel_thread),
	KUNIT_CASE(status_of_process),
	{},
};

static struct kunit_suite procfs_suite = {
	.name = "procfs",
	.init = case_init,
	.exit = case_exit,
	.test_cases = procfs_cases,
};
kunit_test_suite(procfs_suite);
