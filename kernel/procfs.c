/* The generators behind /proc and /sys (see procfs.h), each printing
 * Linux 6.12's format for its file: fs/proc/meminfo.c, mm/vmstat.c's
 * buddyinfo, drivers/base/node.c's node files; the per-task files
 * (/proc/<pid>/status, statm, maps) are in fs/proc/array.c and
 * fs/proc/task_mmu.c. This file also holds the namespace (the path lookup) and the one-buffer generation.
 *
 * Invariant: every field prints either a true figure of this kernel or the
 * 0 (or constant) Linux prints when it lacks the feature, never an
 * invention; each such field is named in a comment where it is printed.
 * A file is generated in one pass into one buffer (seq_buf), so what a
 * reader gets is one snapshot. */
#include "kernel/procfs.h"
#include "arch/x86_64/boot_paging.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "fs/proc/internal.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "drivers/base/cpu.h"
#include "mm/clear_page.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/memory.h"
#include "mm/numa.h"
#include "mm/mempolicy.h"
#include "mm/page_alloc.h"
#include "mm/pt_reclaim.h"
#include "mm/vmalloc.h"
#include "mm/slab.h"
#include "kernel/pid.h"
#include "mm/util.h"
#include "mm/vmstat.h"

/* ---- seq_buf and the shared printers (declared in procfs.h) ---- */

void seq_buf_printf(struct seq_buf *s, const char *fmt, ...)
{
	if (seq_buf_has_overflowed(s))
		return;
	va_list ap;
	va_start(ap, fmt);
	size_t room = s->size - s->len;
	int n = vsnprintf(s->buffer + s->len, room, fmt, ap);
	va_end(ap);
	/* vsnprintf keeps one byte for its NUL: fitting means n < room. */
	s->len = (size_t)n < room ? s->len + (size_t)n : s->size + 1;
}

/* Linux's show_val_kb: a label padded by hand, pages as "%8lu kB". */
static void show_val_kb(struct seq_buf *m, const char *label, unsigned long pages)
{
	seq_buf_printf(m, "%s%8lu kB\n", label, pages << (PAGE_SHIFT - 10));
}

/* A set of small integers as Linux's "%*pbl": "0-3,8". */
void print_list(struct seq_buf *m, const bool *set, int n)
{
	bool first = true;
	for (int i = 0; i < n; i++) {
		if (!set[i])
			continue;
		int j = i;
		while (j + 1 < n && set[j + 1])
			j++;
		if (j > i)
			seq_buf_printf(m, "%s%d-%d", first ? "" : ",", i, j);
		else
			seq_buf_printf(m, "%s%d", first ? "" : ",", i);
		first = false;
		i = j;
	}
	seq_buf_puts(m, "\n");
}

/* A bitmap as Linux's "%*pb": hex, 32-bit chunks high to low, commas
 * between, the top chunk as wide as the bits it holds. */
void print_mask(struct seq_buf *m, u64 bits, unsigned nr_bits)
{
	unsigned chunk = nr_bits % 32 ? nr_bits % 32 : 32;
	for (int i = (int)ALIGN_UP(nr_bits, 32u) - 32; i >= 0; i -= 32) {
		u64 val = (i < 64 ? bits >> i : 0) & ((1ull << chunk) - 1);
		seq_buf_printf(m, "%s%0*llx", i == (int)ALIGN_UP(nr_bits, 32u) - 32 ? "" : ",",
			       (int)((chunk + 3) / 4), (unsigned long long)val);
		chunk = 32;
	}
}

bool node_has_memory(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && NODE_DATA(nid) && NODE_DATA(nid)->node_present_pages;
}

static bool node_has_cpu(int nid)
{
	unsigned cpu;
	for_each_online_cpu(cpu)
		if (cpu_to_node(cpu) == nid)
			return true;
	return false;
}

/* ---- /proc/loadavg ---- */

/* Linux's loadavg_proc_show: the three averages rounded to hundredths,
 * runnable/all tasks, the last pid given. */
static void loadavg_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	unsigned long a[3];
	get_avenrun(a, FIXED_1 / 200, 0);
	seq_buf_printf(m, "%lu.%02lu %lu.%02lu %lu.%02lu %lu/%lu %d\n", LOAD_INT(a[0]), LOAD_FRAC(a[0]),
		       LOAD_INT(a[1]), LOAD_FRAC(a[1]), LOAD_INT(a[2]), LOAD_FRAC(a[2]), nr_running(), nr_kthreads(),
		       last_pid());
}

