/* hugetlb's pools of huge pages (Linux's mm/hugetlb.c), one per size:
 * 2 MiB (order 9) and, where the CPU can map it (PDPE1GB), 1 GiB (order
 * 18, from the buddy allocator's largest order). Each pool holds whole
 * allocations of its order, per node, taken from and given back to the
 * buddy allocator as its size is set:
 *
 *   hugepagesz=2M|1G hugepages=N|<node>:N,... default_hugepagesz=2M|1G
 *                                   the command line, in Linux's order
 *                                   (hugepages= sets the size named by the
 *                                   hugepagesz= before it, else the default)
 *   /proc/sys/vm/nr_hugepages       the default size's pool
 *   /sys/kernel/mm/hugepages/hugepages-<kB>kB/nr_hugepages, free_hugepages,
 *       resv_hugepages, surplus_hugepages, nr_overcommit_hugepages
 *   /sys/devices/system/node/node<N>/hugepages/hugepages-<kB>kB/
 *       nr_hugepages, free_hugepages, surplus_hugepages
 *   /proc/meminfo HugePages_*, Hugepagesize, Hugetlb, and the nodes' meminfo
 *
 * A pool grows node by node in turn over the nodes with memory (Linux's
 * alloc_pool_huge_folio over N_MEMORY), each page from its own node only,
 * until every node refuses; it shrinks by freeing free pages, node by node
 * in turn. Pages in a pool are not cleared: a huge page is cleared when it
 * is faulted in (mm/clear_page.h).
 *
 * Not built yet (issue 12): MAP_HUGETLB mappings, their faults and
 * reservations, so every page of a pool is free, resv_hugepages is 0, and
 * surplus pages (nr_overcommit_hugepages) are refused.
 *
 * Locking: hugetlb_lock (a spinlock) guards the counts and the free lists;
 * pages are allocated and freed outside it; resize_lock (a mutex) lets one
 * set_max_huge_pages run at a time. */
#ifndef MM_HUGETLB_H
#define MM_HUGETLB_H

#include "kernel/list.h"
#include "kernel/types.h"
#include "mm/numa.h"

struct seq_buf;
struct proc_node;

struct hstate {
	unsigned order;
	bool supported;                          /* the CPU can map it */
	unsigned long nr_huge_pages, free_huge_pages;
	unsigned long nr_huge_pages_node[MAX_NUMNODES], free_huge_pages_node[MAX_NUMNODES];
	struct list_head hugepage_freelists[MAX_NUMNODES];
	int next_nid_to_alloc, next_nid_to_free;
};

enum { HSTATE_2M, HSTATE_1G, HUGE_MAX_HSTATE };
extern struct hstate hstates[HUGE_MAX_HSTATE];
extern int default_hstate_idx;

static inline unsigned long huge_page_size(const struct hstate *h) { return 4096ul << h->order; }

/* The hstate of a size in bytes, or NULL. */
struct hstate *size_to_hstate(unsigned long size);

/* Sets the pool of h to count pages: on node nid alone, or (NUMA_NO_NODE)
 * over every node with memory. Returns the pool's size afterwards (fewer
 * than asked when memory ran out), or -EINVAL for a size the CPU cannot
 * map. Linux's set_max_huge_pages. */
long set_max_huge_pages(struct hstate *h, unsigned long count, int nid);

/* /proc/meminfo's lines and a node's. */
void hugetlb_report_meminfo(struct seq_buf *m);
void hugetlb_report_node_meminfo(struct seq_buf *m, int nid);

/* The files (kernel/procfs.c): node->hstate is the hstate's index, and
 * node->nid the node for the per-node ones (NUMA_NO_NODE for the global). */
void nr_hugepages_show(struct seq_buf *m, const struct proc_node *node);
long nr_hugepages_write(const struct proc_node *node, const char *buf, size_t len);
void free_hugepages_show(struct seq_buf *m, const struct proc_node *node);
void zero_hugepages_show(struct seq_buf *m, const struct proc_node *node);
long nr_overcommit_hugepages_write(const struct proc_node *node, const char *buf, size_t len);
/* /proc/sys/vm/nr_hugepages: the default hstate's. */
void nr_hugepages_sysctl_show(struct seq_buf *m, const struct proc_node *node);
long nr_hugepages_sysctl_write(const struct proc_node *node, const char *buf, size_t len);

#endif
