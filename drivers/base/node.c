/* /sys/devices/system/node (Linux's drivers/base/node.c): the node lists
 * (online, possible, has_cpu, has_memory) and a directory node<N> for
 * every online node, memoryless ones included, with numastat, meminfo,
 * distance and cpulist; mm/hugetlb.c adds node<N>/hugepages. Each file is
 * printed from the kernel's own state at the moment it is generated. */
#include "drivers/base/node.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/hugetlb.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"

static bool node_has_cpu(int nid)
{
	unsigned cpu;
	for_each_online_cpu(cpu)
		if (cpu_to_node(cpu) == nid)
			return true;
	return false;
}

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

/* node_read_meminfo(): the node's managed and free pages and its LRU
 * lists (as /proc/meminfo's lines, for this node's lruvec); the counters
 * we do not keep per node (anonymous pages, page tables, slab, stacks)
 * and those we lack altogether print 0. */
static void node_meminfo_show(struct seq_buf *m, const struct proc_node *node)
{
	static const char *const zero_fields[] = {
		"Dirty:          ", "Writeback:      ", "FilePages:      ",
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
	unsigned long lru[NR_LRU_LISTS];
	for (int i = 0; i < NR_LRU_LISTS; i++)
		lru[i] = node_lru_pages(nid, (enum lru_list)i);
	const struct {
		const char *name;
		unsigned long pages;
	} lines[] = {
		{ "SwapCached:     ", 0 }, /* the swap cache is not counted per node */
		{ "Active:         ", lru[LRU_ACTIVE_ANON] + lru[LRU_ACTIVE_FILE] },
		{ "Inactive:       ", lru[LRU_INACTIVE_ANON] + lru[LRU_INACTIVE_FILE] },
		{ "Active(anon):   ", lru[LRU_ACTIVE_ANON] },
		{ "Inactive(anon): ", lru[LRU_INACTIVE_ANON] },
		{ "Active(file):   ", lru[LRU_ACTIVE_FILE] },
		{ "Inactive(file): ", lru[LRU_INACTIVE_FILE] },
		{ "Unevictable:    ", lru[LRU_UNEVICTABLE] },
		{ "Mlocked:        ", pgdat ? READ_ONCE(pgdat->__lruvec.nr_mlock) : 0 },
	};
	seq_buf_printf(m, "Node %d MemTotal:       %8lu kB\n", nid, total << (PAGE_SHIFT - 10));
	seq_buf_printf(m, "Node %d MemFree:        %8lu kB\n", nid, free << (PAGE_SHIFT - 10));
	seq_buf_printf(m, "Node %d MemUsed:        %8lu kB\n", nid,
		       (total > free ? total - free : 0) << (PAGE_SHIFT - 10));
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		seq_buf_printf(m, "Node %d %s%8lu kB\n", nid, lines[i].name, lines[i].pages << (PAGE_SHIFT - 10));
	for (size_t i = 0; i < ARRAY_SIZE(zero_fields); i++)
		seq_buf_printf(m, "Node %d %s%8lu kB\n", nid, zero_fields[i], 0ul);
	hugetlb_report_node_meminfo(m, nid);
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

static const struct proc_dir_entry node_root_dir __proc_entry = {
	.parent = &sys_devices_system_dir, .name = "node", .mode = S_IFDIR | 0555,
};

PROC_FILE(nodes_has_cpu_file, node_root_dir, "has_cpu", nodes_cpu_show);
PROC_FILE(nodes_has_memory_file, node_root_dir, "has_memory", nodes_memory_show);
PROC_FILE(nodes_online_file, node_root_dir, "online", nodes_online_show);
/* Nodes are only those the SRAT names: possible is online. */
PROC_FILE(nodes_possible_file, node_root_dir, "possible", nodes_online_show);

/* node<N> for every online node. */
const struct proc_dir_entry node_dir __proc_entry = {
	.parent = &node_root_dir, .match = proc_match_node, .list = proc_list_node, .mode = S_IFDIR | 0555,
};

PROC_FILE(node_cpulist_file, node_dir, "cpulist", node_cpulist_show);
PROC_FILE(node_distance_file, node_dir, "distance", node_distance_show);
PROC_FILE(node_meminfo_file, node_dir, "meminfo", node_meminfo_show);
PROC_FILE(node_numastat_file, node_dir, "numastat", node_numastat_show);