/* ---- /proc/meminfo ---- */

/* Linux's totalreserve_pages is the high watermarks (plus lowmem reserves,
 * which one zone per node does not have). */
static unsigned long totalreserve_pages(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (NODE_DATA(nid))
			n += NODE_DATA(nid)->watermark[WMARK_HIGH];
	return n;
}

/* Stacks of the threads kthread_create made (16 KiB each); the boot stack
 * and the idle tasks' start-up stacks are not counted. */
static unsigned long kernel_stack_kb(void) { return nr_kthreads() * (THREAD_SIZE >> 10); }

/* Linux's VMALLOC_TOTAL for 4-level paging (32 TiB - 1 at
 * 0xffffc90000000000): mm/vmalloc.h keeps Linux's addresses. */
#define VMALLOC_TOTAL (VMALLOC_END - VMALLOC_START)

static void meminfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	unsigned long total = totalram_pages();
	/* Free pages including the per-CPU lists (Linux's NR_FREE_PAGES leaves
	 * those out); this is nr_free_pages(), what the allocator calls free. */
	unsigned long free = nr_free_pages();
	unsigned long reserve = totalreserve_pages();
	/* No page cache and no reclaimable slab: available is free less the
	 * reserve, as si_mem_available() computes it then. */
	unsigned long available = free > reserve ? free - reserve : 0;
	/* Pages in slabs; none is reclaimable (no shrinker frees objects), so
	 * all of it is SUnreclaim. Unlike Linux, large kmallocs are not in it
	 * (mm/slab.h). */
	unsigned long slab = nr_slab_pages();

	show_val_kb(m, "MemTotal:       ", total);
	show_val_kb(m, "MemFree:        ", free);
	show_val_kb(m, "MemAvailable:   ", available);
	/* No block devices, page cache, swap or LRU lists: these are 0. */
	show_val_kb(m, "Buffers:        ", 0);
	show_val_kb(m, "Cached:         ", 0);
	show_val_kb(m, "SwapCached:     ", 0);
	show_val_kb(m, "Active:         ", 0);
	show_val_kb(m, "Inactive:       ", 0);
	show_val_kb(m, "Active(anon):   ", 0);
	show_val_kb(m, "Inactive(anon): ", 0);
	show_val_kb(m, "Active(file):   ", 0);
	show_val_kb(m, "Inactive(file): ", 0);
	show_val_kb(m, "Unevictable:    ", 0);
	show_val_kb(m, "Mlocked:        ", 0);
	show_val_kb(m, "SwapTotal:      ", 0);
	show_val_kb(m, "SwapFree:       ", 0);
	show_val_kb(m, "Zswap:          ", 0);
	show_val_kb(m, "Zswapped:       ", 0);
	show_val_kb(m, "Dirty:          ", 0);
	show_val_kb(m, "Writeback:      ", 0);
	show_val_kb(m, "AnonPages:      ", nr_anon_pages());
	show_val_kb(m, "Mapped:         ", 0); /* no file mappings */
	show_val_kb(m, "Shmem:          ", 0);
	show_val_kb(m, "KReclaimable:   ", 0);
	show_val_kb(m, "Slab:           ", slab);
	show_val_kb(m, "SReclaimable:   ", 0);
	show_val_kb(m, "SUnreclaim:     ", slab);
	seq_buf_printf(m, "KernelStack:    %8lu kB\n", kernel_stack_kb());
	show_val_kb(m, "PageTables:     ", nr_user_pagetable_pages());
	show_val_kb(m, "SecPageTables:  ", 0);
	show_val_kb(m, "NFS_Unstable:   ", 0);
	show_val_kb(m, "Bounce:         ", 0);
	show_val_kb(m, "WritebackTmp:   ", 0);
	/* mm/util.c: vm.overcommit_ratio (or _kbytes) of RAM, no swap, no
	 * hugetlb; the pages charged to VM_ACCOUNT mappings. */
	show_val_kb(m, "CommitLimit:    ", vm_commit_limit());
	show_val_kb(m, "Committed_AS:   ", vm_memory_committed());
	seq_buf_printf(m, "VmallocTotal:   %8lu kB\n", VMALLOC_TOTAL >> 10);
	show_val_kb(m, "VmallocUsed:    ", vmalloc_nr_pages()); /* Linux's vmalloc_nr_pages() */
	show_val_kb(m, "VmallocChunk:   ", 0); /* Linux prints 0 since 5.3 */
	show_val_kb(m, "Percpu:         ", 0);
	seq_buf_printf(m, "HardwareCorrupted: %5lu kB\n", 0ul);
	/* Transparent huge pages mapped by huge PMDs (mm/huge_memory.c). */
	show_val_kb(m, "AnonHugePages:  ", nr_anon_thps() * HPAGE_PMD_NR);
	show_val_kb(m, "ShmemHugePages: ", 0);
	show_val_kb(m, "ShmemPmdMapped: ", 0);
	show_val_kb(m, "FileHugePages:  ", 0);
	show_val_kb(m, "FilePmdMapped:  ", 0);
	show_val_kb(m, "Unaccepted:     ", 0);
	/* The hugetlb pools (mm/hugetlb.c): the default size's counts. */
	hugetlb_report_meminfo(m);
	/* The direct map is [0, direct_map_end) in pages of one size. */
	unsigned long dm_kb = (unsigned long)(direct_map_end >> 10);
	bool gb = direct_map_page_size == (1ul << 30);
	seq_buf_printf(m, "DirectMap4k:    %8lu kB\n", direct_map_page_size == PAGE_SIZE ? dm_kb : 0);
	seq_buf_printf(m, "DirectMap2M:    %8lu kB\n", direct_map_page_size == (2ul << 20) ? dm_kb : 0);
	if (gb) /* Linux prints this line only with gbpages */
		seq_buf_printf(m, "DirectMap1G:    %8lu kB\n", dm_kb);
}

/* ---- /proc/buddyinfo ---- */

/* One line per node with memory, as frag_show() prints a populated zone.
 * We have one zone per node and call it Normal; Linux would say DMA32 for
 * memory below 4 GiB. Linux prints NR_PAGE_ORDERS (11) columns; we print
 * all of ours, orders 0..MAX_PAGE_ORDER (19 columns, up to 1 GiB). The
 * counts are the buddy lists only (per-CPU lists are not in them, as in
 * Linux), read under the node's lock so that a line is one moment. */
static void buddyinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		unsigned long counts[NR_PAGE_ORDERS], flags;
		if (!node_has_memory(nid))
			continue;
		spin_lock_irqsave(&pgdat->lock, flags);
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			counts[o] = pgdat->free_area[o].nr_free;
		spin_unlock_irqrestore(&pgdat->lock, flags);
		seq_buf_printf(m, "Node %d, zone %8s ", nid, "Normal");
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			seq_buf_printf(m, "%6lu ", counts[o]);
		seq_buf_puts(m, "\n");
	}
}

/* ---- /sys/devices/system/node ---- */

static void node_list_show(struct seq_buf *m, bool (*in)(int nid))
{
	bool set[MAX_NUMNODES];
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		set[nid] = (unsigned)nid < num_online_nodes() && in(nid);
	print_list(m, set, MAX_NUMNODES);
}

static bool node_any(int nid) { return (void)nid, true; }
static void nodes_online_show(struct seq_buf *m, const struct proc_node *n) { (void)n; node_list_show(m, node_any); }
static void nodes_cpu_show(struct seq_buf *m, const struct proc_node *n) { (void)n; node_list_show(m, node_has_cpu); }
static void nodes_memory_show(struct seq_buf *m, const struct proc_node *n) { (void)n; node_list_show(m, node_has_memory); }

/* node_read_numastat(). A
 * memoryless node's counters stay 0: an allocation that asks for it wants
 * its nearest node with memory (Linux's preferred_zoneref, the first
 * populated zone of its zonelist), so a miss is foreign there. */
static void node_numastat_show(struct seq_buf *m, const struct proc_node *node)
{
	unsigned long s[NR_NUMA_STAT_ITEMS];
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
		s[i] = node_numa_event_state(node->nid, (enum numa_stat_item)i);
	seq_buf_printf(m, "numa_hit %lu\nnuma_miss %lu\nnuma_foreign %lu\ninterleave_hit %lu\n"
		       "local_node %lu\nother_node %lu\n", s[NUMA_HIT], s[NUMA_MISS], s[NUMA_FOREIGN],
		       s[NUMA_INTERLEAVE_HIT], s[NUMA_LOCAL], s[NUMA_OTHER]);
}

/* node_read_meminfo(): the node's managed and free pages; the counters we
 * do not keep per node (anonymous pages, page tables, slab, stacks) and
 * those we lack altogether print 0. */
static void node_meminfo_show(struct seq_buf *m, const struct proc_node *node)
{
	static const char *const zero_fields[] = {
		"SwapCached:     ", "Active:         ", "Inactive:       ", "Active(anon):   ",
		"Inactive(anon): ", "Active(file):   ", "Inactive(file): ", "Unevictable:    ",
		"Mlocked:        ", "Dirty:          ", "Writeback:      ", "FilePages:      ",
		"Mapped:         ", "AnonPages:      ", "Shmem:          ", "KernelStack:    ",
		"PageTables:     ", "SecPageTables:  ", "NFS_Unstable:   ", "Bounce:         ",
		"WritebackTmp:   ", "KReclaimable:   ", "Slab:           ", "SReclaimable:   ",
		"SUnreclaim:     ", "AnonHugePages:  ", "ShmemHugePages: ", "ShmemPmdMapped: ",
		"FileHugePages:  ", "FilePmdMapped:  ", "Unaccepted:     ",
	};
	int nid = node->nid;
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long total = pgdat ? pgdat->managed_pages : 0;
	unsigned long free = node_free_pages(nid);
	seq_buf_printf(m, "Node %d MemTotal:       %8lu kB\n", nid, total << (PAGE_SHIFT - 10));
	seq_buf_printf(m, "Node %d MemFree:        %8lu kB\n", nid, free << (PAGE_SHIFT - 10));
	seq_buf_printf(m, "Node %d MemUsed:        %8lu kB\n", nid,
		       (total > free ? total - free : 0) << (PAGE_SHIFT - 10));
	for (size_t i = 0; i < ARRAY_SIZE(zero_fields); i++)
		seq_buf_printf(m, "Node %d %s%8lu kB\n", nid, zero_fields[i], 0ul);
	hugetlb_report_node_meminfo(m, nid);
}

/* /proc/vmstat: Linux's format ("name value" per line, mm/vmstat.c's
 * names), with the counters mmlab keeps: a subset of Linux's lines, in
 * Linux's order, then mmlab's own clearing counters (mm/clear_page.h:
 * extents and 4 KiB pages cleared by each method, and the fences), which
 * Linux does not have. */
static void vmstat_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "nr_free_pages %lu\nnr_anon_pages %lu\nnr_page_table_pages %lu\n", nr_free_pages(),
		       nr_anon_pages(), nr_user_pagetable_pages());
	static const char *const numa_names[NR_NUMA_STAT_ITEMS] = {
		[NUMA_HIT] = "numa_hit", [NUMA_MISS] = "numa_miss", [NUMA_FOREIGN] = "numa_foreign",
		[NUMA_INTERLEAVE_HIT] = "numa_interleave", [NUMA_LOCAL] = "numa_local", [NUMA_OTHER] = "numa_other",
	};
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++) {
		unsigned long sum = 0;
		for (unsigned nid = 0; nid < num_online_nodes(); nid++)
			sum += node_numa_event_state((int)nid, (enum numa_stat_item)i);
		seq_buf_printf(m, "%s %lu\n", numa_names[i], sum);
	}
	seq_buf_printf(m, "pgfault %lu\npgmajfault %lu\n", all_vm_events(PGFAULT), all_vm_events(PGMAJFAULT));
	thp_vmstat_show(m);
	struct clear_page_stats clear = clear_page_stats_sum();
	for (unsigned i = CLEAR_PAGE_ORIG; i < NR_CLEAR_PAGE_METHODS; i++)
		seq_buf_printf(m, "clear_huge_page_%s %lu\nclear_huge_page_%s_pages %lu\n",
			       clear_page_method_name(i), clear.extents[i], clear_page_method_name(i),
			       clear.pages[i]);
	/* The paths summed (the names): cached = orig + rep + erms,
	 * uncached = movnt + clzero; extent is its own line above. Then the
	 * fences, and the fence assertion's reports (0 unless a bug). */
	unsigned long cached = 0, uncached = 0;
	for (unsigned i = CLEAR_PAGE_ORIG; i < NR_CLEAR_PAGE_METHODS; i++) {
		if (clear_page_method_uncached(i))
			uncached += clear.extents[i];
		else if (i != CLEAR_PAGE_EXTENT)
			cached += clear.extents[i];
	}
	seq_buf_printf(m, "clear_huge_page_cached %lu\nclear_huge_page_uncached %lu\n", cached, uncached);
	seq_buf_printf(m, "clear_huge_page_fences %lu\nclear_huge_page_incoherent %lu\n", clear.fences,
		       clear.incoherent);
}

/* The SLIT row, as Linux's node_read_distance. */
static void node_distance_show(struct seq_buf *m, const struct proc_node *node)
{
	for (unsigned i = 0; i < num_online_nodes(); i++)
		seq_buf_printf(m, "%s%d", i ? " " : "", node_distance(node->nid, (int)i));
	seq_buf_puts(m, "\n");
}

static void node_cpulist_show(struct seq_buf *m, const struct proc_node *node)
{
	bool set[NR_CPUS];
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		set[cpu] = cpu_online(cpu) && cpu_to_node(cpu) == node->nid;
	print_list(m, set, NR_CPUS);
}

/* ---- /proc/vmallocinfo (mm/vmalloc.c) ---- */

static void vmallocinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	vmallocinfo_show_buf(m);
}

/* ---- the namespace ---- */

struct proc_entry {
	const char *name;
	void (*show)(struct seq_buf *m, const struct proc_node *node);
	/* NULL for a read-only file. Otherwise the handler of one write(2):
	 * buf holds the len bytes written (NUL-terminated, len < PAGE_SIZE);
	 * it returns len, or a negative errno (Linux's proc_handler with
	 * write = 1: -EINVAL for a value it does not take, -EBUSY when the
	 * value cannot change now). Such a file is 0644. */
	long (*write)(const struct proc_node *node, const char *buf, size_t len);
	/* Set instead of show for a file read at an offset straight from the
	 * kernel's state, never generated whole (/proc/<pid>/pagemap: 8 bytes
	 * per virtual page, 256 GiB for the user half): copies up to count
	 * bytes from *pos into dst (user memory if user), moves *pos, returns
	 * the bytes copied or a negative errno. */
	long (*read)(const struct proc_node *node, char *dst, size_t count, long *pos, bool user);
};

static const struct proc_entry proc_root_files[] = {
	{ .name = "buddyinfo", .show = buddyinfo_show },
	{ .name = "cmdline", .show = cmdline_show },
	{ .name = "loadavg", .show = loadavg_show },
	{ .name = "meminfo", .show = meminfo_show },
	{ .name = "vmallocinfo", .show = vmallocinfo_show },
	{ .name = "vmstat", .show = vmstat_show },
	{ .name = NULL },
};
static const struct proc_entry pid_files[] = {
	{ .name = "maps", .show = maps_show },
	{ .name = "pagemap", .read = pagemap_read },
	{ .name = "smaps", .show = smaps_show },
	{ .name = "numa_maps", .show = numa_maps_show },
	{ .name = "smaps_rollup", .show = smaps_rollup_show },
	{ .name = "stat", .show = stat_show },
	{ .name = "statm", .show = statm_show },
	{ .name = "status", .show = status_show },
	{ .name = NULL },
};
/* /proc/sys/vm: the vm sysctls (Linux's kernel/sysctl.c vm_table and
 * mm/'s own tables), each a show and a write handler. */
/* /sys/kernel/mm/hugepages/hugepages-<kB>kB and
 * /sys/devices/system/node/node<N>/hugepages/hugepages-<kB>kB
 * (mm/hugetlb.c; node->hstate says which size). */
static const struct proc_entry hstate_files[] = {
	{ .name = "free_hugepages", .show = free_hugepages_show },
	{ .name = "nr_hugepages", .show = nr_hugepages_show, .write = nr_hugepages_write },
	{ .name = "nr_overcommit_hugepages", .show = nr_overcommit_hugepages_show, .write = nr_overcommit_hugepages_write },
	{ .name = "resv_hugepages", .show = resv_hugepages_show },
	{ .name = "surplus_hugepages", .show = surplus_hugepages_show },
	{ .name = NULL },
};
static const struct proc_entry node_hstate_files[] = {
	{ .name = "free_hugepages", .show = free_hugepages_show },
	{ .name = "nr_hugepages", .show = nr_hugepages_show, .write = nr_hugepages_write },
	{ .name = "surplus_hugepages", .show = surplus_hugepages_show },
	{ .name = NULL },
};
/* /sys/kernel/mm/transparent_hugepage (mm/huge_memory.c). */
static const struct proc_entry thp_files[] = {
	{ .name = "defrag", .show = thp_defrag_show, .write = thp_defrag_write },
	{ .name = "enabled", .show = thp_enabled_show, .write = thp_enabled_write },
	{ .name = "hpage_pmd_size", .show = thp_hpage_pmd_size_show },
	{ .name = "use_zero_page", .show = thp_use_zero_page_show, .write = thp_use_zero_page_write },
	{ .name = NULL },
};
static const struct proc_entry proc_sys_vm_files[] = {
	{ .name = "nr_hugepages", .show = nr_hugepages_sysctl_show, .write = nr_hugepages_sysctl_write },
	{ .name = "clear_huge_page_method", .show = clear_huge_page_method_show, .write = clear_huge_page_method_write },
	{ .name = "clear_huge_page_threshold_kb", .show = clear_huge_page_threshold_kb_show,
	  .write = clear_huge_page_threshold_kb_write },
	{ .name = "overcommit_kbytes", .show = overcommit_kbytes_show, .write = overcommit_kbytes_write },
	{ .name = "overcommit_memory", .show = overcommit_memory_show, .write = overcommit_memory_write },
	{ .name = "overcommit_ratio", .show = overcommit_ratio_show, .write = overcommit_ratio_write },
	{ .name = "pte_reclaim", .show = pte_reclaim_sysctl_show, .write = pte_reclaim_sysctl_write },
	{ .name = NULL },
};
static const struct proc_entry nodes_files[] = {
	{ .name = "has_cpu", .show = nodes_cpu_show },
	{ .name = "has_memory", .show = nodes_memory_show },
	{ .name = "online", .show = nodes_online_show },
	{ .name = "possible", .show = nodes_online_show }, /* nodes are only those the SRAT names */
	{ .name = NULL },
};
/* Generated by drivers/base/cpu.c. */
static const struct proc_entry cpus_files[] = {
	{ .name = "online", .show = cpu_online_show },
	{ .name = "possible", .show = cpu_possible_show },
	{ .name = "present", .show = cpu_present_show },
	{ .name = NULL },
};
static const struct proc_entry node_files[] = {
	{ .name = "cpulist", .show = node_cpulist_show },
	{ .name = "distance", .show = node_distance_show },
	{ .name = "meminfo", .show = node_meminfo_show },
	{ .name = "numastat", .show = node_numastat_show },
	{ .name = NULL },
};

/* /sys/kernel/mm/mempolicy/weighted_interleave/node<N> (mm/mempolicy.c),
 * one entry for every node: lookup_one sets the node's id. */
static const struct proc_entry weighted_interleave_node_entry = {
	.name = "node", .show = weighted_interleave_node_show, .write = weighted_interleave_node_write,
};

enum proc_dir {
	DIR_ROOT, DIR_PROC, DIR_PID, DIR_SYS, DIR_SYS_DEVICES, DIR_SYS_SYSTEM, DIR_NODES, DIR_NODE,
	DIR_CPUS, DIR_PROC_SYS, DIR_PROC_SYS_VM, DIR_SYS_KERNEL, DIR_SYS_KERNEL_MM, DIR_MEMPOLICY,
	DIR_WEIGHTED_INTERLEAVE, DIR_TRANSPARENT_HUGEPAGE, DIR_HUGEPAGES, DIR_HSTATE, DIR_NODE_HUGEPAGES,
	DIR_NODE_HSTATE,
	NR_PROC_DIRS,
};

/* A decimal number without sign or leading zero that fits an int. */
static bool parse_id(const char *s, size_t len, int *out)
{
	u64 v;
	if (!len || (s[0] == '0' && len > 1) || s[0] < '0' || s[0] > '9' || parse_u64(s, len, &v) ||
	    v > 0x7fffffff)
		return false;
	*out = (int)v;
	return true;
}

static bool name_is(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(s, name, len);
}

static const struct proc_entry *find_entry(const struct proc_entry *table, const char *s, size_t len)
{
	for (; table && table->name; table++)
		if (name_is(s, len, table->name))
			return table;
	return NULL;
}

/* One step down from directory dir; returns 0 with either *dir updated
 * (a directory) or node->entry set (a file). */
static int lookup_one(enum proc_dir *dir, const char *s, size_t len, struct task_struct *task,
		      struct proc_node *node)
{
	/* Every directory has a slot (NULL: no fixed files). */
	static const struct proc_entry *const files[NR_PROC_DIRS] = {
		[DIR_PROC] = proc_root_files, [DIR_PID] = pid_files,
		[DIR_NODES] = nodes_files, [DIR_NODE] = node_files, [DIR_CPUS] = cpus_files,
		[DIR_PROC_SYS_VM] = proc_sys_vm_files, [DIR_TRANSPARENT_HUGEPAGE] = thp_files,
		[DIR_HSTATE] = hstate_files, [DIR_NODE_HSTATE] = node_hstate_files,
	};
	int id;
	const struct proc_entry *e = find_entry(files[*dir], s, len);
	if (e) {
		node->entry = e;
		return 0;
	}
	switch (*dir) {
	case DIR_ROOT:
		if (name_is(s, len, "proc")) {
			node->fs = PROC_FS_PROC;
			*dir = DIR_PROC;
			return 0;
		}
		if (name_is(s, len, "sys")) {
			node->fs = PROC_FS_SYS;
			*dir = DIR_SYS;
			return 0;
		}
		break;
	case DIR_PROC:
		if (name_is(s, len, "sys")) {
			*dir = DIR_PROC_SYS;
			return 0;
		}
		/* Only the caller's own pid exists: there is no pid table to
		 * look others up in, and a process cannot see another's mm. */
		if (name_is(s, len, "self") || (parse_id(s, len, &id) && task->pid > 0 && id == task->pid)) {
			node->task = task;
			node->per_task = true;
			*dir = DIR_PID;
			return 0;
		}
		break;
	case DIR_PROC_SYS:
		if (name_is(s, len, "vm")) {
			*dir = DIR_PROC_SYS_VM;
			return 0;
		}
		break;
	case DIR_SYS:
		if (name_is(s, len, "devices")) {
			*dir = DIR_SYS_DEVICES;
			return 0;
		}
		if (name_is(s, len, "kernel")) {
			*dir = DIR_SYS_KERNEL;
			return 0;
		}
		break;
	case DIR_SYS_KERNEL:
		if (name_is(s, len, "mm")) {
			*dir = DIR_SYS_KERNEL_MM;
			return 0;
		}
		break;
	case DIR_SYS_KERNEL_MM:
		if (name_is(s, len, "mempolicy")) {
			*dir = DIR_MEMPOLICY;
			return 0;
		}
		if (name_is(s, len, "transparent_hugepage")) {
			*dir = DIR_TRANSPARENT_HUGEPAGE;
			return 0;
		}
		if (name_is(s, len, "hugepages")) {
			*dir = DIR_HUGEPAGES;
			return 0;
		}
		break;
	case DIR_HUGEPAGES:
	case DIR_NODE_HUGEPAGES:
		/* hugepages-<kB>kB, one for each size the CPU can map */
		for (int i = 0; i < HUGE_MAX_HSTATE; i++) {
			char name[32];
			snprintf(name, sizeof(name), "hugepages-%lukB", huge_page_size(&hstates[i]) >> 10);
			if (hstates[i].supported && name_is(s, len, name)) {
				node->hstate = i;
				*dir = *dir == DIR_HUGEPAGES ? DIR_HSTATE : DIR_NODE_HSTATE;
				return 0;
			}
		}
		break;
	case DIR_MEMPOLICY:
		if (name_is(s, len, "weighted_interleave")) {
			*dir = DIR_WEIGHTED_INTERLEAVE;
			return 0;
		}
		break;
	case DIR_WEIGHTED_INTERLEAVE:
		/* Linux has a file for each possible node. */
		if (len > 4 && !memcmp(s, "node", 4) && parse_id(s + 4, len - 4, &id) &&
		    (unsigned)id < num_online_nodes()) {
			node->nid = id;
			node->entry = &weighted_interleave_node_entry;
			return 0;
		}
		break;
	case DIR_SYS_DEVICES:
		if (name_is(s, len, "system")) {
			*dir = DIR_SYS_SYSTEM;
			return 0;
		}
		break;
	case DIR_SYS_SYSTEM:
		if (name_is(s, len, "node")) {
			*dir = DIR_NODES;
			return 0;
		}
		if (name_is(s, len, "cpu")) {
			*dir = DIR_CPUS;
			return 0;
		}
		break;
	case DIR_NODES:
		if (len > 4 && !memcmp(s, "node", 4) && parse_id(s + 4, len - 4, &id) &&
		    (unsigned)id < num_online_nodes()) {
			node->nid = id;
			*dir = DIR_NODE;
			return 0;
		}
		break;
	case DIR_NODE:
		if (name_is(s, len, "hugepages")) {
			*dir = DIR_NODE_HUGEPAGES;
			return 0;
		}
		break;
	default:
		break;
	}
	return -ENOENT;
}

int procfs_lookup(const char *path, struct task_struct *task, struct proc_node *node)
{
	enum proc_dir dir = DIR_ROOT;
	memset(node, 0, sizeof(*node));
	node->fs = PROC_FS_ROOT;
	node->nid = NUMA_NO_NODE;
	if (path[0] != '/')
		return -ENOENT;
	const char *s = path + 1;
	while (*s) {
		const char *end = strchr(s, '/');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (node->entry) /* a file has no children */
			return -ENOTDIR;
		int err = lookup_one(&dir, s, len, task, node);
		if (err)
			return err;
		s += len;
		if (*s == '/')
			s++;
	}
	return 0;
}

/* Linux's seq_file starts with a page and doubles until the output fits;
 * we stop at 1 MiB (about 20,000 lines of maps) and say -ENOMEM. The
 * buffer comes from kvmalloc, as Linux's seq_buf_alloc: a large file needs
 * no physically contiguous block (1 MiB would be an order-8 one), and
 * kvmalloc still tries kmalloc first. */
#define PROCFS_MAX_SIZE (1u << 20)

int procfs_fill(const struct proc_node *node, char **bufp, size_t *lenp)
{
	if (!node->entry->show)
		return -EINVAL; /* read at an offset only (procfs_read_at) */
	for (size_t size = PAGE_SIZE; size <= PROCFS_MAX_SIZE; size *= 2) {
		struct seq_buf m = { kvmalloc(size, GFP_KERNEL), size - 1, 0 };
		if (!m.buffer)
			return -ENOMEM;
		node->entry->show(&m, node);
		if (!seq_buf_has_overflowed(&m)) {
			m.buffer[m.len] = 0;
			*bufp = m.buffer;
			*lenp = m.len;
			return 0;
		}
		kvfree(m.buffer);
	}
	return -ENOMEM;
}

bool procfs_node_reads_at_offset(const struct proc_node *node)
{
	return node->entry && node->entry->read;
}

long procfs_read_at(const struct proc_node *node, char *dst, size_t count, long *pos, bool user)
{
	if (!procfs_node_reads_at_offset(node))
		return -EINVAL;
	return node->entry->read(node, dst, count, pos, user);
}

bool procfs_node_writable(const struct proc_node *node)
{
	return node->entry && node->entry->write;
}

long procfs_write(const struct proc_node *node, const char *buf, size_t len)
{
	if (!procfs_node_writable(node))
		return -EIO;
	if (len >= PAGE_SIZE)
		return -EINVAL;
	char *copy = kmalloc(len + 1, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = 0;
	long ret = node->entry->write(node, copy, len);
	kfree(copy);
	return ret;
}

int procfs_write_path(const char *path, struct task_struct *task, const char *buf, size_t len)
{
	struct proc_node node;
	int err = procfs_lookup(path, task, &node);
	if (err)
		return err;
	if (proc_node_is_dir(&node))
		return -EISDIR;
	long ret = procfs_write(&node, buf, len);
	return ret < 0 ? (int)ret : 0;
}

int procfs_generate(const char *path, struct task_struct *task, char **bufp, size_t *lenp)
{
	struct proc_node node;
	int err = procfs_lookup(path, task, &node);
	if (err)
		return err;
	if (proc_node_is_dir(&node))
		return -EISDIR;
	return procfs_fill(&node, bufp, lenp);
}
